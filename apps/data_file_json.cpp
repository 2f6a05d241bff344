#include "data_file_json.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/input_error.hpp"
#include "json_values.hpp"

namespace leanattn::app::data_file {

void Source::refuse(const std::string& why) const { throw InputError({{parameter, file}}, why); }

json parse_strict(const std::string& text, const Source& source) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) source.refuse("the file is empty");
    std::vector<std::set<std::string>> keys;  // one set per open object
    std::string duplicate;
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
        if (depth > 16) throw InputError({{source.parameter, source.file}}, "JSON nested deeper than 16 levels");
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
        if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
            duplicate = parsed.get<std::string>();
        }
        return true;
    };
    json j;
    try {
        j = json::parse(text, check);
    } catch (const json::exception& e) {
        source.refuse(std::string("malformed JSON: ") + e.what());
    }
    if (!duplicate.empty()) source.refuse("the key \"" + duplicate + "\" appears twice");
    if (!j.is_object()) source.refuse("expected one JSON object");
    return j;
}

const json& key(const json& j, const char* name, const Source& source) {
    source.known.insert(name);
    if (!j.contains(name)) source.refuse(std::string("missing key \"") + name + "\"");
    return j.at(name);
}

std::string text_field(const json& j, const char* name, const Source& source) {
    const json& v = key(j, name, source);
    if (!v.is_string()) source.refuse(std::string("\"") + name + "\" must be a string");
    std::string text = v.get<std::string>();
    // Names and descriptions are printed as they are in text tables and headings.
    if (holds_control_characters(text)) source.refuse(std::string("\"") + name + "\" must not hold control characters");
    return text;
}

std::int64_t positive_integer(const json& j, const char* name, const Source& source) {
    const json& v = key(j, name, source);
    if (!is_int64(v) || v.get<std::int64_t>() <= 0) source.refuse(std::string("\"") + name + "\" must be a positive integer");
    return v.get<std::int64_t>();
}

double finite_number(const json& j, const char* name, const Source& source) {
    const json& v = key(j, name, source);
    if (!v.is_number() || !std::isfinite(v.get<double>())) source.refuse(std::string("\"") + name + "\" must be a finite number");
    return v.get<double>();
}

bool has(const json& j, const char* name, const Source& source) {
    source.known.insert(name);
    return j.contains(name);
}

std::string optional_text(const json& j, const char* name, const Source& source) {
    if (!has(j, name, source)) return {};
    return text_field(j, name, source);
}

std::vector<std::string> optional_text_list(const json& j, const char* name, const Source& source) {
    std::vector<std::string> out;
    if (!has(j, name, source)) return out;
    const json& v = key(j, name, source);
    if (!v.is_array()) source.refuse(std::string("\"") + name + "\" must be an array of strings");
    for (const json& item : v) {
        if (!item.is_string() || item.get<std::string>().empty()) source.refuse(std::string("\"") + name + "\" must hold non-empty strings only");
        out.push_back(item.get<std::string>());
    }
    return out;
}

bool boolean(const json& j, const char* name, const Source& source) {
    const json& v = key(j, name, source);
    if (!v.is_boolean()) source.refuse(std::string("\"") + name + "\" must be true or false");
    return v.get<bool>();
}

void read_names(const json& j, const Source& source, std::string& name, std::string& description) {
    name = text_field(j, "name", source);
    if (name.empty()) source.refuse("\"name\" must not be empty");
    description = optional_text(j, "description", source);
}

namespace {

// Levenshtein distance: how many single-letter edits make `a` into `b`.
std::size_t edits(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t k = 0; k <= b.size(); ++k) row[k] = k;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t k = 1; k <= b.size(); ++k) {
            const std::size_t above = row[k];
            row[k] = std::min({row[k] + 1, row[k - 1] + 1, diagonal + (a[i - 1] == b[k - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

void refuse_unknown_keys(const json& j, const Source& source) {
    for (const auto& item : j.items()) {
        const std::string& name = item.key();
        if (source.known.count(name) != 0) continue;
        std::string nearest;
        std::size_t best = name.size() / 3 + 1;  // a likelier typo than a different key
        for (const std::string& known : source.known) {
            if (const std::size_t e = edits(name, known); e <= best && (nearest.empty() || e < best)) nearest = known, best = e;
        }
        source.refuse("unknown key \"" + name + "\"" + (nearest.empty() ? std::string(": data/") + source.parameter + "s/README.md lists the keys"
                                                                           : "; did you mean \"" + nearest + "\"?"));
    }
}

}  // namespace leanattn::app::data_file
