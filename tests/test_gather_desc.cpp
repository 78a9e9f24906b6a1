// GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 in the desc layer (operator.hpp): DirectML's
// documented examples over one buffer per tensor, the rules per feature level with their messages
// (validation reads the index tensor's desc, never its values), execute's refusal of an index
// outside its axis (naming its coordinate and value, with nothing written), the buffer rules, the
// textbook's source_of reading the indices, DxDispatch model files, the consumers that refuse a
// second input by name, and the engine against the textbook on 2,000 random descs of each operator
// (one thread and four), with guard bytes around every output buffer.
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


/// Runs `desc` on the engine and on the textbook over the FLOAT32 input and the index bytes; both
/// must agree; returns the output.
std::vector<float> run(const operator_desc& desc, const std::vector<float>& input, const std::vector<std::byte>& indices,
                       feature_level level = newest_feature_level) {
    const auto& out_desc = outputs_of(desc).front().desc();
    std::vector<std::byte> fast(static_cast<std::size_t>(out_desc.total_tensor_size_in_bytes)), slow = fast;
    const auto in = bytes_of(input);
    const std::span<const std::byte> ins[] = {in, indices};
    const std::span<std::byte> fast_out[] = {fast}, slow_out[] = {slow};
    execute(desc, ins, fast_out, level);
    textbook::execute(desc, ins, slow_out, level);
    CHECK(fast == slow);
    return values_of<float>(fast);
}

} // namespace

