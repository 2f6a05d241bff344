// json_values.hpp — what a whole number or a printed name read from a JSON file may be: one test of each, for every
// reader of the project's files (device and model files, measured runs, traces).
#pragma once

#include <cstdint>
#include <string>

namespace leanattn::app {

// A JSON integer within int64: nlohmann converts 2.7 to 2, and an unsigned value past 2^63 - 1 wraps to a negative one.
template <typename Json>
bool is_int64(const Json& v) {
    return v.is_number_integer() && !(v.is_number_unsigned() && v.template get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX));
}

// Text printed as it is (tables, headings, SVG) must hold none: a newline, a NUL or an escape sequence breaks the output
// or the terminal.
inline bool holds_control_characters(const std::string& text) {
    for (const char c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
    }
    return false;
}

}  // namespace leanattn::app
