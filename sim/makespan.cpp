#include "makespan.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine.hpp"

namespace leanattn::sim {

namespace {

constexpr double never = std::numeric_limits<double>::infinity();

// (key, CTA): a time, or a point on a partition's virtual clock. Ties go to the lower CTA, as the engine breaks them.
struct Event {
    double key;
    std::int32_t cta;  // grids stay below 2^31 (make_schedule refuses larger)
};
// Without branches: heap keys come in no order, so a branch on them would mispredict half the time.
bool earlier(const Event& a, const Event& b) { return (a.key < b.key) | ((a.key == b.key) & (a.cta < b.cta)); }

// A binary min-heap of events. A CTA has at most one event in a heap, so no two are equal: any heap pops them in
// the same order.
class EventHeap {
public:
    void clear() { v_.clear(); }
    bool empty() const { return v_.empty(); }
    std::size_t size() const { return v_.size(); }
    const Event& top() const { return v_.front(); }
    void push(Event e) {
        v_.push_back(e);
        sift_up(v_.size() - 1, e);
    }
    // The hole left at the root goes down to a leaf along the earlier children, then the last event rises from
    // there (Floyd's): fewer comparisons than stopping on the way, and none of them a branch.
    void pop() {
        const Event last = v_.back();
        v_.pop_back();
        const std::size_t n = v_.size();
        if (n == 0) return;
        std::size_t i = 0;
        for (std::size_t child = 1; child < n; child = 2 * i + 1) {
            if (child + 1 < n) child += earlier(v_[child + 1], v_[child]) ? 1 : 0;
            v_[i] = v_[child];
            i = child;
        }
        sift_up(i, last);
    }

private:
    void sift_up(std::size_t i, Event e) {
        while (i > 0) {
            const std::size_t parent = (i - 1) / 2;
            if (!earlier(e, v_[parent])) break;
            v_[i] = v_[parent];
            i = parent;
        }
        v_[i] = e;
    }