TEST_CASE("GATHER desc: DirectML's five examples", "[gather][desc]") {
    const auto idx = [](std::vector<std::uint32_t> v) { return bytes_of(v); };
    CHECK(run(gather_desc{f32({4}), u32({5}), f32({5}), 0, 1}, {11, 12, 13, 14}, idx({3, 1, 3, 0, 2})) ==
          std::vector<float>{14, 12, 14, 11, 13});
    CHECK(run(gather_desc{f32({3, 2}), u32({1, 4}), f32({4, 2}), 0, 1}, iota_from(1, 6), idx({0, 1, 1, 2})) ==
          std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
    // Example 3 breaks the page's rank rule: its logical output {3, 1, 2} has 3 entries for 2 axes.
    // DirectML 1.15.4 keeps the last two, {1, 2}, and refuses the page's output {3, 2} (E_INVALIDARG,
    // docs/directml.md); the next test case runs the output {1, 2}.
    CHECK(message(gather_desc{f32({3, 2}), u32({1, 2}), f32({3, 2}), 1, 2}) ==
          "GATHER: OutputTensor.Sizes {3, 2} differ from {1, 2}, the last 2 of the sizes {3, 1, 2} GATHER gives for "
          "Axis 1 and IndexDimensions 2");
    // With the input padded to {1, 3, 2} the entry to drop is a leading 1, and both accept it.
    CHECK(run(gather_desc{f32({1, 3, 2}), u32({1, 1, 2}), f32({3, 1, 2}), 2, 2}, iota_from(1, 6), idx({1, 0})) ==
          std::vector<float>{2, 1, 4, 3, 6, 5});
    CHECK(run(gather_desc{f32({1, 3, 3}), u32({1, 1, 2}), f32({3, 1, 2}), 2, 2}, iota_from(1, 9), idx({0, 2})) ==
          std::vector<float>{1, 3, 4, 6, 7, 9});
    CHECK(run(gather_desc{f32({1, 3, 2}), u32({1, 2, 2}), f32({2, 2, 2}), 1, 2}, iota_from(1, 6), idx({0, 1, 1, 2})) ==
          std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
    const operator_desc d = gather_desc{f32({1, 1, 3, 2}), u32({1, 1, 1, 4}), f32({1, 1, 4, 2}), 2, 1};
    CHECK(type_of(d) == operator_type::gather);
    CHECK(static_cast<std::uint32_t>(operator_type::gather) == 67);
    CHECK(parse_operator_type("DML_OPERATOR_GATHER") == operator_type::gather);
    CHECK(introduced_in(operator_type::gather) == feature_level::fl_1_0);
    const auto ins = inputs_of(d);
    REQUIRE(ins.size() == 2);
    CHECK(ins[1].field == "IndicesTensor");
    CHECK(outputs_of(d).front().field == "OutputTensor");
    CHECK(to_string(d) ==
          "GATHER {InputTensor: {DataType: FLOAT32, Sizes: {1, 1, 3, 2}, TotalTensorSizeInBytes: 24}, IndicesTensor: "
          "{DataType: UINT32, Sizes: {1, 1, 1, 4}, TotalTensorSizeInBytes: 16}, OutputTensor: {DataType: FLOAT32, Sizes: "
          "{1, 1, 4, 2}, TotalTensorSizeInBytes: 32}, Axis: 2, IndexDimensions: 1}");
    CHECK(run(d, iota_from(1, 6), idx({0, 1, 1, 2}), feature_level::fl_1_0) == std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
}

TEST_CASE("GATHER_ELEMENTS desc: DirectML's example and ONNX's negative indices", "[gather_elements][desc]") {
    CHECK(run(gather_elements_desc{f32({3, 3}), u32({2, 3}), f32({2, 3}), 0}, iota_from(1, 9),
              bytes_of(std::vector<std::uint32_t>{1, 2, 0, 2, 0, 0})) == std::vector<float>{4, 8, 3, 7, 2, 3});
    CHECK(run(gather_elements_desc{f32({3, 3}), typed(data_type::int32, {2, 3}), f32({2, 3}), 0}, iota_from(1, 9),
              bytes_of(std::vector<std::int32_t>{-1, -2, 0, -2, 0, 0})) == std::vector<float>{7, 5, 3, 4, 2, 3});
    const operator_desc d = gather_elements_desc{f32({1, 1, 3, 3}), u32({1, 1, 2, 3}), f32({1, 1, 2, 3}), 2};
    CHECK(static_cast<std::uint32_t>(type_of(d)) == 107);
    CHECK(introduced_in(type_of(d)) == feature_level::fl_2_1);
    CHECK(message(d, feature_level::fl_2_0) ==
          "GATHER_ELEMENTS: not available at feature level 2_0; it was introduced in feature level 2_1");
    CHECK(message(d, feature_level::fl_2_1) == "(accepted)");
    CHECK_THAT(to_string(d), Contains("GATHER_ELEMENTS {InputTensor: ") && Contains("IndicesTensor: ") && Contains(", Axis: 2}"));
}

TEST_CASE("GATHER_ND and GATHER_ND1 descs: DirectML's examples", "[gather_nd][desc]") {
    const auto idx = [](std::vector<std::uint32_t> v) { return bytes_of(v); };
    CHECK(run(gather_nd_desc{f32({2, 2}), u32({2, 1}), f32({2, 2}), 2, 2}, iota_from(0, 4), idx({1, 0})) ==
          std::vector<float>{2, 3, 0, 1});
    CHECK(run(gather_nd1_desc{f32({2, 2}), u32({2, 1}), f32({2, 2}), 2, 2, 0}, iota_from(0, 4), idx({1, 0})) ==
          std::vector<float>{2, 3, 0, 1});
    CHECK(run(gather_nd_desc{f32({1, 2, 2, 2}), u32({1, 1, 2, 2}), f32({1, 1, 2, 2}), 3, 2}, iota_from(0, 8), idx({0, 1, 1, 0}),
              feature_level::fl_2_1) == std::vector<float>{2, 3, 4, 5});
    CHECK(run(gather_nd1_desc{f32({1, 3, 2, 2}), u32({1, 3, 2, 2}), f32({1, 1, 3, 2}), 3, 3, 1}, iota_from(0, 12),
              idx({0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0}), feature_level::fl_3_0) == std::vector<float>{0, 3, 7, 4, 9, 10});
    // The sizes-only example: input {3,4,5,6,7}, I = 5; indices {1,1,1,2,3}, J = 3 -> output {1,1,2,6,7}.
    gather_nd_desc sizes{f32({3, 4, 5, 6, 7}), u32({1, 1, 1, 2, 3}), f32({1, 1, 2, 6, 7}), 5, 3};
    CHECK(message(sizes) == "(accepted)");
    sizes.output_tensor = f32({1, 1, 2, 5, 6});
    CHECK(message(sizes) ==
          "GATHER_ND: OutputTensor.Sizes {1, 1, 2, 5, 6} differ from {1, 1, 2, 6, 7}, the sizes GATHER_ND gives for "
          "InputDimensionCount 5, IndicesDimensionCount 3, BatchDimensionCount 0 and an index tuple of 3");
    CHECK(static_cast<std::uint32_t>(operator_type::gather_nd) == 108);
    CHECK(static_cast<std::uint32_t>(operator_type::gather_nd1) == 140);
    const operator_desc nd1 = gather_nd1_desc{f32({1, 3, 2, 2}), u32({1, 3, 2, 2}), f32({1, 1, 3, 2}), 3, 3, 1};
    CHECK(message(nd1, feature_level::fl_2_1) ==
          "GATHER_ND1: not available at feature level 2_1; it was introduced in feature level 3_0");
    CHECK_THAT(to_string(nd1), Contains(", InputDimensionCount: 3, IndicesDimensionCount: 3, BatchDimensionCount: 1}"));
    CHECK_THAT(to_string(operator_desc(sizes)), Contains(", InputDimensionCount: 5, IndicesDimensionCount: 3}"));
}

TEST_CASE("the gather descs' rules per feature level, with their messages", "[gather][desc][validation]") {
    const auto g = [](data_type data, data_type index, std::vector<std::uint32_t> in, std::vector<std::uint32_t> idx,
                      std::vector<std::uint32_t> out, std::uint32_t axis, std::uint32_t k) {
        return operator_desc(gather_desc{typed(data, std::move(in)), typed(index, std::move(idx)), typed(data, std::move(out)),
                                         axis, k});
    };
    const auto f = data_type::float32, u = data_type::uint32;
    // 1_0: FLOAT32 and FLOAT16 data, UINT32 indices, 4 dimensions.
    CHECK(message(g(f, u, {1, 1, 3, 2}, {1, 1, 1, 4}, {1, 1, 4, 2}, 2, 1), feature_level::fl_1_0) == "(accepted)");
    CHECK(message(g(data_type::int8, u, {1, 1, 3, 2}, {1, 1, 1, 4}, {1, 1, 4, 2}, 2, 1), feature_level::fl_1_0) ==
          "GATHER: InputTensor.DataType INT8 is not supported at feature level 1_0 (supported: FLOAT32, FLOAT16)");
    CHECK(message(g(data_type::int8, u, {1, 1, 3, 2}, {1, 1, 1, 4}, {1, 1, 4, 2}, 2, 1), feature_level::fl_2_1) ==
          "(accepted)");
    CHECK(message(g(f, data_type::int64, {1, 1, 3, 2}, {1, 1, 1, 4}, {1, 1, 4, 2}, 2, 1), feature_level::fl_2_1) ==
          "GATHER: IndicesTensor.DataType INT64 is not supported at feature level 2_1 (supported: UINT32)");
    CHECK(message(g(f, data_type::int64, {1, 1, 3, 2}, {1, 1, 1, 4}, {1, 1, 4, 2}, 2, 1), feature_level::fl_3_0) ==
          "(accepted)");
    CHECK(message(g(f, data_type::uint16, {1, 1, 3, 2}, {1, 1, 1, 4}, {1, 1, 4, 2}, 2, 1)) ==
          "GATHER: IndicesTensor.DataType UINT16 is not supported at feature level 6_4 (supported: INT64, INT32, UINT64, "
          "UINT32)");
    CHECK(message(g(f, u, {3, 2}, {1, 4}, {4, 2}, 0, 1), feature_level::fl_2_1) ==
          "GATHER: InputTensor has 2 dimensions (DimensionCount); GATHER takes 4 at feature level 2_1");
    CHECK(message(g(f, u, {3, 2}, {1, 4}, {4, 2}, 0, 1), feature_level::fl_3_0) == "(accepted)");
    CHECK_THAT(message(g(data_type::float64, u, {3, 2}, {1, 4}, {4, 2}, 0, 1), feature_level::fl_4_0),
               Contains("GATHER: InputTensor.DataType FLOAT64 is not supported at feature level 4_0"));
    CHECK(message(g(data_type::float64, u, {3, 2}, {1, 4}, {4, 2}, 0, 1), feature_level::fl_4_1) == "(accepted)");
    // The shape rules: Axis, IndexDimensions, the leading index sizes, the output's sizes and type.
    CHECK(message(g(f, u, {3, 2}, {1, 4}, {4, 2}, 2, 1)) ==
          "GATHER: Axis is 2; it must lie in [0, 2) (the tensors' DimensionCount)");
    CHECK(message(g(f, u, {3, 2}, {1, 4}, {4, 2}, 0, 3)) ==
          "GATHER: IndexDimensions is 3; it must lie in [0, 2] (IndicesTensor's DimensionCount)");
    CHECK(message(g(f, u, {3, 2}, {2, 4}, {4, 2}, 0, 1)) ==
          "GATHER: IndicesTensor.Sizes[0] is 2; the dimensions before the last IndexDimensions = 1 must be 1");
    CHECK(message(g(f, u, {3, 2}, {1, 4}, {3, 2}, 0, 1)) ==
          "GATHER: OutputTensor.Sizes {3, 2} differ from {4, 2}, the sizes GATHER gives for Axis 0 and IndexDimensions 1");
    CHECK(message(g(f, u, {3, 2}, {1, 4}, {4, 2, 1}, 0, 1)) ==
          "GATHER: OutputTensor has 3 dimensions; InputTensor has 2; they must match");
    auto other_type = std::get<gather_desc>(g(f, u, {3, 2}, {1, 4}, {4, 2}, 0, 1));
    other_type.output_tensor.data_type = data_type::int32;
    CHECK(message(other_type) == "GATHER: OutputTensor.DataType INT32 differs from InputTensor.DataType FLOAT32; they must match");
    auto owned = other_type;
    owned.output_tensor.data_type = data_type::float32;
    owned.indices_tensor.flags = tensor_flags::owned_by_dml;
    CHECK(message(owned) == "(accepted)");
    owned.output_tensor.flags = tensor_flags::owned_by_dml;
    CHECK(message(owned) == "GATHER: OutputTensor.Flags is OWNED_BY_DML, which only input tensors may use");
    // GATHER_ELEMENTS and the ND ops.
    CHECK(message(gather_elements_desc{f32({3, 3}), u32({2, 2}), f32({2, 2}), 0}) ==
          "GATHER_ELEMENTS: IndicesTensor.Sizes[1] = 2 differs from InputTensor.Sizes[1] = 3; they must match on every "
          "axis but Axis = 0");
    CHECK(message(gather_elements_desc{f32({3, 3}), u32({2, 3}), f32({3, 3}), 0}) ==
          "GATHER_ELEMENTS: OutputTensor.Sizes[0] = 3 differs from IndicesTensor.Sizes[0] = 2; they must match");
    CHECK(message(gather_nd_desc{f32({2, 2}), u32({2, 3}), f32({2}), 2, 2}) ==
          "GATHER_ND: OutputTensor has 1 dimensions; InputTensor has 2; they must match");
    CHECK(message(gather_nd_desc{f32({2, 2}), u32({2, 3}), f32({2, 2}), 2, 2}) ==
          "GATHER_ND: IndicesTensor.Sizes[1] = 3 (the length of an index tuple) exceeds InputDimensionCount - "
          "BatchDimensionCount = 2 - 0");
    CHECK(message(gather_nd1_desc{f32({2, 2}), u32({2, 1}), f32({2, 2}), 2, 2, 2}) ==
          "GATHER_ND1: BatchDimensionCount is 2; it must be less than InputDimensionCount = 2 and IndicesDimensionCount = 2");
    CHECK(message(gather_nd_desc{f32({2, 2}), u32({2, 1}), f32({2, 2}), 0, 2}) ==
          "GATHER_ND: InputDimensionCount is 0; it must lie in [1, 2] (the tensors' DimensionCount)");
}

TEST_CASE("GATHER_ND and GATHER_ND1 refuse a logical output of more than N entries, leading 1s too",
          "[gather_nd][desc][validation]") {
    // DirectML 1.15.4 drops no entry of these logical shapes (J - 1 + R entries, R = I - B - T):
    // it refuses each desc below and accepts the same with one index dimension fewer (probes in
    // test_directml, docs/directml.md). GATHER alone keeps the last N entries.
    CHECK(message(gather_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), 3, 5}) ==
          "GATHER_ND: OutputTensor's logical sizes {1, 1, 1, 1, 1, 1} for InputDimensionCount 3, IndicesDimensionCount 5, "
          "BatchDimensionCount 0 and an index tuple of 1 have 6 entries, more than the tensors' DimensionCount 5; "
          "GATHER_ND drops none of them");
    CHECK(message(gather_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), 3, 4}) == "(accepted)");
    CHECK(message(gather_nd_desc{f32({1, 2, 3}), u32({1, 2, 1}), f32({2, 2, 3}), 3, 3}) ==
          "GATHER_ND: OutputTensor's logical sizes {1, 2, 2, 3} for InputDimensionCount 3, IndicesDimensionCount 3, "
          "BatchDimensionCount 0 and an index tuple of 1 have 4 entries, more than the tensors' DimensionCount 3; "
          "GATHER_ND drops none of them");
    CHECK(message(gather_nd_desc{f32({1, 2, 3}), u32({1, 2, 1}), f32({1, 2, 3}), 2, 3}) == "(accepted)");
    CHECK(message(gather_nd1_desc{f32({1, 1, 2, 3}), u32({1, 1, 1, 1}), f32({1, 1, 2, 3}), 4, 4, 1}) ==
          "GATHER_ND1: OutputTensor's logical sizes {1, 1, 1, 2, 3} for InputDimensionCount 4, IndicesDimensionCount 4, "
          "BatchDimensionCount 1 and an index tuple of 1 have 5 entries, more than the tensors' DimensionCount 4; "
          "GATHER_ND1 drops none of them");
    CHECK(message(gather_nd1_desc{f32({1, 1, 2, 3}), u32({1, 1, 1, 1}), f32({1, 1, 2, 3}), 4, 3, 1}) == "(accepted)");
    // The views take the same rule.
    std::vector<float> in(6), out(6, -1.0f);
    std::vector<std::uint32_t> idx(1, 0);
    const auto in_v = strided_view<const float, 4>(in.data(), {1, 1, 2, 3});
    const auto idx_v = strided_view<const std::uint32_t, 4>(idx.data(), {1, 1, 1, 1});
    const auto out_v = strided_view<float, 4>(out.data(), {1, 1, 2, 3});
    CHECK_THROWS_WITH(gather_nd(in_v, idx_v, out_v, 4, 4, 1), Contains("have 5 entries, more than the tensors' DimensionCount 4"));
    CHECK(out == std::vector<float>(6, -1.0f));
    CHECK_NOTHROW(gather_nd(in_v, idx_v, out_v, 4, 3, 1));
}

