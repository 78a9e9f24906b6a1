// Every worked example of DirectML's operator pages (spec/seeds/ and directml-facts.md), run
// through the desc-level API with literal input and expected arrays.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>

#include <cstring>
#include <vector>

using namespace dmlref;

namespace {

/// Runs `desc` (packed tensors of T) on `input` and returns the output elements.
template <class T> std::vector<T> run(const operator_desc& desc, const std::vector<T>& input) {
    const auto& in = inputs_of(desc).front().desc();
    const auto& out = outputs_of(desc).front().desc();
    REQUIRE(in.data_type == data_type_of<T>());
    REQUIRE(input.size() == element_count(in.sizes));
    std::vector<std::byte> in_bytes(in.total_tensor_size_in_bytes), out_bytes(out.total_tensor_size_in_bytes);
    std::memcpy(in_bytes.data(), input.data(), input.size() * sizeof(T));
    execute(desc, in_bytes, out_bytes);
    std::vector<T> result(element_count(out.sizes));
    std::memcpy(result.data(), out_bytes.data(), result.size() * sizeof(T));
    return result;
}

template <class T> buffer_tensor_desc packed(std::vector<std::uint32_t> sizes) {
    return make_buffer_tensor_desc(data_type_of<T>(), std::move(sizes));
}

// DEPTH_TO_SPACE1 pages: input {1, 8, 2, 3} UINT32, value 9c + 3h + w.
const std::vector<std::uint32_t> d2s_input = {
    0,  1,  2,  3,  4,  5,  //
    9,  10, 11, 12, 13, 14, //
    18, 19, 20, 21, 22, 23, //
    27, 28, 29, 30, 31, 32, //
    36, 37, 38, 39, 40, 41, //
    45, 46, 47, 48, 49, 50, //
    54, 55, 56, 57, 58, 59, //
    63, 64, 65, 66, 67, 68,
};
// Example 1, DEPTH_COLUMN_ROW: output {1, 2, 4, 6}.
const std::vector<std::uint32_t> d2s_dcr_output = {
    0,  18, 1,  19, 2,  20, //
    36, 54, 37, 55, 38, 56, //
    3,  21, 4,  22, 5,  23, //
    39, 57, 40, 58, 41, 59, //
    9,  27, 10, 28, 11, 29, //
    45, 63, 46, 64, 47, 65, //
    12, 30, 13, 31, 14, 32, //
    48, 66, 49, 67, 50, 68,
};
// Example 2, COLUMN_ROW_DEPTH.
const std::vector<std::uint32_t> d2s_crd_output = {
    0,  9,  1,  10, 2,  11, //
    18, 27, 19, 28, 20, 29, //
    3,  12, 4,  13, 5,  14, //
    21, 30, 22, 31, 23, 32, //
    36, 45, 37, 46, 38, 47, //
    54, 63, 55, 64, 56, 65, //
    39, 48, 40, 49, 41, 50, //
    57, 66, 58, 67, 59, 68,
};

const auto depth = packed<std::uint32_t>({1, 8, 2, 3});
const auto space = packed<std::uint32_t>({1, 2, 4, 6});

} // namespace

TEST_CASE("DEPTH_TO_SPACE1 example 1: DEPTH_COLUMN_ROW", "[seed][depth_to_space]") {
    CHECK(run(depth_to_space1_desc{depth, space, 2, depth_space_order::depth_column_row}, d2s_input) ==
          d2s_dcr_output);
}

TEST_CASE("DEPTH_TO_SPACE1 example 2: COLUMN_ROW_DEPTH", "[seed][depth_to_space]") {
    CHECK(run(depth_to_space1_desc{depth, space, 2, depth_space_order::column_row_depth}, d2s_input) ==
          d2s_crd_output);
}

TEST_CASE("DEPTH_TO_SPACE (v0) is DEPTH_COLUMN_ROW", "[seed][depth_to_space]") {
    CHECK(run(depth_to_space_desc{depth, space, 2}, d2s_input) == d2s_dcr_output);
    CHECK(run(depth_to_space_desc{depth, space, 2}, d2s_input) != d2s_crd_output);
}

