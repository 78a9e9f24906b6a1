// SCATTER_ELEMENTS, SCATTER_ND and ONE_HOT in the desc layer (operator.hpp): DirectML's documented
// examples over one buffer per tensor, the rules per feature level with their messages, the
// scatters' refusal of an index outside its axis (nothing written) and ONE_HOT's OffValue for one,
// source_of naming UpdatesTensor or ValuesTensor, DxDispatch model files (SCATTER under the name
// DxDispatch reads), the refusing consumers, and the engine against the textbook on 2,000 random
// descs of each (duplicate scatter targets and out-of-range ONE_HOT indices included), on one
// thread and four, with guard bytes around every output buffer.
#include <catch2/catch.hpp>

#include <dmlref/compare.hpp>
#include <dmlref/directml/translate.hpp>
#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/parallel.hpp>
#include <dmlref/textbook.hpp>

#include "desc_test_support.hpp"
#include "model.hpp"

#include <algorithm>
#include <cstring>
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


/// Runs `desc` on the engine and on the textbook over the given input buffers (binding order);
/// both must agree; returns the FLOAT32 output.
std::vector<float> run(const operator_desc& desc, const std::vector<std::vector<std::byte>>& inputs,
                       feature_level level = newest_feature_level) {
    const auto& out_desc = outputs_of(desc).front().desc();
    std::vector<std::byte> fast(static_cast<std::size_t>(out_desc.total_tensor_size_in_bytes)), slow = fast;
    const std::vector<std::span<const std::byte>> ins(inputs.begin(), inputs.end());
    const std::span<std::byte> fast_out[] = {fast}, slow_out[] = {slow};
    execute(desc, ins, fast_out, level);
    textbook::execute(desc, ins, slow_out, level);
    CHECK(fast == slow);
    return values_of<float>(fast);
}

std::vector<std::byte> u32s(std::vector<std::uint32_t> v) { return bytes_of(v); }

} // namespace

TEST_CASE("SCATTER_ELEMENTS desc: DirectML's examples and ONNX's", "[scatter][desc]") {
    // The repeated index 3 keeps the later update, as the page's example shows.
    CHECK(run(scatter_elements_desc{f32({5}), u32({4}), f32({4}), f32({5}), 0},
              {bytes_of(iota_from(0, 5)), u32s({3, 1, 3, 0}), bytes_of(std::vector<float>{5, 6, 7, 8})}) ==
          std::vector<float>{8, 6, 2, 7, 4});
    CHECK(run(scatter_elements_desc{f32({3, 3}), u32({2, 3}), f32({2, 3}), f32({3, 3}), 0},
              {bytes_of(std::vector<float>(9, 0)), u32s({1, 0, 2, 0, 2, 1}),
               bytes_of(std::vector<float>{10, 11, 12, 20, 21, 22})}) == std::vector<float>{20, 11, 0, 10, 0, 22, 0, 21, 12});
    CHECK(run(scatter_elements_desc{f32({1, 5}), typed(data_type::int64, {1, 2}), f32({1, 2}), f32({1, 5}), 1},
              {bytes_of(iota_from(1, 5)), bytes_of(std::vector<std::int64_t>{1, -3}), bytes_of(std::vector<float>{1.5f, 2.5f})}) ==
          std::vector<float>{1, 1.5f, 2.5f, 4, 5});
    const operator_desc d = scatter_elements_desc{f32({1, 1, 1, 5}), u32({1, 1, 1, 4}), f32({1, 1, 1, 4}), f32({1, 1, 1, 5}), 3};
    CHECK(type_of(d) == operator_type::scatter_elements);
    CHECK(static_cast<std::uint32_t>(type_of(d)) == 94);
    CHECK(parse_operator_type("DML_OPERATOR_SCATTER") == operator_type::scatter_elements);
    CHECK(parse_operator_type("SCATTER_ELEMENTS") == operator_type::scatter_elements);
    CHECK(introduced_in(type_of(d)) == feature_level::fl_2_0);
    CHECK(message(d, feature_level::fl_1_0) ==
          "SCATTER_ELEMENTS: not available at feature level 1_0; it was introduced in feature level 2_0");
    CHECK(message(d, feature_level::fl_2_0) == "(accepted)");
    const auto ins = inputs_of(d);
    REQUIRE(ins.size() == 3);
    CHECK(ins[2].field == "UpdatesTensor");
    CHECK_THAT(to_string(d), Contains("SCATTER_ELEMENTS {InputTensor: ") && Contains(", UpdatesTensor: ") &&
                                 Contains(", Axis: 3}"));
}