TEST_CASE("the gather descs: execute refuses an index outside its axis, naming it, with nothing written",
          "[gather][desc][index]") {
    const gather_desc d{f32({4}), typed(data_type::int32, {3}), f32({3}), 0, 1};
    const auto in = bytes_of(iota_from(10, 4));
    std::vector<std::byte> out(12, std::byte{0xcd});
    const std::span<std::byte> outs[] = {out};
    const auto refused = [&](std::vector<std::int32_t> values, const std::string& expected) {
        const auto idx = bytes_of(values);
        const std::span<const std::byte> ins[] = {in, idx};
        CHECK_FALSE(validate(d, ins, outs).has_value()); // validation never reads the indices
        CHECK_THROWS_MATCHES(execute(d, ins, outs), validation_error, Catch::Message(expected));
        CHECK_THROWS_MATCHES(execute(d, ins, outs, execution_options{4, 1}), validation_error, Catch::Message(expected));
        CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xcd}; }));
        std::vector<std::byte> slow(12);
        const std::span<std::byte> slow_out[] = {slow};
        CHECK_THROWS_AS(textbook::execute(d, ins, slow_out), validation_error);
    };
    refused({0, 4, 1}, "GATHER: IndicesTensor[1] is 4; it indexes InputTensor.Sizes[0] = 4, so it must lie in [-4, 4) "
                       "(INT32 index; a negative index counts from the end)");
    refused({0, 1, -5}, "GATHER: IndicesTensor[2] is -5; it indexes InputTensor.Sizes[0] = 4, so it must lie in [-4, 4) "
                        "(INT32 index; a negative index counts from the end)");
    // In range, negatives count from the end.
    CHECK(run(d, iota_from(10, 4), bytes_of(std::vector<std::int32_t>{-1, -4, 2})) == std::vector<float>{13, 10, 12});
    // UINT64 past 2^63 and GATHER_ND's tuple entries name the axis they index.
    const gather_nd_desc nd{f32({2, 3}), typed(data_type::uint64, {1, 2}), f32({1, 1}), 2, 2};
    const auto huge = bytes_of(std::vector<std::uint64_t>{1, std::uint64_t{1} << 63});
    const auto nd_in = bytes_of(iota_from(10, 6));
    const std::span<const std::byte> ins[] = {nd_in, huge};
    std::vector<std::byte> one(4);
    const std::span<std::byte> one_out[] = {one};
    CHECK_THROWS_MATCHES(execute(nd, ins, one_out), validation_error,
                         Catch::Message("GATHER_ND: IndicesTensor[0, 1] is 9223372036854775808; it indexes "
                                        "InputTensor.Sizes[1] = 3, so it must lie in [0, 3) (UINT64 index)"));
}

