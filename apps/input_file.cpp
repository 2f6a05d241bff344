#include "input_file.hpp"

#include <filesystem>

#include "core/input_error.hpp"

namespace leanattn::app {

std::ifstream open_input_file(const std::string& path, const std::string& parameter) {
    const auto refuse = [&](const std::string& why) { return InputError({{parameter, path}}, why); };
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) throw refuse("no such file");
    if (fs::is_directory(status)) throw refuse("is a folder, not a file");
    // A pipe is welcome (`--shapes <(generate)`); a device node such as /dev/zero would never end.
    if (!fs::is_regular_file(status) && !fs::is_fifo(status)) throw refuse("is not a file or a pipe");
    std::ifstream in(path);
    if (!in) throw refuse("cannot be read");
    return in;
}

}  // namespace leanattn::app
