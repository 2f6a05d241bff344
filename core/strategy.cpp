#include "strategy.hpp"

namespace leanattn {

std::string_view strategy_name(Strategy strategy) {
    switch (strategy) {
        case Strategy::stream_k: return "stream-k";
        case Strategy::fixed_split: return "fixed-split";
        case Strategy::no_split: return "no-split";
    }
    return "unknown";
}

std::optional<Strategy> parse_strategy(std::string_view text) {
    for (Strategy s : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        if (text == strategy_name(s)) return s;
    }
    return std::nullopt;
}

std::string_view stream_k_rule_name(StreamKRule rule) {
    switch (rule) {
        case StreamKRule::paper: return "paper";
        case StreamKRule::aligned: return "aligned";
    }
    return "unknown";
}

std::optional<StreamKRule> parse_stream_k_rule(std::string_view text) {
    for (StreamKRule r : {StreamKRule::paper, StreamKRule::aligned}) {
        if (text == stream_k_rule_name(r)) return r;
    }
    return std::nullopt;
}

}  // namespace leanattn