TEST_CASE("SPACE_TO_DEPTH1 inverts the DEPTH_TO_SPACE1 examples in both orders", "[seed][space_to_depth]") {
    CHECK(run(space_to_depth1_desc{space, depth, 2, depth_space_order::depth_column_row}, d2s_dcr_output) ==
          d2s_input);
    CHECK(run(space_to_depth1_desc{space, depth, 2, depth_space_order::column_row_depth}, d2s_crd_output) ==
          d2s_input);
}

TEST_CASE("SPACE_TO_DEPTH (v0) is DEPTH_COLUMN_ROW", "[seed][space_to_depth]") {
    CHECK(run(space_to_depth_desc{space, depth, 2}, d2s_dcr_output) == d2s_input);
}

namespace {
// PADDING1 pages: input {1, 1, 4, 4} FLOAT32, Start {0, 0, 1, 2}, End {0, 0, 3, 4}, output {1, 1, 8, 10}.
const std::vector<float> pad_input = {
    1, 2, 3, 4, //
    5, 6, 7, 8, //
    1, 2, 3, 4, //
    5, 6, 7, 8,
};
const std::vector<std::uint32_t> pad_start = {0, 0, 1, 2}, pad_end = {0, 0, 3, 4};
const auto pad_in = packed<float>({1, 1, 4, 4});
const auto pad_out = packed<float>({1, 1, 8, 10});

const std::vector<float> pad_constant_9 = {
    9, 9, 9, 9, 9, 9, 9, 9, 9, 9, //
    9, 9, 1, 2, 3, 4, 9, 9, 9, 9, //
    9, 9, 5, 6, 7, 8, 9, 9, 9, 9, //
    9, 9, 1, 2, 3, 4, 9, 9, 9, 9, //
    9, 9, 5, 6, 7, 8, 9, 9, 9, 9, //
    9, 9, 9, 9, 9, 9, 9, 9, 9, 9, //
    9, 9, 9, 9, 9, 9, 9, 9, 9, 9, //
    9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
};
const std::vector<float> pad_edge = {
    1, 1, 1, 2, 3, 4, 4, 4, 4, 4, //
    1, 1, 1, 2, 3, 4, 4, 4, 4, 4, //
    5, 5, 5, 6, 7, 8, 8, 8, 8, 8, //
    1, 1, 1, 2, 3, 4, 4, 4, 4, 4, //
    5, 5, 5, 6, 7, 8, 8, 8, 8, 8, //
    5, 5, 5, 6, 7, 8, 8, 8, 8, 8, //
    5, 5, 5, 6, 7, 8, 8, 8, 8, 8, //
    5, 5, 5, 6, 7, 8, 8, 8, 8, 8,
};
const std::vector<float> pad_reflection = {
    7, 6, 5, 6, 7, 8, 7, 6, 5, 6, //
    3, 2, 1, 2, 3, 4, 3, 2, 1, 2, //
    7, 6, 5, 6, 7, 8, 7, 6, 5, 6, //
    3, 2, 1, 2, 3, 4, 3, 2, 1, 2, //
    7, 6, 5, 6, 7, 8, 7, 6, 5, 6, //
    3, 2, 1, 2, 3, 4, 3, 2, 1, 2, //
    7, 6, 5, 6, 7, 8, 7, 6, 5, 6, //
    3, 2, 1, 2, 3, 4, 3, 2, 1, 2,
};
const std::vector<float> pad_symmetric = {
    2, 1, 1, 2, 3, 4, 4, 3, 2, 1, //
    2, 1, 1, 2, 3, 4, 4, 3, 2, 1, //
    6, 5, 5, 6, 7, 8, 8, 7, 6, 5, //
    2, 1, 1, 2, 3, 4, 4, 3, 2, 1, //
    6, 5, 5, 6, 7, 8, 8, 7, 6, 5, //
    6, 5, 5, 6, 7, 8, 8, 7, 6, 5, //
    2, 1, 1, 2, 3, 4, 4, 3, 2, 1, //
    6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
};
// WRAP (DECISIONS 4: src = t mod n): rows -1..6 read input rows 3,0,1,2,3,0,1,2; columns -2..7 read 2,3,0,1,...
const std::vector<float> pad_wrap = {
    7, 8, 5, 6, 7, 8, 5, 6, 7, 8, //
    3, 4, 1, 2, 3, 4, 1, 2, 3, 4, //
    7, 8, 5, 6, 7, 8, 5, 6, 7, 8, //
    3, 4, 1, 2, 3, 4, 1, 2, 3, 4, //
    7, 8, 5, 6, 7, 8, 5, 6, 7, 8, //
    3, 4, 1, 2, 3, 4, 1, 2, 3, 4, //
    7, 8, 5, 6, 7, 8, 5, 6, 7, 8, //
    3, 4, 1, 2, 3, 4, 1, 2, 3, 4,
};

padding1_desc padding1(padding_mode mode, float value = 0) {
    return {pad_in, pad_out, mode, data_type::float32, scalar_union::of(value), pad_start, pad_end};
}
padding_desc padding0(padding_mode mode, float value = 0) { return {pad_in, pad_out, mode, value, pad_start, pad_end}; }
} // namespace

