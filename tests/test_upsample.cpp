// UPSAMPLE_2D (NEAREST_NEIGHBOR): the documented facts (docs/operator-facts.md section 9) and the
// peers' examples as literal arrays, the refusal of LINEAR, its validation rules and messages, the
// typed view API over every element type and ranks 2 to 6, and engine == textbook on random
// descs. tests/test_property.cpp adds UPSAMPLE_2D to the all-operator properties.
#include <catch2/catch.hpp>

#include "desc_test_support.hpp"

#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/textbook.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace dmlref;
using namespace dmlref::test_support;
using Catch::Contains;

namespace {

upsample_2d_desc upsample_of(data_type type, std::vector<std::uint32_t> sizes, std::uint32_t height, std::uint32_t width) {
    std::vector<std::uint32_t> out = sizes;
    out[out.size() - 2] *= height;
    out[out.size() - 1] *= width;
    return {make_buffer_tensor_desc(type, sizes), make_buffer_tensor_desc(type, out), {width, height},
            interpolation_mode::nearest_neighbor};
}

} // namespace

// ---- the examples --------------------------------------------------------------------------------

TEST_CASE("UPSAMPLE_2D nearest: ONNX Upsample's nearest example, scales {1, 1, 2, 3}", "[upsample]") {
    const auto desc = upsample_of(data_type::float32, {1, 1, 2, 2}, 2, 3);
    CHECK(desc.output_tensor.sizes == std::vector<std::uint32_t>{1, 1, 4, 6});
    CHECK(values_of<float>(run_both(desc, bytes_of(std::vector<float>{1, 2, 3, 4}))) ==
          std::vector<float>{1, 1, 1, 2, 2, 2, //
                             1, 1, 1, 2, 2, 2, //
                             3, 3, 3, 4, 4, 4, //
                             3, 3, 3, 4, 4, 4});
    CHECK_THAT(to_string(operator_desc(desc)), Contains("ScaleSize: {Width: 3, Height: 2}, InterpolationMode: NEAREST_NEIGHBOR"));
}

TEST_CASE("UPSAMPLE_2D nearest: PyTorch's UpsamplingNearest2d(scale_factor=2) example", "[upsample]") {
    const auto desc = upsample_of(data_type::float16, {1, 1, 2, 2}, 2, 2);
    const std::vector<std::uint16_t> in{0x3c00, 0x4000, 0x4200, 0x4400}; // 1, 2, 3, 4
    CHECK(values_of<std::uint16_t>(run_both(desc, bytes_of(in))) ==
          std::vector<std::uint16_t>{0x3c00, 0x3c00, 0x4000, 0x4000, 0x3c00, 0x3c00, 0x4000, 0x4000, //
                                     0x4200, 0x4200, 0x4400, 0x4400, 0x4200, 0x4200, 0x4400, 0x4400});
}

TEST_CASE("UPSAMPLE_2D nearest, 5-D: depth is not scaled, a strided output keeps its gaps", "[upsample]") {
    upsample_2d_desc desc = upsample_of(data_type::float32, {1, 1, 2, 1, 2}, 2, 1);
    desc.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2, 2}, std::vector<std::uint32_t>{12, 12, 6, 3, 1});
    REQUIRE(validate(desc) == std::nullopt);
    const auto out = values_of<float>(run_both(desc, bytes_of(std::vector<float>{1, 2, 3, 4}), std::byte{0}));
    CHECK(out == std::vector<float>{1, 2, 0, 1, 2, 0, 3, 4, 0, 3, 4});
}

TEST_CASE("UPSAMPLE_2D's source_of names floor(y / Height), floor(x / Width)", "[upsample]") {
    const auto desc = upsample_of(data_type::float32, {2, 3, 2, 2}, 3, 2);
    CHECK(textbook::to_string(textbook::source_of(desc, {1, 2, 5, 3})) == "input [1, 2, 1, 1]");
    CHECK(textbook::to_string(textbook::source_of(desc, {0, 1, 2, 1})) == "input [0, 1, 0, 0]");
}

// ---- validation ----------------------------------------------------------------------------------

