// input_file.hpp — a file the command line reads (a trace, a shapes list, measured runs), opened only where it
// is a regular file or a pipe: a folder opens as a stream that fails on its first read, deep inside a parser, and a
// device node such as /dev/zero never ends. Large raw results are kept xz-compressed in the repository
// (bench/results/raw/README.md): FILE.xz reads as FILE, and FILE, where only FILE.xz exists, reads from it.
#pragma once

#include <istream>
#include <memory>
#include <string>

namespace leanattn::app {

// Opens `path`, given as `parameter` (an API parameter such as "trace", which the command line spells as its flag,
// or a flag itself such as "--shapes"), for reading; a path ending in .xz, or naming a file that exists only as
// PATH.xz, reads decompressed (by the `xz` program, at most max_decompressed_bytes). Otherwise throws
// InputError({{parameter, path}}, why): no such file, a folder, a device node, cannot be read, xz missing or failing.
std::unique_ptr<std::istream> open_input_file(const std::string& path, const std::string& parameter);

// Appends what descriptor `fd` yields to `text` until its end, or until `text` holds more than `most` bytes (the caller
// then refuses it: at most one read past the limit). Returns false when a read fails (EINTR is retried).
bool read_descriptor(int fd, std::string& text, std::size_t most);

// What an .xz input may decompress to: a measured sweep is a few MB; more is not a file of ours.
inline constexpr std::size_t max_decompressed_bytes = std::size_t{256} << 20;

}  // namespace leanattn::app
