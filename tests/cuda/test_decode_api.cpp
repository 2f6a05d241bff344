// The decode API's promises on a GPU (cuda/decode.hpp): run() allocates nothing and never synchronises,
// refuses bad input before it enqueues anything, derives the same live plan on the device as core's
// live_view on the host, reads every cache layout's tokens alike, gives bitwise-identical results run to
// run, and its traced kernel records the plan it ran. Skips, with a message, where no GPU is found.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "core/input_error.hpp"
#include "core/live_plan.hpp"
#include "core/reference.hpp"
#include "core/walker.hpp"
#include "cuda/cuda_handles.hpp"
#include "cuda/decode.hpp"
#include "cuda/device_tensors.hpp"
#include "cuda/trace.hpp"
#include "cuda/workspace.hpp"
#include "gpu_fixtures.hpp"

using namespace leanattn;
using namespace leanattn::testing;

namespace {

constexpr Strategy all_strategies[] = {Strategy::stream_k, Strategy::fixed_split, Strategy::no_split};

template <typename T>
std::vector<T> download(const void* device, std::size_t count) {
    std::vector<T> host(count);
    if (count != 0) cuda::check(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
}

// One step of `plan` on `view` with out and lse poisoned first (a kernel that skipped a row cannot pass), its outputs
// read back into `host`: a host-lengths step at `lengths`, or without them a step of run().
void run_to_host(const Schedule& plan, const DecodeTensors& view, const cuda::DeviceBuffer& workspace, cuda::DeviceTensors& tensors,
                 cuda::HostTensors& host, const cuda::Stream& stream, const cuda::HostLengths* lengths = nullptr) {
    tensors.poison_outputs(stream.get());
    if (lengths != nullptr) cuda::run(plan, view, *lengths, workspace.get(), workspace.bytes(), stream.get());
    else cuda::run(plan, view, workspace.get(), workspace.bytes(), stream.get());
    stream.synchronize();
    tensors.outputs_to_host(host);
}

std::size_t free_device_memory() {
    std::size_t free = 0, total = 0;
    cuda::check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free;
}

}  // namespace

TEST_CASE("run() allocates nothing and never synchronises: it captures in global mode, and 1000 runs leave free memory as it was") {
    if (!gpu_or_skip("the no-allocation test")) return;
    const Problem p = gpu_problem(32, 8, 128, {5000, 300, 2000});
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::paged, 16, 3);
    const cuda::Stream stream;
    for (Strategy strategy : all_strategies) {
        CAPTURE(strategy_name(strategy));
        const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        auto step = [&](cudaStream_t s) { cuda::run(plan, tensors.view(), workspace.get(), workspace.bytes(), s); };
        // In the global capture mode, cudaMalloc, a synchronising call or a legacy-stream launch fails.
        const cuda::CapturedGraph graph(stream.get(), step, cudaStreamCaptureModeGlobal);
        CHECK(static_cast<std::int64_t>(graph.nodes()) == 1 + plan.launches);  // prologue, decode (, reduce)
        for (int i = 0; i < 5; ++i) step(stream.get());  // modules load lazily at a kernel's first launch
        stream.synchronize();
        const std::size_t before = free_device_memory();
        for (int i = 0; i < 1000; ++i) step(stream.get());
        stream.synchronize();
        CHECK(free_device_memory() == before);
    }
}

