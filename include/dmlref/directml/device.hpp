#pragma once
/// \file device.hpp
/// The real DirectML as an oracle: loads DirectML.dll at run time, creates a DirectML device on
/// the D3D12 device of a d3d12::context, and asks it about dmlref's descs.
///
///   dmlref::directml::device dml;                         // the DLL named by DMLREF_DIRECTML_DLL, or the system's
///   if (auto why = dml.accepts(desc)) ...                 // DirectML's verdict: CreateOperator + CompileOperator
///   std::vector<std::byte> out = dml.run(desc, input);    // DirectML's output bytes
///   auto outs = dml.run(split, inputs);                   // one buffer per tensor (JOIN, SPLIT)
///   dmlref::compare_report r = dml.verify(desc, input);   // DirectML against the CPU reference
///
/// Windows only (a Windows build runs under Wine too); the CPU library never includes it.

#if !defined(_WIN32)
#error "dmlref/directml.hpp: DirectML is a Windows DLL; the directml backend builds for Windows only"
#endif

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../d3d12/context.hpp"
#include "abi.hpp"
#include "translate.hpp"

namespace dmlref::directml {

using d3d12::com_ptr;

/// A failed DirectML or D3D12 call: its name and HRESULT (d3d12::error, so callers catch both alike).
using error = d3d12::error;

/// "E_INVALIDARG" for the HRESULTs DirectML returns, else "".
inline std::string_view hresult_name(HRESULT hr) noexcept {
    switch (static_cast<std::uint32_t>(hr)) {
    case 0x80070057u: return "E_INVALIDARG";
    case 0x80004001u: return "E_NOTIMPL";
    case 0x80004005u: return "E_FAIL";
    case 0x8007000Eu: return "E_OUTOFMEMORY";
    case 0x887A0005u: return "DXGI_ERROR_DEVICE_REMOVED";
    case 0x887A0004u: return "DXGI_ERROR_UNSUPPORTED";
    case 0x80070585u: return "ERROR_INVALID_INDEX";
    case 0x80070216u: return "ERROR_ARITHMETIC_OVERFLOW";
    default: return "";
    }
}

/// "HRESULT 0x80070057 (E_INVALIDARG)".
inline std::string hresult_text(HRESULT hr) {
    const std::string_view name = hresult_name(hr);
    return name.empty() ? fmt::format("HRESULT {:#010x}", static_cast<std::uint32_t>(hr))
                        : fmt::format("HRESULT {:#010x} ({})", static_cast<std::uint32_t>(hr), name);
}

/// The environment variable that names the DLL when the options do not.
inline constexpr const char* dll_environment_variable = "DMLREF_DIRECTML_DLL";

struct device_options {
    /// DirectML.dll to load: this path; else $DMLREF_DIRECTML_DLL; else "DirectML.dll" (the system's
    /// search order: the program's folder, then System32).
    std::filesystem::path dll;
    /// The adapter of the D3D12 device, when the device creates its own context.
    d3d12::adapter_choice adapter = {};
    /// The byte each output buffer is filled with before a dispatch, so that a dispatch that
    /// writes nothing cannot pass for one that wrote what was there.
    std::byte sentinel{0xA5};
};

/// What the DirectML device reports about itself (CheckFeatureSupport), never assumed.
struct capabilities {
    std::filesystem::path dll;
    feature_level max_feature_level = feature_level::fl_1_0;
    std::vector<data_type> supported_types;   ///< of dmlref's eleven movable types
    std::vector<data_type> unsupported_types; ///< the others of the eleven
    bool supports(data_type t) const noexcept {
        return std::find(supported_types.begin(), supported_types.end(), t) != supported_types.end();
    }
};

namespace detail {
/// DirectML.dll loaded once per path for the process's lifetime: DirectML may keep worker threads
/// and objects of its own past its devices, so the backend never unloads it.
inline HMODULE load_library(const std::filesystem::path& path) {
    HMODULE module = LoadLibraryW(path.wstring().c_str());
    if (module == nullptr)
        throw error("LoadLibraryW", HRESULT_FROM_WIN32(GetLastError()),
                    fmt::format("directml: cannot load '{}' (LoadLibraryW failed, error {}); set {} or "
                                "device_options::dll to a DirectML.dll",
                                path.string(), GetLastError(), dll_environment_variable));
    return module;
}

/// A buffer of `bytes` bytes whose start is a multiple of `alignment` (a power of two).
class aligned_bytes {
public:
    /// Only the `bytes` bytes are written: the slack that alignment needs (up to 2 GiB for a
    /// GuaranteedBaseOffsetAlignment of 2^31) is allocated but never touched.
    aligned_bytes(std::size_t bytes, std::size_t alignment, std::byte fill)
        : storage_(std::make_unique_for_overwrite<std::byte[]>(bytes + alignment)), size_(bytes) {
        const auto address = reinterpret_cast<std::uintptr_t>(storage_.get());
        offset_ = static_cast<std::size_t>((alignment - address % alignment) % alignment);
        std::fill_n(storage_.get() + offset_, size_, fill);
    }
    std::span<std::byte> span() noexcept { return {storage_.get() + offset_, size_}; }

private:
    std::unique_ptr<std::byte[]> storage_;
    std::size_t offset_ = 0, size_;
};
} // namespace detail

/// A DirectML device on a D3D12 device, and what dmlref asks of it.
class device {
public:
    /// A device on a new d3d12::context on `options.adapter`.
    explicit device(device_options options = {})
        : options_(std::move(options)), own_gpu_(std::make_unique<d3d12::context>(d3d12::context_options{.adapter = options_.adapter})),
          gpu_(own_gpu_.get()) {
        init();
    }
    /// A device on the D3D12 device (and queue) of `gpu`, which must outlive it.
    explicit device(d3d12::context& gpu, device_options options = {}) : options_(std::move(options)), gpu_(&gpu) { init(); }

