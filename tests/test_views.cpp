// The typed view API over a type x rank grid: slice, slice_view, depth_to_space, space_to_depth
// and pad, with negative strides on several axes of input and output views, size-1 axes, and
// strided outputs whose gaps must stay untouched. Expected values come from the per-element
// formulas of <dmlref/textbook.hpp>, read and written through the views' own indexing.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/textbook.hpp>

#include <cstring>
#include <vector>

using namespace dmlref;

namespace {

/// A distinct, non-NaN value per index, whatever the type.
template <class T> T value_of(std::int64_t k) {
    if constexpr (std::is_same_v<T, float16>) return float16::from_bits(static_cast<std::uint16_t>(0x1000 + k));
    else return static_cast<T>(k % 100 + 1);
}

template <class T> bool same_bits(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

/// Calls f(index) for every index of `extents`, row-major.
template <std::size_t Rank, class F> void for_each_index(const index_array<Rank>& extents, F f) {
    index_array<Rank> i{};
    for (;;) {
        f(static_cast<const index_array<Rank>&>(i));
        std::size_t a = Rank;
        while (a > 0) {
            --a;
            if (++i[a] < extents[a]) break;
            i[a] = 0;
            if (a == 0) return;
        }
    }
}

/// A view of `extents` over `storage` whose axes in `reversed` run backwards and whose rows have
/// `gap` spare elements (so a strided output has bytes that must stay untouched).
template <class T, std::size_t Rank>
strided_view<T, Rank> make_view(std::vector<T>& storage, const index_array<Rank>& extents, unsigned reversed,
                                std::ptrdiff_t gap) {
    index_array<Rank> strides{};
    std::ptrdiff_t stride = 1, offset = 0;
    for (std::size_t i = Rank; i-- > 0;) {
        const bool back = (reversed >> i) & 1u;
        strides[i] = back ? -stride : stride;
        if (back) offset += (extents[i] - 1) * stride;
        stride *= extents[i] + (i == Rank - 1 ? gap : 0);
    }
    storage.assign(static_cast<std::size_t>(stride), value_of<T>(77));
    return {storage.data(), extents, strides, offset};
}

template <class T, std::size_t Rank>
void fill_distinct(const strided_view<T, Rank>& v) {
    std::int64_t k = 0;
    for_each_index<Rank>(v.extents(), [&](const index_array<Rank>& i) { v[i] = value_of<T>(k++); });
}

/// Extents with size-1 axes for every rank; small enough for rank 8.
template <std::size_t Rank> index_array<Rank> grid_extents() {
    constexpr std::ptrdiff_t pattern[] = {3, 1, 4, 2, 1, 2, 3, 2};
    index_array<Rank> e{};
    for (std::size_t i = 0; i < Rank; ++i) e[i] = Rank <= 3 ? pattern[i] + 2 : pattern[i];
    return e;
}

template <class T, std::size_t Rank> void check_slice_grid() {
    INFO("rank " << Rank);
    const auto extents = grid_extents<Rank>();
    index_array<Rank> offsets{}, sizes{}, strides{}, out_extents{};
    for (std::size_t i = 0; i < Rank; ++i) {
        offsets[i] = extents[i] > 2 ? 1 : 0;
        sizes[i] = extents[i] - offsets[i];
        strides[i] = (i % 2 ? -1 : 1) * (i % 3 == 2 ? 2 : 1);
        out_extents[i] = 1 + (sizes[i] - 1) / (strides[i] < 0 ? -strides[i] : strides[i]);
    }
    std::vector<T> in_storage, out_storage;
    for (unsigned in_rev : {0u, 0b0101'0101u, 0xffu}) {
        for (unsigned out_rev : {0u, 0b1010'1010u}) {
            INFO("input reversed " << in_rev << " output reversed " << out_rev);
            const auto input = make_view<T, Rank>(in_storage, extents, in_rev, 0);
            fill_distinct(input);
            const auto output = make_view<T, Rank>(out_storage, out_extents, out_rev, 2);
            slice<T, Rank>(input, output, offsets, sizes, strides);
            const auto view = slice_view<T, Rank>(input, offsets, sizes, strides);
            CHECK(view.extents() == out_extents);
            int wrong = 0, wrong_view = 0;
            for_each_index<Rank>(out_extents, [&](const index_array<Rank>& o) {
                index_array<Rank> c{};
                for (std::size_t i = 0; i < Rank; ++i)
                    c[i] = offsets[i] + (strides[i] < 0 ? sizes[i] - 1 : 0) + strides[i] * o[i];
                wrong += !same_bits(output[o], input[c]);
                wrong_view += !same_bits(view[o], input[c]);
            });
            CHECK(wrong == 0);
            CHECK(wrong_view == 0);
            // The gap of every row of the strided output keeps its value.
            std::size_t untouched = 0;
            for (const T& x : out_storage) untouched += same_bits(x, value_of<T>(77));
            CHECK(untouched >= out_storage.size() - static_cast<std::size_t>(output.size()));
        }
    }
}

template <class T, std::size_t Rank> void check_pad_grid() {
    INFO("rank " << Rank);
    const auto extents = grid_extents<Rank>();
    for (padding_mode mode : {padding_mode::constant, padding_mode::edge, padding_mode::reflection,
                              padding_mode::symmetric, padding_mode::wrap}) {
        INFO("mode " << to_string(mode));
        index_array<Rank> start{}, end{}, out_extents{};
        for (std::size_t i = 0; i < Rank; ++i) {
            const bool padded = Rank <= 3 || i % 3 == 0; // keep rank 8 small
            // Size-1 axes are padded too, in every mode: REFLECTION repeats the element (DECISIONS 5).
            start[i] = padded ? static_cast<std::ptrdiff_t>(i % 2 ? 1 : 2 * extents[i] + 1) : 0;
            end[i] = padded ? static_cast<std::ptrdiff_t>(i % 2 ? extents[i] + 2 : 0) : 0;
            out_extents[i] = extents[i] + start[i] + end[i];
        }
        std::vector<T> in_storage, out_storage;
        for (unsigned rev : {0u, 0b0011'0011u}) {
            const auto input = make_view<T, Rank>(in_storage, extents, rev, 0);
            fill_distinct(input);
            const auto output = make_view<T, Rank>(out_storage, out_extents, ~rev, 1);
            const T value = value_of<T>(55);
            pad<T, Rank>(input, output, mode, value, start, end);
            int wrong = 0;
            for_each_index<Rank>(out_extents, [&](const index_array<Rank>& o) {
                index_array<Rank> c{};
                bool outside = false;
                for (std::size_t i = 0; i < Rank; ++i) {
                    const auto s = textbook::padding_axis_source(mode, o[i] - start[i], extents[i]);
                    if (s) c[i] = *s;
                    else outside = true;
                }
                wrong += !same_bits(output[o], outside ? value : input[c]);
            });
            CHECK(wrong == 0);
        }
    }
}

template <class T> void check_depth_space_grid() {
    for (std::ptrdiff_t b : {1, 2, 3}) {
        for (depth_space_order order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
            INFO("B " << b << " order " << to_string(order));
            const index_array<4> depth_extents{2, 2 * b * b, 2, 3}, space_extents{2, 2, 2 * b, 3 * b};
            std::vector<T> a, z;
            const auto depth = make_view<T, 4>(a, depth_extents, 0b1010u, 0);
            fill_distinct(depth);
            const auto space = make_view<T, 4>(z, space_extents, 0b0110u, 1);
            depth_to_space<T>(depth, space, b, order);
            int wrong = 0, wrong_back = 0, not_inverse = 0;
            for_each_index<4>(space_extents, [&](const index_array<4>& o) {
                wrong += !same_bits(space[o], depth[textbook::depth_to_space_source(o, b, order, space_extents[1])]);
            });
            std::vector<T> back_storage;
            const auto back = make_view<T, 4>(back_storage, depth_extents, 0b0001u, 2);
            space_to_depth<T>(space, back, b, order);
            for_each_index<4>(depth_extents, [&](const index_array<4>& o) {
                wrong_back += !same_bits(back[o], space[textbook::space_to_depth_source(o, b, order, space_extents[1])]);
                not_inverse += !same_bits(back[o], depth[o]);
            });
            CHECK(wrong == 0);
            CHECK(wrong_back == 0);
            CHECK(not_inverse == 0);
        }
    }
}

} // namespace

#define DMLREF_ELEMENT_TYPES                                                                                        \
    std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t,              \
        std::int64_t, float, double, dmlref::float16

TEMPLATE_TEST_CASE("slice and slice_view over views: ranks 1 to 8, negative strides, size-1 axes", "[views][slice]",
                   DMLREF_ELEMENT_TYPES) {
    check_slice_grid<TestType, 1>();
    check_slice_grid<TestType, 2>();
    check_slice_grid<TestType, 3>();
    check_slice_grid<TestType, 4>();
    check_slice_grid<TestType, 5>();
    check_slice_grid<TestType, 8>();
}

TEMPLATE_TEST_CASE("pad over views: every mode, ranks 1 to 8, large unequal pads, reversed views", "[views][pad]",
                   DMLREF_ELEMENT_TYPES) {
    check_pad_grid<TestType, 1>();
    check_pad_grid<TestType, 2>();
    check_pad_grid<TestType, 3>();
    check_pad_grid<TestType, 4>();
    check_pad_grid<TestType, 8>();
}

TEMPLATE_TEST_CASE("depth_to_space and space_to_depth over views: block sizes 1 to 3, H != W, both orders",
                   "[views][depth_space]", DMLREF_ELEMENT_TYPES) {
    check_depth_space_grid<TestType>();
}

TEST_CASE("views: a reversed input needs no copy to be sliced back into order", "[views][slice]") {
    const std::vector<int> data = {1, 2, 3, 4, 5, 6};
    strided_view<const int, 2> reversed(data.data(), {2, 3}, {-3, -1}, 5); // 6 5 4 / 3 2 1
    CHECK(reversed(0, 0) == 6);
    CHECK(reversed(1, 2) == 1);
    tensor<int, 2> out({2, 3});
    slice<int, 2>(reversed, out.view(), {0, 0}, {2, 3}, {-1, -1});
    CHECK(std::vector<int>(out.values().begin(), out.values().end()) == data);
    const auto view = slice_view<const int, 2>(reversed, {0, 1}, {2, 2}, {1, -1});
    CHECK(view(0, 0) == 4);
    CHECK(view(0, 1) == 5);
    CHECK(view(1, 0) == 1);
    CHECK(view(1, 1) == 2);
}

TEST_CASE("views: a broadcast input pads and slices like a materialised one", "[views][pad]") {
    const float one = 7.5f;
    strided_view<const float, 2> broadcast(&one, {2, 3}, {0, 0});
    tensor<float, 2> out({4, 4});
    pad<float, 2>(broadcast, out.view(), padding_mode::constant, -1.0f, {1, 0}, {1, 1});
    CHECK(std::vector<float>(out.values().begin(), out.values().end()) ==
          std::vector<float>{-1, -1, -1, -1, 7.5f, 7.5f, 7.5f, -1, 7.5f, 7.5f, 7.5f, -1, -1, -1, -1, -1});
}
