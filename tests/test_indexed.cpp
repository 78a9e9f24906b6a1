// The indexed operators (GATHER, GATHER_ELEMENTS, GATHER_ND(1), SCATTER_ELEMENTS, SCATTER_ND,
// ONE_HOT): DirectML's and ONNX's
// documented examples, index types and negative indices, out-of-range refusals, the desc rules per
// feature level, and the engine against the textbook evaluator (<dmlref/textbook_indexed.hpp>) on
// seeded random shapes, strides and index values, bit for bit over whole buffers.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/textbook_indexed.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace dmlref;

namespace {

template <class T, std::size_t Rank> std::vector<T> contents(const tensor<T, Rank>& t) {
    return std::vector<T>(t.values().begin(), t.values().end());
}

/// A vector's elements as the bytes of a buffer.
template <class T> std::span<const std::byte> bytes_of(const std::vector<T>& v) { return std::as_bytes(std::span(v)); }
template <class T> std::span<std::byte> writable_bytes_of(std::vector<T>& v) { return std::as_writable_bytes(std::span(v)); }

// ---- DirectML's documented examples (operator-facts.md §10-§12) ----------------------------------

TEST_CASE("GATHER: the documented examples of DirectML's page", "[gather][example]") {
    SECTION("1D remapping") {
        const tensor<float, 1> in({4}, {11, 12, 13, 14});
        const tensor<std::uint32_t, 1> idx({5}, {3, 1, 3, 0, 2});
        tensor<float, 1> out({5});
        gather(in.view(), idx.view(), out.view(), 0, 1);
        CHECK(contents(out) == std::vector<float>{14, 12, 14, 11, 13});
    }
    SECTION("axis 0, indices {1, 4}") {
        const tensor<float, 2> in({3, 2}, {1, 2, 3, 4, 5, 6});
        const tensor<std::uint32_t, 2> idx({1, 4}, {0, 1, 1, 2});
        tensor<float, 2> out({4, 2});
        gather(in.view(), idx.view(), out.view(), 0, 1);
        CHECK(contents(out) == std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
    }
    SECTION("axis 1, IndexDimensions 2 on a 2-D input: the last 2 of the logical {3, 1, 2}, as DirectML") {
        // The page's output {3, 2} is refused, as DirectML refuses it; {1, 2} reads row 0.
        const tensor<float, 2> in({3, 2}, {1, 2, 3, 4, 5, 6});
        const tensor<std::uint32_t, 2> idx({1, 2}, {1, 0});
        tensor<float, 2> out({3, 2});
        CHECK_THROWS_AS(gather(in.view(), idx.view(), out.view(), 1, 2), validation_error);
        tensor<float, 2> kept({1, 2});
        gather(in.view(), idx.view(), kept.view(), 1, 2);
        CHECK(contents(kept) == std::vector<float>{2, 1});
        // The input padded to {1, 3, 2}: logical {1, 3, 1, 2}, its leading 1 dropped.
        const tensor<float, 3> in3({1, 3, 2}, {1, 2, 3, 4, 5, 6});
        const tensor<std::uint32_t, 3> idx3({1, 1, 2}, {1, 0});
        tensor<float, 3> out3({3, 1, 2});
        gather(in3.view(), idx3.view(), out3.view(), 2, 2);
        CHECK(contents(out3) == std::vector<float>{2, 1, 4, 3, 6, 5});
    }
    SECTION("axis 2, IndexDimensions 2") {
        const tensor<float, 3> in({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const tensor<std::uint32_t, 3> idx({1, 1, 2}, {0, 2});
        tensor<float, 3> out({3, 1, 2});
        gather(in.view(), idx.view(), out.view(), 2, 2);
        CHECK(contents(out) == std::vector<float>{1, 3, 4, 6, 7, 9});
    }
    SECTION("axis 1, IndexDimensions 2 (also ONNX's Gather example, axis 0)") {
        const tensor<float, 3> in({1, 3, 2}, {1, 2, 3, 4, 5, 6});
        const tensor<std::uint32_t, 3> idx({1, 2, 2}, {0, 1, 1, 2});
        tensor<float, 3> out({2, 2, 2});
        gather(in.view(), idx.view(), out.view(), 1, 2);
        CHECK(contents(out) == std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
    }
}

TEST_CASE("GATHER: the same example through the desc and byte buffers", "[gather][example][desc]") {
    gather_desc d{make_buffer_tensor_desc(data_type::float32, {1, 3, 2}),
                  make_buffer_tensor_desc(data_type::uint32, {1, 2, 2}),
                  make_buffer_tensor_desc(data_type::float32, {2, 2, 2}), 1, 2};
    const std::vector<float> in = {1, 2, 3, 4, 5, 6};
    const std::vector<std::uint32_t> idx = {0, 1, 1, 2};
    std::vector<float> out(8);
    detail::execute_gather(d, bytes_of(in), bytes_of(idx), writable_bytes_of(out));
    CHECK(out == std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
    CHECK_FALSE(detail::check_gather("GATHER", d, feature_level::fl_3_0));
    // 3 dimensions: only from 3_0.
    CHECK(detail::check_gather("GATHER", d, feature_level::fl_2_1) ==
          "GATHER: InputTensor has 3 dimensions (DimensionCount); GATHER takes 4 at feature level 2_1");
}

TEST_CASE("GATHER_ELEMENTS: DirectML's example and ONNX's", "[gather_elements][example]") {
    SECTION("DirectML, axis 0") {
        const tensor<float, 2> in({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const tensor<std::uint32_t, 2> idx({2, 3}, {1, 2, 0, 2, 0, 0});
        tensor<float, 2> out({2, 3});
        gather_elements(in.view(), idx.view(), out.view(), 0);
        CHECK(contents(out) == std::vector<float>{4, 8, 3, 7, 2, 3});
    }
    SECTION("ONNX, axis 1") {
        const tensor<float, 2> in({2, 2}, {1, 2, 3, 4});
        const tensor<std::int64_t, 2> idx({2, 2}, {0, 0, 1, 0});
        tensor<float, 2> out({2, 2});
        gather_elements(in.view(), idx.view(), out.view(), 1);
        CHECK(contents(out) == std::vector<float>{1, 1, 4, 3});
    }
    SECTION("ONNX, axis 0 with negative indices") {
        const tensor<float, 2> in({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        const tensor<std::int32_t, 2> idx({2, 3}, {-1, -2, 0, -2, 0, 0});
        tensor<float, 2> out({2, 3});
        gather_elements(in.view(), idx.view(), out.view(), 0);
        CHECK(contents(out) == std::vector<float>{7, 5, 3, 4, 2, 3});
    }
}

TEST_CASE("GATHER_ND and GATHER_ND1: DirectML's examples and ONNX's batch example", "[gather_nd][example]") {
    SECTION("1D remapping (ND, and ND1 with no batch)") {
        const tensor<float, 2> in({2, 2}, {0, 1, 2, 3});
        const tensor<std::uint32_t, 2> idx({2, 1}, {1, 0});
        tensor<float, 2> out({2, 2});
        gather_nd(in.view(), idx.view(), out.view(), 2, 2);
        CHECK(contents(out) == std::vector<float>{2, 3, 0, 1});
    }
    SECTION("2D remapping") {
        const tensor<float, 4> in({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
        const tensor<std::uint32_t, 4> idx({1, 1, 2, 2}, {0, 1, 1, 0});
        tensor<float, 4> out({1, 1, 2, 2});
        gather_nd(in.view(), idx.view(), out.view(), 3, 2);
        CHECK(contents(out) == std::vector<float>{2, 3, 4, 5});
    }
    SECTION("2D remapping with batch count (ND1)") {
        const tensor<float, 4> in({1, 3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        const tensor<std::uint32_t, 4> idx({1, 3, 2, 2}, {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0});
        tensor<float, 4> out({1, 1, 3, 2});
        gather_nd(in.view(), idx.view(), out.view(), 3, 3, 1);
        CHECK(contents(out) == std::vector<float>{0, 3, 7, 4, 9, 10});
    }
    SECTION("ONNX GatherND, batch_dims 1") {
        const tensor<float, 3> in({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
        const tensor<std::int64_t, 3> idx({1, 2, 1}, {1, 0});
        tensor<float, 3> out({1, 2, 2});
        gather_nd(in.view(), idx.view(), out.view(), 3, 2, 1);
        CHECK(contents(out) == std::vector<float>{2, 3, 4, 5});
    }
    SECTION("the sizes example: input {3,4,5,6,7}, indices {1,1,1,2,3}, J = 3 -> output {1,1,2,6,7}") {
        gather_nd_desc d{make_buffer_tensor_desc(data_type::float32, {3, 4, 5, 6, 7}),
                         make_buffer_tensor_desc(data_type::uint32, {1, 1, 1, 2, 3}),
                         make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 6, 7}), 5, 3};
        CHECK_FALSE(detail::check_gather_nd("GATHER_ND", d, feature_level::fl_3_0));
        d.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 5, 6});
        CHECK(detail::check_gather_nd("GATHER_ND", d, feature_level::fl_3_0) ==
              "GATHER_ND: OutputTensor.Sizes {1, 1, 2, 5, 6} differ from {1, 1, 2, 6, 7}, the sizes GATHER_ND gives for "
              "InputDimensionCount 5, IndicesDimensionCount 3, BatchDimensionCount 0 and an index tuple of 3");
    }
}

TEST_CASE("GATHER_ND1 over byte buffers: the batch example", "[gather_nd][example][desc]") {
    gather_nd1_desc d{make_buffer_tensor_desc(data_type::float32, {1, 3, 2, 2}),
                      make_buffer_tensor_desc(data_type::uint32, {1, 3, 2, 2}),
                      make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 2}), 3, 3, 1};
    const std::vector<float> in = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    const std::vector<std::uint32_t> idx = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0};
    std::vector<float> out(6);
    detail::execute_gather_nd1(d, bytes_of(in), bytes_of(idx), writable_bytes_of(out), feature_level::fl_3_0);
    CHECK(out == std::vector<float>{0, 3, 7, 4, 9, 10});
    CHECK_THROWS_WITH(detail::execute_gather_nd1(d, bytes_of(in), bytes_of(idx), writable_bytes_of(out),
                                                 feature_level::fl_2_1),
                      "GATHER_ND1: not available at feature level 2_1; it was introduced in feature level 3_0");
}

// ---- index types, negative indices, out-of-range refusals ----------------------------------------

TEMPLATE_TEST_CASE("gather reads every index type", "[gather][index]", std::int32_t, std::uint32_t, std::int64_t,
                   std::uint64_t) {
    const tensor<std::uint16_t, 2> in({3, 2}, {10, 11, 20, 21, 30, 31});
    const tensor<TestType, 2> idx({1, 3}, {2, 0, 1});
    tensor<std::uint16_t, 2> out({3, 2});
    gather(in.view(), idx.view(), out.view(), 0, 1);
    CHECK(contents(out) == std::vector<std::uint16_t>{30, 31, 10, 11, 20, 21});
}

TEMPLATE_TEST_CASE("signed indices count from the end: -size is the first element, -1 the last", "[gather][index]",
                   std::int32_t, std::int64_t) {
    const tensor<std::uint8_t, 1> in({4}, {1, 2, 3, 4});
    const tensor<TestType, 1> idx({4}, {-1, -4, -2, 0});
    tensor<std::uint8_t, 1> out({4});
    gather(in.view(), idx.view(), out.view(), 0, 1);
    CHECK(contents(out) == std::vector<std::uint8_t>{4, 1, 3, 1});
    const tensor<TestType, 1> tuple({1}, {-3});
    tensor<std::uint8_t, 1> one({1});
    gather_nd(in.view(), tuple.view(), one.view(), 1, 1);
    CHECK(contents(one) == std::vector<std::uint8_t>{2});
}

TEST_CASE("an index outside its axis is refused before anything is written, naming the index", "[gather][index]") {
    const tensor<float, 2> in({3, 2}, {1, 2, 3, 4, 5, 6});
    tensor<float, 2> out({4, 2}, {9, 9, 9, 9, 9, 9, 9, 9});
    SECTION("unsigned past the end") {
        const tensor<std::uint32_t, 2> idx({1, 4}, {0, 1, 3, 2});
        CHECK_THROWS_WITH(gather(in.view(), idx.view(), out.view(), 0, 1),
                          "gather: IndicesTensor[0, 2] is 3; it indexes InputTensor.Sizes[0] = 3, so it must lie in "
                          "[0, 3) (UINT32 index)");
    }
    SECTION("signed below -size") {
        const tensor<std::int32_t, 2> idx({1, 4}, {0, -4, 1, 2});
        CHECK_THROWS_WITH(gather(in.view(), idx.view(), out.view(), 0, 1),
                          "gather: IndicesTensor[0, 1] is -4; it indexes InputTensor.Sizes[0] = 3, so it must lie in "
                          "[-3, 3) (INT32 index; a negative index counts from the end)");
    }
    SECTION("64-bit indices past 2^32 and 2^63 do not wrap to a small one") {
        const tensor<std::uint64_t, 2> idx({1, 4}, {0, (std::uint64_t{1} << 32) + 1, 1, 2});
        CHECK_THROWS_WITH(gather(in.view(), idx.view(), out.view(), 0, 1),
                          Catch::Contains("IndicesTensor[0, 1] is 4294967297"));
        const tensor<std::uint64_t, 2> top({1, 4}, {0, 1, 2, std::uint64_t{1} << 63});
        CHECK_THROWS_WITH(gather(in.view(), top.view(), out.view(), 0, 1),
                          Catch::Contains("IndicesTensor[0, 3] is 9223372036854775808"));
        const tensor<std::int64_t, 2> low({1, 4}, {std::numeric_limits<std::int64_t>::min(), 0, 1, 2});
        CHECK_THROWS_WITH(gather(in.view(), low.view(), out.view(), 0, 1),
                          Catch::Contains("IndicesTensor[0, 0] is -9223372036854775808"));
        const tensor<std::int64_t, 2> past({1, 4}, {0, std::int64_t{1} << 40, 1, 2});
        CHECK_THROWS_AS(gather(in.view(), past.view(), out.view(), 0, 1), validation_error);
    }
    CHECK(contents(out) == std::vector<float>(8, 9));
}

TEST_CASE("GATHER_ELEMENTS and GATHER_ND refuse out-of-range indices with the axis they index", "[gather][index]") {
    const tensor<float, 2> in({2, 3}, {1, 2, 3, 4, 5, 6});
    const tensor<std::int64_t, 2> e({2, 3}, {0, 1, 2, 0, 3, 0});
    tensor<float, 2> out({2, 3});
    CHECK_THROWS_WITH(gather_elements(in.view(), e.view(), out.view(), 1),
                      "gather_elements: IndicesTensor[1, 1] is 3; it indexes InputTensor.Sizes[1] = 3, so it must lie in "
                      "[-3, 3) (INT64 index; a negative index counts from the end)");
    const tensor<std::int32_t, 2> nd({1, 2}, {1, -4});
    tensor<float, 2> one({1, 1});
    CHECK_THROWS_WITH(gather_nd(in.view(), nd.view(), one.view(), 2, 2),
                      "gather_nd: IndicesTensor[0, 1] is -4; it indexes InputTensor.Sizes[1] = 3, so it must lie in "
                      "[-3, 3) (INT32 index; a negative index counts from the end)");
    gather_elements_desc d{make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 3}),
                           make_buffer_tensor_desc(data_type::uint32, {1, 1, 2, 3}),
                           make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 3}), 3};
    const std::vector<float> bin = {1, 2, 3, 4, 5, 6};
    const std::vector<std::uint32_t> bidx = {0, 1, 2, 0, 7, 0};
    std::vector<float> bout(6, -1.0f);
    CHECK_THROWS_WITH(detail::execute_gather_elements(d, bytes_of(bin), bytes_of(bidx), writable_bytes_of(bout),
                                                      feature_level::fl_2_1),
                      "GATHER_ELEMENTS: IndicesTensor[0, 0, 1, 1] is 7; it indexes InputTensor.Sizes[3] = 3, so it must "
                      "lie in [0, 3) (UINT32 index)");
    CHECK(bout == std::vector<float>(6, -1.0f));
}

// ---- element widths, strided and reversed views ---------------------------------------------------

TEMPLATE_TEST_CASE("gather moves elements of 1, 2, 4 and 8 bytes bit for bit", "[gather][types]", std::uint8_t,
                   std::int16_t, float, double, std::uint64_t, float16) {
    std::vector<TestType> values(12);
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::array<unsigned char, sizeof(TestType)> b{};
        for (std::size_t k = 0; k < b.size(); ++k) b[k] = static_cast<unsigned char>(0xA0 + i * 7 + k);
        std::memcpy(&values[i], b.data(), sizeof(TestType));
    }
    const tensor<TestType, 2> in({4, 3}, values);
    const tensor<std::int32_t, 2> idx({1, 2}, {-1, 1});
    tensor<TestType, 2> out({2, 3});
    gather(in.view(), idx.view(), out.view(), 0, 1); // whole rows 3 and 1
    CHECK(std::memcmp(out.data(), values.data() + 9, 3 * sizeof(TestType)) == 0);
    CHECK(std::memcmp(out.data() + 3, values.data() + 3, 3 * sizeof(TestType)) == 0);
}

TEST_CASE("gather over strided and reversed views", "[gather][views]") {
    // The input {3, 2} reversed on both axes; the output every other element of a {4, 4} buffer.
    const std::vector<int> buffer = {1, 2, 3, 4, 5, 6};
    const strided_view<const int, 2> in(buffer.data(), {3, 2}, {-2, -1}, 5); // [[6, 5], [4, 3], [2, 1]]
    const std::vector<std::uint32_t> ids = {9, 2, 9, 0, 9, 1};
    const strided_view<const std::uint32_t, 2> idx(ids.data(), {1, 3}, {0, 2}, 1);
    std::vector<int> out_buffer(16, -1);
    const strided_view<int, 2> out(out_buffer.data(), {3, 2}, {4, 2});
    gather(in, idx, out, 0, 1);
    CHECK(out_buffer == std::vector<int>{2, -1, 1, -1, 6, -1, 5, -1, 4, -1, 3, -1, -1, -1, -1, -1});
}

// ---- the desc rules, per feature level ------------------------------------------------------------

TEST_CASE("the gathers' desc rules per feature level", "[gather][validation]") {
    auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    gather_desc g{t(data_type::float32, {1, 1, 3, 2}), t(data_type::uint32, {1, 1, 1, 4}), t(data_type::float32, {1, 1, 4, 2}),
                  2, 1};
    CHECK_FALSE(detail::check_gather("GATHER", g, feature_level::fl_1_0));
    g.input_tensor.data_type = g.output_tensor.data_type = data_type::int32;
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_2_0) ==
          "GATHER: InputTensor.DataType INT32 is not supported at feature level 2_0 (supported: FLOAT32, FLOAT16)");
    CHECK_FALSE(detail::check_gather("GATHER", g, feature_level::fl_2_1));
    g.indices_tensor = t(data_type::int64, {1, 1, 1, 4});
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_2_1) ==
          "GATHER: IndicesTensor.DataType INT64 is not supported at feature level 2_1 (supported: UINT32)");
    CHECK_FALSE(detail::check_gather("GATHER", g, feature_level::fl_3_0));
    g.indices_tensor = t(data_type::uint32, {1, 1, 1, 4});
    g.input_tensor = t(data_type::float64, {1, 1, 3, 2});
    g.output_tensor = t(data_type::float64, {1, 1, 4, 2});
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_4_0) ==
          "GATHER: InputTensor.DataType FLOAT64 is not supported at feature level 4_0 (supported: FLOAT32, FLOAT16, "
          "INT32, INT16, INT8, UINT32, UINT16, UINT8)");
    CHECK_FALSE(detail::check_gather("GATHER", g, feature_level::fl_4_1));
    g.indices_tensor = t(data_type::int64, {1, 1, 1, 4});
    CHECK_FALSE(detail::check_gather("GATHER", g, feature_level::fl_4_1));
    g.indices_tensor = t(data_type::int16, {1, 1, 1, 4});
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_6_4) ==
          "GATHER: IndicesTensor.DataType INT16 is not supported at feature level 6_4 (supported: INT64, INT32, "
          "UINT64, UINT32)");
    g.indices_tensor = t(data_type::uint32, {1, 1, 1, 4});
    g.output_tensor.data_type = data_type::float32;
    g.output_tensor.total_tensor_size_in_bytes = calc_buffer_tensor_size(g.output_tensor);
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_6_4) ==
          "GATHER: OutputTensor.DataType FLOAT32 differs from InputTensor.DataType FLOAT64; they must match");
    g.output_tensor = t(data_type::float64, {1, 1, 4, 2});
    g.axis = 4;
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_6_4) ==
          "GATHER: Axis is 4; it must lie in [0, 4) (the tensors' DimensionCount)");
    g.axis = 2;
    g.index_dimensions = 5;
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_6_4) ==
          "GATHER: IndexDimensions is 5; it must lie in [0, 4] (IndicesTensor's DimensionCount)");
    g.index_dimensions = 1;
    g.indices_tensor = t(data_type::uint32, {1, 1, 2, 2});
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_6_4) ==
          "GATHER: IndicesTensor.Sizes[2] is 2; the dimensions before the last IndexDimensions = 1 must be 1");
    g.indices_tensor = t(data_type::uint32, {1, 1, 1, 4});
    g.output_tensor = t(data_type::float64, {1, 1, 2, 4});
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_6_4) ==
          "GATHER: OutputTensor.Sizes {1, 1, 2, 4} differ from {1, 1, 4, 2}, the sizes GATHER gives for Axis 2 and "
          "IndexDimensions 1");
    g.output_tensor = t(data_type::float64, {1, 4, 2});
    CHECK(detail::check_gather("GATHER", g, feature_level::fl_6_4) ==
          "GATHER: OutputTensor has 3 dimensions; InputTensor has 4; they must match");

    gather_elements_desc e{t(data_type::float16, {1, 1, 3, 3}), t(data_type::uint32, {1, 1, 2, 3}),
                           t(data_type::float16, {1, 1, 2, 3}), 2};
    CHECK(detail::check_gather_elements("GATHER_ELEMENTS", e, feature_level::fl_2_0) ==
          "GATHER_ELEMENTS: not available at feature level 2_0; it was introduced in feature level 2_1");
    CHECK_FALSE(detail::check_gather_elements("GATHER_ELEMENTS", e, feature_level::fl_2_1));
    e.axis = 3;
    CHECK(detail::check_gather_elements("GATHER_ELEMENTS", e, feature_level::fl_2_1) ==
          "GATHER_ELEMENTS: IndicesTensor.Sizes[2] = 2 differs from InputTensor.Sizes[2] = 3; they must match on every "
          "axis but Axis = 3");

    gather_nd1_desc n{t(data_type::uint8, {1, 3, 2, 2}), t(data_type::int32, {1, 3, 2, 2}), t(data_type::uint8, {1, 1, 3, 2}),
                      3, 3, 1};
    CHECK_FALSE(detail::check_gather_nd1("GATHER_ND1", n, feature_level::fl_3_0));
    n.batch_dimension_count = 3;
    CHECK(detail::check_gather_nd1("GATHER_ND1", n, feature_level::fl_3_0) ==
          "GATHER_ND1: BatchDimensionCount is 3; it must be less than InputDimensionCount = 3 and IndicesDimensionCount = 3");
    n.batch_dimension_count = 2;
    CHECK(detail::check_gather_nd1("GATHER_ND1", n, feature_level::fl_3_0) ==
          "GATHER_ND1: IndicesTensor.Sizes[3] = 2 (the length of an index tuple) exceeds InputDimensionCount - "
          "BatchDimensionCount = 3 - 2");
    n.batch_dimension_count = 1;
    n.input_dimension_count = 5;
    CHECK(detail::check_gather_nd1("GATHER_ND1", n, feature_level::fl_3_0) ==
          "GATHER_ND1: InputDimensionCount is 5; it must lie in [1, 4] (the tensors' DimensionCount)");
    n.input_dimension_count = 4;
    CHECK(detail::check_gather_nd1("GATHER_ND1", n, feature_level::fl_3_0) ==
          "GATHER_ND1: IndicesTensor.Sizes[1] = 3 differs from InputTensor.Sizes[0] = 1; batch dimension 0 must match");
    n.input_dimension_count = 3;
    n.indices_tensor = t(data_type::int32, {1, 2, 2, 2});
    CHECK(detail::check_gather_nd1("GATHER_ND1", n, feature_level::fl_3_0) ==
          "GATHER_ND1: IndicesTensor.Sizes[1] = 2 differs from InputTensor.Sizes[1] = 3; batch dimension 0 must match");
    gather_nd_desc nd{t(data_type::float32, {1, 1, 2, 2}), t(data_type::uint32, {1, 1, 2, 1}),
                      t(data_type::float32, {1, 1, 2, 2}), 2, 2};
    CHECK(detail::check_gather_nd("GATHER_ND", nd, feature_level::fl_2_0) ==
          "GATHER_ND: not available at feature level 2_0; it was introduced in feature level 2_1");
    CHECK_FALSE(detail::check_gather_nd("GATHER_ND", nd, feature_level::fl_2_1));
    nd.input_tensor = t(data_type::float32, {1, 2, 2, 2});
    CHECK(detail::check_gather_nd("GATHER_ND", nd, feature_level::fl_2_1) ==
          "GATHER_ND: InputTensor.Sizes[1] is 2; the dimensions before the last InputDimensionCount = 2 must be 1");
}

