// problem_json.hpp — a problem as the JSON outputs write it ("problem": batch, q_heads, kv_heads, head_dim,
// q_len, ctx, tile: the command-line contract), and back (`calibrate` reads cuda bench's lines, `simulate
// --trace` a trace).
#pragma once

#include <nlohmann/json.hpp>

#include "core/problem.hpp"

namespace leanattn::app {

nlohmann::ordered_json problem_to_json(const Problem& problem);

// Throws nlohmann's exceptions for a missing key or a wrong type, InputError (check_problem) for a bad problem.
Problem problem_from_json(const nlohmann::json& j);

// `v` as an int64, refused (InputError naming `what`) unless a whole number within int64 (json_values.hpp: nlohmann
// converts 2.7 to 2 and 1e30 to an arbitrary value without a word). Then j[key], and j[key] or `absent` where j has none.
std::int64_t as_whole_number(const nlohmann::json& v, const std::string& what);
std::int64_t whole_number(const nlohmann::json& j, const char* key);
std::int64_t whole_number(const nlohmann::json& j, const char* key, std::int64_t absent);

}  // namespace leanattn::app