    std::vector<Event> v_;
};

// Timed events, mostly booked in the order they come due (a slot's next stream starts a fixed set-up after its last
// one ends): those go to a queue, the few others to a heap, and the earlier of the two fronts comes first.
class TimedEvents {
public:
    void clear() {
        queue_.clear();
        first_ = 0;
        heap_.clear();
    }
    bool empty() const { return first_ == queue_.size() && heap_.empty(); }
    std::size_t size() const { return queue_.size() - first_ + heap_.size(); }
    const Event& top() const {
        if (first_ == queue_.size()) return heap_.top();
        return heap_.empty() || earlier(queue_[first_], heap_.top()) ? queue_[first_] : heap_.top();
    }
    void push(Event e) {
        if (first_ == queue_.size() || !earlier(e, queue_.back())) queue_.push_back(e);
        else heap_.push(e);
    }
    void pop() {
        if (first_ < queue_.size() && (heap_.empty() || earlier(queue_[first_], heap_.top()))) {
            if (++first_ == queue_.size()) queue_.clear(), first_ = 0;
        } else {
            heap_.pop();
        }
    }

private:
    std::vector<Event> queue_;  // [first_, end): in order
    std::size_t first_ = 0;
    EventHeap heap_;
};

// Bounds are worked out in other orders than the play's sums: this margin keeps them below its rounding.
constexpr double bound_rounding = 1.0 - 1e-9;

// What program k of `programs` streams, and its SM time besides streaming (work phases, and the share of a stream
// phase's compute its loads do not hide, loss · min_ns: the least time past its stream).
struct PhaseTotals {
    double bytes = 0.0, work_ns = 0.0;
    bool waits = false;
};
PhaseTotals totals_of(const LaunchProgram& programs, std::int64_t k) {
    PhaseTotals t;
    for (std::int64_t i = programs.first[static_cast<std::size_t>(k)]; i < programs.first[static_cast<std::size_t>(k) + 1]; ++i) {
        const Phase& ph = programs.phases[static_cast<std::size_t>(i)];
        if (ph.kind == PhaseKind::work) t.work_ns += ph.amount;
        if (ph.kind == PhaseKind::stream && ph.amount > 0.0) t.bytes += ph.amount, t.work_ns += ph.loss * ph.min_ns;
        if (ph.kind == PhaseKind::wait) t.waits = true;
    }
    return t;
}

}  // namespace

// Lower bounds of a launch's duration under the memory law: what lets makespan_below give up on a plan. Sound, not
// tight (on the calibration sweeps, 0.86 of the makespan at the median):
//  - chains: no SM reads faster than alone (latency L(1)) at its own latency factor, so a CTA's program takes at
//    least its work, its streams at that rate and a host's wait for its peers' partials (their programs up to the
//    flag); a first-wave CTA g runs on SM g, a later one on the fastest SM, after some first-wave CTA has ended;
//  - waves: some SM runs ⌈grid / SMs⌉ CTAs one after another, at least the shortest programs;
//  - resources: the SMs' time holds every CTA's work, and while m SMs stream they read at most R(m) bytes/ns (the
//    m fastest at latency L(m)); under R's concave hull any mix of m over time reads no more than its average m
//    would, so bytes ≤ T · R̂(SMs − work / T).
class MakespanModel::LowerBound {
public:
    explicit LowerBound(const MemoryModel& memory) : memory_(memory) {
        const std::int64_t sms = memory.sms();
        alone_ns_ = memory.loaded_latency_ns(1);
        std::vector<double> rates(static_cast<std::size_t>(sms));
        fastest_ = 0.0;
        for (std::int64_t s = 0; s < sms; ++s) rates[static_cast<std::size_t>(s)] = memory.sm_bytes_per_s(s), fastest_ = std::max(fastest_, memory.sm_bytes_per_s(s));
        std::sort(rates.begin(), rates.end(), std::greater<>());
        // R(m): one partition exactly; several, their sum of best rates capped by every SM's rate at L(1).
        std::vector<double> read(static_cast<std::size_t>(sms) + 1, 0.0);
        double top = 0.0, cap = 0.0;
        if (memory.partitions() > 1) {
            for (std::int64_t part = 0; part < memory.partitions(); ++part) {
                std::vector<double> mine;
                for (std::int64_t s = 0; s < sms; ++s) {
                    if (memory.partition_of(s) == part) mine.push_back(memory.sm_bytes_per_s(s));
                }
                std::sort(mine.begin(), mine.end(), std::greater<>());
                double sum = 0.0, best = 0.0;
                for (std::size_t k = 0; k < mine.size(); ++k) sum += mine[k], best = std::max(best, sum / memory.loaded_latency_ns(static_cast<std::int64_t>(k) + 1));
                cap += best;
            }
        }
        for (std::int64_t m = 1; m <= sms; ++m) {
            top += rates[static_cast<std::size_t>(m) - 1];
            read[static_cast<std::size_t>(m)] = memory.partitions() == 1 ? top / memory.loaded_latency_ns(m) : std::min(cap, top / alone_ns_);
        }
        // The upper concave hull of (m, R(m)), m = 0 … SMs, made non-decreasing (more SMs may idle).
        for (std::int64_t m = 0; m <= sms; ++m) {
            const double r = std::max(read[static_cast<std::size_t>(m)], hull_.empty() ? 0.0 : hull_.back().second);
            while (hull_.size() >= 2) {
                const auto& [m1, r1] = hull_[hull_.size() - 2];
                const auto& [m2, r2] = hull_.back();
                if ((r2 - r1) * static_cast<double>(m - m1) <= (r - r1) * static_cast<double>(m2 - m1)) hull_.pop_back();
                else break;
            }
            hull_.emplace_back(m, r);
        }
    }

    // Least time to read `bytes` and do `work_ns` of other SM work on `sms` SMs (resources above). Each piece of the
    // hull, R̂(m) = r + slope · (m − m0), solves T · R̂(sms − work / T) = bytes in closed form; every piece's line
    // lies above the concave R̂, so each solution is at most the true one, and the piece holding it gives it: the
    // largest.
    double resources_ns(double bytes, double work_ns, std::int64_t sms) const {
        const double n = static_cast<double>(sms);
        double t = work_ns / n;
        for (std::size_t i = 1; i < hull_.size(); ++i) {
            const double m0 = static_cast<double>(hull_[i - 1].first), r = hull_[i - 1].second;
            const double slope = (hull_[i].second - r) / (static_cast<double>(hull_[i].first) - m0);
            t = std::max(t, (bytes + slope * work_ns) / (r + slope * (n - m0)));
        }
        return t;
    }

    // Least time for some CTA of `ctas` to read its share of `bytes` (at least the mean) at the fastest SM's rate alone.
    double busiest_cta_ns(double bytes, std::int64_t ctas) const { return bytes / static_cast<double>(ctas) / fastest_ * alone_ns_; }

