#pragma once
/// \file context.hpp
/// A D3D12 device, queue and command list that run dmlref's operators as compute shaders.
///
///   dmlref::d3d12::context gpu;                                   // default adapter
///   std::vector<std::byte> out = gpu.run(desc, input_bytes);      // upload, dispatch, read back
///   dmlref::compare_report report = gpu.verify(desc, input_bytes);  // GPU against the CPU reference

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "platform.hpp" // first: it configures the vkd3d headers

#include "../compare.hpp"
#include "../operator.hpp"
#include "kernels.hpp"

namespace dmlref::d3d12 {

/// A failed D3D12 call: its name and the HRESULT it returned.
class error : public std::runtime_error {
public:
    error(std::string call, HRESULT result)
        : error(call, result, fmt::format("d3d12: {} failed with HRESULT {:#010x}", call, static_cast<std::uint32_t>(result))) {}
    /// The same with a message of its own (which names the call and the HRESULT).
    error(std::string call, HRESULT result, const std::string& message)
        : std::runtime_error(message), call_(std::move(call)), result_(result) {}
    const std::string& call() const noexcept { return call_; }
    HRESULT result() const noexcept { return result_; }

private:
    std::string call_;
    HRESULT result_;
};

/// Throws error(call, result) when `result` is a failure code.
inline void check_hresult(HRESULT result, const char* call) {
    if (FAILED(result)) throw error(call, result);
}

/// The adapter a context creates its device on. A choice that cannot be had (an index past the
/// last adapter, no WARP adapter, or no DXGI at all, as with vkd3d on Linux) is a d3d12::error
/// that names it.
struct adapter_choice {
    enum class kind_type : std::uint8_t {
        default_adapter, ///< D3D12CreateDevice's default (the first hardware adapter)
        warp,            ///< IDXGIFactory4::EnumWarpAdapter: Windows' software rasteriser
        index,           ///< IDXGIFactory1::EnumAdapters1(index)
    };
    kind_type kind = kind_type::default_adapter;
    /// The adapter's index (kind index only).
    std::uint32_t index = 0;

    /// D3D12CreateDevice's default adapter.
    static constexpr adapter_choice default_adapter() noexcept { return {}; }
    /// The WARP adapter (a GPU-less machine, such as a CI runner, can verify kernels on it).
    static constexpr adapter_choice warp() noexcept { return {kind_type::warp, 0}; }
    /// Adapter `i` as IDXGIFactory1::EnumAdapters1 lists them.
    static constexpr adapter_choice at(std::uint32_t i) noexcept { return {kind_type::index, i}; }

    friend constexpr bool operator==(const adapter_choice&, const adapter_choice&) noexcept = default;
};

/// "the default adapter", "the WARP adapter" or "adapter index 2".
inline std::string to_string(const adapter_choice& choice) {
    switch (choice.kind) {
    case adapter_choice::kind_type::warp: return "the WARP adapter";
    case adapter_choice::kind_type::index: return fmt::format("adapter index {}", choice.index);
    case adapter_choice::kind_type::default_adapter: break;
    }
    return "the default adapter";
}

/// Options of a context.
struct context_options {
    /// The adapter of the device the context creates (ignored when the context is given a device).
    adapter_choice adapter = {};
    /// Validate descs at this DirectML feature level before any GPU work.
    feature_level level = newest_feature_level;
    /// Deliberately wrong kernels (tests of the verification only).
    testing::kernel_fault fault = testing::kernel_fault::none;
};

/// A device, a compute queue, one command list, the root signature and the kernels' pipelines
/// (compiled on first use). Not thread-safe: one context per thread.
class context {
public:
    /// A context on a new device on `options.adapter` (by default, the default adapter).
    explicit context(context_options options = {}) : options_(options) {
        create_device(options.adapter);
        init(nullptr);
    }
    /// A context on an existing device and, optionally, a compute or direct queue of it.
    explicit context(ID3D12Device* device, ID3D12CommandQueue* queue = nullptr, context_options options = {})
        : options_(options) {
        if (device == nullptr) throw std::invalid_argument("d3d12::context: the device is null");
        device->AddRef();
        device_ = com_ptr<ID3D12Device>(device);
        init(queue);
    }