    device(const device&) = delete;
    device& operator=(const device&) = delete;

    const capabilities& caps() const noexcept { return caps_; }
    d3d12::context& gpu() noexcept { return *gpu_; }
    abi::IDMLDevice* get() const noexcept { return dml_.get(); }

    /// DirectML's verdict on `desc`: nullopt when CreateOperator and CompileOperator both succeed,
    /// else "CreateOperator failed with HRESULT 0x80070057 (E_INVALIDARG)". Throws not_expressible
    /// for a desc DirectML's structs cannot carry.
    std::optional<std::string> accepts(const operator_desc& desc) {
        com_ptr<abi::IDMLCompiledOperator> compiled;
        return compile(desc, compiled);
    }

    /// Runs `desc` on DirectML from one buffer per input tensor (DirectML's binding order,
    /// inputs_of(desc); each at least its TotalTensorSizeInBytes bytes) and returns every output
    /// buffer whole (outputs_of(desc); TotalTensorSizeInBytes bytes each). Output buffer k starts
    /// as `initial_outputs[k]` when given (one per output, that many bytes each), else filled with
    /// the sentinel. Each output's bytes past the ones bound must come back unchanged. Throws error
    /// when DirectML refuses the desc, not_expressible, or std::invalid_argument for buffers of the
    /// wrong count or size. dmlref's own validation is not asked: this is DirectML's answer.
    std::vector<std::vector<std::byte>> run(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                                            std::span<const std::span<const std::byte>> initial_outputs = {}) {
        const translated t(desc);
        const std::size_t n_in = t.input_count(), n_out = t.output_count();
        if (inputs.size() != n_in)
            throw std::invalid_argument(fmt::format("directml: {} input buffers for the {} input tensors of {}", inputs.size(), n_in,
                                                    to_string(type_of(desc))));
        if (!initial_outputs.empty() && initial_outputs.size() != n_out)
            throw std::invalid_argument(fmt::format("directml: {} initial output buffers for the {} output tensors of {}",
                                                    initial_outputs.size(), n_out, to_string(type_of(desc))));
        constexpr std::uint64_t most = std::uint64_t{1} << 40; // far beyond what a D3D12 buffer can be here
        buffers b;
        std::uint64_t upload_bytes = 0;
        const auto lay_out = [&](std::vector<part>& parts, std::size_t count, bool output) {
            for (std::size_t k = 0; k < count; ++k) {
                const std::uint64_t bytes = (output ? t.output(k) : t.input(k)).TotalTensorSizeInBytes;
                const auto fields = output ? outputs_of(desc) : inputs_of(desc);
                if (bytes > most)
                    throw std::invalid_argument(fmt::format("directml: {}.TotalTensorSizeInBytes {} is too large to run",
                                                            fields[k].field, bytes));
                if (!output && inputs[k].size() < bytes)
                    throw std::invalid_argument(fmt::format("directml: the buffer of {} has {} bytes; its TotalTensorSizeInBytes is {}",
                                                            fields[k].field, inputs[k].size(), bytes));
                if (output && !initial_outputs.empty() && initial_outputs[k].size() != bytes)
                    throw std::invalid_argument(fmt::format("directml: the initial buffer of {} has {} bytes; its "
                                                            "TotalTensorSizeInBytes is {}",
                                                            fields[k].field, initial_outputs[k].size(), bytes));
                // Each resource has room to spare past the bytes bound: DirectML's shaders may load
                // whole vectors past a tensor's last byte through root descriptors, which D3D12 does
                // not bound; on a GPU such a load reads junk it then discards, on lavapipe (where a
                // GPU address is a host pointer) it could fault. The spare bytes of an output start
                // as the sentinel and must come back unchanged: DirectML may read past a buffer,
                // never write.
                parts.push_back({gpu_->create_buffer(with_room(bytes)), bytes, with_room(bytes), upload_bytes});
                upload_bytes += parts.back().room;
            }
        };
        lay_out(b.inputs, n_in, false);
        lay_out(b.outputs, n_out, true);
        std::uint64_t readback_bytes = 0;
        for (const part& p : b.outputs) readback_bytes += p.room;
        com_ptr<abi::IDMLCompiledOperator> compiled;
        if (auto why = compile(desc, compiled)) throw error("IDMLDevice::CreateOperator", E_INVALIDARG, "directml: " + *why);
        b.upload = gpu_->make_buffer(D3D12_HEAP_TYPE_UPLOAD, std::max<std::uint64_t>(upload_bytes, 256), D3D12_RESOURCE_FLAG_NONE,
                                     D3D12_RESOURCE_STATE_GENERIC_READ);
        b.readback = gpu_->make_buffer(D3D12_HEAP_TYPE_READBACK, std::max<std::uint64_t>(readback_bytes, 256),
                                       D3D12_RESOURCE_FLAG_NONE, D3D12_RESOURCE_STATE_COPY_DEST);
        {
            void* mapped = nullptr;
            const D3D12_RANGE none{0, 0};
            d3d12::check_hresult(b.upload->Map(0, &none, &mapped), "ID3D12Resource::Map (upload)");
            auto* bytes = static_cast<std::byte*>(mapped);
            for (std::size_t k = 0; k < n_in; ++k) { // the input, then zeros to the end of its room
                std::byte* at = bytes + b.inputs[k].upload_offset;
                std::copy_n(inputs[k].begin(), static_cast<std::size_t>(b.inputs[k].bytes), at);
                std::fill(at + b.inputs[k].bytes, at + b.inputs[k].room, std::byte{0});
            }
            for (std::size_t k = 0; k < n_out; ++k) { // the sentinel, or the initial bytes and then the sentinel
                std::byte* at = bytes + b.outputs[k].upload_offset;
                std::fill(at, at + b.outputs[k].room, options_.sentinel);
                if (!initial_outputs.empty()) std::copy(initial_outputs[k].begin(), initial_outputs[k].end(), at);
            }
            b.upload->Unmap(0, nullptr);
        }
        std::vector<bool> owned(n_in); // OWNED_BY_DML: bound to the initializer
        for (std::size_t k = 0; k < n_in; ++k) owned[k] = (t.input(k).Flags & 1u) != 0;
        dispatch_operator(compiled.get(), b, owned);
        std::vector<std::vector<std::byte>> out(n_out);
        {
            void* mapped = nullptr;
            const D3D12_RANGE read{0, static_cast<SIZE_T>(readback_bytes)};
            d3d12::check_hresult(b.readback->Map(0, &read, &mapped), "ID3D12Resource::Map (readback)");
            std::uint64_t at = 0;
            for (std::size_t k = 0; k < n_out; ++k) {
                out[k].resize(static_cast<std::size_t>(b.outputs[k].room));
                std::memcpy(out[k].data(), static_cast<const std::byte*>(mapped) + at, out[k].size());
                at += b.outputs[k].room;
            }
            const D3D12_RANGE written{0, 0};
            b.readback->Unmap(0, &written);
        }
        for (std::size_t k = 0; k < n_out; ++k) {
            const std::uint64_t bound = round_up(b.outputs[k].bytes);
            for (std::uint64_t i = bound; i < b.outputs[k].room; ++i)
                if (out[k][static_cast<std::size_t>(i)] != options_.sentinel)
                    throw error("IDMLCommandRecorder::RecordDispatch", E_FAIL,
                                fmt::format("directml: the dispatch wrote byte {} of the resource of {}, past the {} bytes "
                                            "bound (TotalTensorSizeInBytes {} rounded up to 4)",
                                            i, outputs_of(desc)[k].field, bound, b.outputs[k].bytes));
            out[k].resize(static_cast<std::size_t>(b.outputs[k].bytes));
        }
        return out;
    }

