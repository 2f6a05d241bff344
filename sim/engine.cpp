#include "engine.hpp"

#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace leanattn::sim {

namespace {

constexpr double never = std::numeric_limits<double>::infinity();

// (key, CTA, version): the key is a time (timed phases) or a point on a partition's S axis (streams).
// Ties fall to the lower CTA id, so the same input replays the same events in the same order.
using Entry = std::tuple<double, std::int64_t, std::uint32_t>;
using MinHeap = std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>>;

struct Cta {
    std::int64_t slot = -1, sm = -1;
    std::int64_t phase = 0, end = 0;  // current phase, one past the last
    SmState state = SmState::idle;    // what this CTA contributes to its SM's state now
    bool streaming = false;
    double remaining = 0.0, mark = 0.0;  // bytes left to stream as of S = mark
    double stream_begin_ns = 0.0;        // when the current stream phase began
    std::uint32_t version = 0;           // bumps when a stream completion is rescheduled
    double state_since_ns = 0.0;         // when `state` began
    CtaSpan span;                        // filled as it runs
};

struct Partition {
    std::int64_t streaming_sms = 0;
    double latency_ns = 0.0;
    double s = 0.0;        // virtual clock (dimensionless), valid at t_ns
    double t_ns = 0.0;
    MinHeap done;          // stream completions on the S axis
};

class Engine {
public:
    Engine(const LaunchProgram& program, std::int64_t sms, std::int64_t ctas_per_sm, const MemoryModel& memory, SmTimeline& timeline,
           double start_ns, std::vector<StreamSpan>* streams)
        : streams_(streams), program_(program), sms_(sms), ctas_per_sm_(ctas_per_sm), memory_(memory), timeline_(timeline), t_(start_ns),
          ctas_(static_cast<std::size_t>(program.grid())), flag_ns_(static_cast<std::size_t>(program.grid()), never),
          waiter_(static_cast<std::size_t>(program.grid()), -1), next_waiter_(static_cast<std::size_t>(program.grid()), -1), slot_cta_(static_cast<std::size_t>(sms * ctas_per_sm), -1),
          streaming_on_sm_(static_cast<std::size_t>(sms), 0), partitions_(static_cast<std::size_t>(memory.partitions())) {
        for (Partition& p : partitions_) {
            p.latency_ns = memory.loaded_latency_ns(0);
            p.t_ns = start_ns;
        }
    }

    double run() {
        const std::int64_t grid = program_.grid();
        for (std::int64_t slot = 0; slot < static_cast<std::int64_t>(slot_cta_.size()) && next_cta_ < grid; ++slot) dispatch(slot);
        drain();
        while (finished_ < grid) {
            const auto [when, cta, partition] = next_event();
            if (cta < 0) throw std::logic_error("simulated launch deadlocked: a CTA waits on a flag that no running CTA can set");
            advance_clocks(when);
            t_ = when;
            if (partition < 0) end_phase(cta);
            else end_stream(cta);
            drain();
        }
        return t_;
    }

    void append_spans(std::vector<CtaSpan>& out) const {
        for (const Cta& c : ctas_) out.push_back(c.span);
    }

private:
    Cta& cta(std::int64_t g) { return ctas_[static_cast<std::size_t>(g)]; }
    const Phase& phase_of(const Cta& c) const { return program_.phases[static_cast<std::size_t>(c.phase)]; }
    Partition& partition_of_sm(std::int64_t sm) { return partitions_[static_cast<std::size_t>(memory_.partition_of(sm))]; }

    void dispatch(std::int64_t slot) {
        const std::int64_t g = next_cta_++;
        Cta& c = cta(g);
        c.slot = slot;
        c.sm = slot % sms_;
        c.phase = program_.first[static_cast<std::size_t>(g)];
        c.end = program_.first[static_cast<std::size_t>(g) + 1];
        slot_cta_[static_cast<std::size_t>(slot)] = g;
        c.span.sm = c.sm;
        c.span.start_ns = t_;
        ready_.push_back(g);
    }

