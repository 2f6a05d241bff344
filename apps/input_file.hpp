// input_file.hpp — a file the command line reads (a trace, a shapes list, measured runs), opened only where it
// is a regular file or a pipe: a folder opens as a stream that fails on its first read, deep inside a parser, and a
// device node such as /dev/zero never ends. Large raw results are kept xz-compressed in the repository
// (bench/results/raw/README.md): FILE.xz reads as FILE, and FILE, where only FILE.xz exists, reads from it.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>

namespace leanattn::app {

// Opens `path`, given as `parameter` (an API parameter such as "trace", which the command line spells as its flag,
// or a flag itself such as "--shapes"), for reading; a path ending in .xz, or naming a file that exists only as
// PATH.xz, reads decompressed (by the `xz` program, at most max_decompressed_bytes). Otherwise throws
// InputError({{parameter, path}}, why): no such file, a folder, a device node, cannot be read, xz missing or failing.
std::unique_ptr<std::istream> open_input_file(const std::string& path, const std::string& parameter);

// The file open_input_file reads for `path`: PATH.xz where only it exists, else `path` itself (a writer must not take it).
std::string input_file_read(const std::string& path);

// Appends what descriptor `fd` yields to `text` until its end, or until `text` holds more than `most` bytes (the caller
// then refuses it: at most one read past the limit). Returns false when a read fails (EINTR is retried).
bool read_descriptor(int fd, std::string& text, std::size_t most);

// What an .xz input may decompress to: a measured sweep is a few MB; more is not a file of ours.
inline constexpr std::size_t max_decompressed_bytes = std::size_t{256} << 20;

// The text of a JSON document `path` (open_input_file's rules), before it is parsed: refused over
// max_decompressed_bytes, and where its parsed document (about json_bytes_per_text_byte bytes for each byte of text)
// would pass this machine's memory limit (resource_limits.hpp): a parse that runs out of memory cannot be stopped
// cleanly, as the document's destructor allocates while the error unwinds.
std::string read_json_text(const std::string& path, const std::string& parameter);
inline constexpr std::int64_t json_bytes_per_text_byte = 16;

// `text` (a name or flags read from a file, named `what`), refused with InputError where it holds a control character:
// reports print such text as it is, where a newline or an escape sequence breaks a table, an SVG or the terminal.
const std::string& printable(const std::string& text, const std::string& what);

// One line of a JSON-lines file holds one record of a few KB: a longer one is refused before it is parsed.
inline constexpr std::size_t max_json_line_bytes = std::size_t{1} << 20;

}  // namespace leanattn::app
