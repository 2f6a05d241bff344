#include "problem_json.hpp"

#include <algorithm>
#include "core/input_error.hpp"
#include "json_values.hpp"

namespace leanattn::app {

nlohmann::ordered_json problem_to_json(const Problem& p) {
    return {{"batch", p.batch}, {"q_heads", p.q_heads}, {"kv_heads", p.kv_heads}, {"head_dim", p.head_dim},
            {"q_len", p.q_len}, {"ctx", p.ctx},         {"tile", p.tile},        {"tile_rows", p.max_tile_rows()}};
}

std::int64_t as_whole_number(const nlohmann::json& v, const std::string& what) {
    if (!is_int64(v)) throw InputError(what + " " + v.dump(), "must be a whole number");
    return v.get<std::int64_t>();
}

std::int64_t whole_number(const nlohmann::json& j, const char* key) { return as_whole_number(j.at(key), key); }

std::int64_t whole_number(const nlohmann::json& j, const char* key, std::int64_t absent) { return j.contains(key) ? whole_number(j, key) : absent; }

Problem problem_from_json(const nlohmann::json& j) {
    Problem p;
    p.batch = whole_number(j, "batch");
    p.q_heads = whole_number(j, "q_heads");
    p.kv_heads = whole_number(j, "kv_heads");
    p.head_dim = whole_number(j, "head_dim");
    p.q_len = whole_number(j, "q_len");
    p.tile = whole_number(j, "tile");
    const nlohmann::json& ctx = j.at("ctx");
    if (!ctx.is_array()) throw InputError("ctx " + ctx.dump(), "must be a list of whole numbers, one per request");
    for (const nlohmann::json& c : ctx) p.ctx.push_back(as_whole_number(c, "ctx"));
    // Files written before row blocks have no tile_rows: their runs held a KV head's rows in one output tile.
    p.tile_rows = whole_number(j, "tile_rows", std::max<std::int64_t>(p.rows(), 1));
    check_problem(p);
    return p;
}

}  // namespace leanattn::app
