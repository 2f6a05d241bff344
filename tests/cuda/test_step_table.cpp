// A host-lengths step's table (cuda/step_table.hpp), on the CPU: for random plans walked at random live lengths,
// every live token of every output lies in exactly one segment; each output that has tokens has one host, whose
// count of contributors is the number of its segments, held by the CTAs that follow it; a stream-k output whose
// contributors have no other segment is a shared merge (and the simulator's `merge: shared` programs share the same
// outputs); and a plan too large for a launch is refused rather than cut short.
#include <catch2/catch.hpp>

#include <map>
#include <utility>

#include "../core/random_problems.hpp"
#include "core/live_plan.hpp"
#include "cuda/step_table.hpp"
#include "sim/cta_program.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

// A strided cache view of the problem's capacities: live_tokens clamps to `capacity` (every request's the same).
KvCacheView strided_view(const Problem& p) {
    KvCacheView kv;
    kv.layout = KvLayout::strided;
    kv.capacity = *std::max_element(p.ctx.begin(), p.ctx.end());
    return kv;
}

// A problem of up to 8 KV heads and groups of 1-8, and a device of 1-160 SMs of one CTA each: plans a table holds.
std::pair<Problem, DeviceSpec> random_table_case(std::mt19937_64& rng) {
    Problem p = random_problem(rng, 20000);
    p.kv_heads = std::min<std::int64_t>(p.kv_heads, 8);
    p.q_heads = p.kv_heads * log_uniform(rng, 1, 8);
    DeviceSpec d = random_device(rng);
    d.sms = log_uniform(rng, 1, 160);
    d.ctas_per_sm = 1;
    return {p, d};
}

}  // namespace

TEST_CASE("a step table holds every live token of every output once, one host per output counting its contributors, on consecutive CTAs, and lists the empty requests") {
    auto rng = seeded_rng(47);
    static cuda::StepTable step;
    int tabulated = 0, shared = 0, with_empty = 0;
    for (int i = 0; i < 3000; ++i) {
        const auto [p, d] = random_table_case(rng);
        const Strategy strategy = std::array{Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}[i % 3];
        PlanOptions options{.strategy = strategy};
        if (strategy == Strategy::stream_k && i % 2 == 1) options.stream_k_rule = StreamKRule::paper;
        const Schedule plan = make_schedule(p, d, options);
        std::vector<std::int32_t> lengths = i % 4 == 0 ? std::vector<std::int32_t>(p.ctx.begin(), p.ctx.end()) : random_live_lengths(rng, p);
        if (i % 4 == 1) {  // empty slots among them: a third of the requests, at random
            for (std::int32_t& n : lengths) n = rng() % 3 == 0 ? 0 : n;
        }
        const KvCacheView kv = strided_view(p);
        CAPTURE(i, describe(p, d), strategy_name(strategy), plan.grid);
        const bool fits = cuda::make_step_table(plan, kv, lengths.data(), step);
        if (cuda::stageable(plan)) REQUIRE(fits);  // a staged step's plan fits a table at any lengths
        if (!fits) {
            // Refused only when it does not fit a launch.
            std::int64_t segments = 0;
            std::vector<std::int64_t> tiles(static_cast<std::size_t>(p.batch)), offsets(tiles.size() + 1);
            const PlanView live = live_view(plan, kv, lengths.data(), tiles.data(), offsets.data());
            for (std::int64_t g = 0; g < plan.grid; ++g) {
                for (CtaWalker w(live, g); w.valid(); w.advance()) ++segments;
            }
            segments += std::count(tiles.begin(), tiles.end(), 0);  // an entry per empty request
            REQUIRE((plan.grid > cuda::max_table_ctas || segments > cuda::max_table_segments));
            continue;
        }
        ++tabulated;
        REQUIRE(step.grid == plan.grid);
        // The empty requests, in order, after the CTAs' segments: the kernel writes their rows.
        std::vector<std::int64_t> empty;
        for (std::int64_t b = 0; b < p.batch; ++b) {
            if (tensors::live_tokens(kv, lengths.data(), b) == 0) empty.push_back(b);
        }
        REQUIRE(step.empty_requests == static_cast<std::int32_t>(empty.size()));
        REQUIRE(step.used_segments() <= cuda::max_table_segments);  // the staged copy's extent stays inside the table
        for (std::size_t k = 0; k < empty.size(); ++k) REQUIRE(step.segments[step.cta_first[plan.grid] + k].output == empty[k]);
        with_empty += empty.empty() ? 0 : 1;
        // Each output's segments in CTA order, with the tokens they hold.
        std::map<std::int64_t, std::vector<std::pair<std::int64_t, cuda::TableSegment>>> by_output;
        for (std::int64_t g = 0; g < plan.grid; ++g) {
            REQUIRE(step.cta_first[g] <= step.cta_first[g + 1]);
            for (int s = step.cta_first[g]; s < step.cta_first[g + 1]; ++s) by_output[step.segments[s].output].push_back({g, step.segments[s]});
        }
        for (std::int64_t o = 0; o < p.outputs(); ++o) {
            const std::int64_t tokens = tensors::live_tokens(kv, lengths.data(), o / p.outputs_per_request());
            const auto found = by_output.find(o);
            if (tokens == 0) {
                REQUIRE(found == by_output.end());
                continue;
            }
            REQUIRE(found != by_output.end());
            const auto& segs = found->second;
            // Tokens [0, tokens) covered once, in order: each segment starts where the one before ended.
            std::int64_t next = 0;
            for (const auto& [g, seg] : segs) {
                REQUIRE(seg.tokens == tokens);
                REQUIRE(seg.tok_begin == next);
                REQUIRE(seg.tok_end > seg.tok_begin);
                next = seg.tok_end;
            }
            REQUIRE(next == tokens);
            // The host holds the first tokens and counts every contributor; the others follow it, CTA after CTA.
            const auto host_role = segs.front().second.role;
            REQUIRE((host_role & cuda::TableSegment::host_bit) != 0);
            REQUIRE((segs.back().second.role & cuda::TableSegment::finishing_bit) != 0);
            REQUIRE((host_role & cuda::TableSegment::contributor_mask) == segs.size());
            // A shared merge exactly where a stream-k output is split over CTAs that each have this one segment:
            // then every contributor knows the count and its place; otherwise a peer counts 1 and has no place.
            bool alone = strategy == Strategy::stream_k && segs.size() > 1;
            for (const auto& [g, seg] : segs) alone = alone && step.cta_first[g + 1] - step.cta_first[g] == 1;
            if (alone) ++shared;
            for (std::size_t k = 0; k < segs.size(); ++k) {
                const std::uint32_t role = segs[k].second.role;
                REQUIRE(((role & cuda::TableSegment::share_mask) >> cuda::TableSegment::share_shift) == (alone ? k + 1 : 0));
                if (k == 0) continue;
                REQUIRE((role & cuda::TableSegment::host_bit) == 0);
                REQUIRE((role & cuda::TableSegment::contributor_mask) == (alone ? segs.size() : 1));
                REQUIRE(segs[k].first == segs.front().first + static_cast<std::int64_t>(k));
            }
        }
    }
    CHECK(tabulated > 1000);  // most random plans fit a launch: the properties above were checked on them
    CHECK(shared > 100);      // and shared merges were among them
    CHECK(with_empty > 300);  // and tables with empty slots
}

