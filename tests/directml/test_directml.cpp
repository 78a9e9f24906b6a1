// The DirectML backend against the real DirectML.dll (DMLREF_DIRECTML_DLL): the device reports its
// capabilities, its verdicts and outputs on known descs, the sentinel, and the references it holds.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <tuple>
#include <vector>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dmlref/directml.hpp>

#include "known_divergences.hpp"

#include <array>


using namespace dmlref;

namespace {

/// One DirectML device for the whole suite: creating one takes seconds under Wine.
directml::device& dml() {
    static directml::device device;
    return device;
}

std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), values.size() * 4);
    return values;
}

slice1_desc readme_slice() {
    return slice1_desc{make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 4}),
                       make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}),
                       {0, 0, 0, 1},
                       {1, 1, 4, 3},
                       {1, 1, -2, 2}};
}

std::vector<std::byte> one_to_sixteen() {
    std::vector<float> v(16);
    for (int i = 0; i < 16; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
    std::vector<std::byte> bytes(64);
    std::memcpy(bytes.data(), v.data(), 64);
    return bytes;
}

} // namespace

TEST_CASE("directml: the device reports its feature level and data types, queried, not assumed") {
    const directml::capabilities& caps = dml().caps();
    INFO("DLL " << caps.dll.string() << ", feature level " << to_string(caps.max_feature_level));
    CHECK(caps.max_feature_level >= feature_level::fl_2_1);
    CHECK(caps.supported_types.size() + caps.unsupported_types.size() == std::size(movable_data_types));
    CHECK(caps.supports(data_type::float32));
    WARN("DirectML at " << caps.dll.string() << ": feature level " << to_string(caps.max_feature_level) << ", "
                        << caps.supported_types.size() << " of 11 data types supported");
}

TEST_CASE("directml: accepts the documented SLICE1 example and refuses a window past the input") {
    slice1_desc d = readme_slice();
    CHECK_FALSE(dml().accepts(d).has_value());
    d.input_window_sizes[3] = 4; // offset 1 + 4 reaches past W = 4
    const auto why = dml().accepts(d);
    REQUIRE(why.has_value());
    CHECK_THAT(*why, Catch::Contains("CreateOperator failed with HRESULT 0x80070057 (E_INVALIDARG)"));
}

TEST_CASE("directml: runs the documented SLICE1 example to DirectML's bytes, and verify agrees with the reference") {
    const auto out = as_floats(dml().run(readme_slice(), one_to_sixteen()));
    CHECK(out == std::vector<float>{14, 16, 6, 8});
    const compare_report report = dml().verify(readme_slice(), one_to_sixteen());
    INFO(report.to_string());
    CHECK(report.equal());
}

TEST_CASE("directml: the output buffer starts as the sentinel, so bytes no element covers keep it") {
    // A strided output with a gap element between rows: DirectML writes 4 elements of 6.
    slice1_desc d = readme_slice();
    d.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}, std::vector<std::uint32_t>{6, 6, 3, 1});
    const std::vector<std::byte> out = dml().run(d, one_to_sixteen());
    REQUIRE(out.size() == 20); // the last element is at index 1*3 + 1*1 = 4: five elements of 4 bytes
    const auto values = as_floats(out);
    CHECK(values[0] == 14);
    CHECK(values[1] == 16);
    CHECK(values[3] == 6);
    CHECK(values[4] == 8);
    std::uint32_t gap = 0;
    std::memcpy(&gap, out.data() + 8, 4);
    CHECK(gap == 0xA5A5A5A5u);
}

TEST_CASE("directml: a planted one-element difference fails verify with the report") {
    const slice1_desc d = readme_slice();
    std::vector<std::byte> expected(16);
    execute(d, one_to_sixteen(), expected);
    std::vector<std::byte> actual = dml().run(d, one_to_sixteen());
    actual[4] ^= std::byte{1};
    const compare_report report = compare(data_type::float32, d.output_tensor.sizes, expected, actual, {}, nullptr);
    CHECK_FALSE(report.equal());
    CHECK_THAT(report.to_string(), Catch::Contains("1 of 4 elements differ"));
}

TEST_CASE("directml: a desc DirectML's structs cannot carry is refused by name") {
    slice1_desc d = readme_slice();
    d.input_tensor.strides = std::vector<std::uint32_t>{16, 16, 4, 1, 1};
    CHECK_THROWS_AS(dml().accepts(d), directml::not_expressible);
}

TEST_CASE("directml: the backend releases every COM object it creates") {
    d3d12::context gpu;
    ID3D12Device* device = gpu.device();
    const auto references = [&] {
        device->AddRef();
        return device->Release();
    };
    const ULONG before = references();
    {
        directml::device local(gpu);
        CHECK(references() > before); // DirectML holds the D3D12 device
        CHECK_FALSE(local.accepts(readme_slice()).has_value());
        (void)local.run(readme_slice(), one_to_sixteen());
    }
    CHECK(references() == before);
}

// What DirectML 1.15.4 was measured to do where its documentation or dmlref's old rules said
// otherwise (docs/directml.md): dmlref now gives DirectML's verdict and bytes on each, and each of
// these failed before dmlref followed it.

namespace {
std::uint64_t first_element(const std::vector<std::byte>& bytes, std::size_t width) {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data(), width);
    return v;
}
} // namespace

TEST_CASE("directml: GuaranteedBaseOffsetAlignment and TotalTensorSizeInBytes limits, verdict for verdict") {
    slice1_desc d = readme_slice();
    for (std::uint32_t a : {1u, 4u, 8u, 16u, 24u, 256u, 0x8000'0000u}) {
        d.input_tensor.guaranteed_base_offset_alignment = a;
        INFO("GuaranteedBaseOffsetAlignment " << a);
        CHECK(dml().accepts(d).has_value() == validate(d).has_value());
    }
    d.input_tensor.guaranteed_base_offset_alignment = 0;
    for (std::uint64_t total : {std::uint64_t{0xffff'ffff}, std::uint64_t{0x1'0000'0000}, UINT64_MAX}) {
        d.input_tensor.total_tensor_size_in_bytes = total;
        INFO("TotalTensorSizeInBytes " << total);
        CHECK(dml().accepts(d).has_value() == validate(d).has_value());
    }
}

TEST_CASE("directml: SLICE strides up to 2^31 - 1, verdict for verdict") {
    for (std::uint32_t s : {1000u, 0x7fff'ffffu, 0x8000'0000u, 0xffff'ffffu}) {
        const slice_desc d{make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 4}),
                           make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 1}), {0, 0, 0, 1}, {1, 1, 2, 1},
                           {1, 1, 2, s}};
        INFO("Strides[3] " << s);
        CHECK(dml().accepts(d).has_value() == validate(d).has_value());
    }
}