    /// run() for an operator of one input and one output tensor: from `input` (at least
    /// InputTensor.TotalTensorSizeInBytes bytes) into the output buffer (OutputTensor.TotalTensorSizeInBytes
    /// bytes), which starts as `initial_output` when given, else filled with the sentinel. Throws
    /// std::invalid_argument for a desc that binds more or fewer tensors (JOIN, SPLIT: the form above).
    std::vector<std::byte> run(const operator_desc& desc, std::span<const std::byte> input,
                               std::optional<std::span<const std::byte>> initial_output = std::nullopt) {
        const std::size_t n_in = inputs_of(desc).size(), n_out = outputs_of(desc).size();
        if (n_in != 1 || n_out != 1)
            throw std::invalid_argument(fmt::format("directml: {} binds {} input and {} output tensors; run it with one buffer "
                                                    "per tensor",
                                                    to_string(type_of(desc)), n_in, n_out));
        const std::span<const std::byte> initial[] = {initial_output.value_or(std::span<const std::byte>{})};
        auto out = run(desc, std::span<const std::span<const std::byte>>(&input, 1),
                       initial_output ? std::span<const std::span<const std::byte>>(initial) : std::span<const std::span<const std::byte>>{});
        return std::move(out.front());
    }

    /// Runs `desc` on DirectML and on the CPU reference (dmlref::execute, at the level DirectML
    /// reports) from the same inputs (one buffer per input tensor, as run() takes them) into output
    /// buffers that start with the same sentinel bytes, and compares the output tensors bit for
    /// bit, with the operator's regions and each listed mismatch's source (SPLIT's outputs laid end
    /// to end along Axis, as compare() takes them). Throws validation_error when dmlref rejects the desc.
    compare_report verify(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs, compare_options compare = {}) {
        dmlref::check(desc, caps_.max_feature_level);
        const auto ins = inputs_of(desc), outs = outputs_of(desc);
        if (inputs.size() != ins.size())
            throw std::invalid_argument(fmt::format("directml: {} input buffers for the {} input tensors of {}", inputs.size(),
                                                    ins.size(), to_string(type_of(desc))));
        // The CPU side gets buffers at the alignment the desc promises (DirectML cannot check GPU
        // addresses; dmlref checks host pointers).
        const auto bytes = [](const buffer_tensor_desc& t) { return static_cast<std::size_t>(t.total_tensor_size_in_bytes); };
        const auto align = [](const buffer_tensor_desc& t) { return std::max<std::size_t>(t.guaranteed_base_offset_alignment, 16); };
        std::vector<detail::aligned_bytes> in, expected;
        std::vector<std::span<const std::byte>> in_spans;
        std::vector<std::span<std::byte>> expected_spans;
        for (std::size_t k = 0; k < ins.size(); ++k) {
            in.emplace_back(bytes(ins[k].desc()), align(ins[k].desc()), std::byte{0});
            std::memcpy(in.back().span().data(), inputs[k].data(), std::min(inputs[k].size(), bytes(ins[k].desc())));
        }
        for (const bound_tensor& o : outs) expected.emplace_back(bytes(o.desc()), align(o.desc()), options_.sentinel);
        for (auto& b : in) in_spans.push_back(b.span());
        for (auto& b : expected) expected_spans.push_back(b.span());
        dmlref::execute(desc, in_spans, expected_spans, caps_.max_feature_level);
        const std::vector<std::vector<std::byte>> actual = run(desc, inputs);
        std::vector<std::vector<std::byte>> expected_packed, actual_packed;
        for (std::size_t k = 0; k < outs.size(); ++k) {
            expected_packed.push_back(d3d12::context::pack(outs[k].desc(), expected_spans[k]));
            actual_packed.push_back(d3d12::context::pack(outs[k].desc(), actual[k]));
        }
        return dmlref::compare(data_type_of(desc), compared_sizes(desc), compared_output(desc, expected_packed),
                               compared_output(desc, actual_packed), compare, &desc);
    }