    // A lower bound of how long `launch` runs (the three above).
    double launch_ns(const SharedLaunch& launch) {
        const std::int64_t grid = launch.grid(), sms = memory_.sms(), programs = launch.programs.grid();
        if (grid == 0) return 0.0;
        count_.assign(static_cast<std::size_t>(programs), 0);
        for (const std::int32_t k : launch.program_of) ++count_[static_cast<std::size_t>(k)];
        double bytes = 0.0, work = 0.0;
        bool waits = false;
        chain_.resize(static_cast<std::size_t>(programs));
        for (std::int64_t k = 0; k < programs; ++k) {
            const PhaseTotals totals = totals_of(launch.programs, k);
            const double n = static_cast<double>(count_[static_cast<std::size_t>(k)]);
            bytes += n * totals.bytes, work += n * totals.work_ns, waits = waits || totals.waits;
            chain_[static_cast<std::size_t>(k)] = chain_ns(launch, k, fastest_, nullptr);
        }
        const std::int64_t first_wave = std::min(grid, sms);
        double chains = 0.0, first_end = never;
        if (waits) {
            // Stream-k: SM by SM, a host after its peers' flags (a CTA's flag comes before any wait of its own).
            flag_ns_.assign(static_cast<std::size_t>(first_wave), 0.0);
            for (std::int64_t g = 0; g < first_wave; ++g) (void)chain_ns(launch, launch.program_of[static_cast<std::size_t>(g)], memory_.sm_bytes_per_s(g), &flag_ns_[static_cast<std::size_t>(g)]);
            for (std::int64_t g = 0; g < first_wave; ++g) {
                const double end = chain_ns(launch, launch.program_of[static_cast<std::size_t>(g)], memory_.sm_bytes_per_s(g), nullptr, &flag_ns_);
                chains = std::max(chains, end);
                first_end = std::min(first_end, end);
            }
        } else {
            // A program takes longer on a slower SM: its slowest and fastest first-wave SMs give the extremes.
            slowest_.assign(static_cast<std::size_t>(programs), never);
            quickest_.assign(static_cast<std::size_t>(programs), 0.0);
            for (std::int64_t g = 0; g < first_wave; ++g) {
                const std::size_t k = static_cast<std::size_t>(launch.program_of[static_cast<std::size_t>(g)]);
                slowest_[k] = std::min(slowest_[k], memory_.sm_bytes_per_s(g));
                quickest_[k] = std::max(quickest_[k], memory_.sm_bytes_per_s(g));
            }
            for (std::int64_t k = 0; k < programs; ++k) {
                if (slowest_[static_cast<std::size_t>(k)] == never) continue;  // no CTA of the first wave runs it
                chains = std::max(chains, chain_ns(launch, k, slowest_[static_cast<std::size_t>(k)], nullptr));
                first_end = std::min(first_end, chain_ns(launch, k, quickest_[static_cast<std::size_t>(k)], nullptr));
            }
        }
        double waves = 0.0;
        if (grid > first_wave) {
            double later = 0.0;  // the longest program after the first wave, which starts once a first-wave CTA has ended
            for (std::int64_t g = first_wave; g < grid; ++g) later = std::max(later, chain_[static_cast<std::size_t>(launch.program_of[static_cast<std::size_t>(g)])]);
            chains = std::max(chains, first_end + later);
            // Waves: the ⌈grid / SMs⌉ shortest programs, counted with their CTAs.
            order_.resize(static_cast<std::size_t>(programs));
            for (std::int64_t k = 0; k < programs; ++k) order_[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(k);
            std::sort(order_.begin(), order_.end(), [&](std::int32_t a, std::int32_t b) { return chain_[static_cast<std::size_t>(a)] < chain_[static_cast<std::size_t>(b)]; });
            std::int64_t left = (grid + sms - 1) / sms;
            for (const std::int32_t k : order_) {
                const std::int64_t n = std::min(left, count_[static_cast<std::size_t>(k)]);
                waves += static_cast<double>(n) * chain_[static_cast<std::size_t>(k)];
                if ((left -= n) == 0) break;
            }
        }
        return bound_rounding * std::max({chains, waves, resources_ns(bytes, work, sms)});
    }

private:
    // Program k's least duration on an SM reading `rate` bytes per unit of virtual clock, waits on peers after their
    // `flags` (lower bounds of when they are set, for the first wave; none: no wait counted). With `flag`, where
    // the CTA sets its own flag, if it does before any wait.
    double chain_ns(const SharedLaunch& launch, std::int64_t k, double rate, double* flag, const std::vector<double>* flags = nullptr) const {
        const LaunchProgram& programs = launch.programs;
        double t = 0.0;
        bool waited = false;
        for (std::int64_t i = programs.first[static_cast<std::size_t>(k)]; i < programs.first[static_cast<std::size_t>(k) + 1]; ++i) {
            const Phase& ph = programs.phases[static_cast<std::size_t>(i)];
            switch (ph.kind) {
                case PhaseKind::work:
                    t += ph.amount;
                    if (ph.signals && flag != nullptr && !waited) *flag = t;
                    break;
                case PhaseKind::stream:
                    if (ph.amount > 0.0) {
                        const double streamed = ph.amount / rate * alone_ns_;
                        t += std::max(streamed, ph.min_ns) + ph.loss * std::min(streamed, ph.min_ns);
                    }
                    break;
                case PhaseKind::wait:
                    waited = true;
                    if (flags != nullptr && ph.peer < static_cast<std::int64_t>(flags->size())) t = std::max(t, (*flags)[static_cast<std::size_t>(ph.peer)]);
                    break;
            }
        }
        return t;
    }

    const MemoryModel& memory_;
    double alone_ns_ = 0.0;  // L(1): the least latency a streaming SM sees
    double fastest_ = 0.0;   // the fastest SM's bytes per unit of virtual clock
    std::vector<std::pair<std::int64_t, double>> hull_;  // (m, R̂(m)) at the hull's corners, m = 0 first and SMs last
    std::vector<std::int64_t> count_;                    // CTAs per program
    std::vector<double> chain_, flag_ns_, slowest_, quickest_;
    std::vector<std::int32_t> order_;
};

// Plays launches of a one-CTA-per-SM kernel for their ends only (makespan.hpp says how). Its buffers outlive a
// launch, so playing many allocates nothing once they have grown.
class MakespanModel::Player {
public:
    Player(const MemoryModel& memory, const LowerBound& bound)
        : memory_(memory), bound_(bound), partitions_(static_cast<std::size_t>(memory.partitions())) {
        for (std::int64_t sm = 0; sm < memory.sms(); ++sm) {
            rate_.push_back(memory.sm_bytes_per_s(sm));
            partition_.push_back(static_cast<std::int32_t>(memory.partition_of(sm)));
        }
    }