TEST_CASE("directml: REFLECTION of an axis of one element repeats it, as dmlref computes") {
    for (std::uint32_t pad : {1u, 2u, 5u}) {
        const padding1_desc d{make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 2}),
                              make_buffer_tensor_desc(data_type::float32, {1, 1, 1 + 2 * pad, 2}), padding_mode::reflection,
                              data_type::float32, scalar_union::of(-7.0f), {0, 0, pad, 0}, {0, 0, pad, 0}};
        std::vector<std::byte> input(8);
        const float x[2] = {3, 4};
        std::memcpy(input.data(), x, 8);
        INFO("pad " << pad);
        REQUIRE_FALSE(validate(d).has_value());
        const compare_report report = dml().verify(d, input);
        INFO(report.to_string());
        CHECK(report.equal());
    }
}

TEST_CASE("directml: PADDING1 reads the union's first four bytes for 8- and 16-bit types, as dmlref does") {
    using bytes8 = std::array<std::uint8_t, 8>;
    for (data_type t : {data_type::uint8, data_type::int8, data_type::uint16, data_type::int16, data_type::float16,
                        data_type::uint32, data_type::int32}) {
        for (const bytes8& b : {bytes8{0x1f, 0, 0, 0, 0, 0, 0, 0}, bytes8{0x1f, 0x01, 0, 0, 0, 0, 0, 0},
                                bytes8{0x7e, 0x9a, 0x01, 0, 0, 0, 0, 0}, bytes8{0x7e, 0x9a, 0, 0, 0x01, 0, 0, 0},
                                bytes8{0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}) {
            scalar_union value;
            value.bytes = b;
            const padding1_desc d{make_buffer_tensor_desc(t, {4}), make_buffer_tensor_desc(t, {8}), padding_mode::constant, t,
                                  value, {2}, {2}};
            const std::vector<std::byte> input(static_cast<std::size_t>(d.input_tensor.total_tensor_size_in_bytes));
            std::vector<std::byte> expected(static_cast<std::size_t>(d.output_tensor.total_tensor_size_in_bytes));
            execute(d, input, expected);
            INFO(to_string(t) << " union bytes " << int{b[0]} << " " << int{b[1]} << " " << int{b[2]} << " " << int{b[3]} << " "
                              << int{b[4]});
            CHECK(first_element(dml().run(d, input), element_size(t)) == first_element(expected, element_size(t)));
        }
    }
}

TEST_CASE("directml: PADDING's FLOAT value in range is truncated as dmlref does, and out of range it wraps (a known divergence)") {
    for (data_type t : {data_type::uint8, data_type::int8, data_type::uint16, data_type::int16, data_type::uint32,
                        data_type::int32, data_type::uint64, data_type::int64}) {
        for (float f : {31.7f, -31.7f, 0.0f, -0.0f, 100.5f}) {
            const bool is_unsigned = t == data_type::uint8 || t == data_type::uint16 || t == data_type::uint32 || t == data_type::uint64;
            if (is_unsigned && f < 0) continue; // out of range for unsigned types
            const padding_desc d{make_buffer_tensor_desc(t, {4}), make_buffer_tensor_desc(t, {8}), padding_mode::constant, f, {2}, {2}};
            const std::vector<std::byte> input(static_cast<std::size_t>(d.input_tensor.total_tensor_size_in_bytes));
            std::vector<std::byte> expected(static_cast<std::size_t>(d.output_tensor.total_tensor_size_in_bytes));
            execute(d, input, expected);
            INFO(to_string(t) << " value " << f);
            CHECK(first_element(dml().run(d, input), element_size(t)) == first_element(expected, element_size(t)));
        }
    }
    // Out of range: 300 on UINT8 is 44 on DirectML (300 mod 256); dmlref saturates to 255 (DECISIONS 3).
    const padding_desc d{make_buffer_tensor_desc(data_type::uint8, {4}), make_buffer_tensor_desc(data_type::uint8, {8}),
                         padding_mode::constant, 300.0f, {2}, {2}};
    const std::vector<std::byte> input(4);
    CHECK(first_element(dml().run(d, input), 1) == 44);
}

// JOIN and SPLIT: one buffer per tensor, tensor arrays bound in DirectML's order (inputs_of,
// outputs_of), each output buffer starting as the sentinel.

namespace {
std::vector<std::byte> floats(std::initializer_list<float> values) {
    std::vector<std::byte> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.begin(), bytes.size());
    return bytes;
}

std::vector<std::span<const std::byte>> spans(const std::vector<std::vector<std::byte>>& buffers) {
    return {buffers.begin(), buffers.end()};
}
} // namespace

TEST_CASE("directml: JOIN's documented example, three inputs on each axis, to DirectML's bytes and verify") {
    const std::vector<std::vector<std::byte>> inputs = {floats({1, 2, 3, 4}), floats({5, 6, 7, 8}), floats({9, 10, 11, 12})};
    const std::vector<std::uint32_t> part{1, 1, 2, 2};
    const std::vector<std::vector<float>> expected = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                                      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                                      {1, 2, 5, 6, 9, 10, 3, 4, 7, 8, 11, 12}};
    for (std::uint32_t axis = 1; axis <= 3; ++axis) {
        std::vector<std::uint32_t> whole = part;
        whole[axis] *= 3;
        const join_desc d{{make_buffer_tensor_desc(data_type::float32, part), make_buffer_tensor_desc(data_type::float32, part),
                           make_buffer_tensor_desc(data_type::float32, part)},
                          make_buffer_tensor_desc(data_type::float32, whole),
                          axis};
        INFO("Axis " << axis);
        REQUIRE_FALSE(dml().accepts(d).has_value());
        const auto out = dml().run(d, spans(inputs));
        REQUIRE(out.size() == 1);
        CHECK(as_floats(out[0]) == expected[axis - 1]);
        const compare_report report = dml().verify(d, spans(inputs));
        INFO(report.to_string());
        CHECK(report.equal());
    }
}

TEST_CASE("directml: SPLIT's documented example, each output its own buffer, gaps keeping the sentinel") {
    const std::vector<std::vector<std::byte>> input = {floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})};
    split_desc d{make_buffer_tensor_desc(data_type::float32, {1, 1, 6, 2}),
                 {make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}), make_buffer_tensor_desc(data_type::float32, {1, 1, 1, 2}),
                  make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 2})},
                 2};
    // The last output strided with a gap element after each row: rows 3 apart.
    d.output_tensors[2] = make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 2}, std::vector<std::uint32_t>{9, 9, 3, 1});
    const auto out = dml().run(d, spans(input));
    REQUIRE(out.size() == 3);
    CHECK(as_floats(out[0]) == std::vector<float>{1, 2, 3, 4});
    CHECK(as_floats(out[1]) == std::vector<float>{5, 6});
    REQUIRE(out[2].size() == 32); // last element at 2 * 3 + 1 = 7: eight elements
    const auto third = as_floats(out[2]);
    CHECK(third[0] == 7);
    CHECK(third[1] == 8);
    CHECK(third[3] == 9);
    CHECK(third[7] == 12);
    std::uint32_t gap = 0;
    std::memcpy(&gap, out[2].data() + 8, 4);
    CHECK(gap == 0xA5A5A5A5u);
    const compare_report report = dml().verify(d, spans(input));
    INFO(report.to_string());
    CHECK(report.equal());
    // A planted difference in the second output shows in its region of the outputs laid end to end.
    std::vector<std::vector<std::byte>> expected_packed, actual_packed;
    for (std::size_t k = 0; k < 3; ++k) {
        actual_packed.push_back(d3d12::context::pack(d.output_tensors[k], out[k]));
        expected_packed.push_back(actual_packed.back());
    }
    actual_packed[1][0] ^= std::byte{1};
    const operator_desc op = d;
    const compare_report planted = compare(data_type::float32, compared_sizes(op), compared_output(op, expected_packed),
                                           compared_output(op, actual_packed), {}, &op);
    CHECK_THAT(planted.to_string(), Catch::Contains("1 of 12 elements differ"));
    CHECK_THAT(planted.to_string(), Catch::Contains("OutputTensors[1]: 1 of 2 elements differ"));
}

