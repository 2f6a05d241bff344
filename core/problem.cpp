#include "problem.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "input_error.hpp"

namespace leanattn {

std::int64_t Problem::max_ctx() const { return ctx.empty() ? 0 : *std::max_element(ctx.begin(), ctx.end()); }

std::int64_t Problem::total_ctx() const { return std::accumulate(ctx.begin(), ctx.end(), std::int64_t{0}); }

std::int64_t default_tile(std::int64_t head_dim) { return head_dim <= 64 ? 256 : 128; }

std::int64_t Problem::max_tile_rows() const { return tile_rows > 0 ? tile_rows : default_tile_rows; }

namespace {

NamedValue named(const char* parameter, std::int64_t value) { return {parameter, std::to_string(value)}; }

void require_positive(std::int64_t value, const char* parameter) {
    if (value <= 0) throw InputError({named(parameter, value)}, "must be a positive integer");
}

// a * b, refusing results beyond 2^62 so that later sums of a few such terms stay in range.
std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::vector<NamedValue> blame) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out) || out > (std::int64_t{1} << 62)) {
        throw InputError(std::move(blame), "the problem is too large: sizes overflow 64 bits");
    }
    return out;
}

}  // namespace

void check_problem(const Problem& p) {
    require_positive(p.batch, "batch");
    require_positive(p.q_heads, "q_heads");
    require_positive(p.kv_heads, "kv_heads");
    require_positive(p.head_dim, "head_dim");
    require_positive(p.q_len, "q_len");
    if (p.q_heads % p.kv_heads != 0) {
        throw InputError({named("q_heads", p.q_heads), named("kv_heads", p.kv_heads)}, "query heads must be a multiple of kv_heads");
    }
    if (p.tile_rows < 0) throw InputError({named("tile_rows", p.tile_rows)}, "must be a positive integer (or 0 for the head dim's default)");
    if (p.tile <= 0 || p.tile % 16 != 0) throw InputError({named("tile", p.tile)}, "must be a positive multiple of 16");
    // A LeanTile beyond 2^30 tokens is never useful (the paper's are 128 and 256), and the bound keeps every
    // token index plus a tile inside 64 bits, and a tile inside the kernels' 32-bit counters.
    if (p.tile > max_tile) throw InputError({named("tile", p.tile)}, "at most " + std::to_string(max_tile) + " tokens");
    if (static_cast<std::int64_t>(p.ctx.size()) != p.batch) {
        // The command line's one value for every request is spread before a problem is made: a problem holds one per request.
        throw InputError({{"ctx", ""}}, "gives " + std::to_string(p.ctx.size()) + " context lengths for a batch of " + std::to_string(p.batch) +
                                            ": a problem holds one per request");
    }
    std::int64_t tokens = 0;
    for (std::int64_t c : p.ctx) {
        if (c <= 0) throw InputError({named("ctx", c)}, "every context length must be at least 1 token");
        if (__builtin_add_overflow(tokens, c, &tokens)) throw InputError({{"ctx", ""}}, "the problem is too large: sizes overflow 64 bits");
    }
    for (std::int64_t c : p.ctx) {
        if (p.q_len > c) {
            throw InputError({named("q_len", p.q_len)}, "exceeds the context length " + std::to_string(c) +
                                                            " of a request: each of the q_len queries must see at least one token");
        }
    }
    // Element counts of K/V and of Q/O must fit: tokens × kv_heads × head_dim, batch × q_heads × q_len × head_dim.
    checked_mul(checked_mul(tokens, p.kv_heads, {{"ctx", ""}, named("kv_heads", p.kv_heads)}), p.head_dim, {named("head_dim", p.head_dim)});
    checked_mul(checked_mul(checked_mul(p.batch, p.q_heads, {named("batch", p.batch), named("q_heads", p.q_heads)}), p.q_len, {named("q_len", p.q_len)}),
                p.head_dim, {named("head_dim", p.head_dim)});
    checked_mul(p.batch, p.kv_heads, {named("batch", p.batch), named("kv_heads", p.kv_heads)});
    // Output tiles and LeanTiles (Σ outputs_per_request · ⌈ctx / tile⌉ ≤ outputs_per_request · (tokens / tile + batch)),
    // which the planner counts in 64 bits: rows fit, as Q's elements do.
    const std::vector<NamedValue> heads = {named("q_heads", p.q_heads), named("q_len", p.q_len), named("tile_rows", p.tile_rows)};
    const std::int64_t per_request = checked_mul(p.kv_heads, p.row_blocks(), heads);
    checked_mul(p.batch, per_request, heads);
    checked_mul(per_request, tokens / p.tile + p.batch, {{"ctx", ""}, named("tile", p.tile)});
}

}  // namespace leanattn
