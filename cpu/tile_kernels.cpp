#include "tile_kernels.hpp"

namespace leanattn::cpu {

namespace {

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

// The portable products (no AVX2, or a head dim not a multiple of 8) run in a fixed order, as the AVX2 ones do: each
// score is one dot product over d in eight interleaved partial sums, and acc adds its tokens one after another. So a
// LeanTile cut into runs (a paged cache's blocks) sums exactly as it does whole: every layout gives the same bits.
float dot(const float* a, const float* b, std::int64_t d) {
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::int64_t i = 0;
    for (; i + 8 <= d; i += 8) {
        for (int l = 0; l < 8; ++l) lane[l] += a[i + l] * b[i + l];
    }
    for (int l = 0; i < d; ++i, ++l) lane[l] += a[i] * b[i];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

}  // namespace

void tile_scores(DType dtype, const void* k, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* q, std::int64_t rows,
                 float* s, std::int64_t ld, std::vector<float>& scratch, const RowsAhead& ahead) {
    if (use_avx2 && d % 8 == 0) return avx2::scores(dtype, k, len, d, kv_stride, q, rows, s, ld, ahead);
    const float* kf = rows_as_float(dtype, k, len, d, kv_stride, scratch);
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t j = 0; j < len; ++j) s[r * ld + j] = dot(q + r * d, kf + j * d, d);
    }
}

void tile_accumulate(DType dtype, const void* v, std::int64_t len, std::int64_t d, std::int64_t kv_stride, const float* p, std::int64_t rows,
                     std::int64_t ld, float* acc, std::vector<float>& scratch, const RowsAhead& ahead) {
    if (use_avx2 && d % 8 == 0) return avx2::accumulate(dtype, v, len, d, kv_stride, p, rows, ld, acc, ahead);
    const float* vf = rows_as_float(dtype, v, len, d, kv_stride, scratch);
    for (std::int64_t r = 0; r < rows; ++r) {
        float* out = acc + r * d;
        for (std::int64_t j = 0; j < len; ++j) {
            const float w = p[r * ld + j];
            const float* row = vf + j * d;
            for (std::int64_t i = 0; i < d; ++i) out[i] += w * row[i];
        }
    }
}

}  // namespace leanattn::cpu