TEST_CASE("the gather descs: the buffer rules name the binding", "[gather][desc][validation]") {
    const gather_desc d{f32({4}), u32({3}), f32({3}), 0, 1};
    const auto in = bytes_of(iota_from(1, 4));
    const auto idx = bytes_of(std::vector<std::uint32_t>{0, 1, 2});
    std::vector<std::byte> out(12);
    CHECK(validate(d, in, out) == "GATHER: 1 input buffers for 2 input tensors; bind one buffer to each");
    CHECK_THROWS_WITH(execute(d, in, out), "GATHER: 1 input buffers for 2 input tensors; bind one buffer to each");
    {
        const std::span<const std::byte> ins[] = {in, std::span<const std::byte>(idx).first(8)};
        const std::span<std::byte> outs[] = {out};
        CHECK(validate(d, ins, outs) ==
              "GATHER: the buffer bound to IndicesTensor has 8 bytes; IndicesTensor.TotalTensorSizeInBytes is 12");
    }
    {
        std::vector<std::byte> shared(24);
        std::memcpy(shared.data(), idx.data(), 12);
        const std::span<const std::byte> ins[] = {in, std::span<const std::byte>(shared).first(12)};
        const std::span<std::byte> outs[] = {std::span<std::byte>(shared).subspan(8, 12)};
        CHECK_THAT(*validate(d, ins, outs), Contains("the buffer bound to IndicesTensor") && Contains("overlap"));
        CHECK_THROWS_AS(execute(d, ins, outs), validation_error);
    }
}