    // When `launch` on `sms` SMs from start_ns ends, unless it is shown to end at `limit_ns` or later first: then
    // a lower bound of its end, at least limit_ns.
    BoundedMakespan play(const SharedLaunch& launch, std::int64_t sms, double start_ns, double limit_ns) {
        launch_ = &launch;
        sms_ = sms;
        const std::int64_t grid = launch.grid();
        if (grid <= 0) return {start_ns, true};
        if (one_wave(start_ns)) return {makespan_, true};
        reset(start_ns);
        if (limit_ns < never) count_left();
        for (std::int64_t slot = 0; slot < sms_ && next_cta_ < grid; ++slot) dispatch(slot, start_ns);
        for (std::int64_t events = 0; finished_ < grid; ++events) {
            // Every 16 events: could what is left still end before the limit?
            if (events % 16 == 15 && limit_ns < never) {
                const double least = now_ + bound_rounding * bound_.resources_ns(bytes_to_read(), work_to_do(), sms_);
                if (least >= limit_ns) return {least, false};
            }
            // The earliest event: a timed one (a stream starts, a slot frees) wins ties, as in the engine.
            double when = timed_.empty() ? never : timed_.top().key;
            std::int64_t ending = -1;  // partition whose stream ends first, if earlier
            for (std::size_t i = 0; i < partitions_.size(); ++i) {
                const Partition& p = partitions_[i];
                if (p.ends.empty()) continue;
                const double t = p.t_ns + std::max(0.0, p.ends.top().key - p.v) * p.latency_ns;
                if (t < when) when = t, ending = static_cast<std::int64_t>(i);
            }
            if (when == never) throw std::logic_error("simulated launch deadlocked: a CTA waits on a flag that no running CTA can set");
            advance_clocks(when);
            if (ending >= 0) {
                Partition& p = partitions_[static_cast<std::size_t>(ending)];
                const std::int32_t g = p.ends.top().cta;
                p.ends.pop();
                end_stream(g);
            } else {
                const std::int32_t g = timed_.top().cta;
                booked_ns_ -= timed_.top().key;
                timed_.pop();
                Cta& c = cta(g);
                if (!c.done) begin_stream(g);
                else if (next_cta_ < grid) dispatch(c.sm, now_);  // its slot frees: the next CTA of the grid takes it
            }
        }
        return {makespan_, true};
    }

private:
    struct Cta {
        std::int64_t sm = 0, phase = 0, end = 0;
        double stream_begin_ns = 0.0, stream_end_v = 0.0;
        double at_ns = 0.0;  // where its program stands while it waits for a peer or a stream's start
        bool done = false;
    };
    struct Partition {
        std::int64_t streaming = 0;
        double latency_ns = 0.0, v = 0.0, t_ns = 0.0;  // the virtual clock V at t_ns, and its speed's inverse
        EventHeap ends;                                // stream ends, as points on V
        double ends_rates = 0.0, rates = 0.0;          // over its streams, Σ end · rate and Σ rate: Σ bytes left = ends_rates − V · rates
    };