    context(const context&) = delete;
    context& operator=(const context&) = delete;
    context(context&&) noexcept = default;
    context& operator=(context&&) noexcept = default;

    ID3D12Device* device() const noexcept { return device_.get(); }
    ID3D12CommandQueue* queue() const noexcept { return queue_.get(); }
    const context_options& options() const noexcept { return options_; }

    /// A buffer in the default heap, usable as SRV, UAV and copy source/destination, in state
    /// COMMON. Its size is rounded up to a multiple of 4 bytes (the kernels move whole words).
    com_ptr<ID3D12Resource> create_buffer(std::uint64_t bytes) {
        return make_buffer(D3D12_HEAP_TYPE_DEFAULT, round_up(bytes), D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
                           D3D12_RESOURCE_STATE_COMMON);
    }

    /// Copies `data` into the start of `buffer` (in state COMMON; it is again when this returns).
    void upload(ID3D12Resource* buffer, std::span<const std::byte> data) {
        if (data.empty()) return;
        auto staging = make_buffer(D3D12_HEAP_TYPE_UPLOAD, data.size(), D3D12_RESOURCE_FLAG_NONE,
                                   D3D12_RESOURCE_STATE_GENERIC_READ);
        write_mapped(staging.get(), data);
        begin();
        list_->CopyBufferRegion(buffer, 0, staging.get(), 0, data.size());
        submit_and_wait();
    }

    /// The first `bytes` bytes of `buffer` (in state COMMON).
    std::vector<std::byte> readback(ID3D12Resource* buffer, std::uint64_t bytes) {
        std::vector<std::byte> data(static_cast<std::size_t>(bytes));
        if (bytes == 0) return data;
        auto staging = make_buffer(D3D12_HEAP_TYPE_READBACK, bytes, D3D12_RESOURCE_FLAG_NONE,
                                   D3D12_RESOURCE_STATE_COPY_DEST);
        begin();
        list_->CopyBufferRegion(staging.get(), 0, buffer, 0, bytes);
        submit_and_wait();
        void* mapped = nullptr;
        const D3D12_RANGE read{0, static_cast<SIZE_T>(bytes)};
        check_hresult(staging->Map(0, &read, &mapped), "ID3D12Resource::Map (readback)");
        std::memcpy(data.data(), mapped, data.size());
        const D3D12_RANGE written{0, 0};
        staging->Unmap(0, &written);
        return data;
    }

    /// Runs the operator on the GPU over one buffer per tensor, in DirectML's binding order
    /// (inputs_of(desc), outputs_of(desc): JOIN's InputTensors, SPLIT's OutputTensors): buffers of at
    /// least the tensors' TotalTensorSizeInBytes rounded up to 4, in state COMMON, each created with
    /// ALLOW_UNORDERED_ACCESS (inputs are read through SRVs, outputs written through UAVs). The desc
    /// is validated first (validation_error, nothing dispatched); bytes of an output buffer that are
    /// no element of its tensor keep their values. JOIN and SPLIT run as one dispatch per part, in
    /// one command list with a UAV barrier between dispatches. Waits for completion.
    void execute(const operator_desc& desc, std::span<ID3D12Resource* const> inputs,
                 std::span<ID3D12Resource* const> outputs) {
        dmlref::check(desc, options_.level);
        for (const auto& side : {inputs, outputs})
            for (ID3D12Resource* buffer : side)
                if (buffer == nullptr) throw std::invalid_argument("d3d12::context::execute: a buffer is null");
        const std::vector<kernels::dispatch_step> steps = kernels::make_dispatches(desc);
        const std::string_view op = to_string(type_of(desc));
        const std::vector<bound_tensor> ins = inputs_of(desc), outs = outputs_of(desc);
        if (inputs.size() != ins.size() || outputs.size() != outs.size())
            throw validation_error(fmt::format("{}: {} input and {} output resources are bound; the desc binds {} "
                                               "input and {} output tensors",
                                               op, inputs.size(), outputs.size(), ins.size(), outs.size()));
        for (const auto& [tensors, buffers] : {std::pair{&ins, inputs}, std::pair{&outs, outputs}})
            for (std::size_t k = 0; k < buffers.size(); ++k) {
                const std::uint64_t need = (*tensors)[k].desc().total_tensor_size_in_bytes;
                const D3D12_RESOURCE_DESC rd = buffers[k]->GetDesc();
                if (rd.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || rd.Width < round_up(need))
                    throw validation_error(fmt::format("{}: the D3D12 resource bound to {} has {} bytes; it must be "
                                                       "a buffer of at least TotalTensorSizeInBytes rounded up to 4 = {}",
                                                       op, (*tensors)[k].field, rd.Width, round_up(need)));
            }
        // No output may share its resource with any other tensor (the kernels read while writing).
        for (std::size_t k = 0; k < outputs.size(); ++k) {
            for (std::size_t j = 0; j < inputs.size(); ++j)
                if (outputs[k] == inputs[j])
                    throw validation_error(
                        ins.size() == 1 && outs.size() == 1
                            ? fmt::format("{}: the input and output resources are the same; dmlref does not run in place", op)
                            : fmt::format("{}: {} and {} are bound to the same resource; dmlref does not run in place",
                                          op, ins[j].field, outs[k].field));
            for (std::size_t j = 0; j < k; ++j)
                if (outputs[k] == outputs[j])
                    throw validation_error(fmt::format("{}: {} and {} are bound to the same resource", op, outs[j].field,
                                                       outs[k].field));
        }
        if (kernels::checks_indices(type_of(desc)) && inputs.size() >= 2)
            check_indices(desc, inputs[1]); // (its inputs are checked above; the size test keeps GCC's bounds analysis quiet)
        dispatch(steps, inputs, outputs);
    }

