#include "sm_timeline.hpp"

namespace leanattn::sim {

SmTimeline::SmTimeline(std::int64_t sms, bool record_intervals)
    : record_(record_intervals), sms_(static_cast<std::size_t>(sms)) {
    if (record_) intervals_.resize(static_cast<std::size_t>(sms));
}

void SmTimeline::enter(std::int64_t sm, SmState state, double t_ns) {
    ++sms_[static_cast<std::size_t>(sm)].count[static_cast<std::size_t>(state)];
    update(sm, t_ns);
}

void SmTimeline::leave(std::int64_t sm, SmState state, double t_ns) {
    --sms_[static_cast<std::size_t>(sm)].count[static_cast<std::size_t>(state)];
    update(sm, t_ns);
}

void SmTimeline::update(std::int64_t sm, double t_ns) {
    Sm& s = sms_[static_cast<std::size_t>(sm)];
    SmState now = SmState::idle;
    for (SmState candidate : {SmState::busy, SmState::reduce, SmState::waiting}) {
        if (s.count[static_cast<std::size_t>(candidate)] > 0) {
            now = candidate;
            break;
        }
    }
    if (now == s.shown) return;
    finish_interval(sm, t_ns);
    s.shown = now;
}

void SmTimeline::finish_interval(std::int64_t sm, double t_ns) {
    Sm& s = sms_[static_cast<std::size_t>(sm)];
    totals_[static_cast<std::size_t>(s.shown)] += t_ns - s.since_ns;
    if (record_ && t_ns > s.since_ns) {
        std::vector<SmInterval>& list = intervals_[static_cast<std::size_t>(sm)];
        if (!list.empty() && list.back().state == s.shown && list.back().end_ns == s.since_ns) list.back().end_ns = t_ns;
        else list.push_back({s.since_ns, t_ns, s.shown});
    }
    s.since_ns = t_ns;
}

void SmTimeline::close(double makespan_ns) {
    for (std::size_t sm = 0; sm < sms_.size(); ++sm) finish_interval(static_cast<std::int64_t>(sm), makespan_ns);
}

}  // namespace leanattn::sim