    // Bytes no stream has read yet: streams not begun, and what the streams under way still read.
    double bytes_to_read() const {
        double bytes = bytes_left_;
        for (const Partition& p : partitions_) bytes += std::max(0.0, p.ends_rates - p.v * p.rates);
        return bytes;
    }
    // SM time besides streaming still to come: work not yet added up, and the work booked to end later (until a
    // CTA's stream starts or its slot frees).
    double work_to_do() const { return work_left_ + std::max(0.0, booked_ns_ - static_cast<double>(timed_.size()) * now_); }
    void book(double t, std::int64_t g) {
        timed_.push({t, static_cast<std::int32_t>(g)});
        booked_ns_ += t;
    }

    Cta& cta(std::int64_t g) { return ctas_[static_cast<std::size_t>(g)]; }
    Partition& partition_of(const Cta& c) { return partitions_[static_cast<std::size_t>(partition_[static_cast<std::size_t>(c.sm)])]; }
    const Phase& phase(std::int64_t i) const { return launch_->programs.phases[static_cast<std::size_t>(i)]; }
    std::int64_t first_phase(std::int64_t program) const { return launch_->programs.first[static_cast<std::size_t>(program)]; }

    void reset(double start_ns) {
        const std::size_t grid = launch_->program_of.size();
        ctas_.resize(grid);
        flag_ns_.assign(grid, never);
        waiter_.assign(grid, -1);
        next_waiter_.assign(grid, -1);
        timed_.clear();
        for (Partition& p : partitions_) {
            p.streaming = 0;
            p.latency_ns = memory_.loaded_latency_ns(0);
            p.v = 0.0;
            p.t_ns = start_ns;
            p.ends.clear();
            p.ends_rates = p.rates = 0.0;
        }
        booked_ns_ = 0.0;
        now_ = start_ns;
        makespan_ = 0.0;
        next_cta_ = 0;
        finished_ = 0;
        // CTAs that run one program are alike: while at least one per SM is left, the slot that frees at t takes
        // one whichever slots free before it, so it may take it at once, to start at t (an event fewer per CTA).
        alike_from_ = static_cast<std::int64_t>(grid);
        while (alike_from_ > 0 && launch_->program_of[static_cast<std::size_t>(alike_from_) - 1] == launch_->program_of.back()) --alike_from_;
    }

    // What no CTA has begun yet, for the bound on what remains (makespan_below).
    void count_left() {
        count_.assign(static_cast<std::size_t>(launch_->programs.grid()), 0);
        for (const std::int32_t k : launch_->program_of) ++count_[static_cast<std::size_t>(k)];
        bytes_left_ = work_left_ = 0.0;
        for (std::int64_t k = 0; k < launch_->programs.grid(); ++k) {
            const PhaseTotals t = totals_of(launch_->programs, k);
            bytes_left_ += static_cast<double>(count_[static_cast<std::size_t>(k)]) * t.bytes;
            work_left_ += static_cast<double>(count_[static_cast<std::size_t>(k)]) * t.work_ns;
        }
    }

