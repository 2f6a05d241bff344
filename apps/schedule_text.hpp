// schedule_text.hpp — `schedule --format text`: a per-SM timeline like the paper's Figure 1 for small
// plans (fits 80 columns), a summary (LeanTiles per CTA, split histogram, waves) for big ones.
#pragma once

#include <ostream>
#include <string>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"

namespace leanattn::app {

// "h3" for a single request, "b1h3" otherwise: how segments and outputs are named everywhere.
std::string output_label(const Problem& problem, std::int64_t output);

void write_schedule_text(std::ostream& out, const Schedule& schedule, const ScheduleTable& table);

}  // namespace leanattn::app
