// measured_runs.hpp — decode times measured on a GPU (`leanattn cuda bench --shapes … -o FILE.jsonl`), read
// back for the simulator's calibration (sim/calibration.hpp).
//
// Each JSON line is one problem: its "problem" and "dtype" as `cuda bench --format json` prints them, and
// per strategy its grid and median time. Lines with an "error" (a problem the GPU refused) are skipped and
// counted. Several files of the same problem lines are rounds of one sweep: a run's time is their mean and
// its noise the largest relative distance of a round from it.
#pragma once

#include <string>
#include <vector>

#include "sim/calibration.hpp"

namespace leanattn::app {

struct MeasuredSweep {
    std::vector<sim::MeasuredRun> runs;  // problem by problem, strategies in the file's order
    std::size_t problems = 0;
    std::size_t refused = 0;             // lines with an error
    std::string gpu;                     // the GPU's name as the first line gives it
    double copy_gbps = 0.0;              // median of the lines' measured copy bandwidth
};

// Throws InputError naming the file and line (as `parameter`: the flag that gave the files, where a command line did)
// when a line is not such a record, or when rounds differ in their problems.
MeasuredSweep read_measured(const std::vector<std::string>& round_files, const std::string& parameter = "measured");

}  // namespace leanattn::app