    /// verify() for an operator of one input tensor.
    compare_report verify(const operator_desc& desc, std::span<const std::byte> input, compare_options compare = {}) {
        return verify(desc, std::span<const std::span<const std::byte>>(&input, 1), compare);
    }

private:
    static std::uint64_t round_up(std::uint64_t bytes) noexcept { return std::max<std::uint64_t>((bytes + 3) & ~std::uint64_t{3}, 4); }
    /// A resource's size for `bytes` bound: rounded up to 256, and 256 more.
    static std::uint64_t with_room(std::uint64_t bytes) noexcept { return ((bytes + 255) & ~std::uint64_t{255}) + 256; }

    static std::filesystem::path dll_path(const device_options& options) {
        if (!options.dll.empty()) return options.dll;
        if (const char* env = std::getenv(dll_environment_variable); env != nullptr && *env != '\0') return env;
        return "DirectML.dll";
    }

    void init() {
        caps_.dll = dll_path(options_);
        const HMODULE module = detail::load_library(caps_.dll);
        const auto create = reinterpret_cast<abi::create_device1_fn>(
            reinterpret_cast<void (*)()>(GetProcAddress(module, "DMLCreateDevice1")));
        if (create == nullptr)
            throw error("GetProcAddress", E_NOTIMPL,
                        fmt::format("directml: '{}' exports no DMLCreateDevice1 (DirectML 1.1 or later is needed)", caps_.dll.string()));
        const HRESULT hr = create(gpu_->device(), abi::create_device_flag_none, static_cast<UINT>(feature_level::fl_1_0),
                                  abi::iid_dml_device, dml_.put_void());
        if (FAILED(hr))
            throw error("DMLCreateDevice1", hr, fmt::format("directml: DMLCreateDevice1 failed with {}", hresult_text(hr)));
        query_capabilities();
        d3d12::check_hresult(dml_->CreateCommandRecorder(abi::iid_dml_command_recorder, recorder_.put_void()),
                             "IDMLDevice::CreateCommandRecorder");
        ID3D12Device* d = gpu_->device();
        const D3D12_COMMAND_LIST_TYPE type = gpu_->queue()->GetDesc().Type;
        d3d12::check_hresult(d->CreateCommandAllocator(type, d3d12::platform::iid_command_allocator, allocator_.put_void()),
                             "ID3D12Device::CreateCommandAllocator");
        d3d12::check_hresult(d->CreateCommandList(0, type, allocator_.get(), nullptr, d3d12::platform::iid_graphics_command_list,
                                                  list_.put_void()),
                             "ID3D12Device::CreateCommandList");
        d3d12::check_hresult(list_->Close(), "ID3D12GraphicsCommandList::Close");
        d3d12::check_hresult(d->CreateFence(0, D3D12_FENCE_FLAG_NONE, d3d12::platform::iid_fence, fence_.put_void()),
                             "ID3D12Device::CreateFence");
    }