    /// execute() for a desc with one input and one output tensor (JOIN and SPLIT with one part too).
    void execute(const operator_desc& desc, ID3D12Resource* input, ID3D12Resource* output) {
        execute(desc, std::span<ID3D12Resource* const>(&input, 1), std::span<ID3D12Resource* const>(&output, 1));
    }

    /// Uploads one host buffer per input tensor (binding order, as execute() takes them), runs the
    /// operator and returns each output tensor's whole buffer (TotalTensorSizeInBytes). Output
    /// buffer k starts as `initial_outputs[k]` when given (it must then have exactly that
    /// tensor's TotalTensorSizeInBytes bytes), else as zeros.
    std::vector<std::vector<std::byte>>
    run(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
        std::optional<std::span<const std::span<const std::byte>>> initial_outputs = std::nullopt) {
        dmlref::check(desc, options_.level);
        const std::vector<bound_tensor> ins = inputs_of(desc), outs = outputs_of(desc);
        const std::string_view op = to_string(type_of(desc));
        if (inputs.size() != ins.size() || (initial_outputs && initial_outputs->size() != outs.size()))
            throw validation_error(fmt::format("{}: {} input and {} initial output buffers are given; the desc binds "
                                               "{} input and {} output tensors",
                                               op, inputs.size(), initial_outputs ? initial_outputs->size() : outs.size(),
                                               ins.size(), outs.size()));
        for (std::size_t k = 0; k < ins.size(); ++k)
            if (inputs[k].size() < ins[k].desc().total_tensor_size_in_bytes)
                throw validation_error(fmt::format("{}: the buffer for {} has {} bytes; its TotalTensorSizeInBytes is {}",
                                                   op, ins[k].field, inputs[k].size(),
                                                   ins[k].desc().total_tensor_size_in_bytes));
        for (std::size_t k = 0; initial_outputs && k < outs.size(); ++k)
            if ((*initial_outputs)[k].size() != outs[k].desc().total_tensor_size_in_bytes)
                throw validation_error(fmt::format("{}: the initial output for {} has {} bytes; its "
                                                   "TotalTensorSizeInBytes is {}",
                                                   op, outs[k].field, (*initial_outputs)[k].size(),
                                                   outs[k].desc().total_tensor_size_in_bytes));
        std::vector<com_ptr<ID3D12Resource>> in_buffers, out_buffers;
        std::vector<ID3D12Resource*> in_raw, out_raw;
        for (std::size_t k = 0; k < ins.size(); ++k) {
            const std::uint64_t bytes = ins[k].desc().total_tensor_size_in_bytes;
            in_buffers.push_back(create_buffer(bytes));
            std::vector<std::byte> staged(static_cast<std::size_t>(round_up(bytes)));
            std::memcpy(staged.data(), inputs[k].data(), static_cast<std::size_t>(bytes));
            upload(in_buffers.back().get(), staged);
            in_raw.push_back(in_buffers.back().get());
        }
        for (std::size_t k = 0; k < outs.size(); ++k) {
            const std::uint64_t bytes = outs[k].desc().total_tensor_size_in_bytes;
            out_buffers.push_back(create_buffer(bytes));
            std::vector<std::byte> staged(static_cast<std::size_t>(round_up(bytes)), std::byte{0});
            if (initial_outputs) std::copy((*initial_outputs)[k].begin(), (*initial_outputs)[k].end(), staged.begin()); // its size: bytes
            upload(out_buffers.back().get(), staged);
            out_raw.push_back(out_buffers.back().get());
        }
        execute(desc, in_raw, out_raw);
        std::vector<std::vector<std::byte>> results;
        for (std::size_t k = 0; k < outs.size(); ++k)
            results.push_back(readback(out_raw[k], outs[k].desc().total_tensor_size_in_bytes));
        return results;
    }

