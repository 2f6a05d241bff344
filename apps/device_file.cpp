#include "device_file.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "core/input_error.hpp"
#include "core/saturating.hpp"

namespace leanattn::app {

using nlohmann::json;

namespace {

// A file's errors name it as the `device` or `model` parameter (the command line says --device FILE).
struct Source {
    const char* parameter;
    const std::string& file;
    [[noreturn]] void refuse(const std::string& why) const { throw InputError({{parameter, file}}, why); }
};

// Parses one JSON document, refusing duplicate keys (which nlohmann would silently resolve to the last) and
// nesting deeper than any data file needs.
json parse_strict(const std::string& text, const Source& source) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) source.refuse("the file is empty");
    std::vector<std::set<std::string>> keys;  // one set per open object
    std::string duplicate;
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
        if (depth > 16) throw InputError({{source.parameter, source.file}}, "JSON nested deeper than 16 levels");
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
        if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
            duplicate = parsed.get<std::string>();
        }
        return true;
    };
    json j;
    try {
        j = json::parse(text, check);
    } catch (const json::exception& e) {
        source.refuse(std::string("malformed JSON: ") + e.what());
    }
    if (!duplicate.empty()) source.refuse("the key \"" + duplicate + "\" appears twice");
    if (!j.is_object()) source.refuse("expected one JSON object");
    return j;
}

const json& key(const json& j, const char* name, const Source& source) {
    if (!j.contains(name)) source.refuse(std::string("missing key \"") + name + "\"");
    return j.at(name);
}

std::string text_field(const json& j, const char* name, const Source& source) {
    const json& v = key(j, name, source);
    if (!v.is_string()) source.refuse(std::string("\"") + name + "\" must be a string");
    return v.get<std::string>();
}

std::int64_t positive_integer(const json& j, const char* name, const Source& source) {
    const json& v = key(j, name, source);
    // An unsigned value above 2^63 − 1 would wrap to a negative int64: out of range either way.
    const bool too_large = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
    if (!v.is_number_integer() || too_large || v.get<std::int64_t>() <= 0) source.refuse(std::string("\"") + name + "\" must be a positive integer");
    return v.get<std::int64_t>();
}

double finite_number(const json& j, const char* name, const Source& source) {
    const json& v = key(j, name, source);
    if (!v.is_number() || !std::isfinite(v.get<double>())) source.refuse(std::string("\"") + name + "\" must be a finite number");
    return v.get<double>();
}

std::string optional_text(const json& j, const char* name, const Source& source) {
    if (!j.contains(name)) return {};
    return text_field(j, name, source);
}

// The keys every data file starts with: a non-empty "name" and an optional "description".
void read_names(const json& j, const Source& source, std::string& name, std::string& description) {
    name = text_field(j, "name", source);
    if (name.empty()) source.refuse("\"name\" must not be empty");
    description = optional_text(j, "description", source);
}

}  // namespace

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
    m.hidden_size = j.contains("hidden_size") ? positive_integer(j, "hidden_size", source) : saturating::mul(m.q_heads, m.head_dim);
    m.layers = j.contains("layers") ? positive_integer(j, "layers", source) : 0;
    return m;
}

}  // namespace leanattn::app
