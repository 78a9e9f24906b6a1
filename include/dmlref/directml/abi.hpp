#pragma once
/// \file abi.hpp
/// The subset of DirectML's C ABI that the directml backend uses, declared from DirectML's
/// documentation (mingw-w64 ships no DirectML.h): the structs in documented field order, the enum
/// values, and (on Windows) the interfaces with their methods in vtable order. Every struct's size
/// and field offsets are pinned with static_asserts for x86-64, where DirectML's structs have the
/// same layout under the Windows and System V ABIs (no `long` in them); so the structs, and the
/// translation of dmlref's descs into them (translate.hpp), also build and are tested off Windows.

#include <cstddef>
#include <cstdint>

namespace dmlref::directml::abi {

// DML_TENSOR_DATA_TYPE is dmlref::data_type; DML_FEATURE_LEVEL is dmlref::feature_level;
// DML_OPERATOR_TYPE is dmlref::operator_type; DML_PADDING_MODE, DML_DEPTH_SPACE_ORDER and
// DML_TENSOR_FLAGS have dmlref enums of the same values. All are 32-bit.

inline constexpr std::uint32_t tensor_type_buffer = 1;     // DML_TENSOR_TYPE_BUFFER
inline constexpr std::uint32_t binding_type_none = 0;      // DML_BINDING_TYPE_NONE
inline constexpr std::uint32_t binding_type_buffer = 1;    // DML_BINDING_TYPE_BUFFER
inline constexpr std::uint32_t binding_type_buffer_array = 2; // DML_BINDING_TYPE_BUFFER_ARRAY
inline constexpr std::uint32_t feature_tensor_data_type_support = 0; // DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT
inline constexpr std::uint32_t feature_feature_levels = 1;           // DML_FEATURE_FEATURE_LEVELS
inline constexpr std::uint32_t execution_flag_none = 0;              // DML_EXECUTION_FLAG_NONE
inline constexpr std::uint32_t create_device_flag_none = 0;          // DML_CREATE_DEVICE_FLAG_NONE
inline constexpr std::uint32_t minimum_buffer_tensor_alignment = 16; // DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT

/// DML_BUFFER_TENSOR_DESC.
struct buffer_tensor_desc {
    std::uint32_t DataType;
    std::uint32_t Flags;
    std::uint32_t DimensionCount;
    const std::uint32_t* Sizes;
    const std::uint32_t* Strides; // optional
    std::uint64_t TotalTensorSizeInBytes;
    std::uint32_t GuaranteedBaseOffsetAlignment;
};

/// DML_TENSOR_DESC.
struct tensor_desc {
    std::uint32_t Type;
    const void* Desc;
};

/// DML_OPERATOR_DESC.
struct operator_desc {
    std::uint32_t Type;
    const void* Desc;
};

/// DML_DEPTH_TO_SPACE_OPERATOR_DESC and DML_SPACE_TO_DEPTH_OPERATOR_DESC.
struct depth_space_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t BlockSize;
};

/// DML_DEPTH_TO_SPACE1_OPERATOR_DESC and DML_SPACE_TO_DEPTH1_OPERATOR_DESC.
struct depth_space1_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t BlockSize;
    std::uint32_t Order;
};

/// DML_SLICE_OPERATOR_DESC.
struct slice_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t DimensionCount;
    const std::uint32_t* Offsets;
    const std::uint32_t* Sizes;
    const std::uint32_t* Strides;
};

/// DML_SLICE1_OPERATOR_DESC.
struct slice1_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t DimensionCount;
    const std::uint32_t* InputWindowOffsets;
    const std::uint32_t* InputWindowSizes;
    const std::int32_t* InputWindowStrides;
};

/// DML_PADDING_OPERATOR_DESC.
struct padding_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t PaddingMode;
    float PaddingValue;
    std::uint32_t DimensionCount;
    const std::uint32_t* StartPadding;
    const std::uint32_t* EndPadding;
};

/// DML_SCALAR_UNION: eight bytes, aligned as its UINT64 and DOUBLE members.
struct alignas(8) scalar_union {
    std::uint8_t Bytes[8];
};

