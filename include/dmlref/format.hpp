#pragma once
/// \file format.hpp
/// Printing: tensors and views in the nested-bracket format of DirectML's pages, elided like
/// numpy's for large tensors, and fmt formatters for dmlref's enums, tensor descs, operator descs
/// (with DirectML's field names), views and tensors. Opt-in: not part of dmlref.hpp.
///
///   fmt::print("{}\n", desc);          // SLICE1 {InputTensor: {DataType: FLOAT32, Sizes: {1, 4}}, ...}
///   fmt::print("{}\n", view);          // [[1, 2],\n [3, 4]]

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data_type.hpp"
#include "detail/checked.hpp"
#include "operator.hpp"
#include "strided_view.hpp"

namespace dmlref {

/// How format_tensor shortens large tensors: past `threshold` elements, each axis longer than
/// 2 * `edge_items` shows its first and last `edge_items` entries around "...", as numpy does.
struct print_options {
    std::size_t threshold = 1000;
    std::size_t edge_items = 3;
};

/// One element of type `type` at `bytes` as text: integers in decimal, floats (FLOAT16 too) in
/// fmt's shortest round-trip form ("nan", "-inf", "-0").
inline std::string format_element(data_type type, const std::byte* bytes) {
    auto get = [&](auto zero) {
        decltype(zero) v;
        std::memcpy(&v, bytes, sizeof(v));
        return v;
    };
    switch (type) {
    case data_type::float32: return fmt::format("{}", get(float{}));
    case data_type::float64: return fmt::format("{}", get(double{}));
    case data_type::float16: return fmt::format("{}", double_from_half_bits(get(std::uint16_t{})));
    case data_type::uint8: return fmt::format("{}", get(std::uint8_t{}));
    case data_type::int8: return fmt::format("{}", get(std::int8_t{}));
    case data_type::uint16: return fmt::format("{}", get(std::uint16_t{}));
    case data_type::int16: return fmt::format("{}", get(std::int16_t{}));
    case data_type::uint32: return fmt::format("{}", get(std::uint32_t{}));
    case data_type::int32: return fmt::format("{}", get(std::int32_t{}));
    case data_type::uint64: return fmt::format("{}", get(std::uint64_t{}));
    case data_type::int64: return fmt::format("{}", get(std::int64_t{}));
    default: return "?";
    }
}

/// A packed row-major tensor of `sizes` at `bytes` in the nested-bracket format of DirectML's
/// pages: `[[1, 2],\n [3, 4]]`. `bytes` must hold the product of `sizes` elements; where it does
/// not, or the product's bytes do not fit in 64 bits, or the type has no size, the text is
/// "<invalid tensor>" and nothing is read.
inline std::string format_tensor(data_type type, std::span<const std::uint32_t> sizes, std::span<const std::byte> bytes,
                                 print_options options = {}) {
    const std::size_t width = element_size(type);
    const auto needed = detail::checked_bytes(sizes, width); // a wrapped product made a small buffer look whole
    if (width == 0 || !needed || bytes.size() < *needed) return "<invalid tensor>";
    const auto count = static_cast<std::size_t>(*needed / width);
    const bool elide = count > options.threshold;
    std::vector<std::size_t> strides(sizes.size(), 1);
    for (std::size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * sizes[i];

    std::string out;
    auto print = [&](auto& self, std::size_t axis, std::size_t offset) -> void {
        if (axis == sizes.size()) {
            out += format_element(type, bytes.data() + offset * width);
            return;
        }
        out += '[';
        const std::size_t n = sizes[axis];
        const std::string separator =
            axis + 1 == sizes.size() ? ", " : ",\n" + std::string(axis + 1, ' ');
        const bool cut = elide && n > 2 * options.edge_items;
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0) out += separator;
            if (cut && i == options.edge_items) { // numpy's "..." stands for the middle entries
                out += "..." + separator;
                i = n - options.edge_items;
            }
            self(self, axis + 1, offset + i * strides[axis]);
        }
        out += ']';
    };
    print(print, 0, 0);
    return out;
}

