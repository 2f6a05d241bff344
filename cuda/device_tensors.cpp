#include "device_tensors.hpp"

#include <stdexcept>
#include <type_traits>

#include "gpu_tools.cuh"

namespace leanattn::cuda {

namespace {

template <typename T>
DeviceBuffer upload(const std::vector<T>& host) {
    DeviceBuffer d(host.size() * sizeof(T));
    if (!host.empty()) check(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
    return d;
}

template <typename T>
void download(std::vector<T>& host, const DeviceBuffer& d, std::size_t count) {
    host.resize(count);
    if (count != 0) check(cudaMemcpy(host.data(), d.get(), count * sizeof(T), cudaMemcpyDeviceToHost), "download");
}

std::size_t bytes_of(std::int64_t elements, DType dtype) { return static_cast<std::size_t>(elements * dtype_bytes(dtype)); }

}  // namespace

DecodeTensors HostTensors::view() {
    DecodeTensors t = layout.views;
    t.q.data = q.data();
    t.o.data = o.data();
    t.lse.data = lse.data();
    t.kv.k = k.data();
    t.kv.v = v.data();
    t.seqlens = seqlens.data();
    t.kv.block_table = block_table.empty() ? nullptr : block_table.data();
    t.kv.cu_seqlens = cu_seqlens.empty() ? nullptr : cu_seqlens.data();
    return t;
}

DeviceTensors::DeviceTensors(const Problem& problem, DType dtype, CacheLayout layout, std::int64_t block_size, std::uint64_t seed)
    : problem_(problem), cache_layout_(layout), layout_(make_tensor_layout(problem, dtype, layout, block_size, seed)) {
    q_ = DeviceBuffer(bytes_of(layout_.q_elements, dtype));
    o_ = DeviceBuffer(bytes_of(layout_.q_elements, dtype));
    k_ = DeviceBuffer(bytes_of(layout_.kv_elements, dtype));
    v_ = DeviceBuffer(bytes_of(layout_.kv_elements, dtype));
    lse_ = DeviceBuffer(static_cast<std::size_t>(layout_.lse_elements) * sizeof(float));
    seqlens_ = upload(layout_.seqlens);
    block_table_ = upload(layout_.block_table);
    cu_seqlens_ = upload(layout_.cu_seqlens);
    fill_random(q_.get(), layout_.q_elements, dtype, seed * 3 + 0);
    fill_random(k_.get(), layout_.kv_elements, dtype, seed * 3 + 1);
    fill_random(v_.get(), layout_.kv_elements, dtype, seed * 3 + 2);
    poison_outputs(nullptr);
    check(cudaDeviceSynchronize(), "fill the tensors");
}

DecodeTensors DeviceTensors::view() const {
    DecodeTensors t = layout_.views;
    t.q.data = q_.get();
    t.o.data = o_.get();
    t.lse.data = lse_.get<float>();
    t.kv.k = k_.get();
    t.kv.v = v_.get();
    t.seqlens = seqlens_.get<std::int32_t>();
    t.kv.block_table = layout_.block_table.empty() ? nullptr : block_table_.get<std::int32_t>();
    t.kv.cu_seqlens = layout_.cu_seqlens.empty() ? nullptr : cu_seqlens_.get<std::int32_t>();
    return t;
}

void DeviceTensors::poison_outputs(cudaStream_t stream) {
    poison_nan(o_.get(), o_.bytes(), stream);
    poison_nan(lse_.get(), lse_.bytes(), stream);
}

void DeviceTensors::set_seqlens(const std::vector<std::int32_t>& lengths, cudaStream_t stream) {
    if (static_cast<std::int64_t>(lengths.size()) != problem_.batch) throw std::invalid_argument("set_seqlens: one length per request");
    check(cudaMemcpyAsync(seqlens_.get(), lengths.data(), lengths.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream), "copy seqlens");
    // The copy reads host memory that may change after this returns: wait for it (the test harness's use).
    check(cudaStreamSynchronize(stream), "copy seqlens");
}

HostTensors DeviceTensors::to_host() const {
    HostTensors h;
    h.layout = layout_;
    const DType dtype = layout_.views.dtype;
    download(h.q, q_, bytes_of(layout_.q_elements, dtype));
    download(h.k, k_, bytes_of(layout_.kv_elements, dtype));
    download(h.v, v_, bytes_of(layout_.kv_elements, dtype));
    download(h.block_table, block_table_, layout_.block_table.size());
    download(h.cu_seqlens, cu_seqlens_, layout_.cu_seqlens.size());
    outputs_to_host(h);
    return h;
}

void DeviceTensors::upload_inputs(const HostTensors& h) {
    auto put = [](DeviceBuffer& d, const auto& host) {
        using T = typename std::decay_t<decltype(host)>::value_type;
        if (host.size() * sizeof(T) != d.bytes()) throw std::invalid_argument("upload_inputs: the host tensors have another layout");
        check(cudaMemcpy(d.get(), host.data(), d.bytes(), cudaMemcpyHostToDevice), "upload");
    };
    put(q_, h.q);
    put(k_, h.k);
    put(v_, h.v);
    put(seqlens_, h.seqlens);
    if (!h.cu_seqlens.empty()) put(cu_seqlens_, h.cu_seqlens);  // a ragged cache's parts, as a test may have moved them
}

void DeviceTensors::outputs_to_host(HostTensors& h) const {
    download(h.o, o_, o_.bytes());
    download(h.lse, lse_, static_cast<std::size_t>(layout_.lse_elements));
    download(h.seqlens, seqlens_, static_cast<std::size_t>(problem_.batch));
}

double DeviceTensors::kv_bytes_read() const {
    return 2.0 * static_cast<double>(problem_.total_ctx()) * static_cast<double>(problem_.kv_heads * problem_.head_dim * dtype_bytes(layout_.views.dtype));
}

}  // namespace leanattn::cuda