/// DML_PADDING1_OPERATOR_DESC.
struct padding1_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t PaddingMode;
    std::uint32_t PaddingValueDataType;
    scalar_union PaddingValue;
    std::uint32_t DimensionCount;
    const std::uint32_t* StartPadding;
    const std::uint32_t* EndPadding;
};

/// DML_SCALE_BIAS.
struct scale_bias {
    float Scale;
    float Bias;
};

/// DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC.
struct element_wise_identity_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    const scale_bias* ScaleBias; // optional
};

/// DML_SLICE_GRAD_OPERATOR_DESC.
struct slice_grad_operator_desc {
    const tensor_desc* InputGradientTensor;
    const tensor_desc* OutputGradientTensor;
    std::uint32_t DimensionCount;
    const std::uint32_t* InputWindowOffsets;
    const std::uint32_t* InputWindowSizes;
    const std::int32_t* InputWindowStrides;
};

/// DML_TILE_OPERATOR_DESC.
struct tile_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t RepeatsCount;
    const std::uint32_t* Repeats;
};

/// DML_SIZE_2D.
struct size_2d {
    std::uint32_t Width;
    std::uint32_t Height;
};

/// DML_UPSAMPLE_2D_OPERATOR_DESC.
struct upsample_2d_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* OutputTensor;
    size_2d ScaleSize;
    std::uint32_t InterpolationMode; // DML_INTERPOLATION_MODE
};

/// DML_SPLIT_OPERATOR_DESC: OutputTensors points to OutputCount contiguous DML_TENSOR_DESCs.
struct split_operator_desc {
    const tensor_desc* InputTensor;
    std::uint32_t OutputCount;
    const tensor_desc* OutputTensors;
    std::uint32_t Axis;
};

/// DML_JOIN_OPERATOR_DESC: the count comes before the array, unlike SPLIT; InputTensors points to
/// InputCount contiguous DML_TENSOR_DESCs.
struct join_operator_desc {
    std::uint32_t InputCount;
    const tensor_desc* InputTensors;
    const tensor_desc* OutputTensor;
    std::uint32_t Axis;
};

/// DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC.
struct reverse_subsequences_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* SequenceLengthsTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t Axis;
};

/// DML_GATHER_OPERATOR_DESC.
struct gather_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* IndicesTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t Axis;
    std::uint32_t IndexDimensions;
};

/// DML_GATHER_ELEMENTS_OPERATOR_DESC.
struct gather_elements_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* IndicesTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t Axis;
};

/// DML_GATHER_ND_OPERATOR_DESC.
struct gather_nd_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* IndicesTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t InputDimensionCount;
    std::uint32_t IndicesDimensionCount;
};

/// DML_GATHER_ND1_OPERATOR_DESC.
struct gather_nd1_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* IndicesTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t InputDimensionCount;
    std::uint32_t IndicesDimensionCount;
    std::uint32_t BatchDimensionCount;
};

/// DML_SCATTER_OPERATOR_DESC (DML_SCATTER_ELEMENTS_OPERATOR_DESC).
struct scatter_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* IndicesTensor;
    const tensor_desc* UpdatesTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t Axis;
};

/// DML_SCATTER_ND_OPERATOR_DESC.
struct scatter_nd_operator_desc {
    const tensor_desc* InputTensor;
    const tensor_desc* IndicesTensor;
    const tensor_desc* UpdatesTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t InputDimensionCount;
    std::uint32_t IndicesDimensionCount;
};

/// DML_ONE_HOT_OPERATOR_DESC.
struct one_hot_operator_desc {
    const tensor_desc* IndicesTensor;
    const tensor_desc* ValuesTensor;
    const tensor_desc* OutputTensor;
    std::uint32_t Axis;
};

/// DML_BINDING_PROPERTIES.
struct binding_properties {
    std::uint32_t RequiredDescriptorCount;
    std::uint64_t TemporaryResourceSize;
    std::uint64_t PersistentResourceSize;
};

/// DML_BINDING_DESC.
struct binding_desc {
    std::uint32_t Type;
    const void* Desc;
};

/// DML_BUFFER_BINDING (Buffer is an ID3D12Resource*).
struct buffer_binding {
    void* Buffer;
    std::uint64_t Offset;
    std::uint64_t SizeInBytes;
};