TEST_CASE("the byte-level gathers check their buffers", "[gather][desc]") {
    gather_desc d{make_buffer_tensor_desc(data_type::float32, {3}), make_buffer_tensor_desc(data_type::uint32, {2}),
                  make_buffer_tensor_desc(data_type::float32, {2}), 0, 1};
    std::vector<float> in = {1, 2, 3};
    const std::vector<std::uint32_t> idx = {2, 0};
    std::vector<float> out(2);
    CHECK_THROWS_WITH(detail::execute_gather(d, bytes_of(in), bytes_of(idx).first(4), writable_bytes_of(out)),
                      "GATHER: the buffer bound to IndicesTensor has 4 bytes; IndicesTensor.TotalTensorSizeInBytes is 8");
    CHECK_THROWS_WITH(detail::execute_gather(d, bytes_of(in), bytes_of(idx), writable_bytes_of(in).subspan(4)),
                      Catch::Contains("overlap; dmlref does not run in place"));
    detail::execute_gather(d, bytes_of(in), bytes_of(idx), writable_bytes_of(out));
    CHECK(out == std::vector<float>{3, 1});
}

// ---- SCATTER_ELEMENTS, SCATTER_ND (operator-facts.md §13-§14) -------------------------------------

TEST_CASE("SCATTER_ELEMENTS: DirectML's examples and ONNX's", "[scatter][example]") {
    SECTION("1D scatter: the repeated index 3 keeps the later update, as the page shows") {
        const tensor<float, 1> in({5}, {0, 1, 2, 3, 4});
        const tensor<std::uint32_t, 1> idx({4}, {3, 1, 3, 0});
        const tensor<float, 1> upd({4}, {5, 6, 7, 8});
        tensor<float, 1> out({5});
        scatter_elements(in.view(), idx.view(), upd.view(), out.view(), 0);
        CHECK(contents(out) == std::vector<float>{8, 6, 2, 7, 4});
    }
    SECTION("2D scatter, axis 0 (the input is {3, 3}, as the page's rows and output show)") {
        const tensor<float, 2> in({3, 3});
        const tensor<std::uint32_t, 2> idx({2, 3}, {1, 0, 2, 0, 2, 1});
        const tensor<float, 2> upd({2, 3}, {10, 11, 12, 20, 21, 22});
        tensor<float, 2> out({3, 3});
        scatter_elements(in.view(), idx.view(), upd.view(), out.view(), 0);
        CHECK(contents(out) == std::vector<float>{20, 11, 0, 10, 0, 22, 0, 21, 12});
    }
    SECTION("ONNX, axis 1, and with a negative index") {
        const tensor<float, 2> in({1, 5}, {1, 2, 3, 4, 5});
        const tensor<std::int64_t, 2> idx({1, 2}, {1, 3});
        const tensor<float, 2> upd({1, 2}, {1.1f, 2.1f});
        tensor<float, 2> out({1, 5});
        scatter_elements(in.view(), idx.view(), upd.view(), out.view(), 1);
        CHECK(contents(out) == std::vector<float>{1, 1.1f, 3, 2.1f, 5});
        const tensor<std::int64_t, 2> neg({1, 2}, {1, -3});
        scatter_elements(in.view(), neg.view(), upd.view(), out.view(), 1);
        CHECK(contents(out) == std::vector<float>{1, 1.1f, 2.1f, 4, 5});
    }
}

