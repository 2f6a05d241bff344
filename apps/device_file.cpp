#include "device_file.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "core/input_error.hpp"
#include "core/saturating.hpp"
#include "data_file_json.hpp"

namespace leanattn::app {

using nlohmann::json;
using namespace data_file;

DeviceSpec device_from_text(const std::string& text, const std::string& file) {
    const Source source{"device", file};
    const json j = parse_strict(text, source);
    DeviceSpec d;
    read_names(j, source, d.name, d.description);
    d.sms = positive_integer(j, "sms", source);
    d.ctas_per_sm = positive_integer(j, "ctas_per_sm", source);
    // Timing keys: the simulator's model (core/device_spec.hpp); units and sources in data/devices/README.md.
    DeviceTiming& t = d.timing;
    t.hbm_bandwidth_gb_per_s = finite_number(j, "hbm_bandwidth_gb_per_s", source);
    t.hbm_partitions = positive_integer(j, "hbm_partitions", source);
    t.mem_latency_ns = finite_number(j, "mem_latency_ns", source);
    t.bytes_in_flight_per_sm = finite_number(j, "bytes_in_flight_per_sm", source);
    t.latency_knee_exponent = finite_number(j, "latency_knee_exponent", source);
    t.tile_compute_ns = finite_number(j, "tile_compute_ns", source);
    t.cta_startup_ns = finite_number(j, "cta_startup_ns", source);
    t.partial_store_ns = finite_number(j, "partial_store_ns", source);
    t.output_store_ns = finite_number(j, "output_store_ns", source);
    t.flag_wait_ns = finite_number(j, "flag_wait_ns", source);
    t.reduce_per_partial_ns = finite_number(j, "reduce_per_partial_ns", source);
    t.launch_overhead_ns = finite_number(j, "launch_overhead_ns", source);
    // Optional, 1 where absent (data/devices/README.md): a GPU whose L2 sharing nobody measured reads every block in full.
    t.row_block_reread = has(j, "row_block_reread", source) ? finite_number(j, "row_block_reread", source) : 1.0;
    if (has(j, "copy_bandwidth_gb_per_s", source)) d.copy_bandwidth_gb_per_s = finite_number(j, "copy_bandwidth_gb_per_s", source);
    d.kernel_model = optional_text(j, "kernel", source);
    d.kernel_model_host_lengths = optional_text(j, "kernel_host_lengths", source);
    d.cuda_names = optional_text_list(j, "cuda_names", source);
    refuse_unknown_keys(j, source);
    try {
        check_device(d);  // the ranges every device must keep, named by the file's keys
    } catch (const InputError& e) {
        const NamedValue bad = e.parameters().empty() ? NamedValue{"?", ""} : e.parameters().front();
        source.refuse("\"" + bad.parameter + "\" " + bad.value + ": " + e.reason());
    }
    return d;
}

ModelShape model_from_text(const std::string& text, const std::string& file) {
    const Source source{"model", file};
    const json j = parse_strict(text, source);
    ModelShape m;
    read_names(j, source, m.name, m.description);
    m.q_heads = positive_integer(j, "q_heads", source);
    m.kv_heads = positive_integer(j, "kv_heads", source);
    m.head_dim = positive_integer(j, "head_dim", source);
    if (m.q_heads % m.kv_heads != 0) {
        source.refuse("\"q_heads\" " + std::to_string(m.q_heads) + " is not a multiple of \"kv_heads\" " + std::to_string(m.kv_heads));
    }
    m.hidden_size = has(j, "hidden_size", source) ? positive_integer(j, "hidden_size", source) : saturating::mul(m.q_heads, m.head_dim);
    m.layers = has(j, "layers", source) ? positive_integer(j, "layers", source) : 0;
    refuse_unknown_keys(j, source);
    return m;
}

}  // namespace leanattn::app
