#include "run_checks.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "core/live_plan.hpp"
#include "decode.hpp"
#include "workspace.hpp"

namespace leanattn::cuda {

namespace {

constexpr std::int64_t vector_bytes = 16;

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % vector_bytes == 0; }
bool aligned(std::int64_t stride_elements, std::int64_t element_bytes) { return stride_elements * element_bytes % vector_bytes == 0; }

void require_aligned(const char* parameter, const void* data, std::initializer_list<std::int64_t> strides, std::int64_t element_bytes) {
    if (!aligned(data)) throw InputError(parameter, "its data pointer is not 16-byte aligned (the kernels load 16-byte vectors)");
    for (const std::int64_t s : strides) {
        if (!aligned(s, element_bytes)) {
            throw InputError(parameter, "stride " + std::to_string(s) + " elements is not a multiple of 16 bytes (the kernels load 16-byte vectors)");
        }
    }
}

}  // namespace

std::int64_t max_q_rows(std::int64_t head_dim) { return largest_gpu_tile_rows(head_dim); }

void check_supported(const Problem& p, DType dtype) {
    check_problem(p);  // the rules below divide by its head counts
    if (dtype != DType::fp16 && dtype != DType::bf16) {
        throw InputError("q dtype " + std::string(dtype_name(dtype)), "the CUDA kernels take fp16 or bf16 tensors");
    }
    if (p.head_dim != 64 && p.head_dim != 96 && p.head_dim != 128 && p.head_dim != 256) {
        throw InputError("head_dim " + std::to_string(p.head_dim), "the CUDA kernels take 64, 96, 128 or 256");
    }
    if (p.q_len < 1 || p.q_len > max_q_len) {
        throw InputError("q_len " + std::to_string(p.q_len), "the CUDA kernels decode 1 to " + std::to_string(max_q_len) + " new tokens per request");
    }
    const std::int64_t rows = p.rows();
    if (rows > max_kv_head_rows) {
        throw InputError("q", std::to_string(p.q_heads) + " query heads over " + std::to_string(p.kv_heads) + " KV heads x q_len " + std::to_string(p.q_len) +
                                  " = " + std::to_string(rows) + " query rows per KV head: the CUDA kernels take at most " + std::to_string(max_kv_head_rows) +
                                  " (128 query heads per KV head at q_len 8)");
    }
    const std::int64_t most = max_q_rows(p.head_dim);
    if (p.block_rows() > most) {
        throw InputError("tile_rows " + std::to_string(p.tile_rows), "an output tile of " + std::to_string(p.block_rows()) + " query rows: the CUDA kernels hold at most " +
                                                                      std::to_string(most) + " at head_dim " + std::to_string(p.head_dim) + ": ask for " + std::to_string(most) +
                                                                      " or fewer (the default, " + std::to_string(default_tile_rows) + ", always fits)");
    }
}

void check_alignment(const DecodeTensors& t, Outputs outputs) {
    const std::int64_t e = dtype_bytes(t.dtype);
    const bool written = outputs == Outputs::written;
    require_aligned("q", t.q.data, {t.q.stride_batch, t.q.stride_token, t.q.stride_head}, e);
    if (written) require_aligned("out", t.o.data, {t.o.stride_batch, t.o.stride_token, t.o.stride_head}, e);
    const KvCacheView& kv = t.kv;
    require_aligned("k_cache", kv.k, {kv.stride_request, kv.stride_token, kv.stride_head}, e);
    require_aligned("v_cache", kv.v, {kv.stride_request, kv.stride_token, kv.stride_head}, e);
    auto natural = [](const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; };
    if (written && !natural(t.lse.data, sizeof(float))) throw InputError("softmax_lse", "its data pointer is not 4-byte aligned");
    if (!natural(t.seqlens, sizeof(std::int32_t))) throw InputError("cache_seqlens", "its data pointer is not 4-byte aligned");
    if (!natural(kv.block_table, sizeof(std::int32_t))) throw InputError("block_table", "its data pointer is not 4-byte aligned");
    if (!natural(kv.cu_seqlens, sizeof(std::int32_t))) throw InputError("cu_seqlens", "its data pointer is not 4-byte aligned");
}

void check_workspace(const Schedule& plan, const void* workspace, std::size_t bytes) {
    const std::size_t needed = workspace_bytes(plan);
    if (workspace == nullptr) throw InputError("workspace", "is missing (allocate workspace_bytes(plan) bytes of device memory)");
    if (reinterpret_cast<std::uintptr_t>(workspace) % vector_bytes != 0) throw InputError("workspace", "is not 16-byte aligned");
    if (bytes < needed) {
        throw InputError("workspace_bytes " + std::to_string(bytes), "the plan needs " + std::to_string(needed) + " bytes (workspace_bytes(plan))");
    }
}

void check_residency(const Schedule& plan, const KvCacheView& kv, std::int64_t sms, std::int64_t ctas_per_sm) {
    if (!plan.fused_reduction()) return;
    const std::int64_t resident = sms * ctas_per_sm;
    if (plan.grid <= resident) return;
    if (plan.whole_outputs()) {  // no host waits while no output outgrows the longest the plan was made for
        const std::vector<std::int64_t>& ctx = plan.problem.ctx;
        const auto longest = std::max_element(ctx.begin(), ctx.end());
        const std::int64_t tile = plan.problem.tile;
        if (kv.layout == KvLayout::ragged || longest == ctx.end() || plan::tiles_for(kv.capacity, tile) <= plan::tiles_for(*longest, tile)) return;
        throw InputError("k_cache", "holds " + std::to_string(kv.capacity) + " tokens per request, more than the " + std::to_string(*longest) +
                                        " this plan was made for at most: its grid of " + std::to_string(plan.grid) + " CTAs exceeds the " +
                                        std::to_string(resident) + " this GPU holds at once, safe only while every output stays whole, which "
                                        "longer lengths could split; make the plan for the cache's capacity");
    }
    throw InputError("plan", "its grid of " + std::to_string(plan.grid) + " CTAs (made for " + plan.device.name + ", " +
                                 std::to_string(plan.device.resident_ctas()) + " resident CTAs) exceeds the " + std::to_string(resident) +
                                 " this GPU holds at once for this kernel (" + std::to_string(sms) + " SMs x " + std::to_string(ctas_per_sm) +
                                 " per SM): a host could wait on a CTA that never starts; make the plan with live_device()");
}

}  // namespace leanattn::cuda
