#include "data_catalog.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <dlfcn.h>

#include "core/input_error.hpp"

#ifndef LEANATTN_SOURCE_DATA_DIR
#define LEANATTN_SOURCE_DATA_DIR ""
#endif

namespace leanattn::app {

namespace fs = std::filesystem;

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

// The text of a data file, refused (naming it as `parameter`) unless it is a regular file that can be read
// and holds at most max_data_file_bytes: a folder, a FIFO or /dev/zero would otherwise fail late or never.
std::string read_data_file(const fs::path& file, const char* parameter) {
    const auto refuse = [&](const std::string& why) { return InputError({{parameter, file.string()}}, why); };
    std::error_code ec;
    const fs::file_status status = fs::status(file, ec);
    if (ec || !fs::exists(status)) throw refuse("no such file");
    if (fs::is_directory(status)) throw refuse("is a folder, not a .json file");
    if (!fs::is_regular_file(status)) throw refuse("is not a regular file");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw refuse("cannot read the file");
    // In pieces, up to one byte past the limit: a data file is a few KB, and a buffer of the limit's size, zeroed, cost
    // more than parsing the file (a device and a kernel file read for every plan the library makes with auto).
    std::string text;
    char piece[16384];
    while (in && static_cast<std::int64_t>(text.size()) <= max_data_file_bytes) {
        in.read(piece, sizeof piece);
        text.append(piece, static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw refuse("reading the file failed");
    if (static_cast<std::int64_t>(text.size()) > max_data_file_bytes) {
        throw refuse("larger than " + std::to_string(max_data_file_bytes) + " bytes: not a device or model file");
    }
    return text;
}

DeviceSpec device_from_file(const fs::path& file) { return device_from_text(read_data_file(file, "device"), file.string()); }

ModelShape model_from_file(const fs::path& file) { return model_from_text(read_data_file(file, "model"), file.string()); }

sim::KernelModel kernel_from_file(const fs::path& file) { return kernel_from_text(read_data_file(file, "kernel"), file.string()); }

// A data folder holds a few dozen files; far more means a wrong LEANATTN_DATA.
constexpr std::size_t max_listed_files = 10000;

std::vector<fs::path> json_files(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path());
        if (files.size() > max_listed_files) throw InputError(dir.string(), "holds more than 10000 .json files: is LEANATTN_DATA right?");
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
    if (const char* env = std::getenv("LEANATTN_DATA"); env && *env) {
        std::error_code ec;
        if (!fs::is_directory(fs::path(env) / "devices", ec)) throw InputError("LEANATTN_DATA=" + std::string(env), "not a folder holding devices/ and models/");
        return fs::path(env);
    }
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
    if (!fs::exists(file)) throw InputError({{"device", name_or_file}}, "unknown device; known: " + joined(names_in(dir)) + ", or a path to a .json file");
    return device_from_file(file);
}

sim::KernelModel load_kernel(const std::string& name_or_file, const DeviceSpec& device) {
    if (name_or_file == "paper") return sim::paper_kernel(device);
    if (is_file_reference(name_or_file)) return kernel_from_file(name_or_file);
    const fs::path dir = data_dir() / "kernels";
    const fs::path file = dir / (name_or_file + ".json");
    if (!fs::exists(file)) throw InputError({{"kernel", name_or_file}}, "unknown kernel; known: paper, " + joined(names_in(dir)) + ", or a path to a .json file");
    return kernel_from_file(file);
}

namespace {

template <typename T, typename Read>
std::vector<T> list_readable(const fs::path& dir, Read read, std::vector<std::string>& refused) {
    std::vector<T> out;
    for (const fs::path& f : json_files(dir)) {
        try {
            out.push_back(read(f));
        } catch (const InputError& e) {
            refused.push_back(f.string() + " (" + e.reason() + ")");  // named as a file: no flag was given
        }
    }
    return out;
}

}  // namespace

std::string device_for_gpu(const std::string& cuda_name) {
    // Reading every device file costs ~0.25 ms, more than making most plans: each (data folder, GPU) is looked up once
    // per process.
    static std::mutex mutex;
    static std::map<std::pair<std::string, std::string>, std::string> found;
    const fs::path dir = data_dir() / "devices";
    const std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(dir.string(), cuda_name);
    if (const auto it = found.find(key); it != found.end()) return it->second;
    std::string best;
    std::size_t longest = 0;
    for (const fs::path& f : json_files(dir)) {
        DeviceSpec d;
        try {
            d = device_from_file(f);
        } catch (const InputError&) {
            continue;
        }
        for (const std::string& piece : d.cuda_names) {
            if (piece.size() > longest && cuda_name.find(piece) != std::string::npos) best = f.stem().string(), longest = piece.size();
        }
    }
    found.emplace(key, best);
    return best;
}

std::string default_device_for_gpu(const std::string& cuda_name) {
    const std::string described = device_for_gpu(cuda_name);
    return described.empty() ? "h100-sxm" : described;
}

std::vector<DeviceSpec> list_devices(std::vector<std::string>& refused) {
    return list_readable<DeviceSpec>(data_dir() / "devices", device_from_file, refused);
}

ModelShape load_model(const std::string& name_or_file) {
    if (is_file_reference(name_or_file)) return model_from_file(name_or_file);
    const fs::path dir = data_dir() / "models";
    const fs::path file = dir / (name_or_file + ".json");
    if (!fs::exists(file)) throw InputError({{"model", name_or_file}}, "unknown model; known: " + joined(names_in(dir)) + ", or a path to a .json file");
    return model_from_file(file);
}

std::vector<ModelShape> list_models(std::vector<std::string>& refused) {
    return list_readable<ModelShape>(data_dir() / "models", model_from_file, refused);
}

}  // namespace leanattn::app
