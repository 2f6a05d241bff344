// progress_bar.hpp — progress of a long run on stderr, never stdout (stdout may be the CSV/JSON).
//
// Silent for the first second, so quick runs print nothing. After that: a bar redrawn in place on a
// terminal, or a plain line every tenth of the way when stderr is a file or pipe.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace leanattn::app {

class ProgressBar {
public:
    explicit ProgressBar(std::string label, bool enabled = true)
        : label_(std::move(label)), enabled_(enabled), tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

    void update(std::size_t done, std::size_t total) {
        if (!enabled_ || total == 0) return;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (elapsed < 1.0 && !shown_) return;
        const std::size_t tenth = done * 10 / total;
        if (!tty_ && shown_ && tenth == last_tenth_ && done != total) return;
        shown_ = true;
        last_tenth_ = tenth;
        const int filled = static_cast<int>(30 * done / total);
        std::fprintf(stderr, "%s%s [%s%s] %zu/%zu  %.1f s%s", tty_ ? "\r" : "", label_.c_str(), std::string(static_cast<std::size_t>(filled), '#').c_str(),
                     std::string(static_cast<std::size_t>(30 - filled), ' ').c_str(), done, total, elapsed, tty_ && done != total ? "" : "\n");
        std::fflush(stderr);
    }

private:
    std::string label_;
    bool enabled_, tty_;
    std::chrono::steady_clock::time_point start_;
    bool shown_ = false;
    std::size_t last_tenth_ = 0;
};

}  // namespace leanattn::app
