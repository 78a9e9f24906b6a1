// REVERSE_SUBSEQUENCES in the desc layer (operator.hpp): DirectML's documented examples and ONNX's
// node tests over three buffers, the rules per feature level with their messages (validation reads
// the lengths' layout, never their values), the buffer rules, lengths past the axis read as
// DirectML reads them, the textbook's source_of reading the lengths, compare's regions, DxDispatch model files,
// the consumers that refuse a second input by name, and the engine against the textbook on 2,000
// random descs (one thread and four), with guard bytes around every output buffer.
#include <catch2/catch.hpp>

#include <dmlref/compare.hpp>
#include <dmlref/directml/translate.hpp>
#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/parallel.hpp>
#include <dmlref/textbook.hpp>

#include "desc_test_support.hpp"
#include "model.hpp"
#ifdef DMLREF_HAVE_ONNX
#include "onnx_node_test.hpp"
#endif

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

using namespace dmlref;
using namespace dmlref::test_support;
using Catch::Matchers::Contains;

namespace {


/// Runs `d` on the engine over the input and lengths bytes into a FLOAT32 output; returns it.
std::vector<float> run(const reverse_subsequences_desc& d, const std::vector<std::byte>& input,
                       const std::vector<std::byte>& lengths, feature_level level = newest_feature_level) {
    std::vector<std::byte> out(static_cast<std::size_t>(d.output_tensor.total_tensor_size_in_bytes));
    const std::span<const std::byte> ins[] = {input, lengths};
    const std::span<std::byte> outs[] = {out};
    execute(d, ins, outs, level);
    return values_of<float>(out);
}

} // namespace

TEST_CASE("REVERSE_SUBSEQUENCES desc: DirectML's example 1 (Axis 3) over three buffers", "[reverse_subsequences][desc]") {
    const reverse_subsequences_desc d{f32({1, 1, 3, 4}), u32({1, 1, 3, 1}), f32({1, 1, 3, 4}), 3};
    CHECK(run(d, bytes_of(iota_from(1, 12)), bytes_of(std::vector<std::uint32_t>{2, 4, 3}), feature_level::fl_2_1) ==
          std::vector<float>{2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12});
    CHECK(type_of(d) == operator_type::reverse_subsequences);
    CHECK(static_cast<std::uint32_t>(operator_type::reverse_subsequences) == 106);
    CHECK(introduced_in(operator_type::reverse_subsequences) == feature_level::fl_2_1);
    CHECK(parse_operator_type("DML_OPERATOR_REVERSE_SUBSEQUENCES") == operator_type::reverse_subsequences);
    const auto ins = inputs_of(d), outs = outputs_of(d);
    REQUIRE(ins.size() == 2);
    CHECK(ins[0].field == "InputTensor");
    CHECK(ins[1].field == "SequenceLengthsTensor");
    CHECK(&ins[1].desc() == &d.sequence_lengths_tensor);
    CHECK(outs.size() == 1);
    CHECK(outs[0].field == "OutputTensor");
    CHECK(to_string(operator_desc(d)) ==
          "REVERSE_SUBSEQUENCES {InputTensor: {DataType: FLOAT32, Sizes: {1, 1, 3, 4}, TotalTensorSizeInBytes: 48}, "
          "SequenceLengthsTensor: {DataType: UINT32, Sizes: {1, 1, 3, 1}, TotalTensorSizeInBytes: 12}, OutputTensor: "
          "{DataType: FLOAT32, Sizes: {1, 1, 3, 4}, TotalTensorSizeInBytes: 48}, Axis: 3}");
}

TEST_CASE("REVERSE_SUBSEQUENCES desc: DirectML's example 2 (Axis 2, lengths 2, 3, 1, 0)", "[reverse_subsequences][desc]") {
    const reverse_subsequences_desc d{f32({1, 1, 3, 4}), u32({1, 1, 1, 4}), f32({1, 1, 3, 4}), 2};
    CHECK(run(d, bytes_of(iota_from(1, 12)), bytes_of(std::vector<std::uint32_t>{2, 3, 1, 0}), feature_level::fl_2_1) ==
          std::vector<float>{5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12});
}

TEST_CASE("REVERSE_SUBSEQUENCES desc: ONNX's two ReverseSequence node tests, UINT64 lengths at 5_0",
          "[reverse_subsequences][desc][onnx]") {
    SECTION("test_reversesequence_time: Axis 0, the lengths along axis 1") {
        const reverse_subsequences_desc d{f32({4, 4}), u64({1, 4}), f32({4, 4}), 0};
        const std::vector<float> x{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
        CHECK(run(d, bytes_of(x), bytes_of(std::vector<std::uint64_t>{4, 3, 2, 1}), feature_level::fl_5_0) ==
              std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15});
    }
    SECTION("test_reversesequence_batch: Axis 1, the lengths along axis 0") {
        const reverse_subsequences_desc d{f32({4, 4}), u64({4, 1}), f32({4, 4}), 1};
        CHECK(run(d, bytes_of(iota_from(0, 16)), bytes_of(std::vector<std::uint64_t>{1, 2, 3, 4}), feature_level::fl_5_0) ==
              std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12});
    }
}

