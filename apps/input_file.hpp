// input_file.hpp — a file the command line reads (a trace, a shapes list, measured runs), opened only where it
// is a regular file or a pipe: a folder opens as a stream that fails on its first read, deep inside a parser, and a
// device node such as /dev/zero never ends.
#pragma once

#include <fstream>
#include <string>

#include "core/input_error.hpp"

namespace leanattn::app {

// Opens `path` for reading. Otherwise throws an InputError about `subject`'s subject (the flag or parameter and the
// path, e.g. InputError({{"trace", path}}, "") or InputError("--shapes " + path, "")) saying why: no such file, a
// folder, a device node, cannot be read.
std::ifstream open_input_file(const std::string& path, const InputError& subject);

}  // namespace leanattn::app
