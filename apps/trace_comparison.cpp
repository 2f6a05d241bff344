#include "trace_comparison.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/input_error.hpp"
#include "core/schedule.hpp"
#include "core/walker.hpp"
#include "input_file.hpp"
#include "plot_axis.hpp"
#include "problem_json.hpp"
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
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > hi) throw InputError(what + " " + std::to_string(x), "must lie in " + std::to_string(lo) + ".." + std::to_string(hi));
    return x;
}

}  // namespace

MeasuredTrace read_trace(const std::string& file) {
    const std::unique_ptr<std::istream> in = open_input_file(file, "trace");
    MeasuredTrace t;
    try {
        const json j = json::parse(*in);
        t.gpu = j.at("device").at("name").get<std::string>();
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
            mk.grid = k.at("grid").get<std::int64_t>();
            if (k.contains("snap")) mk.snap = k.at("snap").get<std::int64_t>();
            if (k.contains("splits")) mk.splits = k.at("splits").get<std::int64_t>();
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

// Measured and simulated CTAs in two greys (no request hue: the trace picture has no per-request meaning);
// merges and waits in the colours every picture gives them (svg.hpp).
constexpr const char* measured_color = "#3f3f3f";
constexpr const char* simulated_color = "#a8a8a8";

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

}  // namespace

void write_trace_comparison_svg(std::ostream& out, const TraceComparison& c) {
    const MeasuredTrace& t = *c.trace;
    constexpr double left = 80, right = 20, top = 78, plot_w = 900, lane = 3.0, panel_gap = 56;
    const std::int64_t sms = t.sms;
    double span_ns = 1.0;
    std::vector<std::vector<std::int64_t>> rows;
    std::vector<double> panel_h;
    double height = top + 20;
    for (const KernelComparison& k : c.kernels) {
        span_ns = std::max({span_ns, k.measured_makespan_ns, k.simulated_makespan_ns});
        rows.push_back(measured_rows(*k.measured, sms));
        panel_h.push_back(static_cast<double>(rows_used(k, rows.back())) * 2 * lane);
        height += panel_h.back() + panel_gap;
    }
    SvgWriter svg(left + plot_w + right, height);
    const Problem& p = t.problem;
    std::ostringstream title, subtitle;
    title << "Measured (" << t.gpu << ") and simulated (" << c.device.name << ", kernel model " << c.kernel << ") per-CTA timelines";
    subtitle << "batch " << p.batch << ", heads " << p.q_heads << "/" << p.kv_heads << ", d " << p.head_dim << ", q_len " << p.q_len << ", longest ctx "
             << p.max_ctx() << ", " << dtype_name(t.dtype) << ". Each SM: measured CTAs above, simulated below; time from the first CTA's start.";
    svg.text(left, 18, title.str(), 13).text(left, 34, subtitle.str(), 10, "start", "fill=\"#444444\"");
    svg.raw("<defs>" + std::string(waiting_pattern) + "</defs>");
    svg.rect(left, 44, 10, 8, measured_color).text(left + 14, 52, "measured CTA", 10);
    svg.rect(left + 100, 44, 10, 8, simulated_color).text(left + 114, 52, "simulated CTA", 10);
    svg.rect(left + 210, 44, 10, 8, reduce_color).text(left + 224, 52, "merges / partial stores (to scale)", 10);
    svg.rect(left + 420, 44, 10, 8, waiting_fill).text(left + 434, 52, "waiting for peers' flags", 10);
    const double scale = plot_w / span_ns;
    double y0 = top;
    for (std::size_t i = 0; i < c.kernels.size(); ++i) {
        const KernelComparison& k = c.kernels[i];
        const std::vector<std::int64_t>& row = rows[i];
        const double h = panel_h[i];
        std::ostringstream head;
        head << strategy_name(k.strategy) << " (grid " << k.measured_grid << "): makespan measured " << us(k.measured_makespan_ns) << " us, simulated "
             << us(k.simulated_makespan_ns) << " us (" << pct(k.simulated_makespan_ns / k.measured_makespan_ns - 1) << ")";
        svg.text(left, y0 - 6, head.str(), 12);
        svg.rect(left, y0, plot_w, h, "#f7f7f7");
        for (double tick : nice_ticks(0, span_ns / 1e3)) {
            const double x = left + tick * 1e3 * scale;
            svg.line(x, y0, x, y0 + h, "#dddddd", 0.5).text(x, y0 + h + 12, us(tick * 1e3) + (tick == 0 ? "" : ""), 9, "middle");
        }
        svg.text(left + plot_w, y0 + h + 24, "us", 9, "end");
        svg.text(left - 6, y0 + 8, "CTA 0's SM", 9, "end").text(left - 6, y0 + h, std::to_string(static_cast<std::int64_t>(h / (2 * lane))) + " SMs", 9, "end");
        const auto draw = [&](double y, double start, double end, double wait, double merge, const std::string& fill, const std::string& tip) {
            const double x = left + start * scale, w = std::max(0.5, (end - start) * scale);
            svg.rect(x, y, w, lane - 0.4, fill, tip);
            // Merge and wait drawn to scale at the CTA's end (the trace and the model put them there).
            const double mw = merge * scale, ww = wait * scale;
            if (mw > 0.2) svg.rect(x + w - mw, y, mw, lane - 0.4, reduce_color);
            if (ww > 0.2) svg.rect(x + w - mw - ww, y, ww, lane - 0.4, waiting_fill);
        };
        for (std::size_t g = 0; g < k.measured->ctas.size(); ++g) {
            const MeasuredCta& m = k.measured->ctas[g];
            if (m.empty || m.sm < 0 || m.sm >= sms) continue;
            draw(y0 + static_cast<double>(row[static_cast<std::size_t>(m.sm)]) * 2 * lane, m.start_ns, m.end_ns, m.wait_ns, m.merge_ns, measured_color,
                 "CTA " + std::to_string(g) + " measured: " + us(m.start_ns) + "-" + us(m.end_ns) + " us");
        }
        for (std::size_t g = 0; g < k.simulated.size(); ++g) {
            const sim::CtaSpan& s = k.simulated[g];
            if (s.end_ns <= s.start_ns || s.sm < 0 || s.sm >= sms) continue;
            draw(y0 + static_cast<double>(s.sm) * 2 * lane + lane, s.start_ns, s.end_ns, s.wait_ns, s.reduce_ns, simulated_color,
                 "CTA " + std::to_string(g) + " simulated: " + us(s.start_ns) + "-" + us(s.end_ns) + " us");
        }
        y0 += h + panel_gap;
    }
    svg.write(out);
}

}  // namespace leanattn::app
