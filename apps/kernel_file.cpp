#include "kernel_file.hpp"

#include <algorithm>
#include <iterator>

#include "core/input_error.hpp"
#include "data_file_json.hpp"

namespace leanattn::app {

using namespace data_file;
using sim::KernelModel;

namespace {

// The numeric fields, by their file key: one table for reading and writing, so the two cannot drift apart.
struct NumberField {
    const char* key;
    double KernelModel::*member;
};
constexpr NumberField number_fields[] = {
    {"bytes_in_flight_per_sm", &KernelModel::bytes_in_flight_per_sm},
    {"stream_latency_ns", &KernelModel::stream_latency_ns},
    {"latency_knee_exponent", &KernelModel::latency_knee_exponent},
    {"bandwidth_over_copy", &KernelModel::bandwidth_over_copy},
    {"sm_latency_spread", &KernelModel::sm_latency_spread},
    {"compute_ns_per_kscore", &KernelModel::compute_ns_per_kscore},
    {"compute_ns_per_mmac", &KernelModel::compute_ns_per_mmac},
    {"compute_overlap_loss", &KernelModel::compute_overlap_loss},
    {"tile_compute_ns", &KernelModel::tile_compute_ns},
    {"launch_ns", &KernelModel::launch_ns},
    {"cta_setup_ns", &KernelModel::cta_setup_ns},
    {"plan_wait_ns", &KernelModel::plan_wait_ns},
    {"stream_k_walk_ns", &KernelModel::stream_k_walk_ns},
    {"segment_ns", &KernelModel::segment_ns},
    {"pipeline_fills_per_segment", &KernelModel::pipeline_fills_per_segment},
    {"partial_store_ns", &KernelModel::partial_store_ns},
    {"partial_store_ns_per_kb", &KernelModel::partial_store_ns_per_kb},
    {"output_store_ns", &KernelModel::output_store_ns},
    {"merge_ns", &KernelModel::merge_ns},
    {"merge_ns_per_partial", &KernelModel::merge_ns_per_partial},
    {"merge_ns_per_kb", &KernelModel::merge_ns_per_kb},
    {"reduce_launch_ns", &KernelModel::reduce_launch_ns},
    {"reduce_cta_ns", &KernelModel::reduce_cta_ns},
    {"reduce_ns_per_kb", &KernelModel::reduce_ns_per_kb},
};

}  // namespace

KernelModel kernel_from_text(const std::string& text, const std::string& file) {
    const Source source{"kernel", file};
    const json j = parse_strict(text, source);
    KernelModel k;
    read_names(j, source, k.name, k.description);
    optional_text(j, "fitted", source);
    const json& ctas = key(j, "ctas_per_sm", source);
    if (!ctas.is_number_integer() || ctas.get<std::int64_t>() < 0) source.refuse("\"ctas_per_sm\" must be an integer >= 0 (0: the device's)");
    k.ctas_per_sm = ctas.get<std::int64_t>();
    k.tensor_core_rows_min = positive_integer(j, "tensor_core_rows_min", source);
    for (const NumberField& f : number_fields) k.*f.member = finite_number(j, f.key, source);
    // Optional: files fitted before row blocks have no re-reads to describe, and those before kernel v20 one reduce CTA per output.
    if (has(j, "reread_fraction", source)) k.reread_fraction = finite_number(j, "reread_fraction", source);
    // Optional: files fitted before it (2026-11-27) do not age the L2.
    if (has(j, "reread_lag_mb", source)) k.reread_lag_mb = finite_number(j, "reread_lag_mb", source);
    // Optional: files fitted before the drain term (2026-11-26) have none.
    if (has(j, "compute_drain_tokens", source)) k.compute_drain_tokens = finite_number(j, "compute_drain_tokens", source);
    // Optional: files fitted before the idle SMs' bandwidth term (2026-11-26) have none.
    if (has(j, "idle_sms_bandwidth_loss", source)) k.idle_sms_bandwidth_loss = finite_number(j, "idle_sms_bandwidth_loss", source);
    // Optional: files fitted before it (2026-11-27) read narrow plans with every SM's bytes in flight.
    if (has(j, "narrow_in_flight_fraction", source)) k.narrow_in_flight_fraction = finite_number(j, "narrow_in_flight_fraction", source);
    if (has(j, "reduce_values_per_cta", source)) {
        const json& per_cta = j["reduce_values_per_cta"];
        if (!per_cta.is_number_integer() || per_cta.get<std::int64_t>() < 0) source.refuse("\"reduce_values_per_cta\" must be an integer >= 0 (0: one reduce CTA per output)");
        k.reduce_values_per_cta = per_cta.get<std::int64_t>();
    }
    k.compute_overlaps_loads = boolean(j, "compute_overlaps_loads", source);
    const json& by_path = key(j, "cta_ns_per_kb_by_path", source);
    if (!by_path.is_object()) source.refuse("\"cta_ns_per_kb_by_path\" must be an object (path: ns per KiB)");
    for (const auto& item : by_path.items()) {
        const std::string& path = item.key();  // not a structured binding: clang before 16 cannot capture one in a lambda
        if (std::find_if(std::begin(sim::kernel_path_names), std::end(sim::kernel_path_names), [&](const char* n) { return path == n; }) == std::end(sim::kernel_path_names)) {
            source.refuse("\"cta_ns_per_kb_by_path\" has no path \"" + path + "\" (paths: d64, d64_1row, d96, d128, d128_1row, d256, d256_1row)");
        }
    }
    for (int i = 0; i < KernelModel::path_count; ++i) {
        if (by_path.contains(sim::kernel_path_names[i])) k.cta_ns_per_kb_by_path[i] = finite_number(by_path, sim::kernel_path_names[i], source);
    }
    const std::string merge = text_field(j, "merge", source);
    if (merge == "serial") k.merge = sim::MergeOrder::serial;
    else if (merge == "all_at_once") k.merge = sim::MergeOrder::all_at_once;
    else if (merge == "shared") k.merge = sim::MergeOrder::shared;
    else source.refuse("\"merge\" must be \"serial\", \"all_at_once\" or \"shared\"");
    refuse_unknown_keys(j, source);
    try {
        sim::check_kernel_model(k);
    } catch (const InputError& e) {
        const NamedValue bad = e.parameters().size() > 1 ? e.parameters()[1] : NamedValue{"?", ""};
        source.refuse("\"" + bad.parameter + "\" " + bad.value + ": " + e.reason());
    }
    return k;
}

nlohmann::ordered_json kernel_to_json(const KernelModel& k, const std::string& fitted) {
    nlohmann::ordered_json j;
    j["name"] = k.name;
    j["description"] = k.description;
    if (!fitted.empty()) j["fitted"] = fitted;
    j["ctas_per_sm"] = k.ctas_per_sm;
    j["merge"] = k.merge == sim::MergeOrder::serial ? "serial" : k.merge == sim::MergeOrder::shared ? "shared" : "all_at_once";
    j["compute_overlaps_loads"] = k.compute_overlaps_loads;
    j["tensor_core_rows_min"] = k.tensor_core_rows_min;
    for (const NumberField& f : number_fields) j[f.key] = k.*f.member;
    j["reread_fraction"] = k.reread_fraction;
    j["reread_lag_mb"] = k.reread_lag_mb;
    j["compute_drain_tokens"] = k.compute_drain_tokens;
    j["idle_sms_bandwidth_loss"] = k.idle_sms_bandwidth_loss;
    j["narrow_in_flight_fraction"] = k.narrow_in_flight_fraction;
    j["reduce_values_per_cta"] = k.reduce_values_per_cta;
    nlohmann::ordered_json by_path = nlohmann::ordered_json::object();
    for (int i = 0; i < KernelModel::path_count; ++i) by_path[sim::kernel_path_names[i]] = k.cta_ns_per_kb_by_path[i];
    j["cta_ns_per_kb_by_path"] = by_path;
    return j;
}

}  // namespace leanattn::app