    void query_capabilities() {
        static constexpr feature_level levels[] = {
            feature_level::fl_1_0, feature_level::fl_2_0, feature_level::fl_2_1, feature_level::fl_3_0, feature_level::fl_3_1,
            feature_level::fl_4_0, feature_level::fl_4_1, feature_level::fl_5_0, feature_level::fl_5_1, feature_level::fl_5_2,
            feature_level::fl_6_0, feature_level::fl_6_1, feature_level::fl_6_2, feature_level::fl_6_3, feature_level::fl_6_4};
        // Older DirectML rejects a query that names levels it does not know: ask with fewer until it answers.
        for (std::uint32_t count = std::size(levels); count > 0; --count) {
            std::uint32_t raw[std::size(levels)];
            for (std::uint32_t i = 0; i < count; ++i) raw[i] = static_cast<std::uint32_t>(levels[i]);
            const abi::feature_query_feature_levels query{count, raw};
            abi::feature_data_feature_levels data{};
            if (SUCCEEDED(dml_->CheckFeatureSupport(abi::feature_feature_levels, sizeof(query), &query, sizeof(data), &data))) {
                caps_.max_feature_level = static_cast<feature_level>(data.MaxSupportedFeatureLevel);
                break;
            }
        }
        for (data_type t : movable_data_types) {
            const abi::feature_query_tensor_data_type_support query{static_cast<std::uint32_t>(t)};
            abi::feature_data_tensor_data_type_support data{};
            const HRESULT hr = dml_->CheckFeatureSupport(abi::feature_tensor_data_type_support, sizeof(query), &query,
                                                         sizeof(data), &data);
            (SUCCEEDED(hr) && data.IsSupported ? caps_.supported_types : caps_.unsupported_types).push_back(t);
        }
    }

