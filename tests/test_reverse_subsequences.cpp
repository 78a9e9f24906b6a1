// REVERSE_SUBSEQUENCES over views (ops/reverse_subsequences.hpp): DirectML's two documented
// examples, ONNX ReverseSequence's node tests (time_axis 0 / batch_axis 1 and the other way round),
// the refusals with their messages, lengths 0, 1, the axis size and past it (the read coordinate
// held at the axis's last element, as DirectML does) in UINT32 and UINT64, and the engine against the textbook evaluator
// (textbook_reverse_subsequences.hpp) on 3,000 random cases: ranks 1 to 8, every element width,
// permuted, reversed and broadcast inputs and lengths, strided outputs with gaps, and the bytes
// around the output view never written.
#include <catch2/catch.hpp>

#include <dmlref/ops/reverse_subsequences.hpp>
#include <dmlref/textbook_reverse_subsequences.hpp>

#include "seeded_random.hpp"
#include "view_draws.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

using namespace dmlref;
using Catch::Matchers::Contains;
using dmlref::test_support::iota_from;


TEST_CASE("REVERSE_SUBSEQUENCES example 1: {1, 1, 3, 4} on axis 3, lengths 2, 4, 3 (DirectML's documentation)",
          "[reverse_subsequences]") {
    const auto in = iota_from(1, 12);
    const std::vector<std::uint32_t> lengths{2, 4, 3};
    std::vector<float> out(12);
    reverse_subsequences<float, 4>(strided_view<const float, 4>(in.data(), {1, 1, 3, 4}),
                                   strided_view<const std::uint32_t, 4>(lengths.data(), {1, 1, 3, 1}),
                                   strided_view<float, 4>(out.data(), {1, 1, 3, 4}), 3);
    CHECK(out == std::vector<float>{2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12});
}

TEST_CASE("REVERSE_SUBSEQUENCES example 2: {1, 1, 3, 4} on axis 2, lengths 2, 3, 1, 0 (DirectML's documentation)",
          "[reverse_subsequences]") {
    const auto in = iota_from(1, 12);
    const std::vector<std::uint32_t> lengths{2, 3, 1, 0};
    std::vector<float> out(12);
    reverse_subsequences<float, 4>(strided_view<const float, 4>(in.data(), {1, 1, 3, 4}),
                                   strided_view<const std::uint32_t, 4>(lengths.data(), {1, 1, 1, 4}),
                                   strided_view<float, 4>(out.data(), {1, 1, 3, 4}), 2);
    CHECK(out == std::vector<float>{5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12});
}

TEST_CASE("REVERSE_SUBSEQUENCES as ONNX ReverseSequence: test_reversesequence_time and test_reversesequence_batch",
          "[reverse_subsequences][onnx]") {
    std::vector<float> out(16);
    SECTION("time_axis 0, batch_axis 1: Axis 0, the lengths along axis 1") {
        const std::vector<float> x{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
        const std::vector<std::uint64_t> lengths{4, 3, 2, 1}; // int64 in ONNX
        reverse_subsequences<float, 2>(strided_view<const float, 2>(x.data(), {4, 4}),
                                       strided_view<const std::uint64_t, 2>(lengths.data(), {1, 4}),
                                       strided_view<float, 2>(out.data(), {4, 4}), 0);
        CHECK(out == std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15});
    }
    SECTION("time_axis 1, batch_axis 0: Axis 1, the lengths along axis 0") {
        const auto x = iota_from(0, 16);
        const std::vector<std::uint64_t> lengths{1, 2, 3, 4};
        reverse_subsequences<float, 2>(strided_view<const float, 2>(x.data(), {4, 4}),
                                       strided_view<const std::uint64_t, 2>(lengths.data(), {4, 1}),
                                       strided_view<float, 2>(out.data(), {4, 4}), 1);
        CHECK(out == std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12});
    }
}