TEST_CASE("textbook source_of reads the gathers' indices from the input buffers", "[gather][desc][textbook]") {
    const gather_desc d{f32({1, 3, 2}), u32({1, 2, 2}), f32({2, 2, 2}), 1, 2};
    const auto in = bytes_of(iota_from(1, 6));
    const auto idx = bytes_of(std::vector<std::uint32_t>{0, 1, 1, 2});
    const std::span<const std::byte> ins[] = {in, idx};
    using textbook::source;
    using textbook::source_kind;
    CHECK(textbook::source_of(d, ins, 0, {1, 1, 0}) == source{source_kind::input, {0, 2, 0}, 0});
    CHECK(textbook::source_of(d, ins, 0, {0, 1, 1}) == source{source_kind::input, {0, 1, 1}, 0});
    CHECK_THROWS_WITH(textbook::source_of(d, {0, 0, 0}), Contains("GATHER: where an output element comes from depends on "
                                                                  "IndicesTensor's values"));
    const gather_nd1_desc nd1{f32({1, 3, 2, 2}), u32({1, 3, 2, 2}), f32({1, 1, 3, 2}), 3, 3, 1};
    const auto nd_in = bytes_of(iota_from(0, 12));
    const auto nd_idx = bytes_of(std::vector<std::uint32_t>{0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0});
    const std::span<const std::byte> nd_ins[] = {nd_in, nd_idx};
    CHECK(textbook::source_of(nd1, nd_ins, 0, {0, 0, 1, 0}) == source{source_kind::input, {0, 1, 1, 1}, 0}); // 7
}

TEST_CASE("consumers written for one input and one output refuse the gathers by name", "[gather][desc]") {
    const operator_desc d = gather_desc{f32({1, 1, 1, 2}), u32({1, 1, 1, 1}), f32({1, 1, 1, 1}), 3, 1};
    for (const operator_type t : {operator_type::gather, operator_type::gather_elements, operator_type::gather_nd,
                                  operator_type::gather_nd1}) {
        CHECK_FALSE(binds_one_input_and_output(t));
        CHECK(has_data_dependent_mapping(t));
    }
    CHECK_NOTHROW(directml::translated(d)); // the DirectML backend takes them (test_directml_translate)
    CHECK_THROWS_WITH(model::single_operator_model(d, 1, "in.npy", "out.npy"),
                      "GATHER: the model writer takes one input and one output tensor; it does not take GATHER (several "
                      "input tensors) yet");
#ifdef DMLREF_HAVE_ONNX
    // The ONNX export writes GATHER as Gather-11 (onnx.roundtrip), from one buffer per input tensor.
    node_test::export_tally tally;
    CHECK_THROWS_WITH(node_test::export_case("never-written", d, {}, tally),
                      Catch::StartsWith("the ONNX export of GATHER was given"));
#endif
}

#ifdef DMLREF_HAVE_ONNX
TEST_CASE("the ONNX export writes GATHER_ELEMENTS as GatherElements, refusing an index outside its axis", "[gather_elements][desc][onnx]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / fmt::format("dmlref-gather-elements-export-{}", std::random_device{}());
    const auto in = bytes_of(iota_from(0, 6));
    node_test::export_tally tally;
    const auto idx = bytes_of(std::vector<std::int32_t>{2, -3, 0, -1});
    const std::span<const std::byte> good[] = {in, idx};
    CHECK_FALSE(node_test::export_case_buffers(dir / "good", gather_elements_desc{f32({2, 3}), typed(data_type::int32, {2, 2}),
                                                                                   f32({2, 2}), 1},
                                               good, tally));
    CHECK(fs::is_regular_file(dir / "good" / "model.onnx"));
    for (const std::int32_t bad : {3, -4}) {
        const auto b = bytes_of(std::vector<std::int32_t>{2, bad, 0, -1});
        const std::span<const std::byte> buffers[] = {in, b};
        const auto why = node_test::export_case_buffers(dir / "bad", gather_elements_desc{f32({2, 3}), typed(data_type::int32, {2, 2}),
                                                                                         f32({2, 2}), 1},
                                                        buffers, tally);
        REQUIRE(why.has_value());
        CHECK_THAT(*why, Catch::StartsWith("GATHER_ELEMENTS with an IndicesTensor value outside its Axis"));
    }
    CHECK(tally.exported == 1);
    CHECK_FALSE(fs::exists(dir / "bad"));
    fs::remove_all(dir);
}
#endif