TEST_CASE("SCATTER_ND: DirectML's example (= ONNX's), over views and over byte buffers", "[scatter_nd][example]") {
    const tensor<float, 2> in({1, 8}, {1, 2, 3, 4, 5, 6, 7, 8});
    const tensor<std::uint32_t, 2> idx({4, 1}, {4, 3, 1, 7});
    const tensor<float, 2> upd({1, 4}, {9, 10, 11, 12});
    tensor<float, 2> out({1, 8});
    scatter_nd(in.view(), idx.view(), upd.view(), out.view(), 1, 2);
    CHECK(contents(out) == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});

    scatter_nd_desc d{make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 8}),
                      make_buffer_tensor_desc(data_type::uint32, {1, 1, 4, 1}),
                      make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 4}),
                      make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 8}), 1, 2};
    std::vector<float> bout(8);
    detail::execute_scatter_nd(d, bytes_of(contents(in)), bytes_of(contents(idx)), bytes_of(contents(upd)),
                               writable_bytes_of(bout), feature_level::fl_2_1);
    CHECK(bout == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
    CHECK(detail::check_scatter_nd("SCATTER_ND", d, feature_level::fl_2_0) ==
          "SCATTER_ND: not available at feature level 2_0; it was introduced in feature level 2_1");
    d.updates_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 1});
    CHECK(detail::check_scatter_nd("SCATTER_ND", d, feature_level::fl_2_1) ==
          "SCATTER_ND: UpdatesTensor.Sizes {1, 1, 4, 1} differ from {1, 1, 1, 4}, the sizes SCATTER_ND gives for "
          "InputDimensionCount 1, IndicesDimensionCount 2, BatchDimensionCount 0 and an index tuple of 1");
}