TEST_CASE("SCATTER_ND desc: DirectML's example (= ONNX's)", "[scatter_nd][desc]") {
    const operator_desc d = scatter_nd_desc{f32({1, 1, 1, 8}), u32({1, 1, 4, 1}), f32({1, 1, 1, 4}), f32({1, 1, 1, 8}), 1, 2};
    CHECK(run(d, {bytes_of(iota_from(1, 8)), u32s({4, 3, 1, 7}), bytes_of(std::vector<float>{9, 10, 11, 12})},
              feature_level::fl_2_1) == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
    CHECK(static_cast<std::uint32_t>(type_of(d)) == 109);
    CHECK(message(d, feature_level::fl_2_0) ==
          "SCATTER_ND: not available at feature level 2_0; it was introduced in feature level 2_1");
    CHECK_THAT(to_string(d), Contains(", InputDimensionCount: 1, IndicesDimensionCount: 2}"));
    auto wrong = std::get<scatter_nd_desc>(d);
    wrong.updates_tensor = f32({1, 1, 4, 1});
    CHECK(message(wrong) ==
          "SCATTER_ND: UpdatesTensor.Sizes {1, 1, 4, 1} differ from {1, 1, 1, 4}, the sizes SCATTER_ND gives for "
          "InputDimensionCount 1, IndicesDimensionCount 2, BatchDimensionCount 0 and an index tuple of 1");
}

TEST_CASE("ONE_HOT desc: DirectML's four examples", "[one_hot][desc]") {
    const auto values = bytes_of(std::vector<float>{0, 1});
    CHECK(run(one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 3}, {u32s({0, 3, 2}), values}) ==
          std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
    CHECK(run(one_hot_desc{u32({1, 1, 1, 4}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 2}, {u32s({0, 2, 1, 0}), values}) ==
          std::vector<float>{1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0});
    CHECK(run(one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 3, 1}), f32({1, 1, 3, 4}), 3},
              {u32s({0, 3, 2}), bytes_of(std::vector<float>{4, 2, 9})}) == std::vector<float>{2, 4, 4, 4, 4, 4, 4, 2, 4, 4, 2, 4});
    // -3 counts from the end; 100 is outside the axis: its whole sequence is OffValue, no error.
    CHECK(run(one_hot_desc{typed(data_type::int32, {1, 1, 3, 1}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 3},
              {bytes_of(std::vector<std::int32_t>{-3, 100, 3}), values}) ==
          std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    const operator_desc d = one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 3};
    CHECK(static_cast<std::uint32_t>(type_of(d)) == 95);
    CHECK(data_type_of(d) == data_type::float32);
    const auto ins = inputs_of(d);
    REQUIRE(ins.size() == 2);
    CHECK(ins[0].field == "IndicesTensor");
    CHECK(ins[1].field == "ValuesTensor");
    CHECK(message(d, feature_level::fl_1_0) == "ONE_HOT: not available at feature level 1_0; it was introduced in feature level 2_0");
    CHECK_THAT(to_string(d), Catch::StartsWith("ONE_HOT {IndicesTensor: ") && Contains(", ValuesTensor: ") &&
                                 Contains(", Axis: 3}"));
}

