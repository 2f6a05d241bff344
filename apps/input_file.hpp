// input_file.hpp — a file the command line reads (a trace, a shapes list, measured runs), opened only where it
// is a regular file: a folder opens as a stream that fails on its first read, deep inside a parser, and a FIFO or
// a device may never end.
#pragma once

#include <fstream>
#include <string>

#include "core/input_error.hpp"

namespace leanattn::app {

// Opens `path` for reading; throws `error` with the reason (no such file, a folder, not a regular file, cannot
// be read) otherwise. `error` carries the subject, e.g. InputError({{"trace", path}}, "") or InputError("--shapes " + path, "").
std::ifstream open_input_file(const std::string& path, const InputError& subject);

}  // namespace leanattn::app
