// schedule_table.hpp — a Schedule spelled out: every CTA's segments and every output's contributors.
//
// Built by walking each CTA with the shared walker, in O(grid + outputs). What `schedule` prints, what
// the validator checks and what the pictures draw.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule.hpp"
#include "walker.hpp"

namespace leanattn {

struct CtaRow {
    std::int64_t cta = 0;
    std::int64_t sm = 0;
    std::int64_t tiles = 0;
    std::vector<Segment> segments;  // in the order the CTA does them
};

struct OutputRow {
    std::int64_t output = 0;
    std::int64_t batch = 0;
    std::int64_t kv_head = 0;
    std::int64_t first_row = 0;  // the KV head's query rows this tile holds: [first_row, first_row + rows)
    std::int64_t rows = 0;
    std::int64_t tiles = 0;
    std::int64_t host_cta = 0;
    std::vector<std::int64_t> ctas;  // contributors, host first
};

struct ScheduleTable {
    std::vector<CtaRow> ctas;
    std::vector<OutputRow> outputs;
};

ScheduleTable tabulate(const Schedule& schedule);

}  // namespace leanattn