    /// Uploads `input`, runs the operator and returns the whole output buffer
    /// (TotalTensorSizeInBytes): run() for a desc with one input and one output tensor (JOIN and
    /// SPLIT with one part too). The output buffer starts as `initial_output` when given (it must
    /// then have exactly TotalTensorSizeInBytes bytes), else as zeros.
    std::vector<std::byte> run(const operator_desc& desc, std::span<const std::byte> input,
                               std::optional<std::span<const std::byte>> initial_output = std::nullopt) {
        std::optional<std::span<const std::span<const std::byte>>> initial;
        if (initial_output) initial = std::span<const std::span<const std::byte>>(&*initial_output, 1);
        return std::move(run(desc, std::span<const std::span<const std::byte>>(&input, 1), initial).front());
    }

    /// Runs the operator on the GPU and on the CPU reference (dmlref::execute) from the same inputs
    /// (one host buffer per input tensor, in binding order: a gather's input and indices) into
    /// output buffers that start equal, and compares the output tensors bit for bit. The report's
    /// regions are the operator's. It takes descs with one output tensor (SPLIT of one part too;
    /// for several, compare what run() returns). (Bytes of the output buffer outside the tensor are
    /// not part of the report; run() returns them for callers that check them.)
    compare_report verify(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                          compare_options compare = {}) {
        kernels::refuse_without_kernel(type_of(desc));
        const std::vector<bound_tensor> outs = outputs_of(desc);
        if (outs.size() != 1)
            throw validation_error(fmt::format("{}: verify() compares one output tensor; this desc binds {} (run() "
                                               "returns each)",
                                               to_string(type_of(desc)), outs.size()));
        const buffer_tensor_desc& out_desc = outs.front().desc();
        std::vector<std::byte> expected(static_cast<std::size_t>(out_desc.total_tensor_size_in_bytes));
        dmlref::execute(desc, inputs, std::vector<std::span<std::byte>>{expected}, options_.level);
        const std::vector<std::byte> zeros(expected.size());
        const std::span<const std::byte> initial[] = {zeros};
        const std::vector<std::byte> actual =
            std::move(run(desc, inputs, std::span<const std::span<const std::byte>>(initial)).front());
        std::vector<std::byte> expected_packed = pack(out_desc, expected), actual_packed = pack(out_desc, actual);
        return dmlref::compare(out_desc.data_type, out_desc.sizes, expected_packed, actual_packed, compare, &desc);
    }

    /// verify() for a desc with one input tensor.
    compare_report verify(const operator_desc& desc, std::span<const std::byte> input, compare_options compare = {}) {
        return verify(desc, std::span<const std::span<const std::byte>>(&input, 1), compare);
    }

    /// A committed buffer of `bytes` bytes (at least 4) in `heap`, created in `state`: UPLOAD buffers
    /// in GENERIC_READ, READBACK ones in COPY_DEST, as D3D12 requires.
    com_ptr<ID3D12Resource> make_buffer(D3D12_HEAP_TYPE heap, std::uint64_t bytes, D3D12_RESOURCE_FLAGS flags,
                                        D3D12_RESOURCE_STATES state) {
        D3D12_HEAP_PROPERTIES hp{};
        hp.Type = heap;
        D3D12_RESOURCE_DESC rd{};
        rd.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
        rd.Width = std::max<std::uint64_t>(bytes, 4);
        rd.Height = 1;
        rd.DepthOrArraySize = 1;
        rd.MipLevels = 1;
        rd.Format = DXGI_FORMAT_UNKNOWN;
        rd.SampleDesc.Count = 1;
        rd.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
        rd.Flags = flags;
        com_ptr<ID3D12Resource> buffer;
        check_hresult(device_->CreateCommittedResource(&hp, D3D12_HEAP_FLAG_NONE, &rd, state, nullptr,
                                                       platform::iid_resource, buffer.put_void()),
                      "ID3D12Device::CreateCommittedResource");
        return buffer;
    }

