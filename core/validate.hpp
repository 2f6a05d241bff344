// validate.hpp — the properties every plan must have, checked from what the walker actually yields.
//
// Used by the tests (over thousands of random problems) and by `leanattn schedule --check`.
#pragma once

#include <string>
#include <vector>

#include "schedule.hpp"
#include "schedule_table.hpp"

namespace leanattn {

// Returns a list of broken properties (empty = the plan is sound); at most `limit` messages:
//  - every LeanTile of every output is covered exactly once, by non-empty segments;
//  - each CTA's segments are contiguous in the iteration space, in order;
//  - host/finishing flags match the segment's place in its output;
//  - exactly one host per output, and it is listed first among the output's contributors, which are
//    exactly the CTAs holding its segments, in CTA order;
//  - stream-k: grid ≤ LeanTiles; the CTAs' ranges follow one another in CTA order; every CTA starts within
//    snap of the paper's ideal start g·⌊I/G⌋ + min(g, I mod G), on an output boundary if it moved or is empty;
//    the paper's rule: snap 0 and max − min LeanTiles per CTA ≤ 1;
//  - fixed-split: one segment per CTA at most, every split but an output's last holds exactly `chunk`
//    LeanTiles (the last holds the rest, ≤ chunk), grid = outputs × splits;
//  - no-split: one CTA per output tile, holding all of it.
std::vector<std::string> validate_schedule(const Schedule& schedule, const ScheduleTable& table, std::size_t limit = 16);

// Throws InputError when a host could wait on a CTA that is not co-resident, for the plan's lengths or any
// shorter ones (a plan is run at every decode step with the live lengths): under a fused reduction the grid
// must fit the SMs × CTAs-per-SM resident slots, unless no output can ever be split (whole_outputs()).
//
// Why that is enough: CTAs are dispatched in id order, so CTAs 0 … R−1 (R resident slots) all start at
// once. A CTA signals its only non-host segment (its first) before it can wait on anything, so a host
// whose peers are all below R sees every flag. A plan whose outputs are never split has no waiting host
// at all, so its CTAs always finish and free their slots. Under stream-k's aligned rule, too: its plans keep the
// facts this uses (a CTA's only possible non-host segment is its first; a host's peers come after it;
// walker.hpp argues it at stream_k_start).
void check_coresidency(const Schedule& schedule);

}  // namespace leanattn
