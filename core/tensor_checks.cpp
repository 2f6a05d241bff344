#include "tensor_checks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

#include "input_error.hpp"
#include "saturating.hpp"

namespace leanattn {

namespace {

// The plain-text overload builds no string unless it throws: run() on a GPU checks its views at every call.
void require(bool ok, const char* parameter, const char* why) {
    if (!ok) throw InputError(parameter, why);
}
void require(bool ok, const char* parameter, const std::string& why) {
    if (!ok) throw InputError(parameter, why);
}

void require_capacity(std::int64_t capacity, std::int64_t needed, const char* parameter, const char* verb) {
    if (capacity < needed) {
        throw InputError(parameter, std::string(verb) + " " + std::to_string(capacity) + " tokens per request, fewer than the context length " +
                                        std::to_string(needed));
    }
}

void check_strides(const HeadTensor& t, const char* name) {
    require(t.data != nullptr, name, "is missing");
    require(t.stride_batch >= 0 && t.stride_token >= 0 && t.stride_head >= 0, name, "strides must be non-negative");
}

void check_cache_fields(const Problem& p, const KvCacheView& kv) {
    require(kv.k != nullptr, "k_cache", "is missing");
    require(kv.v != nullptr, "v_cache", "is missing");
    const bool reads_request_stride = kv.layout != KvLayout::ragged;  // a ragged cache's requests lie where cu_seqlens say
    require((kv.stride_request >= 0 || !reads_request_stride) && kv.stride_token >= 0 && kv.stride_head >= 0, "k_cache", "strides must be non-negative");
    switch (kv.layout) {
        case KvLayout::strided:
            require_capacity(kv.capacity, p.max_ctx(), "k_cache", "holds");
            break;
        case KvLayout::paged:
            require(kv.block_table != nullptr, "block_table", "is missing (a paged cache needs one)");
            require(kv.block_size >= 1, "k_cache", "block size must be at least 1 token");
            require(kv.num_blocks >= 1, "k_cache", "holds no blocks");
            require(kv.block_table_stride >= 0, "block_table", "strides must be non-negative");
            require_capacity(kv.capacity, p.max_ctx(), "block_table", "reaches");
            break;
        case KvLayout::ragged:
            require(kv.cu_seqlens != nullptr, "cu_seqlens", "is missing (a ragged cache needs one)");
            break;
    }
}

// Lengths, block ids and cu_seqlens, read from host memory.
void check_live_values(const Problem& p, const DecodeTensors& t) {
    const KvCacheView& kv = t.kv;
    for (std::int64_t b = 0; b < p.batch; ++b) {
        const std::int64_t n = t.seqlens[b];
        if (kv.layout == KvLayout::ragged) {
            require(kv.cu_seqlens[b + 1] >= kv.cu_seqlens[b] && kv.cu_seqlens[0] >= 0, "cu_seqlens", "must be non-decreasing from 0 or more");
        }
        const std::int64_t room = kv.layout == KvLayout::ragged ? kv.cu_seqlens[b + 1] - kv.cu_seqlens[b] : kv.capacity;
        const std::string which = "request " + std::to_string(b) + " has " + std::to_string(n) + " tokens";
        // 0 is a padded batch's empty slot: its rows get out 0 and lse −∞. Between 1 and q_len − 1 a request would
        // not hold its own new tokens: a caller's mistake, refused.
        require(n == 0 || n >= p.q_len, "cache_seqlens",
                which + ", fewer than the " + std::to_string(p.q_len) + " queries it decodes (0, an empty slot, is taken)");
        require(n <= room, "cache_seqlens", which + ", more than its part of the cache holds (" + std::to_string(room) + ")");
        if (kv.layout != KvLayout::paged) continue;
        for (std::int64_t i = 0; i * kv.block_size < n; ++i) {
            const std::int64_t id = kv.block_table[b * kv.block_table_stride + i];
            require(id >= 0 && id < kv.num_blocks, "block_table",
                    "entry [" + std::to_string(b) + ", " + std::to_string(i) + "] = " + std::to_string(id) + " is not a block of the cache (0 to " +
                        std::to_string(kv.num_blocks - 1) + ")");
        }
    }
}

// Bytes from `data` to the end of its last element: (extents − 1) · strides + `last_elements`, elements of `bytes` each.
// Saturated, as the strides are the caller's: a range that would pass the end of the address space ends there.
// A sum that saturated (2^63 bytes or more) or an end past 2^64 is beyond the address space: a kernel's address
// arithmetic would wrap there, onto memory the range does not cover.
ByteRange extent(const void* data, std::initializer_list<std::pair<std::int64_t, std::int64_t>> extents_strides, std::int64_t last_elements,
                 std::int64_t bytes) {
    std::int64_t elements = last_elements;
    for (const auto& [extent, stride] : extents_strides) elements = saturating::add(elements, saturating::mul(extent - 1, stride));
    const std::int64_t length = saturating::mul(elements, bytes);
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const bool beyond = length == saturating::max || static_cast<std::uintptr_t>(length) > UINTPTR_MAX - begin;
    return {begin, beyond ? UINTPTR_MAX : begin + static_cast<std::uintptr_t>(length), beyond};
}

// q's or out's bytes: (batch, q_len, q_heads, head_dim) of `dtype`.
ByteRange head_tensor_bytes(const Problem& p, const HeadTensor& h, DType dtype) {
    return extent(h.data, {{p.batch, h.stride_batch}, {p.q_len, h.stride_token}, {p.q_heads, h.stride_head}}, p.head_dim, dtype_bytes(dtype));
}

// Whether two different rows (`row` elements each) of a view with these extents and non-negative strides share an
// element. Strides that nest (each at least the one below times its extent, the smallest at least a row: every layout
// a tensor library makes) keep rows apart, found at once. Otherwise two dimensions a and b (one index apart along
// each) collide where |m · stride_a − k · stride_b| < row for some 0 < m < extent_a, 0 < k < extent_b, which is
// searched along the shorter of the two; then rows that meet only through all three dimensions at once, where the two
// shorter dimensions' index pairs number at most 2^20 (past that, as for a pair's 2^20 steps, the search stops: run()
// checks every step, and no tensor library makes such strides).
bool rows_overlap(std::initializer_list<std::pair<std::int64_t, std::int64_t>> extents_strides, std::int64_t row) {
    // (stride, extent) of the dimensions with two indices or more: on the stack, as run() checks every step
    std::array<std::pair<std::int64_t, std::int64_t>, 3> dims{};
    if (extents_strides.size() > dims.size()) throw std::logic_error("rows_overlap: a view of more than 3 dimensions");
    std::size_t n = 0;
    for (const auto& [extent, stride] : extents_strides) {
        if (extent < 2) continue;
        if (stride < row) return true;  // a step along it lands within a row (a stride of 0 too)
        dims[n++] = {stride, extent};
    }
    for (std::size_t i = 1; i < n; ++i) {  // by stride: an insertion sort of at most three
        for (std::size_t j = i; j > 0 && dims[j] < dims[j - 1]; --j) std::swap(dims[j], dims[j - 1]);
    }
    bool nested = true;
    for (std::size_t i = 1; i < n; ++i) nested = nested && dims[i].first >= saturating::mul(dims[i - 1].first, dims[i - 1].second);
    if (nested) return false;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            // m steps along the dimension of fewer indices against the nearest whole number of steps along the other.
            const auto& [sa, ea] = dims[i].second <= dims[j].second ? dims[i] : dims[j];
            const auto& [sb, eb] = dims[i].second <= dims[j].second ? dims[j] : dims[i];
            for (std::int64_t m = 1; m < std::min<std::int64_t>(ea, std::int64_t{1} << 20); ++m) {  // bounded: run() checks every step
                const std::int64_t at = saturating::mul(m, sa);
                const std::int64_t below = std::min(at / sb, eb - 1);
                for (const std::int64_t k : {below, std::min(below + 1, eb - 1)}) {
                    if (k < 1) continue;
                    const std::int64_t there = saturating::mul(k, sb);
                    if ((at > there ? at - there : there - at) < row) return true;
                }
            }
        }
    }
    if (n == 3) {
        // i · s_a + j · s_b + k · s_c within a row of 0, every index non-zero (one of them 0 is a pair, above); i > 0
        // where the whole sum is negated. The two dimensions of fewest indices are enumerated, the third solved for.
        std::array<std::pair<std::int64_t, std::int64_t>, 3> by_extent = {dims[0], dims[1], dims[2]};
        std::sort(by_extent.begin(), by_extent.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
        const auto& [sa, ea] = by_extent[0];
        const auto& [sb, eb] = by_extent[1];
        const auto& [sc, ec] = by_extent[2];
        if (saturating::mul(ea - 1, 2 * (eb - 1)) > (std::int64_t{1} << 20)) return false;
        for (std::int64_t i = 1; i < ea; ++i) {
            for (std::int64_t j = -(eb - 1); j < eb; ++j) {
                if (j == 0) continue;
                const std::int64_t v = saturating::add(saturating::mul(i, sa), j > 0 ? saturating::mul(j, sb) : -saturating::mul(-j, sb));
                // k with |v + k · s_c| < row, 0 < |k| < extent_c: the multiples of s_c nearest −v.
                const std::int64_t nearest = v / sc;
                for (const std::int64_t k : {-nearest, -nearest - 1, -nearest + 1}) {
                    if (k == 0 || k <= -ec || k >= ec) continue;
                    const std::int64_t at = saturating::add(v, k > 0 ? saturating::mul(k, sc) : -saturating::mul(-k, sc));
                    if ((at < 0 ? -at : at) < row) return true;
                }
            }
        }
    }
    return false;
}

// The bytes K (`data` k) or V of every request may occupy; empty where that is not known on the host (a ragged cache's
// cu_seqlens in device memory).
ByteRange cache_bytes(const Problem& p, const KvCacheView& kv, const void* data, bool host_readable, std::int64_t bytes) {
    switch (kv.layout) {
        case KvLayout::strided:
            return extent(data, {{p.batch, kv.stride_request}, {kv.capacity, kv.stride_token}, {p.kv_heads, kv.stride_head}}, p.head_dim, bytes);
        case KvLayout::paged:
            return extent(data, {{kv.num_blocks, kv.stride_request}, {kv.block_size, kv.stride_token}, {p.kv_heads, kv.stride_head}}, p.head_dim, bytes);
        case KvLayout::ragged:
            if (!host_readable) return {};
            return extent(data, {{kv.cu_seqlens[p.batch], kv.stride_token}, {p.kv_heads, kv.stride_head}}, p.head_dim, bytes);
    }
    return {};
}

// The int32 arrays a run reads besides q, K and V: cache_seqlens, and block_table (paged) or cu_seqlens (ragged).
struct IndexRanges {
    ByteRange seqlens, block_table, cu_seqlens;
};
IndexRanges index_bytes(const Problem& p, const DecodeTensors& t) {
    IndexRanges r;
    constexpr std::int64_t int32 = sizeof(std::int32_t);
    r.seqlens = extent(t.seqlens, {}, p.batch, int32);
    if (t.kv.layout == KvLayout::paged && t.kv.block_size > 0) {
        // The entries a length up to the capacity reaches: ⌈capacity / block_size⌉ a row (capacity need not fill its last block).
        r.block_table = extent(t.kv.block_table, {{p.batch, t.kv.block_table_stride}}, (t.kv.capacity - 1) / t.kv.block_size + 1, int32);
    }
    if (t.kv.layout == KvLayout::ragged) r.cu_seqlens = extent(t.kv.cu_seqlens, {}, p.batch + 1, int32);
    return r;
}

// Throws InputError naming `written` where `range` overlaps any of the index arrays a run reads.
void require_apart_from_indices(const ByteRange& range, const IndexRanges& indices, const char* written, const char* consequence) {
    for (const auto& [read, name] : {std::pair{indices.seqlens, "cache_seqlens"}, std::pair{indices.block_table, "block_table"},
                                     std::pair{indices.cu_seqlens, "cu_seqlens"}}) {
        if (range.overlaps(read)) throw InputError(written, std::string("overlaps ") + name + consequence);
    }
}

// Nothing a run writes lies on what it reads or on itself: out's rows, softmax_lse's values, q, K, V and the lengths,
// block table and cu_seqlens.
void check_written_apart(const Problem& p, const DecodeTensors& t, bool host_readable) {
    require(!rows_overlap({{p.batch, t.o.stride_batch}, {p.q_len, t.o.stride_token}, {p.q_heads, t.o.stride_head}}, p.head_dim), "out",
            "rows overlap (each query head's output needs head_dim elements of its own: check the strides)");
    if (t.lse.data != nullptr) {
        require(!rows_overlap({{p.batch, t.lse.stride_batch}, {p.q_heads, t.lse.stride_head}, {p.q_len, t.lse.stride_token}}, 1), "softmax_lse",
                "values overlap (each query head and token needs a float of its own: check the strides)");
    }
    const ByteRange out = out_bytes(p, t), lse = lse_bytes(p, t);
    const std::int64_t bytes = dtype_bytes(t.dtype);
    const ByteRange q = head_tensor_bytes(p, t.q, t.dtype);
    const ByteRange k = cache_bytes(p, t.kv, t.kv.k, host_readable, bytes), v = cache_bytes(p, t.kv, t.kv.v, host_readable, bytes);
    // Before any overlap: a range past the address space wraps onto memory no comparison of ranges would see.
    for (const auto& [range, name] : {std::pair{out, "out"}, std::pair{lse, "softmax_lse"}, std::pair{q, "q"}, std::pair{k, "k_cache"}, std::pair{v, "v_cache"}}) {
        require(!range.beyond_address_space, name, "strides reach past the end of the address space (its last element would lie 2^64 bytes or more "
                                                   "beyond its first address): check the strides");
    }
    require(!lse.overlaps(out), "softmax_lse", "overlaps out (each needs memory of its own)");
    // out may be q itself, element for element (in place): each output tile reads its own query rows before any CTA
    // writes that tile's output (a host writes after its peers' partials, and those come after their reads of Q).
    const bool in_place = t.o.data == t.q.data && t.o.stride_batch == t.q.stride_batch && t.o.stride_token == t.q.stride_token &&
                          t.o.stride_head == t.q.stride_head;
    const char* why = ": a CTA could read what another has written already (out may be q itself, in place)";
    if (q.overlaps(out) && !in_place) throw InputError("out", std::string("overlaps q") + why);
    for (const auto& [read, name] : {std::pair{k, "k_cache"}, std::pair{v, "v_cache"}}) {
        if (read.overlaps(out)) throw InputError("out", std::string("overlaps ") + name + why);
    }
    for (const auto& [read, name] : {std::pair{q, "q"}, std::pair{k, "k_cache"}, std::pair{v, "v_cache"}}) {
        if (read.overlaps(lse)) throw InputError("softmax_lse", std::string("overlaps ") + name);
    }
    const IndexRanges indices = index_bytes(p, t);
    require_apart_from_indices(out, indices, "out", ": the run would write over an index array it reads");
    require_apart_from_indices(lse, indices, "softmax_lse", ": the run would write over an index array it reads");
}

}  // namespace

