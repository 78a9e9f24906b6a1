// The Catch2 matcher and StringMakers: verdicts and failure texts checked through match() and
// describe(), so no test here has to fail to be checked.
#include <catch2/catch.hpp>

#include <dmlref/catch2.hpp>
#include <dmlref/dmlref.hpp>

using namespace dmlref;

TEST_CASE("matcher: BitEquals accepts bit-identical tensors and views, in CHECK_THAT", "[matcher]") {
    tensor<float, 2> a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {1, 2, 3, 4});
    CHECK_THAT(b, BitEquals(a));
    CHECK_THAT(b.view(), BitEquals(a.view()));
    const strided_view<const float, 2> transposed(a.data(), {2, 2}, {1, 2});
    tensor<float, 2> t({2, 2}, {1, 3, 2, 4});
    const strided_view<const float, 2> packed = t.view();
    CHECK_THAT(packed, BitEquals(transposed));
    const std::vector<std::uint32_t> sizes = {2, 2};
    CHECK_THAT(std::as_bytes(b.values()), BitEquals(data_type::float32, sizes, std::as_bytes(a.values())));
}

TEST_CASE("matcher: a mismatch fails, and the description is the report", "[matcher]") {
    tensor<float, 2> a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {1, 2, 3, -0.0f});
    const auto m = BitEquals(a);
    CHECK_FALSE(m.match(b));
    CHECK_THAT(m.describe(), Catch::StartsWith("is bit-identical to the expected tensor:\nFLOAT32 tensor of sizes {2, 2}: "
                                               "1 of 4 elements differ") &&
                                 Catch::Contains("[1, 1] 4 (0x40800000) vs -0 (0x80000000)"));
    CHECK_FALSE(m.match(tensor<float, 2>({2, 3})));
    CHECK_THAT(m.describe(), Catch::Contains("has extents {2, 3}; the expected tensor has {2, 2}"));
    // -0 and +0 differ in bits; with nan_equal, NaN payloads do not matter, but -0 still does.
    tensor<float, 1> n1({1}, {std::numeric_limits<float>::quiet_NaN()}), n2({1}, {-std::numeric_limits<float>::quiet_NaN()});
    CHECK_FALSE(BitEquals(n1).match(n2));
    CHECK(BitEquals(n1, {.nan_equal = true}).match(n2));
}

TEST_CASE("matcher: given the operator, the failure names the region", "[matcher]") {
    const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::int32, {1, 3}),
                                             make_buffer_tensor_desc(data_type::int32, {1, 6}), padding_mode::constant,
                                             data_type::int32, scalar_union::of(std::int32_t{7}), {0, 1}, {0, 2}};
    tensor<std::int32_t, 2> in({1, 3}, {1, 2, 3}), expected({1, 6});
    execute(desc, std::as_bytes(in.values()), std::as_writable_bytes(expected.values()));
    tensor<std::int32_t, 2> wrong = expected;
    wrong(0, 5) = 0; // a kernel that writes the end padding wrong
    const auto m = BitEquals(expected, {}, &desc);
    CHECK_FALSE(m.match(wrong));
    CHECK_THAT(m.describe(), Catch::Contains("end padding of axis 1: 1 of 2 elements differ"));
    const auto bytes = BitEquals(data_type::int32, {1, 6}, std::as_bytes(expected.values()), &desc);
    CHECK_FALSE(bytes.match(std::as_bytes(wrong.values())));
    CHECK_THAT(bytes.describe(), Catch::Contains("end padding of axis 1"));
    CHECK_FALSE(bytes.match(std::as_bytes(in.values())));
    CHECK_THAT(bytes.describe(), Catch::Contains("actual buffer has 12 bytes"));
}

TEST_CASE("matcher: given the operator, the failure names where each wrong element comes from", "[matcher]") {
    // SPACE_TO_DEPTH1, COLUMN_ROW_DEPTH, B = 2: output channel 3 of (0, 3, 0, 1) is c = 0, bh = 1, bw = 1,
    // so the input element (0, 0, 1, 3).
    const operator_desc desc = space_to_depth1_desc{make_buffer_tensor_desc(data_type::int16, {1, 1, 2, 4}),
                                                    make_buffer_tensor_desc(data_type::int16, {1, 4, 1, 2}), 2,
                                                    depth_space_order::column_row_depth};
    tensor<std::int16_t, 4> in({1, 1, 2, 4}, {10, 11, 12, 13, 14, 15, 16, 17}), expected({1, 4, 1, 2});
    execute(desc, std::as_bytes(in.values()), std::as_writable_bytes(expected.values()));
    tensor<std::int16_t, 4> wrong = expected;
    wrong(0, 3, 0, 1) = 0;
    const auto m = BitEquals(expected, {}, &desc);
    CHECK_FALSE(m.match(wrong));
    CHECK_THAT(m.describe(), Catch::Contains("[0, 3, 0, 1] 17 (0x0011) vs 0 (0x0000); from input [0, 0, 1, 3]"));
    // And the padding constant, through the bytes matcher.
    const operator_desc pad = padding_desc{make_buffer_tensor_desc(data_type::int16, {1, 2}),
                                           make_buffer_tensor_desc(data_type::int16, {1, 4}), padding_mode::constant,
                                           -3.75f, {0, 1}, {0, 1}};
    const std::vector<std::int16_t> padded = {-3, 1, 2, -3}, faulty = {-4, 1, 2, -3};
    const auto bytes = BitEquals(data_type::int16, {1, 4}, std::as_bytes(std::span(padded)), &pad);
    CHECK_FALSE(bytes.match(std::as_bytes(std::span(faulty))));
    CHECK_THAT(bytes.describe(), Catch::Contains("[0, 0] -3 (0xfffd) vs -4 (0xfffc); from the padding constant"));
}

TEST_CASE("StringMakers print dmlref's types as fmt does", "[matcher]") {
    CHECK(Catch::Detail::stringify(data_type::float16) == "FLOAT16");
    CHECK(Catch::Detail::stringify(feature_level::fl_6_4) == "6_4");
    CHECK(Catch::Detail::stringify(padding_mode::symmetric) == "SYMMETRIC");
    CHECK(Catch::Detail::stringify(depth_space_order::depth_column_row) == "DEPTH_COLUMN_ROW");
    CHECK(Catch::Detail::stringify(make_buffer_tensor_desc(data_type::int8, {4})) ==
          "{DataType: INT8, Sizes: {4}, TotalTensorSizeInBytes: 4}");
    const auto t = make_buffer_tensor_desc(data_type::int8, {4});
    CHECK_THAT(Catch::Detail::stringify(slice1_desc{t, t, {0}, {4}, {-1}}), Catch::StartsWith("SLICE1 {"));
    CHECK_THAT(Catch::Detail::stringify(operator_desc(slice1_desc{t, t, {0}, {4}, {-1}})), Catch::StartsWith("SLICE1 {"));
    tensor<std::int8_t, 2> x({2, 2}, {1, 2, 3, 4});
    CHECK(Catch::Detail::stringify(x) == "[[1, 2],\n [3, 4]]");
    CHECK(Catch::Detail::stringify(x.view()) == "[[1, 2],\n [3, 4]]");
    CHECK(Catch::Detail::stringify(float16::from_double(-2.5)) == "-2.5");
}
