#include "lean_tile.hpp"

#include <algorithm>
#include <cmath>

#include "dtype.hpp"
#include "tile_kernels.hpp"

namespace leanattn::cpu {

namespace {

const unsigned char* bytes(const void* p) { return static_cast<const unsigned char*>(p); }

// The rows of K (or V) of tokens [j, j + run) of output tile (b, h), for prefetching.
RowsAhead rows_at(const DecodeTensors& t, const void* base, std::int64_t b, std::int64_t h, std::int64_t j, std::int64_t run, std::int64_t d) {
    const std::int64_t e = dtype_bytes(t.dtype);
    return {bytes(base) + tensors::kv_offset(t.kv, b, h, j) * e, run, t.kv.stride_token * e, d * e};
}

}  // namespace

void lean_tile_run(const Problem& p, const DecodeTensors& t, std::int64_t n, const Segment& seg, SoftmaxState& st, TileScratch& sc) {
    const std::int64_t b = p.request_of(seg.output), h = p.kv_head_of(seg.output), first = p.first_row_of(seg.output);
    const std::int64_t d = p.head_dim, g = p.group(), ql = p.q_len, rows = p.rows_of(seg.output), e = dtype_bytes(t.dtype);
    const KvCacheView& kv = t.kv;
    st.reset(rows, d);
    sc.q.resize(rows, d);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t row = first + r;  // of the KV head's rows (problem.hpp)
        to_float(t.dtype, bytes(t.q.data) + tensors::row_offset(t.q, b, row % ql, h * g + row / ql) * e, sc.q.row(r).data(), d);
    }
    sc.q *= t.softmax_scale != 0.0f ? t.softmax_scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));

    for (std::int64_t tile = seg.begin; tile < seg.end; ++tile) {
        const std::int64_t j0 = tile * p.tile, len = std::min(p.tile, n - j0);
        sc.s.resize(rows, len);
        // While K is multiplied, V of the same tokens streams in (tile_kernels.hpp).
        for (std::int64_t j = j0, run = 0; j < j0 + len; j += run) {
            run = tensors::kv_run(kv, j, j0 + len);
            const std::int64_t at = tensors::kv_offset(kv, b, h, j) * e;
            tile_scores(t.dtype, bytes(kv.k) + at, run, d, kv.stride_token, sc.q.data(), rows, sc.s.data() + (j - j0), len, sc.convert,
                        rows_at(t, kv.v, b, h, j, run, d));
        }
        // Causal decode of q_len tokens: query i of q_len sees tokens [0, n − q_len + i + 1).
        const auto visible_of = [&](std::int64_t r) { return std::clamp<std::int64_t>(n - ql + ((first + r) % ql) + 1 - j0, 0, len); };
        std::int64_t all_see = len;  // this LeanTile's tokens every row sees
        for (std::int64_t r = 0; r < rows && all_see > 0; ++r) all_see = std::min(all_see, visible_of(r));
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::int64_t visible = visible_of(r);
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
            srow.tail(len - visible).setZero();  // exp(−inf) is not exactly 0 in Eigen's vectorised exp (it clamps its input)
            st.l[r] = st.l[r] * correction + srow.sum();
            st.acc.row(r) *= correction;
            st.m[r] = m_new;
        }
        // Blocked summation: P·V of this LeanTile is summed on its own and then added to the running
        // state. One running chain over all n tokens rounds with error ~ u·√n (a 1M-token fp32 output
        // missed 1e-5: 2.1e-5); blocked, ~ u·(√tile + √(n / tile)). The extra add is rows·d per tile.
        // Runs add into the same sum in token order, so a paged cache gives the padded cache's bits.
        // The tokens only later rows see (the new ones, with q_len > 1) are added row by row, to the rows that see them:
        // a row never multiplies a token it does not see, whose V may hold anything (0 · inf is NaN). Each row still adds
        // its tokens in order, so the bits are those of one product.
        sc.pv.setZero(rows, d);
        for (std::int64_t j = j0, run = 0; j < j0 + all_see; j += run) {
            run = tensors::kv_run(kv, j, j0 + all_see);
            const std::int64_t next = j + run < j0 + all_see ? j + run : (tile + 1 < seg.end ? j0 + p.tile : n);  // K needed next
            const RowsAhead ahead = next < n ? rows_at(t, kv.k, b, h, next, tensors::kv_run(kv, next, next + std::min(p.tile, n - next)), d) : RowsAhead{};
            const std::int64_t at = tensors::kv_offset(kv, b, h, j) * e;
            tile_accumulate(t.dtype, bytes(kv.v) + at, run, d, kv.stride_token, sc.s.data() + (j - j0), rows, len, sc.pv.data(), sc.convert, ahead);
        }
        for (std::int64_t r = 0; r < rows && all_see < len; ++r) {
            const std::int64_t end = j0 + visible_of(r);
            for (std::int64_t j = j0 + all_see, run = 0; j < end; j += run) {
                run = tensors::kv_run(kv, j, end);
                const std::int64_t at = tensors::kv_offset(kv, b, h, j) * e;
                tile_accumulate(t.dtype, bytes(kv.v) + at, run, d, kv.stride_token, sc.s.data() + r * len + (j - j0), 1, len, sc.pv.data() + r * d,
                                sc.convert);
            }
        }
        st.acc += sc.pv;
    }
}

void store_output(const Problem& p, const DecodeTensors& t, std::int64_t output, const SoftmaxState& st) {
    const std::int64_t b = p.request_of(output), h = p.kv_head_of(output), first = p.first_row_of(output), d = p.head_dim, g = p.group(), ql = p.q_len;
    const std::int64_t e = dtype_bytes(t.dtype);
    const Eigen::Index rows = st.acc.rows();
    Eigen::RowVectorXf o(d);
    for (Eigen::Index r = 0; r < rows; ++r) {
        const std::int64_t head = h * g + (first + r) / ql, tok = (first + r) % ql;
        // A row that saw no token (an empty slot's) gets out 0 and lse −∞, as on the GPU, rather than 0 / 0; a NaN l (a
        // NaN among its inputs) stays NaN, on the GPU too.
        const bool saw_none = st.l[r] == 0.0f;
        if (saw_none) o.setZero();
        else o = st.acc.row(r) / st.l[r];
        from_float(t.dtype, o.data(), static_cast<unsigned char*>(t.o.data) + tensors::row_offset(t.o, b, tok, head) * e, d);
        if (t.lse.data != nullptr) t.lse.data[tensors::lse_offset(t.lse, b, tok, head)] = saw_none ? -INFINITY : st.m[r] + std::log(st.l[r]);
    }
}

}  // namespace leanattn::cpu