TEST_CASE("PADDING1 example 1: CONSTANT 9", "[seed][padding]") {
    CHECK(run(padding1(padding_mode::constant, 9), pad_input) == pad_constant_9);
}
TEST_CASE("PADDING1 example 2: EDGE", "[seed][padding]") {
    CHECK(run(padding1(padding_mode::edge, 9), pad_input) == pad_edge);
}
TEST_CASE("PADDING1 example 3: REFLECTION (the end columns fold past n - 1)", "[seed][padding]") {
    CHECK(run(padding1(padding_mode::reflection, 9), pad_input) == pad_reflection);
}
TEST_CASE("PADDING1 example 4: SYMMETRIC", "[seed][padding]") {
    CHECK(run(padding1(padding_mode::symmetric, 9), pad_input) == pad_symmetric);
}
TEST_CASE("PADDING1 WRAP on the same input (DECISIONS 4)", "[seed][padding]") {
    CHECK(run(padding1(padding_mode::wrap, 9), pad_input) == pad_wrap);
}

TEST_CASE("PADDING (v0) gives the same four examples and WRAP", "[seed][padding]") {
    CHECK(run(padding0(padding_mode::constant, 9.0f), pad_input) == pad_constant_9);
    CHECK(run(padding0(padding_mode::edge, 9.0f), pad_input) == pad_edge);
    CHECK(run(padding0(padding_mode::reflection, 9.0f), pad_input) == pad_reflection);
    CHECK(run(padding0(padding_mode::symmetric, 9.0f), pad_input) == pad_symmetric);
    CHECK(run(padding0(padding_mode::wrap, 9.0f), pad_input) == pad_wrap);
}

TEST_CASE("Large pads fold periodically: n = 3, pad 7 on both sides", "[seed][padding]") {
    const auto in = packed<std::int32_t>({3});
    const auto out = packed<std::int32_t>({17});
    const std::vector<std::int32_t> x = {1, 2, 3};
    auto pad7 = [&](padding_mode mode) {
        return padding1_desc{in, out, mode, data_type::int32, scalar_union::of(std::int32_t{-5}), {7}, {7}};
    };
    CHECK(run(pad7(padding_mode::reflection), x) ==
          std::vector<std::int32_t>{2, 3, 2, 1, 2, 3, 2, /**/ 1, 2, 3, /**/ 2, 1, 2, 3, 2, 1, 2});
    CHECK(run(pad7(padding_mode::symmetric), x) ==
          std::vector<std::int32_t>{1, 1, 2, 3, 3, 2, 1, /**/ 1, 2, 3, /**/ 3, 2, 1, 1, 2, 3, 3});
    CHECK(run(pad7(padding_mode::wrap), x) ==
          std::vector<std::int32_t>{3, 1, 2, 3, 1, 2, 3, /**/ 1, 2, 3, /**/ 1, 2, 3, 1, 2, 3, 1});
    CHECK(run(pad7(padding_mode::edge), x) ==
          std::vector<std::int32_t>{1, 1, 1, 1, 1, 1, 1, /**/ 1, 2, 3, /**/ 3, 3, 3, 3, 3, 3, 3});
    CHECK(run(pad7(padding_mode::constant), x) ==
          std::vector<std::int32_t>{-5, -5, -5, -5, -5, -5, -5, /**/ 1, 2, 3, /**/ -5, -5, -5, -5, -5, -5, -5});
}

