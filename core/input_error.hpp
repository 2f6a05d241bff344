// input_error.hpp — the one exception for bad input, refused at the edge.
//
// The library names the API's parameters (`q_heads 0 (must be a positive integer)`); each front end says
// it in its own words: the command line maps the parameters to its flags (`--heads 0 (…)`) and exits 2,
// the C ABI returns a status and the message, Python raises ValueError. Host-side code only: the plan
// walker never throws.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace leanattn {

// One parameter of the API as the caller gave it: its name (q_heads, ctx, splits, …) and its value as text
// (empty when the message is about the parameter as a whole).
struct NamedValue {
    std::string parameter;
    std::string value;
};

class InputError : public std::runtime_error {
public:
    // `what` is a free-form subject: a file, a flag, a tensor.
    InputError(std::string what, std::string why)
        : std::runtime_error(what + " (" + why + ")"), what_(std::move(what)), why_(std::move(why)) {}
    // The subject is one or more of the API's parameters, which front ends may rename.
    InputError(std::vector<NamedValue> parameters, std::string why)
        : InputError(spell(parameters), std::move(why)) {
        parameters_ = std::move(parameters);
    }

    const std::string& subject() const { return what_; }
    const std::string& reason() const { return why_; }
    // Empty when the subject is free-form.
    const std::vector<NamedValue>& parameters() const { return parameters_; }

    // "q_heads 32 kv_heads 5": each parameter followed by its value.
    static std::string spell(const std::vector<NamedValue>& parameters) {
        std::string out;
        for (const NamedValue& p : parameters) {
            out += (out.empty() ? "" : " ") + p.parameter;
            if (!p.value.empty()) out += " " + p.value;
        }
        return out;
    }

private:
    std::string what_;
    std::string why_;
    std::vector<NamedValue> parameters_;
};

}  // namespace leanattn
