// JOIN and SPLIT in the desc layer (operator.hpp): DirectML's documented examples over one buffer
// per tensor, the rules per feature level with their messages, the textbook's source_of naming the
// part, compare's per-part regions, the consumers that refuse tensor arrays by name, and the engine
// against the textbook on 2,000 random JOIN and 2,000 random SPLIT descs.
#include <catch2/catch.hpp>

#include <dmlref/compare.hpp>
#include <dmlref/directml/translate.hpp>
#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/textbook.hpp>

#include "model.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

using namespace dmlref;
using Catch::Matchers::Contains;

namespace {

std::vector<std::byte> floats(float first, std::size_t n) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), first);
    std::vector<std::byte> bytes(n * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
}

std::vector<float> values(const std::vector<std::byte>& bytes) {
    std::vector<float> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
    return v;
}

buffer_tensor_desc f32(std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::float32, std::move(sizes)); }

/// Buffers for each tensor, inputs filled with a pattern, outputs with `fill`; runs the engine and
/// the textbook and requires the same bytes; returns the outputs.
std::vector<std::vector<std::byte>> run_both(const operator_desc& desc, std::mt19937_64& rng, std::byte fill = std::byte{0xcd}) {
    std::vector<std::vector<std::byte>> in, fast, slow;
    for (const auto& t : inputs_of(desc)) {
        in.emplace_back(static_cast<std::size_t>(t.desc().total_tensor_size_in_bytes));
        for (auto& b : in.back()) b = static_cast<std::byte>(rng());
    }
    for (const auto& t : outputs_of(desc)) fast.emplace_back(static_cast<std::size_t>(t.desc().total_tensor_size_in_bytes), fill);
    slow = fast;
    const std::vector<std::span<const std::byte>> in_spans(in.begin(), in.end());
    std::vector<std::span<std::byte>> fast_spans(fast.begin(), fast.end()), slow_spans(slow.begin(), slow.end());
    execute(desc, in_spans, fast_spans);
    textbook::execute(desc, in_spans, slow_spans);
    REQUIRE(fast == slow);
    return fast;
}

} // namespace

TEST_CASE("JOIN desc: DirectML's example 1 over two input buffers", "[join][desc]") {
    const join_desc d{{f32({1, 1, 2, 3}), f32({1, 1, 2, 4})}, f32({1, 1, 2, 7}), 3};
    const auto a = floats(1, 6), b = floats(7, 8);
    std::vector<std::byte> out(14 * 4);
    const std::span<const std::byte> ins[] = {a, b};
    const std::span<std::byte> outs[] = {out};
    execute(d, ins, outs);
    CHECK(values(out) == std::vector<float>{1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14});
    CHECK(type_of(d) == operator_type::join);
    CHECK(static_cast<std::uint32_t>(operator_type::join) == 63);
    CHECK(inputs_of(d).size() == 2);
    CHECK(inputs_of(d)[1].field == "InputTensors[1]");
    CHECK(outputs_of(d).front().field == "OutputTensor");
    CHECK(parse_operator_type("DML_OPERATOR_JOIN") == operator_type::join);
}

TEST_CASE("SPLIT desc: DirectML's example 1 into three output buffers", "[split][desc]") {
    const split_desc d{f32({1, 1, 6, 2}), {f32({1, 1, 2, 2}), f32({1, 1, 1, 2}), f32({1, 1, 3, 2})}, 2};
    const auto in = floats(1, 12);
    std::vector<std::byte> a(16), b(8), c(24);
    const std::span<const std::byte> ins[] = {in};
    const std::span<std::byte> outs[] = {a, b, c};
    execute(d, ins, outs);
    CHECK(values(a) == std::vector<float>{1, 2, 3, 4});
    CHECK(values(b) == std::vector<float>{5, 6});
    CHECK(values(c) == std::vector<float>{7, 8, 9, 10, 11, 12});
    CHECK(static_cast<std::uint32_t>(operator_type::split) == 62);
    CHECK(outputs_of(d)[2].field == "OutputTensors[2]");
    CHECK(parse_operator_type("SPLIT") == operator_type::split);
    CHECK_THAT(to_string(operator_desc(d)), Contains("SPLIT {InputTensor: ") && Contains("OutputCount: 3") &&
                                                Contains("OutputTensors[2]: ") && Contains("Axis: 2}"));
}

