#include "cost_estimate.hpp"

#include <algorithm>
#include <cstdio>

#include "saturating.hpp"
#include "split_heuristic.hpp"

namespace leanattn {

namespace sat = saturating;

namespace {

// Bytes per item of the data structures, measured as peak RSS over a range of problems (rounded up with
// room to spare; docs/reliability.md): a CTA row of the table with its vector, a segment, an output row
// with its contributor list, the simulator's per-CTA state, phases and events.
constexpr std::int64_t bytes_per_request = 48;        // request_tiles, request_offset, ctx
constexpr std::int64_t bytes_per_cta = 96;
constexpr std::int64_t bytes_per_segment = 48;
constexpr std::int64_t bytes_per_output = 96;
constexpr std::int64_t sim_bytes_per_cta = 160;
constexpr std::int64_t sim_bytes_per_segment = 64;
constexpr std::int64_t sim_bytes_per_sm = 256;
constexpr std::int64_t timeline_bytes_per_segment = 160;
// A picture also keeps each segment's stream phase (sim::StreamSpan, in a vector that may double) and draws it
// as an SVG rectangle in a buffer the output copies once; each CTA's span likewise.
constexpr std::int64_t stream_picture_bytes_per_segment = 640;
constexpr std::int64_t cta_span_bytes = 100;
// Steps per item: walking, tabulating and validating a CTA, a segment or an output; an event of the
// simulator (a heap push and pop, log-factor included for grids up to 2^31).
constexpr std::int64_t work_per_item = 120;
constexpr std::int64_t work_per_event = 150;
// stream-k's aligned rule scores candidate snaps over the grid, each step a binary search over requests.
constexpr std::int64_t aligned_search_work_per_cta = 2000;

NamedValue named(const char* parameter, std::int64_t value) { return {parameter, std::to_string(value)}; }

// The ctx parameter: its value when every request has the same, else the parameter alone.
NamedValue ctx_named(const Problem& p) {
    const bool uniform = std::all_of(p.ctx.begin(), p.ctx.end(), [&](std::int64_t c) { return c == p.ctx.front(); });
    return {"ctx", uniform && !p.ctx.empty() ? std::to_string(p.ctx.front()) : std::string()};
}

std::int64_t log2_ceil(std::int64_t n) {
    std::int64_t bits = 1;
    while (bits < 63 && (std::int64_t{1} << bits) < n) ++bits;
    return bits;
}

std::vector<NamedValue> ctas_blame(const Problem& p, const DeviceSpec& d, const PlanOptions& o) {
    switch (o.strategy) {
        case Strategy::stream_k: return o.grid != 0 ? std::vector<NamedValue>{named("grid", o.grid)}
                                                    : std::vector<NamedValue>{named("sms", d.sms), named("ctas_per_sm", d.ctas_per_sm)};
        case Strategy::fixed_split:
            if (o.splits != 0) return {named("splits", o.splits)};
            break;
        case Strategy::no_split: break;
    }
    return {named("batch", p.batch), named("kv_heads", p.kv_heads)};
}

}  // namespace

Cost& Cost::add(const CostTerm& term) {
    bytes = sat::add(bytes, term.bytes);
    work = sat::add(work, term.work);
    if (term.bytes >= most_bytes.bytes) most_bytes = term;
    if (term.work >= most_work.work) most_work = term;
    return *this;
}

Cost& Cost::add(const Cost& other) {
    bytes = sat::add(bytes, other.bytes);
    work = sat::add(work, other.work);
    if (other.most_bytes.bytes >= most_bytes.bytes) most_bytes = other.most_bytes;
    if (other.most_work.work >= most_work.work) most_work = other.most_work;
    return *this;
}

Cost& Cost::then(const Cost& other) {
    const std::int64_t peak = std::max(bytes, other.bytes);
    add(other);
    bytes = peak;
    return *this;
}

std::string human_bytes(std::int64_t bytes) {
    const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1000.0 && u < 6) v /= 1000.0, ++u;
    char text[32];
    std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return text;
}

