#include "problem_json.hpp"

#include <algorithm>

namespace leanattn::app {

nlohmann::ordered_json problem_to_json(const Problem& p) {
    return {{"batch", p.batch}, {"q_heads", p.q_heads}, {"kv_heads", p.kv_heads}, {"head_dim", p.head_dim},
            {"q_len", p.q_len}, {"ctx", p.ctx},         {"tile", p.tile},        {"tile_rows", p.max_tile_rows()}};
}

Problem problem_from_json(const nlohmann::json& j) {
    Problem p;
    p.batch = j.at("batch").get<std::int64_t>();
    p.q_heads = j.at("q_heads").get<std::int64_t>();
    p.kv_heads = j.at("kv_heads").get<std::int64_t>();
    p.head_dim = j.at("head_dim").get<std::int64_t>();
    p.q_len = j.at("q_len").get<std::int64_t>();
    p.tile = j.at("tile").get<std::int64_t>();
    p.ctx = j.at("ctx").get<std::vector<std::int64_t>>();
    // Files written before row blocks have no tile_rows: their runs held a KV head's rows in one output tile.
    p.tile_rows = j.contains("tile_rows") ? j.at("tile_rows").get<std::int64_t>() : std::max<std::int64_t>(p.rows(), 1);
    check_problem(p);
    return p;
}

}  // namespace leanattn::app
