#include "workspace.hpp"

#include "step_table.hpp"

namespace leanattn::cuda {

namespace {

std::size_t align_up(std::size_t n) { return (n + workspace_alignment - 1) / workspace_alignment * workspace_alignment; }

}  // namespace

std::int64_t partial_floats(const Problem& p) {
    return partial_slot_floats(p.block_rows(), p.head_dim);
}

WorkspaceLayout workspace_layout(const Schedule& plan) {
    WorkspaceLayout w;
    const auto batch = static_cast<std::size_t>(plan.problem.batch);
    // Several contributors per output: stream-k (a CTA boundary may fall inside an output) and fixed-split
    // with more than one split. no-split and a one-split fixed-split write O directly.
    const bool partials = plan.strategy == Strategy::stream_k || (plan.strategy == Strategy::fixed_split && plan.splits > 1);
    w.flag_count = plan.fused_reduction() ? plan.grid : 0;
    w.partial_floats = partial_floats(plan.problem);
    w.partial_slots = partials ? plan.grid : 0;
    w.split_count_entries = plan.strategy == Strategy::fixed_split && plan.splits > 1 ? plan.problem.outputs() : 0;

    std::size_t at = 0;
    auto section = [&at](std::size_t bytes) {
        const std::size_t start = at;
        at = align_up(at + bytes);
        return start;
    };
    w.live = section(sizeof(LivePlan));
    w.request_tiles = section(batch * sizeof(std::int64_t));
    w.request_offset = section((batch + 1) * sizeof(std::int64_t));
    w.flags = section(static_cast<std::size_t>(w.flag_count) * sizeof(std::int32_t));
    w.split_counts = section(static_cast<std::size_t>(w.split_count_entries) * sizeof(std::int32_t));
    w.partials = section(static_cast<std::size_t>(w.partial_slots * w.partial_floats) * sizeof(float));
    w.step_table = section(sizeof(StepTable));
    w.bytes = at;
    return w;
}

}  // namespace leanattn::cuda