TEST_CASE("k CTAs on every output share each output's merge: every contributor knows the count and its place") {
    // Falcon-7B at one request of 16k tokens, LeanTiles of 64 tokens: 5 outputs of 256 LeanTiles over 80 CTAs.
    Problem p;
    p.batch = 1, p.q_heads = 71, p.kv_heads = 1, p.head_dim = 64, p.tile = 64;
    p.ctx = {16384};
    DeviceSpec d;
    d.sms = 132, d.ctas_per_sm = 1;
    const Schedule plan = make_schedule(p, d, PlanOptions{.strategy = Strategy::stream_k, .grid = 80});
    REQUIRE(plan.grid == 80);
    static cuda::StepTable step;
    const std::int32_t lengths[] = {16384};
    REQUIRE(cuda::make_step_table(plan, strided_view(p), lengths, step));
    for (std::int64_t g = 0; g < 80; ++g) {
        REQUIRE(step.cta_first[g + 1] - step.cta_first[g] == 1);
        const cuda::TableSegment& seg = step.segments[step.cta_first[g]];
        CHECK(seg.output == g / 16);
        CHECK((seg.role & cuda::TableSegment::contributor_mask) == 16);
        CHECK(((seg.role & cuda::TableSegment::share_mask) >> cuda::TableSegment::share_shift) == g % 16 + 1);
        CHECK(((seg.role & cuda::TableSegment::host_bit) != 0) == (g % 16 == 0));
    }
}

