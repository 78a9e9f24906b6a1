// One test per validation rule of the desc layer (operator.hpp) and of the typed view functions
// (ops/*.hpp): the exception type, the key words of the message (operator, field, axis, values),
// validate() returning the same message, and an output buffer left untouched.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace dmlref;
using Catch::Contains;

namespace {

constexpr std::byte sentinel{0xcd};

std::uint64_t bytes_needed(const buffer_tensor_desc& t) {
    // Buffers for descs that claim absurd sizes are capped: validation fails before buffers matter.
    return std::min<std::uint64_t>(t.total_tensor_size_in_bytes, 4096);
}

/// Asserts that `desc` is rejected at `level` with a message holding every word in `words`, the
/// same message from validate(), check() and execute(), as a validation_error that is also an
/// std::invalid_argument, and that execute() wrote nothing.
void expect_rejected(const operator_desc& desc, std::initializer_list<std::string> words,
                     feature_level level = newest_feature_level) {
    const std::optional<std::string> message = validate(desc, level);
    REQUIRE(message.has_value());
    INFO("message: " << *message);
    for (const std::string& word : words) CHECK_THAT(*message, Contains(word));

    const auto& in = inputs_of(desc).front().desc();
    const auto& out = outputs_of(desc).front().desc();
    const std::vector<std::byte> input(bytes_needed(in), std::byte{1});
    std::vector<std::byte> output(bytes_needed(out), sentinel);
    CHECK(validate(desc, input, output, level) == message);
    CHECK_THROWS_MATCHES(check(desc, level), validation_error, Catch::Message(*message));
    CHECK_THROWS_MATCHES(execute(desc, input, output, level), validation_error, Catch::Message(*message));
    CHECK_THROWS_AS(execute(desc, input, output, level), std::invalid_argument);
    CHECK(std::all_of(output.begin(), output.end(), [](std::byte b) { return b == sentinel; }));
}

void expect_valid(const operator_desc& desc, feature_level level = newest_feature_level) {
    const auto message = validate(desc, level);
    INFO("message: " << message.value_or("none"));
    CHECK_FALSE(message.has_value());
}

buffer_tensor_desc packed(data_type type, std::vector<std::uint32_t> sizes) {
    return make_buffer_tensor_desc(type, std::move(sizes));
}
buffer_tensor_desc strided(data_type type, std::vector<std::uint32_t> sizes, std::vector<std::uint32_t> strides) {
    return make_buffer_tensor_desc(type, std::move(sizes), std::move(strides));
}

// Valid descs, each rule below breaks one field.
depth_to_space1_desc d2s1(data_type type = data_type::uint32) {
    return {packed(type, {1, 8, 2, 3}), packed(type, {1, 2, 4, 6}), 2, depth_space_order::column_row_depth};
}
space_to_depth1_desc s2d1(data_type type = data_type::uint32) {
    return {packed(type, {1, 2, 4, 6}), packed(type, {1, 8, 2, 3}), 2, depth_space_order::depth_column_row};
}
slice1_desc slice1(data_type type = data_type::float32) {
    return {packed(type, {1, 1, 4, 4}), packed(type, {1, 1, 2, 2}), {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}};
}
slice_desc slice0(data_type type = data_type::float32) {
    return {packed(type, {1, 1, 4, 4}), packed(type, {1, 1, 3, 2}), {0, 0, 1, 2}, {1, 1, 3, 2}, {1, 1, 1, 1}};
}
padding1_desc padding1(data_type type = data_type::float32, padding_mode mode = padding_mode::reflection) {
    return {packed(type, {1, 1, 4, 4}), packed(type, {1, 1, 8, 10}), mode, type, scalar_union::of(9.0f),
            {0, 0, 1, 2},               {0, 0, 3, 4}};
}
padding_desc padding0(data_type type = data_type::float32, padding_mode mode = padding_mode::reflection) {
    return {packed(type, {1, 1, 4, 4}), packed(type, {1, 1, 8, 10}), mode, 9.0f, {0, 0, 1, 2}, {0, 0, 3, 4}};
}

} // namespace

TEST_CASE("validation_error is an std::invalid_argument", "[validation]") {
    STATIC_REQUIRE(std::is_base_of_v<std::invalid_argument, validation_error>);
}

TEST_CASE("the base descs of this file are valid", "[validation]") {
    expect_valid(d2s1());
    expect_valid(s2d1());
    expect_valid(slice1());
    expect_valid(slice0());
    expect_valid(padding1());
    expect_valid(padding0());
}

// ---- operator and feature level -------------------------------------------------------------

TEST_CASE("an operator is rejected below the feature level that introduced it", "[validation]") {
    expect_rejected(padding1(), {"PADDING1: not available at feature level 4_1", "introduced in feature level 5_0"},
                    feature_level::fl_4_1);
    expect_rejected(slice1(), {"SLICE1: not available at feature level 2_0", "introduced in feature level 2_1"},
                    feature_level::fl_2_0);
    expect_rejected(d2s1(), {"DEPTH_TO_SPACE1: not available at feature level 1_0"}, feature_level::fl_1_0);
    expect_rejected(s2d1(), {"SPACE_TO_DEPTH1: not available at feature level 2_0"}, feature_level::fl_2_0);
    expect_valid(padding1(), feature_level::fl_5_0);
    expect_valid(slice1(), feature_level::fl_2_1);
    expect_valid(slice0(), feature_level::fl_1_0);
}

// ---- tensor desc rules ------------------------------------------------------------------------

TEST_CASE("DataType UNKNOWN or outside the enum is rejected", "[validation]") {
    auto d = slice1();
    d.input_tensor.data_type = data_type::unknown;
    expect_rejected(d, {"SLICE1", "InputTensor.DataType is 0", "other than UNKNOWN"});
    d = slice1();
    d.output_tensor.data_type = static_cast<data_type>(14);
    expect_rejected(d, {"SLICE1", "OutputTensor.DataType is 14"});
}

TEST_CASE("4-bit types are rejected by every operator", "[validation]") {
    for (data_type type : {data_type::uint4, data_type::int4}) {
        auto d = slice1();
        d.input_tensor.data_type = d.output_tensor.data_type = type;
        expect_rejected(d, {"SLICE1: InputTensor.DataType " + std::string(to_string(type)),
                            "is not supported at feature level 6_4"});
        auto p = padding1();
        p.input_tensor.data_type = p.output_tensor.data_type = p.padding_value_data_type = type;
        expect_rejected(p, {"PADDING1: InputTensor.DataType " + std::string(to_string(type))});
    }
}