TEST_CASE("REVERSE_SUBSEQUENCES desc: lengths 0, 1, the axis size and past it (as DirectML reads them), never refused",
          "[reverse_subsequences][desc]") {
    const auto in = bytes_of(iota_from(0, 5));
    const reverse_subsequences_desc d32{f32({5}), u32({1}), f32({5}), 0};
    const auto one32 = [&](std::uint32_t length) {
        CHECK(message(d32) == "(accepted)");
        return run(d32, in, bytes_of(std::vector<std::uint32_t>{length}));
    };
    CHECK(one32(0) == std::vector<float>{0, 1, 2, 3, 4});
    CHECK(one32(1) == std::vector<float>{0, 1, 2, 3, 4});
    CHECK(one32(3) == std::vector<float>{2, 1, 0, 3, 4});
    CHECK(one32(5) == std::vector<float>{4, 3, 2, 1, 0});
    // Past the axis DirectML holds the read coordinate at the last element: min(length - 1 - i, 4).
    CHECK(one32(6) == std::vector<float>{4, 4, 3, 2, 1});
    CHECK(one32(7) == std::vector<float>{4, 4, 4, 3, 2});
    CHECK(one32(9) == std::vector<float>{4, 4, 4, 4, 4});
    CHECK(one32(std::numeric_limits<std::uint32_t>::max()) == std::vector<float>{4, 4, 4, 4, 4});
    const reverse_subsequences_desc d64{f32({5}), u64({1}), f32({5}), 0};
    for (const std::uint64_t length : {std::uint64_t{1} << 32, std::uint64_t{1} << 63, std::numeric_limits<std::uint64_t>::max()})
        CHECK(run(d64, in, bytes_of(std::vector<std::uint64_t>{length})) == std::vector<float>{4, 4, 4, 4, 4});
    // 2^32 + 2: read as a 64-bit value, not as its low half (2).
    CHECK(run(d64, in, bytes_of(std::vector<std::uint64_t>{(std::uint64_t{1} << 32) + 2})) == std::vector<float>{4, 4, 4, 4, 4});
    // DirectML 1.15.4's own answer (docs/directml.md): rows of 2 along Axis 1, lengths 3 and 2.
    const reverse_subsequences_desc rows{f32({2, 2}), u32({2, 1}), f32({2, 2}), 1};
    CHECK(run(rows, bytes_of(iota_from(1, 4)), bytes_of(std::vector<std::uint32_t>{3, 2})) == std::vector<float>{2, 2, 4, 3});
}

