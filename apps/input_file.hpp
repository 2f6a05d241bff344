// input_file.hpp — a file the command line reads (a trace, a shapes list, measured runs), opened only where it
// is a regular file or a pipe: a folder opens as a stream that fails on its first read, deep inside a parser, and a
// device node such as /dev/zero never ends.
#pragma once

#include <fstream>
#include <string>

namespace leanattn::app {

// Opens `path`, given as `parameter` (an API parameter such as "trace", which the command line spells as its flag,
// or a flag itself such as "--shapes"), for reading. Otherwise throws InputError({{parameter, path}}, why): no such
// file, a folder, a device node, cannot be read.
std::ifstream open_input_file(const std::string& path, const std::string& parameter);

}  // namespace leanattn::app
