#include "trace_comparison.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <tuple>

#include "core/input_error.hpp"
#include "core/schedule.hpp"
#include "core/walker.hpp"
#include "input_file.hpp"
#include "plot_axis.hpp"
#include "problem_json.hpp"
#include "request_legend.hpp"
#include "schedule_svg.hpp"
#include "simulation_report.hpp"
#include "svg.hpp"

namespace leanattn::app {

namespace {

using json = nlohmann::json;

// A [start, end] pair of a trace in ns, or null: its length, refused where it runs backwards or is not finite.
double interval_ns(const json& v, const char* what) {
    if (v.is_null()) return 0.0;
    const double start = v.at(0).get<double>(), end = v.at(1).get<double>();
    if (!(end >= start) || !std::isfinite(end - start)) throw InputError(what, "ends before it starts (" + v.dump() + ")");
    return end - start;
}

std::int64_t in_range(const json& v, std::int64_t lo, std::int64_t hi, const std::string& what) {
    const std::int64_t x = as_whole_number(v, what);
    if (x < lo || x > hi) throw InputError(what + " " + std::to_string(x), "must lie in " + std::to_string(lo) + ".." + std::to_string(hi));
    return x;
}

}  // namespace

MeasuredTrace read_trace(const std::string& file) {
    const std::string text = read_json_text(file, "trace");
    MeasuredTrace t;
    try {
        const json j = json::parse(text);
        t.gpu = printable(j.at("device").at("name").get<std::string>(), "device name");
        t.sms = in_range(j.at("device").at("sms"), 1, max_device_sms, "device sms");
        t.ctas_per_sm = in_range(j.at("device").at("ctas_per_sm"), 1, max_ctas_per_sm, "device ctas_per_sm");
        t.problem = problem_from_json(j.at("problem"));
        const std::string dtype = j.at("dtype").get<std::string>();
        if (dtype != "fp16" && dtype != "bf16") throw InputError("dtype " + dtype, "expected fp16 or bf16 (the GPU kernels')");
        t.dtype = dtype == "bf16" ? DType::bf16 : DType::fp16;
        for (const json& k : j.at("kernels")) {
            MeasuredKernel mk;
            const auto strategy = parse_strategy(k.at("strategy").get<std::string>());
            if (!strategy) throw InputError("strategy", "unknown");
            mk.strategy = *strategy;
            mk.grid = whole_number(k, "grid");
            if (k.contains("snap")) mk.snap = whole_number(k, "snap");
            if (k.contains("splits")) mk.splits = whole_number(k, "splits");
            mk.makespan_ns = k.at("makespan").get<double>();
            if (!(mk.makespan_ns > 0.0) || !std::isfinite(mk.makespan_ns)) throw InputError("makespan", "must be a positive time");
            for (const json& c : k.at("ctas")) {
                MeasuredCta mc;
                mc.sm = in_range(c.at("sm"), 0, t.sms - 1, "cta " + std::to_string(mk.ctas.size()) + " sm");
                mc.start_ns = c.at("start").get<double>();
                mc.end_ns = c.at("end").get<double>();
                if (!(mc.end_ns >= mc.start_ns) || !std::isfinite(mc.end_ns - mc.start_ns)) {
                    throw InputError("cta " + std::to_string(mk.ctas.size()), "ends before it starts");
                }
                for (const json& s : c.at("segments")) {
                    mc.empty = false;
                    mc.segments.push_back({s.at("output").get<std::int64_t>(), s.at("begin").get<std::int64_t>(), s.at("end").get<std::int64_t>()});
                    const double wait = interval_ns(s.at("wait"), "wait");
                    mc.wait_ns += wait;
                    // A segment that stores a whole output unsplit is no reduction work.
                    if (s.at("contributors").get<std::int64_t>() > 1 || s.at("role").get<std::string>() != "store") {
                        mc.merge_ns += interval_ns(s.at("merge_store"), "merge_store") - wait;
                    }
                }
                mk.ctas.push_back(mc);
            }
            if (static_cast<std::int64_t>(mk.ctas.size()) != mk.grid) {
                throw InputError("ctas", std::to_string(mk.ctas.size()) + " of them where the grid is " + std::to_string(mk.grid));
            }
            t.kernels.push_back(std::move(mk));
        }
    } catch (const json::exception& e) {
        throw InputError({{"trace", file}}, std::string("not a `leanattn cuda bench --trace` file: ") + e.what());
    } catch (const InputError& e) {
        throw InputError({{"trace", file}}, std::string("not a `leanattn cuda bench --trace` file: ") + e.what());
    }
    if (t.kernels.empty()) throw InputError({{"trace", file}}, "holds no kernel");
    return t;
}

namespace {

// Whether `plan` gives every CTA the segments the trace lists for it, in order.
bool walks_as_traced(const Schedule& plan, const MeasuredKernel& measured) {
    if (plan.grid != measured.grid || static_cast<std::int64_t>(measured.ctas.size()) != plan.grid) return false;
    const PlanView v = plan.view();
    for (std::int64_t g = 0; g < plan.grid; ++g) {
        const std::vector<TracedSegment>& traced = measured.ctas[static_cast<std::size_t>(g)].segments;
        std::size_t i = 0;
        for (CtaWalker w(v, g); w.valid(); w.advance(), ++i) {
            const Segment& s = w.current();
            if (i >= traced.size() || !(traced[i] == TracedSegment{s.output, s.begin, s.end})) return false;
        }
        if (i != traced.size()) return false;
    }
    return true;
}

}  // namespace

Schedule remake_traced_plan(const Problem& problem, const DeviceSpec& planned, const MeasuredKernel& measured) {
    PlanOptions options;
    options.strategy = measured.strategy;
    if (measured.strategy == Strategy::stream_k) {
        options.grid = measured.grid;  // the plan that ran (calibration.cpp's plan_runs says why)
        options.snap = measured.snap;
    }
    if (measured.strategy == Strategy::fixed_split) {
        const std::int64_t outputs = problem.outputs();
        options.splits = measured.splits.value_or(outputs > 0 && measured.grid % outputs == 0 ? measured.grid / outputs : 0);
    }
    Schedule plan = make_schedule(problem, planned, options);
    if (walks_as_traced(plan, measured)) return plan;
    if (measured.strategy == Strategy::stream_k && !measured.snap) {
        // An older trace: the snap that was forced (--snap, --stream-k-rule paper) or that the rule chose then. A CTA
        // whose traced start is not its ideal one was moved onto its nearest output boundary, so the snap reached that
        // distance; the smallest such snap moves exactly those starts (walks_as_traced checks the rest).
        options.snap = 0;
        const Schedule paper = make_schedule(problem, planned, options);
        const PlanView v = paper.view();
        std::int64_t snap = 0;
        for (std::int64_t g = 0; g < paper.grid && g < static_cast<std::int64_t>(measured.ctas.size()); ++g) {
            const std::vector<TracedSegment>& traced = measured.ctas[static_cast<std::size_t>(g)].segments;
            if (traced.empty() || traced.front().output < 0 || traced.front().output >= plan::outputs(v)) continue;  // walks_as_traced refuses it
            const std::int64_t start = plan::output_offset(v, traced.front().output) + traced.front().begin;
            const std::int64_t ideal = plan::stream_k_ideal_start(v, g);
            if (start != ideal) snap = std::max(snap, plan::nearest_output_boundary(v, ideal).distance);
        }
        options.snap = snap;
        plan = make_schedule(problem, planned, options);
        if (walks_as_traced(plan, measured)) return plan;
    }
    throw InputError({{"strategy", std::string(strategy_name(measured.strategy))}, {"grid", std::to_string(measured.grid)}},
                     "no plan the planner makes on this device walks as the trace's CTAs did (another device file, or a trace of another build?)");
}

TraceComparison compare_trace(const MeasuredTrace& trace, const DeviceSpec& device, const sim::KernelModel& kernel) {
    TraceComparison c;
    c.trace = &trace;
    c.kernel = kernel.name;
    const DeviceSpec planned = sim::device_for_kernel(device, kernel);
    c.device = planned;
    for (const MeasuredKernel& mk : trace.kernels) {
        const Schedule plan = remake_traced_plan(trace.problem, planned, mk);
        sim::SimOptions so;
        so.bytes_per_element = dtype_bytes(trace.dtype);
        so.kernel = &kernel;
        so.record_timeline = true;
        const sim::SimResult r = sim::simulate(plan, so);
        KernelComparison k;
        k.strategy = mk.strategy;
        k.measured = &mk;
        k.measured_grid = mk.grid;
        k.simulated_grid = plan.grid;
        k.snap = plan.snap;
        k.splits = plan.splits;
        k.measured_makespan_ns = mk.makespan_ns;
        for (sim::CtaSpan s : r.ctas) {
            s.start_ns -= r.main_launch_start_ns;
            s.end_ns -= r.main_launch_start_ns;
            k.simulated_makespan_ns = std::max(k.simulated_makespan_ns, s.end_ns);
            k.simulated_wait_ns += s.wait_ns;
            k.simulated_merge_ns += s.reduce_ns;
            k.simulated.push_back(s);
        }
        std::vector<double> errors;
        for (std::size_t g = 0; g < mk.ctas.size(); ++g) {
            const MeasuredCta& m = mk.ctas[g];
            k.measured_wait_ns += m.wait_ns;
            k.measured_merge_ns += m.merge_ns;
            if (m.empty || g >= k.simulated.size() || m.end_ns <= m.start_ns) continue;
            const double sim_duration = k.simulated[g].end_ns - k.simulated[g].start_ns;
            errors.push_back(std::abs(sim_duration / (m.end_ns - m.start_ns) - 1.0));
        }
        std::sort(errors.begin(), errors.end());
        if (!errors.empty()) {
            k.cta_error_median = errors[errors.size() / 2];
            k.cta_error_p90 = errors[std::min(errors.size() - 1, errors.size() * 9 / 10)];
            k.cta_error_worst = errors.back();
        }
        c.kernels.push_back(std::move(k));
    }
    return c;
}

namespace {

std::string us(double ns) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << ns / 1e3;
    return s.str();
}

std::string pct(double x) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << 100.0 * x << "%";
    return s.str();
}

}  // namespace