TEST_CASE("UPSAMPLE_2D: LINEAR is refused (it computes), InterpolationMode past LINEAR is invalid", "[upsample][validation]") {
    auto desc = upsample_of(data_type::float32, {1, 1, 2, 2}, 2, 2);
    desc.interpolation_mode = interpolation_mode::linear;
    expect_rejected(desc, {"UPSAMPLE_2D", "InterpolationMode is LINEAR", "does not interpolate", "DirectML would accept"});
    CHECK_THAT(to_string(operator_desc(desc)), Contains("InterpolationMode: LINEAR"));
    desc.interpolation_mode = static_cast<interpolation_mode>(2);
    expect_rejected(desc, {"UPSAMPLE_2D: InterpolationMode is 2; it must be NEAREST_NEIGHBOR (0) or LINEAR (1)"});
    CHECK(parse_interpolation_mode("DML_INTERPOLATION_MODE_LINEAR") == interpolation_mode::linear);
    CHECK(parse_interpolation_mode("NEAREST_NEIGHBOR") == interpolation_mode::nearest_neighbor);
}

TEST_CASE("UPSAMPLE_2D: ScaleSize and the output's sizes", "[upsample][validation]") {
    auto desc = upsample_of(data_type::float32, {1, 1, 2, 3}, 2, 2);
    desc.scale_size.height = 0;
    expect_rejected(desc, {"UPSAMPLE_2D: ScaleSize.Height is 0; it must be at least 1"});
    desc = upsample_of(data_type::float32, {1, 1, 2, 3}, 2, 2);
    desc.scale_size.width = 0;
    expect_rejected(desc, {"UPSAMPLE_2D: ScaleSize.Width is 0; it must be at least 1"});
    desc = upsample_of(data_type::float32, {1, 1, 2, 3}, 2, 2);
    desc.scale_size.width = 3;
    expect_rejected(desc, {"UPSAMPLE_2D: OutputTensor.Sizes[3] = 6 should be InputTensor.Sizes[3] * ScaleSize.Width = 3 * 3 = 9"});
    // A product that wraps 2^32 back to the output's size is refused: 3 * 1431655766 = 2^32 + 2.
    desc = upsample_of(data_type::float32, {1, 1, 2, 3}, 2, 2);
    desc.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 2});
    desc.scale_size.width = 1431655766u;
    expect_rejected(desc, {"OutputTensor.Sizes[3] = 2 should be InputTensor.Sizes[3] * ScaleSize.Width = 3 * 1431655766 = 4294967298"});
    desc = upsample_of(data_type::float32, {1, 2, 2, 3}, 2, 2);
    desc.output_tensor.sizes[1] = 4;
    desc.output_tensor.total_tensor_size_in_bytes *= 2;
    expect_rejected(desc, {"UPSAMPLE_2D: OutputTensor.Sizes[1] = 4 differs from InputTensor.Sizes[1] = 2", "only the last two"});
}

TEST_CASE("UPSAMPLE_2D follows its tensor-support table: 4 or 5 dimensions, FLOAT32 and FLOAT16", "[upsample][validation]") {
    using fl = feature_level;
    CHECK(static_cast<std::uint32_t>(operator_type::upsample_2d) == 66);
    CHECK(parse_operator_type("UPSAMPLE_2D") == operator_type::upsample_2d);
    CHECK(introduced_in(operator_type::upsample_2d) == fl::fl_1_0);
    for (feature_level level : {fl::fl_1_0, fl::fl_4_1, fl::fl_6_4}) {
        CHECK(validate(upsample_of(data_type::float16, {1, 1, 2, 2}, 2, 3), level) == std::nullopt);
        CHECK(validate(upsample_of(data_type::float32, {1, 1, 1, 2, 2}, 1, 2), level) == std::nullopt);
        expect_rejected(upsample_of(data_type::int32, {1, 1, 2, 2}, 2, 2), {"UPSAMPLE_2D", "INT32", "FLOAT32, FLOAT16"}, level);
        expect_rejected(upsample_of(data_type::float32, {2, 2, 2}, 2, 2), {"UPSAMPLE_2D", "3 dimensions", "4 to 5"}, level);
        expect_rejected(upsample_of(data_type::float32, {1, 1, 1, 1, 2, 2}, 2, 2), {"6 dimensions", "4 to 5"}, level);
    }
}

