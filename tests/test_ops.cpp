// Smoke tests of the three op families over views; the full suite lives beside this file.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>

#include <numeric>

using namespace dmlref;

TEST_CASE("slice with a negative stride over views reverses an axis", "[slice]") {
    tensor<float, 2> in({2, 3}, {1, 2, 3, 4, 5, 6});
    tensor<float, 2> out({2, 3});
    slice<float, 2>(in.view(), out.view(), {0, 0}, {2, 3}, {1, -1});
    CHECK(std::vector<float>(out.values().begin(), out.values().end()) == std::vector<float>{3, 2, 1, 6, 5, 4});
}

// ---- format.hpp: the pages' nested-bracket format --------------------------------------------
#include <dmlref/format.hpp>

TEST_CASE("format_tensor prints the nested-bracket format of DirectML's pages", "[format]") {
    const std::vector<float> values = {1, 2, 3, 4, 5, 6};
    const std::vector<std::uint32_t> sizes = {1, 2, 3};
    CHECK(format_tensor(data_type::float32, sizes, std::as_bytes(std::span(values))) ==
          "[[[1, 2, 3],\n  [4, 5, 6]]]");
}

TEST_CASE("format_tensor shows float16 as a number and keeps NaN, -0 and infinities readable", "[format]") {
    const std::vector<std::uint16_t> halves = {0x3c00, 0xbc00, 0x8000, 0x7c00, 0x7e00, 0x0001};
    const std::vector<std::uint32_t> sizes = {6};
    CHECK(format_tensor(data_type::float16, sizes, std::as_bytes(std::span(halves))) ==
          "[1, -1, -0, inf, nan, 5.960464477539063e-08]");
}

TEST_CASE("format_tensor elides large tensors like numpy, keeping three items at each end", "[format]") {
    std::vector<std::int16_t> values(2000);
    std::iota(values.begin(), values.end(), std::int16_t{0});
    const std::vector<std::uint32_t> sizes = {2, 1000};
    CHECK(format_tensor(data_type::int16, sizes, std::as_bytes(std::span(values))) ==
          "[[0, 1, 2, ..., 997, 998, 999],\n [1000, 1001, 1002, ..., 1997, 1998, 1999]]");
    const std::vector<std::uint32_t> small = {4};
    CHECK(format_tensor(data_type::int16, small, std::as_bytes(std::span(values))) == "[0, 1, 2, 3]");
}

TEST_CASE("fmt prints dmlref's enums with DirectML's names", "[format]") {
    CHECK(fmt::format("{} {} {} {} {}", data_type::float16, feature_level::fl_5_0, padding_mode::wrap,
                      depth_space_order::column_row_depth, operator_type::padding1) ==
          "FLOAT16 5_0 WRAP COLUMN_ROW_DEPTH PADDING1");
}
