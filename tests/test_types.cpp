// The type system: data types, feature levels and enums (values, names, parsing), element sizes,
// binary16 conversions, DMLCalcBufferTensorSize, and PADDING v0's value conversion (DECISIONS 3)
// observed through execute.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/textbook.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace dmlref;

TEST_CASE("data_type has DirectML's values and names", "[types]") {
    struct row { data_type type; std::uint32_t value; const char* name; std::uint32_t bits; std::size_t bytes; };
    const row rows[] = {
        {data_type::unknown, 0, "UNKNOWN", 0, 0}, {data_type::float32, 1, "FLOAT32", 32, 4},
        {data_type::float16, 2, "FLOAT16", 16, 2}, {data_type::uint32, 3, "UINT32", 32, 4},
        {data_type::uint16, 4, "UINT16", 16, 2},   {data_type::uint8, 5, "UINT8", 8, 1},
        {data_type::int32, 6, "INT32", 32, 4},     {data_type::int16, 7, "INT16", 16, 2},
        {data_type::int8, 8, "INT8", 8, 1},        {data_type::float64, 9, "FLOAT64", 64, 8},
        {data_type::uint64, 10, "UINT64", 64, 8},  {data_type::int64, 11, "INT64", 64, 8},
        {data_type::uint4, 12, "UINT4", 4, 0},     {data_type::int4, 13, "INT4", 4, 0},
    };
    for (const row& r : rows) {
        INFO(r.name);
        CHECK(static_cast<std::uint32_t>(r.type) == r.value);
        CHECK(to_string(r.type) == r.name);
        CHECK(element_bits(r.type) == r.bits);
        CHECK(element_size(r.type) == r.bytes);
        if (r.type != data_type::unknown) {
            CHECK(parse_data_type(r.name) == r.type);
            CHECK(parse_data_type(std::string("DML_TENSOR_DATA_TYPE_") + r.name) == r.type);
        }
    }
    CHECK(to_string(static_cast<data_type>(14)) == "UNKNOWN");
    CHECK(element_size(static_cast<data_type>(99)) == 0);
    CHECK(parse_data_type("UNKNOWN") == std::nullopt);
    CHECK(parse_data_type("DML_TENSOR_DATA_TYPE_UNKNOWN") == std::nullopt);
    CHECK(parse_data_type("") == std::nullopt);
    CHECK(parse_data_type("FLOAT") == std::nullopt);
    CHECK(parse_data_type("DML_TENSOR_DATA_TYPE_") == std::nullopt);
    CHECK(std::size(movable_data_types) == 11);
}

TEST_CASE("element types map to data types and back", "[types]") {
    STATIC_REQUIRE(data_type_of<float>() == data_type::float32);
    STATIC_REQUIRE(data_type_of<const float16>() == data_type::float16);
    STATIC_REQUIRE(data_type_of<double>() == data_type::float64);
    STATIC_REQUIRE(data_type_of<std::int8_t>() == data_type::int8);
    STATIC_REQUIRE(data_type_of<std::uint64_t>() == data_type::uint64);
    STATIC_REQUIRE(data_type_of<char16_t>() == data_type::unknown);
    STATIC_REQUIRE(std::is_same_v<element_type_t<data_type::float16>, float16>);
    STATIC_REQUIRE(std::is_same_v<element_type_t<data_type::int16>, std::int16_t>);
    STATIC_REQUIRE(std::is_same_v<element_type_t<data_type::uint32>, std::uint32_t>);
}