TEST_CASE("scatter_duplicates lists each output element written twice, and by which updates", "[scatter][duplicates]") {
    scatter_elements_desc d{make_buffer_tensor_desc(data_type::float32, {5}), make_buffer_tensor_desc(data_type::int32, {4}),
                            make_buffer_tensor_desc(data_type::float32, {4}), make_buffer_tensor_desc(data_type::float32, {5}),
                            0};
    const std::vector<std::int32_t> idx = {3, 1, -2, 0};
    const auto found = detail::scatter_duplicates(d, bytes_of(idx));
    REQUIRE(found.size() == 1);
    CHECK(found[0] == scatter_duplicate{{3}, {{0}, {2}}});
    CHECK(detail::scatter_duplicates(d, bytes_of(std::vector<std::int32_t>{0, 1, 2, 3})).empty());
    CHECK_THROWS_WITH(detail::scatter_duplicates(d, bytes_of(std::vector<std::int32_t>{0, 1, 5, 3})),
                      "SCATTER_ELEMENTS: IndicesTensor[2] is 5; it indexes OutputTensor.Sizes[0] = 5, so it must lie in "
                      "[-5, 5) (INT32 index; a negative index counts from the end)");
    scatter_elements_desc d4{make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 5}),
                             make_buffer_tensor_desc(data_type::uint32, {1, 1, 1, 4}),
                             make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 4}),
                             make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 5}), 3};
    CHECK_FALSE(detail::check_scatter_elements("SCATTER_ELEMENTS", d4, feature_level::fl_2_0));
    d4.indices_tensor = make_buffer_tensor_desc(data_type::int32, {1, 1, 1, 4});
    CHECK(detail::check_scatter_elements("SCATTER_ELEMENTS", d4, feature_level::fl_2_1) ==
          "SCATTER_ELEMENTS: IndicesTensor.DataType INT32 is not supported at feature level 2_1 (supported: UINT32)");
    CHECK_FALSE(detail::check_scatter_elements("SCATTER_ELEMENTS", d4, feature_level::fl_3_0));
    d4.indices_tensor = make_buffer_tensor_desc(data_type::uint32, {1, 1, 1, 4});
    d4.updates_tensor = make_buffer_tensor_desc(data_type::float16, {1, 1, 1, 4});
    CHECK(detail::check_scatter_elements("SCATTER_ELEMENTS", d4, feature_level::fl_2_0) ==
          "SCATTER_ELEMENTS: UpdatesTensor.DataType FLOAT16 differs from InputTensor.DataType FLOAT32; they must match");
    d4.updates_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 4});
    CHECK(detail::check_scatter_elements("SCATTER_ELEMENTS", d4, feature_level::fl_2_0) ==
          "SCATTER_ELEMENTS: UpdatesTensor.Sizes[2] = 2 differs from IndicesTensor.Sizes[2] = 1; they must match");
    d4.updates_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 4});
    d4.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 6});
    CHECK(detail::check_scatter_elements("SCATTER_ELEMENTS", d4, feature_level::fl_2_0) ==
          "SCATTER_ELEMENTS: OutputTensor.Sizes {1, 1, 1, 6} differ from InputTensor.Sizes {1, 1, 1, 5}; they must match");
    CHECK(detail::check_scatter_elements("SCATTER_ELEMENTS", d, feature_level::fl_1_0) ==
          "SCATTER_ELEMENTS: not available at feature level 1_0; it was introduced in feature level 2_0");

    scatter_nd_desc nd{make_buffer_tensor_desc(data_type::uint8, {2, 3}), make_buffer_tensor_desc(data_type::uint64, {3, 1}),
                       make_buffer_tensor_desc(data_type::uint8, {3, 3}), make_buffer_tensor_desc(data_type::uint8, {2, 3}),
                       2, 2};
    const auto rows = detail::scatter_duplicates(nd, bytes_of(std::vector<std::uint64_t>{1, 0, 1}));
    REQUIRE(rows.size() == 3); // row 1 twice: its three elements
    CHECK(rows[0] == scatter_duplicate{{1, 0}, {{0, 0}, {2, 0}}});
    CHECK(rows[2] == scatter_duplicate{{1, 2}, {{0, 2}, {2, 2}}});
}