TEST_CASE("REVERSE_SUBSEQUENCES desc: the rules per feature level, with their messages",
          "[reverse_subsequences][desc][validation]") {
    const reverse_subsequences_desc d4{f32({2, 3, 1, 4}), u32({2, 3, 1, 1}), f32({2, 3, 1, 4}), 3};
    CHECK(message(d4, feature_level::fl_2_0) ==
          "REVERSE_SUBSEQUENCES: not available at feature level 2_0; it was introduced in feature level 2_1");
    CHECK(message(d4, feature_level::fl_2_1) == "(accepted)");
    // Dimension counts: 4 at 2_1, 4 to 5 at 3_0, 1 to 8 from 4_0.
    const reverse_subsequences_desc d3{f32({2, 3, 4}), u32({2, 3, 1}), f32({2, 3, 4}), 2};
    CHECK(message(d3, feature_level::fl_2_1) ==
          "REVERSE_SUBSEQUENCES: InputTensor has 3 dimensions (DimensionCount); REVERSE_SUBSEQUENCES takes 4 at feature "
          "level 2_1");
    CHECK(message(d3, feature_level::fl_3_1) ==
          "REVERSE_SUBSEQUENCES: InputTensor has 3 dimensions (DimensionCount); REVERSE_SUBSEQUENCES takes 4 to 5 at "
          "feature level 3_1");
    CHECK(message(d3, feature_level::fl_4_0) == "(accepted)");
    const reverse_subsequences_desc d5{f32({1, 2, 3, 1, 4}), u32({1, 2, 3, 1, 1}), f32({1, 2, 3, 1, 4}), 4};
    CHECK_THAT(message(d5, feature_level::fl_2_1), Contains("InputTensor has 5 dimensions"));
    CHECK(message(d5, feature_level::fl_3_0) == "(accepted)");
    const reverse_subsequences_desc d8{f32({1, 1, 1, 1, 1, 1, 2, 3}), u32({1, 1, 1, 1, 1, 1, 1, 3}), f32({1, 1, 1, 1, 1, 1, 2, 3}), 6};
    CHECK(message(d8, feature_level::fl_4_0) == "(accepted)");
    // Data types: the eight of 2_1 (8-bit ones included), the 64-bit ones from 5_0.
    const auto typed = [](data_type t) {
        return reverse_subsequences_desc{make_buffer_tensor_desc(t, {1, 1, 2, 3}), u32({1, 1, 1, 3}),
                                         make_buffer_tensor_desc(t, {1, 1, 2, 3}), 2};
    };
    CHECK(message(typed(data_type::int8), feature_level::fl_2_1) == "(accepted)");
    CHECK(message(typed(data_type::uint16), feature_level::fl_2_1) == "(accepted)");
    CHECK(message(typed(data_type::float64), feature_level::fl_4_1) ==
          "REVERSE_SUBSEQUENCES: InputTensor.DataType FLOAT64 is not supported at feature level 4_1 (supported: FLOAT32, "
          "FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8)");
    CHECK(message(typed(data_type::float64), feature_level::fl_5_0) == "(accepted)");
    CHECK(message(typed(data_type::int64), feature_level::fl_5_0) == "(accepted)");
    // The lengths: UINT32, and UINT64 from 5_0; no other type.
    auto lengths64 = d4;
    lengths64.sequence_lengths_tensor = u64({2, 3, 1, 1});
    CHECK(message(lengths64, feature_level::fl_4_1) ==
          "REVERSE_SUBSEQUENCES: SequenceLengthsTensor.DataType UINT64 is not supported at feature level 4_1 (supported: "
          "UINT32)");
    CHECK(message(lengths64, feature_level::fl_5_0) == "(accepted)");
    auto lengths_i32 = d4;
    lengths_i32.sequence_lengths_tensor = make_buffer_tensor_desc(data_type::int32, {2, 3, 1, 1});
    CHECK(message(lengths_i32) ==
          "REVERSE_SUBSEQUENCES: SequenceLengthsTensor.DataType INT32 is not supported at feature level 6_4 (supported: "
          "UINT32, UINT64)");
    auto lengths_f32 = d4;
    lengths_f32.sequence_lengths_tensor = f32({2, 3, 1, 1});
    CHECK_THAT(message(lengths_f32), Contains("SequenceLengthsTensor.DataType FLOAT32 is not supported"));
    auto unknown = d4;
    unknown.sequence_lengths_tensor.data_type = data_type::unknown;
    CHECK(message(unknown) ==
          "REVERSE_SUBSEQUENCES: SequenceLengthsTensor.DataType is 0; it must be a DML_TENSOR_DATA_TYPE other than UNKNOWN "
          "(1 to 13)");
    // Axis, the lengths' sizes and dimension count, the output's sizes and type.
    auto axis = d4;
    axis.axis = 4;
    CHECK(message(axis) == "REVERSE_SUBSEQUENCES: Axis = 4 is outside [0, 3] (InputTensor has 4 dimensions)");
    auto on_axis = d4;
    on_axis.sequence_lengths_tensor = u32({2, 3, 1, 4});
    CHECK(message(on_axis) == "REVERSE_SUBSEQUENCES: SequenceLengthsTensor.Sizes[3] = 4; on Axis (3) it must be 1");
    auto off_axis = d4;
    off_axis.sequence_lengths_tensor = u32({2, 2, 1, 1});
    CHECK(message(off_axis) ==
          "REVERSE_SUBSEQUENCES: SequenceLengthsTensor.Sizes[1] = 2 differs from InputTensor.Sizes[1] = 3; only Axis (3) "
          "may differ (it is 1)");
    const reverse_subsequences_desc rank3{f32({2, 3, 4}), u32({2, 3, 1, 1}), f32({2, 3, 4}), 2};
    CHECK(message(rank3) ==
          "REVERSE_SUBSEQUENCES: SequenceLengthsTensor has 4 dimensions; InputTensor has 3; they must match");
    auto out_sizes = d4;
    out_sizes.output_tensor = f32({2, 2, 1, 4});
    CHECK(message(out_sizes) ==
          "REVERSE_SUBSEQUENCES: OutputTensor.Sizes[1] = 2 differs from InputTensor.Sizes[1] = 3; they must match");
    auto out_type = d4;
    out_type.output_tensor = make_buffer_tensor_desc(data_type::int32, {2, 3, 1, 4});
    CHECK(message(out_type) ==
          "REVERSE_SUBSEQUENCES: OutputTensor.DataType INT32 differs from InputTensor.DataType FLOAT32; they must match");
    auto out_rank = d4;
    out_rank.output_tensor = f32({2, 3, 4});
    CHECK(message(out_rank) == "REVERSE_SUBSEQUENCES: OutputTensor has 3 dimensions; InputTensor has 4; they must match");
    // Flags: the two inputs may be OWNED_BY_DML, the output not; the output must not broadcast.
    auto owned = d4;
    owned.sequence_lengths_tensor.flags = tensor_flags::owned_by_dml;
    owned.input_tensor.flags = tensor_flags::owned_by_dml;
    CHECK(message(owned) == "(accepted)");
    owned.output_tensor.flags = tensor_flags::owned_by_dml;
    CHECK(message(owned) == "REVERSE_SUBSEQUENCES: OutputTensor.Flags is OWNED_BY_DML, which only input tensors may use");
    auto broadcast_out = d4;
    broadcast_out.output_tensor = make_buffer_tensor_desc(data_type::float32, {2, 3, 1, 4}, std::vector<std::uint32_t>{12, 4, 4, 0});
    CHECK_THAT(message(broadcast_out), Contains("OutputTensor.Strides[3] is 0") && Contains("must not broadcast"));
    // The inputs may broadcast: one length for every sequence, through zero strides.
    auto broadcast_lengths = d4;
    broadcast_lengths.sequence_lengths_tensor = make_buffer_tensor_desc(data_type::uint32, {2, 3, 1, 1}, std::vector<std::uint32_t>{0, 0, 0, 0});
    CHECK(message(broadcast_lengths) == "(accepted)");
    auto small_lengths = d4;
    small_lengths.sequence_lengths_tensor.total_tensor_size_in_bytes = 20;
    CHECK(message(small_lengths) ==
          "REVERSE_SUBSEQUENCES: SequenceLengthsTensor.TotalTensorSizeInBytes = 20 is less than DMLCalcBufferTensorSize = 24");
}

