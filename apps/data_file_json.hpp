// data_file_json.hpp — the strict JSON reading every data file shares (devices, models, kernels).
//
// Errors name the file as a parameter (`device`, `model`, `kernel`: the command line says --device FILE)
// and the key: malformed JSON, a duplicate, missing or unknown key, a wrong type.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace leanattn::app::data_file {

using nlohmann::json;

struct Source {
    const char* parameter;
    const std::string& file;
    [[noreturn]] void refuse(const std::string& why) const;
    mutable std::set<std::string> known = {};  // every key the reader asked for, present or not (refuse_unknown_keys)
};

// One JSON object; duplicate keys (which nlohmann would silently resolve to the last) and nesting deeper than
// any data file needs are refused.
json parse_strict(const std::string& text, const Source& source);
const json& key(const json& j, const char* name, const Source& source);
// Whether an optional key is there (and, either way, that the file may hold it).
bool has(const json& j, const char* name, const Source& source);
std::string text_field(const json& j, const char* name, const Source& source);
std::int64_t positive_integer(const json& j, const char* name, const Source& source);
double finite_number(const json& j, const char* name, const Source& source);
bool boolean(const json& j, const char* name, const Source& source);
std::string optional_text(const json& j, const char* name, const Source& source);
// An optional array of non-empty strings (empty when the key is absent).
std::vector<std::string> optional_text_list(const json& j, const char* name, const Source& source);
// The keys every data file starts with: a non-empty "name" and an optional "description".
void read_names(const json& j, const Source& source, std::string& name, std::string& description);
// Refuses a top-level key the reader never asked for (a misspelt key would otherwise leave its default in place
// without a word), naming the known key closest to it. Called once the whole file is read.
void refuse_unknown_keys(const json& j, const Source& source);

}  // namespace leanattn::app::data_file