void write_trace_comparison_text(std::ostream& out, const TraceComparison& c) {
    const MeasuredTrace& t = *c.trace;
    const Problem& p = t.problem;
    out << "trace of " << t.gpu << " (" << t.sms << " SMs x " << t.ctas_per_sm << " CTA/SM) beside device " << c.device.name << " under kernel " << c.kernel
        << "\nproblem: batch " << p.batch << ", heads " << p.q_heads << "/" << p.kv_heads << ", d " << p.head_dim << ", q_len " << p.q_len << ", longest ctx "
        << p.max_ctx() << ", " << dtype_name(t.dtype) << "; times from each kernel's first CTA start, us\n\n"
        << std::left << std::setw(12) << "strategy" << std::right << std::setw(12) << "grid m/s" << std::setw(11) << "makespan m" << std::setw(9) << "sim"
        << std::setw(8) << "error" << std::setw(22) << "CTA duration error" << std::setw(17) << "waits m/s" << std::setw(19) << "merges m/s" << "\n";
    for (const KernelComparison& k : c.kernels) {
        std::ostringstream grid, cta, waits, merges;
        grid << k.measured_grid << "/" << k.simulated_grid;
        cta << "med " << pct(k.cta_error_median) << " p90 " << pct(k.cta_error_p90);
        waits << us(k.measured_wait_ns) << "/" << us(k.simulated_wait_ns);
        merges << us(k.measured_merge_ns) << "/" << us(k.simulated_merge_ns);
        out << std::left << std::setw(12) << strategy_name(k.strategy) << std::right << std::setw(12) << grid.str() << std::setw(11) << us(k.measured_makespan_ns)
            << std::setw(9) << us(k.simulated_makespan_ns) << std::setw(8) << pct(k.simulated_makespan_ns / k.measured_makespan_ns - 1) << std::setw(22)
            << cta.str() << std::setw(17) << waits.str() << std::setw(19) << merges.str() << "\n";
    }
    out << "\n(waits and merges: SM-time summed over CTAs, us; the simulated makespan is the main kernel's, as the trace's;";
    for (const KernelComparison& k : c.kernels) {
        if (k.strategy == Strategy::stream_k) out << " stream-k replayed at snap " << k.snap << (k.snap == 0 ? ", the paper's starts;" : ";");
        if (k.strategy == Strategy::fixed_split) out << " fixed-split at " << k.splits << " splits;";
    }
    out << " each plan walks as the trace's CTAs did)\n";
}

