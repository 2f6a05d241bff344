#include "reference.hpp"

#include <algorithm>
#include <cmath>

namespace leanattn::cpu {

ReferenceOutput reference_attention(const DecodeTensors& t) {
    const Problem& p = t.problem();
    const std::int64_t d = p.head_dim, g = p.group(), ql = p.q_len;
    const std::vector<float> q = t.q_float();
    ReferenceOutput ref;
    ref.o.assign(q.size(), 0.0);
    ref.lse.assign(static_cast<std::size_t>(p.batch * p.q_heads * ql), 0.0);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (std::int64_t b = 0; b < p.batch; ++b) {
        for (std::int64_t h = 0; h < p.kv_heads; ++h) {
            const std::int64_t n = p.ctx[b];
            std::vector<float> k(static_cast<std::size_t>(n * d)), v(k.size());
            to_float(t.dtype(), t.k_slice(b, h), k.data(), n * d);
            to_float(t.dtype(), t.v_slice(b, h), v.data(), n * d);
            std::vector<double> s(static_cast<std::size_t>(n));
            for (std::int64_t r = 0; r < g * ql; ++r) {  // row r = (query head h·g + r / q_len, query r % q_len)
                const std::int64_t row = (b * p.q_heads + h * g) * ql + r;
                const float* qr = q.data() + row * d;
                const std::int64_t visible = n - ql + (r % ql) + 1;
                double m = -INFINITY;
                for (std::int64_t j = 0; j < visible; ++j) {
                    double dot = 0;
                    for (std::int64_t i = 0; i < d; ++i) dot += double(qr[i]) * double(k[j * d + i]);
                    s[j] = dot * scale;
                    m = std::isnan(s[j]) || std::isnan(m) ? NAN : std::max(m, s[j]);
                }
                double l = 0;
                double* out = ref.o.data() + row * d;
                for (std::int64_t j = 0; j < visible; ++j) {
                    const double w = std::exp(s[j] - m);
                    l += w;
                    for (std::int64_t i = 0; i < d; ++i) out[i] += w * double(v[j * d + i]);
                }
                for (std::int64_t i = 0; i < d; ++i) out[i] /= l;
                ref.lse[row] = m + std::log(l);
            }
        }
    }
    return ref;
}

Errors compare_to_reference(const DecodeTensors& t, const ReferenceOutput& ref) {
    const std::vector<float> o = t.o_float();
    Errors e;
    double num = 0, den = 0;
    for (std::size_t i = 0; i < o.size(); ++i) {
        if (!std::isfinite(o[i])) {
            ++e.non_finite;
            continue;
        }
        const double diff = double(o[i]) - ref.o[i];
        num += diff * diff;
        den += ref.o[i] * ref.o[i];
        e.max_abs = std::max(e.max_abs, std::abs(diff));
    }
    for (std::size_t i = 0; i < ref.lse.size(); ++i) {
        if (!std::isfinite(t.lse()[i])) ++e.non_finite;
        else e.lse_max_abs = std::max(e.lse_max_abs, std::abs(double(t.lse()[i]) - ref.lse[i]));
    }
    e.rel_l2 = std::sqrt(num / std::max(den, 1e-300));
    return e;
}

double tolerance(DType dtype) {
    switch (dtype) {
        case DType::fp32: return 1e-5;
        case DType::fp16: return 1e-3;
        case DType::bf16: return 8e-3;
    }
    return 0;
}

}  // namespace leanattn::cpu