    std::optional<std::string> compile(const operator_desc& desc, com_ptr<abi::IDMLCompiledOperator>& compiled) {
        // The last desc compiled is kept: accepts() then run() of one desc compiles it once (a
        // compile builds a pipeline, the costliest step on a CPU Vulkan driver).
        std::string key = to_string(desc); // with the padding value's raw bits, which it prints as a value
        if (const auto* p1 = std::get_if<padding1_desc>(&desc))
            for (std::uint8_t b : p1->padding_value.bytes) key += fmt::format(" {:02x}", b);
        if (const auto* p0 = std::get_if<padding_desc>(&desc)) key += fmt::format(" {:08x}", std::bit_cast<std::uint32_t>(p0->padding_value));
        if (const auto* e = std::get_if<element_wise_identity_desc>(&desc); e && e->scale_bias)
            key += fmt::format(" {:08x} {:08x}", std::bit_cast<std::uint32_t>(e->scale_bias->scale),
                               std::bit_cast<std::uint32_t>(e->scale_bias->bias));
        if (const auto* u = std::get_if<upsample_2d_desc>(&desc)) // a mode past LINEAR prints as UNKNOWN
            key += fmt::format(" mode {}", static_cast<std::uint32_t>(u->interpolation_mode));
        if (key == last_key_ && last_compiled_) {
            compiled = last_compiled_;
            return std::nullopt;
        }
        const translated t(desc);
        com_ptr<abi::IDMLOperator> op;
        if (const HRESULT hr = dml_->CreateOperator(&t.op(), abi::iid_dml_operator, op.put_void()); FAILED(hr))
            return fmt::format("CreateOperator failed with {}", hresult_text(hr));
        if (const HRESULT hr = dml_->CompileOperator(op.get(), abi::execution_flag_none, abi::iid_dml_compiled_operator,
                                                     compiled.put_void());
            FAILED(hr))
            return fmt::format("CompileOperator failed with {}", hresult_text(hr));
        last_key_ = std::move(key);
        last_compiled_ = compiled;
        return std::nullopt;
    }

    static abi::binding_properties properties(abi::IDMLDispatchable* d) {
        abi::binding_properties p{};
        d->GetBindingProperties(&p);
        return p;
    }

    /// One tensor's resource (default heap), the bytes bound, the resource's size, and where its
    /// bytes lie in the upload buffer.
    struct part {
        com_ptr<ID3D12Resource> resource;
        std::uint64_t bytes, room, upload_offset;
    };

    /// The resources of one run: one per tensor, the staging buffer that fills them (every input,
    /// then every output, each its room long) and the one the outputs are read back into.
    struct buffers {
        std::vector<part> inputs, outputs;
        com_ptr<ID3D12Resource> upload, readback;
    };