TEST_CASE("feature_level has DirectML's values, names and order", "[types]") {
    struct row { feature_level level; std::uint32_t value; const char* name; };
    const row rows[] = {{feature_level::fl_1_0, 0x1000, "1_0"}, {feature_level::fl_2_0, 0x2000, "2_0"},
                        {feature_level::fl_2_1, 0x2100, "2_1"}, {feature_level::fl_3_0, 0x3000, "3_0"},
                        {feature_level::fl_3_1, 0x3100, "3_1"}, {feature_level::fl_4_0, 0x4000, "4_0"},
                        {feature_level::fl_4_1, 0x4100, "4_1"}, {feature_level::fl_5_0, 0x5000, "5_0"},
                        {feature_level::fl_5_1, 0x5100, "5_1"}, {feature_level::fl_5_2, 0x5200, "5_2"},
                        {feature_level::fl_6_0, 0x6000, "6_0"}, {feature_level::fl_6_1, 0x6100, "6_1"},
                        {feature_level::fl_6_2, 0x6200, "6_2"}, {feature_level::fl_6_3, 0x6300, "6_3"},
                        {feature_level::fl_6_4, 0x6400, "6_4"}};
    for (std::size_t i = 0; i < std::size(rows); ++i) {
        const row& r = rows[i];
        INFO(r.name);
        CHECK(static_cast<std::uint32_t>(r.level) == r.value);
        CHECK(to_string(r.level) == r.name);
        CHECK(parse_feature_level(r.name) == r.level);
        CHECK(parse_feature_level(std::string("DML_FEATURE_LEVEL_") + r.name) == r.level);
        if (i > 0) CHECK(rows[i - 1].level < r.level);
    }
    CHECK(newest_feature_level == feature_level::fl_6_4);
    CHECK(parse_feature_level("6_5") == std::nullopt);
    CHECK(parse_feature_level("0x6400") == std::nullopt);
    CHECK(to_string(static_cast<feature_level>(0x6500)) == "unknown");
}

TEST_CASE("operator_type, padding_mode, depth_space_order and tensor_flags: values, names, parsing", "[types]") {
    struct op_row { operator_type type; std::uint32_t value; const char* name; feature_level since; };
    const op_row ops[] = {
        {operator_type::slice, 60, "SLICE", feature_level::fl_1_0},
        {operator_type::padding, 64, "PADDING", feature_level::fl_1_0},
        {operator_type::space_to_depth, 68, "SPACE_TO_DEPTH", feature_level::fl_1_0},
        {operator_type::depth_to_space, 69, "DEPTH_TO_SPACE", feature_level::fl_1_0},
        {operator_type::slice1, 111, "SLICE1", feature_level::fl_2_1},
        {operator_type::depth_to_space1, 113, "DEPTH_TO_SPACE1", feature_level::fl_2_1},
        {operator_type::space_to_depth1, 114, "SPACE_TO_DEPTH1", feature_level::fl_2_1},
        {operator_type::padding1, 155, "PADDING1", feature_level::fl_5_0},
    };
    for (const op_row& r : ops) {
        INFO(r.name);
        CHECK(static_cast<std::uint32_t>(r.type) == r.value);
        CHECK(to_string(r.type) == r.name);
        CHECK(parse_operator_type(r.name) == r.type);
        CHECK(parse_operator_type(std::string("DML_OPERATOR_") + r.name) == r.type);
        CHECK(introduced_in(r.type) == r.since);
    }
    CHECK(parse_operator_type("SLICE2") == std::nullopt);
    CHECK(type_of(operator_desc{padding1_desc{}}) == operator_type::padding1);
    CHECK(type_of(operator_desc{slice_desc{}}) == operator_type::slice);

    const char* modes[] = {"CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP"};
    for (std::uint32_t v = 0; v < 5; ++v) {
        const auto mode = static_cast<padding_mode>(v);
        CHECK(to_string(mode) == modes[v]);
        CHECK(parse_padding_mode(modes[v]) == mode);
        CHECK(parse_padding_mode(std::string("DML_PADDING_MODE_") + modes[v]) == mode);
    }
    CHECK(to_string(static_cast<padding_mode>(5)) == "UNKNOWN");
    CHECK(parse_padding_mode("REFLECT") == std::nullopt);

    CHECK(static_cast<std::uint32_t>(depth_space_order::depth_column_row) == 0);
    CHECK(static_cast<std::uint32_t>(depth_space_order::column_row_depth) == 1);
    CHECK(parse_depth_space_order("DEPTH_COLUMN_ROW") == depth_space_order::depth_column_row);
    CHECK(parse_depth_space_order("DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH") == depth_space_order::column_row_depth);
    CHECK(parse_depth_space_order("DCR") == std::nullopt);
    CHECK(to_string(depth_space_order::column_row_depth) == "COLUMN_ROW_DEPTH");

    CHECK(static_cast<std::uint32_t>(tensor_flags::owned_by_dml) == 1);
    CHECK(to_string(tensor_flags::none) == "NONE");
    CHECK(to_string(tensor_flags::owned_by_dml) == "OWNED_BY_DML");
}