TEST_CASE("the scatter and ONE_HOT descs' rules per feature level, with their messages", "[scatter][one_hot][desc][validation]") {
    const auto scatter = [](data_type data, data_type index) {
        return operator_desc(scatter_elements_desc{typed(data, {1, 1, 1, 5}), typed(index, {1, 1, 1, 4}), typed(data, {1, 1, 1, 4}),
                                                   typed(data, {1, 1, 1, 5}), 3});
    };
    CHECK(message(scatter(data_type::uint8, data_type::uint32), feature_level::fl_2_0) ==
          "SCATTER_ELEMENTS: InputTensor.DataType UINT8 is not supported at feature level 2_0 (supported: FLOAT32, FLOAT16)");
    CHECK(message(scatter(data_type::uint8, data_type::uint32), feature_level::fl_2_1) == "(accepted)");
    CHECK(message(scatter(data_type::float32, data_type::int32), feature_level::fl_2_1) ==
          "SCATTER_ELEMENTS: IndicesTensor.DataType INT32 is not supported at feature level 2_1 (supported: UINT32)");
    CHECK(message(scatter(data_type::float32, data_type::int32), feature_level::fl_3_0) == "(accepted)");
    CHECK_THAT(message(scatter(data_type::int64, data_type::uint32), feature_level::fl_4_0),
               Contains("InputTensor.DataType INT64 is not supported at feature level 4_0"));
    CHECK(message(scatter(data_type::int64, data_type::uint32), feature_level::fl_4_1) == "(accepted)");
    auto updates = std::get<scatter_elements_desc>(scatter(data_type::float32, data_type::uint32));
    updates.updates_tensor.data_type = data_type::float16;
    CHECK(message(updates) ==
          "SCATTER_ELEMENTS: UpdatesTensor.DataType FLOAT16 differs from InputTensor.DataType FLOAT32; they must match");
    auto out_sizes = std::get<scatter_elements_desc>(scatter(data_type::float32, data_type::uint32));
    out_sizes.output_tensor = f32({1, 1, 1, 4});
    CHECK(message(out_sizes) ==
          "SCATTER_ELEMENTS: OutputTensor.Sizes {1, 1, 1, 4} differ from InputTensor.Sizes {1, 1, 1, 5}; they must match");
    // ONE_HOT: the indices' sizes, the values' count and type.
    CHECK(message(one_hot_desc{u32({1, 1, 3, 2}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 3}) ==
          "ONE_HOT: IndicesTensor.Sizes[3] is 2; on Axis = 3 it must be 1");
    CHECK(message(one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 1, 1}), f32({1, 1, 3, 4}), 3}) ==
          "ONE_HOT: ValuesTensor.Sizes {1, 1, 1, 1} hold one element; it must hold at least two (OffValue, OnValue)");
    CHECK(message(one_hot_desc{u32({1, 1, 3, 1}), typed(data_type::float16, {1, 1, 1, 2}), f32({1, 1, 3, 4}), 3}) ==
          "ONE_HOT: OutputTensor.DataType FLOAT32 differs from ValuesTensor.DataType FLOAT16; they must match");
    CHECK(message(one_hot_desc{u32({3, 1}), f32({1, 2}), f32({3, 4}), 1}, feature_level::fl_2_1) ==
          "ONE_HOT: IndicesTensor has 2 dimensions (DimensionCount); ONE_HOT takes 4 at feature level 2_1");
    CHECK(message(one_hot_desc{u32({3, 1}), f32({1, 2}), f32({3, 4}), 1}, feature_level::fl_3_0) == "(accepted)");
}

