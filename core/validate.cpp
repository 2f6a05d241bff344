#include "validate.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "input_error.hpp"

namespace leanattn {

namespace {

struct Piece {
    std::int64_t begin, end, cta;
    bool host, finishing;
};

class Problems {
public:
    explicit Problems(std::size_t limit) : limit_(limit) {}
    template <typename... Parts>
    void add(const Parts&... parts) {
        if (list_.size() >= limit_) return;
        std::ostringstream out;
        (out << ... << parts);
        list_.push_back(out.str());
    }
    std::vector<std::string> take() { return std::move(list_); }

private:
    std::size_t limit_;
    std::vector<std::string> list_;
};

void check_coverage(const Schedule& s, const ScheduleTable& t, Problems& problems) {
    const PlanView plan = s.view();
    const std::int64_t outputs = s.problem.outputs();
    std::vector<std::vector<Piece>> by_output(outputs);
    for (const CtaRow& row : t.ctas) {
        for (const Segment& seg : row.segments) {
            if (seg.output < 0 || seg.output >= outputs) {
                problems.add("CTA ", row.cta, " has a segment of output ", seg.output, ", which does not exist");
                continue;
            }
            by_output[seg.output].push_back({seg.begin, seg.end, row.cta, seg.host, seg.finishing});
        }
    }
    if (static_cast<std::int64_t>(t.outputs.size()) != outputs) problems.add("the table lists ", t.outputs.size(), " outputs, not ", outputs);
    for (std::int64_t o = 0; o < outputs && o < static_cast<std::int64_t>(t.outputs.size()); ++o) {
        const std::int64_t n = plan::output_tiles(plan, o);
        std::vector<Piece>& pieces = by_output[o];
        std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.begin < b.begin; });
        std::int64_t covered = 0, hosts = 0;
        std::vector<std::int64_t> ctas;
        for (const Piece& p : pieces) {
            if (p.begin >= p.end) problems.add("output ", o, ": CTA ", p.cta, " has an empty segment [", p.begin, ",", p.end, ")");
            if (p.begin != covered) problems.add("output ", o, ": LeanTiles [", std::min(covered, p.begin), ",", std::max(covered, p.begin), ") are ", p.begin > covered ? "not covered" : "covered twice");
            if (p.host != (p.begin == 0)) problems.add("output ", o, ": CTA ", p.cta, " host flag is wrong");
            if (p.finishing != (p.end == n)) problems.add("output ", o, ": CTA ", p.cta, " finishing flag is wrong");
            hosts += p.host ? 1 : 0;
            covered = std::max(covered, p.end);
            ctas.push_back(p.cta);
        }
        if (covered != n) problems.add("output ", o, ": covered up to LeanTile ", covered, " of ", n);
        if (hosts != 1) problems.add("output ", o, " has ", hosts, " hosts");
        const OutputRow& row = t.outputs[o];
        if (row.ctas != ctas) problems.add("output ", o, ": listed contributors differ from the CTAs that hold its LeanTiles");
        if (!pieces.empty() && (row.host_cta != pieces.front().cta || row.ctas.empty() || row.ctas.front() != row.host_cta)) {
            problems.add("output ", o, ": host CTA ", row.host_cta, " is not the CTA holding LeanTile 0 listed first");
        }
    }
}

void check_contiguity(const Schedule& s, const ScheduleTable& t, Problems& problems) {
    const PlanView plan = s.view();
    for (const CtaRow& row : t.ctas) {
        for (std::size_t i = 1; i < row.segments.size(); ++i) {
            const Segment& a = row.segments[i - 1];
            const Segment& b = row.segments[i];
            if (plan::output_offset(plan, a.output) + a.end != plan::output_offset(plan, b.output) + b.begin) {
                problems.add("CTA ", row.cta, ": segments ", i - 1, " and ", i, " are not contiguous in the iteration space");
            }
        }
    }
}

bool on_output_boundary(const PlanView& plan, std::int64_t x) {
    return x <= 0 || x >= plan.total_tiles || x == plan::output_offset(plan, plan::output_of_iteration(plan, x));
}

