// ELEMENT_WISE_IDENTITY: the documented facts (docs/operator-facts.md section 3) as literal
// examples, its validation rules and messages per feature level, the refusal of ScaleBias, and the
// typed view API over every element type and ranks 1 to 8. The engine == textbook properties on
// random descs live in test_property.cpp.
#include <catch2/catch.hpp>

#include "desc_test_support.hpp"

#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/textbook.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

using namespace dmlref;
using namespace dmlref::test_support;
using Catch::Contains;

namespace {

buffer_tensor_desc strided(data_type type, std::vector<std::uint32_t> sizes, std::vector<std::uint32_t> strides) {
    return make_buffer_tensor_desc(type, std::move(sizes), std::move(strides));
}

element_wise_identity_desc identity_desc(data_type type, std::vector<std::uint32_t> sizes) {
    return {make_buffer_tensor_desc(type, sizes), make_buffer_tensor_desc(type, sizes), std::nullopt};
}

} // namespace

// ---- the documented examples -------------------------------------------------------------------

TEST_CASE("IDENTITY copies [1, 2, 3] (DxDispatch's dml_element_wise_identity.json without its ScaleBias)", "[identity]") {
    const auto desc = identity_desc(data_type::float32, {3});
    CHECK(values_of<float>(run_both(desc, bytes_of(std::vector<float>{1, 2, 3}))) == std::vector<float>{1, 2, 3});
}

TEST_CASE("IDENTITY with DxDispatch's ScaleBias {Scale: 2, Bias: 10} is refused: dmlref does not compute", "[identity]") {
    auto desc = identity_desc(data_type::float32, {3});
    desc.scale_bias = scale_bias{2.0f, 10.0f};
    expect_rejected(desc, {"ELEMENT_WISE_IDENTITY", "ScaleBias", "moves data and does not compute scale/bias"});
    CHECK_THAT(to_string(operator_desc(desc)), Contains("ScaleBias: {Scale: 2, Bias: 10}"));
    CHECK_THAT(to_string(operator_desc(identity_desc(data_type::float32, {3}))), !Contains("ScaleBias"));
}

TEST_CASE("IDENTITY as ONNX Runtime's Transpose: permuted input strides, packed output (NCHW -> NHWC)", "[identity]") {
    // Input NCHW {1, 2, 2, 3} packed; the output NHWC {1, 2, 3, 2} packed. The input desc takes the
    // output's order of axes with the permuted packed strides of NCHW: sizes {1, H, W, C}, strides {12, 3, 1, 6}.
    const std::vector<std::int32_t> nchw = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
    const element_wise_identity_desc desc{strided(data_type::int32, {1, 2, 3, 2}, {12, 3, 1, 6}),
                                          make_buffer_tensor_desc(data_type::int32, {1, 2, 3, 2}), std::nullopt};
    CHECK(values_of<std::int32_t>(run_both(desc, bytes_of(nchw))) ==
          std::vector<std::int32_t>{0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15});
}

TEST_CASE("IDENTITY as ONNX Runtime's Expand: zero input strides broadcast", "[identity]") {
    // [1, 2, 3] to {2, 3} (stride 0 on axis 0), and [[7], [8]] to {2, 3} (stride 0 on axis 1).
    const element_wise_identity_desc rows{strided(data_type::uint8, {2, 3}, {0, 1}),
                                          make_buffer_tensor_desc(data_type::uint8, {2, 3}), std::nullopt};
    CHECK(values_of<std::uint8_t>(run_both(rows, bytes_of(std::vector<std::uint8_t>{1, 2, 3, 0}))) ==
          std::vector<std::uint8_t>{1, 2, 3, 1, 2, 3, 0, 0}); // the buffer's 2 tail bytes stay 0
    const element_wise_identity_desc columns{strided(data_type::float64, {2, 3}, {1, 0}),
                                             make_buffer_tensor_desc(data_type::float64, {2, 3}), std::nullopt};
    CHECK(values_of<double>(run_both(columns, bytes_of(std::vector<double>{7, 8}))) ==
          std::vector<double>{7, 7, 7, 8, 8, 8});
}