void check_cost(const Cost& cost, const CostLimits& limits) {
    if (cost.bytes > limits.max_memory_bytes) {
        throw InputError(cost.most_bytes.blame, "needs about " + human_bytes(cost.bytes) + " of memory (" + cost.most_bytes.what + ": " +
                                                    human_bytes(cost.most_bytes.bytes) + "), more than the limit of " +
                                                    human_bytes(limits.max_memory_bytes) + " (" + limits.memory_source + ")");
    }
    if (cost.work > limits.max_work) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.3g", static_cast<double>(cost.work) / 1e9);
        throw InputError(cost.most_work.blame, "needs about " + std::string(seconds) + " s of one core's work (" + cost.most_work.what +
                                                   "), more than the limit of " + std::to_string(limits.max_work) + " steps (" +
                                                   limits.work_source + ")");
    }
}

PlanSize plan_size(const Problem& p, const DeviceSpec& d, const PlanOptions& o) {
    check_problem(p);
    check_device(d);
    PlanSize s;
    s.outputs = sat::mul(p.batch, p.outputs_per_request());
    for (std::int64_t b = 0; b < p.batch; ++b) {
        const std::int64_t tiles = p.tiles_of_request(b);
        s.longest = std::max(s.longest, tiles);
        s.lean_tiles = sat::add(s.lean_tiles, sat::mul(tiles, p.outputs_per_request()));
    }
    switch (o.strategy) {
        case Strategy::stream_k: {
            // The aligned rule only tries grids up to the one asked for (or the resident CTAs).
            const std::int64_t asked = o.grid != 0 ? o.grid : d.resident_ctas();
            s.ctas = std::min(s.lean_tiles, asked);
            s.segments = sat::add(s.ctas, s.outputs);
            break;
        }
        case Strategy::fixed_split: {
            if (o.splits > 0) {
                s.splits = std::min(o.splits, std::max<std::int64_t>(s.longest, 1));  // as the planner caps it
            } else {
                const std::int64_t row_blocks = sat::ceil_div(p.rows(), 64);  // FlashAttention-2's own blocks of 64 rows
                s.splits = fa2_num_splits(sat::mul(p.batch, p.kv_heads, row_blocks), 2 * d.sms, s.longest);
            }
            s.ctas = sat::mul(s.outputs, s.splits);
            s.segments = s.ctas;
            break;
        }
        case Strategy::no_split:
            s.ctas = s.outputs;
            s.segments = s.outputs;
            break;
    }
    return s;
}

Cost request_list_cost(std::int64_t batch) {
    Cost c;
    c.add({"the request list", sat::mul(batch, bytes_per_request), sat::mul(batch, work_per_item), {named("batch", batch)}});
    return c;
}

Cost plan_cost(const Problem& p, const DeviceSpec& d, const PlanOptions& o) {
    const PlanSize s = plan_size(p, d, o);
    Cost c = request_list_cost(p.batch);
    c.add({"the plan's CTAs", sat::add(sat::mul(s.ctas, bytes_per_cta), sat::mul(s.segments, bytes_per_segment)),
           sat::mul(sat::add(s.ctas, s.segments), work_per_item), ctas_blame(p, d, o)});
    c.add({"the plan's outputs", sat::mul(s.outputs, bytes_per_output), sat::mul(s.outputs, work_per_item),
           {named("batch", p.batch), named("kv_heads", p.kv_heads)}});
    if (o.strategy == Strategy::stream_k && o.stream_k_rule == StreamKRule::aligned && !o.snap) {
        c.add({"the aligned rule's search", sat::mul(s.ctas, 64), sat::mul(s.ctas, aligned_search_work_per_cta, log2_ceil(p.batch + 1)),
               ctas_blame(p, d, o)});
    }
    return c;
}

