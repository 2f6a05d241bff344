#include "measured_runs.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>

#include "core/dtype.hpp"
#include "core/input_error.hpp"
#include "core/strategy.hpp"
#include "input_file.hpp"
#include "problem_json.hpp"

namespace leanattn::app {

namespace {

using json = nlohmann::json;

struct Line {
    std::string flags;
    Problem problem;
    std::int64_t bytes_per_element = 2;
    struct Result {
        Strategy strategy;
        std::int64_t grid;
        double median_us;
        std::int64_t splits;  // 0: not recorded
        std::int64_t snap;    // −1: not recorded
        bool narrow_streams;  // not recorded: false (kernels before v31)
    };
    std::vector<Result> results;
    double copy_gbps = 0.0;
    std::string gpu;
    std::int64_t gpu_slots = 0;  // "gpu": its SMs × CTAs per SM (0: not recorded)
};

Line parse_line(const json& j) {
    Line l;
    l.problem = problem_from_json(j.at("problem"));
    // The label that tells problems apart in a report (calibration_report.cpp groups a problem's runs by it): the
    // record's flags, or, where a record has none, its problem itself.
    l.flags = printable(j.contains("flags") ? j.at("flags").get<std::string>() : j.at("problem").dump(), "flags");
    const std::string dtype = j.at("dtype").get<std::string>();
    const std::optional<DType> parsed = parse_dtype(dtype);
    if (!parsed) throw InputError("dtype " + dtype, "expected fp16, bf16 or fp32");
    l.bytes_per_element = dtype_bytes(*parsed);
    l.copy_gbps = j.value("copy_gbps", 0.0);
    l.gpu = printable(j.value("device", ""), "device");
    if (j.contains("gpu")) {  // the occupancy the kernel had: what the replay's waves are checked against
        const json& g = j.at("gpu");
        const std::int64_t sms = whole_number(g, "sms"), per_sm = whole_number(g, "ctas_per_sm");
        if (sms < 1 || sms > (std::int64_t{1} << 20)) throw InputError("gpu sms " + std::to_string(sms), "must be 1 to 2^20");
        if (per_sm < 1 || per_sm > 1024) throw InputError("gpu ctas_per_sm " + std::to_string(per_sm), "must be 1 to 1024");
        l.gpu_slots = sms * per_sm;
    }
    for (const json& r : j.at("results")) {
        const auto strategy = parse_strategy(r.at("strategy").get<std::string>());
        if (!strategy) throw InputError("strategy " + r.at("strategy").get<std::string>(), "unknown");
        const std::int64_t grid = whole_number(r, "grid"), splits = whole_number(r, "splits", 0), snap = whole_number(r, "snap", -1);
        if (grid < 1) throw InputError("grid " + std::to_string(grid), "must be at least 1 CTA");
        if (splits < 0) throw InputError("splits " + std::to_string(splits), "must be 0 (not recorded) or more");
        if (snap < -1) throw InputError("snap " + std::to_string(snap), "must be -1 (not recorded) or more");
        const double us = r.at("median_us").get<double>();
        // A launch alone takes microseconds: a time below a nanosecond, or above a thousand seconds, is not a measurement.
        if (!(us >= 1e-3 && us <= 1e9)) throw InputError("median_us " + json(us).dump(), "must be a time of 0.001 us to 1e9 us");
        l.results.push_back({*strategy, grid, us, splits, snap, r.value("narrow_streams", false)});
    }
    if (l.results.empty()) throw InputError("results", "holds no run");
    return l;
}

std::vector<Line> read_round(const std::string& file, std::size_t& refused, const std::string& parameter) {
    const std::unique_ptr<std::istream> in = open_input_file(file, parameter);
    std::vector<Line> lines;
    std::size_t number = 0;
    for (std::string text; std::getline(*in, text);) {
        ++number;
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (text.size() > max_json_line_bytes) {
            throw InputError({{parameter, file + ":" + std::to_string(number)}},
                             "holds more than " + std::to_string(max_json_line_bytes >> 20) + " MiB on one line: not a `cuda bench --shapes` record");
        }
        try {
            const json j = json::parse(text);
            if (j.contains("error")) {
                ++refused;
                continue;
            }
            lines.push_back(parse_line(j));
        } catch (const json::exception& e) {
            throw InputError({{parameter, file + ":" + std::to_string(number)}}, std::string("not a `cuda bench --shapes` record: ") + e.what());
        } catch (const InputError& e) {
            throw InputError({{parameter, file + ":" + std::to_string(number)}}, e.what());
        }
    }
    if (lines.empty()) throw InputError({{parameter, file}}, "holds no measured problem");
    return lines;
}

}  // namespace

MeasuredSweep read_measured(const std::vector<std::string>& round_files, const std::string& parameter) {
    MeasuredSweep sweep;
    std::vector<std::vector<Line>> rounds;
    for (const std::string& f : round_files) {
        std::size_t refused = 0;
        rounds.push_back(read_round(f, refused, parameter));
        if (rounds.size() == 1) sweep.refused = refused;
        if (rounds.back().size() != rounds.front().size()) {
            throw InputError({{parameter, f}}, "holds " + std::to_string(rounds.back().size()) + " problems where " + round_files.front() + " holds " +
                                                    std::to_string(rounds.front().size()) + ": rounds of one sweep must match line by line");
        }
    }
    const std::vector<Line>& first = rounds.front();
    std::vector<double> copies;
    for (std::size_t i = 0; i < first.size(); ++i) {
        if (first[i].copy_gbps > 0.0) copies.push_back(first[i].copy_gbps);
        for (std::size_t s = 0; s < first[i].results.size(); ++s) {
            std::vector<double> times;
            for (std::size_t r = 0; r < rounds.size(); ++r) {
                const Line& l = rounds[r][i];
                if (l.flags != first[i].flags || l.results.size() != first[i].results.size() || l.results[s].strategy != first[i].results[s].strategy) {
                    throw InputError({{parameter, round_files[r]}}, "line " + std::to_string(i + 1) + " is not the same problem and strategies as in " + round_files.front());
                }
                times.push_back(l.results[s].median_us);
            }
            double mean = 0.0, spread = 0.0;
            for (double t : times) mean += t / static_cast<double>(times.size());
            for (double t : times) spread = std::max(spread, std::abs(t - mean) / mean);
            const Line::Result& r = first[i].results[s];
            sweep.runs.push_back(
                {first[i].flags, first[i].problem, first[i].bytes_per_element, r.strategy, r.grid, mean, spread, r.splits, r.snap, r.narrow_streams, first[i].gpu_slots,
                 static_cast<std::int64_t>(i)});
        }
    }
    sweep.problems = first.size();
    sweep.gpu = first.front().gpu;
    if (!copies.empty()) {
        std::nth_element(copies.begin(), copies.begin() + static_cast<std::ptrdiff_t>(copies.size() / 2), copies.end());
        sweep.copy_gbps = copies[copies.size() / 2];
    }
    return sweep;
}

}  // namespace leanattn::app