TEST_CASE("IDENTITY into a strided output leaves the gaps as they were", "[identity]") {
    const element_wise_identity_desc desc{make_buffer_tensor_desc(data_type::int16, {2, 2}),
                                          strided(data_type::int16, {2, 2}, {3, 1}), std::nullopt};
    const auto out = values_of<std::int16_t>(run_both(desc, bytes_of(std::vector<std::int16_t>{1, 2, 3, 4}), std::byte{0x11}));
    CHECK(out == std::vector<std::int16_t>{1, 2, 0x1111, 3, 4, 0x1111});
}

TEST_CASE("IDENTITY copies NaN payloads, -0 and subnormals bit for bit", "[identity]") {
    const std::vector<std::uint32_t> f32 = {0x7fa00001u, 0xffc12345u, 0x80000000u, 0x00000001u, 0x7f800000u};
    CHECK(values_of<std::uint32_t>(run_both(identity_desc(data_type::float32, {5}), bytes_of(f32))) ==
          std::vector<std::uint32_t>{0x7fa00001u, 0xffc12345u, 0x80000000u, 0x00000001u, 0x7f800000u});
    const std::vector<std::uint16_t> f16 = {0x7c01, 0xfe00, 0x8000, 0x0001};
    CHECK(values_of<std::uint16_t>(run_both(identity_desc(data_type::float16, {4}), bytes_of(f16))) == f16);
    const std::vector<std::uint64_t> f64 = {0x7ff0000000000001ull, 0x8000000000000000ull};
    CHECK(values_of<std::uint64_t>(run_both(identity_desc(data_type::float64, {2}), bytes_of(f64))) == f64);
}

TEST_CASE("IDENTITY's source_of names the same coordinate", "[identity]") {
    const auto desc = identity_desc(data_type::float32, {2, 3, 4});
    const auto s = textbook::source_of(desc, {1, 2, 3});
    CHECK(s.kind == textbook::source_kind::input);
    CHECK(s.coordinates == std::vector<std::uint32_t>{1, 2, 3});
}

// ---- validation --------------------------------------------------------------------------------

TEST_CASE("IDENTITY: sizes must match, axis by axis", "[identity][validation]") {
    element_wise_identity_desc desc = identity_desc(data_type::float32, {1, 2, 3, 4});
    desc.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 2, 5, 4});
    expect_rejected(desc, {"ELEMENT_WISE_IDENTITY", "OutputTensor.Sizes[2] = 5", "InputTensor.Sizes[2] = 3", "must match"});
    desc.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 2, 3});
    expect_rejected(desc, {"ELEMENT_WISE_IDENTITY", "OutputTensor has 3 dimensions", "InputTensor has 4"});
    desc.output_tensor = make_buffer_tensor_desc(data_type::int32, {1, 2, 3, 4});
    expect_rejected(desc, {"ELEMENT_WISE_IDENTITY", "OutputTensor.DataType INT32", "InputTensor.DataType FLOAT32"});
}

TEST_CASE("IDENTITY: an output must not broadcast, an input may", "[identity][validation]") {
    element_wise_identity_desc desc = identity_desc(data_type::uint16, {2, 3});
    desc.input_tensor = strided(data_type::uint16, {2, 3}, {0, 0});
    CHECK(validate(desc) == std::nullopt);
    desc.output_tensor = strided(data_type::uint16, {2, 3}, {0, 1});
    expect_rejected(desc, {"ELEMENT_WISE_IDENTITY", "OutputTensor.Strides[0] is 0", "must not broadcast"});
}