TEST_CASE("model files: the gather descs with DxDispatch's field names and bindings", "[gather][desc][model]") {
    for (const operator_desc& d : {operator_desc(gather_desc{f32({3, 2}), typed(data_type::int64, {1, 4}), f32({4, 2}), 0, 1}),
                                   operator_desc(gather_elements_desc{f32({3, 3}), u32({2, 3}), f32({2, 3}), 0}),
                                   operator_desc(gather_nd_desc{f32({2, 2}), u32({2, 1}), f32({2, 2}), 2, 2}),
                                   operator_desc(gather_nd1_desc{f32({1, 3, 2, 2}), u32({1, 3, 2, 2}), f32({1, 1, 3, 2}), 3,
                                                                 3, 1})}) {
        const std::string json = model::dispatchable_json(d);
        INFO(json);
        CHECK(to_string(model::parse_dispatchable(json, "gather.json")) == to_string(d));
    }
    CHECK_THAT(model::dispatchable_json(gather_desc{f32({3, 2}), u32({1, 4}), f32({4, 2}), 0, 1}),
               Contains(R"("IndexDimensions":1)") && Contains(R"("IndicesTensor":{)"));
    CHECK_THROWS_WITH(model::parse_dispatchable(R"({"type": "GATHER_ND1", "desc": {
                          "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]},
                          "IndicesTensor": {"DataType": "UINT32", "Sizes": [2, 1]},
                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]},
                          "InputDimensionCount": 2, "IndicesDimensionCount": 2}})",
                                                "nd1.json"),
                      "nd1.json: desc: missing field 'BatchDimensionCount'");
    const std::string text = R"({
        "resources": {
            "X": {"initialValuesDataType": "FLOAT32", "initialValues": [11, 12, 13, 14]},
            "I": {"initialValuesDataType": "UINT32", "initialValues": [3, 1, 3, 0, 2]},
            "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 5, "value": 0}}
        },
        "dispatchables": {"gather": {"type": "DML_OPERATOR_GATHER", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 4]},
            "IndicesTensor": {"DataType": "UINT32", "Sizes": [1, 1, 1, 5]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 5]}, "Axis": 3, "IndexDimensions": 1}}},
        "commands": [{"type": "dispatch", "dispatchable": "gather",
                      "bindings": {"InputTensor": "X", "IndicesTensor": "I", "OutputTensor": "Out"}}]
    })";
    model::model m = model::parse(text, ".", "gather.json", feature_level::fl_1_0);
    model::run_options at_1_0;
    at_1_0.level = feature_level::fl_1_0;
    model::run(m, at_1_0);
    CHECK(values_of<float>(m.resources.at("Out").bytes()) == std::vector<float>{14, 12, 14, 11, 13});
    // An index out of range in a model: the dispatch refuses it when it runs, naming it.
    std::string bad = text;
    bad.replace(bad.find("[3, 1, 3, 0, 2]"), 15, "[3, 1, 4, 0, 2]");
    model::model b = model::parse(bad, ".", "gather.json");
    CHECK_THROWS_WITH(model::run(b), Catch::StartsWith("gather.json: commands[0]: dispatch of 'gather': GATHER: "
                                                       "IndicesTensor[0, 0, 0, 2] is 4"));
}

TEST_CASE("GATHER desc: a logical output longer than N keeps its last N entries, the dropped axes read at 0",
          "[gather][desc]") {
    // DirectML 1.15.4's outputs for these descs (test_directml's probe, docs/directml.md), with
    // its inputs 10, 11, ... here 1, 2, ...: each dropped axis, an input's or an index's, of any
    // size, is read at coordinate 0.
    const auto idx = [](std::vector<std::uint32_t> v) { return bytes_of(v); };
    // The page's example 3 with the output {1, 2}: logical {3, 1, 2}, Out[0, j] = In[0, Indices[0, j]].
    CHECK(run(gather_desc{f32({3, 2}), u32({1, 2}), f32({1, 2}), 1, 2}, iota_from(1, 6), idx({1, 0})) ==
          std::vector<float>{2, 1});
    // Logical {2, 2, 1, 4}: the input's first axis, of 2, dropped.
    CHECK(run(gather_desc{f32({2, 4, 4}), u32({1, 2, 1}), f32({2, 1, 4}), 1, 2}, iota_from(1, 32), idx({3, 2})) ==
          std::vector<float>{13, 14, 15, 16, 9, 10, 11, 12});
    // Logical {2, 2, 3}: the indices' first axis dropped, Out[i, j] = In[Indices[0, i], j].
    CHECK(run(gather_desc{f32({4, 3}), u32({2, 2}), f32({2, 3}), 0, 2}, iota_from(1, 12), idx({3, 2, 1, 0})) ==
          std::vector<float>{10, 11, 12, 7, 8, 9});
    // The indices of the dropped rows are never read, so out of range there they are not refused
    // (the engine checked every index before; the textbook only those it reads: fuzz_ops found it).
    CHECK(run(gather_desc{f32({4, 3}), u32({2, 2}), f32({2, 3}), 0, 2}, iota_from(1, 12), idx({3, 2, 9, 99})) ==
          std::vector<float>{10, 11, 12, 7, 8, 9});
    // Logical {2, 2, 2, 2, 2}: both, Out[i, j, l] = In[0, Indices[0, i, j], l].
    CHECK(run(gather_desc{f32({2, 3, 2}), u32({2, 2, 2}), f32({2, 2, 2}), 1, 3}, iota_from(1, 12),
              idx({0, 1, 2, 1, 2, 0, 1, 1})) == std::vector<float>{1, 2, 3, 4, 5, 6, 3, 4});
    // Logical {3, 2, 2, 3, 4}: an input axis of 3 dropped.
    CHECK(run(gather_desc{f32({3, 2, 4, 4}), u32({1, 1, 2, 3}), f32({2, 2, 3, 4}), 2, 2}, iota_from(1, 96),
              idx({3, 2, 1, 0, 3, 2})) ==
          std::vector<float>{13, 14, 15, 16, 9,  10, 11, 12, 5,  6,  7,  8,  1,  2,  3,  4,  13, 14, 15, 16, 9,  10, 11, 12,
                             29, 30, 31, 32, 25, 26, 27, 28, 21, 22, 23, 24, 17, 18, 19, 20, 29, 30, 31, 32, 25, 26, 27, 28});
    // The sizes must be the last N entries: DirectML refuses {2, 2, 4} for logical {2, 2, 1, 4}.
    CHECK(message(gather_desc{f32({2, 4, 4}), u32({1, 2, 1}), f32({2, 2, 4}), 1, 2}) ==
          "GATHER: OutputTensor.Sizes {2, 2, 4} differ from {2, 1, 4}, the last 3 of the sizes {2, 2, 1, 4} GATHER "
          "gives for Axis 1 and IndexDimensions 2");
}