TEST_CASE("the simulator's shared merges are the step table's: a CTA of one segment shares a merge in both or in neither") {
    // The rule lives twice (the host marks a launch's table, the simulator plays the plan): with every request at its
    // capacity, a CTA of one segment shares its output's merge where the table marks it, and only there does its
    // program under `merge: shared` both publish a partial and wait for peers (a lone host waits, a peer publishes).
    auto rng = seeded_rng(48);
    static cuda::StepTable step;
    sim::KernelModel shared;
    shared.merge = sim::MergeOrder::shared;
    int checked = 0, sharing = 0;
    for (int i = 0; i < 400; ++i) {
        const auto [p, d] = random_table_case(rng);
        PlanOptions options{.strategy = Strategy::stream_k};
        if (i % 3 == 1) options.grid = log_uniform(rng, 1, d.sms);  // k CTAs on an output, where shared merges happen
        const Schedule plan = make_schedule(p, d, options);
        const std::vector<std::int32_t> lengths(p.ctx.begin(), p.ctx.end());
        if (!cuda::make_step_table(plan, strided_view(p), lengths.data(), step)) continue;
        const sim::LaunchProgram program = sim::main_launch(plan, shared, 2);
        CAPTURE(i, describe(p, d), plan.grid);
        for (std::int64_t g = 0; g < plan.grid; ++g) {
            if (step.cta_first[g + 1] - step.cta_first[g] != 1) continue;
            const bool marked = (step.segments[step.cta_first[g]].role & cuda::TableSegment::share_mask) != 0;
            bool signals = false, waits = false;
            for (std::int64_t k = program.first[g]; k < program.first[g + 1]; ++k) {
                signals = signals || program.phases[k].signals;
                waits = waits || program.phases[k].kind == sim::PhaseKind::wait;
            }
            CAPTURE(g);
            CHECK(marked == (signals && waits));
            ++checked;
            sharing += marked ? 1 : 0;
        }
    }
    CHECK(checked > 1000);
    CHECK(sharing > 100);
}

TEST_CASE("a plan with more CTAs or segments than one launch holds is refused, not cut short") {
    Problem p;
    p.batch = 1, p.q_heads = 8, p.kv_heads = 8, p.head_dim = 128, p.tile = 128;
    p.ctx = {1024};
    DeviceSpec d;
    d.name = "wide";
    d.sms = cuda::max_table_ctas + 1;
    const Schedule fixed = make_schedule(p, d, PlanOptions{.strategy = Strategy::fixed_split, .splits = 8});
    static cuda::StepTable step;
    const std::int32_t lengths[] = {1024};
    KvCacheView kv;
    kv.capacity = 1024;
    REQUIRE(cuda::make_step_table(fixed, kv, lengths, step));  // 64 CTAs, 64 segments
    p.batch = 80;
    p.ctx.assign(80, 1024);
    const Schedule many = make_schedule(p, d, PlanOptions{.strategy = Strategy::no_split});  // 640 CTAs
    const std::vector<std::int32_t> long_lengths(80, 1024);
    CHECK_FALSE(cuda::make_step_table(many, kv, long_lengths.data(), step));
    d.sms = 132;
    const Schedule stream_k = make_schedule(p, d, PlanOptions{.stream_k_rule = StreamKRule::paper});  // 640 outputs on 132 CTAs
    CHECK_FALSE(cuda::make_step_table(stream_k, kv, long_lengths.data(), step));
    // Staged steps decide from the plan alone (a graph cannot change a step's kind between replays): these two are not.
    CHECK(cuda::stageable(fixed));
    CHECK_FALSE(cuda::stageable(many));
    CHECK_FALSE(cuda::stageable(stream_k));
}

TEST_CASE("a step table keeps the plan's snap where the GPU cannot hold its grid at once, as run() does, and drops it otherwise") {
    // A plan of whole outputs made for a cache's capacity (16 requests of 2048 tokens, tiles of 16: the aligned rule
    // snaps every start onto an output), then one request at the capacity and fifteen at a fifth: kept, the snap leaves
    // every output whole (no host waits); dropped, the paper's plan splits outputs, whose hosts wait for peers that a GPU
    // too small for the grid may never start.
    Problem p;
    p.batch = 16, p.q_heads = 32, p.kv_heads = 8, p.head_dim = 16, p.q_len = 1, p.tile = 16;
    p.ctx.assign(16, 2048);
    DeviceSpec d;
    d.name = "test";
    d.sms = 132;
    d.ctas_per_sm = 1;
    const Schedule plan = make_schedule(p, d, PlanOptions{});
    REQUIRE(plan.whole_outputs());
    std::vector<std::int32_t> lengths(16, 410);
    lengths[0] = 2048;
    KvCacheView kv;
    kv.capacity = 2048;
    static cuda::StepTable step;
    const auto split_outputs = [&] {
        std::int64_t split = 0;
        for (int s = 0; s < step.cta_first[step.grid]; ++s) split += (step.segments[s].role & cuda::TableSegment::contributor_mask) > 1 ? 1 : 0;
        return split;
    };
    REQUIRE(cuda::make_step_table(plan, kv, lengths.data(), step, /*keep_snap=*/true));
    CHECK(split_outputs() == 0);
    REQUIRE(cuda::make_step_table(plan, kv, lengths.data(), step));
    CHECK(split_outputs() > 8);
}
