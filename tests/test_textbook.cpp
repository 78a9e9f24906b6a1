// <dmlref/textbook.hpp> on its own: source_of's answers worked out by hand from the formulas
// (folded pads, negative strides, both depth/space orders), source_of against what execute writes
// on random descs of every operator and mode, and the textbook's checks, which are dmlref's.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/textbook.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "random_cases.hpp"

using namespace dmlref;
using textbook::source;
using textbook::source_kind;

namespace {

source from_input(std::vector<std::uint32_t> c) { return {source_kind::input, std::move(c)}; }
const source padding_constant{source_kind::padding_constant, {}};

buffer_tensor_desc f32(std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::float32, sizes); }

/// source_of along one padded axis of `n` elements, for every output coordinate: the input
/// coordinate, or -1 for the padding constant.
std::vector<int> padded_axis(padding_mode mode, std::uint32_t n, std::uint32_t start, std::uint32_t end) {
    const operator_desc desc = padding1_desc{f32({n}), f32({n + start + end}), mode, data_type::float32,
                                             scalar_union::of(0.0f), {start}, {end}};
    std::vector<int> answers;
    for (std::uint32_t o = 0; o < n + start + end; ++o) {
        const source s = textbook::source_of(desc, {o});
        answers.push_back(s.is_padding_constant() ? -1 : static_cast<int>(s.coordinates.at(0)));
    }
    return answers;
}

} // namespace

TEST_CASE("textbook: source_of folds pads larger than the axis, on both sides, in every mode", "[textbook]") {
    // An axis of 3 elements {0, 1, 2} with 7 before and 8 after: each pad folds more than twice.
    using v = std::vector<int>;
    //                                              start padding (7)       | input | end padding (8)
    CHECK(padded_axis(padding_mode::constant, 3, 7, 8) == v{-1, -1, -1, -1, -1, -1, -1, 0, 1, 2, -1, -1, -1, -1, -1, -1, -1, -1});
    CHECK(padded_axis(padding_mode::edge, 3, 7, 8) ==     v{0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2});
    CHECK(padded_axis(padding_mode::reflection, 3, 7, 8) == v{1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2});
    CHECK(padded_axis(padding_mode::symmetric, 3, 7, 8) == v{0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1});
    CHECK(padded_axis(padding_mode::wrap, 3, 7, 8) ==     v{2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1});
    // Separable: CONSTANT outside on any one axis is the constant; folded on every axis is the input.
    const operator_desc two = padding_desc{f32({2, 3}), f32({2 + 1 + 4, 3 + 5}), padding_mode::symmetric, 0.0f, {1, 5}, {4, 0}};
    CHECK(textbook::source_of(two, {0, 0}) == from_input({0, 1})); // t = (-1, -5): m = (3, 1) -> (4 - 1 - 3, 1)
    CHECK(textbook::source_of(two, {6, 7}) == from_input({1, 2}));  // t = (5, 2)
    CHECK(textbook::source_of(two, {6, 1}) == from_input({1, 2}));  // t = (5, -4): m = 2
    const operator_desc constant = padding_desc{f32({2, 3}), f32({7, 8}), padding_mode::constant, 1.5f, {1, 5}, {4, 0}};
    CHECK(textbook::source_of(constant, {1, 5}) == from_input({0, 0}));
    CHECK(textbook::source_of(constant, {1, 4}) == padding_constant);
    CHECK(textbook::source_of(constant, {0, 7}) == padding_constant);
    CHECK(textbook::to_string(textbook::source_of(constant, {0, 7})) == "the padding constant");
    CHECK(textbook::to_string(textbook::source_of(constant, {2, 7})) == "input [1, 2]");
}

