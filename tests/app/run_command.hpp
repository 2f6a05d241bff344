// run_command.hpp — runs the built `leanattn` binary as a user would, capturing exit code, stdout, stderr.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LEANATTN_BINARY
#error "LEANATTN_BINARY must name the built leanattn executable"
#endif

namespace leanattn::testing {

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// `args` is appended to the binary's path as shell text (the tests quote what needs quoting).
inline CommandResult run_leanattn(const std::string& args) {
    static int counter = 0;
    const std::string base = "/tmp/leanattn-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const std::string command = std::string(LEANATTN_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err";
    const int status = std::system(command.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(base + ".out");
    r.err = slurp(base + ".err");
    std::remove((base + ".out").c_str());
    std::remove((base + ".err").c_str());
    return r;
}

}  // namespace leanattn::testing
