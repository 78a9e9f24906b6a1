// fmt formatters for tensor descs, operator descs, views and tensors.
#include <catch2/catch.hpp>

#include <dmlref/compare.hpp>
#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>

using namespace dmlref;

TEST_CASE("format: tensor descs with DirectML's field names, defaults left out", "[format]") {
    CHECK(fmt::format("{}", make_buffer_tensor_desc(data_type::float32, {1, 4})) ==
          "{DataType: FLOAT32, Sizes: {1, 4}, TotalTensorSizeInBytes: 16}");
    buffer_tensor_desc t = make_buffer_tensor_desc(data_type::uint8, {2, 3}, std::vector<std::uint32_t>{0, 1});
    t.flags = tensor_flags::owned_by_dml;
    t.guaranteed_base_offset_alignment = 16;
    CHECK(fmt::format("{}", t) == "{DataType: UINT8, Sizes: {2, 3}, Strides: {0, 1}, Flags: OWNED_BY_DML, "
                                  "TotalTensorSizeInBytes: 4, GuaranteedBaseOffsetAlignment: 16}");
}

TEST_CASE("format: every operator desc with its fields", "[format]") {
    const auto a = make_buffer_tensor_desc(data_type::float32, {1, 4, 2, 2});
    const auto b = make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 4});
    const std::string in = "InputTensor: {DataType: FLOAT32, Sizes: {1, 4, 2, 2}, TotalTensorSizeInBytes: 64}";
    CHECK(fmt::format("{}", depth_to_space_desc{a, b, 2}) ==
          "DEPTH_TO_SPACE {" + in + ", OutputTensor: {DataType: FLOAT32, Sizes: {1, 1, 4, 4}, TotalTensorSizeInBytes: 64}, BlockSize: 2}");
    CHECK_THAT(fmt::format("{}", space_to_depth1_desc{b, a, 2, depth_space_order::column_row_depth}),
               Catch::StartsWith("SPACE_TO_DEPTH1 {InputTensor: {DataType: FLOAT32, Sizes: {1, 1, 4, 4}") &&
                   Catch::EndsWith("BlockSize: 2, Order: COLUMN_ROW_DEPTH}"));
    CHECK_THAT(fmt::format("{}", slice_desc{a, a, {0, 0, 0, 0}, {1, 4, 2, 2}, {1, 1, 1, 1}}),
               Catch::EndsWith("Offsets: {0, 0, 0, 0}, Sizes: {1, 4, 2, 2}, Strides: {1, 1, 1, 1}}"));
    const operator_desc s1 = slice1_desc{a, a, {0, 0, 0, 0}, {1, 4, 2, 2}, {1, -1, 1, -1}};
    CHECK_THAT(fmt::format("{}", s1), Catch::StartsWith("SLICE1 {") &&
                                          Catch::EndsWith("InputWindowStrides: {1, -1, 1, -1}}"));
    CHECK_THAT(fmt::format("{}", padding_desc{a, a, padding_mode::edge, 1.5f, {0, 0, 0, 0}, {0, 0, 0, 0}}),
               Catch::EndsWith("PaddingMode: EDGE, PaddingValue: 1.5, StartPadding: {0, 0, 0, 0}, EndPadding: {0, 0, 0, 0}}"));
    const auto h = make_buffer_tensor_desc(data_type::float16, {2});
    CHECK_THAT(fmt::format("{}", padding1_desc{h, h, padding_mode::constant, data_type::float16,
                                               scalar_union::of(std::uint16_t{0x3e00}), {0}, {0}}),
               Catch::Contains("PaddingValueDataType: FLOAT16, PaddingValue: 1.5 (0x3e00)"));
}

TEST_CASE("format: views of any strides and tensors in the nested-bracket format", "[format]") {
    tensor<std::int32_t, 2> t({2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK(fmt::format("{}", t) == "[[1, 2, 3],\n [4, 5, 6]]");
    const strided_view<const std::int32_t, 2> transposed(t.data(), {3, 2}, {1, 3});
    CHECK(fmt::format("{}", transposed) == "[[1, 4],\n [2, 5],\n [3, 6]]");
    const strided_view<std::int32_t, 1> reversed(t.data(), {6}, {-1}, 5);
    CHECK(fmt::format("{}", reversed) == "[6, 5, 4, 3, 2, 1]");
    tensor<float16, 1> h({2}, {float16::from_double(0.5), float16::from_bits(0xfc00)});
    CHECK(fmt::format("{}", h) == "[0.5, -inf]");
    tensor<std::uint8_t, 1> big({2000});
    CHECK(fmt::format("{}", big) == "[0, 0, 0, ..., 0, 0, 0]");
}

TEST_CASE("format: a compare_report prints as its text", "[format]") {
    tensor<std::int8_t, 1> a({3}, {1, 2, 3}), b({3}, {1, 2, 4});
    const auto report = compare(strided_view<const std::int8_t, 1>(a.view()), strided_view<const std::int8_t, 1>(b.view()));
    CHECK(fmt::format("{}", report) == report.to_string());
    CHECK_THAT(fmt::format("{}", report), Catch::Contains("[2] 3 (0x03) vs 4 (0x04)"));
}