TEST_CASE("scatters refuse an index outside its axis with the output untouched", "[scatter][index]") {
    const tensor<float, 2> in({2, 3}, {1, 2, 3, 4, 5, 6});
    const tensor<std::uint64_t, 2> idx({1, 3}, {0, std::uint64_t{1} << 32, 1});
    const tensor<float, 2> upd({1, 3}, {7, 8, 9});
    tensor<float, 2> out({2, 3}, {0, 0, 0, 0, 0, 0});
    CHECK_THROWS_WITH(scatter_elements(in.view(), idx.view(), upd.view(), out.view(), 0),
                      "scatter_elements: IndicesTensor[0, 1] is 4294967296; it indexes OutputTensor.Sizes[0] = 2, so it "
                      "must lie in [0, 2) (UINT64 index)");
    const tensor<std::int32_t, 2> nd({1, 2}, {1, -4});
    const tensor<float, 2> one({1, 1}, {7});
    CHECK_THROWS_WITH(scatter_nd(in.view(), nd.view(), one.view(), out.view(), 2, 2),
                      "scatter_nd: IndicesTensor[0, 1] is -4; it indexes OutputTensor.Sizes[1] = 3, so it must lie in "
                      "[-3, 3) (INT32 index; a negative index counts from the end)");
    CHECK(contents(out) == std::vector<float>(6, 0));
}

// ---- ONE_HOT (operator-facts.md §15) --------------------------------------------------------------

