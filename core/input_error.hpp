// input_error.hpp — the one exception for bad input, refused at the edge (DESIGN.md rules).
//
// The command line prints it as `error: <what> (<why>)` and exits 2. Host-side code only: the plan
// walker never throws.
#pragma once

#include <stdexcept>
#include <string>

namespace leanattn {

class InputError : public std::runtime_error {
public:
    InputError(std::string what, std::string why)
        : std::runtime_error(what + " (" + why + ")"), what_(std::move(what)), why_(std::move(why)) {}
    const std::string& subject() const { return what_; }
    const std::string& reason() const { return why_; }

private:
    std::string what_;
    std::string why_;
};

}  // namespace leanattn
