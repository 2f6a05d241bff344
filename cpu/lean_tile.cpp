#include "lean_tile.hpp"

#include <algorithm>
#include <cmath>

#include "tile_kernels.hpp"

namespace leanattn::cpu {

void lean_tile_run(const DecodeTensors& t, const Segment& seg, SoftmaxState& st, TileScratch& sc) {
    const Problem& p = t.problem();
    const std::int64_t b = p.request_of(seg.output), h = p.kv_head_of(seg.output);
    const std::int64_t d = p.head_dim, rows = p.group() * p.q_len, n = p.ctx[b];
    st.reset(rows, d);
    sc.q.resize(rows, d);
    to_float(t.dtype(), t.q_rows(b, h), sc.q.data(), rows * d);
    sc.q *= static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
    const std::size_t e = dtype_bytes(t.dtype());
    const auto* kbase = static_cast<const unsigned char*>(t.k_slice(b, h));
    const auto* vbase = static_cast<const unsigned char*>(t.v_slice(b, h));

    for (std::int64_t tile = seg.begin; tile < seg.end; ++tile) {
        const std::int64_t j0 = tile * p.tile, len = std::min(p.tile, n - j0);
        // While K is multiplied, V of this LeanTile streams in; while V is, K of the next (tile_kernels.hpp).
        const std::int64_t next = (tile + 1) * p.tile, next_len = tile + 1 < seg.end ? std::min(p.tile, n - next) : 0;
        sc.s.resize(rows, len);
        tile_scores(t.dtype(), kbase + j0 * d * e, len, d, sc.q.data(), rows, sc.s.data(), len, sc.convert, vbase + j0 * d * e,
                    len * d * static_cast<std::int64_t>(e));
        for (std::int64_t r = 0; r < rows; ++r) {
            // Causal decode of q_len tokens: query i of q_len sees tokens [0, n − q_len + i + 1).
            const std::int64_t visible = std::clamp<std::int64_t>(n - p.q_len + (r % p.q_len) + 1 - j0, 0, len);
            auto srow = sc.s.row(r);
            srow.tail(len - visible).setConstant(-INFINITY);
            // PropagateNaN: a NaN logit must reach m (and from there the whole row), not be skipped.
            const float mx = visible > 0 ? srow.head(visible).maxCoeff<Eigen::PropagateNaN>() : -INFINITY;
            const float m_new = nan_max(st.m[r], mx);
            if (m_new == -INFINITY) {  // nothing visible yet: P = 0, state unchanged
                srow.setZero();
                continue;
            }
            const float correction = rescale_factor(st.m[r], m_new);
            srow = (srow.array() - m_new).exp();
            st.l[r] = st.l[r] * correction + srow.sum();
            st.acc.row(r) *= correction;
            st.m[r] = m_new;
        }
        // Blocked summation: P·V of this LeanTile is summed on its own and then added to the running
        // state. One running chain over all n tokens rounds with error ~ u·√n (a 1M-token fp32 output
        // missed 1e-5: 2.1e-5); blocked, ~ u·(√tile + √(n / tile)). The extra add is rows·d per tile.
        sc.pv.setZero(rows, d);
        tile_accumulate(t.dtype(), vbase + j0 * d * e, len, d, sc.s.data(), rows, len, sc.pv.data(), sc.convert,
                        next_len > 0 ? kbase + next * d * e : nullptr, next_len * d * static_cast<std::int64_t>(e));
        st.acc += sc.pv;
    }
}

void write_output(DecodeTensors& t, std::int64_t output, const SoftmaxState& st) {
    const Problem& p = t.problem();
    const std::int64_t b = p.request_of(output), h = p.kv_head_of(output), d = p.head_dim;
    const Eigen::Index rows = st.acc.rows();
    RowMatrix o = st.acc;
    for (Eigen::Index r = 0; r < rows; ++r) o.row(r) /= st.l[r];
    from_float(t.dtype(), o.data(), t.o_rows(b, h), rows * d);
    float* lse = t.lse_rows(b, h);
    for (Eigen::Index r = 0; r < rows; ++r) lse[r] = st.m[r] + std::log(st.l[r]);
}

}  // namespace leanattn::cpu