TEST_CASE("dimension counts and data types per operator and level follow the tables", "[types]") {
    using fl = feature_level;
    CHECK(dimension_count_range(operator_type::slice, fl::fl_2_1) == std::pair{4u, 5u});
    CHECK(dimension_count_range(operator_type::slice1, fl::fl_3_0) == std::pair{1u, 8u});
    CHECK(dimension_count_range(operator_type::padding, fl::fl_3_0) == std::pair{4u, 5u});
    CHECK(dimension_count_range(operator_type::padding, fl::fl_3_1) == std::pair{1u, 8u});
    CHECK(dimension_count_range(operator_type::padding1, fl::fl_5_0) == std::pair{1u, 8u});
    CHECK(dimension_count_range(operator_type::depth_to_space1, fl::fl_6_4) == std::pair{4u, 4u});
    CHECK(dimension_count_range(operator_type::space_to_depth, fl::fl_1_0) == std::pair{4u, 4u});

    CHECK(supports_data_type(operator_type::slice, fl::fl_1_0, data_type::int16));
    CHECK_FALSE(supports_data_type(operator_type::slice, fl::fl_1_0, data_type::int8));
    CHECK(supports_data_type(operator_type::slice, fl::fl_2_1, data_type::int8));
    CHECK_FALSE(supports_data_type(operator_type::slice, fl::fl_4_0, data_type::float64));
    CHECK(supports_data_type(operator_type::slice1, fl::fl_4_1, data_type::uint64));
    CHECK_FALSE(supports_data_type(operator_type::padding, fl::fl_1_0, data_type::uint32));
    CHECK(supports_data_type(operator_type::padding, fl::fl_2_1, data_type::uint32));
    CHECK_FALSE(supports_data_type(operator_type::padding, fl::fl_4_1, data_type::int64));
    CHECK(supports_data_type(operator_type::padding, fl::fl_5_0, data_type::int64));
    CHECK(supports_data_type(operator_type::depth_to_space, fl::fl_1_0, data_type::float16));
    CHECK_FALSE(supports_data_type(operator_type::depth_to_space, fl::fl_2_0, data_type::uint16));
    CHECK(supports_data_type(operator_type::padding1, fl::fl_5_0, data_type::float64));
    for (operator_type op : {operator_type::slice, operator_type::slice1, operator_type::padding,
                             operator_type::padding1, operator_type::depth_to_space1})
        for (data_type t : {data_type::unknown, data_type::uint4, data_type::int4, static_cast<data_type>(20)})
            CHECK_FALSE(supports_data_type(op, fl::fl_6_4, t));
}

// ---- float16 ----------------------------------------------------------------------------------

TEST_CASE("double -> binary16 rounds to nearest, ties to even", "[types][float16]") {
    CHECK(half_bits_from_double(1.0) == 0x3c00);
    CHECK(half_bits_from_double(-2.0) == 0xc000);
    CHECK(half_bits_from_double(0.5) == 0x3800);
    CHECK(half_bits_from_double(65504.0) == 0x7bff); // largest finite
    const double ulp1 = std::ldexp(1.0, -10);         // spacing of halves in [1, 2)
    CHECK(half_bits_from_double(1.0 + ulp1 / 2) == 0x3c00);                   // tie -> even (down)
    CHECK(half_bits_from_double(1.0 + 3 * ulp1 / 2) == 0x3c02);               // tie -> even (up)
    CHECK(half_bits_from_double(1.0 + ulp1 / 2 + std::ldexp(1.0, -40)) == 0x3c01); // above the tie
    CHECK(half_bits_from_double(1.0 + ulp1 / 2 - std::ldexp(1.0, -40)) == 0x3c00); // below the tie
    CHECK(half_bits_from_double(2.0 - ulp1 / 4) == 0x4000); // a carry into the exponent
    CHECK(half_bits_from_double(0.1) == 0x2e66);
    CHECK(half_bits_from_double(static_cast<double>(0.1f)) == 0x2e66);
}

