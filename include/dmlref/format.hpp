#pragma once
/// \file format.hpp
/// Printing: tensors in the nested-bracket format of DirectML's pages, elided like numpy's for
/// large tensors, and fmt formatters for dmlref's enums. Opt-in: not part of dmlref.hpp.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "data_type.hpp"
#include "operator.hpp"

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
/// pages: `[[1, 2],\n [3, 4]]`. `bytes` must hold the product of `sizes` elements.
inline std::string format_tensor(data_type type, std::span<const std::uint32_t> sizes, std::span<const std::byte> bytes,
                                 print_options options = {}) {
    const std::size_t width = element_size(type);
    std::size_t count = 1;
    for (std::uint32_t s : sizes) count *= s;
    if (width == 0 || bytes.size() < count * width) return "<invalid tensor>";
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

} // namespace dmlref

/// fmt formatters print DirectML's names: "FLOAT32", "6_4", "REFLECTION", "COLUMN_ROW_DEPTH", "SLICE1".
template <class Enum>
    requires(std::is_same_v<Enum, dmlref::data_type> || std::is_same_v<Enum, dmlref::feature_level> ||
             std::is_same_v<Enum, dmlref::padding_mode> || std::is_same_v<Enum, dmlref::depth_space_order> ||
             std::is_same_v<Enum, dmlref::operator_type> || std::is_same_v<Enum, dmlref::tensor_flags>)
struct fmt::formatter<Enum> : fmt::formatter<fmt::string_view> {
    template <class Context> auto format(Enum value, Context& ctx) const {
        const std::string_view name = dmlref::to_string(value);
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(name.data(), name.size()), ctx);
    }
};