/// DML_BUFFER_ARRAY_BINDING.
struct buffer_array_binding {
    std::uint32_t BindingCount;
    const buffer_binding* Bindings;
};

/// DML_BINDING_TABLE_DESC (Dispatchable is an IDMLDispatchable*; the handles are
/// D3D12_CPU_DESCRIPTOR_HANDLE { SIZE_T ptr } and D3D12_GPU_DESCRIPTOR_HANDLE { UINT64 ptr }).
struct binding_table_desc {
    void* Dispatchable;
    std::uint64_t CPUDescriptorHandle;
    std::uint64_t GPUDescriptorHandle;
    std::uint32_t SizeInDescriptors;
};

/// DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT and DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT.
struct feature_query_tensor_data_type_support {
    std::uint32_t DataType;
};
struct feature_data_tensor_data_type_support {
    std::int32_t IsSupported; // BOOL
};

/// DML_FEATURE_QUERY_FEATURE_LEVELS and DML_FEATURE_DATA_FEATURE_LEVELS.
struct feature_query_feature_levels {
    std::uint32_t RequestedFeatureLevelCount;
    const std::uint32_t* RequestedFeatureLevels;
};
struct feature_data_feature_levels {
    std::uint32_t MaxSupportedFeatureLevel;
};

#if defined(__x86_64__) || defined(_M_X64)
// The layouts of DirectML's x64 headers.
static_assert(sizeof(buffer_tensor_desc) == 48 && alignof(buffer_tensor_desc) == 8);
static_assert(offsetof(buffer_tensor_desc, DataType) == 0 && offsetof(buffer_tensor_desc, Flags) == 4 &&
              offsetof(buffer_tensor_desc, DimensionCount) == 8 && offsetof(buffer_tensor_desc, Sizes) == 16 &&
              offsetof(buffer_tensor_desc, Strides) == 24 && offsetof(buffer_tensor_desc, TotalTensorSizeInBytes) == 32 &&
              offsetof(buffer_tensor_desc, GuaranteedBaseOffsetAlignment) == 40);
static_assert(sizeof(tensor_desc) == 16 && offsetof(tensor_desc, Desc) == 8);
static_assert(sizeof(operator_desc) == 16 && offsetof(operator_desc, Desc) == 8);
static_assert(sizeof(depth_space_operator_desc) == 24 && offsetof(depth_space_operator_desc, OutputTensor) == 8 &&
              offsetof(depth_space_operator_desc, BlockSize) == 16);
static_assert(sizeof(depth_space1_operator_desc) == 24 && offsetof(depth_space1_operator_desc, BlockSize) == 16 &&
              offsetof(depth_space1_operator_desc, Order) == 20);
static_assert(sizeof(slice_operator_desc) == 48 && offsetof(slice_operator_desc, DimensionCount) == 16 &&
              offsetof(slice_operator_desc, Offsets) == 24 && offsetof(slice_operator_desc, Sizes) == 32 &&
              offsetof(slice_operator_desc, Strides) == 40);
static_assert(sizeof(slice1_operator_desc) == 48 && offsetof(slice1_operator_desc, DimensionCount) == 16 &&
              offsetof(slice1_operator_desc, InputWindowOffsets) == 24 &&
              offsetof(slice1_operator_desc, InputWindowSizes) == 32 &&
              offsetof(slice1_operator_desc, InputWindowStrides) == 40);
static_assert(sizeof(padding_operator_desc) == 48 && offsetof(padding_operator_desc, PaddingMode) == 16 &&
              offsetof(padding_operator_desc, PaddingValue) == 20 && offsetof(padding_operator_desc, DimensionCount) == 24 &&
              offsetof(padding_operator_desc, StartPadding) == 32 && offsetof(padding_operator_desc, EndPadding) == 40);
static_assert(sizeof(scalar_union) == 8 && alignof(scalar_union) == 8);
static_assert(sizeof(padding1_operator_desc) == 56 && offsetof(padding1_operator_desc, PaddingMode) == 16 &&
              offsetof(padding1_operator_desc, PaddingValueDataType) == 20 &&
              offsetof(padding1_operator_desc, PaddingValue) == 24 &&
              offsetof(padding1_operator_desc, DimensionCount) == 32 &&
              offsetof(padding1_operator_desc, StartPadding) == 40 && offsetof(padding1_operator_desc, EndPadding) == 48);
