// output_file.hpp — `-o FILE` written whole or not at all.
//
// A regular file (or a new one) is written to a temporary file in the same folder and renamed over FILE
// only once everything is written, so an error leaves an existing FILE untouched and creates nothing. A
// target that is not a regular file (/dev/null, /dev/stdout, a pipe) is written in place, and a failed
// write there (/dev/full) is an error too. Empty or "-" means stdout, whose write errors are reported.
#pragma once

#include <string>

namespace leanattn::app {

// Refuses, before any work, a target that can never be written: a folder, a path in a missing folder.
// Throws InputError naming `-o PATH`.
void check_output_target(const std::string& path);

// Writes `text` to the target as described above. Throws InputError naming `-o PATH` (or stdout).
void commit_output(const std::string& path, const std::string& text);

}  // namespace leanattn::app