TEST_CASE("directml: JOIN and SPLIT take 1 to 8 dimensions at the DLL's feature level, JOIN's 6 to 8 included") {
    // The op page gives JOIN 4 to 5 dimensions below 4_1 and the feature-level history 8 from 3_1;
    // DirectML 1.15.4 (6_4) and 1.14.1 (6_3) are asked here for every count on every axis.
    const feature_level level = dml().caps().max_feature_level;
    for (std::uint32_t rank = 1; rank <= 9; ++rank)
        for (std::uint32_t axis = 0; axis < rank; ++axis) {
            std::vector<std::uint32_t> part(rank, 1), whole(rank, 1);
            part[axis] = 2;
            whole[axis] = 4;
            const join_desc j{{make_buffer_tensor_desc(data_type::int16, part), make_buffer_tensor_desc(data_type::int16, part)},
                              make_buffer_tensor_desc(data_type::int16, whole), axis};
            const split_desc s{make_buffer_tensor_desc(data_type::int16, whole),
                               {make_buffer_tensor_desc(data_type::int16, part), make_buffer_tensor_desc(data_type::int16, part)}, axis};
            INFO("DimensionCount " << rank << ", Axis " << axis << ", DirectML at " << to_string(level));
            CHECK(dml().accepts(j).has_value() == (rank > 8));
            CHECK(dml().accepts(s).has_value() == (rank > 8));
            CHECK(validate(j, level).has_value() == (rank > 8));
            CHECK(validate(s, level).has_value() == (rank > 8));
        }
}

TEST_CASE("directml: run takes one buffer per tensor, and refuses another count by name") {
    const split_desc d{make_buffer_tensor_desc(data_type::uint8, {4}),
                       {make_buffer_tensor_desc(data_type::uint8, {1}), make_buffer_tensor_desc(data_type::uint8, {3})}, 0};
    const std::vector<std::byte> input(4);
    CHECK_THROWS_WITH(dml().run(d, input), Catch::Contains("SPLIT binds 1 input and 2 output tensors"));
    const std::vector<std::vector<std::byte>> two = {input, input};
    CHECK_THROWS_WITH(dml().run(d, spans(two)), Catch::Contains("2 input buffers for the 1 input tensors of SPLIT"));
}