Cost plan_report_cost(const Problem& p, const DeviceSpec& d, const PlanOptions& o, ReportKind kind) {
    const PlanSize s = plan_size(p, d, o);
    // Bytes and steps per CTA, per output and per SM row of each report while it is built (the JSON text, written
    // a CTA at a time, and its copy handed on; a picture's elements). A segment is counted with its CTA: every CTA
    // has one, and any further ones each start an output, so segments ≤ CTAs + outputs.
    struct PerItem { std::int64_t bytes, work; };
    const PerItem per = kind == ReportKind::json ? PerItem{700, 6000} : kind == ReportKind::picture ? PerItem{1600, 3000} : PerItem{140, 400};
    const std::int64_t rows = kind == ReportKind::picture ? std::min(d.sms, s.ctas) : 0;
    Cost c;
    c.add({"the report's CTAs", sat::mul(sat::add(s.ctas, rows), per.bytes), sat::mul(sat::add(s.ctas, rows), per.work), ctas_blame(p, d, o)});
    c.add({"the report's outputs", sat::mul(s.outputs, 2 * per.bytes), sat::mul(s.outputs, 2 * per.work), {named("batch", p.batch), named("kv_heads", p.kv_heads)}});
    return c;
}

Cost schedule_report_cost(const Problem& p, const DeviceSpec& d, const PlanOptions& o, ReportKind kind) {
    return plan_cost(p, d, o).add(plan_report_cost(p, d, o, kind));
}

Cost simulation_cost(const Problem& p, const DeviceSpec& d, const PlanOptions& o, bool timeline) {
    const PlanSize s = plan_size(p, d, o);
    Cost c = plan_cost(p, d, o);
    // fixed-split's reduce launch: up to max_reduce_ctas_per_output CTAs per output (the kernel model says how many);
    // one split has none (one launch).
    const std::int64_t reduce_ctas = o.strategy == Strategy::fixed_split && s.splits > 1 ? sat::mul(s.outputs, max_reduce_ctas_per_output) : 0;
    const std::int64_t ctas = sat::add(s.ctas, reduce_ctas);
    const std::int64_t events = sat::add(sat::mul(ctas, 4), sat::mul(s.segments, 4));
    c.add({"the simulated CTAs", sat::add(sat::mul(ctas, sim_bytes_per_cta), sat::mul(s.segments, sim_bytes_per_segment)),
           sat::mul(events, work_per_event), ctas_blame(p, d, o)});
    c.add({"the simulated SMs", sat::mul(d.sms, sim_bytes_per_sm), sat::mul(d.sms, 2 * work_per_item), {named("sms", d.sms)}});
    // Each event scans every HBM partition for its next stream event (sim/engine.cpp): about a step each (65,536
    // partitions, 400k tokens: 25 s measured, 52 s estimated).
    const std::int64_t partitions = std::clamp<std::int64_t>(d.timing.hbm_partitions, 1, std::max<std::int64_t>(d.sms, 1));
    c.add({"the HBM partitions at every event", 0, sat::mul(events, partitions), {named("hbm_partitions", partitions)}});
    // A stream's start or end re-shares its SM among the CTAs there: every further CTA slot of the SM is looked at and
    // its stream rescheduled (no-split of 131,072 CTAs at 1,000 CTAs per SM: 40 s measured, 60 s estimated).
    const std::int64_t more_slots = std::max<std::int64_t>(d.ctas_per_sm - 1, 0);
    if (more_slots > 0) c.add({"the CTA slots each SM re-shares at every event", 0, sat::mul(events, more_slots, work_per_item / 2), {named("ctas_per_sm", d.ctas_per_sm)}});
    if (timeline) c.add({"the per-SM timeline", sat::mul(s.segments, timeline_bytes_per_segment), 0, ctas_blame(p, d, o)});
    return c;
}

