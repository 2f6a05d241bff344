// cmd_schedule.hpp — `leanattn schedule`: plan one problem and show it.
#pragma once

#include <ostream>

#include "problem_options.hpp"

namespace leanattn::app {

struct ScheduleOptions {
    ResolvedProblem input;
    bool check = false;  // run the plan validator; exit 1 when a property is broken
};

// Plans, refuses plans that could deadlock (InputError), optionally validates, and writes the chosen format.
int run_schedule(const ScheduleOptions& options, std::ostream& out);

}  // namespace leanattn::app
