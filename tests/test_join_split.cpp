// JOIN and SPLIT over views (ops/join_split.hpp): DirectML's documented JOIN examples, SPLIT as
// their inverse, the refusals with their messages, and the engine against the textbook evaluator
// (textbook_join_split.hpp) on 2,000 random joins and 2,000 random splits: ranks 1 to 8, 1 to 5
// parts, every element width, permuted, reversed and broadcast inputs, strided outputs with gaps.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/textbook_join_split.hpp>

#include "seeded_random.hpp"
#include "view_draws.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

using namespace dmlref;
using Catch::Matchers::Contains;
using dmlref::test_support::iota_from;


TEST_CASE("JOIN example 1: {1, 1, 2, 3} and {1, 1, 2, 4} on axis 3 (DirectML's documentation)", "[join]") {
    const auto a = iota_from(1, 6), b = iota_from(7, 8);
    std::vector<float> out(14);
    join<float, 4>({strided_view<const float, 4>(a.data(), {1, 1, 2, 3}), strided_view<const float, 4>(b.data(), {1, 1, 2, 4})},
                   strided_view<float, 4>(out.data(), {1, 1, 2, 7}), 3);
    CHECK(out == std::vector<float>{1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14});
}

TEST_CASE("JOIN example 2: three {1, 1, 2, 2} inputs on axes 1, 2 and 3 (DirectML's documentation)", "[join]") {
    const auto a = iota_from(1, 4), b = iota_from(5, 4), c = iota_from(9, 4);
    const auto view = [](const std::vector<float>& v) { return strided_view<const float, 4>(v.data(), {1, 1, 2, 2}); };
    std::vector<float> out(12);
    join<float, 4>({view(a), view(b), view(c)}, strided_view<float, 4>(out.data(), {1, 3, 2, 2}), 1);
    CHECK(out == iota_from(1, 12));
    join<float, 4>({view(a), view(b), view(c)}, strided_view<float, 4>(out.data(), {1, 1, 6, 2}), 2);
    CHECK(out == iota_from(1, 12));
    join<float, 4>({view(a), view(b), view(c)}, strided_view<float, 4>(out.data(), {1, 1, 2, 6}), 3);
    CHECK(out == std::vector<float>{1, 2, 5, 6, 9, 10, 3, 4, 7, 8, 11, 12});
}

TEST_CASE("SPLIT examples 1 and 2: {1, 1, 6, 2} on axis 2 into 2 + 1 + 3, and on axis 3 into 1 + 1 (DirectML's documentation)",
          "[split]") {
    const auto in = iota_from(1, 12);
    const strided_view<const float, 4> input(in.data(), {1, 1, 6, 2});
    std::vector<float> a(4), b(2), c(6);
    split<float, 4>(input, {strided_view<float, 4>(a.data(), {1, 1, 2, 2}), strided_view<float, 4>(b.data(), {1, 1, 1, 2}),
                            strided_view<float, 4>(c.data(), {1, 1, 3, 2})},
                    2);
    CHECK(a == std::vector<float>{1, 2, 3, 4});
    CHECK(b == std::vector<float>{5, 6});
    CHECK(c == std::vector<float>{7, 8, 9, 10, 11, 12});
    std::vector<float> left(6), right(6);
    split<float, 4>(input, {strided_view<float, 4>(left.data(), {1, 1, 6, 1}), strided_view<float, 4>(right.data(), {1, 1, 6, 1})}, 3);
    CHECK(left == std::vector<float>{1, 3, 5, 7, 9, 11});
    CHECK(right == std::vector<float>{2, 4, 6, 8, 10, 12});
}

TEST_CASE("SPLIT undoes JOIN example 1", "[split]") {
    const std::vector<float> joined{1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14};
    std::vector<float> a(6), b(8);
    split<float, 4>(strided_view<const float, 4>(joined.data(), {1, 1, 2, 7}),
                    {strided_view<float, 4>(a.data(), {1, 1, 2, 3}), strided_view<float, 4>(b.data(), {1, 1, 2, 4})}, 3);
    CHECK(a == iota_from(1, 6));
    CHECK(b == iota_from(7, 8));
}

TEST_CASE("JOIN of one input is a copy, and so is SPLIT into one output", "[join][split]") {
    const auto a = iota_from(1, 6);
    std::vector<float> out(6), back(6);
    join<float, 2>({strided_view<const float, 2>(a.data(), {2, 3})}, strided_view<float, 2>(out.data(), {2, 3}), 0);
    CHECK(out == a);
    split<float, 2>(strided_view<const float, 2>(out.data(), {2, 3}), {strided_view<float, 2>(back.data(), {2, 3})}, 1);
    CHECK(back == a);
}