namespace {

/// The output sizes of a logical shape fitted into `n` axes as DirectML fits them: leading 1s for a
/// shorter shape; from a longer one GATHER (`keep_last`) keeps the last n entries, the ND ops
/// nothing (the draw is then redrawn).
std::optional<std::vector<std::uint32_t>> fitted(const std::vector<std::uint32_t>& logical, std::size_t n,
                                                 bool keep_last = false) {
    std::vector<std::uint32_t> out;
    if (logical.size() <= n) {
        out.assign(n - logical.size(), 1);
        out.insert(out.end(), logical.begin(), logical.end());
        return out;
    }
    if (!keep_last) return std::nullopt;
    std::size_t drop = logical.size() - n;
    for (std::uint32_t s : logical) {
        if (drop > 0 && out.empty()) --drop;
        else out.push_back(s);
    }
    if (drop > 0) return std::nullopt;
    return out;
}

constexpr data_type index_types[] = {data_type::uint32, data_type::int32, data_type::uint64, data_type::int64};

/// A random valid gather desc of `op` at the newest level: rank 1 to 6, any movable type, any
/// index type, small sizes with many 1s; strides as random_tensor draws them.
operator_desc random_desc(std::mt19937_64& rng, operator_type op) {
    const auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return static_cast<std::uint32_t>(lo + rng() % (hi - lo + 1)); };
    for (;;) {
        const data_type type = movable_data_types[rng() % std::size(movable_data_types)];
        const data_type index = index_types[rng() % std::size(index_types)];
        const std::uint32_t n = pick(1, 6);
        const auto size = [&] { return rng() % 3 == 0 ? 1u : pick(1, n > 4 ? 3 : 4); };
        std::vector<std::uint32_t> in(n);
        for (auto& s : in) s = size();
        if (op == operator_type::gather) {
            const std::uint32_t a = pick(0, n - 1), k = pick(0, n);
            std::vector<std::uint32_t> idx(n, 1), logical;
            for (std::uint32_t e = n - k; e < n; ++e) idx[e] = size();
            for (std::uint32_t i = 0; i < a; ++i) logical.push_back(in[i]);
            for (std::uint32_t e = n - k; e < n; ++e) logical.push_back(idx[e]);
            for (std::uint32_t i = a + 1; i < n; ++i) logical.push_back(in[i]);
            const auto out = fitted(logical, n, true);
            if (!out) continue;
            return gather_desc{random_tensor(rng, type, in, false), random_tensor(rng, index, idx, false),
                               random_tensor(rng, type, *out, true), a, k};
        }
        if (op == operator_type::gather_elements) {
            const std::uint32_t a = pick(0, n - 1);
            std::vector<std::uint32_t> idx = in;
            idx[a] = pick(1, 5);
            return gather_elements_desc{random_tensor(rng, type, in, false), random_tensor(rng, index, idx, false),
                                        random_tensor(rng, type, idx, true), a};
        }
        // GATHER_ND(1): I and J meaningful trailing dimensions, B batch dimensions, tuples of T.
        const std::uint32_t ni = pick(1, n), nj = pick(1, n);
        const std::uint32_t b = op == operator_type::gather_nd1 ? pick(0, std::min(ni, nj) - 1) : 0;
        if (ni - b < 1) continue;
        const std::uint32_t t = pick(1, ni - b), r = ni - b - t;
        for (std::uint32_t i = 0; i < n - ni; ++i) in[i] = 1;
        std::vector<std::uint32_t> idx(n, 1);
        for (std::uint32_t e = n - nj; e + 1 < n; ++e) idx[e] = size();
        for (std::uint32_t e = 0; e < b; ++e) idx[n - nj + e] = in[n - ni + e];
        idx[n - 1] = t;
        if (nj == 1 && b > 0) continue;
        std::vector<std::uint32_t> logical(idx.begin() + (n - nj), idx.end() - 1);
        for (std::uint32_t i = n - r; i < n; ++i) logical.push_back(in[i]);
        const auto out = fitted(logical, n);
        if (!out) continue;
        if (op == operator_type::gather_nd)
            return gather_nd_desc{random_tensor(rng, type, in, false), random_tensor(rng, index, idx, false),
                                  random_tensor(rng, type, *out, true), ni, nj};
        return gather_nd1_desc{random_tensor(rng, type, in, false), random_tensor(rng, index, idx, false),
                               random_tensor(rng, type, *out, true), ni, nj, b};
    }
}