TEST_CASE("SCATTER_ND refuses an UpdatesTensor of more than N logical entries, leading 1s too", "[scatter_nd][desc][validation]") {
    // DirectML 1.15.4 drops no entry of the updates' logical shape (J - 1 + I - T entries): it
    // refuses these and accepts the same with one index dimension fewer (probes in test_directml).
    CHECK(message(scatter_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), f32({1, 1, 3, 1, 1}), 3, 5}) ==
          "SCATTER_ND: UpdatesTensor's logical sizes {1, 1, 1, 1, 1, 1} for InputDimensionCount 3, IndicesDimensionCount 5, "
          "BatchDimensionCount 0 and an index tuple of 1 have 6 entries, more than the tensors' DimensionCount 5; SCATTER_ND drops none of them");
    CHECK(message(scatter_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), f32({1, 1, 3, 1, 1}), 3, 4}) ==
          "(accepted)");
    CHECK(message(scatter_nd_desc{f32({1, 4, 3}), u32({1, 2, 1}), f32({2, 4, 3}), f32({1, 4, 3}), 3, 3}) ==
          "SCATTER_ND: UpdatesTensor's logical sizes {1, 2, 4, 3} for InputDimensionCount 3, IndicesDimensionCount 3, "
          "BatchDimensionCount 0 and an index tuple of 1 have 4 entries, more than the tensors' DimensionCount 3; SCATTER_ND drops none of them");
    CHECK(message(scatter_nd_desc{f32({1, 4, 3}), u32({1, 2, 1}), f32({1, 2, 3}), f32({1, 4, 3}), 2, 3}) == "(accepted)");
}

TEST_CASE("the scatters refuse an index outside its axis, naming it, with nothing written, and ONE_HOT gives OffValue",
          "[scatter][one_hot][desc][index]") {
    const scatter_elements_desc d{f32({5}), typed(data_type::int32, {2}), f32({2}), f32({5}), 0};
    const auto in = bytes_of(iota_from(0, 5));
    const auto upd = bytes_of(std::vector<float>{7, 8});
    const auto idx = bytes_of(std::vector<std::int32_t>{1, -6});
    std::vector<std::byte> out(20, std::byte{0xcd});
    const std::span<const std::byte> ins[] = {in, idx, upd};
    const std::span<std::byte> outs[] = {out};
    CHECK_FALSE(validate(d, ins, outs).has_value()); // validation never reads the indices
    const std::string expected = "SCATTER_ELEMENTS: IndicesTensor[1] is -6; it indexes OutputTensor.Sizes[0] = 5, so it must "
                                 "lie in [-5, 5) (INT32 index; a negative index counts from the end)";
    CHECK_THROWS_MATCHES(execute(d, ins, outs), validation_error, Catch::Message(expected));
    CHECK_THROWS_MATCHES(execute(d, ins, outs, execution_options{4, 1}), validation_error, Catch::Message(expected));
    CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0xcd}; }));
    std::vector<std::byte> slow(20);
    const std::span<std::byte> slow_out[] = {slow};
    CHECK_THROWS_AS(textbook::execute(d, ins, slow_out), validation_error);
    const scatter_nd_desc nd{f32({2, 3}), typed(data_type::uint64, {1, 2}), f32({1, 1}), f32({2, 3}), 2, 2};
    const auto nd_in = bytes_of(iota_from(0, 6));
    const auto nd_idx = bytes_of(std::vector<std::uint64_t>{1, std::uint64_t{1} << 32});
    const auto nd_upd = bytes_of(std::vector<float>{9});
    std::vector<std::byte> nd_out(24);
    const std::span<const std::byte> nd_ins[] = {nd_in, nd_idx, nd_upd};
    const std::span<std::byte> nd_outs[] = {nd_out};
    CHECK_THROWS_MATCHES(execute(nd, nd_ins, nd_outs), validation_error,
                         Catch::Message("SCATTER_ND: IndicesTensor[0, 1] is 4294967296; it indexes OutputTensor.Sizes[1] "
                                        "= 3, so it must lie in [0, 3) (UINT64 index)"));
    // ONE_HOT: UINT64 indices past 2^32 and 2^63 hit nothing.
    const one_hot_desc h{typed(data_type::uint64, {3, 1}), f32({1, 2}), f32({3, 3}), 1};
    CHECK(run(h, {bytes_of(std::vector<std::uint64_t>{(std::uint64_t{1} << 32) + 1, std::uint64_t{1} << 63, 2}),
                  bytes_of(std::vector<float>{5, 6})}) == std::vector<float>{5, 5, 5, 5, 5, 5, 5, 5, 6});
}