TEST_CASE("textbook: padding_axis_source has an answer for any t, and none for axes no tensor has", "[textbook]") {
    constexpr std::ptrdiff_t max = std::numeric_limits<std::ptrdiff_t>::max(), min = std::numeric_limits<std::ptrdiff_t>::min();
    // REFLECTION of one element (period 0) repeats it, as DirectML 1.15.4 does (DECISIONS 5).
    for (std::ptrdiff_t t : {std::ptrdiff_t{-1}, std::ptrdiff_t{-2}, std::ptrdiff_t{-7}, std::ptrdiff_t{1},
                             std::ptrdiff_t{2}, std::ptrdiff_t{5}, std::ptrdiff_t{1} << 40, max, min, min + 1}) {
        INFO("t " << t);
        CHECK(textbook::padding_axis_source(padding_mode::reflection, t, 1) == 0);
        CHECK(textbook::padding_axis_source(padding_mode::edge, t, 1) == 0);
        CHECK(textbook::padding_axis_source(padding_mode::symmetric, t, 1) == 0);
        CHECK(textbook::padding_axis_source(padding_mode::wrap, t, 1) == 0);
        CHECK(textbook::padding_axis_source(padding_mode::constant, t, 1) == std::nullopt);
    }
    CHECK(textbook::padding_axis_source(padding_mode::reflection, 0, 1) == 0); // inside is inside
    CHECK(textbook::padding_axis_source(padding_mode::reflection, 5, 0) == std::nullopt);
    CHECK(textbook::padding_axis_source(padding_mode::wrap, 5, 0) == std::nullopt);
    CHECK(textbook::padding_axis_source(padding_mode::symmetric, -1, max) == std::nullopt);
    CHECK(textbook::padding_axis_source(padding_mode::symmetric, -1, -3) == std::nullopt);
    CHECK(textbook::padding_axis_source(padding_mode::wrap, min, 3) == 1);         // -2^63 mod 3
    CHECK(textbook::padding_axis_source(padding_mode::reflection, max, 4) == 1);   // (2^63 - 1) mod 6
    CHECK(textbook::padding_axis_source(padding_mode::symmetric, min, 4) == 0);    // -2^63 mod 8 = 0
    CHECK(textbook::padding_axis_source(padding_mode::edge, min, 4) == 0);
    CHECK(textbook::padding_axis_source(padding_mode::edge, max, 4) == 3);
    CHECK(textbook::padding_axis_source(padding_mode::constant, -1, 4) == std::nullopt);
}

TEST_CASE("textbook: source_of on slices walks negative strides from the window's end", "[textbook]") {
    // Window [1, 5) of 6 elements, stride -2: CopyStart = 1 + 4 - 1 = 4, so 4 then 2.
    const operator_desc back = slice1_desc{f32({2, 6}), f32({2, 2}), {0, 1}, {2, 4}, {-1, -2}};
    CHECK(textbook::source_of(back, {0, 0}) == from_input({1, 4}));
    CHECK(textbook::source_of(back, {0, 1}) == from_input({1, 2}));
    CHECK(textbook::source_of(back, {1, 1}) == from_input({0, 2}));
    // A truncated output copies the first steps only.
    const operator_desc truncated = slice1_desc{f32({7}), f32({2}), {0}, {7}, {-3}};
    CHECK(textbook::source_of(truncated, {1}) == from_input({3}));
    // SLICE v0: Offsets + Strides * o.
    const operator_desc v0 = slice_desc{f32({1, 1, 6, 9}), f32({1, 1, 3, 4}), {0, 0, 0, 1}, {1, 1, 3, 4}, {1, 1, 2, 2}};
    CHECK(textbook::source_of(v0, {0, 0, 2, 3}) == from_input({0, 0, 4, 7}));
}

TEST_CASE("textbook: source_of on depth/space in both orders", "[textbook]") {
    // B = 2, C' = 2 output channels. Output (0, 1, 3, 4): bh = 1, bw = 0, input (h, w) = (1, 2);
    // DCR cd = (bh * B + bw) * C' + c = 2 * 2 + 1 = 5; CRD cd = c * B * B + bh * B + bw = 4 + 2 = 6.
    const auto depth = f32({1, 8, 2, 3}), space = f32({1, 2, 4, 6});
    CHECK(textbook::source_of(depth_to_space1_desc{depth, space, 2, depth_space_order::depth_column_row}, {0, 1, 3, 4}) ==
          from_input({0, 5, 1, 2}));
    CHECK(textbook::source_of(depth_to_space1_desc{depth, space, 2, depth_space_order::column_row_depth}, {0, 1, 3, 4}) ==
          from_input({0, 6, 1, 2}));
    CHECK(textbook::source_of(depth_to_space_desc{depth, space, 2}, {0, 1, 3, 4}) == from_input({0, 5, 1, 2}));
    // And back: SPACE_TO_DEPTH's output (0, 5, 1, 2) is DCR's input (0, 1, 3, 4), CRD's (0, 1, 2, 5).
    CHECK(textbook::source_of(space_to_depth1_desc{space, depth, 2, depth_space_order::depth_column_row}, {0, 5, 1, 2}) ==
          from_input({0, 1, 3, 4}));
    CHECK(textbook::source_of(space_to_depth1_desc{space, depth, 2, depth_space_order::column_row_depth}, {0, 5, 1, 2}) ==
          from_input({0, 1, 2, 5}));
    CHECK(textbook::source_of(space_to_depth_desc{space, depth, 2}, {0, 5, 1, 2}) == from_input({0, 1, 3, 4}));
}

