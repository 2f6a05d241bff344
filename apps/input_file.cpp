#include "input_file.hpp"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cost_estimate.hpp"
#include "core/input_error.hpp"
#include "core/saturating.hpp"
#include "json_values.hpp"
#include "resource_limits.hpp"

extern char** environ;

namespace leanattn::app {

namespace {

bool ends_with_xz(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".xz") == 0; }

// The text `xz -dc -- file` writes, read through a pipe (no shell: the path is one argument whatever it holds).
template <typename Refuse>
std::string decompress_xz(const std::string& file, const Refuse& refuse) {
    int fds[2];  // close-on-exec: no other program this process starts inherits them (xz's stdout is a dup)
    if (pipe2(fds, O_CLOEXEC) != 0) throw refuse("is compressed (.xz) and no pipe could be made to decompress it");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::string program = "xz", decompress = "-dc", end_of_options = "--", name = file;
    char* argv[] = {program.data(), decompress.data(), end_of_options.data(), name.data(), nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, "xz", &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        throw refuse("is compressed (.xz) and the xz program was not found (Debian: apt-get install xz-utils)");
    }
    std::string text;
    (void)read_descriptor(fds[0], text, max_decompressed_bytes);  // a failed read shows as xz's failure below
    const bool too_large = text.size() > max_decompressed_bytes;
    if (too_large) kill(pid, SIGKILL);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (too_large) throw refuse("decompresses to more than " + std::to_string(max_decompressed_bytes >> 20) + " MiB: not a file of ours");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw refuse("is not a valid .xz file (xz -dc failed)");
    return text;
}

}  // namespace

bool read_descriptor(int fd, std::string& text, std::size_t most) {
    char piece[65536];
    while (text.size() <= most) {
        const ssize_t n = read(fd, piece, sizeof piece);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) break;
        text.append(piece, static_cast<std::size_t>(n));
    }
    return true;
}

std::string input_file_read(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec, ec_xz;
    const fs::file_status status = fs::status(path, ec);
    if ((ec || !fs::exists(status)) && !ends_with_xz(path) && fs::is_regular_file(fs::status(path + ".xz", ec_xz)) && !ec_xz) return path + ".xz";  // kept compressed
    return path;
}

std::unique_ptr<std::istream> open_input_file(const std::string& path, const std::string& parameter) {
    const auto refuse = [&](const std::string& why) { return InputError({{parameter, path}}, why); };
    namespace fs = std::filesystem;
    const std::string file = input_file_read(path);
    std::error_code ec;
    const fs::file_status status = fs::status(file, ec);
    if (ec || !fs::exists(status)) throw refuse("no such file");
    if (fs::is_directory(status)) throw refuse("is a folder, not a file");
    // A pipe is welcome (`--shapes <(generate)`); a device node such as /dev/zero would never end.
    if (!fs::is_regular_file(status) && !fs::is_fifo(status)) throw refuse("is not a file or a pipe");
    if (ends_with_xz(file)) return std::make_unique<std::istringstream>(decompress_xz(file, refuse));
    auto in = std::make_unique<std::ifstream>(file);
    if (!*in) throw refuse("cannot be read");
    return in;
}

std::string read_json_text(const std::string& path, const std::string& parameter) {
    const std::unique_ptr<std::istream> in = open_input_file(path, parameter);
    std::string text;
    char piece[65536];
    while (text.size() <= max_decompressed_bytes && in->read(piece, sizeof piece).gcount() > 0) text.append(piece, static_cast<std::size_t>(in->gcount()));
    if (text.size() > max_decompressed_bytes) {
        throw InputError({{parameter, path}}, "holds more than " + std::to_string(max_decompressed_bytes >> 20) + " MiB: not a file of ours");
    }
    Cost cost;
    cost.add(CostTerm{"its parsed JSON", saturating::mul(static_cast<std::int64_t>(text.size()), json_bytes_per_text_byte), 0, {{parameter, path}}});
    check_cost(cost, resource_limits());
    return text;
}

const std::string& printable(const std::string& text, const std::string& what) {
    if (holds_control_characters(text)) throw InputError(what, "must not hold control characters (it is printed as it is)");
    return text;
}

}  // namespace leanattn::app
