// sm_timeline.hpp — what each SM is doing over time: busy, reducing, waiting for peers, or idle.
//
// CTAs on an SM enter and leave states; the SM shows the most active of its CTAs' states (busy >
// reduce > waiting > idle), so an SM with one CTA streaming and one waiting counts as busy. Totals are
// always kept; the interval lists (for pictures) only when asked, since sweeps do not need them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace leanattn::sim {

enum class SmState : std::uint8_t { idle, waiting, reduce, busy };  // increasing priority

// One CTA of a simulated launch: where and when it ran, and how long it spent waiting for peers' flags and
// on reduction work (partials, merges, the reduce kernel).
struct CtaSpan {
    std::int64_t sm = 0;
    double start_ns = 0.0, end_ns = 0.0;
    double wait_ns = 0.0, reduce_ns = 0.0;
};

// One stream phase of a simulated CTA: the K and V of `output` read (and, for a pipelined kernel, computed)
// on `sm` from begin to end.
struct StreamSpan {
    std::int64_t sm = 0, output = 0;
    double begin_ns = 0.0, end_ns = 0.0;
};

struct SmInterval {
    double begin_ns = 0.0;
    double end_ns = 0.0;
    SmState state = SmState::idle;
};

class SmTimeline {
public:
    SmTimeline(std::int64_t sms, bool record_intervals);

    void enter(std::int64_t sm, SmState state, double t_ns);  // a CTA on `sm` starts being in `state`
    void leave(std::int64_t sm, SmState state, double t_ns);  // … stops
    void close(double makespan_ns);                           // every SM's last interval ends here

    double total_ns(SmState state) const { return totals_[static_cast<std::size_t>(state)]; }
    // Per SM, consecutive intervals covering [0, makespan); idle ones included. Empty unless recorded.
    const std::vector<std::vector<SmInterval>>& intervals() const { return intervals_; }

private:
    struct Sm {
        std::array<std::int32_t, 4> count{};  // CTAs in each state (idle unused)
        SmState shown = SmState::idle;
        double since_ns = 0.0;
    };
    void update(std::int64_t sm, double t_ns);
    void finish_interval(std::int64_t sm, double t_ns);  // the shown state lasted until t_ns

    bool record_;
    std::vector<Sm> sms_;
    std::array<double, 4> totals_{};
    std::vector<std::vector<SmInterval>> intervals_;
};

}  // namespace leanattn::sim