TEST_CASE("textbook source_of names a scatter's update or input and ONE_HOT's value", "[scatter][one_hot][desc][textbook]") {
    const scatter_elements_desc d{f32({5}), u32({4}), f32({4}), f32({5}), 0};
    const auto in = bytes_of(iota_from(0, 5));
    const auto idx = u32s({3, 1, 3, 0});
    const auto upd = bytes_of(std::vector<float>{5, 6, 7, 8});
    const std::span<const std::byte> ins[] = {in, idx, upd};
    using textbook::source;
    using textbook::source_kind;
    CHECK(textbook::source_of(d, ins, 0, {3}) == source{source_kind::input, {2}, 2}); // the later of the two updates
    CHECK(textbook::source_of(d, ins, 0, {2}) == source{source_kind::input, {2}, 0}); // no update: the input's
    CHECK(textbook::to_string(textbook::source_of(d, ins, 0, {3}), d) == "UpdatesTensor [2]");
    CHECK(textbook::to_string(textbook::source_of(d, ins, 0, {2}), d) == "InputTensor [2]");
    CHECK_THROWS_WITH(textbook::source_of(d, {1}), Contains("depends on IndicesTensor's values; pass source_of the 3 input buffers"));
    const one_hot_desc h{u32({1, 1, 3, 1}), f32({1, 1, 3, 1}), f32({1, 1, 3, 4}), 3};
    const auto h_idx = u32s({0, 3, 2});
    const auto h_values = bytes_of(std::vector<float>{4, 2, 9});
    const std::span<const std::byte> h_ins[] = {h_idx, h_values};
    CHECK(textbook::source_of(h, h_ins, 0, {0, 0, 1, 3}) == source{source_kind::input, {0, 0, 1, 0}, 1}); // OnValue
    CHECK(textbook::source_of(h, h_ins, 0, {0, 0, 1, 0}) == source{source_kind::input, {0, 0, 0, 0}, 1}); // OffValue
    CHECK(textbook::to_string(textbook::source_of(h, h_ins, 0, {0, 0, 1, 3}), h) == "ValuesTensor [0, 0, 1, 0]");
}

TEST_CASE("consumers written for one input and one output refuse the scatters and ONE_HOT by name", "[scatter][one_hot][desc]") {
    const operator_desc s = scatter_nd_desc{f32({1, 1, 1, 8}), u32({1, 1, 4, 1}), f32({1, 1, 1, 4}), f32({1, 1, 1, 8}), 1, 2};
    const operator_desc h = one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 3};
    CHECK_NOTHROW(directml::translated(s)); // the DirectML backend takes them (test_directml_translate)
    CHECK_NOTHROW(directml::translated(h));
    CHECK_THROWS_WITH(model::single_operator_model(h, 1, "in.npy", "out.npy"),
                      "ONE_HOT: the model writer takes one input and one output tensor; it does not take ONE_HOT (several "
                      "input tensors) yet");
    for (const operator_type t : {operator_type::scatter_elements, operator_type::scatter_nd, operator_type::one_hot}) {
        CHECK_FALSE(binds_one_input_and_output(t));
        CHECK(has_data_dependent_mapping(t));
    }
}