TEST_CASE("JOIN and SPLIT refuse what does not fit, naming op, field, axis and values", "[join][split][validation]") {
    const auto a = iota_from(1, 6), b = iota_from(7, 8);
    std::vector<float> out(14);
    const strided_view<const float, 2> va(a.data(), {2, 3}), vb(b.data(), {2, 4});
    const strided_view<float, 2> vout(out.data(), {2, 7});
    CHECK_THROWS_WITH((join<float, 2>(std::span<const strided_view<const float, 2>>(), vout, 1)),
                      "join: InputCount is 0; it must be at least 1");
    CHECK_THROWS_WITH((join<float, 2>({va, vb}, vout, 2)), "join: Axis = 2 is outside [0, 1] (OutputTensor has 2 dimensions)");
    CHECK_THROWS_WITH((join<float, 2>({va, vb}, vout, 0)),
                      "join: InputTensors[0].Sizes[1] = 3 differs from OutputTensor.Sizes[1] = 7; only Axis (0) may differ");
    CHECK_THROWS_WITH((join<float, 2>({va, vb}, strided_view<float, 2>(out.data(), {2, 6}), 1)),
                      "join: the InputTensors' Sizes[1] sum past OutputTensor.Sizes[1] = 6 at InputTensors[1] (7 so far)");
    CHECK_THROWS_WITH((join<float, 2>({va, va}, vout, 1)),
                      "join: the InputTensors' Sizes[1] sum to 6; OutputTensor.Sizes[1] is 7; they must match");
    CHECK_THROWS_WITH((join<float, 2>({va, vb}, strided_view<float, 2>(out.data(), {2, 7}, {0, 1}), 1)),
                      Contains("join: OutputTensor.Strides[0] is 0"));
    // An input inside the output's memory.
    CHECK_THROWS_WITH((join<float, 2>({strided_view<const float, 2>(out.data(), {2, 3}), vb}, vout, 1)),
                      Contains("join: the memory of OutputTensor") && Contains("and of InputTensors[0]") && Contains("overlap"));

    std::vector<float> x(6), y(8);
    const strided_view<const float, 2> whole(out.data(), {2, 7});
    CHECK_THROWS_WITH((split<float, 2>(whole, std::span<const strided_view<float, 2>>(), 1)),
                      "split: OutputCount is 0; it must be at least 1");
    CHECK_THROWS_WITH((split<float, 2>(whole, {strided_view<float, 2>(x.data(), {2, 3}), strided_view<float, 2>(y.data(), {2, 3})}, 1)),
                      "split: the OutputTensors' Sizes[1] sum to 6; InputTensor.Sizes[1] is 7; they must match");
    // Two outputs sharing memory: every part must have its own.
    CHECK_THROWS_WITH((split<float, 2>(whole, {strided_view<float, 2>(y.data(), {2, 3}), strided_view<float, 2>(y.data(), {2, 4})}, 1)),
                      Contains("split: the memory of OutputTensors[0]") && Contains("and of OutputTensors[1]") &&
                          Contains("each output must have its own"));
    CHECK_THROWS_WITH((split<float, 2>(whole, {strided_view<float, 2>(x.data(), {2, 3}), strided_view<float, 2>(out.data() + 2, {2, 4})}, 1)),
                      Contains("split: the memory of OutputTensors[1]") && Contains("and of InputTensor") && Contains("overlap"));
    // Interleaved outputs in one buffer overlap as byte ranges, though no element is shared: refused.
    std::vector<float> both(14);
    CHECK_THROWS_WITH((split<float, 2>(whole, {strided_view<float, 2>(both.data(), {2, 3}, {6, 1}),
                                               strided_view<float, 2>(both.data() + 3, {2, 4}, {7, 1})}, 1)),
                      Contains("each output must have its own"));
}

TEST_CASE("textbook JOIN names the part and its coordinate", "[join][textbook]") {
    const std::array<std::ptrdiff_t, 3> lengths{2, 1, 3};
    using S = textbook::part_source<2>;
    CHECK(textbook::join_source_of<2>(lengths, {4, 0}, 0) == S{2, {1, 0}});
    CHECK(textbook::join_source_of<2>(lengths, {2, 5}, 0) == S{1, {0, 5}});
    CHECK(textbook::join_source_of<2>(lengths, {1, 9}, 0) == S{0, {1, 9}});
}

