#include "data_catalog.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <dlfcn.h>

#include "core/input_error.hpp"

#ifndef LEANATTN_SOURCE_DATA_DIR
#define LEANATTN_SOURCE_DATA_DIR ""
#endif

namespace leanattn::app {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The folder of the file this code was linked into: the `leanattn` executable, or libleanattn.so when the
// C ABI (and through it Python) reads devices and models.
fs::path binary_dir() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&binary_dir), &info) == 0 || info.dli_fname == nullptr) return {};
    std::error_code ec;
    const fs::path file = fs::canonical(info.dli_fname, ec);
    return ec ? fs::path() : file.parent_path();
}

bool is_file_reference(const std::string& s) {
    return s.find('/') != std::string::npos || (s.size() > 5 && s.substr(s.size() - 5) == ".json");
}

json read_json(const fs::path& file, const std::string& flag) {
    std::ifstream in(file);
    if (!in) throw InputError(flag + " " + file.string(), "cannot read the file");
    try {
        return json::parse(in);
    } catch (const json::exception& e) {
        throw InputError(flag + " " + file.string(), std::string("malformed JSON: ") + e.what());
    }
}

template <typename T>
T field(const json& j, const char* key, const fs::path& file, const std::string& flag) {
    if (!j.is_object() || !j.contains(key)) throw InputError(flag + " " + file.string(), std::string("missing key \"") + key + "\"");
    const json& v = j.at(key);
    if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) throw InputError(flag + " " + file.string(), std::string("\"") + key + "\" must be a string");
        return v.get<std::string>();
    } else if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) {
            throw InputError(flag + " " + file.string(), std::string("\"") + key + "\" must be a positive integer");
        }
        return v.get<T>();
    } else {
        if (!v.is_number() || !(v.get<double>() >= 0.0)) {
            throw InputError(flag + " " + file.string(), std::string("\"") + key + "\" must be a non-negative number");
        }
        return v.get<T>();
    }
}

std::string optional_string(const json& j, const char* key) {
    return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

DeviceSpec device_from_file(const fs::path& file) {
    const std::string flag = "--device";
    const json j = read_json(file, flag);
    if (!j.is_object()) throw InputError(flag + " " + file.string(), "a device file holds one JSON object");
    DeviceSpec d;
    d.name = field<std::string>(j, "name", file, flag);
    d.description = optional_string(j, "description");
    d.sms = field<std::int64_t>(j, "sms", file, flag);
    d.ctas_per_sm = field<std::int64_t>(j, "ctas_per_sm", file, flag);
    // Timing keys: the simulator's model (core/device_spec.hpp); units and sources in data/devices/README.md.
    DeviceTiming& t = d.timing;
    t.hbm_bandwidth_gb_per_s = field<double>(j, "hbm_bandwidth_gb_per_s", file, flag);
    t.hbm_partitions = field<std::int64_t>(j, "hbm_partitions", file, flag);
    t.mem_latency_ns = field<double>(j, "mem_latency_ns", file, flag);
    t.bytes_in_flight_per_sm = field<double>(j, "bytes_in_flight_per_sm", file, flag);
    t.latency_knee_exponent = field<double>(j, "latency_knee_exponent", file, flag);
    t.tile_compute_ns = field<double>(j, "tile_compute_ns", file, flag);
    t.cta_startup_ns = field<double>(j, "cta_startup_ns", file, flag);
    t.partial_store_ns = field<double>(j, "partial_store_ns", file, flag);
    t.output_store_ns = field<double>(j, "output_store_ns", file, flag);
    t.flag_wait_ns = field<double>(j, "flag_wait_ns", file, flag);
    t.reduce_per_partial_ns = field<double>(j, "reduce_per_partial_ns", file, flag);
    t.launch_overhead_ns = field<double>(j, "launch_overhead_ns", file, flag);
    if (t.hbm_bandwidth_gb_per_s <= 0.0 || t.mem_latency_ns <= 0.0 || t.bytes_in_flight_per_sm <= 0.0) {
        throw InputError(flag + " " + file.string(), "bandwidth, latency and bytes in flight must be positive");
    }
    if (!(t.latency_knee_exponent >= 1.0 && t.latency_knee_exponent <= 64.0)) {
        throw InputError(flag + " " + file.string(), "\"latency_knee_exponent\" must lie in [1, 64]");
    }
    if (t.hbm_partitions > d.sms) throw InputError(flag + " " + file.string(), "\"hbm_partitions\" exceeds the SM count");
    return d;
}

ModelShape model_from_file(const fs::path& file) {
    const std::string flag = "--model";
    const json j = read_json(file, flag);
    if (!j.is_object()) throw InputError(flag + " " + file.string(), "a model file holds one JSON object");
    ModelShape m;
    m.name = field<std::string>(j, "name", file, flag);
    m.description = optional_string(j, "description");
    m.q_heads = field<std::int64_t>(j, "q_heads", file, flag);
    m.kv_heads = field<std::int64_t>(j, "kv_heads", file, flag);
    m.head_dim = field<std::int64_t>(j, "head_dim", file, flag);
    m.hidden_size = j.contains("hidden_size") ? field<std::int64_t>(j, "hidden_size", file, flag) : m.q_heads * m.head_dim;
    m.layers = j.contains("layers") ? field<std::int64_t>(j, "layers", file, flag) : 0;
    return m;
}

std::vector<fs::path> json_files(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const fs::path& f : json_files(dir)) names.push_back(f.stem().string());
    return names;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

fs::path data_dir() {
    if (const char* env = std::getenv("LEANATTN_DATA"); env && *env) return fs::path(env);
    const fs::path bin = binary_dir();
    for (const fs::path& candidate :
         {bin / ".." / "share" / "leanattn" / "data", bin / ".." / "data", bin / ".." / ".." / "data", fs::path(LEANATTN_SOURCE_DATA_DIR)}) {
        std::error_code ec;
        if (!candidate.empty() && fs::is_directory(candidate / "devices", ec)) return candidate;
    }
    throw InputError("data/", "cannot find the data folder; set LEANATTN_DATA to the repository's data/ folder");
}

DeviceSpec load_device(const std::string& name_or_file) {
    if (is_file_reference(name_or_file)) return device_from_file(name_or_file);
    const fs::path dir = data_dir() / "devices";
    const fs::path file = dir / (name_or_file + ".json");
    if (!fs::exists(file)) throw InputError("--device " + name_or_file, "unknown device; known: " + joined(names_in(dir)) + ", or a path to a .json file");
    return device_from_file(file);
}

std::vector<DeviceSpec> list_devices() {
    std::vector<DeviceSpec> out;
    for (const fs::path& f : json_files(data_dir() / "devices")) out.push_back(device_from_file(f));
    return out;
}

ModelShape load_model(const std::string& name_or_file) {
    if (is_file_reference(name_or_file)) return model_from_file(name_or_file);
    const fs::path dir = data_dir() / "models";
    const fs::path file = dir / (name_or_file + ".json");
    if (!fs::exists(file)) throw InputError("--model " + name_or_file, "unknown model; known: " + joined(names_in(dir)) + ", or a path to a .json file");
    return model_from_file(file);
}

std::vector<ModelShape> list_models() {
    std::vector<ModelShape> out;
    for (const fs::path& f : json_files(data_dir() / "models")) out.push_back(model_from_file(f));
    return out;
}

}  // namespace leanattn::app
