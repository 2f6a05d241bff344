// A KV head's query rows beyond what one output tile holds are cut into row blocks: each its own output tile,
// of ⌈rows / blocks⌉ rows but the last (which may hold fewer), covering the rows exactly once, with output ids (request, KV head, block) batch-major.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/schedule.hpp"
#include "core/schedule_table.hpp"
#include "core/validate.hpp"
#include "decode_shape.hpp"

using namespace leanattn;
using testing::decode_shape;

TEST_CASE("row blocks cover a KV head's rows exactly once, none empty, none above tile_rows, all but the last of block_rows") {
    for (std::int64_t group : {1, 3, 7, 16, 71, 128}) {
        for (std::int64_t q_len : {1, 2, 4, 8}) {
            for (std::int64_t tile_rows : {0, 1, 5, 16, 64, 100, 128, 2000}) {
                Problem p = decode_shape(2, 3 * group, 3, 128, 500);
                p.q_len = q_len;
                p.tile_rows = tile_rows;
                CAPTURE(group, q_len, tile_rows);
                const std::int64_t most = tile_rows == 0 ? default_tile_rows : tile_rows;
                CHECK(p.row_blocks() == (p.rows() + most - 1) / most);
                CHECK(p.block_rows() <= most);
                CHECK(p.outputs() == 2 * 3 * p.row_blocks());
                std::vector<int> seen(static_cast<std::size_t>(p.rows()), 0);
                std::int64_t largest = 0;
                for (std::int64_t o = 0; o < p.outputs(); ++o) {
                    // Ids run batch-major, then KV head, then block.
                    REQUIRE(p.request_of(o) == o / (3 * p.row_blocks()));
                    REQUIRE(p.kv_head_of(o) == o / p.row_blocks() % 3);
                    const std::int64_t rows = p.rows_of(o);
                    REQUIRE(rows >= 1);
                    largest = std::max(largest, rows);
                    if (o % p.row_blocks() != p.row_blocks() - 1) REQUIRE(rows == p.block_rows());
                    if (p.request_of(o) != 0 || p.kv_head_of(o) != 0) continue;
                    for (std::int64_t r = p.first_row_of(o); r < p.first_row_of(o) + rows; ++r) ++seen[static_cast<std::size_t>(r)];
                }
                CHECK(largest == p.block_rows());
                CHECK(std::count(seen.begin(), seen.end(), 1) == p.rows());
            }
        }
    }
    CHECK(default_tile_rows == 16);
}

TEST_CASE("every strategy's plan over row blocks is valid: each block's LeanTiles done once, the iteration space K·V × blocks") {
    Problem p = decode_shape(3, 71, 1, 64, 700);  // Falcon-7B's MQA: 71 query heads over one KV head
    p.ctx = {700, 77, 3000};
    p.q_len = 4;                                   // 284 rows: 3 blocks of 95, 95, 94 under tiles of 128
    p.tile_rows = 128;
    REQUIRE(p.row_blocks() == 3);
    REQUIRE(p.block_rows() == 95);
    DeviceSpec device;
    device.sms = 20;
    for (Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
        PlanOptions options;
        options.strategy = strategy;
        const Schedule s = make_schedule(p, device, options);
        CAPTURE(strategy_name(strategy));
        CHECK(s.total_tiles == 3 * (p.tiles_of_request(0) + p.tiles_of_request(1) + p.tiles_of_request(2)));
        CHECK(validate_schedule(s, tabulate(s)).empty());
        if (strategy == Strategy::no_split) CHECK(s.grid == 9);
    }
    p.tile_rows = 1000;  // one tile of all 284 rows
    CHECK(make_schedule(p, device, {}).total_tiles == p.tiles_of_request(0) + p.tiles_of_request(1) + p.tiles_of_request(2));
    p.tile_rows = -1;
    CHECK_THROWS_WITH(make_schedule(p, device, {}), Catch::Contains("tile_rows -1"));
}