TEST_CASE("data types follow each operator's table per feature level", "[validation]") {
    expect_rejected(slice0(data_type::uint8),
                    {"SLICE: InputTensor.DataType UINT8 is not supported at feature level 1_0",
                     "(supported: FLOAT32, FLOAT16, UINT32, UINT16, INT32, INT16)"},
                    feature_level::fl_1_0);
    expect_valid(slice0(data_type::uint8), feature_level::fl_2_1);
    expect_rejected(slice1(data_type::int64), {"SLICE1: InputTensor.DataType INT64", "feature level 4_0"},
                    feature_level::fl_4_0);
    expect_valid(slice1(data_type::int64), feature_level::fl_4_1);
    expect_rejected(d2s1(data_type::float64), {"DEPTH_TO_SPACE1: InputTensor.DataType FLOAT64", "4_1"},
                    feature_level::fl_4_1);
    expect_valid(d2s1(data_type::float64), feature_level::fl_5_0);
    expect_rejected(depth_to_space_desc{packed(data_type::int8, {1, 4, 1, 1}), packed(data_type::int8, {1, 1, 2, 2}), 2},
                    {"DEPTH_TO_SPACE: InputTensor.DataType INT8", "feature level 2_0", "(supported: FLOAT32, FLOAT16)"},
                    feature_level::fl_2_0);
    expect_rejected(padding0(data_type::uint64), {"PADDING: InputTensor.DataType UINT64", "4_1"},
                    feature_level::fl_4_1);
    expect_rejected(padding0(data_type::int16), {"PADDING: InputTensor.DataType INT16", "1_0"}, feature_level::fl_1_0);
    expect_valid(padding0(data_type::int16), feature_level::fl_2_1);
}

TEST_CASE("Flags other than OWNED_BY_DML are rejected", "[validation]") {
    auto d = slice1();
    d.input_tensor.flags = static_cast<tensor_flags>(0x2);
    expect_rejected(d, {"SLICE1: InputTensor.Flags is 0x2", "the only flag is OWNED_BY_DML"});
}

TEST_CASE("OWNED_BY_DML is allowed on inputs only", "[validation]") {
    auto d = padding1();
    d.input_tensor.flags = tensor_flags::owned_by_dml;
    expect_valid(d);
    d.output_tensor.flags = tensor_flags::owned_by_dml;
    expect_rejected(d, {"PADDING1: OutputTensor.Flags is OWNED_BY_DML", "only input tensors"});
}

TEST_CASE("dimension counts follow each operator and feature level", "[validation]") {
    const auto t5 = [](std::vector<std::uint32_t> s) { return packed(data_type::float32, std::move(s)); };
    expect_rejected(depth_to_space1_desc{t5({1, 8, 2, 3, 1}), t5({1, 2, 4, 6, 1}), 2},
                    {"DEPTH_TO_SPACE1: InputTensor has 5 dimensions (DimensionCount)", "takes 4 at feature level 6_4"});
    expect_rejected(space_to_depth_desc{t5({8}), t5({8}), 1}, {"SPACE_TO_DEPTH: InputTensor has 1 dimensions"});
    auto s = slice1_desc{t5({4, 4, 4}), t5({4, 4, 4}), {0, 0, 0}, {4, 4, 4}, {1, 1, 1}};
    expect_rejected(s, {"SLICE1: InputTensor has 3 dimensions", "takes 4 to 5 at feature level 2_1"}, feature_level::fl_2_1);
    expect_valid(s, feature_level::fl_3_0);
    auto p = padding_desc{t5({2, 2, 2}), t5({2, 2, 3}), padding_mode::edge, 0, {0, 0, 0}, {0, 0, 1}};
    expect_rejected(p, {"PADDING: InputTensor has 3 dimensions", "4 to 5 at feature level 3_0"}, feature_level::fl_3_0);
    expect_valid(p, feature_level::fl_3_1);
    const std::vector<std::uint32_t> nine(9, 1);
    expect_rejected(slice1_desc{t5(nine), t5(nine), nine, nine, std::vector<std::int32_t>(9, 1)},
                    {"SLICE1: InputTensor has 9 dimensions", "takes 1 to 8 at feature level 6_4"});
}

TEST_CASE("a size of zero is rejected", "[validation]") {
    auto d = slice1();
    d.input_tensor.sizes[2] = 0;
    expect_rejected(d, {"SLICE1: InputTensor.Sizes[2] is 0", "a size of zero is invalid"});
    auto p = padding0();
    p.output_tensor.sizes[1] = 0;
    expect_rejected(p, {"PADDING: OutputTensor.Sizes[1] is 0"});
}

TEST_CASE("Strides must have one entry per dimension", "[validation]") {
    auto d = slice1();
    d.input_tensor.strides = std::vector<std::uint32_t>{16, 16, 4};
    expect_rejected(d, {"SLICE1: InputTensor.Strides has 3 entries; InputTensor.Sizes has 4"});
}