TEST_CASE("IDENTITY follows its tensor-support table per feature level", "[identity][validation]") {
    using fl = feature_level;
    // 1_0: 4 to 5 dimensions, FLOAT32 and FLOAT16.
    CHECK(validate(identity_desc(data_type::float16, {1, 1, 2, 2}), fl::fl_1_0) == std::nullopt);
    CHECK(validate(identity_desc(data_type::float32, {1, 1, 1, 2, 2}), fl::fl_1_0) == std::nullopt);
    expect_rejected(identity_desc(data_type::int32, {1, 1, 2, 2}), {"ELEMENT_WISE_IDENTITY", "InputTensor.DataType INT32", "1_0", "FLOAT32, FLOAT16"},
                    fl::fl_1_0);
    expect_rejected(identity_desc(data_type::float32, {2, 2}), {"ELEMENT_WISE_IDENTITY", "InputTensor has 2 dimensions", "4 to 5", "1_0"},
                    fl::fl_1_0);
    // 2_1: the 8-, 16- and 32-bit integers; still 4 to 5 dimensions; no 64-bit types.
    for (data_type t : {data_type::int8, data_type::uint8, data_type::int16, data_type::uint16, data_type::int32, data_type::uint32})
        CHECK(validate(identity_desc(t, {1, 1, 2, 2}), fl::fl_2_1) == std::nullopt);
    expect_rejected(identity_desc(data_type::int32, {1, 2, 2, 2, 2, 2}), {"6 dimensions", "4 to 5"}, fl::fl_2_1);
    expect_rejected(identity_desc(data_type::int64, {1, 1, 2, 2}), {"INT64", "2_1"}, fl::fl_2_1);
    // 3_0: 1 to 8 dimensions.
    CHECK(validate(identity_desc(data_type::int8, {5}), fl::fl_3_0) == std::nullopt);
    CHECK(validate(identity_desc(data_type::int8, {1, 2, 1, 2, 1, 2, 1, 2}), fl::fl_3_0) == std::nullopt);
    expect_rejected(identity_desc(data_type::int8, {1, 1, 1, 1, 1, 1, 1, 1, 1}), {"9 dimensions", "1 to 8"}, fl::fl_3_0);
    expect_rejected(identity_desc(data_type::float64, {2}), {"FLOAT64", "4_0"}, fl::fl_4_0);
    // 4_1: FLOAT64, INT64, UINT64.
    for (data_type t : {data_type::float64, data_type::int64, data_type::uint64})
        CHECK(validate(identity_desc(t, {2}), fl::fl_4_1) == std::nullopt);
    for (data_type t : movable_data_types) CHECK(supports_data_type(operator_type::element_wise_identity, fl::fl_6_4, t));
    CHECK(parse_operator_type("DML_OPERATOR_ELEMENT_WISE_IDENTITY") == operator_type::element_wise_identity);
    CHECK(static_cast<std::uint32_t>(operator_type::element_wise_identity) == 1);
    CHECK(introduced_in(operator_type::element_wise_identity) == fl::fl_1_0);
}

TEST_CASE("identity over views: mismatched extents and overlapping views are refused", "[identity][views][validation]") {
    tensor<float, 2> in({2, 3}), out({3, 2});
    const auto copy = [](auto a, auto b) { identity<float, 2>(a, b); };
    const auto copy_textbook = [](auto a, auto b) { textbook::identity<float, 2>(a, b); };
    CHECK_THROWS_MATCHES(copy(in.view(), out.view()), validation_error,
                         Catch::Message("identity: OutputTensor.Sizes[0] = 3 differs from InputTensor.Sizes[0] = 2; they must match"));
    tensor<float, 2> same({2, 3});
    CHECK_THROWS_WITH(copy(same.view(), same.view()), Contains("overlap"));
    CHECK_THROWS_WITH(copy_textbook(same.view(), same.view()), Contains("overlap"));
}

// ---- every type, ranks 1 to 8, over views ----------------------------------------------------