/// Index bytes for `d`: every index inside the axis it addresses (negative ones counting from the
/// end for the signed types), found through the textbook's own reading: each element of the
/// index buffer gets a value in [-size, size) or [0, size) of the smallest axis it could address.
std::vector<std::byte> random_indices(const operator_desc& d, std::mt19937_64& rng) {
    const buffer_tensor_desc& input = inputs_of(d)[0].desc();
    const buffer_tensor_desc& indices = inputs_of(d)[1].desc();
    const std::size_t n = input.sizes.size();
    // The axis sizes an index may address: GATHER's and GATHER_ELEMENTS's Axis; for the ND ops,
    // tuple entry m addresses input axis N - I + B + m, so the last index coordinate chooses it.
    std::vector<std::uint32_t> bounds;
    std::visit(
        [&](const auto& x) {
            using D = std::remove_cvref_t<decltype(x)>;
            if constexpr (std::is_same_v<D, gather_desc> || std::is_same_v<D, gather_elements_desc>) {
                bounds.push_back(x.input_tensor.sizes[x.axis]);
            } else if constexpr (std::is_same_v<D, gather_nd_desc> || std::is_same_v<D, gather_nd1_desc>) {
                std::uint32_t batch = 0;
                if constexpr (std::is_same_v<D, gather_nd1_desc>) batch = x.batch_dimension_count;
                for (std::uint32_t m = 0; m < x.indices_tensor.sizes[n - 1]; ++m)
                    bounds.push_back(x.input_tensor.sizes[n - x.input_dimension_count + batch + m]);
            }
        },
        d);
    const std::size_t width = element_size(indices.data_type);
    const bool is_signed = indices.data_type == data_type::int32 || indices.data_type == data_type::int64;
    std::vector<std::byte> bytes(static_cast<std::size_t>(indices.total_tensor_size_in_bytes));
    // Element k of the buffer may be read for several coordinates (zero strides): give each the
    // smallest bound of the tuple entries it could hold.
    const std::uint32_t bound = *std::min_element(bounds.begin(), bounds.end());
    for (std::size_t k = 0; k + width <= bytes.size(); k += width) {
        std::int64_t v = static_cast<std::int64_t>(rng() % bound);
        if (is_signed && rng() % 2 == 0) v -= bound; // [-bound, -1]: from the end
        std::memcpy(bytes.data() + k, &v, width);   // little-endian: the low `width` bytes
    }
    return bytes;
}

constexpr std::size_t guard = 64;

void random_round(operator_type op, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    int ran = 0, strided = 0, signed_indices = 0, logical_longer = 0, tuples = 0, batches = 0;
    for (int draw = 0; draw < 2000; ++draw) {
        const operator_desc d = random_desc(rng, op);
        INFO("desc " << draw << ": " << to_string(d));
        if (const auto why = validate(d)) { // every draw is valid
            FAIL_CHECK(*why);
            continue;
        }
        const buffer_tensor_desc& in_desc = inputs_of(d)[0].desc();
        std::vector<std::byte> input(static_cast<std::size_t>(in_desc.total_tensor_size_in_bytes));
        for (auto& b : input) b = static_cast<std::byte>(rng());
        const auto indices = random_indices(d, rng);
        const std::size_t out_bytes = static_cast<std::size_t>(outputs_of(d)[0].desc().total_tensor_size_in_bytes);
        const std::byte fill = static_cast<std::byte>(rng());
        std::vector<std::byte> fast(out_bytes + 2 * guard, fill), slow = fast, threaded = fast;
        const auto inner = [&](std::vector<std::byte>& b) { return std::span<std::byte>(b).subspan(guard, out_bytes); };
        const std::span<const std::byte> ins[] = {input, indices};
        const std::span<std::byte> fast_out[] = {inner(fast)}, slow_out[] = {inner(slow)}, threaded_out[] = {inner(threaded)};
        execute(d, ins, fast_out);
        execute(d, ins, threaded_out, execution_options{4, 1});
        textbook::execute(d, ins, slow_out);
        CHECK(fast == slow);
        CHECK(threaded == slow);
        CHECK(std::all_of(slow.begin(), slow.begin() + guard, [&](std::byte b) { return b == fill; }));
        CHECK(std::all_of(slow.end() - guard, slow.end(), [&](std::byte b) { return b == fill; }));
        ++ran;
        // What the draws cover: strided tensors, signed (and so negative) indices, and per operator
        // the cases where DirectML's rules differ most (an output shape longer than the rank
        // folded in, tuples of several indices, batches).
        strided += outputs_of(d)[0].desc().strides.has_value();
        const data_type it = inputs_of(d)[1].desc().data_type;
        signed_indices += it == data_type::int32 || it == data_type::int64;
        std::visit(
            [&](const auto& x) {
                using D = std::remove_cvref_t<decltype(x)>;
                if constexpr (std::is_same_v<D, gather_desc>) logical_longer += x.index_dimensions > 1;
                if constexpr (std::is_same_v<D, gather_nd_desc> || std::is_same_v<D, gather_nd1_desc>)
                    tuples += x.indices_tensor.sizes.back() > 1;
                if constexpr (std::is_same_v<D, gather_nd1_desc>) batches += x.batch_dimension_count > 0;
            },
            d);
    }
    CHECK(ran == 2000);
    CHECK(strided > 1000);
    CHECK(signed_indices > 800);
    if (op == operator_type::gather) CHECK(logical_longer > 300);
    if (op == operator_type::gather_nd || op == operator_type::gather_nd1) CHECK(tuples > 300);
    if (op == operator_type::gather_nd1) CHECK(batches > 200);
}

} // namespace

TEST_CASE("GATHER desc: the engine equals the textbook on 2,000 random descs, on one thread and four", "[gather][desc][property]") {
    random_round(operator_type::gather, 6701);
}

TEST_CASE("GATHER_ELEMENTS desc: the engine equals the textbook on 2,000 random descs, on one thread and four",
          "[gather_elements][desc][property]") {
    random_round(operator_type::gather_elements, 10701);
}

TEST_CASE("GATHER_ND desc: the engine equals the textbook on 2,000 random descs, on one thread and four",
          "[gather_nd][desc][property]") {
    random_round(operator_type::gather_nd, 10801);
}

TEST_CASE("GATHER_ND1 desc: the engine equals the textbook on 2,000 random descs, on one thread and four",
          "[gather_nd][desc][property]") {
    random_round(operator_type::gather_nd1, 14001);
}