TEST_CASE("directml: JOIN refuses an input of 2^31 elements or more, whatever its strides, and SPLIT's outputs may be larger") {
    // Measured on 1.15.4 and 1.14.1 (docs/directml.md): the bound is on each input's element count
    // (broadcast inputs count too), not on its bytes, its span or the output (up to 2^32 - 1).
    using v = std::vector<std::uint32_t>;
    struct probe {
        const char* what;
        operator_desc desc;
        bool accepted;
    };
    const auto u8 = [](v sizes, std::optional<v> strides = std::nullopt) {
        return strides ? make_buffer_tensor_desc(data_type::uint8, sizes, *strides) : make_buffer_tensor_desc(data_type::uint8, sizes);
    };
    const auto f32 = [](v sizes) { return make_buffer_tensor_desc(data_type::float32, sizes); };
    const std::vector<probe> probes = {
        {"2^31 - 1 + 1", join_desc{{u8({0x7fff'ffffu}), u8({1})}, u8({0x8000'0000u}), 0}, true},
        {"1 + 2^31 - 1", join_desc{{u8({1}), u8({0x7fff'ffffu})}, u8({0x8000'0000u}), 0}, true},
        {"2^31 - 1 alone", join_desc{{u8({0x7fff'ffffu})}, u8({0x7fff'ffffu}), 0}, true},
        {"2^31 alone", join_desc{{u8({0x8000'0000u})}, u8({0x8000'0000u}), 0}, false},
        {"2^31 + 1", join_desc{{u8({0x8000'0000u}), u8({1})}, u8({0x8000'0001u}), 0}, false},
        {"1 + 2^31", join_desc{{u8({1}), u8({0x8000'0000u})}, u8({0x8000'0001u}), 0}, false},
        {"FLOAT32 2^31 - 1 + 1", join_desc{{f32({0x7fff'ffffu}), f32({1})}, f32({0x8000'0000u}), 0}, true},
        {"FLOAT32 2^31 + 1", join_desc{{f32({0x8000'0000u}), f32({1})}, f32({0x8000'0001u}), 0}, false},
        {"(2^30 - 1) x 2 + 1 x 2", join_desc{{u8({0x3fff'ffffu, 2}), u8({1, 2})}, u8({0x4000'0000u, 2}), 0}, true},
        {"2^30 x 2 + 1 x 2", join_desc{{u8({0x4000'0000u, 2}), u8({1, 2})}, u8({0x4000'0001u, 2}), 0}, false},
        {"FLOAT32 (1 x (2^31 - 1)) x 2: an output of 2^32 - 2",
         join_desc{{f32({1, 0x7fff'ffffu}), f32({1, 0x7fff'ffffu})}, f32({2, 0x7fff'ffffu}), 0}, true},
        {"2 elements 2^31 apart", join_desc{{u8({2}, v{0x8000'0000u}), u8({1})}, u8({3}), 0}, true},
        {"2^31 broadcast (strides 0)", join_desc{{u8({0x8000'0000u}, v{0}), u8({1})}, u8({0x8000'0001u}), 0}, false},
        {"65535 x 32768 broadcast rows", join_desc{{u8({65535, 32768}, v{0, 1}), u8({1, 32768})}, u8({65536, 32768}), 0}, true},
        {"65536 x 32768 broadcast rows", join_desc{{u8({65536, 32768}, v{0, 1}), u8({1, 32768})}, u8({65537, 32768}), 0}, false},
        {"SPLIT into 2^31 + 1", split_desc{u8({0x8000'0001u}), {u8({0x8000'0000u}), u8({1})}, 0}, true},
        {"SPLIT into 2^32 - 16 + 1", split_desc{u8({0xffff'fff1u}), {u8({0xffff'fff0u}), u8({1})}, 0}, true},
        {"SPLIT of a broadcast 2^31 + 1", split_desc{u8({0x8000'0001u}, v{0}), {u8({0x8000'0000u}), u8({1})}, 0}, true}};
    for (const probe& p : probes) {
        INFO(p.what << ": " << to_string(p.desc));
        CHECK(dml().accepts(p.desc).has_value() == !p.accepted);
        CHECK(validate(p.desc).has_value() == !p.accepted);
    }
}

// REVERSE_SUBSEQUENCES and the indexed operators: one documented example each (the op pages'
// examples, docs/operator-facts.md), bound tensor for tensor in DirectML's order (inputs_of).

namespace {
template <class T> std::vector<std::byte> bytes_of(std::initializer_list<T> values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.begin(), bytes.size());
    return bytes;
}

buffer_tensor_desc f32(std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::float32, std::move(sizes)); }
buffer_tensor_desc u32(std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::uint32, std::move(sizes)); }
buffer_tensor_desc u64(std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::uint64, std::move(sizes)); }

/// DirectML accepts `d`, runs it from `inputs` to the documented FLOAT32 output, and verify agrees.
void documented(const operator_desc& d, const std::vector<std::vector<std::byte>>& inputs, const std::vector<float>& expected) {
    INFO(to_string(d));
    const auto why = dml().accepts(d);
    INFO(why.value_or("accepted"));
    REQUIRE_FALSE(why.has_value());
    const auto out = dml().run(d, spans(inputs));
    REQUIRE(out.size() == 1);
    CHECK(as_floats(out[0]) == expected);
    const compare_report report = dml().verify(d, spans(inputs));
    INFO(report.to_string());
    CHECK(report.equal());
}
} // namespace

TEST_CASE("directml: REVERSE_SUBSEQUENCES's documented examples to DirectML's bytes and verify") {
    const auto input = floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    documented(reverse_subsequences_desc{f32({1, 1, 3, 4}), u32({1, 1, 3, 1}), f32({1, 1, 3, 4}), 3},
               {input, bytes_of<std::uint32_t>({2, 4, 3})}, {2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12});
    documented(reverse_subsequences_desc{f32({1, 1, 3, 4}), u32({1, 1, 1, 4}), f32({1, 1, 3, 4}), 2},
               {input, bytes_of<std::uint32_t>({2, 3, 1, 0})}, {5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12});
}

TEST_CASE("directml: the gathers' documented examples to DirectML's bytes and verify") {
    documented(gather_desc{f32({4}), u32({5}), f32({5}), 0, 1}, {floats({11, 12, 13, 14}), bytes_of<std::uint32_t>({3, 1, 3, 0, 2})},
               {14, 12, 14, 11, 13});
    documented(gather_desc{f32({1, 3, 2}), u32({1, 2, 2}), f32({2, 2, 2}), 1, 2},
               {floats({1, 2, 3, 4, 5, 6}), bytes_of<std::uint32_t>({0, 1, 1, 2})}, {1, 2, 3, 4, 3, 4, 5, 6});
    documented(gather_elements_desc{f32({3, 3}), u32({2, 3}), f32({2, 3}), 0},
               {floats({1, 2, 3, 4, 5, 6, 7, 8, 9}), bytes_of<std::uint32_t>({1, 2, 0, 2, 0, 0})}, {4, 8, 3, 7, 2, 3});
    documented(gather_nd_desc{f32({1, 2, 2, 2}), u32({1, 1, 2, 2}), f32({1, 1, 2, 2}), 3, 2},
               {floats({0, 1, 2, 3, 4, 5, 6, 7}), bytes_of<std::uint32_t>({0, 1, 1, 0})}, {2, 3, 4, 5});
    documented(gather_nd1_desc{f32({1, 3, 2, 2}), u32({1, 3, 2, 2}), f32({1, 1, 3, 2}), 3, 3, 1},
               {floats({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), bytes_of<std::uint32_t>({0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0})},
               {0, 3, 7, 4, 9, 10});
}

TEST_CASE("directml: the scatters' and ONE_HOT's documented examples to DirectML's bytes and verify") {
    documented(scatter_elements_desc{f32({3, 3}), u32({2, 3}), f32({2, 3}), f32({3, 3}), 0},
               {floats({0, 0, 0, 0, 0, 0, 0, 0, 0}), bytes_of<std::uint32_t>({1, 0, 2, 0, 2, 1}), floats({10, 11, 12, 20, 21, 22})},
               {20, 11, 0, 10, 0, 22, 0, 21, 12});
    documented(scatter_nd_desc{f32({1, 1, 1, 8}), u32({1, 1, 4, 1}), f32({1, 1, 1, 4}), f32({1, 1, 1, 8}), 1, 2},
               {floats({1, 2, 3, 4, 5, 6, 7, 8}), bytes_of<std::uint32_t>({4, 3, 1, 7}), floats({9, 10, 11, 12})},
               {1, 11, 3, 10, 9, 6, 7, 12});
    documented(one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 3}, {bytes_of<std::uint32_t>({0, 3, 2}), floats({0, 1})},
               {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
    // Example 4: -3 counts from the end of the axis; 100 is outside it, and its sequence is all OffValue.
    documented(one_hot_desc{make_buffer_tensor_desc(data_type::int32, {1, 1, 3, 1}), f32({1, 1, 1, 2}), f32({1, 1, 3, 4}), 3},
               {bytes_of<std::int32_t>({-3, 100, 3}), floats({0, 1})}, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
}

TEST_CASE("directml: GATHER refuses its page's example 3 with the page's output sizes") {
    // The logical output {Input.Sizes[0..Axis), Indices.Sizes[N-k..N), Input.Sizes[Axis+1..N)} has
    // N + k - 1 entries; DirectML 1.15.4 keeps the last N (the next test case), so the page's
    // output {3, 2} for the logical {3, 1, 2} is refused (docs/directml.md), as is {4, 4} for {4, 4, 1}.
    const operator_desc example3 = gather_desc{f32({3, 2}), u32({1, 2}), f32({3, 2}), 1, 2}; // logical {3, 1, 2}
    const operator_desc trailing = gather_desc{f32({4, 1}), u32({4, 1}), f32({4, 4}), 1, 2}; // logical {4, 4, 1}
    for (const operator_desc& d : {example3, trailing}) {
        INFO(to_string(d));
        CHECK(dml().accepts(d).has_value());
        CHECK(validate(d).has_value());
    }
    // The same gather with the input padded to {1, 3, 2}: logical {1, 3, 1, 2}, its leading 1 dropped.
    documented(gather_desc{f32({1, 3, 2}), u32({1, 1, 2}), f32({3, 1, 2}), 2, 2},
               {floats({1, 2, 3, 4, 5, 6}), bytes_of<std::uint32_t>({1, 0})}, {2, 1, 4, 3, 6, 5});
}

TEST_CASE("directml: ONE_HOT reads OnValue at coordinate 1 of ValuesTensor's last axis (known divergence one-hot-on-value-past-last-axis)") {
    // Values {2, 1}: the page's OnValue is coordinate 1 of the innermost axis of size > 1 (axis 0);
    // DirectML reads coordinate 1 of the last axis, of size 1, at the element its stride reaches.
    using v = std::vector<std::uint32_t>;
    struct probe {
        v sizes, strides;
        float on;         // DirectML's OnValue, measured
        bool divergence;  // dmlref's differs
    };
    const std::vector<probe> probes = {
        {{2, 1}, {2, 1}, 20, true},  // dmlref reads element 2 (30)
        {{2, 1}, {1, 3}, 40, true},  // dmlref reads element 1 (20)
        {{1, 2}, {1, 2}, 30, false}, // the last axis holds both: the same on both sides
    };
    const auto values = floats({10, 20, 30, 40});
    const auto indices = bytes_of<std::uint32_t>({0, 1, 2});
    for (const probe& p : probes) {
        buffer_tensor_desc vt = make_buffer_tensor_desc(data_type::float32, p.sizes, p.strides);
        vt.total_tensor_size_in_bytes = 16;
        const operator_desc d = one_hot_desc{u32({3, 1}), vt, f32({3, 3}), 1};
        INFO(to_string(d));
        REQUIRE_FALSE(dml().accepts(d).has_value());
        const std::vector<std::vector<std::byte>> inputs = {indices, values};
        const auto out = dml().run(d, spans(inputs));
        REQUIRE(out.size() == 1);
        CHECK(as_floats(out[0]) == std::vector<float>{p.on, 10, 10, 10, p.on, 10, 10, 10, p.on});
        CHECK(dml().verify(d, spans(inputs)).equal() == !p.divergence);
        const std::vector<std::byte> sentinel(out[0].size(), std::byte{0xA5});
        const std::span<const std::byte> in_spans[] = {indices, values};
        CHECK(parity::one_hot_pattern(d, in_spans, sentinel, out[0]) == (p.divergence ? "one-hot-on-value-past-last-axis" : ""));
    }
}

TEST_CASE("directml: REVERSE_SUBSEQUENCES with a length past the axis holds the read coordinate, as dmlref does") {
    // Rows of 2 along Axis 1, lengths 3 and 2. The page clamps the length 3 to 2 (2, 1, 4, 3);
    // DirectML 1.15.4 writes Input[min(length - 1 - i, size - 1)] at i: 2, 2 on row 0, and dmlref
    // follows it (docs/directml.md).
    const operator_desc d = reverse_subsequences_desc{f32({2, 2}), u32({2, 1}), f32({2, 2}), 1};
    const std::vector<std::vector<std::byte>> inputs = {floats({1, 2, 3, 4}), bytes_of<std::uint32_t>({3, 2})};
    REQUIRE_FALSE(dml().accepts(d).has_value());
    const auto out = dml().run(d, spans(inputs));
    REQUIRE(out.size() == 1);
    CHECK(as_floats(out[0]) == std::vector<float>{2, 2, 4, 3});
    std::vector<std::byte> expected(out[0].size());
    const std::span<std::byte> outs[] = {expected};
    execute(d, spans(inputs), outs);
    CHECK(as_floats(expected) == std::vector<float>{2, 2, 4, 3});
}

TEST_CASE("directml: REVERSE_SUBSEQUENCES's lengths from 0 to past 2^63 against dmlref's") {
    // One sequence of 5 per length, UINT32 and UINT64: inside the axis, past it up to 2n - 1 and
    // beyond (every element the last), and the values where 32-bit or signed arithmetic would wrap:
    // 2^31, 2^32 - 1, and for UINT64 2^32 + 2, 2^63 and 2^64 - 1. DirectML 1.15.4 agrees on every
    // UINT32 length and on UINT64 lengths below 2^32; it reads a UINT64 length of 2^32 or more as
    // its low 32 bits (2^32 + 2 as 2, 2^63 as 0), a wrap dmlref does not follow: it reads the
    // whole value (docs/directml.md). The probe checks DirectML against dmlref's answer for the
    // low half there, so a DirectML that reads the whole value fails it.
    const auto in = floats({0, 1, 2, 3, 4});
    const auto probe = [&](const operator_desc& d, const std::vector<std::byte>& lengths,
                           const std::vector<std::byte>& as_dmlref_sees_it, const std::string& what) {
        INFO(what);
        REQUIRE_FALSE(dml().accepts(d).has_value());
        const auto out = dml().run(d, spans({in, lengths}));
        REQUIRE(out.size() == 1);
        std::vector<std::byte> expected(out[0].size());
        const std::span<std::byte> outs[] = {expected};
        execute(d, spans({in, as_dmlref_sees_it}), outs);
        INFO(fmt::format("DirectML {} dmlref {}", as_floats(out[0]), as_floats(expected)));
        CHECK(out[0] == expected);
    };
    const operator_desc d32 = reverse_subsequences_desc{f32({5}), u32({1}), f32({5}), 0};
    for (const std::uint32_t length : {0u, 1u, 3u, 5u, 6u, 7u, 8u, 9u, 12u, 0x8000'0000u, 0xffff'ffffu})
        probe(d32, bytes_of<std::uint32_t>({length}), bytes_of<std::uint32_t>({length}), fmt::format("UINT32 length {}", length));
    const operator_desc d64 = reverse_subsequences_desc{f32({5}), u64({1}), f32({5}), 0};
    for (const std::uint64_t length : {std::uint64_t{3}, std::uint64_t{7}, std::uint64_t{0xffff'ffff},
                                       (std::uint64_t{1} << 32) + 2, std::uint64_t{1} << 63, ~std::uint64_t{0}}) {
        const std::uint64_t low_half = length & 0xffff'ffffu;
        probe(d64, bytes_of<std::uint64_t>({length}), bytes_of<std::uint64_t>({low_half}),
              fmt::format("UINT64 length {} (DirectML reads {})", length, low_half));
    }
    // Where the low half differs, dmlref's own answer (the whole value: past the axis) differs.
    std::vector<std::byte> whole(20), low(20);
    const std::span<std::byte> whole_out[] = {whole}, low_out[] = {low};
    execute(d64, spans({in, bytes_of<std::uint64_t>({(std::uint64_t{1} << 32) + 2})}), whole_out);
    execute(d64, spans({in, bytes_of<std::uint64_t>({2})}), low_out);
    CHECK(as_floats(whole) == std::vector<float>{4, 4, 4, 4, 4});
    CHECK(as_floats(low) == std::vector<float>{1, 0, 2, 3, 4});
}

TEST_CASE("directml: GATHER past 8 logical output dimensions (known divergence gather-output-past-8-dimensions)") {
    // Input {1, ..., 1, 2}, indices of size 1 on every axis with strides 36, 43, 50, ... (legal:
    // an axis of one element never steps), IndexDimensions k. The logical output has N + k - 1
    // dimensions before its leading 1s drop: DirectML gathers it right up to 8 and wrong past 8.
    const auto probe = [](std::size_t n, std::uint32_t k) {
        std::vector<std::uint32_t> sizes(n, 1), ones(n, 1), strides(n);
        sizes.back() = 2;
        for (std::size_t i = 0; i < n; ++i) strides[i] = static_cast<std::uint32_t>(36 + 7 * i);
        buffer_tensor_desc indices = make_buffer_tensor_desc(data_type::uint32, ones, strides);
        const operator_desc d = gather_desc{f32(sizes), indices, f32(sizes), 0, k};
        INFO(to_string(d));
        REQUIRE_FALSE(dml().accepts(d).has_value());
        const std::vector<std::vector<std::byte>> inputs = {floats({1, 2}),
                                                            std::vector<std::byte>(indices.total_tensor_size_in_bytes)};
        std::vector<std::byte> expected(8);
        const std::span<std::byte> outs[] = {expected};
        execute(d, spans(inputs), outs);
        CHECK(as_floats(expected) == std::vector<float>{1, 2});
        return dml().verify(d, spans(inputs)).equal(); // DirectML's bytes against dmlref's
    };
    CHECK(probe(7, 2));  // 8 dimensions
    CHECK(probe(5, 4));  // 8
    CHECK(probe(6, 3));  // 8
    CHECK_FALSE(probe(8, 2)); // 9: DirectML's output differs
    CHECK_FALSE(probe(5, 5));
    CHECK_FALSE(probe(6, 4));
}

TEST_CASE("directml: SCATTER_ND's IndicesTensor and ONE_HOT's ValuesTensor with another DimensionCount (known divergences)") {
    // The pages ask for one DimensionCount; DirectML 1.15.4 accepts other ones here (known
    // divergences scatter-nd-indices-dimension-count-unchecked and
    // one-hot-values-dimension-count-unchecked), GATHER_ND's and SCATTER_ND's with J = 3 aside. dmlref
    // refuses them all, as the pages say.
    const std::vector<std::tuple<const char*, operator_desc, bool>> probes = {
        {"SCATTER_ND page example: input {8}, indices {4, 1}",
         scatter_nd_desc{f32({8}), u32({4, 1}), f32({4}), f32({8}), 1, 2}, true},
        {"SCATTER_ND input {1, 8}, indices {1, 1, 4, 1}",
         scatter_nd_desc{f32({1, 8}), u32({1, 1, 4, 1}), f32({1, 4}), f32({1, 8}), 1, 2}, true},
        {"SCATTER_ND input {1, 1, 8}, indices {4, 1}",
         scatter_nd_desc{f32({1, 1, 8}), u32({4, 1}), f32({1, 1, 4}), f32({1, 1, 8}), 1, 2}, true},
        {"SCATTER_ND input {8}, indices {1, 4, 1}, J 2", scatter_nd_desc{f32({8}), u32({1, 4, 1}), f32({4}), f32({8}), 1, 2}, true},
        {"SCATTER_ND input {8}, indices {1, 4, 1}, J 3", scatter_nd_desc{f32({8}), u32({1, 4, 1}), f32({4}), f32({8}), 1, 3}, false},
        {"GATHER_ND input {8}, indices {4, 1}", gather_nd_desc{f32({8}), u32({4, 1}), f32({4}), 1, 2}, false},
        {"ONE_HOT values {2}", one_hot_desc{u32({1, 1, 3, 1}), f32({2}), f32({1, 1, 3, 4}), 3}, true},
        {"ONE_HOT values {1, 2}", one_hot_desc{u32({1, 1, 3, 1}), f32({1, 2}), f32({1, 1, 3, 4}), 3}, true},
        {"ONE_HOT values {1, 1, 1, 1, 2}", one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 1, 1, 2}), f32({1, 1, 3, 4}), 3}, true},
        {"ONE_HOT values {1, 1, 1, 2, 1}", one_hot_desc{u32({1, 1, 3, 1}), f32({1, 1, 1, 2, 1}), f32({1, 1, 3, 4}), 3}, true},
        {"ONE_HOT values {3}", one_hot_desc{u32({1, 1, 3, 1}), f32({3}), f32({1, 1, 3, 4}), 3}, true},
        {"ONE_HOT indices {3, 1}, values {1, 1, 2}", one_hot_desc{u32({3, 1}), f32({1, 1, 2}), f32({3, 4}), 1}, true},
    };
    for (const auto& [what, d, accepted] : probes) {
        INFO(what << ": " << to_string(d));
        CHECK(dml().accepts(d).has_value() == !accepted);
        CHECK(validate(d).has_value());
    }
}

TEST_CASE("directml: SLICE_GRAD merges an axis its window covers whole into the one before (known divergence slice-grad-merged-axes)") {
    // Measured on 1.15.4 and 1.14.1 (docs/directml.md): with packed tensors, stride 1 on both
    // axes and the window over the whole inner axis, DirectML places a gradient that is shorter
    // there along the two axes merged; rows with a gap, or a stride of -1 or 2, keep the index
    // equation. dmlref keeps the index equation on all of them.
    using v = std::vector<std::uint32_t>;
    const auto t = [](v sizes, std::optional<v> strides = std::nullopt) {
        return strides ? make_buffer_tensor_desc(data_type::int32, sizes, *strides) : make_buffer_tensor_desc(data_type::int32, sizes);
    };
    struct probe {
        slice_grad_desc desc;
        bool merged;
    };
    const std::vector<probe> probes = {
        {{t({3, 1}), t({3, 2}), {0, 0}, {3, 2}, {1, 1}}, true},
        {{t({2, 2}), t({3, 3}), {1, 0}, {2, 3}, {1, 1}}, true},
        {{t({3, 1}, v{2, 1}), t({3, 2}), {0, 0}, {3, 2}, {1, 1}}, true},
        {{t({2, 1, 2}), t({3, 2, 3}), {1, 0, 0}, {2, 2, 3}, {1, 1, 1}}, true},
        {{t({3, 2, 2}), t({3, 2, 3}), {0, 0, 0}, {3, 2, 3}, {-1, 1, 1}}, true},
        {{t({3, 1}), t({3, 2}, v{3, 1}), {0, 0}, {3, 2}, {1, 1}}, false},
        {{t({2, 2}, v{3, 1}), t({2, 3}), {0, 0}, {2, 3}, {1, 1}}, false},
        {{t({2, 2}), t({3, 3}), {0, 0}, {2, 3}, {-1, 1}}, false},
        {{t({2, 2}), t({5, 3}), {0, 0}, {3, 3}, {2, 1}}, false},
    };
    for (const probe& p : probes) {
        const operator_desc d = p.desc;
        INFO(to_string(d));
        REQUIRE_FALSE(dml().accepts(d).has_value());
        std::vector<std::int32_t> gradient(static_cast<std::size_t>(p.desc.input_tensor.total_tensor_size_in_bytes / 4));
        for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] = static_cast<std::int32_t>(i + 1);
        std::vector<std::byte> input(gradient.size() * 4);
        std::memcpy(input.data(), gradient.data(), input.size());
        const std::vector<std::byte> actual = dml().run(d, input);
        const std::vector<std::byte> sentinel(actual.size(), std::byte{0xA5});
        std::vector<std::byte> expected = sentinel;
        execute(d, input, expected);
        CHECK((actual != expected) == p.merged);
        CHECK(parity::slice_grad_pattern(d, input, sentinel, actual) == (p.merged ? "slice-grad-merged-axes" : ""));
    }
}

TEST_CASE("directml: GATHER keeps the last N entries of a longer logical output, its dropped axes read at 0") {
    // N + IndexDimensions - 1 logical entries for N axes: DirectML 1.15.4 keeps the last N,
    // whatever the dropped ones hold, and reads a dropped axis (an input's or an index's) at
    // coordinate 0; dmlref follows it (docs/directml.md).
    documented(gather_desc{f32({3, 2}), u32({1, 2}), f32({1, 2}), 1, 2}, {floats({1, 2, 3, 4, 5, 6}), bytes_of<std::uint32_t>({1, 0})},
               {2, 1}); // the page's example 3, logical {3, 1, 2}
    std::vector<float> iota(32);
    for (std::size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<float>(i + 1);
    std::vector<std::byte> in32(128);
    std::memcpy(in32.data(), iota.data(), 128);
    documented(gather_desc{f32({2, 4, 4}), u32({1, 2, 1}), f32({2, 1, 4}), 1, 2}, {in32, bytes_of<std::uint32_t>({3, 2})},
               {13, 14, 15, 16, 9, 10, 11, 12}); // logical {2, 2, 1, 4}: the input's axis of 2 dropped
    documented(gather_desc{f32({4, 3}), u32({2, 2}), f32({2, 3}), 0, 2},
               {std::vector<std::byte>(in32.begin(), in32.begin() + 48), bytes_of<std::uint32_t>({3, 2, 1, 0})},
               {10, 11, 12, 7, 8, 9}); // logical {2, 2, 3}: the indices' first axis dropped
    documented(gather_desc{f32({2, 3, 2}), u32({2, 2, 2}), f32({2, 2, 2}), 1, 3},
               {std::vector<std::byte>(in32.begin(), in32.begin() + 48), bytes_of<std::uint32_t>({0, 1, 2, 1, 2, 0, 1, 1})},
               {1, 2, 3, 4, 5, 6, 3, 4}); // logical {2, 2, 2, 2, 2}: both
    // Sizes other than the last N entries are refused on both sides.
    const operator_desc wrong = gather_desc{f32({2, 4, 4}), u32({1, 2, 1}), f32({2, 2, 4}), 1, 2};
    CHECK(dml().accepts(wrong).has_value());
    CHECK(validate(wrong).has_value());
}

TEST_CASE("directml: GATHER's index sizes before IndexDimensions and output padding axis (known divergences)") {
    // gather-index-sizes-before-index-dimensions: DirectML 1.15.4 accepts case 6191 and reads the
    // index axis of 2 that IndexDimensions 0 leaves out along the output's axis 3 (element 9 of
    // the index buffer for the second output element), yet refuses a simpler desc of the kind.
    const auto u8 = [](std::vector<std::uint32_t> sizes, std::vector<std::uint32_t> strides, std::uint64_t total) {
        buffer_tensor_desc t = make_buffer_tensor_desc(data_type::uint8, sizes, strides);
        t.total_tensor_size_in_bytes = total;
        return t;
    };
    buffer_tensor_desc idx6191 = make_buffer_tensor_desc(data_type::int64, {1, 1, 1, 1, 2, 1}, std::vector<std::uint32_t>{9, 9, 1, 3, 9, 1});
    idx6191.total_tensor_size_in_bytes = 80;
    const operator_desc c6191 = gather_desc{u8({1, 1, 2, 1, 2, 1}, {32, 16, 8, 4, 1, 1}, 12), idx6191,
                                            make_buffer_tensor_desc(data_type::uint8, {1, 1, 1, 2, 1, 1}), 4, 0};
    INFO(to_string(c6191));
    REQUIRE_FALSE(dml().accepts(c6191).has_value());
    CHECK(validate(c6191).has_value());
    std::vector<std::byte> in12(12);
    for (std::size_t i = 0; i < 12; ++i) in12[i] = static_cast<std::byte>(10 + i);
    const auto out = dml().run(c6191, spans({in12, bytes_of<std::int64_t>({1, 1, 1, 1, 1, 1, 1, 1, 1, 0})}));
    REQUIRE(out.size() == 1);
    // In[.., 0, .., 1, ..] = 11, then In at axis 2's coordinate 1 with index element 9's 0: 18.
    CHECK(out[0] == std::vector<std::byte>{std::byte{11}, std::byte{18}, std::byte{0xA5}, std::byte{0xA5}});
    const operator_desc simpler = gather_desc{make_buffer_tensor_desc(data_type::uint8, {1, 1, 4, 1}),
                                              make_buffer_tensor_desc(data_type::uint32, {1, 1, 2, 1}),
                                              make_buffer_tensor_desc(data_type::uint8, {1, 1, 1, 1}), 2, 0};
    CHECK(dml().accepts(simpler).has_value());
    CHECK(validate(simpler).has_value());
    // gather-output-padding-axes-unchecked: IndexDimensions 0 pads the logical output with a
    // leading 1; DirectML accepts any size there and fills the second row with the buffer's last
    // byte, 17, past the input tensor's six (10 to 15).
    const operator_desc padded = gather_desc{make_buffer_tensor_desc(data_type::uint8, {1, 2, 3}),
                                             make_buffer_tensor_desc(data_type::uint32, {1, 1, 1}),
                                             make_buffer_tensor_desc(data_type::uint8, {2, 1, 2}), 2, 0};
    INFO(to_string(padded));
    REQUIRE_FALSE(dml().accepts(padded).has_value());
    CHECK(validate(padded).has_value());
    std::vector<std::byte> in8(8);
    for (std::size_t i = 0; i < 8; ++i) in8[i] = static_cast<std::byte>(10 + i);
    const auto row = dml().run(padded, spans({in8, bytes_of<std::uint32_t>({2})}));
    REQUIRE(row.size() == 1);
    CHECK(row[0] == std::vector<std::byte>{std::byte{12}, std::byte{15}, std::byte{17}, std::byte{17}});
}

TEST_CASE("directml: the ND operators refuse a logical output longer than N, dropping no entry, as dmlref does") {
    // GATHER_ND(1)'s logical output (SCATTER_ND's updates) has J - 1 + R entries, R = I - B - T.
    // DirectML 1.15.4 refuses it past N entries even where the leading ones are 1 (GATHER drops
    // leading entries; these do not), and accepts it at N or fewer. dmlref follows it.
    const std::vector<std::tuple<const char*, operator_desc, bool>> probes = {
        {"GATHER_ND input {1, 1, 3, 1, 1}, I 3, indices {1, 1, 1, 1, 1}, J 5: logical 6 entries",
         gather_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), 3, 5}, false},
        {"GATHER_ND the same, J 4: logical 5 entries",
         gather_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), 3, 4}, true},
        {"GATHER_ND input {1, 2, 3}, I 3, indices {1, 2, 1}, J 3: logical {1, 2, 2, 3}",
         gather_nd_desc{f32({1, 2, 3}), u32({1, 2, 1}), f32({2, 2, 3}), 3, 3}, false},
        {"GATHER_ND input {1, 2, 3}, I 2, indices {1, 2, 1}, J 3: logical {1, 2, 3}",
         gather_nd_desc{f32({1, 2, 3}), u32({1, 2, 1}), f32({1, 2, 3}), 2, 3}, true},
        {"GATHER_ND input {1, 2, 3}, I 2, indices {1, 2, 1}, J 2: logical {2, 3} padded",
         gather_nd_desc{f32({1, 2, 3}), u32({1, 2, 1}), f32({1, 2, 3}), 2, 2}, true},
        {"GATHER_ND1 input {1, 1, 2, 3}, I 4, B 1, indices {1, 1, 1, 1}, J 4: logical 5 entries",
         gather_nd1_desc{f32({1, 1, 2, 3}), u32({1, 1, 1, 1}), f32({1, 1, 2, 3}), 4, 4, 1}, false},
        {"GATHER_ND1 the same, J 3: logical 4 entries",
         gather_nd1_desc{f32({1, 1, 2, 3}), u32({1, 1, 1, 1}), f32({1, 1, 2, 3}), 4, 3, 1}, true},
        {"SCATTER_ND input {1, 1, 3, 1, 1}, I 3, indices {1, 1, 1, 1, 1}, J 5: updates of 6 entries",
         scatter_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), f32({1, 1, 3, 1, 1}), 3, 5}, false},
        {"SCATTER_ND the same, J 4: updates of 5 entries",
         scatter_nd_desc{f32({1, 1, 3, 1, 1}), u32({1, 1, 1, 1, 1}), f32({1, 1, 1, 1, 1}), f32({1, 1, 3, 1, 1}), 3, 4}, true},
        {"SCATTER_ND input {1, 4, 3}, I 3, indices {1, 2, 1}, J 3: updates {1, 2, 4, 3}",
         scatter_nd_desc{f32({1, 4, 3}), u32({1, 2, 1}), f32({2, 4, 3}), f32({1, 4, 3}), 3, 3}, false},
        {"SCATTER_ND input {1, 4, 3}, I 2, indices {1, 2, 1}, J 3: updates {1, 2, 3}",
         scatter_nd_desc{f32({1, 4, 3}), u32({1, 2, 1}), f32({1, 2, 3}), f32({1, 4, 3}), 2, 3}, true},
    };
    for (const auto& [what, d, accepted] : probes) {
        INFO(what << ": " << to_string(d));
        CHECK(dml().accepts(d).has_value() == !accepted);
        CHECK(validate(d).has_value() == !accepted);
    }
}

TEST_CASE("directml: GATHER_ND1's batch sizes and SCATTER_ND's UpdatesTensor DimensionCount go unchecked (known divergences)") {
    // DirectML 1.15.4 accepts what dmlref refuses (known divergences gather-nd1-batch-sizes-unchecked,
    // scatter-nd-updates-dimension-count-unchecked); `out` is DirectML's output where it accepts.
    const auto in9 = floats({1, 2, 3, 4, 5, 6, 7, 8, 9});
    const auto in4 = floats({1, 2, 3, 4}), up = floats({10, 20, 30, 40});
    struct probe {
        const char* what;
        operator_desc desc;
        std::vector<std::vector<std::byte>> inputs;
        std::optional<std::vector<float>> out; // nullopt: refused
    };
    const std::vector<probe> probes = {
        // GATHER_ND1, BatchDimensionCount 1: the output takes the indices' batch sizes.
        {"index batch 1, input batch 2", gather_nd1_desc{f32({2, 3}), u32({1, 1}), f32({1, 1}), 2, 2, 1},
         {in9, bytes_of<std::uint32_t>({2})}, std::vector<float>{3}},
        {"the same, output of the input's batch", gather_nd1_desc{f32({2, 3}), u32({1, 1}), f32({2, 1}), 2, 2, 1},
         {in9, bytes_of<std::uint32_t>({2})}, std::nullopt},
        {"index batch 2, input batch 1", gather_nd1_desc{f32({1, 3}), u32({2, 1}), f32({1, 2}), 2, 2, 1},
         {in9, bytes_of<std::uint32_t>({2, 1})}, std::vector<float>{3, 3}},
        {"index batch 3, input batch 2", gather_nd1_desc{f32({2, 3}), u32({3, 1}), f32({1, 3}), 2, 2, 1},
         {in9, bytes_of<std::uint32_t>({2, 1, 0})}, std::vector<float>{3, 5, 6}},
        {"index batch 2, input batch 3", gather_nd1_desc{f32({3, 3}), u32({2, 1}), f32({1, 2}), 2, 2, 1},
         {in9, bytes_of<std::uint32_t>({2, 1})}, std::vector<float>{3, 5}},
        // SCATTER_ND: the updates' sizes compared without their leading 1s.
        {"updates {1, 2} (the page's rule)", scatter_nd_desc{f32({1, 4}), u32({2, 1}), f32({1, 2}), f32({1, 4}), 1, 2},
         {in4, bytes_of<std::uint32_t>({2, 0}), up}, std::vector<float>{20, 2, 10, 4}},
        {"updates {2}", scatter_nd_desc{f32({1, 4}), u32({2, 1}), f32({2}), f32({1, 4}), 1, 2},
         {in4, bytes_of<std::uint32_t>({2, 0}), up}, std::vector<float>{20, 2, 10, 4}},
        {"updates {1, 1, 2}", scatter_nd_desc{f32({1, 4}), u32({2, 1}), f32({1, 1, 2}), f32({1, 4}), 1, 2},
         {in4, bytes_of<std::uint32_t>({2, 0}), up}, std::vector<float>{20, 2, 10, 4}},
        {"updates {1, 2, 1}", scatter_nd_desc{f32({1, 4}), u32({2, 1}), f32({1, 2, 1}), f32({1, 4}), 1, 2},
         {in4, bytes_of<std::uint32_t>({2, 0}), up}, std::nullopt},
        {"updates {2, 1}", scatter_nd_desc{f32({1, 4}), u32({2, 1}), f32({2, 1}), f32({1, 4}), 1, 2},
         {in4, bytes_of<std::uint32_t>({2, 0}), up}, std::nullopt},
        {"input {2, 2}, updates {1, 1, 1, 2}", scatter_nd_desc{f32({2, 2}), u32({1, 1}), f32({1, 1, 1, 2}), f32({2, 2}), 2, 2},
         {in4, bytes_of<std::uint32_t>({1}), up}, std::vector<float>{1, 2, 10, 20}},
        {"input {2, 2}, updates {1, 2, 1}", scatter_nd_desc{f32({2, 2}), u32({1, 1}), f32({1, 2, 1}), f32({2, 2}), 2, 2},
         {in4, bytes_of<std::uint32_t>({1}), up}, std::nullopt},
    };
    for (const probe& p : probes) {
        INFO(p.what << ": " << to_string(p.desc));
        const auto why = dml().accepts(p.desc);
        CHECK(why.has_value() == !p.out.has_value());
        if (why || !p.out) continue;
        const auto out = dml().run(p.desc, spans(p.inputs));
        CHECK(as_floats(out.back()) == *p.out);
        // dmlref refuses all of these but the page's own layout.
        CHECK(validate(p.desc).has_value() == (std::string_view(p.what) != "updates {1, 2} (the page's rule)"));
    }
}