nlohmann::ordered_json trace_comparison_json(const TraceComparison& c) {
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const KernelComparison& k : c.kernels) {
        kernels.push_back({{"strategy", std::string(strategy_name(k.strategy))},
                           {"measured_grid", k.measured_grid},
                           {"simulated_grid", k.simulated_grid},
                           {"snap", k.snap},
                           {"splits", k.splits},
                           {"measured_makespan_us", k.measured_makespan_ns / 1e3},
                           {"simulated_makespan_us", k.simulated_makespan_ns / 1e3},
                           {"makespan_error", k.simulated_makespan_ns / k.measured_makespan_ns - 1},
                           {"cta_duration_error", {{"median", k.cta_error_median}, {"p90", k.cta_error_p90}, {"worst", k.cta_error_worst}}},
                           {"wait_us", {{"measured", k.measured_wait_ns / 1e3}, {"simulated", k.simulated_wait_ns / 1e3}}},
                           {"merge_us", {{"measured", k.measured_merge_ns / 1e3}, {"simulated", k.simulated_merge_ns / 1e3}}}});
    }
    // The device as simulate's and schedule's JSON name it; "gpu" is the one the trace was measured on.
    return {{"gpu", c.trace->gpu},
            {"device", {{"name", c.device.name}, {"sms", c.device.sms}, {"ctas_per_sm", c.device.ctas_per_sm}}},
            {"kernel", c.kernel},
            {"kernels", kernels}};
}