TEST_CASE("run() refuses bad input before it enqueues anything") {
    if (!gpu_or_skip("the refusal test")) return;
    Problem p = gpu_problem(32, 8, 128, {1, 1});
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    DeviceSpec twice = device;
    twice.sms *= 2;
    // Enough LeanTiles (16 outputs) for a stream-k grid of twice the resident CTAs.
    const std::int64_t n = (2 * twice.resident_ctas() / 16 + 1) * p.tile;
    p.ctx = {n, 1000};
    const Schedule plan = make_schedule(p, device, {});
    PlanOptions paper;  // the paper's rule keeps the full grid (the aligned rule may choose fewer CTAs)
    paper.stream_k_rule = StreamKRule::paper;
    const Schedule too_big = make_schedule(p, twice, paper);
    REQUIRE(too_big.grid > device.resident_ctas());
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::padded, 16, 1);
    const cuda::DeviceBuffer workspace(std::max(cuda::workspace_bytes(plan), cuda::workspace_bytes(too_big)));
    const cuda::Stream stream;
    DecodeTensors t = tensors.view();
    const Schedule* which = &plan;
    std::size_t bytes = workspace.bytes();
    void* workspace_at = workspace.get();
    std::string parameter = "accepted";
    SECTION("good input is enqueued") { parameter = "accepted"; }
    SECTION("misaligned q") { t.q.data = static_cast<char*>(t.q.data) + 2, parameter = "q ("; }
    SECTION("no cache_seqlens") { t.seqlens = nullptr, parameter = "cache_seqlens ("; }
    SECTION("fp32 tensors") { t.dtype = DType::fp32, parameter = "q dtype fp32"; }
    SECTION("a short workspace") { bytes = cuda::workspace_bytes(plan) - 16, parameter = "workspace_bytes"; }
    SECTION("a cache too small for the plan") { t.kv.capacity = n - 1, parameter = "k_cache ("; }
    SECTION("a stream-k plan made for a GPU with twice the SMs") { which = &too_big, parameter = "plan ("; }
    SECTION("out one row into q") { t.o.data = static_cast<char*>(t.q.data) + 128 * 2, parameter = "out (overlaps q"; }
    SECTION("out's heads on one row") { t.o.stride_head = 0, parameter = "out (rows overlap"; }
    SECTION("softmax_lse inside the K cache") { t.lse.data = static_cast<float*>(const_cast<void*>(t.kv.k)), parameter = "softmax_lse (overlaps k_cache"; }
    // (The ranges these start may reach a neighbouring allocation too, and be named for it: the refusal is what counts.)
    SECTION("out on the lengths") { t.o.data = const_cast<std::int32_t*>(t.seqlens), parameter = "out (overlaps"; }
    SECTION("the workspace on V") { workspace_at = const_cast<void*>(t.kv.v), parameter = "workspace (overlaps"; }
    SECTION("the workspace on the lengths") { workspace_at = const_cast<std::int32_t*>(t.seqlens), parameter = "workspace (overlaps"; }
    // Whatever run() enqueued before refusing would land in the graph.
    cuda::check(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), "begin capture");
    std::string refusal = "accepted";
    try {
        cuda::run(*which, t, workspace_at, bytes, stream.get());
    } catch (const InputError& e) {
        refusal = e.what();
    }
    cudaGraph_t graph = nullptr;
    cuda::check(cudaStreamEndCapture(stream.get(), &graph), "end capture");
    std::size_t nodes = 0;
    cuda::check(cudaGraphGetNodes(graph, nullptr, &nodes), "graph nodes");
    cudaGraphDestroy(graph);
    CHECK_THAT(refusal, Catch::StartsWith(parameter));
    CHECK(nodes == (refusal == "accepted" ? static_cast<std::size_t>(1 + plan.launches) : 0));
}

TEST_CASE("the prologue derives core's live_view on the device, for batches across its 1024-request chunks, and a run leaves every flag 0") {
    if (!gpu_or_skip("the live-plan prologue test")) return;
    std::mt19937_64 rng(17);
    for (std::int64_t batch : {1, 31, 1024, 1025, 3000}) {
        std::vector<std::int64_t> capacity;
        for (std::int64_t b = 0; b < batch; ++b) capacity.push_back(std::uniform_int_distribution<std::int64_t>(1, 700)(rng));
        const Problem p = gpu_problem(4, 2, 64, capacity);
        const DeviceSpec device = cuda::live_device(p, DType::bf16);
        cuda::DeviceTensors tensors(p, DType::bf16, CacheLayout::ragged, 16, 2);
        cuda::HostTensors host = tensors.to_host();
        for (std::int32_t& n : host.seqlens) {  // live lengths, some out of range: the device clamps them like the host
            const int pick = static_cast<int>(rng() % 8);
            n = pick == 0 ? -4 : pick == 1 ? n + 50 : static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(n) + 1);
        }
        tensors.upload_inputs(host);
        const cuda::Stream stream;
        for (Strategy strategy : all_strategies) {
            CAPTURE(batch, strategy_name(strategy));
            const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
            const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
            // On the run's stream: a plain cudaMemset goes to the legacy stream, which a non-blocking stream does not
            // wait for (on a GPU shared with another process it once landed after the prologue's stores).
            cuda::check(cudaMemsetAsync(workspace.get(), 0x7F, workspace.bytes(), stream.get()), "dirty workspace");
            cuda::run(plan, tensors.view(), workspace.get(), workspace.bytes(), stream.get());
            stream.synchronize();
            std::vector<std::int64_t> tiles(static_cast<std::size_t>(batch)), offset(tiles.size() + 1);
            const DecodeTensors h = host.view();
            const PlanView expected = live_view(plan, h.kv, h.seqlens, tiles.data(), offset.data());
            const cuda::WorkspaceLayout w = cuda::workspace_layout(plan);
            const auto* base = workspace.get<unsigned char>();
            const auto live = download<cuda::LivePlan>(base + w.live, 1).front();
            CHECK(download<std::int64_t>(base + w.request_tiles, tiles.size()) == tiles);
            CHECK(download<std::int64_t>(base + w.request_offset, offset.size()) == offset);
            CHECK(live.total_tiles == expected.total_tiles);
            CHECK(live.chunk == expected.chunk);
            CHECK(live.snap == expected.snap);
            CHECK(live.strategy == expected.strategy);
            // After the run every flag is 0 again: the prologue cleared the dirt, each peer that stored a partial
            // raised its flag and its host lowered it once read (a host-lengths step, with no prologue, relies on it). A
            // step that walks as no-split at the plan's own lengths uses none and leaves them as they were.
            if (plan.one_output_per_cta && expected.total_tiles == plan.total_tiles) continue;
            const auto flags = download<std::int32_t>(base + w.flags, static_cast<std::size_t>(w.flag_count));
            for (std::int64_t g = 0; g < w.flag_count; ++g) CHECK(flags[static_cast<std::size_t>(g)] == 0);
        }
    }
}