ByteRange out_bytes(const Problem& p, const DecodeTensors& t) { return head_tensor_bytes(p, t.o, t.dtype); }

ByteRange lse_bytes(const Problem& p, const DecodeTensors& t) {
    if (t.lse.data == nullptr) return {};
    return extent(t.lse.data, {{p.batch, t.lse.stride_batch}, {p.q_heads, t.lse.stride_head}, {p.q_len, t.lse.stride_token}}, 1, sizeof(float));
}

void check_workspace_apart(const Problem& p, const DecodeTensors& t, const void* workspace, std::size_t bytes, bool host_readable, Outputs outputs) {
    const auto begin = reinterpret_cast<std::uintptr_t>(workspace);
    const ByteRange mine{begin, bytes > UINTPTR_MAX - begin ? UINTPTR_MAX : begin + bytes};
    if (outputs == Outputs::written) {
        require(!mine.overlaps(out_bytes(p, t)), "workspace", "overlaps out: the run would write its partials over the output it computes");
        require(!mine.overlaps(lse_bytes(p, t)), "workspace", "overlaps softmax_lse");
    }
    const std::int64_t element = dtype_bytes(t.dtype);
    const char* why = ": the run writes its partials and tables there while it reads them (the workspace needs memory of its own)";
    for (const auto& [read, name] : {std::pair{head_tensor_bytes(p, t.q, t.dtype), "q"}, std::pair{cache_bytes(p, t.kv, t.kv.k, host_readable, element), "k_cache"},
                                     std::pair{cache_bytes(p, t.kv, t.kv.v, host_readable, element), "v_cache"}}) {
        if (mine.overlaps(read)) throw InputError("workspace", std::string("overlaps ") + name + why);
    }
    require_apart_from_indices(mine, index_bytes(p, t), "workspace", why);
}

void check_decode_tensors(const Problem& p, const DecodeTensors& t, bool host_readable, Outputs outputs) {
    const bool written = outputs == Outputs::written;
    check_strides(t.q, "q");
    if (written) check_strides(t.o, "out");
    require(!written || t.lse.data == nullptr || (t.lse.stride_batch >= 0 && t.lse.stride_head >= 0 && t.lse.stride_token >= 0), "softmax_lse",
            "strides must be non-negative");
    require(t.seqlens != nullptr, "cache_seqlens", "is missing");
    require(std::isfinite(t.softmax_scale) && t.softmax_scale >= 0.0f, "softmax_scale", "must be a finite positive number (0: 1/sqrt(head_dim))");
    check_cache_fields(p, t.kv);
    if (host_readable) check_live_values(p, t);
    if (written) check_written_apart(p, t, host_readable);  // after the live values: a ragged cache's extent reads cu_seqlens
}

}  // namespace leanattn