// stream-k, both rules: the CTAs' ranges, as the walker yielded them, follow one another in CTA order
// (CTA g ends where the next non-empty CTA begins; an empty CTA sits there too), and every start lies
// within snap of the paper's ideal start, on an output boundary if it moved or if the CTA is empty. With
// snap 0 that is the paper's plan exactly.
void check_stream_k_starts(const Schedule& s, const ScheduleTable& t, Problems& problems) {
    if (static_cast<std::int64_t>(t.ctas.size()) != s.grid || s.grid <= 0) return;  // reported elsewhere
    const PlanView plan = s.view();
    std::int64_t next = s.total_tiles;  // where CTA g + 1 starts
    for (std::int64_t g = s.grid - 1; g >= 0; --g) {
        const CtaRow& row = t.ctas[g];
        std::int64_t start = next;
        if (!row.segments.empty()) {
            const Segment& first = row.segments.front();
            const Segment& last = row.segments.back();
            start = plan::output_offset(plan, first.output) + first.begin;
            const std::int64_t end = plan::output_offset(plan, last.output) + last.end;
            if (end != next) problems.add("CTA ", g, " ends at LeanTile ", end, " but the next CTA starts at ", next);
        }
        const std::int64_t ideal = plan::stream_k_ideal_start(plan, g);
        const std::int64_t moved = start > ideal ? start - ideal : ideal - start;
        if (moved > s.snap) problems.add("CTA ", g, " starts at ", start, ", ", moved, " LeanTiles from its ideal start ", ideal, " (snap ", s.snap, ")");
        if ((moved > 0 || row.segments.empty()) && !on_output_boundary(plan, start)) {
            problems.add("CTA ", g, (row.segments.empty() ? " is empty" : " moved"), " at LeanTile ", start, ", which is not an output boundary");
        }
        next = start;
    }
    if (next != 0) problems.add("the first CTA starts at LeanTile ", next, ", not 0");
}

void check_balance(const Schedule& s, const ScheduleTable& t, Problems& problems) {
    switch (s.strategy) {
        case Strategy::stream_k: {
            if (s.grid > s.total_tiles) problems.add("grid ", s.grid, " exceeds the ", s.total_tiles, " LeanTiles");
            check_stream_k_starts(s, t, problems);
            if (s.stream_k_rule == StreamKRule::aligned) break;
            if (s.snap != 0) problems.add("the paper's rule has snap ", s.snap, " (must be 0)");
            std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
            for (const CtaRow& row : t.ctas) lo = std::min(lo, row.tiles), hi = std::max(hi, row.tiles);
            if (!t.ctas.empty() && hi - lo > 1) problems.add("stream-k CTAs hold between ", lo, " and ", hi, " LeanTiles (must differ by at most 1)");
            break;
        }
        case Strategy::fixed_split: {
            if (s.grid != s.problem.outputs() * s.splits) problems.add("fixed-split grid ", s.grid, " is not outputs × splits");
            for (const CtaRow& row : t.ctas) {
                if (row.segments.size() > 1) problems.add("fixed-split CTA ", row.cta, " has ", row.segments.size(), " segments");
                for (const Segment& seg : row.segments) {
                    if (seg.tiles() > s.chunk || (!seg.finishing && seg.tiles() != s.chunk)) {
                        problems.add("fixed-split CTA ", row.cta, " holds ", seg.tiles(), " LeanTiles; the chunk is ", s.chunk);
                    }
                }
            }
            break;
        }
        case Strategy::no_split: {
            if (s.grid != s.problem.outputs()) problems.add("no-split grid ", s.grid, " is not the output count");
            for (const CtaRow& row : t.ctas) {
                if (row.segments.size() != 1 || !row.segments[0].host || !row.segments[0].finishing) {
                    problems.add("no-split CTA ", row.cta, " does not hold exactly one whole output");
                }
            }
            break;
        }
    }
}

}  // namespace

std::vector<std::string> validate_schedule(const Schedule& schedule, const ScheduleTable& table, std::size_t limit) {
    Problems problems(limit);
    if (static_cast<std::int64_t>(table.ctas.size()) != schedule.grid) problems.add("the table lists ", table.ctas.size(), " CTAs for a grid of ", schedule.grid);
    check_coverage(schedule, table, problems);
    check_contiguity(schedule, table, problems);
    check_balance(schedule, table, problems);
    return problems.take();
}

void check_coresidency(const Schedule& schedule) {
    if (!schedule.fused_reduction()) return;
    const std::int64_t resident = schedule.device.resident_ctas();
    if (schedule.grid <= resident) return;  // every CTA is resident at once
    if (schedule.whole_outputs()) return;   // no host ever waits, for these lengths or any shorter ones
    // A plan runs at every step with lengths up to the ones it was made for: with other lengths the CTA
    // boundaries move, so a grid beyond the resident CTAs is only safe when no output can be split at all.
    throw InputError({{"grid", std::to_string(schedule.grid)}},
                     "the plan could deadlock: " + std::to_string(schedule.grid) + " CTAs exceed the " + std::to_string(resident) +
                         " resident ones (" + std::to_string(schedule.device.sms) + " SMs × " + std::to_string(schedule.device.ctas_per_sm) +
                         " CTAs per SM of " + schedule.device.name + "), and with other lengths a host could wait on one that never starts");
}

}  // namespace leanattn