TEST_CASE("a stream-k plan of one whole output per CTA walks as no-split on the device: the prologue says so, the bits are no-split's") {
    if (!gpu_or_skip("the one-output-per-CTA test")) return;
    const Problem p = gpu_problem(16, 16, 64, {1024, 1024, 1024, 1024});
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    // Whole outputs on a grid of the outputs: CTA g holds output g at the plan's lengths.
    const Schedule stream_k = make_schedule(p, device, PlanOptions{.grid = p.outputs(), .snap = std::int64_t{1} << 20});
    const Schedule no_split = make_schedule(p, device, PlanOptions{.strategy = Strategy::no_split});
    REQUIRE(stream_k.one_output_per_cta);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::padded, 16, 12);
    cuda::HostTensors host = tensors.to_host();
    const cuda::Stream stream;
    const cuda::DeviceBuffer workspace(cuda::workspace_bytes(stream_k)), other(cuda::workspace_bytes(no_split));
    int converted = 0;
    for (std::vector<std::int32_t> lengths : {std::vector<std::int32_t>{1024, 1024, 1024, 1024}, {700, 700, 700, 700}, {1024, 200, 200, 200}}) {
        CAPTURE(lengths);
        host.seqlens = lengths;
        tensors.upload_inputs(host);
        tensors.poison_outputs(stream.get());
        cuda::run(stream_k, tensors.view(), workspace.get(), workspace.bytes(), stream.get());
        stream.synchronize();
        const std::vector<unsigned char> got = tensors.to_host().o;
        std::vector<std::int64_t> tiles(4), offset(5);
        const DecodeTensors h = host.view();
        const PlanView expected = live_view(stream_k, h.kv, h.seqlens, tiles.data(), offset.data());
        const auto live = download<cuda::LivePlan>(workspace.get<unsigned char>() + cuda::workspace_layout(stream_k).live, 1).front();
        CHECK(live.strategy == expected.strategy);
        if (expected.strategy != Strategy::no_split) continue;
        ++converted;
        tensors.poison_outputs(stream.get());
        cuda::run(no_split, tensors.view(), other.get(), other.bytes(), stream.get());
        stream.synchronize();
        CHECK(tensors.to_host().o == got);
    }
    CHECK(converted == 2);  // at capacity and all alike shorter; the ragged step stays stream-k
}