namespace {

/// A reversed, permuted input view and a strided output view of the same extents: identity must
/// give output(o) == input(o) everywhere, and leave the output's gaps alone.
template <class T, std::size_t Rank> void check_identity_rank() {
    index_array<Rank> extents{};
    for (std::size_t i = 0; i < Rank; ++i) extents[i] = static_cast<std::ptrdiff_t>(1 + (i + 1) % 3); // 2, 3, 1, 2, ...
    std::ptrdiff_t count = 1;
    for (auto e : extents) count *= e;
    // Input: axes in reverse order in memory (a transpose), the first axis reversed.
    std::vector<T> in_storage(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < in_storage.size() * sizeof(T); ++k) // distinct, non-zero bytes
        reinterpret_cast<unsigned char*>(in_storage.data())[k] = static_cast<unsigned char>(k % 251 + 1);
    index_array<Rank> in_strides{};
    std::ptrdiff_t stride = 1;
    for (std::size_t i = 0; i < Rank; ++i) {
        in_strides[i] = stride;
        stride *= extents[i];
    }
    const std::ptrdiff_t in_offset = (extents[0] - 1) * in_strides[0];
    in_strides[0] = -in_strides[0];
    const strided_view<const T, Rank> input(in_storage.data(), extents, in_strides, in_offset);
    // Output: row-major with one spare element per innermost row.
    index_array<Rank> out_strides{};
    stride = 1;
    for (std::size_t i = Rank; i-- > 0;) {
        out_strides[i] = stride;
        stride *= extents[i] + (i == Rank - 1 ? 1 : 0);
    }
    std::vector<T> out_storage(static_cast<std::size_t>(stride)); // zero bits
    const strided_view<T, Rank> output(out_storage.data(), extents, out_strides);
    identity<T, Rank>(input, output);
    std::size_t seen = 0;
    index_array<Rank> o{};
    for (;;) {
        CHECK(std::memcmp(&output[o], &input[o], sizeof(T)) == 0);
        ++seen;
        std::size_t i = Rank;
        while (i-- > 0) {
            if (++o[i] < extents[i]) break;
            o[i] = 0;
        }
        if (i == static_cast<std::size_t>(-1)) break;
    }
    CHECK(seen == static_cast<std::size_t>(count));
    // The spare element of each innermost row is untouched.
    const std::size_t row = static_cast<std::size_t>(extents[Rank - 1] + 1);
    const T zero{};
    for (std::size_t k = row - 1; k < out_storage.size(); k += row) CHECK(std::memcmp(&out_storage[k], &zero, sizeof(T)) == 0);
    std::vector<T> again(out_storage.size());
    textbook::identity<T, Rank>(input, strided_view<T, Rank>(again.data(), extents, out_strides));
    CHECK(std::memcmp(again.data(), out_storage.data(), again.size() * sizeof(T)) == 0);
}

} // namespace


TEMPLATE_TEST_CASE("identity over views: every type, ranks 1 to 8, reversed and permuted input, strided output",
                   "[identity][views]", DMLREF_ELEMENT_TYPES) {
    check_identity_rank<TestType, 1>();
    check_identity_rank<TestType, 2>();
    check_identity_rank<TestType, 3>();
    check_identity_rank<TestType, 4>();
    check_identity_rank<TestType, 5>();
    check_identity_rank<TestType, 6>();
    check_identity_rank<TestType, 7>();
    check_identity_rank<TestType, 8>();
}

TEST_CASE("IDENTITY at the desc level: every type, ranks 1 to 8, broadcast input, strided output", "[identity]") {
    for (data_type type : movable_data_types)
        for (std::uint32_t rank = 1; rank <= 8; ++rank) {
            std::vector<std::uint32_t> sizes(rank);
            for (std::uint32_t i = 0; i < rank; ++i) sizes[i] = 1 + (i + rank) % 3;
            // Input: axis 0 broadcast (stride 0), the rest packed over the remaining axes.
            std::vector<std::uint32_t> in_strides(rank, 0), out_strides(rank);
            std::uint32_t s = 1, o = 1;
            for (std::uint32_t i = rank; i-- > 0;) {
                out_strides[i] = o;
                o *= sizes[i] + (i == rank - 1 ? 2 : 0);
                if (i == 0 && rank > 1) break;
                in_strides[i] = s;
                s *= sizes[i];
            }
            const element_wise_identity_desc desc{make_buffer_tensor_desc(type, sizes, in_strides),
                                                  make_buffer_tensor_desc(type, sizes, out_strides), std::nullopt};
            INFO(to_string(operator_desc(desc)));
            REQUIRE(validate(desc) == std::nullopt);
            std::vector<std::byte> input(desc.input_tensor.total_tensor_size_in_bytes);
            for (std::size_t k = 0; k < input.size(); ++k) input[k] = static_cast<std::byte>(k * 37 + 11);
            const auto out = run_both(desc, input, std::byte{0xee});
            // Every output element equals the input element its coordinate names through the strides.
            const std::size_t width = element_size(type);
            std::vector<std::uint32_t> c(rank, 0);
            for (;;) {
                std::size_t from = 0, to = 0;
                for (std::uint32_t i = 0; i < rank; ++i) {
                    from += c[i] * in_strides[i];
                    to += c[i] * out_strides[i];
                }
                CHECK(std::memcmp(out.data() + to * width, input.data() + from * width, width) == 0);
                std::uint32_t i = rank;
                while (i-- > 0) {
                    if (++c[i] < sizes[i]) break;
                    c[i] = 0;
                }
                if (i == static_cast<std::uint32_t>(-1)) break;
            }
        }
}