namespace {

// The row of each measured SM: the simulator puts CTA g of the first wave on SM g, the GPU on whichever SM it
// likes, so measured SMs are ordered by the first CTA each ran and row r shows CTA r on both sides.
std::vector<std::int64_t> measured_rows(const MeasuredKernel& k, std::int64_t sms) {
    std::vector<std::int64_t> first_cta(static_cast<std::size_t>(sms), INT64_MAX), order(static_cast<std::size_t>(sms)), row(static_cast<std::size_t>(sms));
    for (std::size_t g = 0; g < k.ctas.size(); ++g) {
        const std::int64_t sm = k.ctas[g].sm;
        if (sm >= 0 && sm < sms) first_cta[static_cast<std::size_t>(sm)] = std::min(first_cta[static_cast<std::size_t>(sm)], static_cast<std::int64_t>(g));
    }
    for (std::int64_t s = 0; s < sms; ++s) order[static_cast<std::size_t>(s)] = s;
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return first_cta[static_cast<std::size_t>(a)] < first_cta[static_cast<std::size_t>(b)]; });
    for (std::int64_t r = 0; r < sms; ++r) row[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] = r;
    return row;
}

// Rows a panel needs: the SMs that ran a CTA with work, measured or simulated.
std::int64_t rows_used(const KernelComparison& k, const std::vector<std::int64_t>& row) {
    std::int64_t used = 1;
    for (const MeasuredCta& m : k.measured->ctas) {
        if (!m.empty && m.sm >= 0 && m.sm < static_cast<std::int64_t>(row.size())) used = std::max(used, row[static_cast<std::size_t>(m.sm)] + 1);
    }
    for (const sim::CtaSpan& s : k.simulated) {
        if (s.end_ns > s.start_ns) used = std::max(used, s.sm + 1);
    }
    return used;
}

