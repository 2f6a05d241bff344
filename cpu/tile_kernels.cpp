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

}  // namespace

void tile_scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, const float* q, std::int64_t rows, float* s, std::int64_t ld,
                 std::vector<float>& scratch, const void* ahead, std::int64_t ahead_bytes) {
    if (use_avx2 && d % 8 == 0) return avx2::scores(dtype, k, len, d, q, rows, s, ld, ahead, ahead_bytes);
    scratch.resize(static_cast<std::size_t>(len * d));
    to_float(dtype, k, scratch.data(), len * d);
    Map(s, rows, len, Eigen::OuterStride<>(ld)).noalias() =
        MapC(q, rows, d, Eigen::OuterStride<>(d)) * MapC(scratch.data(), len, d, Eigen::OuterStride<>(d)).transpose();
}

void tile_accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, const float* p, std::int64_t rows, std::int64_t ld,
                     float* acc, std::vector<float>& scratch, const void* ahead, std::int64_t ahead_bytes) {
    if (use_avx2 && d % 8 == 0) return avx2::accumulate(dtype, v, len, d, p, rows, ld, acc, ahead, ahead_bytes);
    scratch.resize(static_cast<std::size_t>(len * d));
    to_float(dtype, v, scratch.data(), len * d);
    Map(acc, rows, d, Eigen::OuterStride<>(d)).noalias() +=
        MapC(p, rows, len, Eigen::OuterStride<>(ld)) * MapC(scratch.data(), len, d, Eigen::OuterStride<>(d));
}

}  // namespace leanattn::cpu