namespace {

using namespace dmlref::random_cases;

/// `t` with 32-bit elements: the same sizes and strides, its byte size recomputed.
buffer_tensor_desc as_uint32(buffer_tensor_desc t) {
    t.data_type = data_type::uint32;
    t.total_tensor_size_in_bytes = calc_buffer_tensor_size(t);
    return t;
}

/// `desc` on 32-bit elements, with a padding constant no input element holds (0; the input counts from 1).
operator_desc on_uint32(operator_desc desc) {
    std::visit(single_tensor_only{"on_uint32",
        [](auto& d) {
            d.input_tensor = as_uint32(d.input_tensor);
            d.output_tensor = as_uint32(d.output_tensor);
            using desc_t = std::remove_cvref_t<decltype(d)>;
            if constexpr (std::is_same_v<desc_t, padding_desc>) d.padding_value = 0.0f;
            if constexpr (std::is_same_v<desc_t, padding1_desc>) {
                d.padding_value_data_type = data_type::uint32;
                d.padding_value = scalar_union::of(std::uint32_t{0});
            }
            if constexpr (std::is_same_v<desc_t, upsample_2d_desc>) { // FLOAT32 only: the same 4-byte bits
                d.input_tensor.data_type = data_type::float32;
                d.output_tensor.data_type = data_type::float32;
            }
        }},
        desc);
    return desc;
}

/// Element strides of a tensor desc: its own, or packed.
std::vector<std::uint64_t> element_strides(const buffer_tensor_desc& t) {
    std::vector<std::uint64_t> strides(t.sizes.size());
    const auto own = t.strides ? *t.strides : packed_strides(t.sizes);
    for (std::size_t i = 0; i < strides.size(); ++i) strides[i] = own[i];
    return strides;
}

std::uint64_t offset_of(const std::vector<std::uint32_t>& c, const std::vector<std::uint64_t>& strides) {
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < c.size(); ++i) at += c[i] * strides[i];
    return at;
}

} // namespace