    // A launch of one wave on one partition whose CTAs each stream once after the same work (no-split and
    // fixed-split of at most one CTA per SM, a small reduce kernel): every stream starts at once, then they end
    // in the order of their points on the virtual clock. The very sums the event loop would do, without its
    // heaps. False (nothing played) for any other launch.
    bool one_wave(double start_ns) {
        const std::int64_t grid = launch_->grid();
        if (partitions_.size() != 1 || grid > sms_) return false;
        // Each program: work, one stream, work; the work before the stream the same for all.
        double begin = -1.0;
        for (std::int64_t k = 0; k < launch_->programs.grid(); ++k) {
            double t = start_ns;
            int streams = 0;
            for (std::int64_t i = first_phase(k); i < first_phase(k + 1); ++i) {
                const Phase& ph = phase(i);
                if (ph.kind == PhaseKind::wait || ph.signals) return false;
                if (ph.kind == PhaseKind::stream && ph.amount > 0.0) ++streams;
                else if (streams == 0) t += ph.amount;
            }
            if (streams > 1 || (streams == 1 && begin >= 0.0 && t != begin)) return false;
            if (streams == 1) begin = t;
        }
        makespan_ = 0.0;
        ends_.clear();
        for (std::int64_t g = 0; g < grid; ++g) {
            const std::int64_t k = launch_->program_of[static_cast<std::size_t>(g)];
            std::int64_t i = first_phase(k);
            double t = start_ns;
            for (; i < first_phase(k + 1) && !(phase(i).kind == PhaseKind::stream && phase(i).amount > 0.0); ++i) t += phase(i).amount;
            if (i == first_phase(k + 1)) makespan_ = std::max(makespan_, t);  // no stream: done
            else ends_.push_back({phase(i).amount / rate_[static_cast<std::size_t>(g)], static_cast<std::int32_t>(g)});
        }
        std::sort(ends_.begin(), ends_.end(), earlier);
        // All streams begin at `begin` with V = 0, then end one by one.
        std::int64_t streaming = static_cast<std::int64_t>(ends_.size());
        double v = 0.0, t = begin, latency = memory_.loaded_latency_ns(streaming);
        for (const Event& e : ends_) {
            const double when = t + std::max(0.0, e.key - v) * latency;
            v += (when - t) / latency;
            t = when;
            latency = memory_.loaded_latency_ns(--streaming);
            const std::int64_t k = launch_->program_of[static_cast<std::size_t>(e.cta)];
            std::int64_t i = first_phase(k);
            while (!(phase(i).kind == PhaseKind::stream && phase(i).amount > 0.0)) ++i;
            const Phase& ph = phase(i);
            const double streamed = t - begin;
            double end = std::max(begin + std::max(streamed, ph.min_ns) + ph.loss * std::min(streamed, ph.min_ns), t);
            for (++i; i < first_phase(k + 1); ++i) end += phase(i).amount;
            makespan_ = std::max(makespan_, end);
        }
        return true;
    }

    void advance_clocks(double to_ns) {
        for (Partition& p : partitions_) {
            if (p.streaming > 0) p.v += (to_ns - p.t_ns) / p.latency_ns;
            p.t_ns = to_ns;
        }
        now_ = to_ns;
    }

    // The slot on `sm` takes the next CTA of the grid at at_ns (now, or when it frees: finish() says when it may
    // take it early).
    void dispatch(std::int64_t sm, double at_ns) {
        const std::int64_t g = next_cta_++;
        const std::int64_t program = launch_->program_of[static_cast<std::size_t>(g)];
        Cta& c = cta(g);
        c.sm = sm;
        c.phase = first_phase(program);
        c.end = first_phase(program + 1);
        c.done = false;
        run_until_stream(g, at_ns);
    }

    // Adds up CTA g's work and waits from `t` (>= now) up to its next stream, which then starts (now) or is
    // booked to start; a wait on a flag not yet set parks it.
    void run_until_stream(std::int64_t g, double t) {
        Cta& c = cta(g);
        for (; c.phase < c.end; ++c.phase) {
            const Phase& ph = phase(c.phase);
            switch (ph.kind) {
                case PhaseKind::work:
                    t += ph.amount;
                    work_left_ -= ph.amount;
                    if (ph.signals) set_flag(g, t);
                    break;
                case PhaseKind::wait: {
                    const double flag = flag_ns_[static_cast<std::size_t>(ph.peer)];
                    if (flag == never) {
                        next_waiter_[static_cast<std::size_t>(g)] = std::exchange(waiter_[static_cast<std::size_t>(ph.peer)], g);
                        c.at_ns = t;
                        return;
                    }
                    t = std::max(t, flag);
                    break;
                }
                case PhaseKind::stream:
                    if (ph.amount <= 0.0) break;
                    c.at_ns = t;
                    if (t > now_) book(t, g);
                    else begin_stream(g);
                    return;
            }
        }
        finish(g, t);
    }