static_assert(sizeof(scale_bias) == 8 && offsetof(scale_bias, Bias) == 4);
static_assert(sizeof(element_wise_identity_operator_desc) == 24 &&
              offsetof(element_wise_identity_operator_desc, ScaleBias) == 16);
static_assert(sizeof(slice_grad_operator_desc) == 48 && offsetof(slice_grad_operator_desc, OutputGradientTensor) == 8 &&
              offsetof(slice_grad_operator_desc, DimensionCount) == 16 &&
              offsetof(slice_grad_operator_desc, InputWindowOffsets) == 24 &&
              offsetof(slice_grad_operator_desc, InputWindowSizes) == 32 &&
              offsetof(slice_grad_operator_desc, InputWindowStrides) == 40);
static_assert(sizeof(tile_operator_desc) == 32 && offsetof(tile_operator_desc, RepeatsCount) == 16 &&
              offsetof(tile_operator_desc, Repeats) == 24);
static_assert(sizeof(size_2d) == 8 && offsetof(size_2d, Height) == 4);
static_assert(sizeof(upsample_2d_operator_desc) == 32 && offsetof(upsample_2d_operator_desc, ScaleSize) == 16 &&
              offsetof(upsample_2d_operator_desc, InterpolationMode) == 24);
static_assert(sizeof(split_operator_desc) == 32 && offsetof(split_operator_desc, OutputCount) == 8 &&
              offsetof(split_operator_desc, OutputTensors) == 16 && offsetof(split_operator_desc, Axis) == 24);
static_assert(sizeof(join_operator_desc) == 32 && offsetof(join_operator_desc, InputTensors) == 8 &&
              offsetof(join_operator_desc, OutputTensor) == 16 && offsetof(join_operator_desc, Axis) == 24);
static_assert(sizeof(reverse_subsequences_operator_desc) == 32 &&
              offsetof(reverse_subsequences_operator_desc, SequenceLengthsTensor) == 8 &&
              offsetof(reverse_subsequences_operator_desc, OutputTensor) == 16 &&
              offsetof(reverse_subsequences_operator_desc, Axis) == 24);
static_assert(sizeof(gather_operator_desc) == 32 && offsetof(gather_operator_desc, IndicesTensor) == 8 &&
              offsetof(gather_operator_desc, OutputTensor) == 16 && offsetof(gather_operator_desc, Axis) == 24 &&
              offsetof(gather_operator_desc, IndexDimensions) == 28);
static_assert(sizeof(gather_elements_operator_desc) == 32 && offsetof(gather_elements_operator_desc, IndicesTensor) == 8 &&
              offsetof(gather_elements_operator_desc, OutputTensor) == 16 && offsetof(gather_elements_operator_desc, Axis) == 24);
static_assert(sizeof(gather_nd_operator_desc) == 32 && offsetof(gather_nd_operator_desc, OutputTensor) == 16 &&
              offsetof(gather_nd_operator_desc, InputDimensionCount) == 24 &&
              offsetof(gather_nd_operator_desc, IndicesDimensionCount) == 28);
static_assert(sizeof(gather_nd1_operator_desc) == 40 && offsetof(gather_nd1_operator_desc, OutputTensor) == 16 &&
              offsetof(gather_nd1_operator_desc, InputDimensionCount) == 24 &&
              offsetof(gather_nd1_operator_desc, IndicesDimensionCount) == 28 &&
              offsetof(gather_nd1_operator_desc, BatchDimensionCount) == 32);
static_assert(sizeof(scatter_operator_desc) == 40 && offsetof(scatter_operator_desc, IndicesTensor) == 8 &&
              offsetof(scatter_operator_desc, UpdatesTensor) == 16 && offsetof(scatter_operator_desc, OutputTensor) == 24 &&
              offsetof(scatter_operator_desc, Axis) == 32);
