#pragma once
// Random strided views for the tests over views (JOIN, SPLIT, REVERSE_SUBSEQUENCES): layouts with
// permuted, gapped, reversed and broadcast axes, and storage of random bytes, drawn the same way
// with every standard library.
#include <dmlref/strided_view.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "desc_test_support.hpp" // iota_from
#include "seeded_random.hpp"

namespace dmlref::test_support {

using rng_t = seeded::generator; // the same draws with every standard library

std::ptrdiff_t draw(rng_t& rng, std::ptrdiff_t low, std::ptrdiff_t high) {
    return static_cast<std::ptrdiff_t>(seeded::pick(rng, static_cast<std::uint32_t>(low), static_cast<std::uint32_t>(high)));
}

/// A layout for `extents`: its axes in a random order in memory, some with gaps, some reversed
/// (negative stride), and, where `may_broadcast`, some broadcast (stride 0). Returns the strides,
/// the offset of element 0 and the elements the buffer needs.
template <std::size_t Rank> struct drawn_layout {
    index_array<Rank> strides{};
    std::ptrdiff_t offset = 0, span = 1;
};

template <std::size_t Rank>
drawn_layout<Rank> draw_layout(rng_t& rng, const index_array<Rank>& extents, bool may_broadcast) {
    std::array<std::size_t, Rank> order{};
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (draw(rng, 0, 2) == 0) seeded::shuffle(order.begin(), order.end(), rng);
    drawn_layout<Rank> l;
    std::ptrdiff_t stride = 1;
    for (std::size_t n = Rank; n-- > 0;) { // order[Rank - 1] innermost
        const std::size_t i = order[n];
        if (may_broadcast && draw(rng, 0, 7) == 0) {
            l.strides[i] = 0;
            continue;
        }
        l.strides[i] = stride;
        stride *= extents[i] + (draw(rng, 0, 4) == 0 ? draw(rng, 1, 2) : 0);
    }
    l.span = stride;
    for (std::size_t i = 0; i < Rank; ++i)
        if (l.strides[i] != 0 && draw(rng, 0, 5) == 0) {
            l.offset += (extents[i] - 1) * l.strides[i];
            l.strides[i] = -l.strides[i];
        }
    return l;
}

/// Storage for a view: `span` elements of random bytes.
template <class T> std::vector<T> random_storage(rng_t& rng, std::ptrdiff_t span) {
    std::vector<T> v(static_cast<std::size_t>(span));
    auto* bytes = reinterpret_cast<unsigned char*>(v.data());
    for (std::size_t k = 0; k < v.size() * sizeof(T); ++k) bytes[k] = static_cast<unsigned char>(rng());
    return v;
}

} // namespace dmlref::test_support