TEST_CASE("every cache layout holding the same tokens gives the padded cache's bits, run after run") {
    if (!gpu_or_skip("the layout equivalence test")) return;
    const Problem p = gpu_problem(16, 4, 128, {3000, 129, 1, 2049});
    for (DType dtype : {DType::fp16, DType::bf16}) {
        const DeviceSpec device = cuda::live_device(p, dtype);
        cuda::DeviceTensors padded(p, dtype, CacheLayout::padded, 16, 9);
        const cuda::HostTensors source = padded.to_host();
        const cuda::Stream stream;
        for (Strategy strategy : all_strategies) {
            const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
            const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
            cuda::run(plan, padded.view(), workspace.get(), workspace.bytes(), stream.get());
            stream.synchronize();
            cuda::HostTensors want = padded.to_host();
            for (CacheLayout layout : {CacheLayout::padded, CacheLayout::token_major, CacheLayout::paged, CacheLayout::ragged}) {
                for (std::int64_t block_size : {std::int64_t{1}, std::int64_t{16}, std::int64_t{256}}) {
                    if (layout != CacheLayout::paged && block_size != 16) continue;
                    CAPTURE(dtype_name(dtype), strategy_name(strategy), cache_layout_name(layout), block_size);
                    cuda::DeviceTensors other(p, dtype, layout, block_size, 4);
                    cuda::HostTensors copy = other.to_host();
                    // The padded cache's tokens, each moved to where this layout keeps it (core's kv_offset).
                    const std::int64_t e = dtype_bytes(dtype), row = p.head_dim * e;
                    cuda::HostTensors src = source;
                    const DecodeTensors from = src.view(), to = copy.view();
                    for (std::int64_t b = 0; b < p.batch; ++b) {
                        for (std::int64_t h = 0; h < p.kv_heads; ++h) {
                            for (std::int64_t tok = 0; tok < p.ctx[b]; ++tok) {
                                const std::int64_t a = tensors::kv_offset(from.kv, b, h, tok) * e, z = tensors::kv_offset(to.kv, b, h, tok) * e;
                                std::memcpy(copy.k.data() + z, source.k.data() + a, static_cast<std::size_t>(row));
                                std::memcpy(copy.v.data() + z, source.v.data() + a, static_cast<std::size_t>(row));
                            }
                        }
                    }
                    copy.q = source.q;
                    other.upload_inputs(copy);
                    for (int again = 0; again < 2; ++again) {
                        other.poison_outputs(stream.get());
                        cuda::run(plan, other.view(), workspace.get(), workspace.bytes(), stream.get());
                        stream.synchronize();
                        other.outputs_to_host(copy);
                        REQUIRE(copy.o == want.o);
                        REQUIRE(std::memcmp(copy.lse.data(), want.lse.data(), want.lse.size() * sizeof(float)) == 0);
                    }
                }
            }
        }
    }
}

TEST_CASE("the traced kernel records every CTA and segment of the plan, on real SMs, and computes the same bits") {
    if (!gpu_or_skip("the trace test")) return;
    const Problem p = gpu_problem(32, 8, 128, {20000, 3000, 100});
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::paged, 16, 8);
    const cuda::Stream stream;
    for (Strategy strategy : all_strategies) {
        CAPTURE(strategy_name(strategy));
        const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        cuda::run(plan, tensors.view(), workspace.get(), workspace.bytes(), stream.get());
        stream.synchronize();
        const std::vector<unsigned char> plain = tensors.to_host().o;

        const PlanView live = plan.view();  // the lengths on the device are the plan's
        const std::int64_t per_cta = cuda::trace_segments_per_cta(live);
        cuda::DeviceBuffer ctas(static_cast<std::size_t>(plan.grid) * sizeof(cuda::TraceCtaRecord));
        cuda::DeviceBuffer segments(static_cast<std::size_t>(plan.grid * per_cta) * sizeof(cuda::TraceSegmentRecord));
        cuda::check(cudaMemsetAsync(ctas.get(), 0, ctas.bytes(), stream.get()), "clear");
        cuda::check(cudaMemsetAsync(segments.get(), 0, segments.bytes(), stream.get()), "clear");
        tensors.poison_outputs(stream.get());
        cuda::run_traced(plan, tensors.view(), workspace.get(), workspace.bytes(), stream.get(),
                         {ctas.get<cuda::TraceCtaRecord>(), segments.get<cuda::TraceSegmentRecord>(), per_cta});
        stream.synchronize();
        CHECK(tensors.to_host().o == plain);
        const cuda::KernelTrace trace = cuda::assemble_trace(plan, live, download<cuda::TraceCtaRecord>(ctas.get(), static_cast<std::size_t>(plan.grid)),
                                                              download<cuda::TraceSegmentRecord>(segments.get(), static_cast<std::size_t>(plan.grid * per_cta)), per_cta);
        CHECK(trace.makespan_ns > 0);
        for (const cuda::CtaTimes& c : trace.ctas) {
            CHECK(c.sm < device.sms);
            for (const cuda::SegmentTimes& s : c.segments) CHECK((s.role == cuda::SegmentRole::reduce) == (s.wait_begin_ns >= 0));
        }
    }
}

