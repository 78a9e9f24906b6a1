#pragma once
/// \file onnx_common.hpp
/// What the ONNX exporter and reader share: type names and numbers, IR versions, packed tensors.
/// Private to the tool's ONNX sources (it includes ONNX's generated protobuf classes).

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

#include <dmlref/data_type.hpp>
#include <dmlref/tensor_desc.hpp>

namespace dmlref::node_test::detail {

/// TensorProto.DataType of each DirectML type (all eleven have one).
constexpr std::int32_t onnx_type_of(data_type type) noexcept {
    switch (type) {
    case data_type::float32: return onnx::TensorProto::FLOAT;
    case data_type::float16: return onnx::TensorProto::FLOAT16;
    case data_type::uint32: return onnx::TensorProto::UINT32;
    case data_type::uint16: return onnx::TensorProto::UINT16;
    case data_type::uint8: return onnx::TensorProto::UINT8;
    case data_type::int32: return onnx::TensorProto::INT32;
    case data_type::int16: return onnx::TensorProto::INT16;
    case data_type::int8: return onnx::TensorProto::INT8;
    case data_type::float64: return onnx::TensorProto::DOUBLE;
    case data_type::uint64: return onnx::TensorProto::UINT64;
    case data_type::int64: return onnx::TensorProto::INT64;
    default: return onnx::TensorProto::UNDEFINED;
    }
}

/// The DirectML type of an ONNX type, when it has one.
inline std::optional<data_type> data_type_of_onnx(std::int32_t onnx_type) noexcept {
    for (data_type t : movable_data_types)
        if (onnx_type_of(t) == onnx_type) return t;
    return std::nullopt;
}

/// ONNX's own name for the type, as its schemas write it ("float16", "int64").
constexpr std::string_view onnx_type_name(data_type type) noexcept {
    switch (type) {
    case data_type::float32: return "float";
    case data_type::float16: return "float16";
    case data_type::uint32: return "uint32";
    case data_type::uint16: return "uint16";
    case data_type::uint8: return "uint8";
    case data_type::int32: return "int32";
    case data_type::int16: return "int16";
    case data_type::int8: return "int8";
    case data_type::float64: return "double";
    case data_type::uint64: return "uint64";
    case data_type::int64: return "int64";
    default: return "undefined";
    }
}

/// The lowest IR version that a model importing `opset` of the default domain may declare (ONNX's
/// release table: opset 1-8 came with IR 3, 9 with 4, 10 with 5, 11 with 6, 12-14 with 7, 15-18
/// with 8, 19-20 with 9, 21-22 with 10).
constexpr std::int64_t ir_version_for(std::int64_t opset) noexcept {
    if (opset <= 8) return 3;
    if (opset == 9) return 4;
    if (opset == 10) return 5;
    if (opset == 11) return 6;
    if (opset <= 14) return 7;
    if (opset <= 18) return 8;
    if (opset <= 20) return 9;
    return 10;
}

/// The newest opset Debian's python3-onnx (1.12) checks models against.
inline constexpr std::int64_t newest_checked_opset = 17;

/// The elements of `tensor` gathered from its whole buffer in C order (strides as the desc says).
inline std::vector<std::byte> gather(const buffer_tensor_desc& tensor, std::span<const std::byte> buffer) {
    const std::size_t width = element_size(tensor.data_type);
    const std::size_t rank = tensor.sizes.size();
    std::vector<std::uint64_t> strides(rank);
    std::uint64_t packed = 1;
    for (std::size_t k = rank; k-- > 0;) {
        strides[k] = tensor.strides ? (*tensor.strides)[k] : packed;
        packed *= tensor.sizes[k];
    }
    std::vector<std::byte> out(static_cast<std::size_t>(packed) * width);
    std::vector<std::uint32_t> c(rank, 0);
    for (std::uint64_t i = 0; i < packed; ++i) {
        std::uint64_t offset = 0;
        for (std::size_t k = 0; k < rank; ++k) offset += c[k] * strides[k];
        std::memcpy(out.data() + i * width, buffer.data() + offset * width, width);
        for (std::size_t k = rank; k-- > 0;) {
            if (++c[k] < tensor.sizes[k]) break;
            c[k] = 0;
        }
    }
    return out;
}

} // namespace dmlref::node_test::detail