    /// The tensor's elements in row-major order, from a whole buffer (its strides may leave gaps).
    static std::vector<std::byte> pack(const buffer_tensor_desc& t, std::span<const std::byte> buffer) {
        const std::size_t width = element_size(t.data_type);
        const std::vector<std::uint32_t> strides = t.strides ? *t.strides : packed_strides(t.sizes);
        const std::uint64_t count = element_count(t.sizes);
        std::vector<std::byte> packed(static_cast<std::size_t>(count) * width);
        std::vector<std::uint32_t> index(t.sizes.size(), 0);
        for (std::uint64_t e = 0; e < count; ++e) {
            std::uint64_t offset = 0;
            for (std::size_t i = 0; i < index.size(); ++i) offset += std::uint64_t{index[i]} * strides[i];
            std::memcpy(packed.data() + e * width, buffer.data() + offset * width, width);
            for (std::size_t i = index.size(); i-- > 0;) {
                if (++index[i] < t.sizes[i]) break;
                index[i] = 0;
            }
        }
        return packed;
    }

    /// Waits until the queue has finished all submitted work.
    void wait_idle() { signal_and_wait(); }

private:
    static std::uint64_t round_up(std::uint64_t bytes) noexcept { return (bytes + 3) & ~std::uint64_t{3}; }

    void create_device(const adapter_choice& choice) {
        if (choice.kind == adapter_choice::kind_type::default_adapter) {
            check_hresult(platform::create_device(device_.put()), "D3D12CreateDevice");
            return;
        }
        const char* needs = choice.kind == adapter_choice::kind_type::warp ? "IDXGIFactory4::EnumWarpAdapter"
                                                                            : "IDXGIFactory1::EnumAdapters1";
        if (!platform::have_dxgi)
            throw error(needs, E_NOTIMPL,
                        fmt::format("d3d12: {} needs DXGI ({}), which this D3D12 implementation (vkd3d on Linux) "
                                    "does not have; only the default adapter can be used here",
                                    to_string(choice), needs));
        const platform::call_result r = choice.kind == adapter_choice::kind_type::warp
                                            ? platform::create_device_on_warp(device_.put())
                                            : platform::create_device_on_adapter(choice.index, device_.put());
        if (SUCCEEDED(r.result)) return;
        std::string why;
        if (r.result == DXGI_ERROR_NOT_FOUND && choice.kind == adapter_choice::kind_type::index) {
            const std::uint32_t count = platform::adapter_count();
            why = count == 0   ? std::string(": there are no adapters")
                  : count == 1 ? std::string(": there is 1 adapter (index 0)")
                               : fmt::format(": there are {} adapters (indices 0 to {})", count, count - 1);
        } else if (r.result == E_NOTIMPL) {
            why = ": this D3D12 runtime's DXGI does not implement it";
        }
        throw error(r.call, r.result,
                    fmt::format("d3d12: {} cannot be used: {} failed with HRESULT {:#010x}{}", to_string(choice), r.call,
                                static_cast<std::uint32_t>(r.result), why));
    }

