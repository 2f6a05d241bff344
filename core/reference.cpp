#include "reference.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace leanattn {

namespace {

const unsigned char* bytes(const void* p) { return static_cast<const unsigned char*>(p); }

// Runs body(i) for i in [0, n) on all hardware threads (the reference is plain loops: std::thread is all
// it needs, and the core stays free of OpenMP).
template <typename Body>
void parallel_for(std::int64_t n, Body body) {
    const std::int64_t workers = std::clamp<std::int64_t>(std::thread::hardware_concurrency(), 1, std::max<std::int64_t>(n, 1));
    std::atomic<std::int64_t> next{0};
    auto work = [&] {
        for (std::int64_t i = next++; i < n; i = next++) body(i);
    };
    std::vector<std::thread> team;
    for (std::int64_t w = 1; w < workers; ++w) team.emplace_back(work);
    work();
    for (std::thread& t : team) t.join();
}

}  // namespace

ReferenceOutput reference_attention(const Problem& p, const DecodeTensors& t) {
    const std::int64_t d = p.head_dim, g = p.group(), ql = p.q_len, e = dtype_bytes(t.dtype);
    const double scale = t.softmax_scale != 0.0f ? t.softmax_scale : 1.0 / std::sqrt(static_cast<double>(d));
    ReferenceOutput ref;
    ref.o.assign(static_cast<std::size_t>(p.batch * ql * p.q_heads * d), 0.0);
    ref.lse.assign(static_cast<std::size_t>(p.batch * p.q_heads * ql), 0.0);
    parallel_for(p.batch * p.kv_heads, [&](std::int64_t output) {
        const std::int64_t b = output / p.kv_heads, h = output % p.kv_heads;
        const std::int64_t n = tensors::live_tokens(t.kv, t.seqlens, b);
        std::vector<double> k(static_cast<std::size_t>(n * d)), v(k.size()), s(static_cast<std::size_t>(n)), q(static_cast<std::size_t>(d));
        for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t at = tensors::kv_offset(t.kv, b, h, j);
            for (std::int64_t i = 0; i < d; ++i) {
                k[j * d + i] = element_to_float(t.dtype, bytes(t.kv.k) + (at + i) * e);
                v[j * d + i] = element_to_float(t.dtype, bytes(t.kv.v) + (at + i) * e);
            }
        }
        for (std::int64_t r = 0; r < g * ql; ++r) {
            const std::int64_t head = h * g + r / ql, tok = r % ql;
            const std::int64_t q_at = tensors::row_offset(t.q, b, tok, head);
            for (std::int64_t i = 0; i < d; ++i) q[i] = element_to_float(t.dtype, bytes(t.q.data) + (q_at + i) * e);
            const std::int64_t visible = n - ql + tok + 1;
            double m = -INFINITY;
            for (std::int64_t j = 0; j < visible; ++j) {
                double dot = 0;
                for (std::int64_t i = 0; i < d; ++i) dot += q[i] * k[j * d + i];
                s[j] = dot * scale;
                m = std::isnan(s[j]) || std::isnan(m) ? NAN : std::max(m, s[j]);
            }
            double l = 0;
            double* out = ref.o.data() + ((b * ql + tok) * p.q_heads + head) * d;
            for (std::int64_t j = 0; j < visible; ++j) {
                const double w = std::exp(s[j] - m);
                l += w;
                for (std::int64_t i = 0; i < d; ++i) out[i] += w * v[j * d + i];
            }
            // A row that sees no token (an empty slot's, or a request shorter than q_len) is out 0 and lse −∞.
            if (l == 0) {
                ref.lse[(b * p.q_heads + head) * ql + tok] = -INFINITY;
                continue;
            }
            for (std::int64_t i = 0; i < d; ++i) out[i] /= l;
            ref.lse[(b * p.q_heads + head) * ql + tok] = m + std::log(l);
        }
    });
    return ref;
}

Errors compare_to_reference(const Problem& p, const DecodeTensors& t, const ReferenceOutput& ref) {
    const std::int64_t d = p.head_dim, ql = p.q_len, e = dtype_bytes(t.dtype);
    Errors err;
    double num = 0, den = 0;
    for (std::int64_t b = 0; b < p.batch; ++b) {
        for (std::int64_t s = 0; s < ql; ++s) {
            for (std::int64_t h = 0; h < p.q_heads; ++h) {
                const std::int64_t at = tensors::row_offset(t.o, b, s, h);
                const double* r = ref.o.data() + ((b * ql + s) * p.q_heads + h) * d;
                for (std::int64_t i = 0; i < d; ++i) {
                    const float x = element_to_float(t.dtype, bytes(t.o.data) + (at + i) * e);
                    if (!std::isfinite(x)) {
                        ++err.non_finite;
                        continue;
                    }
                    const double diff = double(x) - r[i];
                    num += diff * diff;
                    den += r[i] * r[i];
                    err.max_abs = std::max(err.max_abs, std::abs(diff));
                }
                if (t.lse.data == nullptr) continue;
                const float lse = t.lse.data[tensors::lse_offset(t.lse, b, s, h)];
                const double want = ref.lse[(b * p.q_heads + h) * ql + s];
                if (want == -INFINITY) {  // a row that sees no token: −∞ exactly, anything else is as wrong as can be
                    if (lse != -INFINITY) err.lse_max_abs = INFINITY;
                } else if (!std::isfinite(lse)) {
                    ++err.non_finite;
                } else {
                    err.lse_max_abs = std::max(err.lse_max_abs, std::abs(double(lse) - want));
                }
            }
        }
    }
    err.rel_l2 = std::sqrt(num / std::max(den, 1e-300));
    return err;
}

double tolerance(DType dtype) {
    switch (dtype) {
        case DType::fp32: return 1e-5;
        case DType::fp16: return 1e-3;
        case DType::bf16: return 8e-3;
    }
    return 0;
}

bool within_tolerance(const Errors& e, DType dtype) { return e.non_finite == 0 && e.rel_l2 <= tolerance(dtype) && e.lse_max_abs <= lse_tolerance; }

}  // namespace leanattn