namespace detail {
/// A view's extents as DirectML sizes, or nullopt where one is negative or past 2^32 - 1, or where
/// its elements' bytes do not fit in ptrdiff_t (a broadcast view can claim any extents).
template <class T, std::size_t Rank>
std::optional<std::vector<std::uint32_t>> packed_sizes(strided_view<const T, Rank> view) {
    std::vector<std::uint32_t> sizes;
    for (auto e : view.extents()) {
        if (e < 0 || e > std::ptrdiff_t{0xffff'ffff}) return std::nullopt;
        sizes.push_back(static_cast<std::uint32_t>(e));
    }
    const auto bytes = checked_bytes(sizes, sizeof(T));
    if (!bytes || !checked_signed(*bytes)) return std::nullopt;
    return sizes;
}
/// The elements of a view of any strides as packed row-major bytes (its packed_sizes() fit).
template <class T, std::size_t Rank> std::vector<std::byte> packed_bytes(strided_view<const T, Rank> view) {
    std::vector<std::byte> packed(static_cast<std::size_t>(view.size()) * sizeof(T));
    index_array<Rank> index{};
    for (std::size_t i = 0; i < packed.size(); i += sizeof(T)) {
        std::memcpy(packed.data() + i, &view[index], sizeof(T));
        for (std::size_t k = Rank; k-- > 0;) {
            if (++index[k] < view.extent(k)) break;
            index[k] = 0;
        }
    }
    return packed;
}
} // namespace detail

/// A view of any strides in the nested-bracket format (float16 as a number); "<invalid tensor>"
/// where its extents do not fit DirectML's sizes or its packed bytes do not fit in memory's counts.
template <class T, std::size_t Rank>
std::string format_view(strided_view<const T, Rank> view, print_options options = {}) {
    const auto sizes = detail::packed_sizes(view);
    if (!sizes) return "<invalid tensor>";
    return format_tensor(data_type_of<T>(), *sizes, detail::packed_bytes(view), options);
}

/// DML_BUFFER_TENSOR_DESC with DirectML's field names; defaults (packed strides, no flags, zero
/// alignment) are left out: `{DataType: FLOAT32, Sizes: {1, 4}, TotalTensorSizeInBytes: 16}`.
inline std::string to_string(const buffer_tensor_desc& t) {
    std::string text = fmt::format("{{DataType: {}, Sizes: {{{}}}", to_string(t.data_type), fmt::join(t.sizes, ", "));
    if (t.strides) text += fmt::format(", Strides: {{{}}}", fmt::join(*t.strides, ", "));
    if (t.flags != tensor_flags::none) text += fmt::format(", Flags: {}", to_string(t.flags));
    text += fmt::format(", TotalTensorSizeInBytes: {}", t.total_tensor_size_in_bytes);
    if (t.guaranteed_base_offset_alignment != 0)
        text += fmt::format(", GuaranteedBaseOffsetAlignment: {}", t.guaranteed_base_offset_alignment);
    return text + "}";
}

/// An operator desc with DirectML's names: `SLICE1 {InputTensor: {...}, OutputTensor: {...},
/// InputWindowOffsets: {0, 1}, InputWindowSizes: {2, 3}, InputWindowStrides: {1, -2}}`.
inline std::string to_string(const operator_desc& desc) {
    return std::visit(
        [](const auto& d) {
            using D = std::remove_cvref_t<decltype(d)>;
            std::string text = fmt::format("{} {{", to_string(D::type));
            if constexpr (std::is_same_v<D, join_desc>) {
                text += fmt::format("InputCount: {}, ", d.input_tensors.size());
                for (const auto& t : inputs_of(d)) text += fmt::format("{}: {}, ", t.field, to_string(t.desc()));
                text += fmt::format("OutputTensor: {}, Axis: {}", to_string(d.output_tensor), d.axis);
            } else if constexpr (std::is_same_v<D, split_desc>) {
                text += fmt::format("InputTensor: {}, OutputCount: {}", to_string(d.input_tensor), d.output_tensors.size());
                for (const auto& t : outputs_of(d)) text += fmt::format(", {}: {}", t.field, to_string(t.desc()));
                text += fmt::format(", Axis: {}", d.axis);
            } else { // DirectML's names for the tensors (InputGradientTensor for SLICE_GRAD), in binding order
                const auto inputs = inputs_of(d);
                for (const auto& t : inputs) text += fmt::format("{}: {}, ", t.field, to_string(t.desc()));
                text += fmt::format("{}: {}", outputs_of(d).front().field, to_string(d.output_tensor));
            }
            if constexpr (std::is_same_v<D, reverse_subsequences_desc> || std::is_same_v<D, gather_desc> ||
                          std::is_same_v<D, gather_elements_desc> || std::is_same_v<D, scatter_elements_desc> ||
                          std::is_same_v<D, one_hot_desc>)
                text += fmt::format(", Axis: {}", d.axis);
            if constexpr (std::is_same_v<D, gather_desc>) text += fmt::format(", IndexDimensions: {}", d.index_dimensions);
            if constexpr (std::is_same_v<D, gather_nd_desc> || std::is_same_v<D, gather_nd1_desc> ||
                          std::is_same_v<D, scatter_nd_desc>)
                text += fmt::format(", InputDimensionCount: {}, IndicesDimensionCount: {}", d.input_dimension_count,
                                    d.indices_dimension_count);
            if constexpr (std::is_same_v<D, gather_nd1_desc>)
                text += fmt::format(", BatchDimensionCount: {}", d.batch_dimension_count);
            if constexpr (requires { d.block_size; }) text += fmt::format(", BlockSize: {}", d.block_size);
            if constexpr (requires { d.order; }) text += fmt::format(", Order: {}", to_string(d.order));
            if constexpr (std::is_same_v<D, slice_desc>)
                text += fmt::format(", Offsets: {{{}}}, Sizes: {{{}}}, Strides: {{{}}}", fmt::join(d.offsets, ", "),
                                    fmt::join(d.sizes, ", "), fmt::join(d.strides, ", "));
            if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_grad_desc>)
                text += fmt::format(", InputWindowOffsets: {{{}}}, InputWindowSizes: {{{}}}, InputWindowStrides: {{{}}}",
                                    fmt::join(d.input_window_offsets, ", "), fmt::join(d.input_window_sizes, ", "),
                                    fmt::join(d.input_window_strides, ", "));
            if constexpr (std::is_same_v<D, element_wise_identity_desc>)
                if (d.scale_bias)
                    text += fmt::format(", ScaleBias: {{Scale: {}, Bias: {}}}", d.scale_bias->scale, d.scale_bias->bias);
            if constexpr (std::is_same_v<D, tile_desc>)
                text += fmt::format(", RepeatsCount: {}, Repeats: {{{}}}", d.repeats.size(), fmt::join(d.repeats, ", "));
            if constexpr (std::is_same_v<D, upsample_2d_desc>)
                text += fmt::format(", ScaleSize: {{Width: {}, Height: {}}}, InterpolationMode: {}", d.scale_size.width,
                                    d.scale_size.height, to_string(d.interpolation_mode));
            if constexpr (requires { d.padding_mode; }) {
                text += fmt::format(", PaddingMode: {}", to_string(d.padding_mode));
                if constexpr (std::is_same_v<D, padding_desc>) {
                    text += fmt::format(", PaddingValue: {}", d.padding_value);
                } else {
                    const std::size_t width = element_size(d.padding_value_data_type);
                    std::uint64_t bits = 0;
                    std::memcpy(&bits, d.padding_value.bytes.data(), width == 0 ? 8 : width);
                    text += fmt::format(", PaddingValueDataType: {}, PaddingValue: {} (0x{:0{}x})",
                                        to_string(d.padding_value_data_type),
                                        width == 0 ? std::string("?")
                                                   : format_element(d.padding_value_data_type,
                                                                    reinterpret_cast<const std::byte*>(d.padding_value.bytes.data())),
                                        bits, (width == 0 ? 8 : width) * 2);
                }
                text += fmt::format(", StartPadding: {{{}}}, EndPadding: {{{}}}", fmt::join(d.start_padding, ", "),
                                    fmt::join(d.end_padding, ", "));
            }
            return text + "}";
        },
        desc);
}

namespace detail {
template <class T, class Variant> inline constexpr bool is_alternative_v = false;
template <class T, class... Alternatives>
inline constexpr bool is_alternative_v<T, std::variant<Alternatives...>> = (std::is_same_v<T, Alternatives> || ...);

/// One of operator_desc's alternatives: the desc structs.
template <class T>
concept desc_struct = is_alternative_v<T, operator_desc>;
} // namespace detail

} // namespace dmlref