    void set_flag(std::int64_t g, double t) {
        flag_ns_[static_cast<std::size_t>(g)] = t;
        // Each waiter may park again on another flag (its next wait), so the next one is read before it runs on.
        for (std::int64_t w = std::exchange(waiter_[static_cast<std::size_t>(g)], -1); w >= 0;) {
            const std::int64_t next = next_waiter_[static_cast<std::size_t>(w)];
            Cta& h = cta(w);
            ++h.phase;  // past its wait
            run_until_stream(w, std::max(h.at_ns, t));
            w = next;
        }
    }

    void finish(std::int64_t g, double t) {
        Cta& c = cta(g);
        c.done = true;
        ++finished_;
        makespan_ = std::max(makespan_, t);
        if (next_cta_ < launch_->grid()) {
            if (t <= now_) dispatch(c.sm, now_);
            else if (next_cta_ >= alike_from_ && launch_->grid() - next_cta_ >= sms_) dispatch(c.sm, t);
            else book(t, g);
        }
    }

    void begin_stream(std::int64_t g) {
        Cta& c = cta(g);
        Partition& p = partition_of(c);
        ++p.streaming;
        p.latency_ns = memory_.loaded_latency_ns(p.streaming);
        c.stream_begin_ns = now_;
        const Phase& ph = phase(c.phase);
        bytes_left_ -= ph.amount;
        work_left_ -= ph.loss * ph.min_ns;
        const double rate = rate_[static_cast<std::size_t>(c.sm)];
        c.stream_end_v = p.v + ph.amount / rate;
        p.ends.push({c.stream_end_v, static_cast<std::int32_t>(g)});
        p.ends_rates += c.stream_end_v * rate;
        p.rates += rate;
    }

    // The phase lasts max(stream, compute) + loss · min(stream, compute), as in the engine.
    void end_stream(std::int64_t g) {
        Cta& c = cta(g);
        Partition& p = partition_of(c);
        --p.streaming;
        p.latency_ns = memory_.loaded_latency_ns(p.streaming);
        p.ends_rates -= c.stream_end_v * rate_[static_cast<std::size_t>(c.sm)];
        p.rates -= rate_[static_cast<std::size_t>(c.sm)];
        const Phase& ph = phase(c.phase);
        const double streamed = now_ - c.stream_begin_ns;
        const double until = c.stream_begin_ns + std::max(streamed, ph.min_ns) + ph.loss * std::min(streamed, ph.min_ns);
        ++c.phase;
        run_until_stream(g, std::max(until, now_));
    }