TEST_CASE("REVERSE_SUBSEQUENCES desc: validation reads the lengths' layout, never their values",
          "[reverse_subsequences][desc][validation]") {
    // Lengths are data: any values are accepted (past the axis too), by validate() with and
    // without buffers; execute() reads them.
    const reverse_subsequences_desc d{f32({2, 3}), u64({2, 1}), f32({2, 3}), 1};
    const auto in = bytes_of(iota_from(1, 6));
    std::vector<std::byte> out(24);
    for (const std::uint64_t length : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{4}, std::uint64_t{1} << 40,
                                       std::numeric_limits<std::uint64_t>::max()}) {
        const auto lengths = bytes_of(std::vector<std::uint64_t>{length, 2});
        const std::span<const std::byte> ins[] = {in, lengths};
        const std::span<std::byte> outs[] = {out};
        CHECK_FALSE(validate(d, ins, outs).has_value());
        execute(d, ins, outs);
        CHECK(values_of<float>(out)[3] == 5);                          // the second sequence: length 2
        CHECK(values_of<float>(out)[0] == (length < 2 ? 1.0f : length == 2 ? 2.0f : 3.0f)); // the first
    }
}

TEST_CASE("REVERSE_SUBSEQUENCES desc: the buffer rules name the binding", "[reverse_subsequences][desc][validation]") {
    const reverse_subsequences_desc d{f32({2, 3}), u32({2, 1}), f32({2, 3}), 1};
    const auto in = bytes_of(iota_from(1, 6));
    const auto lengths = bytes_of(std::vector<std::uint32_t>{3, 2});
    std::vector<std::byte> out(24, std::byte{0xcd});
    // One input buffer: the one-buffer execute cannot bind the lengths.
    CHECK(validate(d, in, out) == "REVERSE_SUBSEQUENCES: 1 input buffers for 2 input tensors; bind one buffer to each");
    CHECK_THROWS_MATCHES(execute(d, in, out), validation_error,
                         Catch::Message("REVERSE_SUBSEQUENCES: 1 input buffers for 2 input tensors; bind one buffer to each"));
    CHECK_THROWS_MATCHES(textbook::execute(d, in, out), validation_error,
                         Catch::Message("REVERSE_SUBSEQUENCES: 1 input buffers for 2 input tensors; bind one buffer to each"));
    CHECK_THROWS_WITH(execute(d, in, out, execution_options{4, 1}), Contains("1 input buffers for 2 input tensors"));
    CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xcd}; }));
    {
        const std::span<const std::byte> ins[] = {in, std::span<const std::byte>(lengths).first(4)};
        const std::span<std::byte> outs[] = {out};
        CHECK(validate(d, ins, outs) ==
              "REVERSE_SUBSEQUENCES: the buffer bound to SequenceLengthsTensor has 4 bytes; "
              "SequenceLengthsTensor.TotalTensorSizeInBytes is 8");
        CHECK_THROWS_AS(execute(d, ins, outs), validation_error);
    }
    {
        // The output over the lengths: refused before a byte is written.
        std::vector<std::byte> shared(32);
        std::memcpy(shared.data(), lengths.data(), 8);
        const std::span<const std::byte> ins[] = {in, std::span<const std::byte>(shared).first(8)};
        const std::span<std::byte> outs[] = {std::span<std::byte>(shared).subspan(4, 24)};
        CHECK_THAT(*validate(d, ins, outs), Contains("the buffer bound to SequenceLengthsTensor") &&
                                                Contains("the buffer bound to OutputTensor") && Contains("overlap"));
        CHECK_THROWS_AS(execute(d, ins, outs), validation_error);
        CHECK_THROWS_AS(textbook::execute(d, ins, outs), validation_error);
        CHECK(values_of<std::uint32_t>(shared)[0] == 3);
    }
    {
        // The two inputs are only read: they may share memory (lengths 0 read from the input's zero bytes).
        std::vector<std::byte> both(24);
        const std::span<const std::byte> ins[] = {both, std::span<const std::byte>(both).first(8)};
        const std::span<std::byte> outs[] = {out};
        CHECK_FALSE(validate(d, ins, outs).has_value());
        execute(d, ins, outs);
        CHECK(values_of<float>(out) == std::vector<float>(6, 0.0f));
    }
}