constexpr double lane = 3.0;        // px per SM row
constexpr double sub_gap = 22.0;    // between a strategy's measured and simulated halves (room for the second label)
constexpr double panel_gap = 64.0;  // between strategies (a panel's axis labels and the next one's title)

// One CTA's bar: its segments side by side in their outputs' hues (each as wide as its share of the CTA's LeanTiles;
// the plan the trace ran and the replay are the same, so both halves colour CTA g alike), then its wait for peers'
// flags and its merges and partial stores, to scale, at its end, where the trace and the model put them.
void draw_cta(SvgWriter& svg, const Problem& p, const MeasuredCta& plan, double x, double y, double w, double wait_w, double merge_w, const std::string& tip) {
    std::int64_t tiles = 0;
    for (const TracedSegment& seg : plan.segments) tiles += seg.end - seg.begin;
    const double body = std::max(0.0, w - wait_w - merge_w);
    double at = x;
    for (const TracedSegment& seg : plan.segments) {
        const double sw = tiles > 0 ? body * static_cast<double>(seg.end - seg.begin) / static_cast<double>(tiles) : body;
        svg.rect(at, y, std::max(sw, 0.3), lane - 0.4, output_color(p, seg.output), {}, "class=\"cta-segment\"");
        at += sw;
    }
    if (wait_w > 0.2) svg.rect(x + body, y, wait_w, lane - 0.4, waiting_fill);
    if (merge_w > 0.2) svg.rect(x + w - merge_w, y, merge_w, lane - 0.4, reduce_color);
    // The tooltip over the whole bar: an unfilled rect takes the pointer only when told to.
    svg.rect(x, y, std::max(w, 0.5), lane - 0.4, "none", tip, "class=\"cta\" pointer-events=\"all\"");
}

}  // namespace