    void init(ID3D12CommandQueue* queue) {
        if (queue != nullptr) {
            queue->AddRef();
            queue_ = com_ptr<ID3D12CommandQueue>(queue);
        } else {
            D3D12_COMMAND_QUEUE_DESC qd{};
            qd.Type = D3D12_COMMAND_LIST_TYPE_COMPUTE;
            check_hresult(device_->CreateCommandQueue(&qd, platform::iid_command_queue, queue_.put_void()),
                          "ID3D12Device::CreateCommandQueue");
        }
        list_type_ = queue_->GetDesc().Type;
        check_hresult(device_->CreateCommandAllocator(list_type_, platform::iid_command_allocator, allocator_.put_void()),
                      "ID3D12Device::CreateCommandAllocator");
        check_hresult(device_->CreateCommandList(0, list_type_, allocator_.get(), nullptr,
                                                 platform::iid_graphics_command_list, list_.put_void()),
                      "ID3D12Device::CreateCommandList");
        check_hresult(list_->Close(), "ID3D12GraphicsCommandList::Close");
        check_hresult(device_->CreateFence(0, D3D12_FENCE_FLAG_NONE, platform::iid_fence, fence_.put_void()),
                      "ID3D12Device::CreateFence");
        create_root_signature();
    }

    /// The gather and scatter kernels trust every index they read to lie in [-size, size) along its
    /// axis: reads the index buffer (IndicesTensor, the second input) back and checks each as
    /// dmlref::execute does (the same validation_error).
    void check_indices(const operator_desc& desc, ID3D12Resource* indices) {
        const std::vector<std::byte> bytes = readback(indices, inputs_of(desc)[1].desc().total_tensor_size_in_bytes);
        kernels::check_indices(desc, bytes.data());
    }

    /// b0: the 16-word header as root constants; b1: the axis table as a root CBV; t0, u0 and t1
    /// (the indices or lengths) as root descriptors of raw buffers.
    void create_root_signature() {
        D3D12_ROOT_PARAMETER params[5] = {};
        params[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
        params[0].Constants = {0, 0, kernels::header_dwords};
        params[1].ParameterType = D3D12_ROOT_PARAMETER_TYPE_CBV;
        params[1].Descriptor = {1, 0};
        params[2].ParameterType = D3D12_ROOT_PARAMETER_TYPE_SRV;
        params[2].Descriptor = {0, 0};
        params[3].ParameterType = D3D12_ROOT_PARAMETER_TYPE_UAV;
        params[3].Descriptor = {0, 0};
        params[4].ParameterType = D3D12_ROOT_PARAMETER_TYPE_SRV;
        params[4].Descriptor = {1, 0};
        for (auto& p : params) p.ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
        D3D12_ROOT_SIGNATURE_DESC rs{};
        rs.NumParameters = 5;
        rs.pParameters = params;
        com_ptr<ID3DBlob> blob, message;
        const HRESULT hr = D3D12SerializeRootSignature(&rs, D3D_ROOT_SIGNATURE_VERSION_1, blob.put(), message.put());
        check_hresult(hr, "D3D12SerializeRootSignature");
        check_hresult(device_->CreateRootSignature(0, blob->GetBufferPointer(), blob->GetBufferSize(),
                                                   platform::iid_root_signature, root_signature_.put_void()),
                      "ID3D12Device::CreateRootSignature");
    }

    ID3D12PipelineState* pipeline(kernel_family family, std::uint32_t width) {
        const auto key = std::pair{family, width};
        if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second.get();
        const std::vector<std::uint32_t> code = kernels::bytecode(family, width, options_.fault);
        D3D12_COMPUTE_PIPELINE_STATE_DESC pd{};
        pd.pRootSignature = root_signature_.get();
        pd.CS.pShaderBytecode = code.data();
        pd.CS.BytecodeLength = code.size() * sizeof(std::uint32_t);
        com_ptr<ID3D12PipelineState> pso;
        check_hresult(device_->CreateComputePipelineState(&pd, platform::iid_pipeline_state, pso.put_void()),
                      "ID3D12Device::CreateComputePipelineState");
        return pipelines_.emplace(key, std::move(pso)).first->second.get();
    }

    static void write_mapped(ID3D12Resource* buffer, std::span<const std::byte> data) {
        void* mapped = nullptr;
        const D3D12_RANGE none{0, 0};
        check_hresult(buffer->Map(0, &none, &mapped), "ID3D12Resource::Map (upload)");
        std::memcpy(mapped, data.data(), data.size());
        buffer->Unmap(0, nullptr);
    }

    /// Records every step in one command list, with a UAV barrier on the output before each step
    /// that follows another (JOIN's parts write one buffer: each dispatch's words must land
    /// before the next reads them), then submits and waits.
    void dispatch(const std::vector<kernels::dispatch_step>& steps, std::span<ID3D12Resource* const> inputs,
                  std::span<ID3D12Resource* const> outputs) {
        if (steps.empty()) return;
        // Each step's axis table in its own 256-byte slot of one upload buffer (CBVs start at
        // multiples of 256), alive until the list has run.
        constexpr std::uint64_t slot = 256 * ((sizeof(kernels::dispatch_params::axes) + 255) / 256);
        auto constants = make_buffer(D3D12_HEAP_TYPE_UPLOAD, slot * steps.size(), D3D12_RESOURCE_FLAG_NONE,
                                     D3D12_RESOURCE_STATE_GENERIC_READ);
        {
            std::vector<std::byte> table(static_cast<std::size_t>(slot * steps.size()));
            for (std::size_t k = 0; k < steps.size(); ++k)
                std::memcpy(table.data() + k * slot, steps[k].params.axes.data(), sizeof(steps[k].params.axes));
            write_mapped(constants.get(), table);
        }

        begin();
        list_->SetComputeRootSignature(root_signature_.get());
        for (std::size_t k = 0; k < steps.size(); ++k) {
            kernels::dispatch_params params = steps[k].params;
            constexpr std::uint32_t max_groups = 65535; // D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION
            const std::uint64_t groups = (std::uint64_t{params.units} + kernels::threads_per_group - 1) /
                                         kernels::threads_per_group;
            const auto groups_x = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(groups, 1),
                                                                                      max_groups));
            const auto groups_y = static_cast<std::uint32_t>((groups + groups_x - 1) / groups_x);
            params.header[kernels::unit_count] = params.units;
            params.header[kernels::row_pitch] = groups_x * kernels::threads_per_group;
            ID3D12Resource* output = outputs[steps[k].output];
            if (k > 0) {
                D3D12_RESOURCE_BARRIER barrier{};
                barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
                barrier.UAV.pResource = output;
                list_->ResourceBarrier(1, &barrier);
            }
            list_->SetPipelineState(pipeline(params.family, params.width));
            list_->SetComputeRoot32BitConstants(0, kernels::header_dwords, params.header.data(), 0);
            list_->SetComputeRootConstantBufferView(1, constants->GetGPUVirtualAddress() + k * slot);
            list_->SetComputeRootShaderResourceView(2, inputs[steps[k].input]->GetGPUVirtualAddress());
            list_->SetComputeRootUnorderedAccessView(3, output->GetGPUVirtualAddress());
            list_->SetComputeRootShaderResourceView(4, inputs[steps[k].indices]->GetGPUVirtualAddress());
            if (groups_y > 0) list_->Dispatch(groups_x, groups_y, 1);
        }
        submit_and_wait();
    }

