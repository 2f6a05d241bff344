#include "lean_tile.hpp"

#include <algorithm>
#include <cmath>

#include "tile_kernels.hpp"

namespace leanattn::cpu {

namespace {

void prefetch(const unsigned char* p, std::size_t bytes) {
    for (std::size_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off, 0, 2);
}

}  // namespace

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
        if (tile + 1 < seg.end) {
            // Ask for the next LeanTile's K and V now: while this one is converted and multiplied, they
            // stream in (the conversion loop is otherwise bound by memory latency, not bandwidth).
            const std::int64_t next = (tile + 1) * p.tile, next_len = std::min(p.tile, n - next);
            prefetch(kbase + next * d * e, static_cast<std::size_t>(next_len * d) * e);
            prefetch(vbase + next * d * e, static_cast<std::size_t>(next_len * d) * e);
        }
        sc.s.resize(rows, len);
        tile_scores(t.dtype(), kbase + j0 * d * e, len, d, sc.q.data(), rows, sc.s.data(), len, sc.convert);
        for (std::int64_t r = 0; r < rows; ++r) {
            // Causal decode of q_len tokens: query i of q_len sees tokens [0, n − q_len + i + 1).
            const std::int64_t visible = std::clamp<std::int64_t>(n - p.q_len + (r % p.q_len) + 1 - j0, 0, len);
            auto srow = sc.s.row(r);
            srow.tail(len - visible).setConstant(-INFINITY);
            float mx = -INFINITY;
            for (std::int64_t j = 0; j < visible; ++j) mx = nan_max(mx, srow[j]);
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
        tile_accumulate(t.dtype(), vbase + j0 * d * e, len, d, sc.s.data(), rows, len, st.acc.data(), sc.convert);
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
