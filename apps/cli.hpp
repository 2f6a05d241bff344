// cli.hpp — what every subcommand shares: parsing with --help, the output target, error reporting.
#pragma once

#include <boost/program_options.hpp>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace leanattn::app {

namespace po = boost::program_options;

// Exit codes: 0 success, 1 a check failed, 2 bad input (the output the user named cannot be written
// included), 3 an internal error (an exception nobody expected: a bug).
inline constexpr int exit_ok = 0;
inline constexpr int exit_check_failed = 1;
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_internal = 3;

// Parses `args` (without the subcommand name) into `vm`. Returns false when --help was asked for, after
// printing `usage`, the description and `desc`. Throws po::error on unknown flags or bad syntax.
bool parse_or_help(const std::vector<std::string>& args, const po::options_description& desc, po::variables_map& vm,
                   const std::string& usage, const std::string& description);

// Runs `write` into memory, then writes the whole text to the file `path` (or stdout when empty or "-") as
// output_file.hpp describes: an error (thrown by `write`, or in writing) leaves nothing half-written. A path
// that can never be written is refused before `write` runs. Throws InputError naming `-o PATH`.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

// Reports an error the contract's way: `error: <message>` on stderr.
void print_error(const std::string& message);

// A shapes file (`cuda bench --shapes`, `calibrate --predict`): one problem's flags per line, `#` starting a
// comment; the non-empty lines, comments cut. InputError naming `flag` when it cannot be read or holds none.
std::vector<std::string> read_problem_lines(const std::string& path, const std::string& flag);
// A line's whitespace-separated words (the flags of one problem line).
std::vector<std::string> split_words(const std::string& line);

}  // namespace leanattn::app