TEST_CASE("textbook source_of reads REVERSE_SUBSEQUENCES's lengths from the input buffers",
          "[reverse_subsequences][desc][textbook]") {
    const reverse_subsequences_desc d{f32({1, 1, 3, 4}), u32({1, 1, 3, 1}), f32({1, 1, 3, 4}), 3};
    const auto in = bytes_of(iota_from(1, 12));
    const auto lengths = bytes_of(std::vector<std::uint32_t>{2, 4, 9});
    const std::span<const std::byte> ins[] = {in, lengths};
    using textbook::source;
    using textbook::source_kind;
    CHECK(textbook::source_of(d, ins, 0, {0, 0, 0, 0}) == source{source_kind::input, {0, 0, 0, 1}, 0});
    CHECK(textbook::source_of(d, ins, 0, {0, 0, 0, 2}) == source{source_kind::input, {0, 0, 0, 2}, 0});
    CHECK(textbook::source_of(d, ins, 0, {0, 0, 1, 1}) == source{source_kind::input, {0, 0, 1, 2}, 0});
    CHECK(textbook::source_of(d, ins, 0, {0, 0, 2, 0}) == source{source_kind::input, {0, 0, 2, 3}, 0}); // min(8, 3)
    CHECK(textbook::source_of(d, ins, 0, {0, 0, 2, 3}) == source{source_kind::input, {0, 0, 2, 3}, 0}); // min(5, 3)
    CHECK_THROWS_MATCHES(textbook::source_of(d, {0, 0, 0, 0}), validation_error,
                         Catch::Message("REVERSE_SUBSEQUENCES: where an output element comes from depends on "
                                        "SequenceLengthsTensor's values; pass source_of the 2 input buffers (InputTensor, "
                                        "SequenceLengthsTensor of at least 12 bytes), not 0"));
    CHECK_THROWS_WITH(textbook::source_of(d, ins, 0, {0, 0, 3, 0}),
                      "REVERSE_SUBSEQUENCES: the output coordinate's entry 2 is 3; OutputTensor.Sizes[2] is 3");
    // Other operators do not read the buffers they are given.
    const tile_desc t{f32({2}), f32({4}), {2}};
    CHECK(textbook::source_of(t, ins, 0, {3}) == textbook::source_of(t, {3}));
}

TEST_CASE("compare sorts a REVERSE_SUBSEQUENCES mismatch by its place in the sequence", "[reverse_subsequences][desc][compare]") {
    const reverse_subsequences_desc d{f32({2, 4}), u32({2, 1}), f32({2, 4}), 1};
    const auto expected = bytes_of(iota_from(0, 8));
    auto actual = expected;
    actual[4 * 7] = std::byte{0x55}; // [1, 3]: the last element of the second sequence
    const std::vector<std::uint32_t> sizes{2, 4};
    const operator_desc op = d;
    const compare_report r = compare(data_type::float32, sizes, expected, actual, {}, &op);
    CHECK(r.mismatch_count == 1);
    REQUIRE_FALSE(r.regions.empty());
    CHECK(r.regions.front().region == "last element of each sequence (axis 1)");
    CHECK(r.regions.front().mismatches == 1);
    CHECK_FALSE(r.first.front().source.has_value()); // the source depends on the lengths, which compare does not have
}