TEST_CASE("a request that holds no token (a padded batch's empty slot) gets out 0 and lse -inf, as rows that see no token do, and the others their attention") {
    if (!gpu_or_skip("the empty request test")) return;
    Problem p = gpu_problem(8, 2, 128, {600, 900, 300, 700});
    p.q_len = 2;
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::paged, 16, 3);
    cuda::HostTensors host = tensors.to_host();
    const cuda::Stream stream;
    // Lengths as a device-path step takes them unchecked: 0, below zero (clamped to 0), 1 (its first row sees no token).
    host.seqlens = {0, 900, -5, 1};
    tensors.upload_inputs(host);
    for (Strategy strategy : all_strategies) {
        CAPTURE(strategy_name(strategy));
        const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        run_to_host(plan, tensors.view(), workspace, tensors, host, stream);
        const DecodeTensors h = host.view();
        const ReferenceOutput ref = reference_attention(p, h);
        double err = 0.0, norm = 0.0;
        for (std::int64_t b = 0; b < p.batch; ++b) {
            for (std::int64_t token = 0; token < p.q_len; ++token) {
                const bool sees_none = tensors::live_tokens(h.kv, h.seqlens, b) - p.q_len + token + 1 <= 0;
                for (std::int64_t head = 0; head < p.q_heads; ++head) {
                    CAPTURE(b, token, head);
                    const float lse = h.lse.data[tensors::lse_offset(h.lse, b, token, head)];
                    const std::int64_t at = tensors::row_offset(h.o, b, token, head);
                    for (std::int64_t i = 0; i < p.head_dim; ++i) {
                        const double o = element_to_float(DType::fp16, host.o.data() + (at + i) * 2);
                        const double r = ref.o[static_cast<std::size_t>(((b * p.q_len + token) * p.q_heads + head) * p.head_dim + i)];
                        if (sees_none) {
                            REQUIRE(o == 0.0);
                        } else {
                            err += (o - r) * (o - r), norm += r * r;
                        }
                    }
                    if (sees_none) CHECK((std::isinf(lse) && lse < 0));
                    else CHECK(std::isfinite(lse));
                }
            }
        }
        CHECK(std::sqrt(err / norm) <= tolerance(DType::fp16));
    }
}

TEST_CASE("a ragged part that starts before row 0 or ends before it begins holds no token and nothing is read before k in a step of run() or a host-lengths step") {
    if (!gpu_or_skip("the ragged parts test")) return;
    const Problem p = gpu_problem(8, 2, 128, {600, 900, 300, 700});
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::ragged, 16, 5);
    cuda::HostTensors host = tensors.to_host();
    // Request 0's part from row -8 (it would read 8 rows before k), request 1's ending 100 rows before it begins; request
    // 2's part then starts inside request 1's rows, where it reads its 300 tokens (any rows of k are the caller's choice).
    host.cu_seqlens[0] = -8;
    host.cu_seqlens[2] = host.cu_seqlens[1] - 100;
    tensors.upload_inputs(host);
    const cuda::Stream stream;
    const cuda::HostLengths host_lengths{host.seqlens.data(), host.cu_seqlens.data()};
    for (Strategy strategy : all_strategies) {
        for (const bool host_step : {false, true}) {
            CAPTURE(strategy_name(strategy), host_step);
            const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
            const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
            cuda::check(cudaMemsetAsync(workspace.get(), 0, workspace.bytes(), stream.get()), "zero the workspace");  // host-lengths steps need it
            run_to_host(plan, tensors.view(), workspace, tensors, host, stream, host_step ? &host_lengths : nullptr);
            const DecodeTensors h = host.view();
            REQUIRE(tensors::live_tokens(h.kv, h.seqlens, 0) == 0);
            REQUIRE(tensors::live_tokens(h.kv, h.seqlens, 1) == 0);
            const ReferenceOutput ref = reference_attention(p, h);
            const Errors errors = compare_to_reference(p, h, ref);  // an empty request's rows: 0, lse -inf
            CHECK(errors.rel_l2 <= tolerance(DType::fp16));
            CHECK(errors.non_finite == 0);
            CHECK(errors.lse_max_abs <= lse_tolerance);
            for (std::int64_t head = 0; head < p.q_heads; ++head) {
                const float lse = h.lse.data[tensors::lse_offset(h.lse, 0, 0, head)];
                CHECK((std::isinf(lse) && lse < 0));
                CHECK(element_to_float(DType::fp16, host.o.data() + tensors::row_offset(h.o, 1, 0, head) * 2) == 0.0);
            }
        }
    }
}