    void begin() {
        check_hresult(allocator_->Reset(), "ID3D12CommandAllocator::Reset");
        check_hresult(list_->Reset(allocator_.get(), nullptr), "ID3D12GraphicsCommandList::Reset");
    }

    void submit_and_wait() {
        check_hresult(list_->Close(), "ID3D12GraphicsCommandList::Close");
        ID3D12CommandList* lists[] = {list_.get()};
        queue_->ExecuteCommandLists(1, lists);
        signal_and_wait();
    }

    void signal_and_wait() {
        ++fence_value_;
        check_hresult(queue_->Signal(fence_.get(), fence_value_), "ID3D12CommandQueue::Signal");
        if (fence_->GetCompletedValue() >= fence_value_) return;
        platform::event done;
        check_hresult(fence_->SetEventOnCompletion(fence_value_, done.handle()), "ID3D12Fence::SetEventOnCompletion");
        done.wait();
    }

    context_options options_;
    com_ptr<ID3D12Device> device_;
    com_ptr<ID3D12CommandQueue> queue_;
    D3D12_COMMAND_LIST_TYPE list_type_ = D3D12_COMMAND_LIST_TYPE_COMPUTE;
    com_ptr<ID3D12CommandAllocator> allocator_;
    com_ptr<ID3D12GraphicsCommandList> list_;
    com_ptr<ID3D12Fence> fence_;
    std::uint64_t fence_value_ = 0;
    com_ptr<ID3D12RootSignature> root_signature_;
    std::map<std::pair<kernel_family, std::uint32_t>, com_ptr<ID3D12PipelineState>> pipelines_;
};

} // namespace dmlref::d3d12
