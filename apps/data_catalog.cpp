#include "data_catalog.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/input_error.hpp"
#include "input_file.hpp"

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
    struct stat status {};
    if (::stat(file.c_str(), &status) != 0) throw refuse("no such file");
    if (S_ISDIR(status.st_mode)) throw refuse("is a folder, not a .json file");
    if (!S_ISREG(status.st_mode)) throw refuse("is not a regular file");
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO swapped in since: no wait
    if (fd < 0) throw refuse("cannot read the file");
    // Read in pieces, up to one past the limit: a data file is a few KB (a buffer of the limit's size, zeroed, cost more
    // than parsing the file), and with the POSIX calls, not a stream, since this runs for every plan the library makes.
    std::string text;
    const bool read = read_descriptor(fd, text, static_cast<std::size_t>(max_data_file_bytes));
    ::close(fd);
    if (!read) throw refuse("reading the file failed");
    if (static_cast<std::int64_t>(text.size()) > max_data_file_bytes) {
        throw refuse("larger than " + std::to_string(max_data_file_bytes) + " bytes: not a device or model file");
    }
    return text;
}

// A data file parsed once per process while its text stays the same: parsing a device and a kernel file took ~50 us, as
// long as weighing a problem's plans, and every plan the library makes with auto or for a GPU reads both. The text is
// read every time (a few us) and compared, so an edited file is parsed again however quickly it was rewritten. A file
// that fails to parse is refused again on the next call.
template <typename T, typename Parse>
T parsed_file(const fs::path& file, const char* parameter, Parse parse) {
    struct Entry {
        std::string text;
        T parsed;
    };
    static std::mutex mutex;
    static std::map<std::string, Entry> parsed;
    const std::string key = file.string();
    std::string text = read_data_file(file, parameter);  // refuses what is not a regular, readable, small file
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = parsed.find(key); it != parsed.end() && it->second.text == text) return it->second.parsed;
    }
    T value = parse(text, key);
    const std::lock_guard<std::mutex> lock(mutex);
    parsed.insert_or_assign(key, Entry{std::move(text), value});
    return value;
}

DeviceSpec device_from_file(const fs::path& file) { return parsed_file<DeviceSpec>(file, "device", device_from_text); }

ModelShape model_from_file(const fs::path& file) { return parsed_file<ModelShape>(file, "model", model_from_text); }

sim::KernelModel kernel_from_file(const fs::path& file) { return parsed_file<sim::KernelModel>(file, "kernel", kernel_from_text); }

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
    // Looked for once found: the binary does not move, and each look costs a stat per place tried.
    static std::mutex mutex;
    static fs::path found;
    const std::lock_guard<std::mutex> lock(mutex);
    if (!found.empty()) return found;
    // Beside the binary (the Python wheel: site-packages/leanattn/libleanattn.so, leanattn/data), installed (P/bin or
    // P/lib, P/share/leanattn/data), a build folder in the sources (build/apps, data), then the sources it was built from.
    const fs::path bin = binary_dir();
    for (const fs::path& candidate : {bin / "data", bin / ".." / "share" / "leanattn" / "data", bin / ".." / "data", bin / ".." / ".." / "data",
                                      fs::path(LEANATTN_SOURCE_DATA_DIR)}) {
        std::error_code ec;
        if (!candidate.empty() && fs::is_directory(candidate / "devices", ec)) return found = candidate;
    }
    throw InputError("data/", "cannot find the data folder; set LEANATTN_DATA to the repository's data/ folder");
}

// Whether `name`'s file is in the catalogue folder `dir`, as `parameter`: a name the file system cannot look up (too long,
// a loop of links) is refused as such, not thrown as an internal error.
bool in_catalogue(const fs::path& file, const std::string& name, const char* parameter) {
    std::error_code ec;
    const bool there = fs::exists(file, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) throw InputError({{parameter, name}}, "cannot be looked up in " + file.parent_path().string() + " (" + ec.message() + ")");
    return there;
}

DeviceSpec load_device(const std::string& name_or_file) {
    if (is_file_reference(name_or_file)) return device_from_file(name_or_file);
    const fs::path dir = data_dir() / "devices";
    const fs::path file = dir / (name_or_file + ".json");
    if (!in_catalogue(file, name_or_file, "device")) throw InputError({{"device", name_or_file}}, "unknown device; known: " + joined(names_in(dir)) + ", or a path to a .json file");
    return device_from_file(file);
}

sim::KernelModel load_kernel(const std::string& name_or_file, const DeviceSpec& device) {
    if (name_or_file == "paper") return sim::paper_kernel(device);
    if (is_file_reference(name_or_file)) return kernel_from_file(name_or_file);
    const fs::path dir = data_dir() / "kernels";
    const fs::path file = dir / (name_or_file + ".json");
    if (!in_catalogue(file, name_or_file, "kernel")) throw InputError({{"kernel", name_or_file}}, "unknown kernel; known: paper, " + joined(names_in(dir)) + ", or a path to a .json file");
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
    if (!in_catalogue(file, name_or_file, "model")) throw InputError({{"model", name_or_file}}, "unknown model; known: " + joined(names_in(dir)) + ", or a path to a .json file");
    return model_from_file(file);
}

std::vector<ModelShape> list_models(std::vector<std::string>& refused) {
    return list_readable<ModelShape>(data_dir() / "models", model_from_file, refused);
}

}  // namespace leanattn::app