static_assert(sizeof(scatter_nd_operator_desc) == 40 && offsetof(scatter_nd_operator_desc, UpdatesTensor) == 16 &&
              offsetof(scatter_nd_operator_desc, OutputTensor) == 24 &&
              offsetof(scatter_nd_operator_desc, InputDimensionCount) == 32 &&
              offsetof(scatter_nd_operator_desc, IndicesDimensionCount) == 36);
static_assert(sizeof(one_hot_operator_desc) == 32 && offsetof(one_hot_operator_desc, ValuesTensor) == 8 &&
              offsetof(one_hot_operator_desc, OutputTensor) == 16 && offsetof(one_hot_operator_desc, Axis) == 24);
static_assert(sizeof(binding_properties) == 24 && offsetof(binding_properties, TemporaryResourceSize) == 8 &&
              offsetof(binding_properties, PersistentResourceSize) == 16);
static_assert(sizeof(binding_desc) == 16 && offsetof(binding_desc, Desc) == 8);
static_assert(sizeof(buffer_binding) == 24 && offsetof(buffer_binding, Offset) == 8 &&
              offsetof(buffer_binding, SizeInBytes) == 16);
static_assert(sizeof(buffer_array_binding) == 16 && offsetof(buffer_array_binding, Bindings) == 8);
static_assert(sizeof(binding_table_desc) == 32 && offsetof(binding_table_desc, CPUDescriptorHandle) == 8 &&
              offsetof(binding_table_desc, GPUDescriptorHandle) == 16 &&
              offsetof(binding_table_desc, SizeInDescriptors) == 24);
static_assert(sizeof(feature_query_feature_levels) == 16 &&
              offsetof(feature_query_feature_levels, RequestedFeatureLevels) == 8);
#endif

} // namespace dmlref::directml::abi

#if defined(_WIN32)
#include "../d3d12/platform.hpp"

