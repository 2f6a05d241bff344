#include "tile_kernels.hpp"

#include <Eigen/Core>

namespace leanattn::cpu {

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapC = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
using Map = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;

// Checked once: the wide path needs both the compiler's (avx2::available is false when the flags were
// not taken) and this CPU's support.
const bool use_avx2 = avx2::available();

// len rows of d elements, kv_stride apart, as a dense (len, d) float matrix in `scratch`.
const float* rows_as_float(DType dtype, const void* src, std::int64_t len, std::int64_t d, std::int64_t kv_stride, std::vector<float>& scratch) {
    scratch.resize(static_cast<std::size_t>(len * d));
    const auto* bytes = static_cast<const unsigned char*>(src);
    for (std::int64_t j = 0; j < len; ++j) to_float(dtype, bytes + j * kv_stride * dtype_bytes(dtype), scratch.data() + j * d, d);
    return scratch.data();
}

}  // namespace

void tile_scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* q, std::int64_t rows,
                 float* s, std::int64_t ld, std::vector<float>& scratch, const RowsAhead& ahead) {
    if (use_avx2 && d % 8 == 0) return avx2::scores(dtype, k, len, d, kv_stride, q, rows, s, ld, ahead);
    const float* kf = rows_as_float(dtype, k, len, d, kv_stride, scratch);
    Map(s, rows, len, Eigen::OuterStride<>(ld)).noalias() = MapC(q, rows, d, Eigen::OuterStride<>(d)) * MapC(kf, len, d, Eigen::OuterStride<>(d)).transpose();
}

void tile_accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* p, std::int64_t rows,
                     std::int64_t ld, float* acc, std::vector<float>& scratch, const RowsAhead& ahead) {
    if (use_avx2 && d % 8 == 0) return avx2::accumulate(dtype, v, len, d, kv_stride, p, rows, ld, acc, ahead);
    const float* vf = rows_as_float(dtype, v, len, d, kv_stride, scratch);
    Map(acc, rows, d, Eigen::OuterStride<>(d)).noalias() += MapC(p, rows, len, Eigen::OuterStride<>(ld)) * MapC(vf, len, d, Eigen::OuterStride<>(d));
}

}  // namespace leanattn::cpu
