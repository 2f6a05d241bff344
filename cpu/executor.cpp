#include "executor.hpp"

#include <atomic>
#include <memory>
#include <omp.h>
#include <thread>
#include <vector>

#include "core/input_error.hpp"
#include "lean_tile.hpp"

namespace leanattn::cpu {

namespace {

// Partials workspace: one slot per CTA. A CTA has at most one segment that is not a host (its first:
// every later segment starts an output), so one slot each is enough. Slot layout: m (rows), l (rows),
// acc (rows × d).
class Partials {
public:
    Partials(std::int64_t grid, std::int64_t rows, std::int64_t d)
        : rows_(rows), d_(d), data_(static_cast<std::size_t>(grid * (2 * rows + rows * d))), flags_(new std::atomic<int>[grid]) {
        for (std::int64_t g = 0; g < grid; ++g) flags_[g].store(0, std::memory_order_relaxed);
    }
    void store(std::int64_t cta, const SoftmaxState& st) {
        float* s = slot(cta);
        std::copy(st.m.data(), st.m.data() + rows_, s);
        std::copy(st.l.data(), st.l.data() + rows_, s + rows_);
        std::copy(st.acc.data(), st.acc.data() + rows_ * d_, s + 2 * rows_);
    }
    void signal(std::int64_t cta) { flags_[cta].store(1, std::memory_order_release); }
    void wait(std::int64_t cta) const {
        while (flags_[cta].load(std::memory_order_acquire) == 0) std::this_thread::yield();
    }
    void merge_into(SoftmaxState& st, std::int64_t cta) const {
        const float* s = slot(cta);
        st.merge(s, s + rows_, s + 2 * rows_);
    }

private:
    float* slot(std::int64_t cta) { return data_.data() + cta * (2 * rows_ + rows_ * d_); }
    const float* slot(std::int64_t cta) const { return data_.data() + cta * (2 * rows_ + rows_ * d_); }
    std::int64_t rows_, d_;
    std::vector<float> data_;
    std::unique_ptr<std::atomic<int>[]> flags_;
};

struct DeferredHost {
    std::int64_t output;
    SoftmaxState state;
};

}  // namespace

void execute_plan(const Schedule& s, DecodeTensors& t, int threads) {
    if (!(s.problem.batch == t.problem().batch && s.problem.ctx == t.problem().ctx && s.problem.kv_heads == t.problem().kv_heads &&
          s.problem.q_heads == t.problem().q_heads && s.problem.head_dim == t.problem().head_dim && s.problem.q_len == t.problem().q_len &&
          s.problem.tile == t.problem().tile)) {
        throw InputError("plan", "was made for another problem than these tensors");
    }
    const PlanView plan = s.view();
    const std::int64_t rows = s.problem.group() * s.problem.q_len, d = s.problem.head_dim;
    Partials partials(s.grid, rows, d);
    const int team = threads > 0 ? threads : omp_get_max_threads();

#pragma omp parallel num_threads(team)
    {
        const int me = omp_get_thread_num(), count = omp_get_num_threads();
        TileScratch scratch;
        SoftmaxState state;
        std::vector<DeferredHost> deferred;

        // Phase 1: this thread plays SMs me, me + count, …; it runs their CTAs in increasing id order.
        for (std::int64_t g = 0; g < s.grid; ++g) {
            if (sm_of_cta(s, g) % count != me) continue;
            for (CtaWalker w(plan, g); w.valid(); w.advance()) {
                const Segment& seg = w.current();
                lean_tile_run(t, seg, state, scratch);
                const std::int64_t peers = plan::contributor_count(plan, seg.output);
                if (peers == 1) {
                    write_output(t, seg.output, state);
                } else if (!seg.host || !s.fused_reduction()) {
                    partials.store(g, state);  // un-scaled partial for the host (or the reduce pass)
                    partials.signal(g);
                } else {
                    // A stream-k host with peers: its wait is deferred until this thread has computed all its
                    // CTAs. Why no thread count, grid or CTAs per SM can deadlock:
                    //  1. phase 1 never waits: a segment reads Q, K and V only, and storing a partial and
                    //     releasing its flag never block; so every thread finishes phase 1, and by then every
                    //     non-host partial of its CTAs is published;
                    //  2. a host waits only after its own thread's phase 1, on flags that (1) guarantees are set
                    //     or will be set by threads still in phase 1, which never wait on anyone;
                    //  3. fixed-split waits only at the barrier, which every thread reaches after phase 1.
                    // On a GPU the guarantee comes from co-residency instead (validate.hpp); a thread here plays
                    // many CTAs, so it could not wait in line. Only a CTA's last segment can be such a host (a
                    // host that does not finish its output ends the CTA's range), so deferring it delays no other
                    // work of this CTA.
                    deferred.push_back({seg.output, state});
                }
            }
        }
        // Hosts: wait (acquire) for each peer in plan order and merge its partial after the host's own.
        for (DeferredHost& host : deferred) {
            const std::int64_t peers = plan::contributor_count(plan, host.output);
            for (std::int64_t i = 1; i < peers; ++i) {
                const std::int64_t peer = plan::contributor(plan, host.output, i);
                partials.wait(peer);
                partials.merge_into(host.state, peer);
            }
            write_output(t, host.output, host.state);
        }
        // fixed-split's second "launch": every output with several splits merges them in split order.
        if (!s.fused_reduction()) {
#pragma omp barrier
#pragma omp for schedule(dynamic)
            for (std::int64_t o = 0; o < s.problem.outputs(); ++o) {
                const std::int64_t peers = plan::contributor_count(plan, o);
                if (peers < 2) continue;
                SoftmaxState merged;
                merged.reset(rows, d);
                for (std::int64_t i = 0; i < peers; ++i) partials.merge_into(merged, plan::contributor(plan, o, i));
                write_output(t, o, merged);
            }
        }
    }
}

}  // namespace leanattn::cpu
