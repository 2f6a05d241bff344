#include "output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "core/input_error.hpp"

namespace leanattn::app {

namespace fs = std::filesystem;

namespace {

bool is_stdout(const std::string& path) { return path.empty() || path == "-"; }

InputError write_error(const std::string& path, const std::string& why) {
    return InputError(is_stdout(path) ? std::string("stdout") : "-o " + path, why);
}

std::string errno_text() { return std::strerror(errno); }

// Writes all of `text` to `fd`; false with errno set when the device refuses (full, closed, read-only).
bool write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

// The file a symbolic link leads to, so that the rename replaces the file and keeps the link.
fs::path resolved(const std::string& path) {
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(fs::path(path), ec);
    return ec ? fs::path(path) : target;
}

void write_in_place(const std::string& path, const fs::path& target, const std::string& text) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw write_error(path, "cannot open it for writing: " + errno_text());
    const bool ok = write_all(fd, text);
    const std::string why = ok ? std::string() : errno_text();
    if (::close(fd) != 0 && ok) throw write_error(path, "writing it failed: " + errno_text());
    if (!ok) throw write_error(path, "writing it failed: " + why);
}

void write_by_rename(const std::string& path, const fs::path& target, const std::string& text, const struct stat* existing) {
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string temp = (folder / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) throw write_error(path, "cannot create a temporary file in " + folder.string() + ": " + errno_text());
    // mkostemp makes the file 0600: give it the mode the file had, or what a new file gets under the umask.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    const mode_t mode = existing != nullptr ? existing->st_mode & 07777 : static_cast<mode_t>(0666 & ~mask);
    bool ok = ::fchmod(fd, mode) == 0 && write_all(fd, text);
    std::string why = ok ? std::string() : errno_text();
    if (::close(fd) != 0 && ok) ok = false, why = errno_text();
    if (ok && ::rename(temp.c_str(), target.c_str()) != 0) ok = false, why = errno_text();
    if (!ok) {
        ::unlink(temp.c_str());
        throw write_error(path, "writing it failed: " + why);
    }
}

}  // namespace

void check_output_target(const std::string& path) {
    if (is_stdout(path)) return;
    const fs::path target = resolved(path);
    std::error_code ec;
    if (fs::is_directory(target, ec)) throw write_error(path, "is a folder; give a file name");
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (!fs::is_directory(folder, ec)) throw write_error(path, "the folder " + folder.string() + " does not exist");
}

void commit_output(const std::string& path, const std::string& text) {
    if (is_stdout(path)) {
        std::fflush(stdout);
        if (!write_all(STDOUT_FILENO, text)) throw write_error(path, "writing failed: " + errno_text());
        return;
    }
    check_output_target(path);
    const fs::path target = resolved(path);
    struct stat existing {};
    if (::stat(target.c_str(), &existing) == 0) {
        if (!S_ISREG(existing.st_mode)) return write_in_place(path, target, text);
        return write_by_rename(path, target, text, &existing);
    }
    write_by_rename(path, target, text, nullptr);
}

}  // namespace leanattn::app