TEST_CASE("textbook: source_of names the element execute and the engine write, on 3,600 random descs of every "
          "operator and mode",
          "[textbook][property]") {
    rng_t rng(0x5eed'7e47'b00c'0001ull);
    std::array<int, operator_count> per_op{};
    std::array<int, 5> per_mode{};
    int folded = 0, negative = 0, constants = 0;
    for (std::size_t k = 0; k < 300 * operator_count; ++k) {
        const operator_desc desc = on_uint32(random_desc(rng, k));
        const auto& in = input_of(desc);
        const auto& out = output_of(desc);
        INFO("case " << k << ": " << describe(desc));
        REQUIRE(validate(desc) == std::nullopt);
        // Every input element holds its own memory index + 1, so the value names the element.
        std::vector<std::uint32_t> input(in.total_tensor_size_in_bytes / 4);
        for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint32_t>(i + 1);
        std::vector<std::uint32_t> by_textbook(out.total_tensor_size_in_bytes / 4, 0xdeadbeefu), by_engine = by_textbook;
        textbook::execute(desc, std::as_bytes(std::span(input)), std::as_writable_bytes(std::span(by_textbook)));
        execute(desc, std::as_bytes(std::span(input)), std::as_writable_bytes(std::span(by_engine)));
        REQUIRE(by_textbook == by_engine);

        const auto in_strides = element_strides(in), out_strides = element_strides(out);
        std::vector<std::uint32_t> o(out.sizes.size(), 0);
        int wrong = 0;
        for (std::uint64_t e = 0; e < element_count(out.sizes); ++e) {
            const source s = textbook::source_of(desc, o);
            const std::uint32_t value = by_textbook[offset_of(o, out_strides)];
            if (s.is_padding_constant() || s.is_zero()) { // SLICE_GRAD's zeros are all bits clear
                wrong += value != 0;
                ++constants;
            } else {
                bool inside = s.coordinates.size() == in.sizes.size();
                for (std::size_t i = 0; inside && i < in.sizes.size(); ++i) inside = s.coordinates[i] < in.sizes[i];
                wrong += !inside || value != offset_of(s.coordinates, in_strides) + 1;
            }
            for (std::size_t i = o.size(); i-- > 0;) {
                if (++o[i] < out.sizes[i]) break;
                o[i] = 0;
            }
        }
        CHECK(wrong == 0);

        ++per_op[k % operator_count];
        std::visit(
            [&](const auto& x) {
                if constexpr (requires { x.padding_mode; }) {
                    ++per_mode[static_cast<std::size_t>(x.padding_mode)];
                    for (std::size_t i = 0; i < x.start_padding.size(); ++i)
                        if (x.start_padding[i] > x.input_tensor.sizes[i] || x.end_padding[i] > x.input_tensor.sizes[i]) {
                            folded += x.padding_mode != padding_mode::constant;
                            break;
                        }
                }
                if constexpr (requires { x.input_window_strides; })
                    negative += std::any_of(x.input_window_strides.begin(), x.input_window_strides.end(),
                                            [](std::int32_t v) { return v < 0; });
            },
            desc);
    }
    for (int n : per_op) CHECK(n == 300);
    for (int n : per_mode) CHECK(n > 60);
    CHECK(folded > 200);
    CHECK(negative > 200);
    CHECK(constants > 1000);
}

TEST_CASE("textbook: checks as dmlref does, and refuses coordinates outside the output", "[textbook]") {
    const auto t = f32({2, 3});
    const operator_desc desc = slice1_desc{t, f32({2, 2}), {0, 1}, {2, 2}, {1, 1}};
    std::vector<float> in(6), out(4), small(3);
    const auto input = std::as_bytes(std::span(in));
    // The buffer rules, word for word the engine's.
    const auto message = [](auto call) {
        try {
            call();
        } catch (const validation_error& e) {
            return std::string(e.what());
        }
        return std::string("(no exception)");
    };
    const std::string engine = message([&] { execute(desc, input, std::as_writable_bytes(std::span(small))); });
    CHECK_THAT(engine, Catch::Contains("OutputTensor.TotalTensorSizeInBytes is 16"));
    CHECK(message([&] { textbook::execute(desc, input, std::as_writable_bytes(std::span(small))); }) == engine);
    // The desc rules, at a chosen feature level too.
    const operator_desc bad = slice1_desc{t, f32({2, 3}), {0, 1}, {2, 2}, {1, 1}};
    const std::string rule = *validate(bad);
    CHECK(message([&] { textbook::execute(bad, input, std::as_writable_bytes(std::span(out))); }) == rule);
    CHECK(message([&] { textbook::source_of(bad, {0, 0}); }) == rule);
    CHECK(message([&] { textbook::source_of(desc, {0, 0}, feature_level::fl_2_0); }) == *validate(desc, feature_level::fl_2_0));
    // The coordinate: its rank, and each entry inside OutputTensor.Sizes.
    CHECK_THROWS_WITH(textbook::source_of(desc, {0, 0, 0}),
                      Catch::Contains("SLICE1") && Catch::Contains("3 entries") && Catch::Contains("has 2 dimensions"));
    CHECK_THROWS_WITH(textbook::source_of(desc, {1, 2}),
                      Catch::Contains("SLICE1") && Catch::Contains("entry 1 is 2") &&
                          Catch::Contains("OutputTensor.Sizes[1] is 2"));
    CHECK_THROWS_AS(textbook::source_of(desc, {2, 0}), validation_error);
    // The typed overloads refuse as the typed ops do.
    std::vector<float> a(6), b(6);
    const strided_view<const float, 2> x(a.data(), {2, 3});
    const strided_view<float, 2> y(b.data(), {2, 3});
    CHECK(message([&] { textbook::slice<float, 2>(x, y, {0, 0}, {2, 3}, {1, 0}); }) ==
          message([&] { slice<float, 2>(x, y, {0, 0}, {2, 3}, {1, 0}); }));
    CHECK(message([&] { textbook::pad<float, 2>(x, y, padding_mode::edge, 0.0f, {0, 1}, {0, 0}); }) ==
          message([&] { pad<float, 2>(x, y, padding_mode::edge, 0.0f, {0, 1}, {0, 0}); }));
    const strided_view<float, 2> overlapping(a.data(), {2, 3});
    CHECK_THAT(message([&] { textbook::slice<float, 2>(x, overlapping, {0, 0}, {2, 3}, {1, 1}); }),
               Catch::Contains("overlap"));
}

TEST_CASE("textbook: writes every element of a strided output and no byte between them", "[textbook]") {
    // Output {2, 3} with strides {8, 2}: every other element of each row, and a gap after each row.
    const auto in = make_buffer_tensor_desc(data_type::uint16, {2, 3});
    buffer_tensor_desc out = in;
    out.strides = std::vector<std::uint32_t>{8, 2};
    out.total_tensor_size_in_bytes = calc_buffer_tensor_size(out);
    const operator_desc desc = slice1_desc{in, out, {0, 0}, {2, 3}, {-1, 1}};
    const std::vector<std::uint16_t> input = {1, 2, 3, 4, 5, 6};
    std::vector<std::uint16_t> output(out.total_tensor_size_in_bytes / 2, 0xaaaa);
    textbook::execute(desc, std::as_bytes(std::span(input)), std::as_writable_bytes(std::span(output)));
    const std::vector<std::uint16_t> expected = {4, 0xaaaa, 5, 0xaaaa, 6, 0xaaaa, 0xaaaa, 0xaaaa, 1, 0xaaaa, 2, 0xaaaa, 3, 0xaaaa};
    CHECK(output == expected); // 14 elements: TotalTensorSizeInBytes rounds 26 bytes up to 28
}
