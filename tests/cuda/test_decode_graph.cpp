// A decode step captured once in a CUDA graph and replayed while the lengths in device memory grow: the
// contract that lets a serving loop replay one graph per step (cuda/decode.hpp). Every replay is checked
// against core's float64 reference of the lengths it saw. Skips, with a message, where no GPU is found.
#include <catch2/catch.hpp>

#include "core/reference.hpp"
#include "cuda/cuda_handles.hpp"
#include "cuda/decode.hpp"
#include "cuda/device_tensors.hpp"
#include "gpu_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

struct GrowingCase {
    const char* name;
    Problem capacity;                  // ctx: what each request's cache holds
    std::vector<std::int32_t> growth;  // tokens added to each request per step
    DType dtype;
    CacheLayout layout;
    std::int64_t block_size;
};

constexpr int steps = 100;

}  // namespace

TEST_CASE("a captured decode step replayed 100 times while the lengths grow matches float64 at every step") {
    if (!gpu_or_skip("the CUDA-graph replay test")) return;
    // Over 100 steps, +13 tokens crosses ten 128-token LeanTiles and eighty 16-token blocks; +1 crosses a
    // LeanTile boundary at most once, and +7 in between. Groups 1 (CUDA cores) and 4 (tensor cores).
    const GrowingCase cases[] = {
        {"MHA, paged cache, block 16", gpu_problem(8, 8, 128, {1700, 900, 1400}), {13, 1, 7}, DType::fp16, CacheLayout::paged, 16},
        {"GQA 4, ragged cache", gpu_problem(32, 8, 64, {2200, 1500}), {7, 13}, DType::bf16, CacheLayout::ragged, 16},
        {"GQA 2, token-major cache", gpu_problem(16, 8, 64, {3000, 700, 1800, 2500}), {13, 1, 7, 13}, DType::fp16, CacheLayout::token_major, 16},
    };
    for (const GrowingCase& c : cases) {
        const DeviceSpec device = cuda::live_device(c.capacity, c.dtype);
        for (Strategy strategy : {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split}) {
            CAPTURE(c.name, strategy_name(strategy));
            const Schedule plan = make_schedule(c.capacity, device, PlanOptions{.strategy = strategy});
            cuda::DeviceTensors tensors(c.capacity, c.dtype, c.layout, c.block_size, 5);
            cuda::HostTensors host = tensors.to_host();
            const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
            const cuda::Stream stream;
            auto lengths_at = [&](int step) {
                std::vector<std::int32_t> n;
                for (std::size_t b = 0; b < c.growth.size(); ++b) {
                    n.push_back(static_cast<std::int32_t>(c.capacity.ctx[b]) - (steps - 1 - step) * c.growth[b]);
                }
                return n;
            };
            tensors.set_seqlens(lengths_at(0), stream.get());
            const cuda::CapturedGraph step(stream.get(), [&](cudaStream_t s) {
                cuda::run(plan, tensors.view(), workspace.get(), workspace.bytes(), s);
            });
            for (int i = 0; i < steps; ++i) {
                CAPTURE(i);
                tensors.set_seqlens(lengths_at(i), stream.get());
                tensors.poison_outputs(stream.get());
                step.launch(stream.get());
                stream.synchronize();
                tensors.outputs_to_host(host);  // out, lse and the lengths the replay saw
                REQUIRE(host.seqlens == lengths_at(i));
                const ReferenceOutput ref = reference_attention(c.capacity, host.view());
                const Errors e = compare_to_reference(c.capacity, host.view(), ref);
                REQUIRE(e.non_finite == 0);
                REQUIRE(e.rel_l2 <= tolerance(c.dtype));
                REQUIRE(e.lse_max_abs <= 1e-3);
            }
        }
    }
}