TEMPLATE_TEST_CASE("REVERSE_SUBSEQUENCES: lengths 0, 1, the axis size and past it (as DirectML reads them), UINT32 and UINT64",
                   "[reverse_subsequences]", std::uint32_t, std::uint64_t) {
    using L = TestType;
    const auto in = iota_from(0, 5);
    std::vector<float> out(5);
    const auto run = [&](L length) {
        reverse_subsequences<float, 1>(strided_view<const float, 1>(in.data(), {5}), strided_view<const L, 1>(&length, {1}),
                                       strided_view<float, 1>(out.data(), {5}), 0);
        return out;
    };
    CHECK(run(0) == std::vector<float>{0, 1, 2, 3, 4});
    CHECK(run(1) == std::vector<float>{0, 1, 2, 3, 4});
    CHECK(run(2) == std::vector<float>{1, 0, 2, 3, 4});
    CHECK(run(4) == std::vector<float>{3, 2, 1, 0, 4});
    CHECK(run(5) == std::vector<float>{4, 3, 2, 1, 0});
    // Past the axis: element i reads min(length - 1 - i, 4), so the first length - 5 repeat the last.
    CHECK(run(6) == std::vector<float>{4, 4, 3, 2, 1});
    CHECK(run(8) == std::vector<float>{4, 4, 4, 4, 3});
    CHECK(run(9) == std::vector<float>{4, 4, 4, 4, 4});
    CHECK(run(10) == std::vector<float>{4, 4, 4, 4, 4});
    CHECK(run(std::numeric_limits<L>::max()) == std::vector<float>{4, 4, 4, 4, 4});
    CHECK(run(static_cast<L>(std::numeric_limits<std::uint32_t>::max()) + 0) == std::vector<float>{4, 4, 4, 4, 4});
    if constexpr (sizeof(L) == 8) {
        CHECK(run(L{1} << 63) == std::vector<float>{4, 4, 4, 4, 4});       // past ptrdiff_t: never negative
        CHECK(run((L{1} << 32) + 2) == std::vector<float>{4, 4, 4, 4, 4}); // not read as 32 bits (2)
    }
}

TEST_CASE("REVERSE_SUBSEQUENCES refuses what does not fit, naming op, field, axis and values",
          "[reverse_subsequences][validation]") {
    const auto in = iota_from(1, 12);
    const std::vector<std::uint32_t> lengths(12, 2);
    std::vector<float> out(12);
    const strided_view<const float, 2> vin(in.data(), {3, 4});
    const strided_view<float, 2> vout(out.data(), {3, 4});
    const strided_view<const std::uint32_t, 2> by_row(lengths.data(), {3, 1});
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, by_row, vout, 2)),
                      "reverse_subsequences: Axis = 2 is outside [0, 1] (InputTensor has 2 dimensions)");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, strided_view<const std::uint32_t, 2>(lengths.data(), {3, 2}), vout, 1)),
                      "reverse_subsequences: SequenceLengthsTensor.Sizes[1] = 2; on Axis (1) it must be 1");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, strided_view<const std::uint32_t, 2>(lengths.data(), {3, 4}), vout, 1)),
                      "reverse_subsequences: SequenceLengthsTensor.Sizes[1] = 4; on Axis (1) it must be 1");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, strided_view<const std::uint32_t, 2>(lengths.data(), {2, 1}), vout, 1)),
                      "reverse_subsequences: SequenceLengthsTensor.Sizes[0] = 2 differs from InputTensor.Sizes[0] = 3; only "
                      "Axis (1) may differ (it is 1)");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, by_row, strided_view<float, 2>(out.data(), {3, 3}), 1)),
                      "reverse_subsequences: OutputTensor.Sizes[1] = 3 differs from InputTensor.Sizes[1] = 4; they must match");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, by_row, strided_view<float, 2>(out.data(), {4, 3}), 1)),
                      "reverse_subsequences: OutputTensor.Sizes[0] = 4 differs from InputTensor.Sizes[0] = 3; they must match");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(strided_view<const float, 2>(in.data(), {0, 4}), by_row, vout, 1)),
                      "reverse_subsequences: InputTensor.Sizes[0] is 0; every size must be at least 1");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, strided_view<const std::uint32_t, 2>(lengths.data(), {3, 0}), vout, 1)),
                      "reverse_subsequences: SequenceLengthsTensor.Sizes[1] is 0; every size must be at least 1");
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, by_row, strided_view<float, 2>(out.data(), {3, 4}, {0, 1}), 1)),
                      Contains("reverse_subsequences: OutputTensor.Strides[0] is 0"));
    // In place, and an output over the lengths: refused.
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(strided_view<const float, 2>(out.data(), {3, 4}), by_row, vout, 1)),
                      Contains("reverse_subsequences: the memory of OutputTensor") && Contains("and of InputTensor") &&
                          Contains("overlap"));
    std::vector<std::uint32_t> shared(12, 1);
    CHECK_THROWS_WITH((reverse_subsequences<std::uint32_t, 2>(strided_view<const std::uint32_t, 2>(shared.data(), {3, 4}),
                                                              strided_view<const std::uint32_t, 2>(shared.data(), {3, 1}),
                                                              strided_view<std::uint32_t, 2>(shared.data(), {3, 4}), 1)),
                      Contains("and of InputTensor"));
    std::vector<std::uint32_t> values(12, 1);
    CHECK_THROWS_WITH((reverse_subsequences<std::uint32_t, 2>(strided_view<const std::uint32_t, 2>(values.data(), {3, 4}),
                                                              strided_view<const std::uint32_t, 2>(shared.data() + 8, {3, 1}),
                                                              strided_view<std::uint32_t, 2>(shared.data(), {3, 4}), 1)),
                      Contains("the memory of OutputTensor") && Contains("and of SequenceLengthsTensor") && Contains("overlap"));
    // The lengths are data: no length is read before the layouts are refused, and none is refused.
    CHECK_THROWS_WITH((reverse_subsequences<float, 2>(vin, strided_view<const std::uint32_t, 2>(nullptr, {3, 1}), vout, 3)),
                      Contains("Axis = 3"));
    CHECK(out == std::vector<float>(12, 0.0f)); // nothing written by a refused call
}