TEST_CASE("consumers written for one input and one output refuse REVERSE_SUBSEQUENCES by name", "[reverse_subsequences][desc]") {
    const operator_desc d = reverse_subsequences_desc{f32({1, 1, 1, 2}), u32({1, 1, 1, 1}), f32({1, 1, 1, 2}), 3};
    CHECK_FALSE(binds_one_input_and_output(operator_type::reverse_subsequences));
    CHECK_FALSE(binds_tensor_arrays(operator_type::reverse_subsequences));
    CHECK(binds_one_input_and_output(operator_type::tile));
    CHECK_FALSE(is_single_tensor_desc_v<reverse_subsequences_desc>);
    CHECK(has_data_dependent_mapping(operator_type::reverse_subsequences));
    CHECK_FALSE(has_data_dependent_mapping(operator_type::join));
    CHECK_NOTHROW(directml::translated(d)); // the DirectML backend takes it (test_directml_translate)
    const auto first_input = single_tensor_only{"the test consumer", [](const auto& x) { return x.input_tensor.sizes.size(); }};
    CHECK_THROWS_MATCHES(std::visit(first_input, d), validation_error,
                         Catch::Message("REVERSE_SUBSEQUENCES: the test consumer takes one input and one output tensor; it "
                                        "does not take REVERSE_SUBSEQUENCES (several input tensors) yet"));
    CHECK_THROWS_WITH(model::single_operator_model(d, 2, "in.npy", "out.npy"),
                      "REVERSE_SUBSEQUENCES: the model writer takes one input and one output tensor; it does not take "
                      "REVERSE_SUBSEQUENCES (several input tensors) yet");
}

#ifdef DMLREF_HAVE_ONNX
TEST_CASE("the ONNX export writes REVERSE_SUBSEQUENCES as ReverseSequence only where it means the same",
          "[reverse_subsequences][desc][onnx]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / fmt::format("dmlref-revseq-export-{}", std::random_device{}());
    const auto in = bytes_of(iota_from(0, 24));
    const auto export_with = [&](const operator_desc& d, const std::vector<std::uint32_t>& lengths, node_test::export_tally& tally) {
        const auto len = bytes_of(lengths);
        const std::span<const std::byte> buffers[] = {in, len};
        return node_test::export_case_buffers(dir / fmt::format("{}", tally.exported + tally.left_out.size()), d, buffers, tally);
    };
    node_test::export_tally tally;
    // Exported: Axis 1 (time_axis 1, batch_axis 0), and Axis 0 with the lengths along axis 1.
    CHECK_FALSE(export_with(reverse_subsequences_desc{f32({2, 4}), u32({2, 1}), f32({2, 4}), 1}, {4, 0}, tally));
    CHECK_FALSE(export_with(reverse_subsequences_desc{f32({3, 2, 2}), u32({1, 2, 2}), f32({3, 2, 2}), 0}, {3, 3, 1, 1}, tally));
    CHECK(tally.exported == 2);
    CHECK(fs::is_regular_file(dir / "0" / "model.onnx"));
    // Left out, by reason.
    const auto refused = [&](const operator_desc& d, const std::vector<std::uint32_t>& lengths, std::string_view reason) {
        const auto why = export_with(d, lengths, tally);
        REQUIRE(why.has_value());
        CHECK_THAT(*why, Catch::StartsWith(std::string(reason)));
    };
    refused(reverse_subsequences_desc{f32({4}), u32({1}), f32({4}), 0}, {2}, "REVERSE_SUBSEQUENCES of one dimension");
    refused(reverse_subsequences_desc{f32({1, 2, 4}), u32({1, 2, 1}), f32({1, 2, 4}), 2}, {1, 2}, "REVERSE_SUBSEQUENCES with Axis 2 or more");
    refused(reverse_subsequences_desc{f32({3, 2, 2}), u32({1, 2, 2}), f32({3, 2, 2}), 0}, {3, 2, 1, 1},
            "REVERSE_SUBSEQUENCES with SequenceLengthsTensor values varying off the batch axis");
    refused(reverse_subsequences_desc{f32({2, 4}), u32({2, 1}), f32({2, 4}), 1}, {5, 0},
            "REVERSE_SUBSEQUENCES with a SequenceLengthsTensor value past its Axis size");
    CHECK(tally.exported == 2);
    CHECK(tally.left_out.size() == 4);
    fs::remove_all(dir);
}
#endif