namespace dmlref::directml::abi {

// The interfaces, methods in vtable order (DirectML.h). IFACEMETHOD is __stdcall HRESULT, which on
// x64 is the one calling convention.

/// IDMLObject {c8263aac-9e0c-4a2d-9b8e-007521a3317c}
struct IDMLObject : public IUnknown {
    virtual HRESULT STDMETHODCALLTYPE GetPrivateData(REFGUID guid, UINT* data_size, void* data) = 0;
    virtual HRESULT STDMETHODCALLTYPE SetPrivateData(REFGUID guid, UINT data_size, const void* data) = 0;
    virtual HRESULT STDMETHODCALLTYPE SetPrivateDataInterface(REFGUID guid, IUnknown* data) = 0;
    virtual HRESULT STDMETHODCALLTYPE SetName(PCWSTR name) = 0;
};

struct IDMLOperator;
struct IDMLCompiledOperator;
struct IDMLPageable;

/// IDMLDevice {6dbd6437-96fd-423f-a98c-ae5e7c2a573f}
struct IDMLDevice : public IDMLObject {
    virtual HRESULT STDMETHODCALLTYPE CheckFeatureSupport(UINT feature, UINT query_size, const void* query,
                                                          UINT support_size, void* support) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateOperator(const operator_desc* desc, REFIID riid, void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CompileOperator(IDMLOperator* op, UINT flags, REFIID riid, void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateOperatorInitializer(UINT count, IDMLCompiledOperator* const* operators,
                                                                REFIID riid, void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateCommandRecorder(REFIID riid, void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE CreateBindingTable(const binding_table_desc* desc, REFIID riid, void** ppv) = 0;
    virtual HRESULT STDMETHODCALLTYPE Evict(UINT count, IDMLPageable* const* objects) = 0;
    virtual HRESULT STDMETHODCALLTYPE MakeResident(UINT count, IDMLPageable* const* objects) = 0;
    virtual HRESULT STDMETHODCALLTYPE GetDeviceRemovedReason() = 0;
    virtual HRESULT STDMETHODCALLTYPE GetParentDevice(REFIID riid, void** ppv) = 0;
};

/// IDMLDeviceChild {27e83142-8165-49e3-974e-2fd66e4cb69d}
struct IDMLDeviceChild : public IDMLObject {
    virtual HRESULT STDMETHODCALLTYPE GetDevice(REFIID riid, void** ppv) = 0;
};

/// IDMLPageable {b1ab0825-4542-4a4b-8617-6dde6e8f6201}
struct IDMLPageable : public IDMLDeviceChild {};

/// IDMLOperator {26caae7a-3081-4633-9581-226fbe57695d}
struct IDMLOperator : public IDMLDeviceChild {};

/// IDMLDispatchable {dcb821a8-1039-441e-9f1c-b1759c2f3cec}. GetBindingProperties returns a struct:
/// under the Windows x64 member-function ABI the caller passes a hidden result pointer after
/// `this`, and the method returns it; declared that way so that GCC calls it as MSVC does.
struct IDMLDispatchable : public IDMLPageable {
    virtual binding_properties* STDMETHODCALLTYPE GetBindingProperties(binding_properties* result) = 0;
};

/// IDMLCompiledOperator {6b15e56a-bf5c-4902-92d8-da3a650afea4}
struct IDMLCompiledOperator : public IDMLDispatchable {};

/// IDMLOperatorInitializer {427c1113-435c-469c-8676-4d5dd072f813}
struct IDMLOperatorInitializer : public IDMLDispatchable {
    virtual HRESULT STDMETHODCALLTYPE Reset(UINT count, IDMLCompiledOperator* const* operators) = 0;
};

/// IDMLBindingTable {29c687dc-de74-4e3b-ab00-1168f2fc3cfc}
struct IDMLBindingTable : public IDMLDeviceChild {
    virtual void STDMETHODCALLTYPE BindInputs(UINT count, const binding_desc* bindings) = 0;
    virtual void STDMETHODCALLTYPE BindOutputs(UINT count, const binding_desc* bindings) = 0;
    virtual void STDMETHODCALLTYPE BindTemporaryResource(const binding_desc* binding) = 0;
    virtual void STDMETHODCALLTYPE BindPersistentResource(const binding_desc* binding) = 0;
    virtual HRESULT STDMETHODCALLTYPE Reset(const binding_table_desc* desc) = 0;
};

/// IDMLCommandRecorder {e6857a76-2e3e-4fdd-bff4-5d2ba10fb453}
struct IDMLCommandRecorder : public IDMLDeviceChild {
    virtual void STDMETHODCALLTYPE RecordDispatch(ID3D12CommandList* list, IDMLDispatchable* dispatchable,
                                                  IDMLBindingTable* bindings) = 0;
};

inline constexpr GUID iid_dml_device = {0x6dbd6437, 0x96fd, 0x423f, {0xa9, 0x8c, 0xae, 0x5e, 0x7c, 0x2a, 0x57, 0x3f}};
inline constexpr GUID iid_dml_operator = {0x26caae7a, 0x3081, 0x4633, {0x95, 0x81, 0x22, 0x6f, 0xbe, 0x57, 0x69, 0x5d}};
inline constexpr GUID iid_dml_compiled_operator = {0x6b15e56a, 0xbf5c, 0x4902, {0x92, 0xd8, 0xda, 0x3a, 0x65, 0x0a, 0xfe, 0xa4}};
inline constexpr GUID iid_dml_operator_initializer = {0x427c1113, 0x435c, 0x469c, {0x86, 0x76, 0x4d, 0x5d, 0xd0, 0x72, 0xf8, 0x13}};
inline constexpr GUID iid_dml_binding_table = {0x29c687dc, 0xde74, 0x4e3b, {0xab, 0x00, 0x11, 0x68, 0xf2, 0xfc, 0x3c, 0xfc}};
inline constexpr GUID iid_dml_command_recorder = {0xe6857a76, 0x2e3e, 0x4fdd, {0xbf, 0xf4, 0x5d, 0x2b, 0xa1, 0x0f, 0xb4, 0x53}};

/// DMLCreateDevice1, loaded from the DLL at run time.
using create_device1_fn = HRESULT(WINAPI*)(ID3D12Device* device, UINT flags, UINT minimum_feature_level, REFIID riid,
                                           void** ppv);

// One vtable pointer each, and the vtable slots the documentation gives: IUnknown 3, IDMLObject 4,
// IDMLDevice 10 more.
static_assert(sizeof(IDMLDevice) == sizeof(void*));

} // namespace dmlref::directml::abi
#endif