TEST_CASE("ONE_HOT: DirectML's four examples", "[one_hot][example]") {
    tensor<float, 4> out({1, 1, 3, 4});
    const tensor<float, 4> values({1, 1, 1, 2}, {0, 1});
    SECTION("axis 3") {
        const tensor<std::uint32_t, 4> idx({1, 1, 3, 1}, {0, 3, 2});
        one_hot(idx.view(), values.view(), out.view(), 3);
        CHECK(contents(out) == std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
    }
    SECTION("axis 2") {
        const tensor<std::uint32_t, 4> idx({1, 1, 1, 4}, {0, 2, 1, 0});
        one_hot(idx.view(), values.view(), out.view(), 2);
        CHECK(contents(out) == std::vector<float>{1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0});
    }
    SECTION("values {1, 1, 3, 1}: off 4, on 2, the 9 unused") {
        const tensor<std::uint32_t, 4> idx({1, 1, 3, 1}, {0, 3, 2});
        const tensor<float, 4> three({1, 1, 3, 1}, {4, 2, 9});
        one_hot(idx.view(), three.view(), out.view(), 3);
        CHECK(contents(out) == std::vector<float>{2, 4, 4, 4, 4, 4, 4, 2, 4, 4, 2, 4});
    }
    SECTION("negative and out-of-range indices: -3 counts from the end, 100 gives all OffValue") {
        const tensor<std::int32_t, 4> idx({1, 1, 3, 1}, {-3, 100, 3});
        one_hot(idx.view(), values.view(), out.view(), 3);
        CHECK(contents(out) == std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    }
}

TEST_CASE("ONE_HOT: out-of-range indices of every type give a sequence of OffValue", "[one_hot][index]") {
    const tensor<std::uint16_t, 2> values({1, 2}, {7, 9});
    tensor<std::uint16_t, 2> out({4, 3});
    const tensor<std::int64_t, 2> i64({4, 1}, {-4, std::numeric_limits<std::int64_t>::min(), 3, -1});
    one_hot(i64.view(), values.view(), out.view(), 1);
    CHECK(contents(out) == std::vector<std::uint16_t>{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 9});
    const tensor<std::uint64_t, 2> u64({4, 1}, {(std::uint64_t{1} << 32) + 1, std::uint64_t{1} << 63, 2, 0});
    one_hot(u64.view(), values.view(), out.view(), 1);
    CHECK(contents(out) == std::vector<std::uint16_t>{7, 7, 7, 7, 7, 7, 7, 7, 9, 9, 7, 7});
    const tensor<std::uint32_t, 2> u32({4, 1}, {3, 0xffff'ffffu, 1, 2});
    one_hot(u32.view(), values.view(), out.view(), 1);
    CHECK(contents(out) == std::vector<std::uint16_t>{7, 7, 7, 7, 7, 7, 7, 9, 7, 7, 7, 9});
}

TEST_CASE("ONE_HOT: the desc rules and the byte-level form", "[one_hot][desc][validation]") {
    one_hot_desc d{make_buffer_tensor_desc(data_type::uint32, {1, 1, 3, 1}),
                   make_buffer_tensor_desc(data_type::float16, {1, 1, 1, 2}),
                   make_buffer_tensor_desc(data_type::float16, {1, 1, 3, 4}), 3};
    CHECK(detail::check_one_hot("ONE_HOT", d, feature_level::fl_1_0) ==
          "ONE_HOT: not available at feature level 1_0; it was introduced in feature level 2_0");
    CHECK_FALSE(detail::check_one_hot("ONE_HOT", d, feature_level::fl_2_0));
    const std::vector<std::uint32_t> idx = {1, 7, 0};
    const std::vector<std::uint16_t> values = {0x0000, 0x3c00};
    std::vector<std::uint16_t> out(12, 0xffff);
    detail::execute_one_hot(d, bytes_of(idx), bytes_of(values), writable_bytes_of(out), feature_level::fl_2_0);
    CHECK(out == std::vector<std::uint16_t>{0, 0x3c00, 0, 0, 0, 0, 0, 0, 0x3c00, 0, 0, 0});
    d.values_tensor = make_buffer_tensor_desc(data_type::float16, {1, 1, 1, 1});
    CHECK(detail::check_one_hot("ONE_HOT", d, feature_level::fl_2_0) ==
          "ONE_HOT: ValuesTensor.Sizes {1, 1, 1, 1} hold one element; it must hold at least two (OffValue, OnValue)");
    d.values_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 2});
    CHECK(detail::check_one_hot("ONE_HOT", d, feature_level::fl_2_0) ==
          "ONE_HOT: OutputTensor.DataType FLOAT16 differs from ValuesTensor.DataType FLOAT32; they must match");
    d.values_tensor = make_buffer_tensor_desc(data_type::float16, {1, 1, 1, 2});
    d.indices_tensor = make_buffer_tensor_desc(data_type::uint32, {1, 1, 3, 2});
    CHECK(detail::check_one_hot("ONE_HOT", d, feature_level::fl_2_0) ==
          "ONE_HOT: IndicesTensor.Sizes[3] is 2; on Axis = 3 it must be 1");
    d.indices_tensor = make_buffer_tensor_desc(data_type::int32, {1, 1, 3, 1});
    CHECK(detail::check_one_hot("ONE_HOT", d, feature_level::fl_2_1) ==
          "ONE_HOT: IndicesTensor.DataType INT32 is not supported at feature level 2_1 (supported: UINT32)");
    d.output_tensor = make_buffer_tensor_desc(data_type::float16, {1, 2, 3, 4});
    CHECK(detail::check_one_hot("ONE_HOT", d, feature_level::fl_3_0) ==
          "ONE_HOT: IndicesTensor.Sizes[1] = 1 differs from OutputTensor.Sizes[1] = 2; they must match on every axis but "
          "Axis = 3");
}

// ---- engine == textbook on seeded random cases ----------------------------------------------------

using rng_t = std::mt19937_64;

std::ptrdiff_t draw(rng_t& rng, std::ptrdiff_t low, std::ptrdiff_t high) { // [low, high]
    return low + static_cast<std::ptrdiff_t>(rng() % static_cast<std::uint64_t>(high - low + 1));
}

/// A view of `extents` over a fresh buffer with random axis nesting, gaps and reversed axes.
template <class T, std::size_t Rank> struct random_view {
    std::vector<T> buffer;
    index_array<Rank> extents{}, strides{};
    std::ptrdiff_t offset = 0;

    random_view(rng_t& rng, const index_array<Rank>& e, bool plain) : extents(e) {
        std::array<std::size_t, Rank> order{};
        for (std::size_t i = 0; i < Rank; ++i) order[i] = i;
        if (!plain)
            for (std::size_t i = Rank; i-- > 1;) std::swap(order[i], order[static_cast<std::size_t>(draw(rng, 0, static_cast<std::ptrdiff_t>(i)))]);
        std::ptrdiff_t stride = 1;
        for (std::size_t k = Rank; k-- > 0;) { // order[Rank - 1] is the innermost
            const std::size_t axis = order[k];
            strides[axis] = stride;
            stride *= extents[axis] + (plain ? 0 : draw(rng, 0, 1) * draw(rng, 0, 1));
        }
        if (!plain)
            for (std::size_t i = 0; i < Rank; ++i)
                if (draw(rng, 0, 3) == 0) {
                    offset += (extents[i] - 1) * strides[i];
                    strides[i] = -strides[i];
                }
        buffer.resize(static_cast<std::size_t>(stride));
    }
    strided_view<T, Rank> view() { return {buffer.data(), extents, strides, offset}; }
    strided_view<const T, Rank> cview() const { return {buffer.data(), extents, strides, offset}; }
};

template <class T> T random_element(rng_t& rng) {
    T v;
    const std::uint64_t bits = rng();
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}

/// Fills an index view with values in [-size, size) (signed) or [0, size), `size(coordinate)`
/// naming the axis each addresses.
template <class I, std::size_t Rank, class Size> void fill_indices(rng_t& rng, random_view<I, Rank>& v, Size size) {
    auto view = v.view();
    index_array<Rank> c{};
    for (;;) {
        const std::ptrdiff_t n = size(c);
        view[c] = static_cast<I>(std::is_signed_v<I> ? draw(rng, -n, n - 1) : draw(rng, 0, n - 1));
        std::size_t i = Rank;
        for (;;) {
            if (i == 0) return;
            --i;
            if (++c[i] < v.extents[i]) break;
            c[i] = 0;
        }
    }
}

template <class T, std::size_t Rank> void fill_random(rng_t& rng, random_view<T, Rank>& v) {
    for (auto& x : v.buffer) x = random_element<T>(rng);
}

index_array<16> small_extents(rng_t& rng, std::size_t rank) {
    index_array<16> e{};
    for (std::size_t i = 0; i < rank; ++i) e[i] = draw(rng, 0, 2) == 0 ? 1 : draw(rng, 1, 4);
    return e;
}

template <std::size_t Rank> index_array<Rank> first(const index_array<16>& e) {
    index_array<Rank> r{};
    for (std::size_t i = 0; i < Rank; ++i) r[i] = e[i];
    return r;
}

/// The output sizes of a gather's logical shape in Rank axes (the library's rule, restated): the
/// last Rank entries for GATHER (`keep_last`); the ND ops drop none: false where they do not fit.
template <std::size_t Rank>
bool fit(const std::vector<std::ptrdiff_t>& logical, index_array<Rank>& out, bool keep_last = false) {
    std::vector<std::ptrdiff_t> kept;
    std::size_t drop = logical.size() > Rank ? logical.size() - Rank : 0;
    if (drop > 0 && !keep_last) return false;
    for (std::ptrdiff_t s : logical) {
        if (drop > 0 && kept.empty()) --drop;
        else kept.push_back(s);
    }
    if (drop > 0 || kept.size() > Rank) return false;
    out.fill(1);
    std::copy(kept.begin(), kept.end(), out.begin() + static_cast<std::ptrdiff_t>(Rank - kept.size()));
    return true;
}

/// Runs the engine on `fast` and the textbook on a copy of it, and checks that the two buffers
/// agree bit for bit (the elements a view skips included).
template <class T, std::size_t Rank, class Engine, class Textbook>
bool engine_matches_textbook(random_view<T, Rank>& fast, Engine engine, Textbook textbook) {
    random_view<T, Rank> slow = fast;
    engine(fast.view());
    textbook(slow.view());
    CHECK(std::memcmp(fast.buffer.data(), slow.buffer.data(), fast.buffer.size() * sizeof(T)) == 0);
    return true;
}

/// Input sizes, an axis (returned) and index sizes that are the input's but on that axis, for
/// GATHER_ELEMENTS and SCATTER_ELEMENTS.
template <std::size_t Rank>
std::size_t random_elements_extents(rng_t& rng, index_array<Rank>& in_e, index_array<Rank>& idx_e) {
    in_e = first<Rank>(small_extents(rng, Rank));
    const auto axis = static_cast<std::size_t>(draw(rng, 0, static_cast<std::ptrdiff_t>(Rank) - 1));
    idx_e = in_e;
    idx_e[axis] = draw(rng, 1, 4);
    return axis;
}

/// Input and index sizes for InputDimensionCount `ni`, IndicesDimensionCount `nj`, `b` batch axes
/// and tuples of `t` (GATHER_ND1; SCATTER_ND with b = 0), and the output's sizes (SCATTER_ND's
/// updates'); false where those do not fit in Rank axes.
template <std::size_t Rank>
bool random_nd_extents(rng_t& rng, std::size_t ni, std::size_t nj, std::size_t b, std::size_t t, index_array<Rank>& in_e,
                       index_array<Rank>& idx_e, index_array<Rank>& out_e) {
    in_e.fill(1);
    idx_e.fill(1);
    const auto more = small_extents(rng, 2 * Rank);
    for (std::size_t i = Rank - ni; i < Rank; ++i) in_e[i] = more[i];
    for (std::size_t i = Rank - nj; i < Rank; ++i) idx_e[i] = more[Rank + i];
    for (std::size_t i = 0; i < b; ++i) idx_e[Rank - nj + i] = in_e[Rank - ni + i];
    idx_e[Rank - 1] = static_cast<std::ptrdiff_t>(t); // after the batch axes: b < nj
    const std::size_t r = ni - b - t;
    std::vector<std::ptrdiff_t> logical(idx_e.begin() + static_cast<std::ptrdiff_t>(Rank - nj), idx_e.end() - 1);
    logical.insert(logical.end(), in_e.begin() + static_cast<std::ptrdiff_t>(Rank - r), in_e.end());
    return fit<Rank>(logical, out_e);
}

/// The random cases for run_random: each run() draws one, checks engine == textbook and returns
/// true, or returns false where the drawn shapes do not fit (so another is drawn).
template <class T, class I, std::size_t Rank> struct gather_case {
    static bool run(rng_t& rng) {
        const auto in_e = first<Rank>(small_extents(rng, Rank));
        const auto axis = static_cast<std::size_t>(draw(rng, 0, static_cast<std::ptrdiff_t>(Rank) - 1));
        const auto k = static_cast<std::size_t>(draw(rng, 0, static_cast<std::ptrdiff_t>(Rank)));
        index_array<Rank> idx_e{};
        idx_e.fill(1);
        for (std::size_t e = Rank - k; e < Rank; ++e) idx_e[e] = draw(rng, 0, 2) == 0 ? 1 : draw(rng, 1, 3);
        std::vector<std::ptrdiff_t> logical(in_e.begin(), in_e.begin() + static_cast<std::ptrdiff_t>(axis));
        logical.insert(logical.end(), idx_e.begin() + static_cast<std::ptrdiff_t>(Rank - k), idx_e.end());
        logical.insert(logical.end(), in_e.begin() + static_cast<std::ptrdiff_t>(axis + 1), in_e.end());
        index_array<Rank> out_e{};
        if (!fit<Rank>(logical, out_e, true)) return false;
        const bool plain = draw(rng, 0, 2) == 0;
        random_view<T, Rank> in(rng, in_e, plain), fast(rng, out_e, plain);
        random_view<I, Rank> idx(rng, idx_e, plain);
        fill_random(rng, in);
        fill_random(rng, fast);
        fill_indices(rng, idx, [&](const index_array<Rank>&) { return in_e[axis]; });
        const auto a = static_cast<std::ptrdiff_t>(axis), pk = static_cast<std::ptrdiff_t>(k);
        return engine_matches_textbook(
            fast, [&](strided_view<T, Rank> out) { gather(in.cview(), idx.cview(), out, a, pk); },
            [&](strided_view<T, Rank> out) { textbook::gather(in.cview(), idx.cview(), out, a, pk); });
    }
};

template <class T, class I, std::size_t Rank> struct gather_elements_case {
    static bool run(rng_t& rng) {
        index_array<Rank> in_e{}, idx_e{};
        const std::size_t axis = random_elements_extents<Rank>(rng, in_e, idx_e);
        const bool plain = draw(rng, 0, 2) == 0;
        random_view<T, Rank> in(rng, in_e, plain), fast(rng, idx_e, plain);
        random_view<I, Rank> idx(rng, idx_e, plain);
        fill_random(rng, in);
        fill_random(rng, fast);
        fill_indices(rng, idx, [&](const index_array<Rank>&) { return in_e[axis]; });
        const auto a = static_cast<std::ptrdiff_t>(axis);
        return engine_matches_textbook(
            fast, [&](strided_view<T, Rank> out) { gather_elements(in.cview(), idx.cview(), out, a); },
            [&](strided_view<T, Rank> out) { textbook::gather_elements(in.cview(), idx.cview(), out, a); });
    }
};

template <class T, class I, std::size_t Rank> struct gather_nd_case {
    static bool run(rng_t& rng) {
        const auto ni = static_cast<std::size_t>(draw(rng, 1, static_cast<std::ptrdiff_t>(Rank)));
        const auto nj = static_cast<std::size_t>(draw(rng, 1, static_cast<std::ptrdiff_t>(Rank)));
        const auto b = static_cast<std::size_t>(draw(rng, 0, static_cast<std::ptrdiff_t>(std::min(ni, nj)) - 1));
        const auto t = static_cast<std::size_t>(draw(rng, 1, static_cast<std::ptrdiff_t>(ni - b)));
        index_array<Rank> in_e{}, idx_e{}, out_e{};
        if (!random_nd_extents<Rank>(rng, ni, nj, b, t, in_e, idx_e, out_e)) return false;
        const bool plain = draw(rng, 0, 2) == 0;
        random_view<T, Rank> in(rng, in_e, plain), fast(rng, out_e, plain);
        random_view<I, Rank> idx(rng, idx_e, plain);
        fill_random(rng, in);
        fill_random(rng, fast);
        fill_indices(rng, idx, [&](const index_array<Rank>& c) { return in_e[Rank - ni + b + static_cast<std::size_t>(c[Rank - 1])]; });
        const auto pi = static_cast<std::ptrdiff_t>(ni), pj = static_cast<std::ptrdiff_t>(nj), pb = static_cast<std::ptrdiff_t>(b);
        return engine_matches_textbook(
            fast, [&](strided_view<T, Rank> out) { gather_nd(in.cview(), idx.cview(), out, pi, pj, pb); },
            [&](strided_view<T, Rank> out) { textbook::gather_nd(in.cview(), idx.cview(), out, pi, pj, pb); });
    }
};

template <class T, class I, std::size_t Rank> struct scatter_elements_case {
    static bool run(rng_t& rng) {
        index_array<Rank> in_e{}, idx_e{};
        const std::size_t axis = random_elements_extents<Rank>(rng, in_e, idx_e);
        const bool plain = draw(rng, 0, 2) == 0;
        random_view<T, Rank> in(rng, in_e, plain), upd(rng, idx_e, plain), fast(rng, in_e, plain);
        random_view<I, Rank> idx(rng, idx_e, plain);
        fill_random(rng, in);
        fill_random(rng, upd);
        fill_random(rng, fast);
        fill_indices(rng, idx, [&](const index_array<Rank>&) { return in_e[axis]; });
        const auto a = static_cast<std::ptrdiff_t>(axis);
        return engine_matches_textbook(
            fast, [&](strided_view<T, Rank> out) { scatter_elements(in.cview(), idx.cview(), upd.cview(), out, a); },
            [&](strided_view<T, Rank> out) { textbook::scatter_elements(in.cview(), idx.cview(), upd.cview(), out, a); });
    }
};

template <class T, class I, std::size_t Rank> struct scatter_nd_case {
    static bool run(rng_t& rng) {
        const auto ni = static_cast<std::size_t>(draw(rng, 1, static_cast<std::ptrdiff_t>(Rank)));
        const auto nj = static_cast<std::size_t>(draw(rng, 1, static_cast<std::ptrdiff_t>(Rank)));
        const auto t = static_cast<std::size_t>(draw(rng, 1, static_cast<std::ptrdiff_t>(ni)));
        index_array<Rank> in_e{}, idx_e{}, upd_e{};
        if (!random_nd_extents<Rank>(rng, ni, nj, 0, t, in_e, idx_e, upd_e)) return false;
        const bool plain = draw(rng, 0, 2) == 0;
        random_view<T, Rank> in(rng, in_e, plain), upd(rng, upd_e, plain), fast(rng, in_e, plain);
        random_view<I, Rank> idx(rng, idx_e, plain);
        fill_random(rng, in);
        fill_random(rng, upd);
        fill_random(rng, fast);
        fill_indices(rng, idx, [&](const index_array<Rank>& c) { return in_e[Rank - ni + static_cast<std::size_t>(c[Rank - 1])]; });
        const auto pi = static_cast<std::ptrdiff_t>(ni), pj = static_cast<std::ptrdiff_t>(nj);
        return engine_matches_textbook(
            fast, [&](strided_view<T, Rank> out) { scatter_nd(in.cview(), idx.cview(), upd.cview(), out, pi, pj); },
            [&](strided_view<T, Rank> out) { textbook::scatter_nd(in.cview(), idx.cview(), upd.cview(), out, pi, pj); });
    }
};

template <class T, class I, std::size_t Rank> struct one_hot_case {
    static bool run(rng_t& rng) {
        const auto out_e = first<Rank>(small_extents(rng, Rank));
        const auto axis = static_cast<std::size_t>(draw(rng, 0, static_cast<std::ptrdiff_t>(Rank) - 1));
        index_array<Rank> idx_e = out_e, val_e = first<Rank>(small_extents(rng, Rank));
        idx_e[axis] = 1;
        if (std::all_of(val_e.begin(), val_e.end(), [](std::ptrdiff_t e) { return e == 1; })) return false;
        const bool plain = draw(rng, 0, 2) == 0;
        random_view<T, Rank> val(rng, val_e, plain), fast(rng, out_e, plain);
        random_view<I, Rank> idx(rng, idx_e, plain);
        fill_random(rng, val);
        fill_random(rng, fast);
        auto view = idx.view(); // some indices out of range on either side
        for (auto& x : idx.buffer) x = random_element<I>(rng);
        textbook::detail::for_each_coordinate<Rank>(idx_e, [&](const index_array<Rank>& c) {
            const std::ptrdiff_t n = out_e[axis];
            if (draw(rng, 0, 7) != 0)
                view[c] = static_cast<I>(std::is_signed_v<I> ? draw(rng, -n - 1, n) : draw(rng, 0, n));
        });
        const auto a = static_cast<std::ptrdiff_t>(axis);
        return engine_matches_textbook(
            fast, [&](strided_view<T, Rank> out) { one_hot(idx.cview(), val.cview(), out, a); },
            [&](strided_view<T, Rank> out) { textbook::one_hot(idx.cview(), val.cview(), out, a); });
    }
};

/// Runs `Case` on cases drawn from `seed` until `wanted` of them were valid, over the four widths,
/// four index types and ranks 1, 3 and 5.
template <template <class, class, std::size_t> class Case> int run_random(std::uint64_t seed, int wanted) {
    rng_t rng(seed);
    int done = 0;
    for (int tries = 0; done < wanted && tries < 50 * wanted; ++tries) {
        const auto pick = rng() % 48;
        const auto width = pick % 4, index = (pick / 4) % 4, rank = pick / 16;
        auto go = [&]<class T>(T*) -> bool {
            auto with = [&]<class I>(I*) -> bool {
                if (rank == 0) return Case<T, I, 1>::run(rng);
                if (rank == 1) return Case<T, I, 3>::run(rng);
                return Case<T, I, 5>::run(rng);
            };
            if (index == 0) return with(static_cast<std::int32_t*>(nullptr));
            if (index == 1) return with(static_cast<std::uint32_t*>(nullptr));
            if (index == 2) return with(static_cast<std::int64_t*>(nullptr));
            return with(static_cast<std::uint64_t*>(nullptr));
        };
        bool ok = false;
        if (width == 0) ok = go(static_cast<std::uint8_t*>(nullptr));
        else if (width == 1) ok = go(static_cast<std::uint16_t*>(nullptr));
        else if (width == 2) ok = go(static_cast<std::uint32_t*>(nullptr));
        else ok = go(static_cast<std::uint64_t*>(nullptr));
        done += ok ? 1 : 0;
    }
    return done;
}

TEST_CASE("SCATTER_ELEMENTS: engine == textbook on 2,000 seeded random cases (duplicates included)",
          "[scatter][property]") {
    CHECK(run_random<scatter_elements_case>(0x6a7e'0004, 2000) == 2000);
}

TEST_CASE("SCATTER_ND: engine == textbook on 2,000 seeded random cases (duplicates included)", "[scatter_nd][property]") {
    CHECK(run_random<scatter_nd_case>(0x6a7e'0005, 2000) == 2000);
}

TEST_CASE("ONE_HOT: engine == textbook on 2,000 seeded random cases (out-of-range indices included)",
          "[one_hot][property]") {
    CHECK(run_random<one_hot_case>(0x6a7e'0006, 2000) == 2000);
}

TEST_CASE("GATHER: engine == textbook on 2,000 seeded random cases", "[gather][property]") {
    CHECK(run_random<gather_case>(0x6a7e'0001, 2000) == 2000);
}

TEST_CASE("GATHER_ELEMENTS: engine == textbook on 2,000 seeded random cases", "[gather_elements][property]") {
    CHECK(run_random<gather_elements_case>(0x6a7e'0002, 2000) == 2000);
}

TEST_CASE("GATHER_ND(1): engine == textbook on 2,000 seeded random cases", "[gather_nd][property]") {
    CHECK(run_random<gather_nd_case>(0x6a7e'0003, 2000) == 2000);
}

/// Lowers the bytes from which whole rows are written with streaming stores while it lives.
struct indexed_streaming_from {
    explicit indexed_streaming_from(std::size_t bytes) noexcept : kept(detail::indexed_stream_bytes()) {
        detail::indexed_stream_bytes() = bytes;
    }
    ~indexed_streaming_from() { detail::indexed_stream_bytes() = kept; }
    indexed_streaming_from(const indexed_streaming_from&) = delete;
    indexed_streaming_from& operator=(const indexed_streaming_from&) = delete;
    std::size_t kept;
};

/// GATHER (axis 0), GATHER_ND and SCATTER_ND of `rows` whole rows of `length` elements from an
/// input of `n` rows, the output starting `shift` elements into its buffer (every alignment to
/// 16 and 64 bytes), against the textbook bit for bit over whole buffers, the elements around
/// the output included. Indices repeat (the scatter's last update stays).
template <class T>
void check_whole_rows(rng_t& rng, std::ptrdiff_t n, std::ptrdiff_t rows, std::ptrdiff_t length, std::ptrdiff_t shift) {
    CAPTURE(sizeof(T), n, rows, length, shift);
    std::vector<T> in(static_cast<std::size_t>(n * length));
    for (auto& x : in) x = random_element<T>(rng);
    std::vector<std::uint32_t> idx(static_cast<std::size_t>(rows));
    for (auto& i : idx) i = static_cast<std::uint32_t>(draw(rng, 0, n - 1));
    const strided_view<const T, 2> input(in.data(), {n, length});
    const strided_view<const std::uint32_t, 2> flat(idx.data(), {1, rows}), tuples(idx.data(), {rows, 1});
    std::vector<T> fast(static_cast<std::size_t>(rows * length + 2 * shift + 16));
    for (auto& x : fast) x = random_element<T>(rng);
    std::vector<T> slow = fast;
    const auto out = [&](std::vector<T>& b) { return strided_view<T, 2>(b.data(), {rows, length}, {length, 1}, shift); };
    gather(input, flat, out(fast), 0, 1);
    textbook::gather(input, flat, out(slow), 0, 1);
    CHECK(std::memcmp(fast.data(), slow.data(), fast.size() * sizeof(T)) == 0);
    gather_nd(input, tuples, out(fast), 2, 2);
    textbook::gather_nd(input, tuples, out(slow), 2, 2);
    CHECK(std::memcmp(fast.data(), slow.data(), fast.size() * sizeof(T)) == 0);
    // SCATTER_ND of those rows back into an output of n rows, `shift` elements into its buffer.
    std::vector<T> big_fast(static_cast<std::size_t>(n * length + 2 * shift + 16));
    for (auto& x : big_fast) x = random_element<T>(rng);
    std::vector<T> big_slow = big_fast;
    const auto big = [&](std::vector<T>& b) { return strided_view<T, 2>(b.data(), {n, length}, {length, 1}, shift); };
    const strided_view<const T, 2> updates(fast.data(), {rows, length}, {length, 1}, shift);
    scatter_nd(input, tuples, updates, big(big_fast), 2, 2);
    textbook::scatter_nd(input, tuples, updates, big(big_slow), 2, 2);
    CHECK(std::memcmp(big_fast.data(), big_slow.data(), big_fast.size() * sizeof(T)) == 0);
}

TEST_CASE("whole rows written with streaming stores land bit for bit at every alignment", "[gather][scatter_nd][stream]") {
    // Whole rows stream from indexed_stream_bytes() written bytes on (x86-64): lowered to 0, every
    // row of 128 bytes or more goes through the streaming path here, its ends through the cache.
    const indexed_streaming_from every_walk(0);
    rng_t rng(0x6a7e'0007);
    const auto each_shift = [&]<class T>(T*, std::ptrdiff_t bytes, std::ptrdiff_t step) {
        const auto w = static_cast<std::ptrdiff_t>(sizeof(T));
        for (std::ptrdiff_t shift = 0; shift * w < 64; shift += step) check_whole_rows<T>(rng, 9, 13, (bytes + w - 1) / w, shift);
    };
    for (const std::ptrdiff_t bytes : {1, 15, 16, 63, 64, 65, 127, 128, 129, 192, 200, 256, 1000, 1024, 4096}) {
        each_shift(static_cast<std::uint8_t*>(nullptr), bytes, 7);
        each_shift(static_cast<std::uint16_t*>(nullptr), bytes, 3);
        each_shift(static_cast<std::uint32_t*>(nullptr), bytes, 1);
        each_shift(static_cast<std::uint64_t*>(nullptr), bytes, 1);
    }
    // An input past stream_threshold: the gathers also fetch the rows ahead, the indices read there
    // by a second walk that must stop at the last (1 KiB rows: 4 ahead; 5 KiB rows: 1 ahead).
    check_whole_rows<float>(rng, 17 * 1024 + 3, 37, 256, 0);
    check_whole_rows<float>(rng, 17 * 1024 + 3, 3, 256, 1);
    check_whole_rows<std::uint8_t>(rng, 4 * 1024 + 5, 11, 5 * 1024 + 1, 7);
}

TEST_CASE("whole rows of outputs under the streaming threshold take the ordinary stores", "[gather][stream]") {
    rng_t rng(0x6a7e'0008);
    for (std::ptrdiff_t shift = 0; shift < 16; shift += 5) check_whole_rows<std::uint32_t>(rng, 17 * 1024 + 3, 37, 256, shift);
}

TEST_CASE("textbook source_of names the input element and the index that chose it", "[gather][textbook]") {
    const tensor<float, 3> in({1, 3, 2}, {1, 2, 3, 4, 5, 6});
    const tensor<std::int32_t, 3> idx({1, 2, 2}, {0, 1, 1, -1});
    const auto s = textbook::gather_source_of(in.view(), idx.view(), 1, 2, index_array<3>{1, 1, 0});
    CHECK(s.input == index_array<3>{0, 2, 0});
    CHECK(s.index == index_array<3>{0, 1, 1});
    const tensor<std::uint32_t, 4> nd({1, 3, 2, 2}, {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0});
    const tensor<float, 4> nin({1, 3, 2, 2});
    const auto n = textbook::gather_nd_source_of(nin.view(), nd.view(), 3, 3, 1, index_array<4>{0, 0, 2, 1});
    CHECK(n.input == index_array<4>{0, 2, 1, 0});
    CHECK(n.index == index_array<4>{0, 2, 1, 0});
}

} // namespace