    /// One command list, one submission: the upload of every buffer, the initializer's dispatch
    /// (once, as DirectML requires even without a persistent resource), the operator's dispatch,
    /// and the copy of the outputs to the readback buffer. Each input is bound at execution, or to
    /// the initializer where `owned[k]` (OWNED_BY_DML). One binding per tensor, tensor arrays
    /// flattened in binding order. Each dispatch has its own binding table and its own part of the
    /// shared descriptor heap.
    void dispatch_operator(abi::IDMLCompiledOperator* compiled, const buffers& b, const std::vector<bool>& owned) {
        com_ptr<abi::IDMLOperatorInitializer> initializer;
        abi::IDMLCompiledOperator* const ops[] = {compiled};
        d3d12::check_hresult(dml_->CreateOperatorInitializer(1, ops, abi::iid_dml_operator_initializer, initializer.put_void()),
                             "IDMLDevice::CreateOperatorInitializer");
        const abi::binding_properties ip = properties(initializer.get()), ep = properties(compiled);
        const std::uint32_t init_count = std::max(ip.RequiredDescriptorCount, 1u);
        const std::uint32_t exec_count = std::max(ep.RequiredDescriptorCount, 1u);

        ID3D12DescriptorHeap* const heap = descriptor_heap(init_count + exec_count);
        const std::uint64_t step = gpu_->device()->GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
        const std::uint64_t cpu = heap->GetCPUDescriptorHandleForHeapStart().ptr, gpu = heap->GetGPUDescriptorHandleForHeapStart().ptr;
        const abi::binding_table_desc init_desc{initializer.get(), cpu, gpu, init_count};
        const abi::binding_table_desc exec_desc{compiled, cpu + step * init_count, gpu + step * init_count, exec_count};
        com_ptr<abi::IDMLBindingTable> init_table, exec_table;
        d3d12::check_hresult(dml_->CreateBindingTable(&init_desc, abi::iid_dml_binding_table, init_table.put_void()),
                             "IDMLDevice::CreateBindingTable");
        d3d12::check_hresult(dml_->CreateBindingTable(&exec_desc, abi::iid_dml_binding_table, exec_table.put_void()),
                             "IDMLDevice::CreateBindingTable");

        com_ptr<ID3D12Resource> temporary, persistent;
        const std::uint64_t temporary_bytes = std::max(ip.TemporaryResourceSize, ep.TemporaryResourceSize);
        if (temporary_bytes > 0) temporary = gpu_->create_buffer(temporary_bytes);
        if (ep.PersistentResourceSize > 0) persistent = gpu_->create_buffer(ep.PersistentResourceSize);
        const abi::buffer_binding temporary_binding{temporary.get(), 0, temporary_bytes};
        const abi::buffer_binding persistent_binding{persistent.get(), 0, ep.PersistentResourceSize};
        const abi::binding_desc temporary_desc{abi::binding_type_buffer, &temporary_binding};
        const abi::binding_desc persistent_desc{abi::binding_type_buffer, &persistent_binding};

        std::vector<abi::buffer_binding> in_buffers, out_buffers;
        for (const part& p : b.inputs) in_buffers.push_back({p.resource.get(), 0, round_up(p.bytes)});
        for (const part& p : b.outputs) out_buffers.push_back({p.resource.get(), 0, round_up(p.bytes)});

        // The initializer: its inputs are the OWNED_BY_DML tensors, as one buffer array for the
        // operator with an entry per input (empty where a tensor is not owned); its output the
        // persistent resource.
        std::vector<abi::buffer_binding> owned_buffers(in_buffers.size(), abi::buffer_binding{nullptr, 0, 0});
        bool any_owned = false;
        for (std::size_t k = 0; k < in_buffers.size(); ++k)
            if (owned[k]) {
                owned_buffers[k] = in_buffers[k];
                any_owned = true;
            }
        const abi::buffer_array_binding owned_array{static_cast<std::uint32_t>(owned_buffers.size()), owned_buffers.data()};
        const abi::binding_desc init_inputs{abi::binding_type_buffer_array, &owned_array};
        if (any_owned) init_table->BindInputs(1, &init_inputs);
        if (ip.TemporaryResourceSize > 0) init_table->BindTemporaryResource(&temporary_desc);
        if (persistent) init_table->BindOutputs(1, &persistent_desc);

        std::vector<abi::binding_desc> in_bindings, out_bindings;
        for (std::size_t k = 0; k < in_buffers.size(); ++k)
            in_bindings.push_back(owned[k] ? abi::binding_desc{abi::binding_type_none, nullptr}
                                           : abi::binding_desc{abi::binding_type_buffer, &in_buffers[k]});
        for (const abi::buffer_binding& o : out_buffers) out_bindings.push_back({abi::binding_type_buffer, &o});
        exec_table->BindInputs(static_cast<UINT>(in_bindings.size()), in_bindings.data());
        exec_table->BindOutputs(static_cast<UINT>(out_bindings.size()), out_bindings.data());
        if (ep.TemporaryResourceSize > 0) exec_table->BindTemporaryResource(&temporary_desc);
        if (persistent) exec_table->BindPersistentResource(&persistent_desc);

        d3d12::check_hresult(allocator_->Reset(), "ID3D12CommandAllocator::Reset");
        d3d12::check_hresult(list_->Reset(allocator_.get(), nullptr), "ID3D12GraphicsCommandList::Reset");
        for (const auto* side : {&b.inputs, &b.outputs})
            for (const part& p : *side) {
                list_->CopyBufferRegion(p.resource.get(), 0, b.upload.get(), p.upload_offset, p.room);
                transition(p.resource.get(), D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
            }
        ID3D12DescriptorHeap* heaps[] = {heap};
        list_->SetDescriptorHeaps(1, heaps);
        recorder_->RecordDispatch(list_.get(), initializer.get(), init_table.get());
        D3D12_RESOURCE_BARRIER uav{};
        uav.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
        list_->ResourceBarrier(1, &uav);
        recorder_->RecordDispatch(list_.get(), compiled, exec_table.get());
        list_->ResourceBarrier(1, &uav);
        std::uint64_t at = 0;
        for (const part& p : b.outputs) {
            transition(p.resource.get(), D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
            list_->CopyBufferRegion(b.readback.get(), at, p.resource.get(), 0, p.room);
            at += p.room;
        }
        d3d12::check_hresult(list_->Close(), "ID3D12GraphicsCommandList::Close");
        ID3D12CommandList* lists[] = {list_.get()};
        gpu_->queue()->ExecuteCommandLists(1, lists);
        ++fence_value_;
        d3d12::check_hresult(gpu_->queue()->Signal(fence_.get(), fence_value_), "ID3D12CommandQueue::Signal");
        if (fence_->GetCompletedValue() < fence_value_) {
            d3d12::platform::event done;
            d3d12::check_hresult(fence_->SetEventOnCompletion(fence_value_, done.handle()), "ID3D12Fence::SetEventOnCompletion");
            done.wait();
        }
        if (const HRESULT removed = gpu_->device()->GetDeviceRemovedReason(); FAILED(removed))
            throw error("ID3D12Device::GetDeviceRemovedReason", removed,
                        fmt::format("directml: the D3D12 device was removed ({}) by a DirectML dispatch", hresult_text(removed)));
    }

    /// The shader-visible heap the dispatches share, grown to `count` descriptors when smaller.
    /// One heap for the device's life, not one a dispatch: on vkd3d over lavapipe creating a
    /// shader-visible heap maps and zeroes about 1.5 GB (six descriptor pools sized for vkd3d's
    /// largest heap), which made a heap a dispatch the most of the parity run's time. The heap is
    /// reused only after the previous submission completed (run waits on the fence).
    ID3D12DescriptorHeap* descriptor_heap(std::uint32_t count) {
        if (!heap_ || heap_size_ < count) {
            D3D12_DESCRIPTOR_HEAP_DESC hd{};
            hd.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
            hd.NumDescriptors = std::max(count, 64u);
            hd.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
            d3d12::check_hresult(gpu_->device()->CreateDescriptorHeap(&hd, iid_descriptor_heap, heap_.put_void()),
                                 "ID3D12Device::CreateDescriptorHeap");
            heap_size_ = hd.NumDescriptors;
        }
        return heap_.get();
    }

    void transition(ID3D12Resource* resource, D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after) {
        D3D12_RESOURCE_BARRIER b{};
        b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
        b.Transition.pResource = resource;
        b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
        b.Transition.StateBefore = before;
        b.Transition.StateAfter = after;
        list_->ResourceBarrier(1, &b);
    }

    static constexpr GUID iid_descriptor_heap = {0x8efb471d, 0x616c, 0x4f49, {0x90, 0xf7, 0x12, 0x7b, 0xb7, 0x63, 0xfa, 0x51}};

    // Declaration order is release order reversed: DirectML's objects go before the D3D12 device
    // that the context (own_gpu_) holds.
    device_options options_;
    std::unique_ptr<d3d12::context> own_gpu_;
    d3d12::context* gpu_;
    capabilities caps_;
    com_ptr<abi::IDMLDevice> dml_;
    com_ptr<abi::IDMLCommandRecorder> recorder_;
    std::string last_key_;
    com_ptr<abi::IDMLCompiledOperator> last_compiled_;
    com_ptr<ID3D12CommandAllocator> allocator_;
    com_ptr<ID3D12GraphicsCommandList> list_;
    com_ptr<ID3D12Fence> fence_;
    std::uint64_t fence_value_ = 0;
    com_ptr<ID3D12DescriptorHeap> heap_;
    std::uint32_t heap_size_ = 0;
};

} // namespace dmlref::directml