/// fmt formatters print DirectML's names: "FLOAT32", "6_4", "REFLECTION", "COLUMN_ROW_DEPTH", "SLICE1".
template <class Enum>
    requires(std::is_same_v<Enum, dmlref::data_type> || std::is_same_v<Enum, dmlref::feature_level> ||
             std::is_same_v<Enum, dmlref::padding_mode> || std::is_same_v<Enum, dmlref::depth_space_order> ||
             std::is_same_v<Enum, dmlref::operator_type> || std::is_same_v<Enum, dmlref::tensor_flags> ||
             std::is_same_v<Enum, dmlref::interpolation_mode>)
struct fmt::formatter<Enum> : fmt::formatter<fmt::string_view> {
    template <class Context> auto format(Enum value, Context& ctx) const {
        const std::string_view name = dmlref::to_string(value);
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(name.data(), name.size()), ctx);
    }
};

/// Tensor descs and operator descs (any of the desc structs or the variant), with DirectML's names.
template <class T>
    requires(std::is_same_v<T, dmlref::buffer_tensor_desc> || std::is_same_v<T, dmlref::operator_desc> ||
             dmlref::detail::desc_struct<T>)
struct fmt::formatter<T> : fmt::formatter<fmt::string_view> {
    template <class Context> auto format(const T& value, Context& ctx) const {
        std::string text;
        if constexpr (dmlref::detail::desc_struct<T>) text = dmlref::to_string(dmlref::operator_desc(value));
        else text = dmlref::to_string(value);
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(text), ctx);
    }
};

/// Views and tensors in the nested-bracket format.
template <class T, std::size_t Rank>
struct fmt::formatter<dmlref::strided_view<T, Rank>> : fmt::formatter<fmt::string_view> {
    template <class Context> auto format(const dmlref::strided_view<T, Rank>& view, Context& ctx) const {
        const std::string text = dmlref::format_view(dmlref::strided_view<const T, Rank>(view));
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(text), ctx);
    }
};
template <class T, std::size_t Rank>
struct fmt::formatter<dmlref::tensor<T, Rank>> : fmt::formatter<fmt::string_view> {
    template <class Context> auto format(const dmlref::tensor<T, Rank>& t, Context& ctx) const {
        const std::string text = dmlref::format_view(t.view());
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(text), ctx);
    }
};
