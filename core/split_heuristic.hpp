// split_heuristic.hpp — FlashAttention-2's choice of Flash-Decoding splits (`num_splits_heuristic`),
// restated from its description so the fixed-split baseline splits exactly as the peer it stands for.
#pragma once

#include <cstdint>

namespace leanattn {

// bnm: batch · kv_heads · ⌈q_len · group / 64⌉ row-blocks; sm_slots: 2 × SM count;
// n_blocks: LeanTiles of the longest request; max_splits: 128.
// Returns 1 when bnm ≥ 0.8 · sm_slots. Otherwise, for s = 1 … min(max_splits, sm_slots, n_blocks), skipping s
// whose chunk ⌈n/s⌉ equals that of s − 1, eff(s) = w / ⌈w⌉ with w = bnm · s / sm_slots, and the smallest
// s with eff(s) ≥ 0.85 · max eff wins.
std::int64_t fa2_num_splits(std::int64_t bnm, std::int64_t sm_slots, std::int64_t n_blocks, std::int64_t max_splits = 128);

}  // namespace leanattn
