// decode.cpp — one decode step through leanattn's C++ API on the CPU: plan once, run on your own tensors.
//
// Llama-3-8B's attention shape (32 query heads over 8 KV heads, head_dim 128), 2 requests, a token-major
// (batch, N, kv_heads, d) fp32 cache. Prints the output's first values and the plan's grid; exits 1 if the
// result is not a finite, normalised attention output.
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/decode_tensors.hpp"
#include "core/schedule.hpp"
#include "cpu/executor.hpp"

int main() {
    using namespace leanattn;
    const std::int64_t batch = 2, q_heads = 32, kv_heads = 8, d = 128, capacity = 1024;
    Problem shape;
    shape.batch = batch, shape.q_heads = q_heads, shape.kv_heads = kv_heads, shape.head_dim = d;
    shape.tile = default_tile(d);
    shape.ctx = {capacity, capacity};  // what each request's cache can hold: the plan is made once for it

    std::vector<float> q(batch * q_heads * d), out(q.size()), k(batch * capacity * kv_heads * d), v(k.size());
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.37f * static_cast<float>(i));
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::cos(0.11f * static_cast<float>(i)), v[i] = std::sin(0.05f * static_cast<float>(i));
    std::vector<std::int32_t> seqlens = {1000, 17};  // this step's lengths

    DecodeTensors t;
    t.dtype = DType::fp32;
    t.q = {q.data(), q_heads * d, q_heads * d, d};  // (batch, q_len = 1, heads, d)
    t.o = {out.data(), q_heads * d, q_heads * d, d};
    t.kv.k = k.data(), t.kv.v = v.data();
    t.kv.layout = KvLayout::strided;
    t.kv.stride_request = capacity * kv_heads * d, t.kv.stride_token = kv_heads * d, t.kv.stride_head = d;
    t.kv.capacity = capacity;
    t.seqlens = seqlens.data();

    const Schedule plan = make_schedule(shape, DeviceSpec{}, PlanOptions{});
    std::vector<std::byte> workspace(cpu::workspace_bytes(plan));
    cpu::run(plan, t, workspace.data(), workspace.size());

    std::printf("stream-k grid %lld; out[0][0][0][0:4] = %.5f %.5f %.5f %.5f\n", static_cast<long long>(plan.grid), out[0], out[1], out[2], out[3]);
    for (float x : out) {
        if (!std::isfinite(x) || std::abs(x) > 1.0f) return 1;  // a weighted mean of values in [-1, 1]
    }
    return 0;
}