Cost simulation_report_cost(const Problem& p, const DeviceSpec& d, const PlanOptions& o, const std::vector<Strategy>& strategies, bool pictures) {
    Cost total;
    for (Strategy strategy : strategies) {
        PlanOptions one = o;
        one.strategy = strategy;
        total.then(simulation_cost(p, d, one, false));
        if (pictures) {  // every strategy's timeline is kept until the report draws it: an interval per segment
            const PlanSize s = plan_size(p, d, one);
            total.add({"the per-SM timeline", sat::mul(s.segments, timeline_bytes_per_segment + stream_picture_bytes_per_segment),
                       sat::mul(s.segments, 4 * work_per_item), ctas_blame(p, d, one)});
            total.add({"the CTAs' spans", sat::mul(s.ctas, cta_span_bytes), 0, ctas_blame(p, d, one)});
        }
    }
    return total;
}

Cost host_tensors_cost(const Problem& p, std::int64_t dtype_bytes, CacheLayout layout, std::int64_t block_size) {
    std::int64_t tokens = 0;  // K (and V) tokens the layout stores per KV head (tensor_layout.hpp)
    switch (layout) {
        case CacheLayout::padded:
        case CacheLayout::token_major: tokens = sat::mul(p.batch, p.max_ctx()); break;
        case CacheLayout::paged: {
            const std::int64_t size = std::max<std::int64_t>(block_size, 1);
            tokens = sat::mul(p.batch, sat::ceil_div(p.max_ctx(), size), size);
            break;
        }
        case CacheLayout::ragged: tokens = p.total_ctx(); break;
    }
    // K and V, plus a paged layout's block table (int32 per block, and its shuffle's copy).
    const std::int64_t kv = sat::add(sat::mul(tokens, p.kv_heads, p.head_dim, dtype_bytes, 2), layout == CacheLayout::paged ? sat::mul(tokens, 8) : 0);
    const std::int64_t q_elements = sat::mul(p.batch, p.q_len, p.q_heads, p.head_dim);
    // q and o in the dtype, the LSE in fp32, the reference's O and LSE in float64, float copies for comparisons.
    const std::int64_t q_and_o = sat::add(sat::mul(q_elements, dtype_bytes, 2), sat::mul(q_elements, 8 + 4 + 4));
    Cost c;
    c.add({"K and V", kv, sat::mul(tokens, p.kv_heads, p.head_dim, 2 * 10), {ctx_named(p), named("kv_heads", p.kv_heads), named("head_dim", p.head_dim)}});
    c.add({"q, out and the reference", q_and_o, sat::mul(q_elements, 20),
           {named("batch", p.batch), named("q_heads", p.q_heads), named("q_len", p.q_len), named("head_dim", p.head_dim)}});
    return c;
}

Cost decode_work(const Problem& p, std::int64_t runs) {
    const std::int64_t rows = sat::mul(p.group(), p.q_len);
    const std::int64_t flops = sat::mul(p.total_ctx(), p.kv_heads, rows, p.head_dim, 4);
    Cost c;
    c.add({"the attention arithmetic", 0, sat::mul(flops, runs), {ctx_named(p), named("q_heads", p.q_heads), named("head_dim", p.head_dim)}});
    return c;
}

Cost cpu_workspace_cost(const Problem& p, const PlanSize& s) {
    const std::int64_t rows = p.block_rows();
    const std::int64_t slot = sat::mul(sat::add(sat::mul(rows, 2), sat::mul(rows, p.head_dim)), 4);
    Cost c;
    // A slot per CTA: many splits make many CTAs, so a refusal names them where there are more than one.
    std::vector<NamedValue> blame = {named("q_heads", p.q_heads), named("head_dim", p.head_dim)};
    if (s.splits > 1) blame.insert(blame.begin(), named("splits", s.splits));
    c.add({"the workspace's partials", sat::add(sat::mul(s.ctas, sat::add(slot, 64)), sat::mul(p.batch, 32)), s.ctas, std::move(blame)});
    return c;
}

}  // namespace leanattn