TEST_CASE("model files: the scatters and ONE_HOT with DxDispatch's names", "[scatter][one_hot][desc][model]") {
    const operator_desc se = scatter_elements_desc{f32({5}), u32({4}), f32({4}), f32({5}), 0};
    const std::string json = model::dispatchable_json(se);
    CHECK_THAT(json, Contains(R"("type":"DML_OPERATOR_SCATTER")") && Contains(R"("UpdatesTensor":{)"));
    for (const operator_desc& d : {se, operator_desc(scatter_nd_desc{f32({8}), u32({4, 1}), f32({4}), f32({8}), 1, 2}),
                                   operator_desc(one_hot_desc{u32({3, 1}), f32({1, 2}), f32({3, 4}), 1})})
        CHECK(to_string(model::parse_dispatchable(model::dispatchable_json(d), "indexed.json")) == to_string(d));
    const std::string text = R"({
        "resources": {
            "I": {"initialValuesDataType": "UINT32", "initialValues": [0, 3, 2]},
            "V": {"initialValuesDataType": "FLOAT32", "initialValues": [4, 2, 9]},
            "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 12, "value": 0}}
        },
        "dispatchables": {"hot": {"type": "ONE_HOT", "desc": {
            "IndicesTensor": {"DataType": "UINT32", "Sizes": [1, 1, 3, 1]},
            "ValuesTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 1]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 4]}, "Axis": 3}}},
        "commands": [{"type": "dispatch", "dispatchable": "hot",
                      "bindings": {"IndicesTensor": "I", "ValuesTensor": "V", "OutputTensor": "Out"}}]
    })";
    model::model m = model::parse(text, ".", "hot.json", feature_level::fl_2_0);
    model::run_options at_2_0;
    at_2_0.level = feature_level::fl_2_0;
    model::run(m, at_2_0);
    CHECK(values_of<float>(m.resources.at("Out").bytes()) == std::vector<float>{2, 4, 4, 4, 4, 4, 4, 2, 4, 4, 2, 4});
    CHECK_THROWS_WITH(model::parse_dispatchable(R"({"type": "SCATTER", "desc": {
                          "InputTensor": {"DataType": "FLOAT32", "Sizes": [5]},
                          "IndicesTensor": {"DataType": "UINT32", "Sizes": [4]},
                          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [5]}, "Axis": 0}})",
                                                "scatter.json"),
                      "scatter.json: desc: missing field 'UpdatesTensor'");
}

namespace {

constexpr data_type index_types[] = {data_type::uint32, data_type::int32, data_type::uint64, data_type::int64};

/// A random valid desc of `op` at the newest level: rank 1 to 6, any movable type and index type.
operator_desc random_desc(std::mt19937_64& rng, operator_type op) {
    const auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return static_cast<std::uint32_t>(lo + rng() % (hi - lo + 1)); };
    const data_type type = movable_data_types[rng() % std::size(movable_data_types)];
    const data_type index = index_types[rng() % std::size(index_types)];
    const std::uint32_t n = pick(1, 6);
    const auto size = [&] { return rng() % 3 == 0 ? 1u : pick(1, n > 4 ? 3 : 4); };
    std::vector<std::uint32_t> sizes(n);
    for (auto& s : sizes) s = size();
    if (op == operator_type::scatter_elements) {
        const std::uint32_t a = pick(0, n - 1);
        std::vector<std::uint32_t> idx = sizes;
        idx[a] = pick(1, 5); // more updates than the axis holds: duplicates
        return scatter_elements_desc{random_tensor(rng, type, sizes, false), random_tensor(rng, index, idx, false),
                                     random_tensor(rng, type, idx, false), random_tensor(rng, type, sizes, true), a};
    }
    if (op == operator_type::scatter_nd) {
        // I meaningful output dimensions, J index dimensions, tuples of T; the updates are the index
        // batch then the R = I - T trailing output dimensions, fitted as GATHER_ND's output.
        for (;;) {
            const std::uint32_t ni = pick(1, n), nj = pick(1, n), t = pick(1, ni), r = ni - t;
            auto out = sizes;
            for (std::uint32_t i = 0; i < n - ni; ++i) out[i] = 1;
            std::vector<std::uint32_t> idx(n, 1);
            for (std::uint32_t e = n - nj; e + 1 < n; ++e) idx[e] = size();
            idx[n - 1] = t;
            std::vector<std::uint32_t> logical(idx.begin() + (n - nj), idx.end() - 1);
            for (std::uint32_t i = n - r; i < n; ++i) logical.push_back(out[i]);
            if (logical.size() > n) continue; // refused: DirectML drops no entry
            std::vector<std::uint32_t> upd(n - logical.size(), 1);
            upd.insert(upd.end(), logical.begin(), logical.end());
            return scatter_nd_desc{random_tensor(rng, type, out, false), random_tensor(rng, index, idx, false),
                                   random_tensor(rng, type, upd, false), random_tensor(rng, type, out, true), ni, nj};
        }
    }
    const std::uint32_t a = pick(0, n - 1);
    auto idx = sizes;
    idx[a] = 1;
    std::vector<std::uint32_t> values(n, 1);
    values[rng() % n] = pick(2, 3); // OffValue, OnValue (and a spare)
    if (rng() % 2 == 0) values[rng() % n] = 2; // at times two axes above 1: OnValue lies on the innermost
    return one_hot_desc{random_tensor(rng, index, idx, false), random_tensor(rng, type, values, false),
                        random_tensor(rng, type, sizes, true), a};
}

