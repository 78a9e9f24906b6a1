#pragma once
/// \file tensor_desc.hpp
/// DML_BUFFER_TENSOR_DESC and DMLCalcBufferTensorSize.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "data_type.hpp"

namespace dmlref {

/// DML_TENSOR_FLAGS (bit flags).
enum class tensor_flags : std::uint32_t {
    none = 0x0,
    owned_by_dml = 0x1, ///< only valid on inputs
};

/// DirectML's limits (DML_TENSOR_DIMENSION_COUNT_MAX1 and the element cap of buffer tensors).
inline constexpr std::uint32_t max_dimension_count = 8;
inline constexpr std::uint64_t max_element_count = 0xffff'ffffu;
/// The largest TotalTensorSizeInBytes DirectML accepts for elements of `element_size` bytes:
/// (2^32 - 1) elements' worth (measured on DirectML 1.15.4 for 1-, 2-, 4- and 8-byte types: one
/// byte more is refused).
constexpr std::uint64_t max_total_tensor_size_in_bytes(std::uint64_t element_size) noexcept {
    return max_element_count * element_size;
}
/// The smallest non-zero GuaranteedBaseOffsetAlignment DirectML accepts: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
/// (measured on DirectML 1.15.4: 1, 2, 4 and 8 are refused).
inline constexpr std::uint32_t min_guaranteed_base_offset_alignment = 16;
/// SLICE's largest stride (its Strides are UINT): measured on DirectML 1.15.4, 2^31 and above are refused.
inline constexpr std::uint32_t max_slice_stride = 0x7fff'ffffu;

/// DML_BUFFER_TENSOR_DESC. `sizes.size()` is DimensionCount. Strides count elements; absent means
/// packed row-major; 0 broadcasts (inputs only).
struct buffer_tensor_desc {
    dmlref::data_type data_type = dmlref::data_type::unknown;
    tensor_flags flags = tensor_flags::none;
    std::vector<std::uint32_t> sizes;
    std::optional<std::vector<std::uint32_t>> strides;
    std::uint64_t total_tensor_size_in_bytes = 0;
    std::uint32_t guaranteed_base_offset_alignment = 0;

    std::uint32_t dimension_count() const noexcept { return static_cast<std::uint32_t>(sizes.size()); }
    friend bool operator==(const buffer_tensor_desc&, const buffer_tensor_desc&) = default;
};

namespace detail {
/// a * b + c in 64 bits, saturating at UINT64_MAX.
constexpr std::uint64_t saturating_mul_add(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept {
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    if (a != 0 && b > max / a) return max;
    const std::uint64_t product = a * b;
    return c > max - product ? max : product + c;
}
} // namespace detail

/// Product of `sizes` in 64 bits (saturating; the empty product is 1).
constexpr std::uint64_t element_count(std::span<const std::uint32_t> sizes) noexcept {
    std::uint64_t count = 1;
    for (std::uint32_t s : sizes) count = detail::saturating_mul_add(count, s, 0);
    return count;
}

namespace detail {
/// Calls f(i, packed_strides(sizes)[i]) for each axis, innermost first, without allocating.
template <class F> constexpr void for_each_packed_stride(std::span<const std::uint32_t> sizes, F&& f) {
    std::uint64_t stride = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
        f(i, static_cast<std::uint32_t>(stride < 0xffff'ffffu ? stride : 0xffff'ffffu));
        stride = saturating_mul_add(stride, sizes[i], 0);
    }
}
} // namespace detail

/// Packed row-major strides: stride[i] = product of sizes[j] for j > i (saturating at UINT32_MAX,
/// which only tensors over DirectML's element cap reach).
inline std::vector<std::uint32_t> packed_strides(std::span<const std::uint32_t> sizes) {
    std::vector<std::uint32_t> strides(sizes.size());
    detail::for_each_packed_stride(sizes, [&](std::size_t i, std::uint32_t stride) { strides[i] = stride; });
    return strides;
}

/// DMLCalcBufferTensorSize: the bytes a buffer needs for this tensor, rounded up to 4.
/// IndexOfLastElement = dot(Sizes - 1, Strides) (packed strides when `strides` is empty);
/// bytes = roundup((IndexOfLastElement + 1) * ElementSizeInBits / 8, 4). Unlike DirectML's helper,
/// which counts in 32 bits, this counts in 64 bits and saturates at UINT64_MAX, so an overflow
/// can only make a buffer look too small, never large enough. A size of 0 gives 0.
constexpr std::uint64_t calc_buffer_tensor_size(data_type type, std::span<const std::uint32_t> sizes,
                                                std::span<const std::uint32_t> strides = {}) noexcept {
    constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t element_after_last = 0;
    if (strides.empty()) {
        element_after_last = element_count(sizes);
    } else {
        std::uint64_t last = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            if (sizes[i] == 0) return 0;
            last = detail::saturating_mul_add(sizes[i] - 1u, i < strides.size() ? strides[i] : 0u, last);
        }
        element_after_last = last == saturated ? saturated : last + 1;
    }
    if (element_after_last == 0) return 0;
    const std::uint64_t bits = detail::saturating_mul_add(element_after_last, element_bits(type), 0);
    if (bits == saturated) return saturated;
    const std::uint64_t bytes = bits / 8 + (bits % 8 != 0);
    return bytes > saturated - 3 ? saturated : (bytes + 3) & ~std::uint64_t{3};
}

/// calc_buffer_tensor_size of a desc (its own strides, or packed).
inline std::uint64_t calc_buffer_tensor_size(const buffer_tensor_desc& desc) noexcept {
    return calc_buffer_tensor_size(desc.data_type, desc.sizes,
                                   desc.strides ? std::span<const std::uint32_t>(*desc.strides)
                                                : std::span<const std::uint32_t>{});
}

/// A desc whose TotalTensorSizeInBytes is exactly DMLCalcBufferTensorSize.
inline buffer_tensor_desc make_buffer_tensor_desc(data_type type, std::vector<std::uint32_t> sizes,
                                                  std::optional<std::vector<std::uint32_t>> strides = {}) {
    buffer_tensor_desc desc{type, tensor_flags::none, std::move(sizes), std::move(strides), 0, 0};
    desc.total_tensor_size_in_bytes = calc_buffer_tensor_size(desc);
    return desc;
}

} // namespace dmlref