void write_trace_comparison_svg(std::ostream& out, const TraceComparison& c) {
    const MeasuredTrace& t = *c.trace;
    constexpr double left = 96, right = 24, plot_w = 900;
    const std::int64_t sms = t.sms;
    const Problem& p = t.problem;
    double span_ns = 1.0;
    std::vector<std::vector<std::int64_t>> rows;
    std::vector<double> half_h;
    for (const KernelComparison& k : c.kernels) {
        span_ns = std::max({span_ns, k.measured_makespan_ns, k.simulated_makespan_ns});
        rows.push_back(measured_rows(*k.measured, sms));
        half_h.push_back(static_cast<double>(rows_used(k, rows.back())) * lane);
    }
    // Heading, then the requests' hues (as `schedule` and `simulate` colour them), then the marks.
    constexpr double legend_row = 18.0, requests_top = 62.0;
    const int request_rows = request_legend_rows(p, left, left + plot_w);
    const double marks_top = requests_top + legend_row * request_rows, top = marks_top + 2 * legend_row + 24;
    double height = top;
    for (const double h : half_h) height += 2 * h + sub_gap + panel_gap;
    SvgWriter svg(left + plot_w + right, height);
    std::ostringstream title;
    title << "Measured (" << t.gpu << ") and simulated (" << c.device.name << ", kernel model " << c.kernel << ") per-CTA timelines";
    svg.text(left, 20, title.str(), 14, "start", "font-weight=\"bold\"");
    svg.text(left, 38, describe_setup(p, c.device, std::string(dtype_name(t.dtype))), 11, "start", "fill=\"#444444\"");
    svg.raw("<defs>" + std::string(waiting_pattern) + "</defs>");
    draw_request_legend(svg, p, left, left + plot_w, requests_top, legend_row);
    svg.rect(left, marks_top - 10, 14, 12, reduce_color).text(left + 20, marks_top, "merges and partial stores (to scale)", 11);
    svg.rect(left + 250, marks_top - 10, 14, 12, waiting_fill).text(left + 270, marks_top, "waiting for peers' flags", 11);
    svg.line(left + 440, marks_top - 10, left + 440, marks_top + 2, "#d62728", 1.5).text(left + 448, marks_top, "makespan", 11);
    svg.text(left, marks_top + legend_row,
             "Per strategy: the GPU's CTAs above (its SMs ordered by the first CTA each ran, so row r holds CTA r in both), the "
             "simulator's below; a CTA's outputs side by side in their hues by share of its LeanTiles.",
             10.5, "start", "fill=\"#555\"");
    const double scale = plot_w / span_ns;
    double y0 = top;
    for (std::size_t i = 0; i < c.kernels.size(); ++i) {
        const KernelComparison& k = c.kernels[i];
        const std::vector<std::int64_t>& row = rows[i];
        const double h = half_h[i];
        std::ostringstream head;
        head << strategy_name(k.strategy) << " (grid " << k.measured_grid << "): makespan measured " << us(k.measured_makespan_ns) << " us, simulated "
             << us(k.simulated_makespan_ns) << " us (" << pct(k.simulated_makespan_ns / k.measured_makespan_ns - 1) << ")";
        svg.text(left, y0 - 8, head.str(), 12.5, "start", "font-weight=\"bold\"");
        const double sim_y0 = y0 + h + sub_gap;
        for (const auto& [y, label, makespan] : {std::tuple{y0, std::string("measured"), k.measured_makespan_ns},
                                                 std::tuple{sim_y0, std::string("simulated"), k.simulated_makespan_ns}}) {
            svg.rect(left, y, plot_w, h, idle_color);
            for (double tick : nice_ticks(0, span_ns / 1e3)) svg.line(left + tick * 1e3 * scale, y, left + tick * 1e3 * scale, y + h, "#dddddd", 0.5);
            svg.text(left - 6, y + std::min(h, 12.0) - 2, label, 10.5, "end", "font-weight=\"bold\" fill=\"#333\"");
            if (h >= 24) svg.text(left - 6, y + h, std::to_string(static_cast<std::int64_t>(h / lane)) + " SMs", 9.5, "end", "fill=\"#666\"");
            svg.line(left + makespan * scale, y - 3, left + makespan * scale, y + h + 3, "#d62728", 1.5);
        }
        for (std::size_t g = 0; g < k.measured->ctas.size(); ++g) {
            const MeasuredCta& m = k.measured->ctas[g];
            if (m.empty || m.sm < 0 || m.sm >= sms) continue;
            const double x = left + m.start_ns * scale, w = std::max(0.5, (m.end_ns - m.start_ns) * scale);
            draw_cta(svg, p, m, x, y0 + static_cast<double>(row[static_cast<std::size_t>(m.sm)]) * lane, w, m.wait_ns * scale, m.merge_ns * scale,
                     "CTA " + std::to_string(g) + " measured on SM " + std::to_string(m.sm) + ": " + us(m.start_ns) + "-" + us(m.end_ns) + " us");
        }
        for (std::size_t g = 0; g < k.simulated.size(); ++g) {  // the replay walks as traced: CTA g is the trace's CTA g
            const sim::CtaSpan& s = k.simulated[g];
            if (s.end_ns <= s.start_ns || s.sm < 0 || s.sm >= sms) continue;
            const double x = left + s.start_ns * scale, w = std::max(0.5, (s.end_ns - s.start_ns) * scale);
            draw_cta(svg, p, k.measured->ctas[g], x, sim_y0 + static_cast<double>(s.sm) * lane, w, s.wait_ns * scale, s.reduce_ns * scale,
                     "CTA " + std::to_string(g) + " simulated on SM " + std::to_string(s.sm) + ": " + us(s.start_ns) + "-" + us(s.end_ns) + " us");
        }
        const double axis_y = sim_y0 + h + 4;
        for (double tick : nice_ticks(0, span_ns / 1e3)) {
            svg.line(left + tick * 1e3 * scale, axis_y, left + tick * 1e3 * scale, axis_y + 4, "#333").text(left + tick * 1e3 * scale, axis_y + 16, SvgWriter::num(tick), 10, "middle");
        }
        svg.text(left + plot_w, axis_y + 30, "time (us) from the first CTA's start", 10, "end", "fill=\"#333\"");
        y0 = sim_y0 + h + panel_gap;
    }
    svg.write(out);
}

}  // namespace leanattn::app