/// Index bytes for `d`: the scatters' inside the axis each addresses (negative ones from the end for
/// signed types; the smallest axis bound when an element could address several); ONE_HOT's
/// anywhere in [-size - 2, size + 2), past the ends too, and at times a 64-bit value past 2^32.
std::vector<std::byte> random_indices(const operator_desc& d, std::mt19937_64& rng) {
    std::vector<std::uint32_t> bounds;
    bool one_hot = false;
    std::visit(
        [&](const auto& x) {
            using D = std::remove_cvref_t<decltype(x)>;
            if constexpr (std::is_same_v<D, scatter_elements_desc>) {
                bounds.push_back(x.output_tensor.sizes[x.axis]);
            } else if constexpr (std::is_same_v<D, scatter_nd_desc>) {
                const std::size_t n = x.output_tensor.sizes.size();
                for (std::uint32_t m = 0; m < x.indices_tensor.sizes[n - 1]; ++m)
                    bounds.push_back(x.output_tensor.sizes[n - x.input_dimension_count + m]);
            } else if constexpr (std::is_same_v<D, one_hot_desc>) {
                bounds.push_back(x.output_tensor.sizes[x.axis]);
                one_hot = true;
            }
        },
        d);
    const buffer_tensor_desc& indices = std::holds_alternative<one_hot_desc>(d) ? inputs_of(d)[0].desc() : inputs_of(d)[1].desc();
    const std::size_t width = element_size(indices.data_type);
    const bool is_signed = indices.data_type == data_type::int32 || indices.data_type == data_type::int64;
    const std::int64_t bound = *std::min_element(bounds.begin(), bounds.end());
    std::vector<std::byte> bytes(static_cast<std::size_t>(indices.total_tensor_size_in_bytes));
    for (std::size_t k = 0; k + width <= bytes.size(); k += width) {
        std::int64_t v = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(bound));
        if (one_hot) {
            v = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(bound + 4)) - 2; // past either end
            if (width == 8 && rng() % 8 == 0) v += std::int64_t{1} << 32;
            if (!is_signed && v < 0) v = bound + 1;
        } else if (is_signed && rng() % 2 == 0) {
            v -= bound; // [-bound, -1]: from the end
        }
        std::memcpy(bytes.data() + k, &v, width); // little-endian: the low `width` bytes
    }
    return bytes;
}

constexpr std::size_t guard = 64;