TEST_CASE("textbook REVERSE_SUBSEQUENCES names the input coordinate", "[reverse_subsequences][textbook]") {
    using A = index_array<3>;
    CHECK(textbook::reverse_subsequences_source_of<3>({1, 0, 2}, 0, 3, 5) == A{1, 0, 2});
    CHECK(textbook::reverse_subsequences_source_of<3>({0, 4, 2}, 1, 3, 6) == A{0, 4, 2});
    CHECK(textbook::reverse_subsequences_source_of<3>({0, 0, 2}, 1, 3, 6) == A{0, 2, 2});
    CHECK(textbook::reverse_subsequences_source_of<3>({0, 1, 2}, 2, 9, 4) == A{0, 1, 3}); // min(9 - 1 - 2, 3)
    CHECK(textbook::reverse_subsequences_source_of<3>({0, 1, 2}, 2, 6, 4) == A{0, 1, 3}); // min(6 - 1 - 2, 3)
    CHECK(textbook::reverse_subsequences_source_of<3>({0, 1, 3}, 2, 6, 4) == A{0, 1, 2});
    CHECK(textbook::reverse_subsequences_source_of<3>({0, 1, 0}, 2, 0, 4) == A{0, 1, 0});
}

// ---- random cases: the engine against the textbook -------------------------------------------

namespace {

using namespace dmlref::test_support;


/// A length for an axis of `n`: mostly inside [0, n], sometimes past it (up to 2n, where every
/// element reads the last), sometimes the type's largest.
template <class L> L draw_length(rng_t& rng, std::ptrdiff_t n) {
    switch (draw(rng, 0, 9)) {
    case 0: return 0;
    case 1: return static_cast<L>(n);
    case 2: return static_cast<L>(n + draw(rng, 1, n));
    case 3: return std::numeric_limits<L>::max();
    default: return static_cast<L>(draw(rng, 0, n));
    }
}

constexpr std::ptrdiff_t margin = 16; // elements of guard on each side of the output's buffer

template <class T, class L, std::size_t Rank> void random_reverse(rng_t& rng) {
    index_array<Rank> extents{};
    for (auto& e : extents) e = draw(rng, 1, Rank > 4 ? 3 : 6);
    const std::size_t axis = static_cast<std::size_t>(draw(rng, 0, Rank - 1));
    if (draw(rng, 0, 3) == 0) extents[axis] = draw(rng, 8, 40); // long sequences too
    index_array<Rank> lengths_extents = extents;
    lengths_extents[axis] = 1;

    const drawn_layout<Rank> in_layout = draw_layout<Rank>(rng, extents, true);
    const drawn_layout<Rank> lengths_layout = draw_layout<Rank>(rng, lengths_extents, true);
    const drawn_layout<Rank> out_layout = draw_layout<Rank>(rng, extents, false);
    const std::vector<T> in_storage = random_storage<T>(rng, in_layout.span);
    std::vector<L> lengths_storage(static_cast<std::size_t>(lengths_layout.span));
    for (L& v : lengths_storage) v = draw_length<L>(rng, extents[axis]);
    std::vector<T> out_storage = random_storage<T>(rng, out_layout.span + 2 * margin);
    const std::vector<T> before = out_storage;
    std::vector<T> out_again = out_storage;

    const strided_view<const T, Rank> input(in_storage.data(), extents, in_layout.strides, in_layout.offset);
    const strided_view<const L, Rank> lengths(lengths_storage.data(), lengths_extents, lengths_layout.strides,
                                              lengths_layout.offset);
    const auto out_view = [&](std::vector<T>& s) {
        return strided_view<T, Rank>(s.data() + margin, extents, out_layout.strides, out_layout.offset);
    };
    reverse_subsequences<T, Rank>(input, lengths, out_view(out_storage), axis);
    textbook::reverse_subsequences<T, Rank>(input, lengths, out_view(out_again), axis);
    REQUIRE(std::memcmp(out_storage.data(), out_again.data(), out_storage.size() * sizeof(T)) == 0);
    // The guards on both sides are as they were (the gaps inside equal the textbook's, which
    // writes elements only).
    REQUIRE(std::memcmp(out_storage.data(), before.data(), margin * sizeof(T)) == 0);
    REQUIRE(std::memcmp(out_storage.data() + margin + out_layout.span, before.data() + margin + out_layout.span,
                        margin * sizeof(T)) == 0);
}

template <class T, class L> void random_ranks(rng_t& rng) {
    switch (draw(rng, 1, 8)) {
    case 1: return random_reverse<T, L, 1>(rng);
    case 2: return random_reverse<T, L, 2>(rng);
    case 3: return random_reverse<T, L, 3>(rng);
    case 4: return random_reverse<T, L, 4>(rng);
    case 5: return random_reverse<T, L, 5>(rng);
    case 6: return random_reverse<T, L, 6>(rng);
    case 7: return random_reverse<T, L, 7>(rng);
    default: return random_reverse<T, L, 8>(rng);
    }
}

template <class T> void random_lengths_type(rng_t& rng) {
    if (draw(rng, 0, 1) == 0) random_ranks<T, std::uint32_t>(rng);
    else random_ranks<T, std::uint64_t>(rng);
}

void random_case(rng_t& rng) {
    switch (draw(rng, 0, 3)) {
    case 0: return random_lengths_type<std::uint8_t>(rng);
    case 1: return random_lengths_type<std::uint16_t>(rng);
    case 2: return random_lengths_type<std::uint32_t>(rng);
    default: return random_lengths_type<std::uint64_t>(rng);
    }
}

} // namespace