TEST_CASE("model files: REVERSE_SUBSEQUENCES descs and their three bindings, as DxDispatch names them",
          "[reverse_subsequences][desc][model]") {
    const operator_desc d = reverse_subsequences_desc{f32({2, 3}), u64({2, 1}), f32({2, 3}), 1};
    const std::string json = model::dispatchable_json(d);
    CHECK_THAT(json, Contains(R"("type":"DML_OPERATOR_REVERSE_SUBSEQUENCES")") && Contains(R"("SequenceLengthsTensor":{)") &&
                         Contains(R"("Axis":1)"));
    CHECK(to_string(model::parse_dispatchable(json, "reverse.json")) == to_string(d));
    CHECK_THROWS_WITH(model::parse_dispatchable(R"({"type": "REVERSE_SUBSEQUENCES", "desc": {
                          "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "Axis": 0}})",
                                                "reverse.json"),
                      "reverse.json: desc: missing field 'SequenceLengthsTensor'");
    CHECK_THROWS_WITH(model::parse_dispatchable(R"({"type": "REVERSE_SUBSEQUENCES", "desc": {
                          "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "Lengths": 1,
                          "SequenceLengthsTensor": {"DataType": "UINT32", "Sizes": [1]},
                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "Axis": 0}})",
                                                "reverse.json"),
                      Contains("reverse.json: desc.Lengths: unknown field"));
    const std::string text = R"({
        "resources": {
            "X": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]},
            "L": {"initialValuesDataType": "UINT32", "initialValues": [2, 3, 1, 0]},
            "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 12, "value": 0}}
        },
        "dispatchables": {"reverse": {"type": "DML_OPERATOR_REVERSE_SUBSEQUENCES", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 4]},
            "SequenceLengthsTensor": {"DataType": "UINT32", "Sizes": [1, 1, 1, 4]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 4]}, "Axis": 2}}},
        "commands": [{"type": "dispatch", "dispatchable": "reverse",
                      "bindings": {"InputTensor": "X", "SequenceLengthsTensor": "L", "OutputTensor": "Out"}}]
    })";
    model::model m = model::parse(text, ".", "reverse.json", feature_level::fl_2_1);
    const auto& dispatch = std::get<model::dispatch_command>(m.commands.front());
    CHECK(dispatch.inputs == std::vector<std::string>{"X", "L"});
    CHECK(dispatch.outputs == std::vector<std::string>{"Out"});
    model::run_options at_2_1;
    at_2_1.level = feature_level::fl_2_1;
    model::run(m, at_2_1);
    CHECK(values_of<float>(m.resources.at("Out").bytes()) == std::vector<float>{5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12});
    // An executor of one input and one output is refused by name, before anything runs.
    model::model again = model::parse(text, ".", "reverse.json");
    const model::run_options one_buffer{.execute = [](const operator_desc&, std::span<const std::byte>, std::span<std::byte>) {}};
    CHECK_THROWS_WITH(model::run(again, one_buffer),
                      Contains("the dispatch of 'reverse' binds several input tensors") && Contains("REVERSE_SUBSEQUENCES"));
    // The bindings: every field, by DirectML's names.
    const auto replaced = [&](const std::string& from, const std::string& to) {
        std::string changed = text;
        changed.replace(changed.find(from), from.size(), to);
        return changed;
    };
    const std::string missing = replaced(R"("SequenceLengthsTensor": "L", )", "");
    CHECK_THROWS_WITH(model::parse(missing, ".", "reverse.json"),
                      Contains("commands[0].bindings: missing field 'SequenceLengthsTensor'"));
    const std::string unknown = replaced(R"("SequenceLengthsTensor": "L")", R"("Lengths": "L")");
    CHECK_THROWS_WITH(model::parse(unknown, ".", "reverse.json"),
                      Contains("commands[0].bindings.Lengths: unknown field (expected one of InputTensor, "
                               "SequenceLengthsTensor, OutputTensor)"));
    const std::string small = replaced("[2, 3, 1, 0]", "[2, 3, 1]");
    CHECK_THROWS_WITH(model::parse(small, ".", "reverse.json"),
                      Contains("the buffer bound to SequenceLengthsTensor has 12 bytes; "
                               "SequenceLengthsTensor.TotalTensorSizeInBytes is 16"));
    // Below 2_1 the desc does not exist.
    CHECK_THROWS_WITH(model::parse(text, ".", "reverse.json", feature_level::fl_2_0), Contains("introduced in feature level 2_1"));
}

namespace {

/// A random REVERSE_SUBSEQUENCES desc, valid at the newest level: rank 1 to 8, any movable type,
/// UINT32 or UINT64 lengths, each tensor packed or with permuted strides and gaps (the inputs may
/// broadcast on any axis, the output only on axes of one element), TotalTensorSizeInBytes at times
/// larger than needed.
reverse_subsequences_desc random_desc(std::mt19937_64& rng) {
    const auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return static_cast<std::uint32_t>(lo + rng() % (hi - lo + 1)); };
    const data_type type = movable_data_types[rng() % std::size(movable_data_types)];
    const data_type lengths_type = rng() % 2 == 0 ? data_type::uint32 : data_type::uint64;
    const std::uint32_t rank = pick(1, 8), axis = pick(0, rank - 1);
    std::vector<std::uint32_t> sizes(rank);
    for (auto& s : sizes) s = pick(1, rank > 5 ? 3 : 5);
    if (rng() % 4 == 0) sizes[axis] = pick(6, 40); // long sequences
    auto lengths_sizes = sizes;
    lengths_sizes[axis] = 1;
    // Braces evaluate in order: input, lengths, output, as the draws always ran.
    return reverse_subsequences_desc{random_tensor(rng, type, sizes, false, 5),
                                     random_tensor(rng, lengths_type, lengths_sizes, false, 5),
                                     random_tensor(rng, type, sizes, true, 5), axis};
}