// ---- random joins and splits: the engine against the textbook -------------------------------

namespace {

using namespace dmlref::test_support;


template <class T, std::size_t Rank> void random_join_split(rng_t& rng, bool is_join) {
    index_array<Rank> whole{};
    for (auto& e : whole) e = draw(rng, 1, Rank > 4 ? 3 : 5);
    const std::size_t axis = static_cast<std::size_t>(draw(rng, 0, Rank - 1));
    const std::size_t count = static_cast<std::size_t>(draw(rng, 1, 5));
    std::vector<index_array<Rank>> part_extents(count, whole);
    std::ptrdiff_t total = 0;
    for (auto& p : part_extents) total += p[axis] = draw(rng, 1, 4);
    whole[axis] = total;

    std::vector<drawn_layout<Rank>> part_layouts;
    std::vector<std::vector<T>> part_storage, part_again;
    for (const auto& p : part_extents) {
        part_layouts.push_back(draw_layout<Rank>(rng, p, is_join));
        part_storage.push_back(random_storage<T>(rng, part_layouts.back().span));
    }
    part_again = part_storage;
    const drawn_layout<Rank> whole_layout = draw_layout<Rank>(rng, whole, !is_join);
    std::vector<T> whole_storage = random_storage<T>(rng, whole_layout.span);
    std::vector<T> whole_again = whole_storage;

    const auto part_view = [&](std::vector<T>& s, std::size_t k) {
        return strided_view<T, Rank>(s.data(), part_extents[k], part_layouts[k].strides, part_layouts[k].offset);
    };
    const auto whole_view = [&](std::vector<T>& s) { return strided_view<T, Rank>(s.data(), whole, whole_layout.strides, whole_layout.offset); };
    if (is_join) {
        std::vector<strided_view<const T, Rank>> inputs;
        for (std::size_t k = 0; k < count; ++k) inputs.push_back(part_view(part_storage[k], k));
        join<T, Rank>(inputs, whole_view(whole_storage), axis);
        textbook::join<T, Rank>(inputs, whole_view(whole_again), axis);
        REQUIRE(std::memcmp(whole_storage.data(), whole_again.data(), whole_storage.size() * sizeof(T)) == 0);
    } else {
        std::vector<strided_view<T, Rank>> outputs, outputs_again;
        for (std::size_t k = 0; k < count; ++k) {
            outputs.push_back(part_view(part_storage[k], k));
            outputs_again.push_back(part_view(part_again[k], k));
        }
        split<T, Rank>(whole_view(whole_storage), outputs, axis);
        textbook::split<T, Rank>(whole_view(whole_storage), outputs_again, axis);
        for (std::size_t k = 0; k < count; ++k)
            REQUIRE(std::memcmp(part_storage[k].data(), part_again[k].data(), part_storage[k].size() * sizeof(T)) == 0);
    }
}

template <class T> void random_cases(rng_t& rng, bool is_join) {
    switch (draw(rng, 1, 8)) {
    case 1: return random_join_split<T, 1>(rng, is_join);
    case 2: return random_join_split<T, 2>(rng, is_join);
    case 3: return random_join_split<T, 3>(rng, is_join);
    case 4: return random_join_split<T, 4>(rng, is_join);
    case 5: return random_join_split<T, 5>(rng, is_join);
    case 6: return random_join_split<T, 6>(rng, is_join);
    case 7: return random_join_split<T, 7>(rng, is_join);
    default: return random_join_split<T, 8>(rng, is_join);
    }
}

void random_case(rng_t& rng, bool is_join) {
    switch (draw(rng, 0, 3)) {
    case 0: return random_cases<std::uint8_t>(rng, is_join);
    case 1: return random_cases<std::uint16_t>(rng, is_join);
    case 2: return random_cases<std::uint32_t>(rng, is_join);
    default: return random_cases<std::uint64_t>(rng, is_join);
    }
}

} // namespace

TEST_CASE("JOIN: the engine equals the textbook on 2,000 random joins", "[join][property]") {
    rng_t rng(20261127);
    for (int n = 0; n < 2000; ++n) {
        INFO("case " << n);
        random_case(rng, true);
    }
}

TEST_CASE("SPLIT: the engine equals the textbook on 2,000 random splits", "[split][property]") {
    rng_t rng(20261128);
    for (int n = 0; n < 2000; ++n) {
        INFO("case " << n);
        random_case(rng, false);
    }
}
