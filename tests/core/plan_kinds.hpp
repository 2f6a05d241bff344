// plan_kinds.hpp — every kind of plan the property tests run: stream-k under both of its rules, and the baselines.
#pragma once

#include "core/schedule.hpp"

namespace leanattn::testing {

struct Kind {
    Strategy strategy;
    StreamKRule rule;
    const char* name;
};

constexpr Kind all_kinds[] = {{Strategy::stream_k, StreamKRule::paper, "stream-k paper"},
                              {Strategy::stream_k, StreamKRule::aligned, "stream-k aligned"},
                              {Strategy::fixed_split, StreamKRule::aligned, "fixed-split"},
                              {Strategy::no_split, StreamKRule::aligned, "no-split"}};

}  // namespace leanattn::testing