void random_round(operator_type op, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    int ran = 0, duplicates = 0, off_sequences = 0;
    for (int draw = 0; draw < 2000; ++draw) {
        const operator_desc d = random_desc(rng, op);
        INFO("desc " << draw << ": " << to_string(d));
        if (const auto why = validate(d)) { // every draw is valid
            FAIL_CHECK(*why);
            continue;
        }
        const auto ins_desc = inputs_of(d);
        std::vector<std::vector<std::byte>> buffers;
        for (std::size_t k = 0; k < ins_desc.size(); ++k) {
            const bool is_index = ins_desc[k].field == "IndicesTensor";
            if (is_index) {
                buffers.push_back(random_indices(d, rng));
            } else {
                buffers.emplace_back(static_cast<std::size_t>(ins_desc[k].desc().total_tensor_size_in_bytes));
                for (auto& b : buffers.back()) b = static_cast<std::byte>(rng());
            }
        }
        const std::size_t out_bytes = static_cast<std::size_t>(outputs_of(d)[0].desc().total_tensor_size_in_bytes);
        const std::byte fill = static_cast<std::byte>(rng());
        std::vector<std::byte> fast(out_bytes + 2 * guard, fill), slow = fast, threaded = fast;
        const auto inner = [&](std::vector<std::byte>& b) { return std::span<std::byte>(b).subspan(guard, out_bytes); };
        const std::vector<std::span<const std::byte>> ins(buffers.begin(), buffers.end());
        const std::span<std::byte> fast_out[] = {inner(fast)}, slow_out[] = {inner(slow)}, threaded_out[] = {inner(threaded)};
        execute(d, ins, fast_out);
        execute(d, ins, threaded_out, execution_options{4, 1});
        textbook::execute(d, ins, slow_out);
        CHECK(fast == slow);
        CHECK(threaded == slow);
        CHECK(std::all_of(slow.begin(), slow.begin() + guard, [&](std::byte b) { return b == fill; }));
        CHECK(std::all_of(slow.end() - guard, slow.end(), [&](std::byte b) { return b == fill; }));
        ++ran;
        // What the draws cover: scatters whose updates land twice on one element, ONE_HOT sequences
        // left all OffValue by an index outside the axis.
        std::visit(
            [&](const auto& x) {
                using D = std::remove_cvref_t<decltype(x)>;
                if constexpr (std::is_same_v<D, scatter_elements_desc> || std::is_same_v<D, scatter_nd_desc>) {
                    duplicates += !detail::scatter_duplicates(x, ins[1]).empty();
                } else if constexpr (std::is_same_v<D, one_hot_desc>) {
                    bool all_off = true;
                    std::vector<std::uint32_t> c(x.output_tensor.sizes.size(), 0);
                    for (std::uint32_t k = 0; k < x.output_tensor.sizes[x.axis]; ++k) {
                        c[x.axis] = k;
                        all_off = all_off && textbook::source_of(d, ins, 0, c).coordinates ==
                                                 std::vector<std::uint32_t>(x.values_tensor.sizes.size(), 0);
                    }
                    off_sequences += all_off;
                }
            },
            d);
    }
    CHECK(ran == 2000);
    if (op != operator_type::one_hot) CHECK(duplicates > 300);
    else CHECK(off_sequences > 200);
}

} // namespace

TEST_CASE("SCATTER_ELEMENTS desc: the engine equals the textbook on 2,000 random descs, on one thread and four",
          "[scatter][desc][property]") {
    random_round(operator_type::scatter_elements, 9401);
}

TEST_CASE("SCATTER_ND desc: the engine equals the textbook on 2,000 random descs, on one thread and four",
          "[scatter_nd][desc][property]") {
    random_round(operator_type::scatter_nd, 10901);
}

TEST_CASE("ONE_HOT desc: the engine equals the textbook on 2,000 random descs, on one thread and four", "[one_hot][desc][property]") {
    random_round(operator_type::one_hot, 9501);
}