    // Earliest pending event: {time, CTA, partition (−1: a timed phase)}; CTA −1 when none is left.
    std::tuple<double, std::int64_t, std::int64_t> next_event() {
        double best = never;
        std::int64_t who = -1, where = -1;
        while (!timed_.empty()) {
            const auto [when, g, version] = timed_.top();
            if (version != cta(g).version) { timed_.pop(); continue; }
            best = when, who = g;
            break;
        }
        for (std::size_t i = 0; i < partitions_.size(); ++i) {
            Partition& p = partitions_[i];
            while (!p.done.empty()) {
                const auto [target, g, version] = p.done.top();
                if (version != cta(g).version || !cta(g).streaming) { p.done.pop(); continue; }
                // The remaining S distance at the current speed; never in the past.
                const double when = p.t_ns + std::max(0.0, target - p.s) * p.latency_ns;
                if (when < best) best = when, who = g, where = static_cast<std::int64_t>(i);
                break;
            }
        }
        return {best, who, where};
    }

    void advance_clocks(double to_ns) {
        for (Partition& p : partitions_) {
            if (p.streaming_sms > 0) p.s += (to_ns - p.t_ns) / p.latency_ns;
            p.t_ns = to_ns;
        }
    }

    void set_state(Cta& c, SmState state) {
        if (c.state == SmState::waiting) c.span.wait_ns += t_ - c.state_since_ns;
        if (c.state == SmState::reduce) c.span.reduce_ns += t_ - c.state_since_ns;
        c.state_since_ns = t_;
        if (c.state != SmState::idle) timeline_.leave(c.sm, c.state, t_);
        c.state = state;
        if (state != SmState::idle) timeline_.enter(c.sm, state, t_);
    }

    // A timed phase (work) ended: apply its effect and move on.
    void end_phase(std::int64_t g) {
        Cta& c = cta(g);
        timed_.pop();
        if (phase_of(c).signals) set_flag(g);
        ++c.phase;
        ready_.push_back(g);
    }

    void set_flag(std::int64_t g) {
        flag_ns_[static_cast<std::size_t>(g)] = t_;
        for (std::int64_t w = std::exchange(waiter_[static_cast<std::size_t>(g)], -1); w >= 0; w = next_waiter_[static_cast<std::size_t>(w)]) {
            ++cta(w).phase;  // its wait is over
            ready_.push_back(w);
        }
    }

    // Runs CTAs whose previous phase ended until each is in a phase that takes time, or done.
    void drain() {
        while (!ready_.empty()) {
            const std::int64_t g = ready_.front();
            ready_.pop_front();
            begin_phase(g);
        }
    }

    void begin_phase(std::int64_t g) {
        Cta& c = cta(g);
        for (; c.phase < c.end; ++c.phase) {
            const Phase& ph = phase_of(c);
            const SmState busy = ph.reduction ? SmState::reduce : SmState::busy;
            switch (ph.kind) {
                case PhaseKind::work:
                    if (ph.amount > 0.0) {
                        set_state(c, busy);
                        timed_.emplace(t_ + ph.amount, g, c.version);
                        return;
                    }
                    if (ph.signals) set_flag(g);
                    break;
                case PhaseKind::stream:
                    if (ph.amount > 0.0) {
                        set_state(c, busy);
                        c.stream_begin_ns = t_;
                        begin_stream(g, ph.amount);
                        return;
                    }
                    break;
                case PhaseKind::wait:
                    if (flag_ns_[static_cast<std::size_t>(ph.peer)] > t_) {
                        set_state(c, SmState::waiting);
                        next_waiter_[static_cast<std::size_t>(g)] = std::exchange(waiter_[static_cast<std::size_t>(ph.peer)], g);
                        return;
                    }
                    break;
            }
        }
        finish(g);
    }

    void finish(std::int64_t g) {
        Cta& c = cta(g);
        set_state(c, SmState::idle);
        c.span.end_ns = t_;
        slot_cta_[static_cast<std::size_t>(c.slot)] = -1;
        ++finished_;
        if (next_cta_ < program_.grid()) dispatch(c.slot);
    }