/// Lengths for `d`'s buffer: 0, 1, the axis size, past it (up to 2n; 2^32 - 1, 2^63, 2^64 - 1 for UINT64),
/// or any length up to the axis size.
std::vector<std::byte> random_lengths(const reverse_subsequences_desc& d, std::mt19937_64& rng) {
    const auto& t = d.sequence_lengths_tensor;
    const std::uint64_t n = d.input_tensor.sizes[d.axis];
    const std::size_t width = element_size(t.data_type);
    std::vector<std::byte> bytes(static_cast<std::size_t>(t.total_tensor_size_in_bytes));
    const bool equal = rng() % 5 == 0; // every sequence the same length: whole-row copies
    const auto draw = [&]() -> std::uint64_t {
        switch (rng() % 8) {
        case 0: return 0;
        case 1: return 1;
        case 2: return n;
        case 3: return n + 1 + rng() % n; // past the axis, up to 2n: the first elements repeat the last
        case 4: return width == 4 ? std::numeric_limits<std::uint32_t>::max() : std::uint64_t{1} << 63;
        case 5: return width == 4 ? std::uint64_t{1} << 31 : std::numeric_limits<std::uint64_t>::max();
        default: return rng() % (n + 1);
        }
    };
    const std::uint64_t same = draw();
    for (std::size_t k = 0; k + width <= bytes.size(); k += width) {
        const std::uint64_t v = equal ? same : draw();
        std::memcpy(bytes.data() + k, &v, width); // little-endian: the low `width` bytes
    }
    return bytes;
}

constexpr std::size_t guard = 64;

} // namespace

TEST_CASE("REVERSE_SUBSEQUENCES desc: the engine equals the textbook on 2,000 random descs, on one thread and four",
          "[reverse_subsequences][desc][property]") {
    std::mt19937_64 rng(10601);
    int ran = 0, reversing = 0;
    for (int n = 0; n < 2000; ++n) {
        const reverse_subsequences_desc d = random_desc(rng);
        INFO("desc " << n << ": " << to_string(operator_desc(d)));
        if (const auto why = validate(d)) { // every draw is valid: zero strides only where allowed
            FAIL_CHECK(*why);
            continue;
        }
        std::vector<std::byte> input(static_cast<std::size_t>(d.input_tensor.total_tensor_size_in_bytes));
        for (auto& b : input) b = static_cast<std::byte>(rng());
        const auto lengths = random_lengths(d, rng);
        // Each output buffer sits between guard bytes that must stay as they were.
        const std::size_t out_bytes = static_cast<std::size_t>(d.output_tensor.total_tensor_size_in_bytes);
        const std::byte fill = static_cast<std::byte>(rng());
        std::vector<std::byte> fast(out_bytes + 2 * guard, fill), slow = fast, threaded = fast;
        const auto inner = [&](std::vector<std::byte>& b) { return std::span<std::byte>(b).subspan(guard, out_bytes); };
        const std::span<const std::byte> ins[] = {input, lengths};
        const std::span<std::byte> fast_out[] = {inner(fast)}, slow_out[] = {inner(slow)}, threaded_out[] = {inner(threaded)};
        execute(d, ins, fast_out);
        execute(d, ins, threaded_out, execution_options{4, 1});
        textbook::execute(d, ins, slow_out);
        CHECK(fast == slow);
        CHECK(threaded == slow);
        CHECK(std::all_of(slow.begin(), slow.begin() + guard, [&](std::byte b) { return b == fill; }));
        CHECK(std::all_of(slow.end() - guard, slow.end(), [&](std::byte b) { return b == fill; }));
        ++ran;
        // The draws reverse: most outputs differ from the copy that lengths of 0 make.
        std::vector<std::byte> copy(out_bytes + 2 * guard, fill);
        const std::vector<std::byte> zeros(lengths.size());
        const std::span<const std::byte> copy_ins[] = {input, zeros};
        const std::span<std::byte> copy_out[] = {inner(copy)};
        textbook::execute(d, copy_ins, copy_out);
        reversing += copy != slow;
    }
    CHECK(ran == 2000);
    CHECK(reversing > 1000);
}