TEST_CASE("double -> binary16 subnormals, zeros and underflow", "[types][float16]") {
    const double tiny = std::ldexp(1.0, -24); // smallest subnormal half
    CHECK(half_bits_from_double(tiny) == 0x0001);
    CHECK(half_bits_from_double(1023 * tiny) == 0x03ff);       // largest subnormal
    CHECK(half_bits_from_double(std::ldexp(1.0, -14)) == 0x0400); // smallest normal
    CHECK(half_bits_from_double(1023.5 * tiny) == 0x0400);     // tie rounds to even: the smallest normal
    CHECK(half_bits_from_double(tiny / 2) == 0x0000);          // tie between 0 and 1 -> 0
    CHECK(half_bits_from_double(tiny / 2 * 1.000001) == 0x0001);
    CHECK(half_bits_from_double(1.5 * tiny) == 0x0002);        // tie between 1 and 2 -> 2
    CHECK(half_bits_from_double(2.5 * tiny) == 0x0002);        // tie between 2 and 3 -> 2
    CHECK(half_bits_from_double(1e-10) == 0x0000);
    CHECK(half_bits_from_double(-1e-10) == 0x8000);
    CHECK(half_bits_from_double(0.0) == 0x0000);
    CHECK(half_bits_from_double(-0.0) == 0x8000);
    CHECK(half_bits_from_double(std::numeric_limits<double>::denorm_min()) == 0x0000);
}