TEST_CASE("Large pads with different sides: n = 3, start 8, end 2", "[seed][padding]") {
    const auto in = packed<std::int16_t>({3});
    const auto out = packed<std::int16_t>({13});
    const std::vector<std::int16_t> x = {1, 2, 3};
    auto pad = [&](padding_mode mode) {
        return padding1_desc{in, out, mode, data_type::int16, scalar_union::of(std::int16_t{0}), {8}, {2}};
    };
    CHECK(run(pad(padding_mode::reflection), x) ==
          std::vector<std::int16_t>{1, 2, 3, 2, 1, 2, 3, 2, /**/ 1, 2, 3, /**/ 2, 1});
    CHECK(run(pad(padding_mode::symmetric), x) ==
          std::vector<std::int16_t>{2, 1, 1, 2, 3, 3, 2, 1, /**/ 1, 2, 3, /**/ 3, 2});
    CHECK(run(pad(padding_mode::wrap), x) ==
          std::vector<std::int16_t>{2, 3, 1, 2, 3, 1, 2, 3, /**/ 1, 2, 3, /**/ 1, 2});
}

namespace {
// SLICE and SLICE1 pages: input {1, 1, 4, 4} FLOAT32, 1 to 16.
const std::vector<float> slice_input = {
    1,  2,  3,  4,  //
    5,  6,  7,  8,  //
    9,  10, 11, 12, //
    13, 14, 15, 16,
};
const auto slice_in = packed<float>({1, 1, 4, 4});
} // namespace

TEST_CASE("SLICE1 example 1: positive strides", "[seed][slice]") {
    const slice1_desc d{slice_in, packed<float>({1, 1, 2, 2}), {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, 2, 2}};
    CHECK(run(d, slice_input) == std::vector<float>{2, 4, 10, 12});
}

TEST_CASE("SLICE1 example 2: a negative stride starts at the window's end", "[seed][slice]") {
    const slice1_desc d{slice_in, packed<float>({1, 1, 2, 2}), {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}};
    CHECK(run(d, slice_input) == std::vector<float>{14, 16, 6, 8});
}

TEST_CASE("SLICE1 may copy fewer elements than the window holds", "[seed][slice]") {
    const slice1_desc d{slice_in, packed<float>({1, 1, 1, 2}), {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, -1}};
    CHECK(run(d, slice_input) == std::vector<float>{16, 15});
}

TEST_CASE("SLICE (v0) example 1: unit strides", "[seed][slice]") {
    const slice_desc d{slice_in, packed<float>({1, 1, 3, 2}), {0, 0, 1, 2}, {1, 1, 3, 2}, {1, 1, 1, 1}};
    CHECK(run(d, slice_input) == std::vector<float>{7, 8, 11, 12, 15, 16});
}

TEST_CASE("SLICE (v0) example 2: strides 2 and 3", "[seed][slice]") {
    const slice_desc d{slice_in, packed<float>({1, 1, 2, 2}), {0, 0, 1, 0}, {1, 1, 2, 2}, {1, 1, 2, 3}};
    CHECK(run(d, slice_input) == std::vector<float>{5, 8, 13, 16});
}
