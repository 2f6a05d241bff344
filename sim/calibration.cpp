#include "calibration.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "core/input_error.hpp"
#include "simulation.hpp"

namespace leanattn::sim {

PlanOptions replay_options(const MeasuredRun& r) {
    PlanOptions options;
    options.strategy = r.strategy;
    // Stream-k at the grid and snap the GPU ran: the aligned rule has weighed more grids, and broken ties among
    // snaps otherwise, since some sweeps were measured, and a replay plays the plan that ran. A record without a
    // snap (cuda bench before it wrote one) takes the rule's snap at that grid.
    if (r.strategy == Strategy::stream_k && r.grid > 0) options.grid = r.grid;
    if (r.strategy == Strategy::stream_k && r.snap >= 0) options.snap = r.snap;
    // Fixed-split at the split count that ran (a sweep may time other counts than the heuristic's).
    if (r.strategy == Strategy::fixed_split) options.splits = r.splits;
    return options;
}

Waves replay_waves(const MeasuredRun& run, const Schedule& remade) {
    if (remade.grid != run.grid) return Waves::differ;
    if (run.gpu_slots <= 0) return Waves::not_recorded;
    // One wave on both, or the same slots: every wave holds the same CTAs (equal counts of waves of other sizes would not).
    const std::int64_t slots = remade.device.resident_ctas();
    return slots == run.gpu_slots || run.grid <= std::min(slots, run.gpu_slots) ? Waves::exact : Waves::differ;
}

PlannedRuns plan_runs(const std::vector<MeasuredRun>& runs, const DeviceSpec& device, const KernelModel& kernel) {
    PlannedRuns out;
    out.runs = runs;
    const DeviceSpec planned = device_for_kernel(device, kernel);
    for (const MeasuredRun& r : runs) {
        try {
            out.plans.push_back(make_schedule(r.problem, planned, replay_options(r)));
        } catch (const InputError& e) {  // the record's plan, not a flag of the command
            throw InputError({{"the run of", "\"" + r.label + "\" (" + std::string(strategy_name(r.strategy)) + ")"}}, e.reason());
        }
        out.plans.back().narrow_streams = r.narrow_streams;  // as the kernel that ran read it, whatever today's rule says
        out.waves.push_back(replay_waves(r, out.plans.back()));
    }
    return out;
}

std::vector<double> predict_us(const PlannedRuns& planned, const KernelModel& kernel, unsigned threads) {
    const std::size_t n = planned.plans.size();
    std::vector<double> out(n, 0.0);
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
    std::atomic<std::size_t> next{0};
    // The first exception any thread meets (a model the simulator refuses, memory): the others stop taking runs, every
    // thread is joined, then it is rethrown here. (An exception leaving a thread, or a joinable thread destroyed while
    // one unwinds, ends the process.)
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    std::mutex failure_mutex;
    const auto work = [&] {
        try {
            for (std::size_t i = next++; i < n && !failed; i = next++) {
                SimOptions options;
                options.bytes_per_element = planned.runs[i].bytes_per_element;
                options.kernel = &kernel;
                out[i] = simulate(planned.plans[i], options).makespan_ns / 1e3;
            }
        } catch (...) {
            const std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            failed = true;
        }
    };
    std::vector<std::thread> pool;
    try {
        for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    } catch (...) {  // a thread the system would not start: the ones started finish the runs
    }
    work();
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    return out;
}

std::vector<FitParameter> default_fit_parameters(const PlannedRuns& planned, const KernelModel& start) {
    const auto field = [](double KernelModel::*member) { return [member](KernelModel& k) { return &(k.*member); }; };
    std::vector<FitParameter> params = {
        {"bytes_in_flight_per_sm", field(&KernelModel::bytes_in_flight_per_sm), 1.0, 1e9},  // check_kernel_model's range
        {"stream_latency_ns", field(&KernelModel::stream_latency_ns)},
        {"latency_knee_exponent", field(&KernelModel::latency_knee_exponent), 1.0, 64.0},
        {"bandwidth_over_copy", field(&KernelModel::bandwidth_over_copy), 0.5, 2.0},
        {"sm_latency_spread", field(&KernelModel::sm_latency_spread), 1e-3, 4.0},
        {"compute_ns_per_kscore", field(&KernelModel::compute_ns_per_kscore)},
        {"compute_ns_per_mmac", field(&KernelModel::compute_ns_per_mmac)},
        {"compute_overlap_loss", field(&KernelModel::compute_overlap_loss), 1e-3, 1.0},
        {"launch_ns", field(&KernelModel::launch_ns)},
        {"cta_setup_ns", field(&KernelModel::cta_setup_ns)},
        {"plan_wait_ns", field(&KernelModel::plan_wait_ns)},
        {"stream_k_walk_ns", field(&KernelModel::stream_k_walk_ns)},
        {"segment_ns", field(&KernelModel::segment_ns)},
        {"pipeline_fills_per_segment", field(&KernelModel::pipeline_fills_per_segment), 1e-3, 8.0},
        {"partial_store_ns", field(&KernelModel::partial_store_ns)},
        {"partial_store_ns_per_kb", field(&KernelModel::partial_store_ns_per_kb)},
        {"output_store_ns", field(&KernelModel::output_store_ns)},
        {"merge_ns", field(&KernelModel::merge_ns)},
        {"merge_ns_per_partial", field(&KernelModel::merge_ns_per_partial)},
        {"merge_ns_per_kb", field(&KernelModel::merge_ns_per_kb)},
        {"reduce_launch_ns", field(&KernelModel::reduce_launch_ns)},
        {"reduce_cta_ns", field(&KernelModel::reduce_cta_ns)},
        {"reduce_ns_per_kb", field(&KernelModel::reduce_ns_per_kb)}};
    bool present[KernelModel::path_count] = {}, row_blocks = false;
    for (const MeasuredRun& r : planned.runs) {
        if (const int path = kernel_path(r.problem); path >= 0) present[path] = true;
        row_blocks = row_blocks || r.problem.row_blocks() > 1;
    }
    // Fitted only where some run re-reads K and V for a later row block: otherwise nothing measures it.
    if (row_blocks) params.push_back({"reread_fraction", field(&KernelModel::reread_fraction), 1e-3, 1.0});
    // Fitted only from a start that has it (a kernel file that ages the L2), as the terms below.
    if (row_blocks && start.reread_lag_mb > 0.0) params.push_back({"reread_lag_mb", field(&KernelModel::reread_lag_mb), 1e-3, 1e5});
    // Fitted only from a start that has one (a kernel that overlaps its compute; fitted in logs, so never from 0).
    if (start.compute_drain_tokens > 0.0) params.push_back({"compute_drain_tokens", field(&KernelModel::compute_drain_tokens), 1e-3, 4096.0});
    // Likewise: fitted only from a start that has it, so that fits from older kernel files stay as they were.
    if (start.idle_sms_bandwidth_loss > 0.0) params.push_back({"idle_sms_bandwidth_loss", field(&KernelModel::idle_sms_bandwidth_loss), 1e-4, 0.9});
    for (int i = 0; i < KernelModel::path_count; ++i) {
        if (present[i]) params.push_back({std::string("cta_ns_per_kb_by_path.") + kernel_path_names[i], [i](KernelModel& k) { return &k.cta_ns_per_kb_by_path[i]; }});
    }
    return params;
}

namespace {

KernelModel with(const KernelModel& base, const std::vector<FitParameter>& params, const std::vector<double>& log_values) {
    KernelModel k = base;
    for (std::size_t j = 0; j < params.size(); ++j) *params[j].field(k) = std::exp(log_values[j]);
    return k;
}

// The fit's residuals: e = log(predicted / measured), made robust (Cauchy's loss, scale c = loss_scale): least
// squares on sign(e) · sqrt(ρ(e)) minimises Σ ρ(e), ρ(e) = c² · log(1 + (e/c)²), so that a few runs the model
// cannot explain (a shape with a cost of its own) pull the rest less than squares would. c = 0: plain squares.
std::vector<double> residuals(const PlannedRuns& planned, const KernelModel& k, double c) {
    const std::vector<double> predicted = predict_us(planned, k);
    std::vector<double> r(predicted.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        const double e = std::log(predicted[i] / planned.runs[i].measured_us);
        r[i] = c > 0.0 ? std::copysign(c * std::sqrt(std::log1p((e / c) * (e / c))), e) : e;
    }
    return r;
}

double sum_squares(const std::vector<double>& r) {
    double s = 0.0;
    for (double x : r) s += x * x;
    return s;
}

// Solves (A + λ·diag(A)) x = b in place (A symmetric positive semi-definite, small): Gaussian elimination
// with partial pivoting; a singular direction gets no step.
std::vector<double> solve_damped(std::vector<std::vector<double>> a, std::vector<double> b, double lambda) {
    const std::size_t m = b.size();
    for (std::size_t j = 0; j < m; ++j) a[j][j] += lambda * std::max(a[j][j], 1e-12);
    for (std::size_t c = 0; c < m; ++c) {
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < m; ++r) {
            if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
        }
        std::swap(a[c], a[pivot]);
        std::swap(b[c], b[pivot]);
        if (std::abs(a[c][c]) < 1e-300) continue;
        for (std::size_t r = c + 1; r < m; ++r) {
            const double f = a[r][c] / a[c][c];
            for (std::size_t k = c; k < m; ++k) a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    std::vector<double> x(m, 0.0);
    for (std::size_t c = m; c-- > 0;) {
        if (std::abs(a[c][c]) < 1e-300) continue;
        double s = b[c];
        for (std::size_t k = c + 1; k < m; ++k) s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return x;
}

}  // namespace

FitReport fit_kernel(const PlannedRuns& planned, const KernelModel& start, const std::vector<FitParameter>& params, int max_iterations,
                     const std::function<void(int, double)>& progress, double loss_scale) {
    if (!(loss_scale >= 0.0)) throw std::invalid_argument("fit_kernel: the loss scale must be >= 0");
    const auto residuals = [&](const PlannedRuns& runs, const KernelModel& k) { return sim::residuals(runs, k, loss_scale); };
    const std::size_t m = params.size(), n = planned.runs.size();
    std::vector<double> theta(m), lo(m), hi(m);
    KernelModel first = start;
    for (std::size_t j = 0; j < m; ++j) {
        lo[j] = std::log(params[j].lo), hi[j] = std::log(params[j].hi);
        double value = *params[j].field(first);
        if (value <= 0.0) value = params[j].name.rfind("cta_ns_per_kb_by_path.", 0) == 0 ? 10.0 : params[j].lo;
        theta[j] = std::clamp(std::log(value), lo[j], hi[j]);
    }
    // The report: the model and, beside the loss the fit lowers, the plain rms of the log errors (one more replay).
    const auto report = [&](KernelModel k, int iterations, double cost) {
        const double runs = static_cast<double>(std::max<std::size_t>(n, 1));
        const double plain = loss_scale > 0.0 ? std::sqrt(sum_squares(sim::residuals(planned, k, 0.0)) / runs) : std::sqrt(cost / runs);
        return FitReport{std::move(k), iterations, plain, std::sqrt(cost / runs)};
    };
    // No iteration: the start itself (the fit's own start nudges fields at 0 off it, as logs need).
    if (max_iterations == 0) return report(start, 0, sum_squares(residuals(planned, start)));
    std::vector<double> r = residuals(planned, with(start, params, theta));
    double cost = sum_squares(r), lambda = 1e-2;
    int iteration = 0;
    for (; iteration < max_iterations; ++iteration) {
        // Jacobian of the residuals by forward differences in log space (a 2% step: the simulator is
        // piecewise smooth, and smaller steps see its event order flip rather than its slope).
        std::vector<std::vector<double>> jac(m, std::vector<double>(n));
        for (std::size_t j = 0; j < m; ++j) {
            std::vector<double> t = theta;
            t[j] += 0.02;
            const std::vector<double> rj = residuals(planned, with(start, params, t));
            for (std::size_t i = 0; i < n; ++i) jac[j][i] = (rj[i] - r[i]) / 0.02;
        }
        std::vector<std::vector<double>> a(m, std::vector<double>(m, 0.0));
        std::vector<double> g(m, 0.0);
        for (std::size_t j = 0; j < m; ++j) {
            for (std::size_t k = 0; k <= j; ++k) {
                double s = 0.0;
                for (std::size_t i = 0; i < n; ++i) s += jac[j][i] * jac[k][i];
                a[j][k] = a[k][j] = s;
            }
            for (std::size_t i = 0; i < n; ++i) g[j] -= jac[j][i] * r[i];
        }
        bool improved = false;
        for (int attempt = 0; attempt < 16 && !improved; ++attempt) {  // λ up to 4^16: a step as small as gradient descent's
            const std::vector<double> step = solve_damped(a, g, lambda);
            std::vector<double> t = theta;
            for (std::size_t j = 0; j < m; ++j) t[j] = std::clamp(theta[j] + std::clamp(step[j], -2.0, 2.0), lo[j], hi[j]);
            const std::vector<double> rt = residuals(planned, with(start, params, t));
            const double ct = sum_squares(rt);
            if (ct < cost) {
                improved = true;
                const double gain = (cost - ct) / cost;
                theta = t, r = rt, cost = ct;
                lambda = std::max(lambda / 3.0, 1e-6);
                if (progress) progress(iteration + 1, std::sqrt(cost / static_cast<double>(n)));
                if (gain < 1e-4) return report(with(start, params, theta), iteration + 1, cost);
            } else {
                lambda *= 4.0;
            }
        }
        if (!improved) break;
    }
    return report(with(start, params, theta), iteration, cost);
}

std::size_t fastest_run(const std::vector<double>& predicted_us, const std::vector<MeasuredRun>& runs, std::size_t begin, std::size_t end) {
    const auto simplicity = [](Strategy s) { return s == Strategy::no_split ? 0 : s == Strategy::fixed_split ? 1 : 2; };
    // The fastest first, then the simplest of those within 0.1% of it (not a chain of ties: the order of the
    // runs must not matter).
    const double fastest = *std::min_element(predicted_us.begin() + static_cast<std::ptrdiff_t>(begin), predicted_us.begin() + static_cast<std::ptrdiff_t>(end));
    std::size_t best = end;
    for (std::size_t i = begin; i < end; ++i) {
        if (predicted_us[i] > fastest * (1.0 + 1e-3)) continue;
        if (best == end || simplicity(runs[i].strategy) < simplicity(runs[best].strategy)) best = i;
    }
    return best;
}

ErrorSummary summarize_errors(const std::vector<double>& predicted_us, const std::vector<MeasuredRun>& runs, const std::vector<bool>& include) {
    std::vector<double> abs_err, signed_err;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!include.empty() && !include[i]) continue;
        const double e = (predicted_us[i] - runs[i].measured_us) / runs[i].measured_us;
        abs_err.push_back(std::abs(e));
        signed_err.push_back(e);
    }
    ErrorSummary s;
    s.runs = abs_err.size();
    if (abs_err.empty()) return s;
    std::sort(abs_err.begin(), abs_err.end());
    std::sort(signed_err.begin(), signed_err.end());
    const auto at = [](const std::vector<double>& v, double q) { return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5))]; };
    s.median = at(abs_err, 0.5);
    s.p95 = at(abs_err, 0.95);
    s.worst = abs_err.back();
    s.median_signed = at(signed_err, 0.5);
    return s;
}

}  // namespace leanattn::sim