TEST_CASE("JOIN and SPLIT descs: one input and one output bind through the one-buffer execute", "[join][split][desc]") {
    const join_desc j{{f32({2, 3})}, f32({2, 3}), 1};
    const auto in = floats(1, 6);
    std::vector<std::byte> out(24);
    execute(j, in, out);
    CHECK(out == in);
    const join_desc two{{f32({2, 3}), f32({2, 3})}, f32({4, 3}), 0};
    CHECK_THROWS_MATCHES(execute(two, in, out), validation_error,
                         Catch::Message("JOIN: 1 input buffers for 2 input tensors; bind one buffer to each"));
}

TEST_CASE("JOIN and SPLIT descs: the rules per feature level, with their messages", "[join][split][desc][validation]") {
    const auto message = [](const operator_desc& d, feature_level level = newest_feature_level) {
        const auto m = validate(d, level);
        return m ? *m : std::string("(accepted)");
    };
    CHECK(message(join_desc{{}, f32({4}), 0}) == "JOIN: InputCount is 0; it must be at least 1");
    CHECK(message(split_desc{f32({4}), {}, 0}) == "SPLIT: OutputCount is 0; it must be at least 1");
    CHECK(message(join_desc{{f32({2, 3}), f32({2, 1})}, f32({2, 4}), 2}) ==
          "JOIN: Axis = 2 is outside [0, 1] (OutputTensor has 2 dimensions)");
    CHECK(message(join_desc{{f32({2, 3}), f32({3, 1})}, f32({2, 4}), 1}) ==
          "JOIN: InputTensors[1].Sizes[0] = 3 differs from OutputTensor.Sizes[0] = 2; only Axis (1) may differ");
    CHECK(message(split_desc{f32({2, 4}), {f32({2, 3}), f32({2, 2})}, 1}) ==
          "SPLIT: the OutputTensors' Sizes[1] sum past InputTensor.Sizes[1] = 4 at OutputTensors[1] (5 so far)");
    CHECK(message(split_desc{f32({2, 4}), {f32({2, 3})}, 1}) ==
          "SPLIT: the OutputTensors' Sizes[1] sum to 3; InputTensor.Sizes[1] is 4; they must match");
    CHECK(message(join_desc{{f32({2, 3}), f32({2, 3, 1})}, f32({2, 6}), 1}) ==
          "JOIN: InputTensors[1] has 3 dimensions; OutputTensor has 2; they must match");
    CHECK(message(join_desc{{f32({2, 3}), make_buffer_tensor_desc(data_type::int32, {2, 3})}, f32({2, 6}), 1}) ==
          "JOIN: InputTensors[1].DataType INT32 differs from OutputTensor.DataType FLOAT32; they must match");
    // Dimension counts: JOIN 4 at 1_0, 4 to 5 at 3_0, 1 to 8 at 4_1; SPLIT 4 until 3_0, then 1 to 8.
    const join_desc j3{{f32({2, 3, 1}), f32({2, 3, 1})}, f32({2, 6, 1}), 1};
    CHECK(message(j3, feature_level::fl_1_0) ==
          "JOIN: OutputTensor has 3 dimensions (DimensionCount); JOIN takes 4 at feature level 1_0");
    CHECK(message(j3, feature_level::fl_3_0) ==
          "JOIN: OutputTensor has 3 dimensions (DimensionCount); JOIN takes 4 to 5 at feature level 3_0");
    CHECK(message(j3, feature_level::fl_4_1) == "(accepted)");
    const split_desc s3{f32({2, 6, 1}), {f32({2, 3, 1}), f32({2, 3, 1})}, 1};
    CHECK(message(s3, feature_level::fl_2_1) ==
          "SPLIT: InputTensor has 3 dimensions (DimensionCount); SPLIT takes 4 at feature level 2_1");
    CHECK(message(s3, feature_level::fl_3_0) == "(accepted)");
    // Types: 8-bit from 2_1, 64-bit from 4_1.
    const auto i8 = [](std::vector<std::uint32_t> s) { return make_buffer_tensor_desc(data_type::int8, std::move(s)); };
    const join_desc j8{{i8({1, 1, 1, 2}), i8({1, 1, 1, 2})}, i8({1, 1, 1, 4}), 3};
    CHECK_THAT(message(j8, feature_level::fl_1_0),
               Contains("JOIN: OutputTensor.DataType INT8 is not supported at feature level 1_0"));
    CHECK(message(j8, feature_level::fl_2_1) == "(accepted)");
    const auto u64 = [](std::vector<std::uint32_t> s) { return make_buffer_tensor_desc(data_type::uint64, std::move(s)); };
    const split_desc s64{u64({1, 1, 1, 4}), {u64({1, 1, 1, 4})}, 3};
    CHECK_THAT(message(s64, feature_level::fl_4_0),
               Contains("SPLIT: InputTensor.DataType UINT64 is not supported at feature level 4_0"));
    CHECK(message(s64, feature_level::fl_4_1) == "(accepted)");
    // Outputs are written: none may be OWNED_BY_DML.
    split_desc owned{f32({4}), {f32({4})}, 0};
    owned.output_tensors[0].flags = tensor_flags::owned_by_dml;
    CHECK(message(owned) == "SPLIT: OutputTensors[0].Flags is OWNED_BY_DML, which only input tensors may use");
}

