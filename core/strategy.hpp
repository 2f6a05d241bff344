// strategy.hpp — the three ways of cutting decode attention into CTAs, and stream-k's two rules (docs/planner.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leanattn {

enum class Strategy : std::int32_t {
    stream_k,     // LeanAttention: equal LeanTile runs per CTA, crossing output boundaries, one launch
    fixed_split,  // Flash-Decoding: s splits per output, a second launch reduces
    no_split,     // FlashAttention-2: one CTA per output tile
};

// The spelling used on the command line and in JSON: "stream-k", "fixed-split", "no-split".
std::string_view strategy_name(Strategy strategy);

// Parses the command-line spelling; nullopt for anything else.
std::optional<Strategy> parse_strategy(std::string_view text);

// How stream-k places its CTA boundaries (docs/planner.md).
enum class StreamKRule : std::int32_t {
    paper,    // LeanAttention as published: equal LeanTile runs, boundaries wherever they fall
    aligned,  // output-aligned: a boundary moves up to `snap` LeanTiles onto an output boundary, snap chosen by a cost model
};

// "paper", "aligned".
std::string_view stream_k_rule_name(StreamKRule rule);
std::optional<StreamKRule> parse_stream_k_rule(std::string_view text);

}  // namespace leanattn
