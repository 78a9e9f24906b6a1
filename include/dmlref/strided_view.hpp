#pragma once
/// \file strided_view.hpp
/// strided_view<T, Rank>: a non-owning view of Rank-dimensional elements with signed element
/// strides, and tensor<T, Rank>, a packed owning tensor for tests and examples.

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "detail/checked.hpp"
#include "error.hpp"

namespace dmlref {

/// What dmlref can move: trivially copyable elements of 1, 2, 4 or 8 bytes. Moves copy bits, so
/// any such type works (float, float16, integers, user structs of those sizes).
template <class T>
concept element = std::is_trivially_copyable_v<std::remove_const_t<T>> &&
                  (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

/// Extents or strides of a rank-`Rank` view.
template <std::size_t Rank> using index_array = std::array<std::ptrdiff_t, Rank>;

/// Packed row-major strides for `extents`. Where the product of the inner extents does not fit in
/// ptrdiff_t, the strides outside it are 0 instead of a wrapped product: no such view describes
/// memory, and every op refuses its element count before it reads a stride.
template <std::size_t Rank> constexpr index_array<Rank> packed_strides(const index_array<Rank>& extents) noexcept {
    index_array<Rank> strides{};
    std::ptrdiff_t stride = 1;
    for (std::size_t i = Rank; i-- > 0;) {
        strides[i] = stride;
        stride = detail::checked_mul(stride, extents[i]).value_or(0);
    }
    return strides;
}

namespace detail {
/// "`what`: the extents {a, b, ...} `why`": the message of a count that does not fit. Out of line
/// from the templates, and rare, so std::to_string's cost stays off their paths.
inline std::string extents_error(const char* what, std::span<const std::ptrdiff_t> extents,
                                 const char* why) {
    std::string text = what;
    text.append(": the extents {", 15);
    for (std::size_t i = 0; i < extents.size(); ++i) {
        if (i > 0) text.append(", ", 2);
        const std::string value = std::to_string(extents[i]);
        text.append(value.data(), value.size());
    }
    text.append("} ", 2);
    text.append(why);
    return text;
}
} // namespace detail

/// A view of elements at `base[offset + sum(index[i] * strides[i])]`. Strides count elements and
/// may be negative (a reversed axis) or zero (a broadcast axis). The offset keeps element 0 apart
/// from the base, so a view with negative strides still starts at the front of its buffer.
/// Like std::span, it trusts its caller about the memory; the desc layer is the checked entry point.
template <class T, std::size_t Rank>
class strided_view {
    static_assert(element<T>, "strided_view<T, Rank>: T must be trivially copyable with a size of 1, 2, 4 or 8 bytes");
    static_assert(Rank >= 1 && Rank <= 8, "strided_view<T, Rank>: DirectML tensors have 1 to 8 dimensions");

public:
    using element_type = T;
    using value_type = std::remove_const_t<T>;
    using index_type = std::ptrdiff_t;
    static constexpr std::size_t rank = Rank;

    constexpr strided_view() noexcept = default;
    constexpr strided_view(T* base, const index_array<Rank>& extents, const index_array<Rank>& strides,
                           std::ptrdiff_t offset = 0) noexcept
        : base_(base), offset_(offset), extents_(extents), strides_(strides) {}
    /// A packed row-major view of `extents` elements at `base`.
    constexpr strided_view(T* base, const index_array<Rank>& extents) noexcept
        : strided_view(base, extents, packed_strides(extents)) {}

    /// Every view converts to its read-only form.
    constexpr operator strided_view<const T, Rank>() const noexcept
        requires(!std::is_const_v<T>)
    {
        return {base_, extents_, strides_, offset_};
    }

    constexpr T* base() const noexcept { return base_; }
    constexpr std::ptrdiff_t offset() const noexcept { return offset_; }
    constexpr const index_array<Rank>& extents() const noexcept { return extents_; }
    constexpr const index_array<Rank>& strides() const noexcept { return strides_; }
    constexpr std::ptrdiff_t extent(std::size_t axis) const noexcept { return extents_[axis]; }
    constexpr std::ptrdiff_t stride(std::size_t axis) const noexcept { return strides_[axis]; }

    /// Number of elements (the product of the extents). Throws validation_error where an extent is
    /// negative or the product does not fit in ptrdiff_t (a broadcast view can claim any extents).
    constexpr std::ptrdiff_t size() const {
        const auto n = detail::checked_product(std::span<const std::ptrdiff_t>(extents_));
        const auto count = n ? detail::checked_signed(*n) : std::nullopt;
        if (!count)
            throw validation_error(detail::extents_error("strided_view::size", extents_, "hold more elements than "
                                                                                          "ptrdiff_t counts"));
        return *count;
    }

    /// Element offset from base() of the element at `index`.
    constexpr std::ptrdiff_t offset_of(const index_array<Rank>& index) const noexcept {
        std::ptrdiff_t at = offset_;
        for (std::size_t i = 0; i < Rank; ++i) at += index[i] * strides_[i];
        return at;
    }
    constexpr T& operator[](const index_array<Rank>& index) const noexcept { return base_[offset_of(index)]; }
    template <class... I>
        requires(sizeof...(I) == Rank && (std::is_integral_v<I> && ...))
    constexpr T& operator()(I... index) const noexcept {
        return (*this)[index_array<Rank>{static_cast<std::ptrdiff_t>(index)...}];
    }

private:
    T* base_ = nullptr;
    std::ptrdiff_t offset_ = 0;
    index_array<Rank> extents_{};
    index_array<Rank> strides_{};
};

/// An owning, packed row-major tensor (zero-initialised), for tests and examples.
template <class T, std::size_t Rank>
class tensor {
    static_assert(element<T>, "tensor<T, Rank>: T must be trivially copyable with a size of 1, 2, 4 or 8 bytes");

public:
    tensor() = default;
    explicit tensor(const index_array<Rank>& extents) : extents_(extents), data_(count(extents)) {}
    tensor(const index_array<Rank>& extents, std::vector<T> values) : extents_(extents), data_(std::move(values)) {
        data_.resize(count(extents));
    }

    const index_array<Rank>& extents() const noexcept { return extents_; }
    std::ptrdiff_t size() const noexcept { return static_cast<std::ptrdiff_t>(data_.size()); }
    T* data() noexcept { return data_.data(); }
    const T* data() const noexcept { return data_.data(); }
    std::span<T> values() noexcept { return data_; }
    std::span<const T> values() const noexcept { return data_; }

    strided_view<T, Rank> view() noexcept { return {data_.data(), extents_}; }
    strided_view<const T, Rank> view() const noexcept { return {data_.data(), extents_}; }
    template <class... I> T& operator()(I... index) noexcept { return view()(index...); }
    template <class... I> const T& operator()(I... index) const noexcept { return view()(index...); }

private:
    /// The element count of `extents`; throws validation_error where an extent is negative or the
    /// count exceeds what a view may hold (max_view_elements), instead of wrapping to a small buffer.
    static std::size_t count(const index_array<Rank>& extents) {
        const auto n = detail::checked_product(std::span<const std::ptrdiff_t>(extents));
        if (!n || *n > static_cast<std::uint64_t>(detail::max_view_elements))
            throw validation_error(detail::extents_error("tensor", extents, "are negative or hold more than 2^57 - 1 "
                                                                            "elements"));
        return static_cast<std::size_t>(*n);
    }
    index_array<Rank> extents_{};
    std::vector<T> data_;
};

} // namespace dmlref