TEST_CASE("JOIN desc: an input of 2^31 elements or more is refused, as DirectML does, and SPLIT's outputs are not",
          "[join][split][desc][validation]") {
    // Measured on DirectML 1.15.4 and 1.14.1 (docs/directml.md): the element count, whatever the
    // strides or the type; the output may hold up to 2^32 - 1 elements.
    const auto u8 = [](std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::uint8, std::move(sizes)); };
    CHECK_FALSE(validate(join_desc{{u8({0x7fff'ffffu}), u8({1})}, u8({0x8000'0000u}), 0}));
    CHECK_FALSE(validate(join_desc{{f32({1, 0x7fff'ffffu}), f32({1, 0x7fff'ffffu})}, f32({2, 0x7fff'ffffu}), 0}));
    const auto big = validate(join_desc{{u8({1}), u8({0x4000'0000u, 2})}, u8({0x4000'0001u, 2}), 0});
    REQUIRE(big);
    CHECK_THAT(*big, Contains("JOIN: InputTensors[1].Sizes {1073741824, 2} hold 2147483648 elements; DirectML's JOIN takes at "
                              "most 2147483647 (2^31 - 1) in each input"));
    auto broadcast = u8({0x8000'0000u});
    broadcast.strides = std::vector<std::uint32_t>{0};
    broadcast.total_tensor_size_in_bytes = 4;
    CHECK(validate(join_desc{{broadcast, u8({1})}, u8({0x8000'0001u}), 0}));
    CHECK_FALSE(validate(split_desc{u8({0x8000'0001u}), {u8({0x8000'0000u}), u8({1})}, 0}));
}

TEST_CASE("JOIN and SPLIT descs: the buffer rules name the binding", "[join][split][desc][validation]") {
    const split_desc d{f32({4}), {f32({2}), f32({2})}, 0};
    std::vector<std::byte> in(16), a(8), b(8), small(4);
    const std::span<const std::byte> ins[] = {in};
    {
        const std::span<std::byte> outs[] = {a};
        CHECK(validate(d, ins, outs) == "SPLIT: 1 output buffers for 2 output tensors; bind one buffer to each");
    }
    {
        const std::span<std::byte> outs[] = {a, small};
        CHECK(validate(d, ins, outs) ==
              "SPLIT: the buffer bound to OutputTensors[1] has 4 bytes; OutputTensors[1].TotalTensorSizeInBytes is 8");
    }
    {
        const std::span<std::byte> outs[] = {a, std::span<std::byte>(a).subspan(0, 8)};
        CHECK_THAT(*validate(d, ins, outs), Contains("the buffer bound to OutputTensors[0]") &&
                                                Contains("the buffer bound to OutputTensors[1]") && Contains("overlap"));
    }
    {
        const std::span<std::byte> outs[] = {std::span<std::byte>(in).subspan(0, 8), b};
        CHECK_THAT(*validate(d, ins, outs), Contains("the buffer bound to InputTensor") &&
                                                Contains("the buffer bound to OutputTensors[0]") && Contains("overlap"));
        CHECK_THROWS_AS(execute(d, ins, outs), validation_error);
    }
    // JOIN's inputs are only read: they may share memory.
    const join_desc j{{f32({2}), f32({2})}, f32({4}), 0};
    std::vector<std::byte> out(16);
    const auto src = floats(1, 2);
    const std::span<const std::byte> same[] = {src, src};
    const std::span<std::byte> outs[] = {out};
    execute(j, same, outs);
    CHECK(values(out) == std::vector<float>{1, 2, 1, 2});
}

TEST_CASE("textbook source_of names JOIN's input and SPLIT's place in the input", "[join][split][desc][textbook]") {
    const join_desc j{{f32({2, 1}), f32({2, 3}), f32({2, 2})}, f32({2, 6}), 1};
    CHECK(textbook::source_of(j, {1, 0}) == textbook::source{textbook::source_kind::input, {1, 0}, 0});
    CHECK(textbook::source_of(j, {1, 3}) == textbook::source{textbook::source_kind::input, {1, 2}, 1});
    CHECK(textbook::source_of(j, {0, 5}) == textbook::source{textbook::source_kind::input, {0, 1}, 2});
    CHECK(textbook::to_string(textbook::source_of(j, {0, 5})) == "InputTensors[2] [0, 1]");
    const split_desc s{f32({2, 6}), {f32({2, 1}), f32({2, 3}), f32({2, 2})}, 1};
    CHECK(textbook::source_of(s, 2, {1, 1}) == textbook::source{textbook::source_kind::input, {1, 5}, 0});
    CHECK_THROWS_MATCHES(textbook::source_of(s, 3, {0, 0}), validation_error,
                         Catch::Message("SPLIT: output 3 does not exist; SPLIT has 3 output tensors"));
    CHECK_THROWS_MATCHES(textbook::source_of(s, 1, {0, 3}), validation_error,
                         Catch::Message("SPLIT: the output coordinate's entry 1 is 3; OutputTensors[1].Sizes[1] is 3"));
}

TEST_CASE("compare names the part of a JOIN or SPLIT mismatch", "[join][split][desc][compare]") {
    const join_desc j{{f32({2, 1}), f32({2, 3})}, f32({2, 4}), 1};
    const auto expected = floats(0, 8);
    auto actual = expected;
    actual[4 * 6] = std::byte{0x55}; // element [1, 2]: InputTensors[1]
    const std::vector<std::uint32_t> sizes{2, 4};
    const operator_desc op = j;
    const compare_report r = compare(data_type::float32, sizes, expected, actual, {}, &op);
    CHECK_THAT(r.to_string(), Contains("InputTensors[1]"));
    const split_desc s{f32({2, 4}), {f32({2, 3}), f32({2, 1})}, 1};
    const operator_desc sop = s;
    actual = expected;
    actual[4 * 7] = std::byte{0x55}; // element [1, 3]: OutputTensors[1]
    CHECK_THAT(compare(data_type::float32, sizes, expected, actual, {}, &sop).to_string(), Contains("OutputTensors[1]"));
}

TEST_CASE("consumers written for one input and one output refuse JOIN and SPLIT by name", "[join][split][desc]") {
    const operator_desc j = join_desc{{f32({1, 1, 1, 2})}, f32({1, 1, 1, 2}), 3};
    const operator_desc s = split_desc{f32({1, 1, 1, 2}), {f32({1, 1, 1, 2})}, 3};
    // The DirectML translation carries every tensor (test_directml_translate has its fields).
    CHECK(directml::translated(j).op().Type == 63);
    CHECK(directml::translated(s).output_count() == 1);
    const auto first_input = single_tensor_only{"the test consumer", [](const auto& d) { return d.input_tensor.sizes.size(); }};
    CHECK(std::visit(first_input, operator_desc(tile_desc{f32({2}), f32({4}), {2}})) == 1);
    CHECK_THROWS_MATCHES(std::visit(first_input, s), validation_error,
                         Catch::Message("SPLIT: the test consumer takes one input and one output tensor; it does not "
                                        "take SPLIT (a tensor array) yet"));
    CHECK(binds_tensor_arrays(operator_type::join));
    CHECK_FALSE(binds_tensor_arrays(operator_type::tile));
}

namespace {

/// A random JOIN (parts are inputs) or SPLIT (parts are outputs): rank 1 to 8, 1 to 5 parts, any
/// movable type, each tensor packed or with permuted strides and gaps.
operator_desc random_desc(std::mt19937_64& rng, bool is_split) {
    const auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return static_cast<std::uint32_t>(lo + rng() % (hi - lo + 1)); };
    const data_type type = movable_data_types[rng() % std::size(movable_data_types)];
    const std::uint32_t rank = pick(1, 8), axis = pick(0, rank - 1), parts = pick(1, 5);
    std::vector<std::uint32_t> sizes(rank);
    for (auto& s : sizes) s = pick(1, rank > 5 ? 2 : 4);
    const auto tensor = [&](std::vector<std::uint32_t> t) {
        if (rng() % 2 == 0) return make_buffer_tensor_desc(type, t);
        std::vector<std::size_t> order(rank);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::uint32_t> strides(rank);
        std::uint32_t next = 1;
        for (std::size_t i = rank; i-- > 0;) {
            const std::size_t a = order[i];
            strides[a] = t[a] == 1 && rng() % 2 == 0 ? 0 : next; // a size-1 axis may have stride 0
            next *= t[a] + (rng() % 3 == 0 ? 1 : 0);                 // gaps
        }
        return make_buffer_tensor_desc(type, t, strides);
    };
    std::vector<buffer_tensor_desc> part_descs;
    std::uint32_t total = 0;
    for (std::uint32_t k = 0; k < parts; ++k) {
        auto t = sizes;
        t[axis] = pick(1, 3);
        total += t[axis];
        part_descs.push_back(tensor(t));
    }
    auto whole_sizes = sizes;
    whole_sizes[axis] = total;
    const buffer_tensor_desc whole = tensor(whole_sizes);
    if (is_split) return split_desc{whole, part_descs, axis};
    return join_desc{part_descs, whole, axis};
}

void random_round(bool is_split, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    int accepted = 0;
    for (int n = 0; n < 2000; ++n) {
        const operator_desc d = random_desc(rng, is_split);
        INFO("desc " << n << ": " << to_string(d));
        if (const auto why = validate(d)) { // every draw is valid: stride 0 only on axes of one element
            FAIL_CHECK(*why);
            continue;
        }
        ++accepted;
        const auto out = run_both(d, rng);
        CHECK(out.size() == outputs_of(d).size());
    }
    CHECK(accepted == 2000);
}

} // namespace

TEST_CASE("JOIN desc: the engine equals the textbook on 2,000 random descs", "[join][desc][property]") { random_round(false, 6301); }

TEST_CASE("SPLIT desc: the engine equals the textbook on 2,000 random descs", "[split][desc][property]") { random_round(true, 6201); }

TEST_CASE("model files: JOIN and SPLIT descs and their array bindings, as DxDispatch writes them", "[join][split][desc][model]") {
    const operator_desc j = join_desc{{f32({2}), f32({1})}, f32({3}), 0};
    CHECK(to_string(model::parse_dispatchable(model::dispatchable_json(j), "join.json")) == to_string(j));
    const operator_desc s = split_desc{f32({1, 4}), {f32({1, 1}), f32({1, 3})}, 1};
    CHECK(to_string(model::parse_dispatchable(model::dispatchable_json(s), "split.json")) == to_string(s));
    CHECK_THROWS_WITH(model::parse_dispatchable(R"({"type": "JOIN", "desc": {"InputCount": 2, "InputTensors": [
                          {"DataType": "FLOAT32", "Sizes": [2]}], "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "Axis": 0}})",
                                                "join.json"),
                      Contains("InputCount: is 2; InputTensors has 1 entries"));
    // DxDispatch's dml_split.json, its bindings as they are: the model runs on the reference.
    const std::string text = R"({
        "resources": {
            "A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4, 5, 6]},
            "Out1": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 2, "value": 0}},
            "Out2": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 2, "value": 0}},
            "Out3": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 2, "value": 0}}
        },
        "dispatchables": {"split": {"type": "DML_OPERATOR_SPLIT", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [6]}, "OutputCount": 3,
            "OutputTensors": [{"DataType": "FLOAT32", "Sizes": [2]}, {"DataType": "FLOAT32", "Sizes": [2]},
                              {"DataType": "FLOAT32", "Sizes": [2]}], "Axis": 0}}},
        "commands": [{"type": "dispatch", "dispatchable": "split",
                      "bindings": {"InputTensor": "A", "OutputTensors": ["Out1", "Out2", "Out3"]}}]
    })";
    model::model m = model::parse(text, ".", "split.json");
    model::run(m);
    CHECK(values({m.resources.at("Out2").bytes().begin(), m.resources.at("Out2").bytes().end()}) == std::vector<float>{3, 4});
    CHECK(values({m.resources.at("Out3").bytes().begin(), m.resources.at("Out3").bytes().end()}) == std::vector<float>{5, 6});
    std::string two_bindings = text;
    two_bindings.replace(two_bindings.find(R"(["Out1", "Out2", "Out3"])"), 24, R"(["Out1", "Out2"])");
    CHECK_THROWS_WITH(model::parse(two_bindings, ".", "split.json"),
                      Contains("bindings.OutputTensors: binds 2 resources; OutputTensors has 3 tensors"));
}