    const MemoryModel& memory_;
    const LowerBound& bound_;
    std::vector<double> rate_;             // (SMs) bytes per unit of virtual clock (MemoryModel::sm_bytes_per_s)
    std::vector<std::int32_t> partition_;  // (SMs) MemoryModel::partition_of
    const SharedLaunch* launch_ = nullptr;
    std::int64_t sms_ = 0;
    std::vector<Cta> ctas_;
    std::vector<double> flag_ns_;       // when each CTA's flag is set (never: not known yet)
    std::vector<std::int64_t> waiter_;       // the first CTA parked on each CTA's flag, or −1 (a shared merge has several)
    std::vector<std::int64_t> next_waiter_;  // the CTA parked on the same flag as this one, after it, or −1
    std::vector<Partition> partitions_;
    TimedEvents timed_;                 // streams booked to start, slots booked to free
    std::vector<Event> ends_;           // one_wave's stream ends
    std::vector<std::int64_t> count_;   // CTAs per program
    double now_ = 0.0, makespan_ = 0.0;
    double bytes_left_ = 0.0, work_left_ = 0.0;  // of phases no CTA has begun
    double booked_ns_ = 0.0;                     // Σ of the timed events' times
    std::int64_t next_cta_ = 0, finished_ = 0;
    std::int64_t alike_from_ = 0;  // the CTAs from this one on run one program
};

MakespanModel::Law::Law(const KernelModel& kernel, const DeviceSpec& device, bool narrow_streams)
    : memory(kernel_memory_model(kernel, device, narrow_streams)), bound(std::make_unique<LowerBound>(memory)),
      player(std::make_unique<Player>(memory, *bound)) {}

MakespanModel::Law::~Law() = default;

MakespanModel::MakespanModel(const KernelModel& kernel, const DeviceSpec& device)
    : kernel_(kernel), device_(device), wide_(kernel, device, false),
      narrow_(kernel.idle_sms_bandwidth_loss > 0.0 || kernel.narrow_in_flight_fraction < 1.0 ? std::make_unique<Law>(kernel, device, true) : nullptr) {}

MakespanModel::~MakespanModel() = default;

double MakespanModel::lower_bound_ns(double bytes, std::int64_t ctas) const {
    if (device_.ctas_per_sm != 1 || ctas <= 0) return kernel_.launch_ns;  // several CTAs per SM: no bound of this kind
    const std::int64_t sms = std::min(ctas, device_.sms);
    // Any plan: one read with half the warps too, under its own law (no idle SMs' loss, fewer bytes in flight): the
    // lesser of the two laws' bounds.
    const auto under = [&](const LowerBound& bound) {
        return std::max(bound.resources_ns(bytes, static_cast<double>(ctas) * kernel_.cta_setup_ns, sms), kernel_.cta_setup_ns + bound.busiest_cta_ns(bytes, ctas));
    };
    const double least = narrow_ != nullptr ? std::min(under(*wide_.bound), under(*narrow_->bound)) : under(*wide_.bound);
    return kernel_.launch_ns + bound_rounding * least;
}

bool MakespanModel::models(const KernelModel& kernel, const DeviceSpec& device) const { return kernel == kernel_ && device == device_; }

BoundedMakespan MakespanModel::play(const Schedule& schedule, bool reduce, std::int64_t bytes_per_element, double start_ns, double limit_ns) const {
    const DeviceSpec& device = schedule.device;
    const Law& law = this->law(schedule);
    if (device.ctas_per_sm != 1) {
        // Several CTAs per SM split their SM's rate: simulate()'s own engine plays them.
        const LaunchProgram program = reduce ? reduce_launch(schedule, kernel_) : main_launch(schedule, kernel_, bytes_per_element);
        if (program.grid() <= 0) return {start_ns, true};
        SmTimeline unused(device.sms, false);
        return {run_launch(program, device.sms, device.ctas_per_sm, law.memory, unused, start_ns), true};
    }
    if (reduce) shared_reduce_launch(schedule, kernel_, launch_);
    else shared_main_launch(schedule, kernel_, bytes_per_element, launch_);
    if (limit_ns < never) {
        const double least = start_ns + law.bound->launch_ns(launch_);
        if (least >= limit_ns) return {least, false};
    }
    return law.player->play(launch_, device.sms, start_ns, limit_ns);
}

BoundedMakespan MakespanModel::makespan_below(const Schedule& schedule, std::int64_t bytes_per_element, double limit_ns) const {
    check_bytes_per_element(bytes_per_element);
    if (schedule.launches == 1) return play(schedule, false, bytes_per_element, kernel_.launch_ns, limit_ns);
    // Fixed-split: the reduce launch's own bound first, so that the split kernel may give up for both.
    double reduce_ns = 0.0;
    if (limit_ns < never && schedule.device.ctas_per_sm == 1) {
        shared_reduce_launch(schedule, kernel_, launch_);
        reduce_ns = kernel_.reduce_launch_ns + law(schedule).bound->launch_ns(launch_);
    }
    const BoundedMakespan split = play(schedule, false, bytes_per_element, kernel_.launch_ns, limit_ns - reduce_ns);
    if (!split.simulated) return {split.ns + reduce_ns, false};
    return play(schedule, true, bytes_per_element, split.ns + kernel_.reduce_launch_ns, limit_ns);
}

double MakespanModel::makespan_ns(const Schedule& schedule, std::int64_t bytes_per_element) const {
    return makespan_below(schedule, bytes_per_element, never).ns;
}

double simulated_makespan_ns(const Schedule& schedule, const KernelModel& kernel, std::int64_t bytes_per_element) {
    return MakespanModel(kernel, schedule.device).makespan_ns(schedule, bytes_per_element);
}

}  // namespace leanattn::sim
