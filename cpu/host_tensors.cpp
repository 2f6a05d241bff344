#include "host_tensors.hpp"

#include <cmath>
#include <limits>

#include "dtype.hpp"

namespace leanattn::cpu {

HostTensors::HostTensors(const Problem& p, DType dtype, CacheLayout layout, std::int64_t block_size)
    : problem_(p), kind_(layout), layout_(make_tensor_layout(p, dtype, layout, block_size)) {
    check_problem(p);
    const auto e = static_cast<std::size_t>(dtype_bytes(dtype));
    q_.assign(static_cast<std::size_t>(layout_.q_elements) * e, 0);
    o_.assign(q_.size(), 0);
    k_.assign(static_cast<std::size_t>(layout_.kv_elements) * e, 0);
    v_.assign(k_.size(), 0);
    lse_.assign(static_cast<std::size_t>(layout_.lse_elements), 0.0f);
}

DecodeTensors HostTensors::view() {
    DecodeTensors t = layout_.views;
    t.q.data = q_.data();
    t.o.data = o_.data();
    t.lse.data = lse_.data();
    t.kv.k = k_.data();
    t.kv.v = v_.data();
    t.kv.block_table = layout_.block_table.empty() ? nullptr : layout_.block_table.data();
    t.kv.cu_seqlens = layout_.cu_seqlens.empty() ? nullptr : layout_.cu_seqlens.data();
    t.seqlens = layout_.seqlens.data();
    return t;
}

// The views of a const object: the executor never writes through q or K/V; o and lse stay writable in the
// view type, and callers of the const overload only read them.
DecodeTensors HostTensors::view() const { return const_cast<HostTensors*>(this)->view(); }

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void fill(std::vector<unsigned char>& t, DType dtype, std::uint64_t stream, float scale) {
    const std::int64_t n = static_cast<std::int64_t>(t.size()) / dtype_bytes(dtype);
    constexpr std::int64_t chunk = 4096;
#pragma omp parallel for schedule(static)
    for (std::int64_t c0 = 0; c0 < n; c0 += chunk) {
        float buf[chunk];
        const std::int64_t len = std::min(chunk, n - c0);
        for (std::int64_t i = 0; i < len; ++i) {
            const double u = static_cast<double>(mix(stream ^ static_cast<std::uint64_t>(c0 + i)) >> 11) * 0x1.0p-53;
            buf[i] = static_cast<float>((2.0 * u - 1.0) * 1.7320508075688772) * scale;
        }
        from_float(dtype, buf, t.data() + c0 * dtype_bytes(dtype), len);
    }
}

}  // namespace

void HostTensors::fill_random(std::uint64_t seed, float q_scale) {
    fill(q_, dtype(), mix(seed * 3 + 0) << 1, q_scale);
    fill(k_, dtype(), mix(seed * 3 + 1) << 1, 1.0f);
    fill(v_, dtype(), mix(seed * 3 + 2) << 1, 1.0f);
}

void HostTensors::poison_outputs() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> nans(o_.size() / static_cast<std::size_t>(dtype_bytes(dtype())), nan);
    from_float(dtype(), nans.data(), o_.data(), static_cast<std::int64_t>(nans.size()));
    std::fill(lse_.begin(), lse_.end(), nan);
}

std::vector<float> HostTensors::as_float(const std::vector<unsigned char>& t) const {
    std::vector<float> out(t.size() / static_cast<std::size_t>(dtype_bytes(dtype())));
    to_float(dtype(), t.data(), out.data(), static_cast<std::int64_t>(out.size()));
    return out;
}

}  // namespace leanattn::cpu