TEST_CASE("more than 2^32 - 1 elements are rejected", "[validation]") {
    buffer_tensor_desc big{data_type::uint8, tensor_flags::none, {65536, 65536}, {}, 1ull << 33, 0};
    auto small = packed(data_type::uint8, {1, 1});
    expect_rejected(slice1_desc{big, small, {0, 0}, {1, 1}, {1, 1}},
                    {"SLICE1: InputTensor.Sizes {65536, 65536} hold 4294967296 elements", "at most 4294967295 (2^32 - 1)"});
    buffer_tensor_desc huge{data_type::uint8, tensor_flags::none, {65536, 65536, 65536, 65536, 65536}, {}, 1ull << 33, 0};
    expect_rejected(slice1_desc{huge, small, {0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}},
                    {"InputTensor.Sizes {65536, 65536, 65536, 65536, 65536} hold more than 2^64 elements"});
    // 2^32 - 1 elements are allowed: of one byte broadcast, in 65537 bytes (packed, they would
    // need 2^32 bytes, past the cap on TotalTensorSizeInBytes of (2^32 - 1) elements' worth).
    const buffer_tensor_desc largest = strided(data_type::uint8, {65535, 65537}, {0, 1});
    expect_valid(slice1_desc{largest, small, {0, 0}, {1, 1}, {1, 1}});
    CHECK(validate(slice1_desc{packed(data_type::uint8, {65535, 65537}), small, {0, 0}, {1, 1}, {1, 1}}) ==
          "SLICE1: InputTensor.TotalTensorSizeInBytes = 4294967296 is more than (2^32 - 1) elements of 1 bytes = "
          "4294967295; DirectML refuses larger buffer tensors");
    // Packed, of four or eight bytes: DMLCalcBufferTensorSize is (2^32 - 1) * 4 or * 8, the cap itself.
    for (const data_type type : {data_type::float32, data_type::uint32, data_type::int32, data_type::float64,
                                 data_type::uint64, data_type::int64}) {
        INFO(to_string(type));
        const auto t = packed(type, {65535, 65537});
        CHECK(t.total_tensor_size_in_bytes == 0xffff'ffffull * element_size(type));
        expect_valid(slice1_desc{t, packed(type, {1, 1}), {0, 0}, {1, 1}, {1, 1}});
    }
    // The most a packed tensor of two bytes holds: 2^32 - 2 = 2 * (2^31 - 1) elements; 2^32 - 1
    // of them round up to 2^33 bytes, past (2^32 - 1) * 2.
    const auto half = [](std::vector<std::uint32_t> sizes) {
        return slice1_desc{packed(data_type::float16, std::move(sizes)), packed(data_type::float16, {1, 1}), {0, 0},
                           {1, 1}, {1, 1}};
    };
    expect_valid(half({2, 0x7fff'ffffu}));
    CHECK(validate(half({65535, 65537})) ==
          "SLICE1: InputTensor.TotalTensorSizeInBytes = 8589934592 is more than (2^32 - 1) elements of 2 bytes = "
          "8589934590; DirectML refuses larger buffer tensors");
    // The most a packed tensor of one byte holds: 2^32 - 4 elements (DMLCalcBufferTensorSize
    // rounds up to 4); 2^32 - 3 round up to 2^32 bytes.
    expect_valid(slice1_desc{packed(data_type::uint8, {65534, 65538}), small, {0, 0}, {1, 1}, {1, 1}});
    CHECK(validate(slice1_desc{packed(data_type::uint8, {0xffff'fffdu, 1}), small, {0, 0}, {1, 1}, {1, 1}}) ==
          "SLICE1: InputTensor.TotalTensorSizeInBytes = 4294967296 is more than (2^32 - 1) elements of 1 bytes = "
          "4294967295; DirectML refuses larger buffer tensors");
}

TEST_CASE("TotalTensorSizeInBytes below DMLCalcBufferTensorSize is rejected", "[validation]") {
    auto d = slice1();
    d.input_tensor.total_tensor_size_in_bytes = 60;
    expect_rejected(d, {"SLICE1: InputTensor.TotalTensorSizeInBytes = 60", "less than DMLCalcBufferTensorSize = 64"});
    auto p = padding1(data_type::float16);
    p.output_tensor.total_tensor_size_in_bytes -= 4;
    expect_rejected(p, {"PADDING1: OutputTensor.TotalTensorSizeInBytes = 156", "DMLCalcBufferTensorSize = 160"});
    // Strided: the last element decides.
    auto s = slice1();
    s.input_tensor = strided(data_type::float32, {1, 1, 4, 4}, {100, 100, 20, 1});
    s.input_tensor.total_tensor_size_in_bytes = 252; // last element 3 * 20 + 3 = 63: 64 elements
    expect_rejected(s, {"InputTensor.TotalTensorSizeInBytes = 252", "DMLCalcBufferTensorSize = 256"});
}

TEST_CASE("GuaranteedBaseOffsetAlignment must be 0 or a power of two of at least 16, as DirectML 1.15.4 requires", "[validation]") {
    auto d = slice1();
    d.input_tensor.guaranteed_base_offset_alignment = 24;
    expect_rejected(d, {"SLICE1: InputTensor.GuaranteedBaseOffsetAlignment = 24", "power of two",
                        "no smaller than 16 (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)"});
    // The documentation's element-size rule would allow these; DirectML refuses them.
    for (std::uint32_t a : {1u, 2u, 4u, 8u}) {
        d.input_tensor.guaranteed_base_offset_alignment = a;
        expect_rejected(d, {fmt::format("InputTensor.GuaranteedBaseOffsetAlignment = {} must be", a)});
    }
    for (std::uint32_t a : {16u, 256u, 0x8000'0000u}) {
        d.input_tensor.guaranteed_base_offset_alignment = a;
        expect_valid(d);
    }
}

TEST_CASE("TotalTensorSizeInBytes is at most (2^32 - 1) elements' worth of bytes, as DirectML 1.15.4 measures",
          "[validation]") {
    // DirectML 1.15.4's boundaries, measured for each width: the last value accepted, the first refused.
    struct boundary {
        data_type type;
        std::uint64_t most;
        std::string refusal; // "<bytes> bytes = <most>"
    };
    for (const boundary& b : {boundary{data_type::uint8, 0xffff'ffffull, "1 bytes = 4294967295"},
                              boundary{data_type::float16, 0x1'ffff'fffeull, "2 bytes = 8589934590"},
                              boundary{data_type::float32, 0x3'ffff'fffcull, "4 bytes = 17179869180"},
                              boundary{data_type::float64, 0x7'ffff'fff8ull, "8 bytes = 34359738360"}}) {
        for (const bool out : {false, true}) {
            const std::string field = out ? "OutputTensor" : "InputTensor";
            INFO(to_string(b.type) << " " << field);
            auto d = slice1(b.type);
            auto& t = out ? d.output_tensor : d.input_tensor;
            t.total_tensor_size_in_bytes = b.most;
            expect_valid(d);
            for (const std::uint64_t past : {b.most + 1, b.most + 4, std::uint64_t{UINT64_MAX}}) {
                t.total_tensor_size_in_bytes = past;
                const std::string message = fmt::format("SLICE1: {}.TotalTensorSizeInBytes = {} is more than (2^32 - 1) "
                                                        "elements of {}; DirectML refuses larger buffer tensors",
                                                        field, past, b.refusal);
                CHECK(validate(d) == message);
                expect_rejected(d, {message});
            }
            // 2^32: past the cap of one byte, inside the others.
            t.total_tensor_size_in_bytes = 0x1'0000'0000ull;
            if (b.type == data_type::uint8) expect_rejected(d, {"TotalTensorSizeInBytes = 4294967296 is more than"});
            else expect_valid(d);
        }
    }
    // The cap is on the buffer, whatever the tensor needs: 4 FLOAT32 elements in 2^32 or 2^33 bytes.
    auto d = slice1();
    REQUIRE(element_count(d.output_tensor.sizes) == 4);
    for (const std::uint64_t total : {0x1'0000'0000ull, 0x2'0000'0000ull}) {
        d.output_tensor.total_tensor_size_in_bytes = total;
        expect_valid(d);
    }
    // A packed FLOAT32 tensor of 2^32 - 1 elements needs exactly the cap, 0x3fffffffc bytes.
    const auto most = packed(data_type::float32, {0xffff'ffffu});
    CHECK(most.total_tensor_size_in_bytes == 0x3'ffff'fffcull);
    expect_valid(slice1_desc{most, packed(data_type::float32, {1}), {0}, {1}, {1}});
    // 0xfffffffd UINT8 elements round up to 2^32 bytes: refused by the cap (and at 2^32 - 1 bytes,
    // by DMLCalcBufferTensorSize).
    auto bytes = slice1_desc{packed(data_type::uint8, {0xffff'fffdu}), packed(data_type::uint8, {1}), {0}, {1}, {1}};
    CHECK(bytes.input_tensor.total_tensor_size_in_bytes == 0x1'0000'0000ull);
    CHECK(validate(bytes) == "SLICE1: InputTensor.TotalTensorSizeInBytes = 4294967296 is more than (2^32 - 1) elements of "
                             "1 bytes = 4294967295; DirectML refuses larger buffer tensors");
    bytes.input_tensor.total_tensor_size_in_bytes = 0xffff'ffffu;
    CHECK(validate(bytes) ==
          "SLICE1: InputTensor.TotalTensorSizeInBytes = 4294967295 is less than DMLCalcBufferTensorSize = 4294967296");
    // The other operators check it too, on either tensor.
    auto p = padding1(data_type::int16);
    p.output_tensor.total_tensor_size_in_bytes = 0x1'ffff'ffffull;
    CHECK(validate(p) == "PADDING1: OutputTensor.TotalTensorSizeInBytes = 8589934591 is more than (2^32 - 1) elements of "
                         "2 bytes = 8589934590; DirectML refuses larger buffer tensors");
    auto s = s2d1(data_type::uint64);
    s.input_tensor.total_tensor_size_in_bytes = 0x7'ffff'fff8ull;
    expect_valid(s);
    s.input_tensor.total_tensor_size_in_bytes = 0x7'ffff'fff9ull;
    CHECK(validate(s) == "SPACE_TO_DEPTH1: InputTensor.TotalTensorSizeInBytes = 34359738361 is more than (2^32 - 1) "
                         "elements of 8 bytes = 34359738360; DirectML refuses larger buffer tensors");
}

TEST_CASE("an output must not broadcast or overlap itself, but an input may", "[validation]") {
    auto d = slice1();
    d.output_tensor = strided(data_type::float32, {1, 1, 2, 2}, {4, 4, 0, 1});
    expect_rejected(d, {"SLICE1: OutputTensor.Strides[2] is 0 with OutputTensor.Sizes[2] = 2",
                        "must not broadcast"});
    d.output_tensor = strided(data_type::float32, {1, 1, 2, 2}, {4, 4, 1, 1});
    expect_rejected(d, {"SLICE1: OutputTensor.Strides[3] = 1 overlaps the smaller strides of OutputTensor"});
    d.output_tensor = strided(data_type::float32, {1, 1, 2, 3}, {4, 4, 2, 1});
    d.input_window_sizes = {1, 1, 4, 3};
    d.input_window_strides = {1, 1, 2, 1};
    expect_rejected(d, {"OutputTensor.Strides[2] = 2 overlaps", "reach 2 elements"});
    // Zero strides over size-1 axes write one element each: fine. Inputs may broadcast and overlap.
    d = slice1();
    d.output_tensor = strided(data_type::float32, {1, 1, 2, 2}, {0, 0, 2, 1});
    expect_valid(d);
    d.input_tensor = strided(data_type::float32, {1, 1, 4, 4}, {0, 0, 0, 1});
    expect_valid(d);
    d.input_tensor = strided(data_type::float32, {1, 1, 4, 4}, {0, 0, 1, 1});
    expect_valid(d);
}

TEST_CASE("input and output data types must match", "[validation]") {
    auto d = slice1();
    d.output_tensor = packed(data_type::float16, {1, 1, 2, 2});
    expect_rejected(d, {"SLICE1: OutputTensor.DataType FLOAT16 differs from InputTensor.DataType FLOAT32"});
}

TEST_CASE("input and output ranks must match", "[validation]") {
    auto d = slice1();
    d.output_tensor = packed(data_type::float32, {1, 1, 1, 2, 2});
    expect_rejected(d, {"SLICE1: OutputTensor has 5 dimensions; InputTensor has 4"});
}

// ---- arrays -----------------------------------------------------------------------------------

TEST_CASE("op arrays must have DimensionCount entries", "[validation]") {
    auto s1 = slice1();
    s1.input_window_offsets.pop_back();
    expect_rejected(s1, {"SLICE1: InputWindowOffsets has 3 entries; DimensionCount", "is 4"});
    s1 = slice1();
    s1.input_window_sizes.push_back(1);
    expect_rejected(s1, {"SLICE1: InputWindowSizes has 5 entries"});
    s1 = slice1();
    s1.input_window_strides.clear();
    expect_rejected(s1, {"SLICE1: InputWindowStrides has 0 entries"});
    auto s0 = slice0();
    s0.offsets.pop_back();
    expect_rejected(s0, {"SLICE: Offsets has 3 entries"});
    s0 = slice0();
    s0.sizes.pop_back();
    expect_rejected(s0, {"SLICE: Sizes has 3 entries"});
    s0 = slice0();
    s0.strides.pop_back();
    expect_rejected(s0, {"SLICE: Strides has 3 entries"});
    auto p = padding1();
    p.start_padding.pop_back();
    expect_rejected(p, {"PADDING1: StartPadding has 3 entries"});
    auto p0 = padding0();
    p0.end_padding.push_back(0);
    expect_rejected(p0, {"PADDING: EndPadding has 5 entries"});
}

// ---- depth/space ------------------------------------------------------------------------------

TEST_CASE("BlockSize 0 is rejected", "[validation]") {
    auto d = d2s1();
    d.block_size = 0;
    expect_rejected(d, {"DEPTH_TO_SPACE1: BlockSize is 0; it must be at least 1"});
    auto s = space_to_depth_desc{s2d1().input_tensor, s2d1().output_tensor, 0};
    expect_rejected(s, {"SPACE_TO_DEPTH: BlockSize is 0"});
}

TEST_CASE("an Order outside the enum is rejected", "[validation]") {
    auto d = s2d1();
    d.order = static_cast<depth_space_order>(2);
    expect_rejected(d, {"SPACE_TO_DEPTH1: Order is 2", "DEPTH_COLUMN_ROW (0) or COLUMN_ROW_DEPTH (1)"});
}

TEST_CASE("DEPTH_TO_SPACE needs C % (B * B) == 0", "[validation]") {
    auto d = d2s1();
    d.block_size = 3;
    expect_rejected(d, {"DEPTH_TO_SPACE1: InputTensor.Sizes[1] = 8 is not a multiple of BlockSize * BlockSize = 3 * 3"});
    d.block_size = 0xffffffffu; // larger than C, and its square overflows 32 bits
    expect_rejected(d, {"InputTensor.Sizes[1] = 8 is not a multiple of BlockSize * BlockSize = 4294967295"});
}

TEST_CASE("SPACE_TO_DEPTH needs H and W divisible by B", "[validation]") {
    auto d = s2d1();
    d.block_size = 4;
    expect_rejected(d, {"SPACE_TO_DEPTH1: InputTensor.Sizes[3] = 6 is not a multiple of BlockSize = 4"});
    d.block_size = 3;
    expect_rejected(d, {"SPACE_TO_DEPTH1: InputTensor.Sizes[2] = 4 is not a multiple of BlockSize = 3"});
}

TEST_CASE("depth/space output sizes must be the formula's", "[validation]") {
    auto d = d2s1();
    d.output_tensor = packed(data_type::uint32, {1, 2, 4, 5});
    expect_rejected(d, {"DEPTH_TO_SPACE1: OutputTensor.Sizes[3] = 5 should be InputTensor.Sizes[3] * BlockSize = 6"});
    d.output_tensor = packed(data_type::uint32, {1, 2, 3, 8});
    expect_rejected(d, {"OutputTensor.Sizes[2] = 3 should be InputTensor.Sizes[2] * BlockSize = 4"});
    d.output_tensor = packed(data_type::uint32, {2, 1, 4, 6});
    expect_rejected(d, {"OutputTensor.Sizes[0] = 2 should be InputTensor.Sizes[0] = 1"});
    auto s = s2d1();
    s.output_tensor = packed(data_type::uint32, {1, 4, 2, 3});
    expect_rejected(s, {"SPACE_TO_DEPTH1: OutputTensor.Sizes[1] = 4 should be InputTensor.Sizes[1] * BlockSize * "
                        "BlockSize = 8"});
    auto v0 = depth_to_space_desc{d2s1().input_tensor, packed(data_type::uint32, {1, 1, 4, 6}), 2};
    expect_rejected(v0, {"DEPTH_TO_SPACE: OutputTensor.Sizes[1] = 1 should be InputTensor.Sizes[1] / (BlockSize * "
                         "BlockSize) = 2"});
}

// ---- SLICE1 -----------------------------------------------------------------------------------

TEST_CASE("SLICE1 strides may not be 0", "[validation]") {
    auto d = slice1();
    d.input_window_strides[3] = 0;
    expect_rejected(d, {"SLICE1: InputWindowStrides[3] is 0; strides may not be 0"});
}

TEST_CASE("SLICE1 windows must not be empty", "[validation]") {
    auto d = slice1();
    d.input_window_sizes[2] = 0;
    expect_rejected(d, {"SLICE1: InputWindowSizes[2] is 0; the input window must not be empty"});
}

TEST_CASE("SLICE1 windows must lie inside the input", "[validation]") {
    auto d = slice1();
    d.input_window_offsets[3] = 2;
    expect_rejected(d, {"SLICE1: InputWindowOffsets[3] + InputWindowSizes[3] = 2 + 3 = 5 exceeds InputTensor.Sizes[3] = 4"});
    d = slice1();
    d.input_window_offsets[2] = 0xffffffffu; // no 32-bit wrap-around
    expect_rejected(d, {"InputWindowOffsets[2] + InputWindowSizes[2] = 4294967295 + 4 = 4294967299 exceeds"});
}

TEST_CASE("SLICE1 outputs may not exceed what the window copies", "[validation]") {
    auto d = slice1();
    d.output_tensor = packed(data_type::float32, {1, 1, 3, 2});
    expect_rejected(d, {"SLICE1: OutputTensor.Sizes[2] = 3 exceeds the 2 element(s) the window copies",
                        "(1 + (InputWindowSizes[2] - 1) / |InputWindowStrides[2]| = 1 + (4 - 1) / 2)"});
    d = slice1();
    d.output_tensor = packed(data_type::float32, {1, 1, 1, 1}); // fewer is fine
    expect_valid(d);
}

// ---- SLICE (v0) -------------------------------------------------------------------------------

TEST_CASE("SLICE (v0) strides may not be 0", "[validation]") {
    auto d = slice0();
    d.strides[2] = 0;
    expect_rejected(d, {"SLICE: Strides[2] is 0", "rejects zero strides"});
}

TEST_CASE("SLICE (v0) Sizes must equal the output sizes", "[validation]") {
    auto d = slice0();
    d.sizes[2] = 2;
    expect_rejected(d, {"SLICE: Sizes[2] = 2 differs from OutputTensor.Sizes[2] = 3"});
}

TEST_CASE("SLICE (v0) may not read outside the input", "[validation]") {
    auto d = slice0();
    d.strides[2] = 2;
    d.offsets[2] = 1;
    expect_rejected(d, {"SLICE: Offsets[2] + (Sizes[2] - 1) * Strides[2] = 1 + (3 - 1) * 2 = 5 is outside "
                        "InputTensor.Sizes[2] = 4"});
    // The largest stride: the last read is counted in 64 bits, no 32-bit wrap-around.
    d = slice0();
    d.strides[3] = 0x7fff'ffffu;
    expect_rejected(d, {"SLICE: Offsets[3] + (Sizes[3] - 1) * Strides[3] = 2 + (2 - 1) * 2147483647 = 2147483649 is "
                        "outside InputTensor.Sizes[3] = 4"});
    d.offsets[3] = 0xffff'ffffu;
    expect_rejected(d, {"SLICE: Offsets[3] + (Sizes[3] - 1) * Strides[3] = 4294967295 + (2 - 1) * 2147483647 = "
                        "6442450942 is outside"});
}

TEST_CASE("SLICE (v0) Strides are at most 2^31 - 1, as DirectML 1.15.4 requires", "[validation]") {
    // 2^31 - 1 is accepted where the read stays inside: on the axes of one output element.
    auto d = slice0();
    d.strides[0] = d.strides[1] = 0x7fff'ffffu;
    expect_valid(d);
    // It reads what stride 1 reads.
    {
        std::vector<float> in(16), by_large(6), by_one(6);
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i + 1);
        execute(d, std::as_bytes(std::span(in)), std::as_writable_bytes(std::span(by_large)));
        execute(slice0(), std::as_bytes(std::span(in)), std::as_writable_bytes(std::span(by_one)));
        CHECK(by_large == by_one);
        CHECK(by_one == std::vector<float>{7, 8, 11, 12, 15, 16});
    }
    // 2^31 and above are refused, on any axis, whatever the window.
    for (std::uint32_t stride : {0x8000'0000u, 0x8000'0001u, 0xffff'fffeu, 0xffff'ffffu}) {
        for (std::size_t axis : {std::size_t{0}, std::size_t{1}}) {
            d = slice0();
            d.strides[axis] = stride;
            expect_rejected(d, {fmt::format("SLICE: Strides[{}] = {} is more than 2147483647 (2^31 - 1); DirectML "
                                            "refuses larger strides",
                                            axis, stride)});
        }
    }
    // The cap is checked before the last-read bound: a read outside the input with a stride of
    // 2^31 names the stride.
    d = slice0();
    d.strides[3] = 0x8000'0000u;
    const auto message = validate(d);
    REQUIRE(message);
    CHECK(*message == "SLICE: Strides[3] = 2147483648 is more than 2147483647 (2^31 - 1); DirectML refuses larger strides");
    CHECK_THAT(*message, !Contains("outside"));
    // SLICE1's signed strides are not capped so: -2^31 and 2^31 - 1 are accepted.
    for (std::int32_t stride : {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()}) {
        auto s = slice1();
        s.input_window_strides[0] = stride;
        expect_valid(s);
    }
}

// ---- PADDING / PADDING1 -----------------------------------------------------------------------

TEST_CASE("PADDING output sizes must be input + start + end", "[validation]") {
    auto d = padding1();
    d.output_tensor = packed(data_type::float32, {1, 1, 8, 9});
    expect_rejected(d, {"PADDING1: OutputTensor.Sizes[3] = 9 should be InputTensor.Sizes[3] + StartPadding[3] + "
                        "EndPadding[3] = 4 + 2 + 4 = 10"});
    auto p = padding0();
    p.end_padding[2] = 2;
    expect_rejected(p, {"PADDING: OutputTensor.Sizes[2] = 8 should be", "= 4 + 1 + 2 = 7"});
}

TEST_CASE("REFLECTION of a size-1 axis repeats its element, as DirectML does", "[validation]") {
    // DirectML 1.15.4 accepts REFLECTION of one element (period 0) and repeats it, as EDGE does
    // (DECISIONS 5). So do SYMMETRIC and WRAP, whose periods are 2 and 1 there.
    auto d = padding1();
    d.start_padding[1] = 1;
    d.output_tensor = packed(data_type::float32, {1, 2, 8, 10});
    expect_valid(d);
    expect_valid(padding_desc{d.input_tensor, d.output_tensor, padding_mode::reflection, 9.0f, d.start_padding,
                              d.end_padding});

    // A {1, 2} input padded on its size-1 axis by 1 before and 5 after: every output row is the
    // input row; the other axis (size 2) pads by 1 each side with its own fold.
    for (padding_mode mode : {padding_mode::reflection, padding_mode::edge, padding_mode::symmetric, padding_mode::wrap}) {
        INFO("mode " << to_string(mode));
        const padding1_desc p{packed(data_type::float32, {1, 2}), packed(data_type::float32, {7, 4}), mode,
                              data_type::float32, scalar_union::of(-7.0f), {1, 1}, {5, 1}};
        expect_valid(p);
        const std::vector<float> in{3.0f, 4.0f};
        std::vector<float> out(28, -1.0f);
        execute(p, std::as_bytes(std::span(in)), std::as_writable_bytes(std::span(out)));
        // Axis 1 (n = 2): REFLECTION 4 3 4 3, EDGE 3 3 4 4, SYMMETRIC 3 3 4 4, WRAP 4 3 4 3.
        const std::vector<float> row = mode == padding_mode::reflection || mode == padding_mode::wrap
                                           ? std::vector<float>{4, 3, 4, 3}
                                           : std::vector<float>{3, 3, 4, 4};
        for (std::ptrdiff_t r = 0; r < 7; ++r) {
            INFO("row " << r);
            CHECK(std::vector<float>(out.begin() + 4 * r, out.begin() + 4 * r + 4) == row);
        }
        // PADDING (v0) agrees.
        std::vector<float> out0(28, -1.0f);
        execute(padding_desc{p.input_tensor, p.output_tensor, mode, -7.0f, p.start_padding, p.end_padding},
                std::as_bytes(std::span(in)), std::as_writable_bytes(std::span(out0)));
        CHECK(out0 == out);
    }
    // Only CONSTANT writes its value there.
    const padding1_desc c{packed(data_type::float32, {1}), packed(data_type::float32, {4}), padding_mode::constant,
                          data_type::float32, scalar_union::of(-7.0f), {1}, {2}};
    const float one = 3.0f;
    std::vector<float> out(4);
    execute(c, std::as_bytes(std::span(&one, 1)), std::as_writable_bytes(std::span(out)));
    CHECK(out == std::vector<float>{-7, 3, -7, -7});

    // The typed view function too, with pads far larger than the axis.
    tensor<std::int16_t, 1> single({1}, {42});
    tensor<std::int16_t, 1> padded({1 + 9 + 17});
    pad<std::int16_t, 1>(single.view(), padded.view(), padding_mode::reflection, -1, {9}, {17});
    CHECK(std::all_of(padded.values().begin(), padded.values().end(), [](std::int16_t v) { return v == 42; }));
}

TEST_CASE("SYMMETRIC needs feature level 3_0", "[validation]") {
    expect_rejected(padding0(data_type::float32, padding_mode::symmetric),
                    {"PADDING: PaddingMode SYMMETRIC needs feature level 3_0; this is 2_1"}, feature_level::fl_2_1);
    expect_valid(padding0(data_type::float32, padding_mode::symmetric), feature_level::fl_3_0);
}

TEST_CASE("WRAP needs feature level 6_4", "[validation]") {
    expect_rejected(padding0(data_type::float32, padding_mode::wrap),
                    {"PADDING: PaddingMode WRAP needs feature level 6_4; this is 6_3"}, feature_level::fl_6_3);
    expect_rejected(padding1(data_type::float32, padding_mode::wrap), {"PADDING1: PaddingMode WRAP", "this is 5_0"},
                    feature_level::fl_5_0);
    expect_valid(padding1(data_type::float32, padding_mode::wrap), feature_level::fl_6_4);
}

TEST_CASE("a PaddingMode outside the enum is rejected", "[validation]") {
    expect_rejected(padding1(data_type::float32, static_cast<padding_mode>(5)),
                    {"PADDING1: PaddingMode is 5; it must be CONSTANT (0), EDGE (1), REFLECTION (2), SYMMETRIC (3) or "
                     "WRAP (4)"});
    expect_rejected(padding0(data_type::float32, static_cast<padding_mode>(0xffffffffu)),
                    {"PADDING: PaddingMode is 4294967295"});
}

TEST_CASE("PaddingValueDataType must equal the output's data type", "[validation]") {
    auto d = padding1();
    d.padding_value_data_type = data_type::float16;
    expect_rejected(d, {"PADDING1: PaddingValueDataType FLOAT16 differs from OutputTensor.DataType FLOAT32"});
    d.padding_value_data_type = data_type::unknown;
    expect_rejected(d, {"PaddingValueDataType UNKNOWN differs"});
}

// ---- buffers ----------------------------------------------------------------------------------

namespace {
void expect_buffer_rejected(const operator_desc& desc, std::span<const std::byte> input, std::span<std::byte> output,
                            std::initializer_list<std::string> words) {
    REQUIRE_FALSE(validate(desc).has_value());
    const auto message = validate(desc, input, output);
    REQUIRE(message.has_value());
    INFO("message: " << *message);
    for (const std::string& word : words) CHECK_THAT(*message, Contains(word));
    const std::vector<std::byte> before(output.begin(), output.end());
    CHECK_THROWS_MATCHES(execute(desc, input, output), validation_error, Catch::Message(*message));
    CHECK(std::equal(before.begin(), before.end(), output.begin(), output.end()));
}
} // namespace

TEST_CASE("a buffer smaller than TotalTensorSizeInBytes is rejected", "[validation]") {
    const auto d = slice1();
    std::vector<std::byte> in(64), out(16, sentinel);
    expect_buffer_rejected(d, std::span(in).first(60), out,
                           {"SLICE1: the buffer bound to InputTensor has 60 bytes; InputTensor.TotalTensorSizeInBytes is 64"});
    expect_buffer_rejected(d, in, std::span(out).first(12),
                           {"SLICE1: the buffer bound to OutputTensor has 12 bytes; OutputTensor.TotalTensorSizeInBytes "
                            "is 16"});
    auto big = d;
    big.output_tensor.total_tensor_size_in_bytes = 1000; // more than DMLCalcBufferTensorSize: the buffer must hold it
    expect_buffer_rejected(big, in, out, {"OutputTensor has 16 bytes; OutputTensor.TotalTensorSizeInBytes is 1000"});
}

TEST_CASE("a buffer off its GuaranteedBaseOffsetAlignment is rejected", "[validation]") {
    auto d = slice1();
    d.input_tensor.guaranteed_base_offset_alignment = 16;
    alignas(64) std::array<std::byte, 128> in{};
    std::vector<std::byte> out(16, sentinel);
    expect_buffer_rejected(d, std::span(in).subspan(4, 64), out,
                           {"SLICE1: the buffer bound to InputTensor starts at 0x",
                            "not a multiple of InputTensor.GuaranteedBaseOffsetAlignment = 16"});
    CHECK_FALSE(validate(d, std::span(in).subspan(16, 64), out).has_value());
}

TEST_CASE("overlapping input and output buffers are rejected (no in-place)", "[validation]") {
    const auto d = slice1();
    std::vector<std::byte> both(96, sentinel);
    expect_buffer_rejected(d, std::span(both).first(64), std::span(both).subspan(60, 16),
                           {"SLICE1: the input buffer [0x", "and the output buffer [0x", "overlap; dmlref does not run in place"});
    CHECK_FALSE(validate(d, std::span(both).first(64), std::span(both).subspan(64, 16)).has_value());
}

TEST_CASE("validation never overflows on extreme strides", "[validation]") {
    // The last element sits about 2^64 elements away: DMLCalcBufferTensorSize saturates, and a
    // TotalTensorSizeInBytes of 2^64 - 1 must not make that look like a fit.
    // The input is the largest packed one of one byte DirectML accepts (2^32 - 4 bytes).
    auto d = slice1_desc{packed(data_type::uint8, {1}), strided(data_type::uint8, {1}, {1}), {0}, {1}, {1}};
    d.output_tensor = {data_type::uint8, tensor_flags::none, {0xffffffffu}, std::vector<std::uint32_t>{0xffffffffu},
                       std::numeric_limits<std::uint64_t>::max(), 0};
    d.input_tensor = packed(data_type::uint8, {0xffff'fffcu});
    d.input_window_sizes = {0xffff'fffcu};
    CHECK(calc_buffer_tensor_size(d.output_tensor) == std::numeric_limits<std::uint64_t>::max());
    expect_rejected(d, {"SLICE1: OutputTensor.Strides {4294967295} with OutputTensor.Sizes {4294967295} reach 2^64",
                        "dmlref addresses at most 9223372036854775807"});
    // Strides inside 64 bits, 2^20 elements 2^32 - 1 apart (2^52 bytes): past DirectML's cap on
    // TotalTensorSizeInBytes, counted without wrapping.
    d.output_tensor = strided(data_type::uint8, {0x10'0000u}, {0xffffffffu});
    d.input_tensor = packed(data_type::uint8, {0x10'0000u});
    d.input_window_sizes = {0x10'0000u};
    const std::uint64_t span = 0xf'ffffull * 0xffff'ffffull + 1; // the last element's index + 1
    CHECK(calc_buffer_tensor_size(d.output_tensor) == (span + 3) / 4 * 4);
    expect_rejected(d, {fmt::format("SLICE1: OutputTensor.TotalTensorSizeInBytes = {} is more than (2^32 - 1) elements "
                                    "of 1 bytes = 4294967295",
                                    (span + 3) / 4 * 4)});
    // The largest stride that fits, 2^32 - 5 between two elements (the last at byte 2^32 - 5):
    // the buffers decide.
    d.output_tensor = strided(data_type::uint8, {2}, {0xffff'fffbu});
    d.input_tensor = packed(data_type::uint8, {0x10'0000u});
    d.input_window_sizes = {2};
    CHECK(d.output_tensor.total_tensor_size_in_bytes == 0xffff'fffcu);
    expect_valid(d);
    d.output_tensor = strided(data_type::uint8, {2}, {0xffff'fffcu});
    expect_rejected(d, {"SLICE1: OutputTensor.TotalTensorSizeInBytes = 4294967296 is more than (2^32 - 1) elements of 1 "
                        "bytes = 4294967295"});
    d.output_tensor = strided(data_type::uint8, {2}, {0xffff'fffbu});
    std::vector<std::byte> in(16), out(16, sentinel);
    expect_buffer_rejected(d, in, out, {"the buffer bound to InputTensor has 16 bytes"});
    expect_buffer_rejected(d, std::vector<std::byte>(0x10'0000u), out,
                           {"the buffer bound to OutputTensor has 16 bytes; OutputTensor.TotalTensorSizeInBytes is 4294967292"});
    // Of four bytes the cap is (2^32 - 1) * 4: the largest stride between two elements is 2^32 - 2
    // (the last element ends at byte (2^32 - 1) * 4); UINT32_MAX needs 2^34 bytes.
    auto f = slice1_desc{packed(data_type::float32, {2}), strided(data_type::float32, {2}, {0xffff'fffeu}), {0}, {2}, {1}};
    CHECK(f.output_tensor.total_tensor_size_in_bytes == 0x3'ffff'fffcull);
    expect_valid(f);
    f.output_tensor = strided(data_type::float32, {2}, {0xffff'ffffu});
    CHECK(f.output_tensor.total_tensor_size_in_bytes == 0x4'0000'0000ull);
    expect_rejected(f, {"SLICE1: OutputTensor.TotalTensorSizeInBytes = 17179869184 is more than (2^32 - 1) elements of 4 "
                        "bytes = 17179869180; DirectML refuses larger buffer tensors"});
}

// ---- typed view functions ---------------------------------------------------------------------

TEST_CASE("slice over views checks its parameters and the memory", "[validation][views]") {
    tensor<float, 2> in({2, 3}), out({2, 3});
    CHECK_THROWS_MATCHES((slice<float, 2>(in.view(), out.view(), {-1, 0}, {2, 3}, {1, 1})), validation_error,
                         Catch::Message("slice: InputWindowOffsets[0] is -1; offsets may not be negative"));
    CHECK_THROWS_WITH((slice<float, 2>(in.view(), out.view(), {0, 0}, {2, 3}, {1, 0})),
                      Contains("slice: InputWindowStrides[1] is 0"));
    CHECK_THROWS_WITH((slice<float, 2>(in.view(), out.view(), {0, 1}, {2, 3}, {1, 1})),
                      Contains("slice: InputWindowOffsets[1] + InputWindowSizes[1] = 1 + 3 = 4 exceeds InputTensor.Sizes[1] = 3"));
    CHECK_THROWS_WITH((slice<float, 2>(in.view(), out.view(), {0, 0}, {2, 3}, {2, 1})),
                      Contains("slice: OutputTensor.Sizes[0] = 2 exceeds the 1 element(s)"));
    CHECK_THROWS_WITH((slice<float, 2>(in.view(), out.view(), {0, 0}, {0, 3}, {1, 1})),
                      Contains("slice: InputWindowSizes[0] is 0"));
    strided_view<float, 2> broadcast(out.data(), {2, 3}, {0, 1});
    CHECK_THROWS_WITH((slice<float, 2>(in.view(), broadcast, {0, 0}, {2, 3}, {1, 1})),
                      Contains("slice: OutputTensor.Strides[0] is 0 with OutputTensor.Sizes[0] = 2"));
    strided_view<float, 2> empty(out.data(), {0, 3});
    CHECK_THROWS_WITH((slice<float, 2>(in.view(), empty, {0, 0}, {2, 3}, {1, 1})),
                      Contains("slice: OutputTensor.Sizes[0] is 0; every size must be at least 1"));
    // In place: the output view overlaps the input's memory.
    CHECK_THROWS_WITH((slice<float, 2>(in.view(), in.view(), {0, 0}, {2, 3}, {1, -1})),
                      Contains("slice: the input and output memory overlap"));
    CHECK_THROWS_AS((slice<float, 2>(in.view(), in.view(), {0, 0}, {2, 3}, {1, -1})), std::invalid_argument);
    // Two halves of one buffer, the output reversed: disjoint, so accepted.
    std::vector<float> both = {1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0};
    strided_view<const float, 2> first(both.data(), {2, 3});
    strided_view<float, 2> second_reversed(both.data(), {2, 3}, {-3, -1}, 11);
    CHECK_NOTHROW((slice<float, 2>(first, second_reversed, {0, 0}, {2, 3}, {1, 1})));
    CHECK(both == std::vector<float>{1, 2, 3, 4, 5, 6, 6, 5, 4, 3, 2, 1});
    // One element more and the reversed output reaches into the input.
    strided_view<float, 2> touching(both.data(), {2, 3}, {-3, -1}, 10);
    CHECK_THROWS_WITH((slice<float, 2>(first, touching, {0, 0}, {2, 3}, {1, 1})),
                      Contains("slice: the input and output memory overlap"));
}

TEST_CASE("slice_view checks its parameters", "[validation][views]") {
    tensor<std::int16_t, 3> in({2, 3, 4});
    CHECK_THROWS_WITH((slice_view<std::int16_t, 3>(in.view(), {0, 0, 2}, {2, 3, 3}, {1, 1, 1})),
                      Contains("slice_view: InputWindowOffsets[2] + InputWindowSizes[2] = 2 + 3 = 5 exceeds InputTensor.Sizes[2] = 4"));
    CHECK_THROWS_WITH((slice_view<std::int16_t, 3>(in.view(), {0, 0, 0}, {2, 3, 4}, {1, 0, 1})),
                      Contains("slice_view: InputWindowStrides[1] is 0"));
    CHECK_THROWS_WITH((slice_view<std::int16_t, 3>(in.view(), {0, 0, 0}, {2, 0, 4}, {1, 1, 1})),
                      Contains("slice_view: InputWindowSizes[1] is 0"));
    CHECK_THROWS_WITH((slice_view<std::int16_t, 3>(in.view(), {0, -2, 0}, {2, 1, 4}, {1, 1, 1})),
                      Contains("slice_view: InputWindowOffsets[1] is -2"));
}

TEST_CASE("depth_to_space and space_to_depth over views check shapes and parameters", "[validation][views]") {
    tensor<std::uint8_t, 4> depth({1, 8, 2, 3}), space({1, 2, 4, 6}), wrong({1, 2, 4, 7});
    CHECK_THROWS_WITH(depth_to_space<std::uint8_t>(depth.view(), space.view(), 0),
                      Contains("depth_to_space: BlockSize is 0"));
    CHECK_THROWS_WITH(depth_to_space<std::uint8_t>(depth.view(), space.view(), -2),
                      Contains("depth_to_space: BlockSize is -2"));
    CHECK_THROWS_WITH(depth_to_space<std::uint8_t>(depth.view(), space.view(), 3),
                      Contains("depth_to_space: InputTensor.Sizes[1] = 8 is not a multiple of BlockSize * BlockSize"));
    CHECK_THROWS_WITH(depth_to_space<std::uint8_t>(depth.view(), wrong.view(), 2),
                      Contains("depth_to_space: OutputTensor.Sizes[3] = 7 should be InputTensor.Sizes[3] * BlockSize = 6"));
    CHECK_THROWS_WITH(depth_to_space<std::uint8_t>(depth.view(), space.view(), 2, static_cast<depth_space_order>(9)),
                      Contains("depth_to_space: Order is 9"));
    CHECK_THROWS_WITH(space_to_depth<std::uint8_t>(space.view(), depth.view(), 4),
                      Contains("space_to_depth: InputTensor.Sizes[3] = 6 is not a multiple of BlockSize = 4"));
    CHECK_THROWS_WITH(space_to_depth<std::uint8_t>(space.view(), wrong.view(), 2),
                      Contains("space_to_depth: OutputTensor.Sizes[1] = 2 should be InputTensor.Sizes[1] * BlockSize * BlockSize = 8"));
    strided_view<std::uint8_t, 4> overlapping(space.data(), {1, 2, 4, 6}, {0, 1, 6, 1});
    CHECK_THROWS_WITH(depth_to_space<std::uint8_t>(depth.view(), overlapping, 2),
                      Contains("depth_to_space: OutputTensor.Strides[3] = 1 overlaps"));
}

TEST_CASE("pad over views checks pads, sizes and mode", "[validation][views]") {
    tensor<double, 2> in({2, 3}), out({4, 5});
    CHECK_THROWS_WITH((pad<double, 2>(in.view(), out.view(), padding_mode::edge, 0.0, {1, -2}, {1, 4})),
                      Contains("pad: StartPadding[1] is -2; pads may not be negative"));
    CHECK_THROWS_WITH((pad<double, 2>(in.view(), out.view(), padding_mode::edge, 0.0, {3, 1}, {-1, 1})),
                      Contains("pad: EndPadding[0] is -1; pads may not be negative"));
    CHECK_THROWS_WITH((pad<double, 2>(in.view(), out.view(), padding_mode::edge, 0.0, {1, 1}, {1, 2})),
                      Contains("pad: OutputTensor.Sizes[1] = 5 should be InputTensor.Sizes[1] + StartPadding[1] + EndPadding[1] = 3 + 1 + 2 = 6"));
    CHECK_THROWS_WITH((pad<double, 2>(in.view(), out.view(), static_cast<padding_mode>(8), 0.0, {1, 1}, {1, 1})),
                      Contains("pad: PaddingMode is 8"));
    // REFLECTION of a size-1 axis is accepted (DirectML repeats the element, DECISIONS 5), and
    // gives what EDGE gives.
    tensor<double, 2> row({1, 3}, {1.5, 2.5, 3.5}), padded_row({3, 3}), edge_row({3, 3});
    REQUIRE_NOTHROW((pad<double, 2>(row.view(), padded_row.view(), padding_mode::reflection, 0.0, {1, 0}, {1, 0})));
    CHECK(std::vector<double>(padded_row.values().begin(), padded_row.values().end()) ==
          std::vector<double>{1.5, 2.5, 3.5, 1.5, 2.5, 3.5, 1.5, 2.5, 3.5});
    CHECK_NOTHROW((pad<double, 2>(row.view(), edge_row.view(), padding_mode::edge, 0.0, {1, 0}, {1, 0})));
    CHECK(std::equal(padded_row.values().begin(), padded_row.values().end(), edge_row.values().begin()));
}

TEST_CASE("messages fill their fields as fmt::format does", "[validation]") {
    using detail::format_message;
    const std::string text = "InputTensor";
    // Every kind of argument the messages pass, at its extremes, in both fields they use.
    CHECK(format_message("{}: {}.Sizes[{}] = {}", {std::string_view("SLICE1"), text, std::size_t{2}, 0u}) ==
          fmt::format("{}: {}.Sizes[{}] = {}", "SLICE1", text, std::size_t{2}, 0u));
    for (const std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{9}, std::int64_t{-10},
                                 std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()})
        CHECK(format_message("[{}] [{:#x}]", {v, v}) == fmt::format("[{}] [{:#x}]", v, v));
    for (const std::uint64_t v : {std::uint64_t{0}, std::uint64_t{0x1f}, std::numeric_limits<std::uint64_t>::max()})
        CHECK(format_message("{:#x}, +{})", {v, v}) == fmt::format("{:#x}, +{})", v, v));
    CHECK(format_message("{}{}", {"", std::int32_t{-7}}) == "-7");
    CHECK(format_message("no fields", {}) == "no fields");
    // More fields than arguments (a bug fmt's compile-time check rules out): the rest is kept as written.
    CHECK(format_message("{} and {}", {1}) == "1 and {}");
}