TEST_CASE("REVERSE_SUBSEQUENCES: the engine equals the textbook on 3,000 random cases", "[reverse_subsequences][property]") {
    rng_t rng(20261129);
    for (int n = 0; n < 3000; ++n) {
        INFO("case " << n);
        random_case(rng);
    }
}

TEMPLATE_TEST_CASE("REVERSE_SUBSEQUENCES: every element width, axis outer and inner, equals the textbook",
                   "[reverse_subsequences]", std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t) {
    using T = TestType;
    rng_t rng(7 + sizeof(T));
    const index_array<3> extents{5, 7, 9};
    std::vector<T> in = random_storage<T>(rng, 5 * 7 * 9);
    for (std::size_t axis = 0; axis < 3; ++axis) {
        index_array<3> le = extents;
        le[axis] = 1;
        std::vector<std::uint32_t> lengths(static_cast<std::size_t>(le[0] * le[1] * le[2]));
        for (std::size_t k = 0; k < lengths.size(); ++k) lengths[k] = static_cast<std::uint32_t>(k % 11);
        std::vector<T> a(in.size()), b(in.size());
        const strided_view<const T, 3> vin(in.data(), extents);
        const strided_view<const std::uint32_t, 3> vl(lengths.data(), le);
        reverse_subsequences<T, 3>(vin, vl, strided_view<T, 3>(a.data(), extents), axis);
        textbook::reverse_subsequences<T, 3>(vin, vl, strided_view<T, 3>(b.data(), extents), axis);
        CHECK(a == b);
        // Equal lengths along the fastest axis: one plan copies whole rows.
        std::fill(lengths.begin(), lengths.end(), 3u);
        reverse_subsequences<T, 3>(vin, vl, strided_view<T, 3>(a.data(), extents), axis);
        textbook::reverse_subsequences<T, 3>(vin, vl, strided_view<T, 3>(b.data(), extents), axis);
        CHECK(a == b);
    }
}

TEST_CASE("REVERSE_SUBSEQUENCES: Axis outer with lengths varying along rows longer than a gather block",
          "[reverse_subsequences]") {
    rng_t rng(600);
    const index_array<3> extents{2, 9, 600}; // Axis 1; 600 sequences per row: blocks of 256, 256 and 88
    const std::vector<std::uint16_t> in = random_storage<std::uint16_t>(rng, 2 * 9 * 600);
    std::vector<std::uint64_t> lengths(2 * 600);
    for (auto& v : lengths) v = draw_length<std::uint64_t>(rng, 9);
    const strided_view<const std::uint16_t, 3> vin(in.data(), extents);
    const strided_view<const std::uint64_t, 3> vl(lengths.data(), {2, 1, 600});
    std::vector<std::uint16_t> a(in.size()), b(in.size());
    reverse_subsequences<std::uint16_t, 3>(vin, vl, strided_view<std::uint16_t, 3>(a.data(), extents), 1);
    textbook::reverse_subsequences<std::uint16_t, 3>(vin, vl, strided_view<std::uint16_t, 3>(b.data(), extents), 1);
    CHECK(a == b);
    // The same into an output whose rows run the other way.
    const index_array<3> strides{9 * 600, 600, -1};
    reverse_subsequences<std::uint16_t, 3>(vin, vl, strided_view<std::uint16_t, 3>(a.data(), extents, strides, 599), 1);
    textbook::reverse_subsequences<std::uint16_t, 3>(vin, vl, strided_view<std::uint16_t, 3>(b.data(), extents, strides, 599), 1);
    CHECK(a == b);
}