TEST_CASE("one-row output tiles of several new tokens (tile_rows 1, q_len 3) see only their causal prefix, for every strategy and head dim") {
    if (!gpu_or_skip("the one-row causal test")) return;
    for (const std::int64_t head_dim : {64, 96, 128, 256}) {
        Problem p = gpu_problem(4, 2, head_dim, {1500, 700});
        p.q_len = 3, p.tile_rows = 1;  // six rows a KV head, each its own output tile
        const DeviceSpec device = cuda::live_device(p, DType::bf16);
        cuda::DeviceTensors tensors(p, DType::bf16, CacheLayout::paged, 16, 9);
        cuda::HostTensors host = tensors.to_host();
        const ReferenceOutput ref = reference_attention(p, host.view());
        const cuda::Stream stream;
        for (Strategy strategy : all_strategies) {
            CAPTURE(head_dim, strategy_name(strategy));
            const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
            const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
            run_to_host(plan, tensors.view(), workspace, tensors, host, stream);
            const Errors e = compare_to_reference(p, host.view(), ref);
            REQUIRE(e.non_finite == 0);
            REQUIRE(e.rel_l2 <= tolerance(DType::bf16));
            REQUIRE(e.lse_max_abs <= lse_tolerance);
        }
    }
}

TEST_CASE("a NaN in a KV head's keys makes that head's rows NaN, one in q its row, as on the CPU, in a step of run() and a host-lengths step, and the other rows exact") {
    if (!gpu_or_skip("the NaN test")) return;
    Problem p = gpu_problem(8, 2, 128, {2000, 900});
    p.q_len = 2;
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::paged, 16, 5);
    cuda::HostTensors host = tensors.to_host();
    const ReferenceOutput clean = reference_attention(p, host.view());
    const std::uint16_t nan_bits = 0x7E00;
    // Request 0, KV head 1, token 700 (inside a block); request 1, KV head 0, token 0 (the first a segment reads); request
    // 1's new token 0 of query head 4 (KV head 1): every score of that row NaN.
    for (const std::int64_t at : {tensors::kv_offset(host.view().kv, 0, 1, 700) + 9, tensors::kv_offset(host.view().kv, 1, 0, 0) + 100}) {
        std::memcpy(host.k.data() + at * 2, &nan_bits, 2);
    }
    std::memcpy(host.q.data() + (tensors::row_offset(host.view().q, 1, 0, 4) + 17) * 2, &nan_bits, 2);
    tensors.upload_inputs(host);
    const cuda::Stream stream;
    const cuda::HostLengths lengths{host.seqlens.data(), nullptr};
    for (Strategy strategy : all_strategies) {
        const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        cuda::check(cudaMemsetAsync(workspace.get(), 0, workspace.bytes(), stream.get()), "zero the workspace");
        for (const bool host_lengths : {false, true}) {
            CAPTURE(strategy_name(strategy), host_lengths);
            run_to_host(plan, tensors.view(), workspace, tensors, host, stream, host_lengths ? &lengths : nullptr);
            const DecodeTensors h = host.view();
            for (std::int64_t b = 0; b < p.batch; ++b) {
                for (std::int64_t token = 0; token < p.q_len; ++token) {
                    for (std::int64_t head = 0; head < p.q_heads; ++head) {
                        const std::int64_t kv_head = head / p.group();  // every row of a KV head sees tokens 0 and 700
                        const bool nan_row = (b == 0 && kv_head == 1) || (b == 1 && kv_head == 0) || (b == 1 && token == 0 && head == 4);
                        const std::int64_t at = tensors::row_offset(h.o, b, token, head);
                        const float lse = h.lse.data[tensors::lse_offset(h.lse, b, token, head)];
                        REQUIRE(std::isnan(lse) == nan_row);
                        for (std::int64_t i = 0; i < p.head_dim; ++i) {
                            const double o = element_to_float(DType::fp16, host.o.data() + (at + i) * 2);
                            if (nan_row) REQUIRE(std::isnan(o));
                            else REQUIRE(o == Approx(clean.o[static_cast<std::size_t>(((b * p.q_len + token) * p.q_heads + head) * p.head_dim + i)]).margin(2e-3));
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("out may be q itself (in place): the bits of a separate out, for every strategy") {
    if (!gpu_or_skip("the in-place test")) return;
    Problem p = gpu_problem(32, 8, 128, {3000, 700, 1500});
    p.q_len = 2;  // 8 rows a KV head, each output tile's own query rows
    const DeviceSpec device = cuda::live_device(p, DType::bf16);
    const cuda::Stream stream;
    for (Strategy strategy : all_strategies) {
        CAPTURE(strategy_name(strategy));
        cuda::DeviceTensors tensors(p, DType::bf16, CacheLayout::paged, 16, 8);
        cuda::HostTensors host = tensors.to_host();
        const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        run_to_host(plan, tensors.view(), workspace, tensors, host, stream);
        DecodeTensors in_place = tensors.view();
        in_place.o = in_place.q;
        cuda::run(plan, in_place, workspace.get(), workspace.bytes(), stream.get());
        stream.synchronize();
        CHECK(download<unsigned char>(in_place.q.data, host.o.size()) == host.o);
    }
}

TEST_CASE("the caller's softmax_scale is used, and a missing softmax_lse is skipped without touching out's bits") {
    if (!gpu_or_skip("the scale and LSE test")) return;
    const Problem p = gpu_problem(8, 8, 64, {3000, 70});
    const DeviceSpec device = cuda::live_device(p, DType::fp16);
    cuda::DeviceTensors tensors(p, DType::fp16, CacheLayout::token_major, 16, 6);
    cuda::HostTensors host = tensors.to_host();
    const cuda::Stream stream;
    for (Strategy strategy : all_strategies) {
        CAPTURE(strategy_name(strategy));
        const Schedule plan = make_schedule(p, device, PlanOptions{.strategy = strategy});
        const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
        DecodeTensors t = tensors.view();
        t.softmax_scale = 0.03f;  // not 1/sqrt(64) = 0.125: a kernel that ignored it would be far off
        run_to_host(plan, t, workspace, tensors, host, stream);
        DecodeTensors h = host.view();
        h.softmax_scale = t.softmax_scale;
        const Errors e = compare_to_reference(p, h, reference_attention(p, h));
        CHECK(e.non_finite == 0);
        CHECK(e.rel_l2 <= tolerance(DType::fp16));
        CHECK(e.lse_max_abs <= 1e-3);
        const std::vector<unsigned char> with_lse = host.o;

        t.lse.data = nullptr;
        run_to_host(plan, t, workspace, tensors, host, stream);
        CHECK(host.o == with_lse);
        const bool lse_untouched = std::all_of(host.lse.begin(), host.lse.end(), [](float x) { return std::isnan(x); });
        CHECK(lse_untouched);
    }
}

TEST_CASE("a host-lengths step, and a staged one, compute run()'s bits at the same lengths (empty slots among them), for every strategy and layout, replayed from a graph, and leave the flags 0") {
    if (!gpu_or_skip("the host-lengths step test")) return;
    struct Case {
        Problem capacity;
        DType dtype;
        CacheLayout layout;
    };
    Problem mqa = gpu_problem(20, 1, 64, {2500, 300, 4000});  // 20 rows x q_len 2: three row blocks of 16
    mqa.q_len = 2;
    const Case cases[] = {
        {gpu_problem(8, 8, 128, {1700, 900, 1400}), DType::fp16, CacheLayout::paged},   // CUDA cores
        {gpu_problem(32, 8, 64, {2200, 1500}), DType::bf16, CacheLayout::ragged},       // tensor cores
        {gpu_problem(16, 4, 96, {3000, 700, 1800, 2500}), DType::fp16, CacheLayout::token_major},
        {gpu_problem(8, 2, 256, {5000, 33}), DType::bf16, CacheLayout::padded},
        {mqa, DType::fp16, CacheLayout::padded},
        {gpu_problem(8, 8, 64, std::vector<std::int64_t>(80, 300)), DType::fp16, CacheLayout::padded},  // no-split: more CTAs than a launch's table
    };
    std::mt19937_64 rng(29);
    for (const Case& c : cases) {
        const DeviceSpec device = cuda::live_device(c.capacity, c.dtype);
        cuda::DeviceTensors tensors(c.capacity, c.dtype, c.layout, 16, 3);
        cuda::HostTensors host = tensors.to_host();
        // One step at the capacities, live lengths below them (the capacity plan walked shorter), and the same with
        // every other request an empty slot (0 tokens: no segment visits it, and its rows are written all the same).
        for (int lengths_kind = 0; lengths_kind < 3; ++lengths_kind) {
            std::vector<std::int32_t> lengths;
            for (std::int64_t cap : c.capacity.ctx) {
                const bool empty = lengths_kind == 2 && lengths.size() % 2 == 0;
                lengths.push_back(lengths_kind == 0 ? static_cast<std::int32_t>(cap)
                                  : empty       ? 0
                                                : static_cast<std::int32_t>(c.capacity.q_len + rng() % static_cast<std::uint64_t>(cap - c.capacity.q_len + 1)));
            }
            const cuda::Stream stream;
            tensors.set_seqlens(lengths, stream.get());
            const cuda::HostLengths host_lengths{lengths.data(), tensors.layout().cu_seqlens.empty() ? nullptr : tensors.layout().cu_seqlens.data()};
            for (Strategy strategy : all_strategies) {
                CAPTURE(c.capacity.q_heads, c.capacity.kv_heads, c.capacity.head_dim, cache_layout_name(c.layout), lengths_kind, strategy_name(strategy));
                const Schedule plan = make_schedule(c.capacity, device, PlanOptions{.strategy = strategy});
                const cuda::DeviceBuffer workspace(cuda::workspace_bytes(plan));
                cuda::check(cudaMemsetAsync(workspace.get(), 0, workspace.bytes(), stream.get()), "zero the workspace");
                run_to_host(plan, tensors.view(), workspace, tensors, host, stream);
                const std::vector<unsigned char> want_o = host.o;
                const std::vector<float> want_lse = host.lse;
                const ReferenceOutput ref = reference_attention(c.capacity, host.view());
                const Errors errors = compare_to_reference(c.capacity, host.view(), ref);  // an empty slot's row: 0, lse −∞
                REQUIRE(errors.rel_l2 <= tolerance(c.dtype));
                REQUIRE(errors.non_finite == 0);
                REQUIRE(errors.lse_max_abs <= lse_tolerance);
                const cuda::CapturedGraph step(stream.get(), [&](cudaStream_t s) {
                    cuda::run(plan, tensors.view(), host_lengths, workspace.get(), workspace.bytes(), s);
                });
                for (int replay = 0; replay < 3; ++replay) {
                    tensors.poison_outputs(stream.get());
                    step.launch(stream.get());
                    stream.synchronize();
                    tensors.outputs_to_host(host);
                    REQUIRE(host.o == want_o);
                    REQUIRE(std::memcmp(host.lse.data(), want_lse.data(), want_lse.size() * sizeof(float)) == 0);
                }
                // A staged step: the table staged before each replay of a graph holding run_staged alone, the same bits (a plan
                // too large for a table, the last case, runs as run() does: its lengths read on the device).
                const cuda::CapturedGraph staged(stream.get(), [&](cudaStream_t s) {
                    // Staging inside a capture is refused (a copy node would cost the replay ~9 us).
                    REQUIRE_THROWS_AS(cuda::stage_step(plan, tensors.view(), host_lengths, workspace.get(), workspace.bytes(), s), InputError);
                    cuda::run_staged(plan, tensors.view(), workspace.get(), workspace.bytes(), s);
                });
                for (int replay = 0; replay < 2; ++replay) {
                    tensors.poison_outputs(stream.get());
                    // Staging reads and writes no output: the second replay stages with q standing for out and no
                    // softmax_lse, as the Python package stages.
                    DecodeTensors to_stage = tensors.view();
                    if (replay == 1) to_stage.o = to_stage.q, to_stage.lse = LseTensor{};
                    cuda::stage_step(plan, to_stage, host_lengths, workspace.get(), workspace.bytes(), stream.get());
                    staged.launch(stream.get());
                    stream.synchronize();
                    tensors.outputs_to_host(host);
                    REQUIRE(host.o == want_o);
                    REQUIRE(std::memcmp(host.lse.data(), want_lse.data(), want_lse.size() * sizeof(float)) == 0);
                }
                const cuda::WorkspaceLayout w = cuda::workspace_layout(plan);
                const auto flags = download<std::int32_t>(workspace.get<unsigned char>() + w.flags, static_cast<std::size_t>(w.flag_count));
                for (std::int32_t f : flags) REQUIRE(f == 0);
            }
        }
    }
}