    // Brings the streams on `sm` up to date and reschedules them for `k` streaming CTAs there.
    void reshare(std::int64_t sm, std::int64_t k_old, std::int64_t k_new) {
        Partition& p = partition_of_sm(sm);
        const double w = memory_.sm_bytes_per_s(sm);
        for (std::int64_t j = 0; j < ctas_per_sm_; ++j) {
            const std::int64_t g = slot_cta_[static_cast<std::size_t>(sm + j * sms_)];
            if (g < 0 || !cta(g).streaming) continue;
            Cta& o = cta(g);
            o.remaining = std::max(0.0, o.remaining - w / static_cast<double>(k_old) * (p.s - o.mark));
            o.mark = p.s;
            ++o.version;
            p.done.emplace(p.s + o.remaining * static_cast<double>(k_new) / w, g, o.version);
        }
    }

    void set_streaming_sms(Partition& p, std::int64_t delta) {
        p.streaming_sms += delta;
        p.latency_ns = memory_.loaded_latency_ns(p.streaming_sms);
    }

    void begin_stream(std::int64_t g, double bytes) {
        Cta& c = cta(g);
        Partition& p = partition_of_sm(c.sm);
        std::int64_t& k = streaming_on_sm_[static_cast<std::size_t>(c.sm)];
        if (k > 0) reshare(c.sm, k, k + 1);
        else set_streaming_sms(p, +1);
        ++k;
        c.streaming = true;
        c.remaining = bytes;
        c.mark = p.s;
        ++c.version;
        p.done.emplace(p.s + bytes * static_cast<double>(k) / memory_.sm_bytes_per_s(c.sm), g, c.version);
    }

    void end_stream(std::int64_t g) {
        Cta& c = cta(g);
        Partition& p = partition_of_sm(c.sm);
        p.done.pop();
        c.streaming = false;
        c.remaining = 0.0;
        ++c.version;
        std::int64_t& k = streaming_on_sm_[static_cast<std::size_t>(c.sm)];
        --k;
        if (k > 0) reshare(c.sm, k + 1, k);
        else set_streaming_sms(p, -1);
        // The phase lasts max(stream, compute) + loss · min(stream, compute); past its loads it holds no bandwidth.
        const Phase& ph = phase_of(c);
        const double streamed = t_ - c.stream_begin_ns;
        const double until = c.stream_begin_ns + std::max(streamed, ph.min_ns) + ph.loss * std::min(streamed, ph.min_ns);
        if (streams_ != nullptr && ph.output >= 0) streams_->push_back({c.sm, ph.output, c.stream_begin_ns, std::max(until, t_)});
        if (until > t_) {
            timed_.emplace(until, g, c.version);
            return;
        }
        ++c.phase;
        ready_.push_back(g);
    }

    std::vector<StreamSpan>* streams_;  // where stream phases are recorded, or null
    const LaunchProgram& program_;
    std::int64_t sms_, ctas_per_sm_;
    const MemoryModel& memory_;
    SmTimeline& timeline_;
    double t_;
    std::vector<Cta> ctas_;
    std::vector<double> flag_ns_;        // when each CTA's flag was set (never: not yet)
    std::vector<std::int64_t> waiter_;   // the first CTA waiting on each CTA's flag, or −1 (a shared merge has several)
    std::vector<std::int64_t> next_waiter_;  // the CTA waiting on the same flag as this one, after it, or −1
    std::vector<std::int64_t> slot_cta_; // CTA in each slot, or −1
    std::vector<std::int64_t> streaming_on_sm_;
    std::vector<Partition> partitions_;
    MinHeap timed_;
    std::deque<std::int64_t> ready_;
    std::int64_t next_cta_ = 0, finished_ = 0;
};

}  // namespace

double run_launch(const LaunchProgram& program, std::int64_t sms, std::int64_t ctas_per_sm, const MemoryModel& memory,
                  SmTimeline& timeline, double start_ns, std::vector<CtaSpan>* ctas, std::vector<StreamSpan>* streams) {
    if (program.grid() <= 0) return start_ns;
    Engine engine(program, sms, ctas_per_sm, memory, timeline, start_ns, streams);
    const double end = engine.run();
    if (ctas != nullptr) engine.append_spans(*ctas);
    return end;
}

}  // namespace leanattn::sim
