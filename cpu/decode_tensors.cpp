#include "decode_tensors.hpp"

#include <cmath>
#include <limits>

#include "core/input_error.hpp"

namespace leanattn::cpu {

KvLayout parse_layout(const std::string& text) {
    if (text == "padded") return KvLayout::padded;
    if (text == "ragged") return KvLayout::ragged;
    throw InputError("--layout " + text, "expected padded or ragged");
}

DecodeTensors::DecodeTensors(const Problem& p, DType dtype, KvLayout layout) : problem_(p), dtype_(dtype), layout_(layout) {
    check_problem(p);
    max_ctx_ = p.max_ctx();
    total_ctx_ = p.total_ctx();
    cu_seqlens_.assign(static_cast<std::size_t>(p.batch + 1), 0);
    for (std::int64_t b = 0; b < p.batch; ++b) cu_seqlens_[b + 1] = cu_seqlens_[b] + p.ctx[b];
    const std::int64_t tokens = layout == KvLayout::padded ? p.batch * max_ctx_ : total_ctx_;
    const std::size_t e = dtype_bytes(dtype);
    const std::int64_t q_elems = p.batch * p.q_heads * p.q_len * p.head_dim;
    q_.assign(static_cast<std::size_t>(q_elems) * e, 0);
    o_.assign(static_cast<std::size_t>(q_elems) * e, 0);
    k_.assign(static_cast<std::size_t>(tokens * p.kv_heads * p.head_dim) * e, 0);
    v_.assign(k_.size(), 0);
    lse_.assign(static_cast<std::size_t>(p.batch * p.q_heads * p.q_len), 0.0f);
}

std::int64_t DecodeTensors::slice_offset(std::int64_t b, std::int64_t h) const {
    const Problem& p = problem_;
    if (layout_ == KvLayout::padded) return ((b * p.kv_heads + h) * max_ctx_) * p.head_dim;
    return (h * total_ctx_ + cu_seqlens_[b]) * p.head_dim;
}

std::int64_t DecodeTensors::kv_bytes_read() const {
    return 2 * total_ctx_ * problem_.kv_heads * problem_.head_dim * static_cast<std::int64_t>(dtype_bytes(dtype_));
}

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void fill(std::vector<unsigned char>& t, DType dtype, std::uint64_t stream, float scale) {
    const std::int64_t n = static_cast<std::int64_t>(t.size() / dtype_bytes(dtype));
    constexpr std::int64_t chunk = 4096;
#pragma omp parallel for schedule(static)
    for (std::int64_t c0 = 0; c0 < n; c0 += chunk) {
        float buf[chunk];
        const std::int64_t len = std::min(chunk, n - c0);
        for (std::int64_t i = 0; i < len; ++i) {
            const double u = static_cast<double>(mix(stream ^ static_cast<std::uint64_t>(c0 + i)) >> 11) * 0x1.0p-53;
            buf[i] = static_cast<float>((2.0 * u - 1.0) * 1.7320508075688772) * scale;
        }
        from_float(dtype, buf, t.data() + c0 * static_cast<std::int64_t>(dtype_bytes(dtype)), len);
    }
}

}  // namespace

void DecodeTensors::fill_random(std::uint64_t seed, float q_scale) {
    fill(q_, dtype_, mix(seed * 3 + 0) << 1, q_scale);
    fill(k_, dtype_, mix(seed * 3 + 1) << 1, 1.0f);
    fill(v_, dtype_, mix(seed * 3 + 2) << 1, 1.0f);
}

void DecodeTensors::poison_outputs() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> nans(o_.size() / dtype_bytes(dtype_), nan);
    from_float(dtype_, nans.data(), o_.data(), static_cast<std::int64_t>(nans.size()));
    std::fill(lse_.begin(), lse_.end(), nan);
}

std::vector<float> DecodeTensors::as_float(const std::vector<unsigned char>& t) const {
    std::vector<float> out(t.size() / dtype_bytes(dtype_));
    to_float(dtype_, t.data(), out.data(), static_cast<std::int64_t>(out.size()));
    return out;
}

}  // namespace leanattn::cpu