TEST_CASE("double -> binary16 overflows to infinity and keeps NaN", "[types][float16]") {
    CHECK(half_bits_from_double(65519.99) == 0x7bff);
    CHECK(half_bits_from_double(65520.0) == 0x7c00); // the tie above 65504 rounds to infinity
    CHECK(half_bits_from_double(-65520.0) == 0xfc00);
    CHECK(half_bits_from_double(1e300) == 0x7c00);
    CHECK(half_bits_from_double(std::numeric_limits<double>::infinity()) == 0x7c00);
    CHECK(half_bits_from_double(-std::numeric_limits<double>::infinity()) == 0xfc00);
    CHECK(half_bits_from_double(std::numeric_limits<double>::quiet_NaN()) == 0x7e00);
    CHECK(half_bits_from_double(-std::numeric_limits<double>::quiet_NaN()) == 0xfe00);
    // A signalling NaN whose top payload bits survive stays signalling with that payload.
    CHECK(half_bits_from_double(std::bit_cast<double>(0x7ff0'0400'0000'0000ull)) == 0x7c01);
    // A NaN whose payload lives only in the dropped low bits stays a NaN (quiet bit set).
    CHECK(half_bits_from_double(std::bit_cast<double>(0x7ff0'0000'0000'0001ull)) == 0x7e00);
    CHECK(half_bits_from_double(std::bit_cast<double>(0xfff8'0000'0000'0000ull)) == 0xfe00);
}

TEST_CASE("binary16 -> double is exact, and every half survives the round trip", "[types][float16]") {
    CHECK(double_from_half_bits(0x3c00) == 1.0);
    CHECK(double_from_half_bits(0x7bff) == 65504.0);
    CHECK(double_from_half_bits(0x0001) == std::ldexp(1.0, -24));
    CHECK(double_from_half_bits(0x03ff) == 1023 * std::ldexp(1.0, -24));
    CHECK(double_from_half_bits(0xfc00) == -std::numeric_limits<double>::infinity());
    CHECK(std::signbit(double_from_half_bits(0x8000)));
    CHECK(std::isnan(double_from_half_bits(0x7c01)));
    for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const auto h = static_cast<std::uint16_t>(bits);
        if (half_bits_from_double(double_from_half_bits(h)) != h) {
            FAIL_CHECK("half " << bits << " does not round-trip");
        }
    }
    const float16 x = float16::from_double(-1.5);
    CHECK(x.bits == 0xbe00);
    CHECK(x.to_double() == -1.5);
    CHECK(x.to_float() == -1.5f);
    CHECK(float16::from_bits(0xbe00) == x);
    CHECK_FALSE(float16::from_bits(0x3c00) == x);
    STATIC_REQUIRE(sizeof(float16) == 2);
}

// ---- DMLCalcBufferTensorSize -------------------------------------------------------------------

TEST_CASE("calc_buffer_tensor_size follows DMLCalcBufferTensorSize", "[types][tensor_desc]") {
    using v = std::vector<std::uint32_t>;
    auto calc = [](data_type t, v sizes, v strides = {}) { return calc_buffer_tensor_size(t, sizes, strides); };
    CHECK(calc(data_type::uint32, {1, 8, 2, 3}) == 192);
    CHECK(calc(data_type::uint8, {3}) == 4);   // rounded up to 4
    CHECK(calc(data_type::float16, {5}) == 12);
    CHECK(calc(data_type::float64, {3}) == 24);
    CHECK(calc(data_type::uint8, {2, 2, 2}) == 8);
    // Strided: (dot(sizes - 1, strides) + 1) * element size.
    CHECK(calc(data_type::float32, {2, 3}, {4, 1}) == 28);
    CHECK(calc(data_type::float32, {2, 3}, {1, 2}) == 24);  // column-major
    CHECK(calc(data_type::int16, {3, 3}, {10, 3}) == 56);   // last element 2*10 + 2*3 = 26: 27 elements, 54 bytes
    // Broadcast: a stride of 0 needs one element.
    CHECK(calc(data_type::float32, {4, 4}, {0, 0}) == 4);
    CHECK(calc(data_type::uint8, {100}, {0}) == 4);
    CHECK(calc(data_type::uint64, {7, 1}, {0, 5}) == 8);
    // 4-bit types count in bits: five UINT4 take three bytes, rounded to four.
    CHECK(calc(data_type::uint4, {5}) == 4);
    CHECK(calc(data_type::int4, {9}) == 8);
    // A zero size needs nothing.
    CHECK(calc(data_type::float32, {4, 0}) == 0);
    CHECK(calc(data_type::float32, {4, 0}, {1, 1}) == 0);
}

TEST_CASE("calc_buffer_tensor_size counts in 64 bits and saturates", "[types][tensor_desc]") {
    using v = std::vector<std::uint32_t>;
    // 2^32 elements of 8 bytes: 2^35 bytes, beyond what 32-bit arithmetic holds.
    CHECK(calc_buffer_tensor_size(data_type::uint64, v{65536, 65536}) == (std::uint64_t{1} << 35));
    CHECK(calc_buffer_tensor_size(data_type::uint8, v{0xffffffffu}, v{2}) == (std::uint64_t{1} << 33));
    // The last element's index fits in 64 bits, its bit count does not: saturated, never wrapped.
    CHECK(calc_buffer_tensor_size(data_type::float32, v{0xffffffffu}, v{0xffffffffu}) ==
          std::numeric_limits<std::uint64_t>::max());
    constexpr auto max = std::numeric_limits<std::uint64_t>::max();
    const v huge(8, 0xffffffffu);
    CHECK(calc_buffer_tensor_size(data_type::float64, huge) == max);
    CHECK(calc_buffer_tensor_size(data_type::uint8, huge, huge) == max);
    CHECK(element_count(huge) == max);
    CHECK(element_count(v{}) == 1);
    CHECK(element_count(v{3, 4, 5}) == 60);
}

TEST_CASE("make_buffer_tensor_desc and packed_strides", "[types][tensor_desc]") {
    const auto d = make_buffer_tensor_desc(data_type::int16, {2, 3, 5});
    CHECK(d.total_tensor_size_in_bytes == 60);
    CHECK(d.dimension_count() == 3);
    CHECK_FALSE(d.strides.has_value());
    CHECK(d.flags == tensor_flags::none);
    CHECK(d.guaranteed_base_offset_alignment == 0);
    const auto s = make_buffer_tensor_desc(data_type::int16, {2, 3}, std::vector<std::uint32_t>{8, 2});
    CHECK(s.total_tensor_size_in_bytes == 28); // last element 8 + 4 = 12: 13 elements, 26 bytes
    CHECK(packed_strides(std::vector<std::uint32_t>{2, 3, 5}) == std::vector<std::uint32_t>{15, 5, 1});
    CHECK(packed_strides(std::vector<std::uint32_t>{7}) == std::vector<std::uint32_t>{1});
    CHECK(dmlref::packed_strides<3>({2, 3, 5}) == index_array<3>{15, 5, 1});
}

// ---- PADDING v0: the FLOAT value in the tensor's type (DECISIONS 3) ----------------------------

namespace {
/// PADDING (v0) CONSTANT of one element by one on each side: returns the padding element's bytes.
template <class T> T pad_value_v0(float value) {
    const data_type type = data_type_of<T>();
    const padding_desc d{make_buffer_tensor_desc(type, {1}), make_buffer_tensor_desc(type, {3}),
                         padding_mode::constant, value, {1}, {1}};
    std::vector<std::byte> in(d.input_tensor.total_tensor_size_in_bytes, std::byte{0x11});
    std::vector<std::byte> out(d.output_tensor.total_tensor_size_in_bytes, std::byte{0xee});
    execute(d, in, out);
    T first, last;
    std::memcpy(&first, out.data(), sizeof(T));
    std::memcpy(&last, out.data() + 2 * sizeof(T), sizeof(T));
    CHECK(std::memcmp(&first, &last, sizeof(T)) == 0);
    return first;
}
} // namespace

TEST_CASE("PADDING v0 truncates toward zero for integer types", "[types][padding_value]") {
    CHECK(pad_value_v0<std::int32_t>(10.6f) == 10);
    CHECK(pad_value_v0<std::int32_t>(-10.6f) == -10);
    CHECK(pad_value_v0<std::uint8_t>(10.6f) == 10);
    CHECK(pad_value_v0<std::int8_t>(-0.9f) == 0);
    CHECK(pad_value_v0<std::int16_t>(-32768.0f) == -32768);
    CHECK(pad_value_v0<std::uint32_t>(4294967040.0f) == 4294967040u); // largest float below 2^32
    CHECK(pad_value_v0<std::int64_t>(-9.5e15f) == static_cast<std::int64_t>(-9.5e15f));
    CHECK(pad_value_v0<std::uint64_t>(9223372036854775808.0f) == 9223372036854775808ull); // 2^63 fits
}

TEST_CASE("PADDING v0 saturates to the integer type's range", "[types][padding_value]") {
    CHECK(pad_value_v0<std::uint8_t>(300.0f) == 255);
    CHECK(pad_value_v0<std::uint8_t>(-5.0f) == 0);
    CHECK(pad_value_v0<std::int8_t>(300.0f) == 127);
    CHECK(pad_value_v0<std::int8_t>(-300.0f) == -128);
    CHECK(pad_value_v0<std::uint16_t>(1e9f) == 65535);
    CHECK(pad_value_v0<std::int16_t>(-1e9f) == -32768);
    CHECK(pad_value_v0<std::uint32_t>(1e10f) == 0xffffffffu);
    CHECK(pad_value_v0<std::int32_t>(2147483648.0f) == 2147483647);
    CHECK(pad_value_v0<std::int32_t>(-1e10f) == std::numeric_limits<std::int32_t>::min());
    CHECK(pad_value_v0<std::int64_t>(9223372036854775808.0f) == std::numeric_limits<std::int64_t>::max());
    CHECK(pad_value_v0<std::int64_t>(-1e30f) == std::numeric_limits<std::int64_t>::min());
    CHECK(pad_value_v0<std::uint64_t>(1e30f) == std::numeric_limits<std::uint64_t>::max());
    CHECK(pad_value_v0<std::uint64_t>(-1e30f) == 0);
    CHECK(pad_value_v0<std::int32_t>(std::numeric_limits<float>::infinity()) == 2147483647);
    CHECK(pad_value_v0<std::uint16_t>(-std::numeric_limits<float>::infinity()) == 0);
}

TEST_CASE("PADDING v0 turns NaN into 0 for integer types", "[types][padding_value]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    CHECK(pad_value_v0<std::int8_t>(nan) == 0);
    CHECK(pad_value_v0<std::uint16_t>(nan) == 0);
    CHECK(pad_value_v0<std::int32_t>(-nan) == 0);
    CHECK(pad_value_v0<std::uint64_t>(nan) == 0);
    CHECK(pad_value_v0<std::int64_t>(std::bit_cast<float>(0x7f800001u)) == 0);
}

TEST_CASE("PADDING v0 float values: FLOAT32 keeps bits, FLOAT64 exact, FLOAT16 rounds to nearest even",
          "[types][padding_value]") {
    const float payload_nan = std::bit_cast<float>(0x7fa0'0001u);
    CHECK(std::bit_cast<std::uint32_t>(pad_value_v0<float>(payload_nan)) == 0x7fa0'0001u);
    CHECK(std::bit_cast<std::uint32_t>(pad_value_v0<float>(-0.0f)) == 0x8000'0000u);
    CHECK(pad_value_v0<double>(0.1f) == static_cast<double>(0.1f));
    CHECK(std::bit_cast<std::uint64_t>(pad_value_v0<double>(-0.0f)) == 0x8000'0000'0000'0000ull);
    CHECK(std::isnan(pad_value_v0<double>(payload_nan)));
    CHECK(pad_value_v0<float16>(1.0f).bits == 0x3c00);
    CHECK(pad_value_v0<float16>(0.1f).bits == 0x2e66);
    CHECK(pad_value_v0<float16>(65520.0f).bits == 0x7c00);          // rounds to infinity
    CHECK(pad_value_v0<float16>(1.0f + 1.0f / 2048).bits == 0x3c00); // tie -> even
    CHECK(pad_value_v0<float16>(-0.0f).bits == 0x8000);
    CHECK(pad_value_v0<float16>(std::numeric_limits<float>::quiet_NaN()).bits == 0x7e00);
}

TEST_CASE("PADDING1 reads the union as DirectML 1.15.4 does: 8- and 16-bit types clamp its first 4 bytes",
          "[types][padding_value]") {
    // One element of padding before one input element: out[0] is the value, out[1] the input.
    // Checked through execute (the engine) and textbook::execute (its own copy of the rule).
    auto check = [](data_type type, std::array<std::uint8_t, 8> union_bytes, std::uint64_t expected) {
        INFO(to_string(type) << " union bytes " << fmt::format("{:#04x}", fmt::join(union_bytes, " ")));
        const std::size_t width = element_size(type);
        scalar_union value;
        value.bytes = union_bytes;
        const padding1_desc d{make_buffer_tensor_desc(type, {1}), make_buffer_tensor_desc(type, {2}),
                              padding_mode::constant, type, value, {1}, {0}};
        std::vector<std::byte> in(d.input_tensor.total_tensor_size_in_bytes, std::byte{0x5a});
        for (auto* engine : {+[](const padding1_desc& x, std::span<const std::byte> i, std::span<std::byte> o) { execute(x, i, o); },
                             +[](const padding1_desc& x, std::span<const std::byte> i, std::span<std::byte> o) {
                                 textbook::execute(x, i, o);
                             }}) {
            std::vector<std::byte> out(d.output_tensor.total_tensor_size_in_bytes, std::byte{0xcc});
            engine(d, in, out);
            std::uint64_t element = 0;
            std::memcpy(&element, out.data(), width); // little-endian
            CHECK(element == expected);
            for (std::size_t b = 0; b < width; ++b) CHECK(out[width + b] == std::byte{0x5a});
        }
        std::uint64_t planned = 0;
        const auto bytes = detail::padding1_value(type, value);
        std::memcpy(&planned, bytes.data(), width);
        CHECK(planned == expected);
    };
    using b8 = std::array<std::uint8_t, 8>;
    for (data_type t : {data_type::int8, data_type::uint8}) {
        check(t, b8{0xfe}, 0xfe);                                // bytes past the member zero: the member
        check(t, b8{0x80}, 0x80);
        check(t, b8{0xff}, 0xff);
        check(t, b8{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0xff); // Int64 -2: all ones, not 0xfe
        check(t, b8{0x1f, 0x01}, 0xff);                          // byte 1 nonzero: too large
        check(t, b8{0x05, 0x00, 0x01}, 0xff);                    // byte 2
        check(t, b8{0x05, 0x00, 0x00, 0x80}, 0xff);              // byte 3
        check(t, b8{0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff}, 0x05); // bytes 4..7 ignored
        check(t, b8{0x00, 0x00, 0x00, 0x00, 0x01}, 0x00);
    }
    for (data_type t : {data_type::int16, data_type::uint16, data_type::float16}) {
        check(t, b8{0x01, 0x7d}, 0x7d01);                        // FLOAT16: a signalling NaN's bits, kept
        check(t, b8{0xfd, 0xff}, 0xfffd);                        // Int16 -3
        check(t, b8{0xff, 0xff}, 0xffff);
        check(t, b8{0x1f, 0x01}, 0x011f);
        check(t, b8{0xfd, 0xff, 0xff, 0xff}, 0xffff);            // Int32 -3: all ones, not 0xfffd
        check(t, b8{0x34, 0x12, 0x01}, 0xffff);                  // byte 2 nonzero
        check(t, b8{0x34, 0x12, 0x00, 0x01}, 0xffff);            // byte 3
        check(t, b8{0x34, 0x12, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff}, 0x1234); // bytes 4..7 ignored
    }
    // FLOAT16 1.0 (0x3c00) with byte 2 set: 0x13c00 does not fit, so all ones (a NaN), not 1.0.
    check(data_type::float16, b8{0x00, 0x3c, 0x01}, 0xffff);
    check(data_type::float16, b8{0x00, 0x3c}, 0x3c00);
    for (data_type t : {data_type::int32, data_type::uint32, data_type::float32}) {
        check(t, b8{0x78, 0x56, 0x34, 0x12}, 0x1234'5678);      // the first 4 bytes as they are
        check(t, b8{0x78, 0x56, 0x34, 0x12, 0xff, 0xff, 0xff, 0xff}, 0x1234'5678); // bytes 4..7 ignored
        check(t, b8{0xff, 0xff, 0xff, 0xff, 0x01}, 0xffff'ffff);
    }
    check(data_type::float32, b8{0x01, 0x00, 0xa0, 0x7f}, 0x7fa0'0001); // a signalling NaN, kept
    for (data_type t : {data_type::int64, data_type::uint64, data_type::float64}) {
        check(t, b8{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88}, 0x8807'0605'0403'0201ull);
        check(t, b8{0xef, 0xbe, 0xad, 0xde, 0x00, 0x00, 0xf0, 0xff}, 0xfff0'0000'dead'beefull); // a FLOAT64 NaN
        check(t, b8{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0xffff'ffff'ffff'fffeull);
    }
    CHECK(scalar_union::of(std::int16_t{-3}).as<std::int16_t>() == -3);
    CHECK(scalar_union::of(1.5f).as<float>() == 1.5f);
    CHECK(scalar_union::of(float16::from_double(2.0)).as<std::uint16_t>() == 0x4000);
}

#if defined(__FLT16_MAX__)
TEST_CASE("double -> binary16 agrees with the compiler's _Float16 on 2 million values", "[types][float16]") {
    // An independent derivation: the compiler's own correctly rounded conversion.
    std::mt19937_64 rng(0xf1'0a7'16);
    int mismatches = 0;
    auto compare = [&](double x) {
        if (std::isnan(x)) return;
        const auto expected = std::bit_cast<std::uint16_t>(static_cast<_Float16>(x));
        if (half_bits_from_double(x) != expected && ++mismatches <= 5)
            FAIL_CHECK("value " << x << " (bits " << std::bit_cast<std::uint64_t>(x) << ")");
    };
    for (int i = 0; i < 1'000'000; ++i) {
        // Doubles near the half range (exponents -30 to +17) with random mantissas, both signs...
        const std::uint64_t exponent = 1023 - 30 + rng() % 48;
        compare(std::bit_cast<double>((rng() & 0x800f'ffff'ffff'ffffull) | (exponent << 52)));
        // ... and floats of any bit pattern, as PADDING's value arrives.
        compare(static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(rng()))));
    }
    CHECK(mismatches == 0);
}
#endif
