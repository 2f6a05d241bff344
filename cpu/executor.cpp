#include "executor.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <omp.h>
#include <thread>
#include <vector>

#include "core/input_error.hpp"
#include "core/live_plan.hpp"
#include "core/tensor_checks.hpp"
#include "lean_tile.hpp"

namespace leanattn::cpu {

namespace {

constexpr std::size_t align_up(std::size_t n) { return (n + 63) / 64 * 64; }

// The workspace, carved in order: a word marking it in use (WorkspaceClaim), request_tiles (batch), request_offset
// (batch + 1), one flag per CTA, one partial slot per CTA. A CTA has at most one segment that is not a host (its
// first: every later segment starts an output), so one slot each is enough. Slot layout: m (rows), l (rows), acc
// (rows × d), rows being the fullest output tile's (Problem::block_rows); a tile of fewer rows leaves the ends of its
// sections unused.
struct WorkspaceLayout {
    std::size_t claim = 0, tiles = 0, offsets = 0, flags = 0, partials = 0, total = 0;
    std::int64_t slot_floats = 0;

    explicit WorkspaceLayout(const Schedule& s) {
        const std::int64_t rows = s.problem.block_rows();
        slot_floats = 2 * rows + rows * s.problem.head_dim;
        const auto batch = static_cast<std::size_t>(s.problem.batch), grid = static_cast<std::size_t>(s.grid);
        tiles = claim + align_up(sizeof(std::uint64_t));
        offsets = tiles + align_up(batch * sizeof(std::int64_t));
        flags = offsets + align_up((batch + 1) * sizeof(std::int64_t));
        partials = flags + align_up(grid * sizeof(std::atomic<int>));
        total = partials + grid * static_cast<std::size_t>(slot_floats) * sizeof(float);
    }
};

class Partials {
public:
    Partials(std::byte* base, const WorkspaceLayout& w, std::int64_t grid, std::int64_t rows)
        : rows_(rows), slot_floats_(w.slot_floats), data_(reinterpret_cast<float*>(base + w.partials)),
          flags_(reinterpret_cast<std::atomic<int>*>(base + w.flags)) {
        for (std::int64_t g = 0; g < grid; ++g) new (flags_ + g) std::atomic<int>(0);  // every run starts with clear flags
    }
    void store(std::int64_t cta, const SoftmaxState& st) {
        float* s = slot(cta);
        std::copy(st.m.data(), st.m.data() + st.m.size(), s);
        std::copy(st.l.data(), st.l.data() + st.l.size(), s + rows_);
        std::copy(st.acc.data(), st.acc.data() + st.acc.size(), s + 2 * rows_);
    }
    void signal(std::int64_t cta) { flags_[cta].store(1, std::memory_order_release); }
    // Whether the partial came; false once `failed` is set (the thread that would publish it has thrown).
    bool wait(std::int64_t cta, const std::atomic<bool>& failed) const {
        while (flags_[cta].load(std::memory_order_acquire) == 0) {
            if (failed.load(std::memory_order_relaxed)) return false;
            std::this_thread::yield();
        }
        return true;
    }
    void merge_into(SoftmaxState& st, std::int64_t cta) const {
        const float* s = slot(cta);
        st.merge(s, s + rows_, s + 2 * rows_);
    }

private:
    float* slot(std::int64_t cta) const { return data_ + cta * slot_floats_; }
    std::int64_t rows_, slot_floats_;
    float* data_;
    std::atomic<int>* flags_;
};

// Two runs at once on one workspace would overwrite each other's lengths, flags and partials and compute garbage:
// its first word holds a mark while a run uses it, and a second run finding the mark is refused. The run clears it
// as it ends, whether it returns or throws. (A fresh workspace holds anything but the mark, whatever it holds.)
class WorkspaceClaim {
public:
    explicit WorkspaceClaim(std::byte* base) : word_(*std::launder(reinterpret_cast<std::uint64_t*>(base))) {
        if (word_.exchange(in_use, std::memory_order_acq_rel) == in_use) {
            throw InputError("workspace", "is in use by another run at this moment: runs at the same time need a workspace each");
        }
    }
    ~WorkspaceClaim() { word_.store(0, std::memory_order_release); }
    WorkspaceClaim(const WorkspaceClaim&) = delete;
    WorkspaceClaim& operator=(const WorkspaceClaim&) = delete;

private:
    static constexpr std::uint64_t in_use = 0x6c65616e61747472ull;  // "leanattr"
    std::atomic_ref<std::uint64_t> word_;
};

// The first exception any thread of the team throws, kept to be rethrown after the parallel region (an exception
// may not leave one); `failed` tells the other threads to stop waiting for partials that will not come.
class FirstError {
public:
    template <class Work>
    void guard(Work&& work) noexcept {
        try {
            work();
        } catch (...) {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
            failed.store(true, std::memory_order_relaxed);
        }
    }
    void rethrow() const {
        if (error_) std::rethrow_exception(error_);
    }
    std::atomic<bool> failed{false};

private:
    std::mutex mutex_;
    std::exception_ptr error_;
};

struct DeferredHost {
    std::int64_t output;
    SoftmaxState state;
};

}  // namespace

std::size_t workspace_bytes(const Schedule& plan) { return WorkspaceLayout(plan).total; }

void check_step(const Schedule& s, const DecodeTensors& t, const void* workspace, std::size_t bytes, Outputs outputs) {
    check_decode_tensors(s.problem, t, /*host_readable=*/true, outputs);
    const WorkspaceLayout w(s);
    if (reinterpret_cast<std::uintptr_t>(workspace) % alignof(std::max_align_t) != 0) {
        throw InputError("workspace", "must be aligned to " + std::to_string(alignof(std::max_align_t)) + " bytes");
    }
    if (workspace == nullptr) throw InputError("workspace", "is NULL (allocate workspace_bytes(plan) bytes once, and pass them at every run)");
    if (bytes < w.total) {
        throw InputError("workspace", "holds " + std::to_string(bytes) + " bytes; this plan needs " + std::to_string(w.total) + " (workspace_bytes)");
    }
    check_workspace_apart(s.problem, t, workspace, w.total, /*host_readable=*/true, outputs);
}

void run(const Schedule& s, const DecodeTensors& t, void* workspace, std::size_t bytes, int threads) {
    if (threads < 0 || threads > max_threads) {
        throw InputError({{"threads", std::to_string(threads)}}, "must lie in 0.." + std::to_string(max_threads) + " (0: OpenMP's default)");
    }
    check_step(s, t, workspace, bytes);
    const WorkspaceLayout w(s);
    auto* base = static_cast<std::byte*>(workspace);
    const WorkspaceClaim claim(base + w.claim);
    const PlanView plan = live_view(s, t.kv, t.seqlens, reinterpret_cast<std::int64_t*>(base + w.tiles), reinterpret_cast<std::int64_t*>(base + w.offsets));
    const Problem& p = s.problem;
    const std::int64_t d = p.head_dim;
    Partials partials(base, w, s.grid, p.block_rows());
    const int team = threads > 0 ? threads : std::min(omp_get_max_threads(), max_threads);
    FirstError error;

#pragma omp parallel num_threads(team)
    {
        const int me = omp_get_thread_num(), count = omp_get_num_threads();
        TileScratch scratch;
        SoftmaxState state;
        std::vector<DeferredHost> deferred;

        // Phase 1: this thread plays SMs me, me + count, …; it runs their CTAs in increasing id order.
        error.guard([&] {
            // A request that holds no token (a padded batch's empty slot) has no LeanTile, so no CTA visits its
            // outputs: its rows get out 0 and lse −∞ here, from a state that saw nothing.
            for (std::int64_t b = me; b < p.batch; b += count) {
                if (tensors::live_tokens(t.kv, t.seqlens, b) != 0) continue;
                for (std::int64_t o = b * p.outputs_per_request(); o < (b + 1) * p.outputs_per_request(); ++o) {
                    state.reset(p.rows_of(o), d);
                    store_output(p, t, o, state);
                }
            }
            for (std::int64_t g = 0; g < s.grid; ++g) {
                if (sm_of_cta(s, g) % count != me) continue;
                for (CtaWalker walker(plan, g); walker.valid(); walker.advance()) {
                    const Segment& seg = walker.current();
                    lean_tile_run(p, t, tensors::live_tokens(t.kv, t.seqlens, p.request_of(seg.output)), seg, state, scratch);
                    if (plan::contributor_count(plan, seg.output) == 1) {
                        store_output(p, t, seg.output, state);
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
                const std::int64_t contributors = plan::contributor_count(plan, host.output);
                for (std::int64_t i = 1; i < contributors; ++i) {  // the host's peers: every contributor but itself
                    const std::int64_t peer = plan::contributor(plan, host.output, i);
                    if (!partials.wait(peer, error.failed)) return;
                    partials.merge_into(host.state, peer);
                }
                store_output(p, t, host.output, host.state);
            }
        });
        // fixed-split's second "launch": every output with several splits merges them in split order.
        if (!s.fused_reduction()) {
#pragma omp barrier
#pragma omp for schedule(dynamic)
            for (std::int64_t o = 0; o < p.outputs(); ++o) {
                const std::int64_t contributors = plan::contributor_count(plan, o);
                if (contributors < 2 || error.failed.load(std::memory_order_relaxed)) continue;
                error.guard([&] {
                    SoftmaxState merged;
                    merged.reset(p.rows_of(o), d);
                    for (std::int64_t i = 0; i < contributors; ++i) partials.merge_into(merged, plan::contributor(plan, o, i));
                    store_output(p, t, o, merged);
                });
            }
        }
    }
    error.rethrow();
}

}  // namespace leanattn::cpu
