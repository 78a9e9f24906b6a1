#pragma once
/// \file checked.hpp
/// Checked arithmetic: where a caller's number meets a size, an offset or a count, it goes through
/// these and nothing else. Each returns std::nullopt where the exact result does not fit its type,
/// so that the caller rejects the input with a message instead of wrapping (signed overflow is
/// undefined behaviour; unsigned overflow silently makes a small buffer look large enough).
/// Plain C++: no compiler builtins, so every compiler takes the same path.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

namespace dmlref::detail {

/// a + b, or nullopt when it does not fit.
constexpr std::optional<std::ptrdiff_t> checked_add(std::ptrdiff_t a, std::ptrdiff_t b) noexcept {
    constexpr std::ptrdiff_t hi = std::numeric_limits<std::ptrdiff_t>::max(), lo = std::numeric_limits<std::ptrdiff_t>::min();
    if ((b > 0 && a > hi - b) || (b < 0 && a < lo - b)) return std::nullopt;
    return a + b;
}

/// a - b, or nullopt when it does not fit.
constexpr std::optional<std::ptrdiff_t> checked_sub(std::ptrdiff_t a, std::ptrdiff_t b) noexcept {
    constexpr std::ptrdiff_t hi = std::numeric_limits<std::ptrdiff_t>::max(), lo = std::numeric_limits<std::ptrdiff_t>::min();
    if ((b < 0 && a > hi + b) || (b > 0 && a < lo + b)) return std::nullopt;
    return a - b;
}

/// -a, or nullopt for the one value whose negation does not fit (PTRDIFF_MIN).
constexpr std::optional<std::ptrdiff_t> checked_neg(std::ptrdiff_t a) noexcept {
    if (a == std::numeric_limits<std::ptrdiff_t>::min()) return std::nullopt;
    return -a;
}

/// a * b, or nullopt when it does not fit.
constexpr std::optional<std::ptrdiff_t> checked_mul(std::ptrdiff_t a, std::ptrdiff_t b) noexcept {
    if (a == 0 || b == 0) return std::ptrdiff_t{0};
    constexpr std::ptrdiff_t hi = std::numeric_limits<std::ptrdiff_t>::max(), lo = std::numeric_limits<std::ptrdiff_t>::min();
    if (a > 0) {
        if (b > 0 ? a > hi / b : b < lo / a) return std::nullopt;
    } else {
        if (b > 0 ? a < lo / b : a < hi / b) return std::nullopt;
    }
    return a * b;
}

/// a + b for sizes, or nullopt when it does not fit in 64 bits.
constexpr std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) noexcept {
    if (a > std::numeric_limits<std::uint64_t>::max() - b) return std::nullopt;
    return a + b;
}

/// a * b for sizes, or nullopt when it does not fit in 64 bits.
constexpr std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) noexcept {
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b) return std::nullopt;
    return a * b;
}

/// The product of `values` (an element count), or nullopt when it does not fit in 64 bits. An
/// empty list is 1; a zero anywhere makes 0 whatever the others are.
template <class Int> constexpr std::optional<std::uint64_t> checked_product(std::span<const Int> values) noexcept {
    std::uint64_t n = 1;
    bool overflow = false;
    for (Int v : values) {
        if (v < Int{}) return std::nullopt;
        if (v == Int{}) return std::uint64_t{0};
        if (auto p = checked_mul(n, static_cast<std::uint64_t>(v))) n = *p;
        else overflow = true; // a later zero still makes 0
    }
    if (overflow) return std::nullopt;
    return n;
}

/// The bytes of a packed tensor of `sizes` holding elements of `width` bytes, or nullopt when
/// they do not fit in 64 bits: the count and the bytes checked in one step, where a wrapped
/// product would make a small buffer look large enough.
constexpr std::optional<std::uint64_t> checked_bytes(std::span<const std::uint32_t> sizes, std::uint64_t width) noexcept {
    const auto count = checked_product(sizes);
    return count ? checked_mul(*count, width) : std::nullopt;
}

/// |a| as a size: every magnitude fits in 64 unsigned bits, PTRDIFF_MIN's (2^63) too.
constexpr std::uint64_t checked_magnitude(std::ptrdiff_t a) noexcept {
    return a < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(a) : static_cast<std::uint64_t>(a);
}

/// The most elements a view may count or span: PTRDIFF_MAX / 64 (2^57 - 1, far beyond any
/// memory). A factor 8 of the 64 is the widest element, so that every byte offset fits in
/// ptrdiff_t; the other 8 is headroom for the few products of an extent and a stride that the
/// planner and the engine form, each at most a small multiple of a view's span (a block's B * B
/// rows, a merged axis, a tile of rows).
inline constexpr std::ptrdiff_t max_view_elements = std::numeric_limits<std::ptrdiff_t>::max() / 64;

/// A size as the signed index type, or nullopt when it does not fit.
constexpr std::optional<std::ptrdiff_t> checked_signed(std::uint64_t v) noexcept {
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max())) return std::nullopt;
    return static_cast<std::ptrdiff_t>(v);
}

/// The element offsets [low, high] that a view of `extents` (each >= 1) and `strides` touches,
/// relative to its element 0; nullopt when any step of the sum does not fit. Every offset the
/// engine later forms from these extents and strides lies within [low, high], so once this
/// succeeds (and [low, high] lies inside the buffer) no later product or sum can overflow.
constexpr std::optional<std::pair<std::ptrdiff_t, std::ptrdiff_t>> checked_reach(std::span<const std::ptrdiff_t> extents,
                                                                                std::span<const std::ptrdiff_t> strides) noexcept {
    std::ptrdiff_t low = 0, high = 0;
    for (std::size_t i = 0; i < extents.size(); ++i) {
        if (extents[i] < 1) return std::nullopt;
        const auto span = checked_mul(extents[i] - 1, strides[i]);
        if (!span) return std::nullopt;
        auto& side = *span < 0 ? low : high;
        const auto sum = checked_add(side, *span);
        if (!sum) return std::nullopt;
        side = *sum;
    }
    if (!checked_sub(high, low) || !checked_add(high - low, 1)) return std::nullopt; // the span itself fits
    return std::pair{low, high};
}

} // namespace dmlref::detail
