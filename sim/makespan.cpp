#include "makespan.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cta_program.hpp"
#include "engine.hpp"
#include "memory_model.hpp"

namespace leanattn::sim {

namespace {

constexpr double never = std::numeric_limits<double>::infinity();

// (key, CTA), smallest first; ties to the lower CTA, as the engine breaks them.
using Event = std::pair<double, std::int64_t>;
using EventHeap = std::priority_queue<Event, std::vector<Event>, std::greater<Event>>;

// One launch of a one-CTA-per-SM kernel, played for its end only (makespan.hpp says how).
class MakespanLaunch {
public:
    MakespanLaunch(const LaunchProgram& program, std::int64_t sms, const MemoryModel& memory)
        : program_(program), sms_(sms), memory_(memory), ctas_(static_cast<std::size_t>(program.grid())),
          flag_ns_(static_cast<std::size_t>(program.grid()), never), waiter_(static_cast<std::size_t>(program.grid()), -1),
          partitions_(static_cast<std::size_t>(memory.partitions())) {
        for (Partition& p : partitions_) p.latency_ns = memory.loaded_latency_ns(0);
    }

    double run(double start_ns) {
        now_ = start_ns;
        for (Partition& p : partitions_) p.t_ns = start_ns;
        const std::int64_t grid = program_.grid();
        for (std::int64_t slot = 0; slot < sms_ && next_cta_ < grid; ++slot) dispatch(slot, start_ns);
        while (finished_ < grid) {
            // The earliest event: a timed one (a stream starts, a slot frees) wins ties, as in the engine.
            double when = timed_.empty() ? never : timed_.top().first;
            std::int64_t ending = -1;  // partition whose stream ends first, if earlier
            for (std::size_t i = 0; i < partitions_.size(); ++i) {
                const Partition& p = partitions_[i];
                if (p.ends.empty()) continue;
                const double t = p.t_ns + std::max(0.0, p.ends.top().first - p.v) * p.latency_ns;
                if (t < when) when = t, ending = static_cast<std::int64_t>(i);
            }
            if (when == never) throw std::logic_error("simulated launch deadlocked: a CTA waits on a flag that no running CTA can set");
            advance_clocks(when);
            if (ending >= 0) {
                Partition& p = partitions_[static_cast<std::size_t>(ending)];
                const std::int64_t g = p.ends.top().second;
                p.ends.pop();
                end_stream(g);
            } else {
                const std::int64_t g = timed_.top().second;
                timed_.pop();
                Cta& c = cta(g);
                if (!c.done) begin_stream(g);
                else if (next_cta_ < grid) dispatch(c.sm, now_);  // its slot frees: the next CTA of the grid takes it
            }
        }
        return makespan_;
    }

private:
    struct Cta {
        std::int64_t sm = 0, phase = 0, end = 0;
        double stream_begin_ns = 0.0;
        double at_ns = 0.0;  // where its program stands while it waits for a peer or a stream's start
        bool done = false;
    };
    struct Partition {
        std::int64_t streaming = 0;
        double latency_ns = 0.0, v = 0.0, t_ns = 0.0;  // the virtual clock V at t_ns, and its speed's inverse
        EventHeap ends;                                // stream ends, as points on V
    };

    Cta& cta(std::int64_t g) { return ctas_[static_cast<std::size_t>(g)]; }
    Partition& partition_of(const Cta& c) { return partitions_[static_cast<std::size_t>(memory_.partition_of(c.sm))]; }

    void advance_clocks(double to_ns) {
        for (Partition& p : partitions_) {
            if (p.streaming > 0) p.v += (to_ns - p.t_ns) / p.latency_ns;
            p.t_ns = to_ns;
        }
        now_ = to_ns;
    }

    void dispatch(std::int64_t sm, double at_ns) {
        const std::int64_t g = next_cta_++;
        Cta& c = cta(g);
        c.sm = sm;
        c.phase = program_.first[static_cast<std::size_t>(g)];
        c.end = program_.first[static_cast<std::size_t>(g) + 1];
        run_until_stream(g, at_ns);
    }

