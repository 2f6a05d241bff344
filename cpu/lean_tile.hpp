// lean_tile.hpp — Algorithm 1 of the paper: online softmax over a run of LeanTiles of one output tile.
//
// For output tile (b, h, row block), its rows (problem.hpp: all group × q_len, or one block of them) against the tokens of LeanTiles [begin, end):
// per LeanTile, S = Q·Kᵀ, the running (m, l, acc) is re-scaled and P·V accumulated (tile_kernels.hpp:
// K and V are read in their storage type and converted inside the products). K and V are found through
// the views' address arithmetic, in runs of evenly spaced tokens (a paged cache's runs end at its blocks).
// fp32 throughout; the state is un-normalised.
#pragma once

#include <vector>

#include "core/decode_tensors.hpp"
#include "core/problem.hpp"
#include "core/walker.hpp"
#include "softmax_state.hpp"

namespace leanattn::cpu {

// Per-thread buffers, reused across LeanTiles so the hot loop never allocates.
struct TileScratch {
    RowMatrix q;                 // (rows, d) pre-scaled by the softmax scale
    RowMatrix s;                 // (rows, tile): scores, then probabilities
    RowMatrix pv;                // (rows, d): this LeanTile's P·V alone, then added to the running state
    std::vector<float> convert;  // K or V as fp32, where the products need it (no SIMD path)
};

// Computes the state of `segment` (of output tile `segment.output`, whose request holds `tokens` tokens now)
// into `state`.
void lean_tile_run(const Problem& shape, const DecodeTensors& tensors, std::int64_t tokens, const Segment& segment, SoftmaxState& state,
                   TileScratch& scratch);

// Writes O = acc / l (rounded to the dtype) and, when the tensors have one, LSE = m + log l for the rows of
// output tile `output`; a row that saw no token (l = 0: an empty slot's) gets O = 0 and LSE = −∞.
void store_output(const Problem& shape, const DecodeTensors& tensors, std::int64_t output, const SoftmaxState& state);

}  // namespace leanattn::cpu