TEST_CASE("upsample_2d_nearest over views: wrong extents and overlapping views are refused", "[upsample][views][validation]") {
    tensor<float, 2> in({2, 3}), out({4, 5});
    CHECK_THROWS_MATCHES((upsample_2d_nearest<float, 2>)(in.view(), out.view(), 2, 2), validation_error,
                         Catch::Message("upsample_2d: OutputTensor.Sizes[1] = 5 should be InputTensor.Sizes[1] * "
                                        "ScaleSize.Width = 3 * 2 = 6"));
    tensor<float, 2> same({2, 3});
    CHECK_THROWS_WITH((upsample_2d_nearest<float, 2>)(same.view(), same.view(), 1, 1), Contains("overlap"));
}

// ---- every type, ranks 2 to 6 over views -----------------------------------------------------------

namespace {

template <class T, std::size_t Rank> void check_upsample_rank(std::mt19937_64& rng) {
    index_array<Rank> extents{}, out_extents{};
    const std::ptrdiff_t sh = static_cast<std::ptrdiff_t>(1 + rng() % 4), sw = static_cast<std::ptrdiff_t>(1 + rng() % 4);
    for (std::size_t i = 0; i < Rank; ++i) out_extents[i] = extents[i] = static_cast<std::ptrdiff_t>(1 + rng() % 3);
    out_extents[Rank - 2] *= sh;
    out_extents[Rank - 1] *= sw;
    test_support::check_engine_equals_textbook<T, Rank>(
        rng, extents, out_extents, 0x5a, [&](auto in, auto out) { upsample_2d_nearest<T, Rank>(in, out, sh, sw); },
        [&](auto in, auto out) { textbook::upsample_2d_nearest<T, Rank>(in, out, sh, sw); });
}

} // namespace


TEMPLATE_TEST_CASE("upsample_2d_nearest over views: every type, ranks 2 to 6, reversed input, strided output",
                   "[upsample][views]", DMLREF_ELEMENT_TYPES) {
    std::mt19937_64 rng(0x0b5a);
    for (int round = 0; round < 6; ++round) {
        check_upsample_rank<TestType, 2>(rng);
        check_upsample_rank<TestType, 3>(rng);
        check_upsample_rank<TestType, 4>(rng);
        check_upsample_rank<TestType, 5>(rng);
        check_upsample_rank<TestType, 6>(rng);
    }
}

// ---- random descs: engine == textbook -----------------------------------------------------------

TEST_CASE("UPSAMPLE_2D: engine == textbook on 2,000 random descs, 4-D and 5-D, strided and broadcast inputs",
          "[upsample][property]") {
    std::mt19937_64 rng(0x0b5a'2026);
    for (int k = 0; k < 2000; ++k) {
        const data_type type = rng() % 2 ? data_type::float32 : data_type::float16;
        const std::size_t rank = 4 + rng() % 2;
        std::vector<std::uint32_t> sizes(rank), in_strides(rank), out_strides(rank);
        for (auto& s : sizes) s = static_cast<std::uint32_t>(1 + rng() % 4);
        const std::uint32_t sh = static_cast<std::uint32_t>(1 + rng() % 5), sw = static_cast<std::uint32_t>(1 + rng() % 5);
        std::vector<std::uint32_t> out_sizes = sizes;
        out_sizes[rank - 2] *= sh;
        out_sizes[rank - 1] *= sw;
        std::vector<std::size_t> order(rank);
        for (std::size_t i = 0; i < rank; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        std::uint32_t s = 1;
        for (std::size_t i : order) {
            in_strides[i] = rng() % 6 == 0 ? 0 : s;
            s *= sizes[i];
        }
        std::uint32_t o = 1;
        for (std::size_t i = rank; i-- > 0;) {
            out_strides[i] = o;
            o *= out_sizes[i] + (rng() % 3 == 0 ? 2 : 0);
        }
        const upsample_2d_desc desc{make_buffer_tensor_desc(type, sizes, in_strides),
                                    make_buffer_tensor_desc(type, out_sizes, out_strides), {sw, sh},
                                    interpolation_mode::nearest_neighbor};
        INFO("case " << k << ": " << to_string(operator_desc(desc)));
        REQUIRE(validate(desc) == std::nullopt);
        std::vector<std::byte> input(desc.input_tensor.total_tensor_size_in_bytes);
        for (auto& b : input) b = static_cast<std::byte>(rng());
        run_both(desc, input, static_cast<std::byte>(rng()));
    }
}