    // Adds up CTA g's work and waits from `t` (>= now) up to its next stream, which then starts (now) or is
    // booked to start; a wait on a flag not yet set parks it.
    void run_until_stream(std::int64_t g, double t) {
        Cta& c = cta(g);
        for (; c.phase < c.end; ++c.phase) {
            const Phase& ph = program_.phases[static_cast<std::size_t>(c.phase)];
            switch (ph.kind) {
                case PhaseKind::work:
                    t += ph.amount;
                    if (ph.signals) set_flag(g, t);
                    break;
                case PhaseKind::wait: {
                    const double flag = flag_ns_[static_cast<std::size_t>(ph.peer)];
                    if (flag == never) {
                        waiter_[static_cast<std::size_t>(ph.peer)] = g;
                        c.at_ns = t;
                        return;
                    }
                    t = std::max(t, flag);
                    break;
                }
                case PhaseKind::stream:
                    if (ph.amount <= 0.0) break;
                    c.at_ns = t;
                    if (t > now_) timed_.emplace(t, g);
                    else begin_stream(g);
                    return;
            }
        }
        finish(g, t);
    }

    void set_flag(std::int64_t g, double t) {
        flag_ns_[static_cast<std::size_t>(g)] = t;
        const std::int64_t host = waiter_[static_cast<std::size_t>(g)];
        if (host < 0) return;
        waiter_[static_cast<std::size_t>(g)] = -1;
        Cta& h = cta(host);
        ++h.phase;  // past its wait
        run_until_stream(host, std::max(h.at_ns, t));
    }

    void finish(std::int64_t g, double t) {
        Cta& c = cta(g);
        c.done = true;
        ++finished_;
        makespan_ = std::max(makespan_, t);
        if (next_cta_ < program_.grid()) {
            if (t > now_) timed_.emplace(t, g);
            else dispatch(c.sm, now_);
        }
    }

    void begin_stream(std::int64_t g) {
        Cta& c = cta(g);
        Partition& p = partition_of(c);
        ++p.streaming;
        p.latency_ns = memory_.loaded_latency_ns(p.streaming);
        c.stream_begin_ns = now_;
        const Phase& ph = program_.phases[static_cast<std::size_t>(c.phase)];
        p.ends.emplace(p.v + ph.amount / memory_.sm_bytes_per_s(c.sm), g);
    }

    // The phase lasts max(stream, compute) + loss · min(stream, compute), as in the engine.
    void end_stream(std::int64_t g) {
        Cta& c = cta(g);
        Partition& p = partition_of(c);
        --p.streaming;
        p.latency_ns = memory_.loaded_latency_ns(p.streaming);
        const Phase& ph = program_.phases[static_cast<std::size_t>(c.phase)];
        const double streamed = now_ - c.stream_begin_ns;
        const double until = c.stream_begin_ns + std::max(streamed, ph.min_ns) + ph.loss * std::min(streamed, ph.min_ns);
        ++c.phase;
        run_until_stream(g, std::max(until, now_));
    }

    const LaunchProgram& program_;
    std::int64_t sms_;
    const MemoryModel& memory_;
    std::vector<Cta> ctas_;
    std::vector<double> flag_ns_;       // when each CTA's flag is set (never: not known yet)
    std::vector<std::int64_t> waiter_;  // the host parked on each CTA's flag, or −1
    std::vector<Partition> partitions_;
    EventHeap timed_;                   // streams booked to start, slots booked to free
    double now_ = 0.0, makespan_ = 0.0;
    std::int64_t next_cta_ = 0, finished_ = 0;
};

double launch_end_ns(const LaunchProgram& program, const DeviceSpec& device, const MemoryModel& memory, double start_ns) {
    if (program.grid() <= 0) return start_ns;
    if (device.ctas_per_sm == 1) return MakespanLaunch(program, device.sms, memory).run(start_ns);
    SmTimeline unused(device.sms, false);
    return run_launch(program, device.sms, device.ctas_per_sm, memory, unused, start_ns);
}

}  // namespace

MakespanModel::MakespanModel(const KernelModel& kernel, const DeviceSpec& device) : kernel_(kernel), memory_(kernel_memory_model(kernel, device)) {}

double MakespanModel::makespan_ns(const Schedule& schedule, std::int64_t bytes_per_element) const {
    check_bytes_per_element(bytes_per_element);
    double t = launch_end_ns(main_launch(schedule, kernel_, bytes_per_element), schedule.device, memory_, kernel_.launch_ns);
    if (schedule.launches > 1) t = launch_end_ns(reduce_launch(schedule, kernel_), schedule.device, memory_, t + kernel_.reduce_launch_ns);
    return t;
}

double simulated_makespan_ns(const Schedule& schedule, const KernelModel& kernel, std::int64_t bytes_per_element) {
    return MakespanModel(kernel, schedule.device).makespan_ns(schedule, bytes_per_element);
}

}  // namespace leanattn::sim
