// The D3D12 backend on hand-written cases: each operator family, every element width, an output
// with gaps (bytes outside the tensor keep their values), and the errors.
#include <dmlref/d3d12.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

using namespace dmlref;

namespace {

d3d12::context& gpu() {
    static d3d12::context instance;
    return instance;
}

template <class T> std::vector<std::byte> bytes_of(const std::vector<T>& values) {
    std::vector<std::byte> b(values.size() * sizeof(T));
    std::memcpy(b.data(), values.data(), b.size());
    return b;
}

template <class T> std::vector<T> values_of(const std::vector<std::byte>& bytes, std::size_t count) {
    std::vector<T> v(count);
    std::memcpy(v.data(), bytes.data(), count * sizeof(T));
    return v;
}

std::size_t output_bytes(const operator_desc& desc) {
    return std::visit(dmlref::single_tensor_only{"the D3D12 backend", [](const auto& d) { return static_cast<std::size_t>(d.output_tensor.total_tensor_size_in_bytes); }},
                      desc);
}

} // namespace

TEST_CASE("d3d12: SLICE1 of 4-byte elements with a negative stride", "[d3d12]") {
    std::vector<std::uint32_t> input(4 * 5);
    std::iota(input.begin(), input.end(), 100u);
    const operator_desc desc = slice1_desc{make_buffer_tensor_desc(data_type::uint32, {4, 5}),
                           make_buffer_tensor_desc(data_type::uint32, {2, 3}),
                           {1, 0},
                           {3, 5},
                           {2, -2}};
    const auto out = values_of<std::uint32_t>(gpu().run(desc, bytes_of(input)), 6);
    // rows 1, 3; columns 4, 2, 0
    CHECK(out == std::vector<std::uint32_t>{109, 107, 105, 119, 117, 115});
}

TEST_CASE("d3d12: ELEMENT_WISE_IDENTITY transposes and broadcasts through input strides (the SLICE kernel)", "[d3d12]") {
    // 2-byte elements: {2, 3} read transposed from a packed {3, 2}, then a row broadcast (stride 0).
    const std::vector<std::uint16_t> input = {1, 2, 3, 4, 5, 6};
    const operator_desc transpose = element_wise_identity_desc{make_buffer_tensor_desc(data_type::uint16, {2, 3}, std::vector<std::uint32_t>{1, 2}),
                                                               make_buffer_tensor_desc(data_type::uint16, {2, 3}), std::nullopt};
    CHECK(values_of<std::uint16_t>(gpu().run(transpose, bytes_of(input)), 6) == std::vector<std::uint16_t>{1, 3, 5, 2, 4, 6});
    const operator_desc broadcast = element_wise_identity_desc{make_buffer_tensor_desc(data_type::uint16, {3, 2}, std::vector<std::uint32_t>{0, 1}),
                                                               make_buffer_tensor_desc(data_type::uint16, {3, 2}), std::nullopt};
    CHECK(values_of<std::uint16_t>(gpu().run(broadcast, bytes_of(input)), 6) == std::vector<std::uint16_t>{1, 2, 1, 2, 1, 2});
    std::vector<std::byte> cpu(output_bytes(broadcast));
    execute(broadcast, bytes_of(input), cpu);
    CHECK(gpu().run(broadcast, bytes_of(input)) == cpu);
}

TEST_CASE("d3d12: TILE on the padding kernel in WRAP mode, repeats longer than the axis", "[d3d12]") {
    // {2, 3} repeated {2, 3} times: the WRAP fold reaches 3 periods on the last axis.
    const std::vector<std::uint16_t> input = {1, 2, 3, 4, 5, 6};
    const operator_desc tile = tile_desc{make_buffer_tensor_desc(data_type::uint16, {2, 3}),
                                         make_buffer_tensor_desc(data_type::uint16, {4, 9}), {2, 3}};
    const std::vector<std::uint16_t> row1 = {1, 2, 3, 1, 2, 3, 1, 2, 3}, row2 = {4, 5, 6, 4, 5, 6, 4, 5, 6};
    std::vector<std::uint16_t> expected;
    for (int k = 0; k < 2; ++k) {
        expected.insert(expected.end(), row1.begin(), row1.end());
        expected.insert(expected.end(), row2.begin(), row2.end());
    }
    CHECK(values_of<std::uint16_t>(gpu().run(tile, bytes_of(input)), 36) == expected);
    std::vector<std::byte> cpu(output_bytes(tile));
    execute(tile, bytes_of(input), cpu);
    CHECK(gpu().run(tile, bytes_of(input)) == cpu);
}

TEST_CASE("d3d12: UPSAMPLE_2D on the slice kernel, each scaled axis split in two", "[d3d12]") {
    // ONNX's Upsample example: [[1, 2], [3, 4]] with Height 2 and Width 3.
    const std::vector<float> input = {1, 2, 3, 4};
    const operator_desc up = upsample_2d_desc{make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}),
                                              make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 6}), {3, 2},
                                              interpolation_mode::nearest_neighbor};
    CHECK(values_of<float>(gpu().run(up, bytes_of(input)), 24) ==
          std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
    // FLOAT16, 5-D (seven axes once split), a strided output with gaps: signalling NaNs keep their bits.
    const std::vector<std::uint16_t> halves = {0x3c00, 0x7d01, 0xfd55, 0x8000, 0x0001, 0x7c00};
    const operator_desc up5 = upsample_2d_desc{
        make_buffer_tensor_desc(data_type::float16, {1, 1, 1, 2, 3}),
        make_buffer_tensor_desc(data_type::float16, {1, 1, 1, 4, 6}, std::vector<std::uint32_t>{40, 40, 40, 10, 1}),
        {2, 2}, interpolation_mode::nearest_neighbor};
    const std::vector<std::byte> initial(output_bytes(up5), std::byte{0xa5});
    std::vector<std::byte> cpu = initial;
    execute(up5, bytes_of(halves), cpu);
    CHECK(gpu().run(up5, bytes_of(halves), std::span<const std::byte>(initial)) == cpu);
    CHECK(values_of<std::uint16_t>(cpu, 2)[1] == 0x3c00);
}

TEST_CASE("d3d12: SLICE_GRAD on its kernel: the window's elements, zeros between and around", "[d3d12]") {
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    // DirectML 1.15.4's answers (docs/directml.md): offset 1, size 1, stride 2, three elements
    // into seven give 0, 10, 0, 20, 0, 30, 0; an empty window at offset 3 with stride -2 puts
    // 10, 20 at 2 and 0.
    const std::vector<std::uint32_t> g3 = {10, 20, 30};
    const operator_desc longer = slice_grad_desc{t(data_type::uint32, {3}), t(data_type::uint32, {7}), {1}, {1}, {2}};
    CHECK(values_of<std::uint32_t>(gpu().run(longer, bytes_of(g3)), 7) == std::vector<std::uint32_t>{0, 10, 0, 20, 0, 30, 0});
    const std::vector<std::uint32_t> g2 = {10, 20};
    const operator_desc empty = slice_grad_desc{t(data_type::uint32, {2}), t(data_type::uint32, {6}), {3}, {0}, {-2}};
    CHECK(values_of<std::uint32_t>(gpu().run(empty, bytes_of(g2)), 6) == std::vector<std::uint32_t>{20, 0, 10, 0, 0, 0});
    // 1-byte elements (four to a word), a reversed window with gaps on both axes, over an output
    // whose bytes start as 0xa5: every element of the tensor is written, each as the CPU writes it.
    std::vector<std::uint8_t> g(12);
    std::iota(g.begin(), g.end(), std::uint8_t{1});
    const operator_desc grad = slice_grad_desc{t(data_type::uint8, {3, 4}), t(data_type::uint8, {7, 9}), {1, 0}, {5, 8}, {2, -2}};
    const std::vector<std::byte> initial(output_bytes(grad), std::byte{0xa5});
    std::vector<std::byte> cpu = initial;
    execute(grad, bytes_of(g), cpu);
    CHECK(gpu().run(grad, bytes_of(g), std::span<const std::byte>(initial)) == cpu);
    CHECK(std::count(cpu.begin(), cpu.begin() + 63, std::byte{0}) == 63 - 12);
}

namespace {
std::vector<std::span<const std::byte>> spans_of(const std::vector<std::vector<std::byte>>& buffers) {
    return {buffers.begin(), buffers.end()};
}

/// The validation_error dmlref::execute throws for `desc` on `inputs` (into zeroed output buffers),
/// or "" where it runs: the message the backend must repeat before any dispatch.
std::string cpu_refusal(const operator_desc& desc, const std::vector<std::span<const std::byte>>& inputs) {
    std::vector<std::vector<std::byte>> outputs;
    for (const bound_tensor& t : outputs_of(desc)) outputs.emplace_back(t.desc().total_tensor_size_in_bytes);
    const std::vector<std::span<std::byte>> spans(outputs.begin(), outputs.end());
    try {
        dmlref::execute(desc, inputs, spans);
    } catch (const validation_error& e) {
        return e.what();
    }
    return {};
}
} // namespace

TEST_CASE("d3d12: JOIN, a dispatch per input into its part of the output (the documented example)", "[d3d12]") {
    // DML_JOIN_OPERATOR_DESC's first example: {1,1,2,3} and {1,1,2,4} joined on axis 3.
    const auto t = [](std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::float32, std::move(sizes)); };
    const operator_desc join = join_desc{{t({1, 1, 2, 3}), t({1, 1, 2, 4})}, t({1, 1, 2, 7}), 3};
    const std::vector<std::vector<std::byte>> inputs = {bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6}),
                                                        bytes_of(std::vector<float>{7, 8, 9, 10, 11, 12, 13, 14})};
    const auto outputs = gpu().run(join, spans_of(inputs));
    REQUIRE(outputs.size() == 1);
    CHECK(values_of<float>(outputs[0], 14) == std::vector<float>{1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14});
    CHECK(d3d12::kernels::make_dispatches(join).size() == 2);
}

TEST_CASE("d3d12: JOIN of 1-byte parts that share the output's words: each dispatch keeps the other parts' lanes", "[d3d12]") {
    // Three UINT8 inputs of widths 1, 2 and 3 on axis 1 into {2, 6} rows of stride 7: every output
    // word holds lanes of two or three parts and a gap byte, which must keep its 0xa5.
    const auto t = [](std::vector<std::uint32_t> sizes, std::optional<std::vector<std::uint32_t>> strides = std::nullopt) {
        return make_buffer_tensor_desc(data_type::uint8, std::move(sizes), std::move(strides));
    };
    const operator_desc join = join_desc{{t({2, 1}), t({2, 2}, std::vector<std::uint32_t>{1, 2}), t({2, 3})},
                                         t({2, 6}, std::vector<std::uint32_t>{7, 1}), 1};
    // The second input is read transposed: element (r, c) at r + 2 c. (Buffers hold whole words.)
    const std::vector<std::vector<std::byte>> inputs = {bytes_of(std::vector<std::uint8_t>{1, 2, 0, 0}),
                                                        bytes_of(std::vector<std::uint8_t>{11, 21, 12, 22}),
                                                        bytes_of(std::vector<std::uint8_t>{13, 14, 15, 23, 24, 25, 0, 0})};
    const std::vector<std::byte> initial(16, std::byte{0xa5});
    const std::vector<std::span<const std::byte>> initial_spans = {initial};
    const auto gpu_out = gpu().run(join, spans_of(inputs), std::span<const std::span<const std::byte>>(initial_spans));
    std::vector<std::byte> cpu = initial;
    const std::vector<std::span<std::byte>> cpu_out = {cpu};
    execute(join, spans_of(inputs), cpu_out);
    REQUIRE(gpu_out.size() == 1);
    CHECK(gpu_out[0] == cpu);
    CHECK(values_of<std::uint8_t>(gpu_out[0], 16) ==
          std::vector<std::uint8_t>{1, 11, 12, 13, 14, 15, 0xa5, 2, 21, 22, 23, 24, 25, 0xa5, 0xa5, 0xa5});
}

TEST_CASE("d3d12: SPLIT, a dispatch per output from its part of the input, 2- and 8-byte elements", "[d3d12]") {
    // INT16 {6} into 1, 2 and 3 elements.
    const auto t16 = [](std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::int16, std::move(sizes)); };
    const operator_desc split = split_desc{t16({6}), {t16({1}), t16({2}), t16({3})}, 0};
    const auto outputs = gpu().run(split, std::span<const std::span<const std::byte>>(
                                              spans_of({bytes_of(std::vector<std::int16_t>{1, 2, 3, 4, 5, -6})})));
    REQUIRE(outputs.size() == 3);
    CHECK(values_of<std::int16_t>(outputs[0], 1) == std::vector<std::int16_t>{1});
    CHECK(values_of<std::int16_t>(outputs[1], 2) == std::vector<std::int16_t>{2, 3});
    CHECK(values_of<std::int16_t>(outputs[2], 3) == std::vector<std::int16_t>{4, 5, -6});
    // UINT64 {3, 2} on axis 0 into {1, 2} and {2, 2}, the second output with a gap after each row.
    const auto t64 = [](std::vector<std::uint32_t> sizes, std::optional<std::vector<std::uint32_t>> strides = std::nullopt) {
        return make_buffer_tensor_desc(data_type::uint64, std::move(sizes), std::move(strides));
    };
    const operator_desc wide = split_desc{t64({3, 2}), {t64({1, 2}), t64({2, 2}, std::vector<std::uint32_t>{3, 1})}, 0};
    const std::uint64_t high = std::uint64_t{1} << 40;
    const auto pieces = gpu().run(wide, std::span<const std::span<const std::byte>>(spans_of(
                                            {bytes_of(std::vector<std::uint64_t>{high + 1, high + 2, high + 3, high + 4, high + 5, high + 6})})));
    REQUIRE(pieces.size() == 2);
    CHECK(values_of<std::uint64_t>(pieces[0], 2) == std::vector<std::uint64_t>{high + 1, high + 2});
    CHECK(values_of<std::uint64_t>(pieces[1], 5) == std::vector<std::uint64_t>{high + 3, high + 4, 0, high + 5, high + 6});
}

TEST_CASE("d3d12: every operator has a kernel, and JOIN and SPLIT take a dispatch per part", "[d3d12]") {
    const auto t = [](std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::float32, std::move(sizes)); };
    for (operator_type op : all_operator_types) {
        INFO(to_string(op));
        CHECK(d3d12::kernels::has_kernel(op));
        CHECK_NOTHROW(d3d12::kernels::refuse_without_kernel(op));
    }
    // JOIN and SPLIT take a dispatch per part: make_params (one dispatch) points there; a wrong
    // number of buffers is refused before any GPU work.
    const operator_desc join = join_desc{{t({1, 1, 1, 2}), t({1, 1, 1, 2})}, t({1, 1, 1, 4}), 3};
    CHECK_THROWS_WITH(d3d12::kernels::make_params(join), Catch::StartsWith("JOIN: binds tensor arrays") &&
                                                             Catch::Contains("make_dispatches"));
    auto buffer = gpu().create_buffer(16);
    auto other = gpu().create_buffer(16);
    CHECK_THROWS_WITH(gpu().execute(join, buffer.get(), other.get()),
                      Catch::Contains("1 input and 1 output resources are bound; the desc binds 2 input and 1 output"));
    ID3D12Resource* const same[] = {buffer.get(), other.get()};
    ID3D12Resource* const out[] = {other.get()};
    CHECK_THROWS_WITH(gpu().execute(join, same, out),
                      Catch::Contains("InputTensors[1] and OutputTensor are bound to the same resource"));
}

TEST_CASE("d3d12: DEPTH_TO_SPACE1 in both orders, 1-byte elements", "[d3d12]") {
    // {1, 8, 1, 2} -> {1, 2, 2, 4}, B = 2
    std::vector<std::uint8_t> input(16);
    std::iota(input.begin(), input.end(), std::uint8_t{0});
    for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
        const operator_desc desc = depth_to_space1_desc{make_buffer_tensor_desc(data_type::uint8, {1, 8, 1, 2}),
                                        make_buffer_tensor_desc(data_type::uint8, {1, 2, 2, 4}), 2, order};
        std::vector<std::byte> expected(output_bytes(desc));
        dmlref::execute(desc, bytes_of(input), expected);
        CHECK(gpu().run(desc, bytes_of(input)) == expected);
    }
}

TEST_CASE("d3d12: PADDING1 in every mode, 2-byte elements, pads larger than the axis", "[d3d12]") {
    std::vector<std::uint16_t> input = {1, 2, 3, 0}; // the buffer rounds up to 4 bytes
    for (std::uint32_t m = 0; m <= 4; ++m) {
        const auto mode = static_cast<padding_mode>(m);
        const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::uint16, {3}), make_buffer_tensor_desc(data_type::uint16, {3 + 7 + 5}),
                           mode, data_type::uint16, scalar_union::of(std::uint16_t{0xbeef}), {7}, {5}};
        std::vector<std::byte> expected(output_bytes(desc));
        dmlref::execute(desc, bytes_of(input), expected);
        INFO(to_string(mode));
        CHECK(values_of<std::uint16_t>(gpu().run(desc, bytes_of(input)), 15) == values_of<std::uint16_t>(expected, 15));
    }
}

TEST_CASE("d3d12: REFLECTION of a size-1 axis repeats its element, as DirectML does", "[d3d12]") {
    // DirectML 1.15.4 accepts REFLECTION of one element (period 0) and repeats it (DECISIONS 5):
    // a {1, 3} input padded by 1 before and 5 after on its size-1 axis, every element width.
    for (data_type type : {data_type::uint8, data_type::uint16, data_type::float32, data_type::int64}) {
        INFO(to_string(type));
        const std::size_t width = element_size(type);
        const operator_desc desc = padding1_desc{make_buffer_tensor_desc(type, {1, 3}), make_buffer_tensor_desc(type, {1 + 1 + 5, 3}),
                                                 padding_mode::reflection, type, scalar_union::of(std::uint64_t{0x77}), {1, 0}, {5, 0}};
        REQUIRE_FALSE(validate(desc).has_value());
        std::vector<std::byte> input(24);
        for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>(0x10 + i);
        input.resize(static_cast<std::size_t>(make_buffer_tensor_desc(type, {1, 3}).total_tensor_size_in_bytes));
        std::vector<std::byte> expected(output_bytes(desc));
        dmlref::execute(desc, input, expected);
        for (std::size_t row = 0; row < 7; ++row) // every row is the input's row
            CHECK(std::equal(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(3 * width),
                             expected.begin() + static_cast<std::ptrdiff_t>(row * 3 * width)));
        const std::vector<std::byte> actual = gpu().run(desc, input);
        CHECK(std::equal(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(21 * width), actual.begin()));
        CHECK(gpu().verify(desc, input).equal());
    }
    // A single element padded on a rank-1 tensor, pads 1 and 5, and much larger ones.
    for (const auto& [start, end] : {std::pair{1u, 5u}, std::pair{5u, 1u}, std::pair{33u, 70u}}) {
        INFO("pads " << start << ", " << end);
        const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::uint16, {1}),
                                                 make_buffer_tensor_desc(data_type::uint16, {1 + start + end}),
                                                 padding_mode::reflection, data_type::uint16, {}, {start}, {end}};
        const std::vector<std::uint16_t> one = {0xabcd, 0};
        const auto out = values_of<std::uint16_t>(gpu().run(desc, bytes_of(one)), 1 + start + end);
        CHECK(out == std::vector<std::uint16_t>(1 + start + end, 0xabcd));
        CHECK(gpu().verify(desc, bytes_of(one)).equal());
    }
}

TEST_CASE("d3d12: PADDING1's 8- and 16-bit values clamp the union's first 4 bytes, as DirectML does", "[d3d12]") {
    struct row { data_type type; std::array<std::uint8_t, 8> bytes; std::uint32_t expected; };
    const row rows[] = {
        {data_type::int8, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0xff}, // Int64 -2: all ones
        {data_type::int8, {0x80, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff}, 0x80}, // bytes 4..7 ignored
        {data_type::int8, {0x1f, 0x01}, 0xff},
        {data_type::uint8, {0x05, 0x00, 0x00, 0x01}, 0xff},
        {data_type::uint16, {0x1f, 0x01}, 0x011f},
        {data_type::uint16, {0x34, 0x12, 0x01}, 0xffff},
        {data_type::uint16, {0x34, 0x12, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04}, 0x1234},
        {data_type::float16, {0x00, 0x3c, 0x01}, 0xffff}, // 1.0's bits with byte 2 set
    };
    for (const row& r : rows) {
        INFO(to_string(r.type) << " " << r.expected);
        const std::size_t width = element_size(r.type);
        scalar_union value;
        value.bytes = r.bytes;
        const operator_desc desc = padding1_desc{make_buffer_tensor_desc(r.type, {2}), make_buffer_tensor_desc(r.type, {2 + 3 + 2}),
                                                 padding_mode::constant, r.type, value, {3}, {2}};
        const std::vector<std::byte> input = {std::byte{0x5a}, std::byte{0x5b}, std::byte{0x5c}, std::byte{0x5d}};
        std::vector<std::byte> expected(output_bytes(desc));
        dmlref::execute(desc, input, expected);
        std::uint32_t first = 0;
        std::memcpy(&first, expected.data(), width);
        CHECK(first == r.expected);
        const std::vector<std::byte> actual = gpu().run(desc, input);
        CHECK(std::equal(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(7 * width), actual.begin()));
        std::uint32_t gpu_first = 0;
        std::memcpy(&gpu_first, actual.data(), width);
        CHECK(gpu_first == r.expected);
        CHECK(gpu().verify(desc, input).equal());
    }
}

TEST_CASE("d3d12: 8-byte elements move as two words", "[d3d12]") {
    std::vector<std::uint64_t> input = {0x0102030405060708u, 0x1112131415161718u, 0xa1a2a3a4a5a6a7a8u};
    const operator_desc desc = slice1_desc{make_buffer_tensor_desc(data_type::uint64, {3}), make_buffer_tensor_desc(data_type::uint64, {3}),
                           {0}, {3}, {-1}};
    CHECK(values_of<std::uint64_t>(gpu().run(desc, bytes_of(input)), 3) ==
          std::vector<std::uint64_t>{input[2], input[1], input[0]});
}

namespace {

/// A context on `choice` (or the d3d12::error that refuses it).
d3d12::context context_on(d3d12::adapter_choice choice) {
    d3d12::context_options options;
    options.adapter = choice;
    return d3d12::context(options);
}

/// A case each adapter must run bit-exactly: every PADDING1 mode on 2-byte elements.
void check_runs_kernels(d3d12::context& c) {
    const std::vector<std::uint16_t> input = {1, 2, 3, 0};
    for (std::uint32_t m = 0; m <= 4; ++m) {
        const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::uint16, {3}),
                                                 make_buffer_tensor_desc(data_type::uint16, {3 + 7 + 5}),
                                                 static_cast<padding_mode>(m), data_type::uint16,
                                                 scalar_union::of(std::uint16_t{0xbeef}), {7}, {5}};
        INFO(to_string(static_cast<padding_mode>(m)));
        CHECK(c.verify(desc, bytes_of(input)).equal());
    }
}

/// The message of the d3d12::error that a context on `choice` throws ("" when none is thrown).
std::string refusal(d3d12::adapter_choice choice, HRESULT expected_result) {
    try {
        context_on(choice);
    } catch (const d3d12::error& e) {
        CHECK(static_cast<std::uint32_t>(e.result()) == static_cast<std::uint32_t>(expected_result));
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("d3d12: adapter choices and their names", "[d3d12][adapter]") {
    using d3d12::adapter_choice;
    CHECK(d3d12::context_options{}.adapter == adapter_choice::default_adapter());
    CHECK(d3d12::to_string(adapter_choice::default_adapter()) == "the default adapter");
    CHECK(d3d12::to_string(adapter_choice::warp()) == "the WARP adapter");
    CHECK(d3d12::to_string(adapter_choice::at(3)) == "adapter index 3");
    CHECK(adapter_choice::at(3) != adapter_choice::at(2));
}

TEST_CASE("d3d12: the default adapter, chosen explicitly, runs the kernels", "[d3d12][adapter]") {
    d3d12::context c = context_on(d3d12::adapter_choice::default_adapter());
    check_runs_kernels(c);
}

#if defined(_WIN32)
TEST_CASE("d3d12: adapter index 0 (IDXGIFactory1::EnumAdapters1) runs the kernels", "[d3d12][adapter]") {
    d3d12::context c = context_on(d3d12::adapter_choice::at(0));
    check_runs_kernels(c);
}

TEST_CASE("d3d12: an adapter index past the last adapter is an error that names it", "[d3d12][adapter]") {
    const std::string message = refusal(d3d12::adapter_choice::at(4096), DXGI_ERROR_NOT_FOUND);
    INFO(message);
    CHECK(message.find("adapter index 4096 cannot be used") != std::string::npos);
    CHECK(message.find("IDXGIFactory1::EnumAdapters1 failed with HRESULT 0x887a0002") != std::string::npos);
    CHECK((message.find(": there is 1 adapter (index 0)") != std::string::npos ||
           message.find(" adapters (indices 0 to ") != std::string::npos));
}

TEST_CASE("d3d12: the WARP adapter (IDXGIFactory4::EnumWarpAdapter) runs the kernels", "[d3d12][adapter]") {
    d3d12::context_options options;
    options.adapter = d3d12::adapter_choice::warp();
    try {
        d3d12::context c(options);
        check_runs_kernels(c);
    } catch (const d3d12::error& e) {
        // Windows always has WARP. Wine's DXGI (8.0) has the method but not the adapter: a stub
        // that returns E_NOTIMPL. Only that is excused, and it says so: ctest reports a test whose
        // output holds "skipped here: " as skipped (tests/CMakeLists.txt), and docs/d3d12.md lists it.
        if (static_cast<std::uint32_t>(e.result()) != static_cast<std::uint32_t>(E_NOTIMPL) ||
            e.call() != "IDXGIFactory4::EnumWarpAdapter" ||
            std::string(e.what()).find("the WARP adapter cannot be used") == std::string::npos)
            throw;
        WARN("skipped here: this D3D12 runtime's DXGI has no WARP adapter (Wine's IDXGIFactory4::EnumWarpAdapter is "
             "a stub returning E_NOTIMPL): "
             << e.what());
    }
}
#else
TEST_CASE("d3d12: WARP and adapter indices need DXGI, which vkd3d on Linux does not have", "[d3d12][adapter]") {
    using d3d12::adapter_choice;
    for (auto [choice, call] : {std::pair{adapter_choice::warp(), "IDXGIFactory4::EnumWarpAdapter"},
                                std::pair{adapter_choice::at(0), "IDXGIFactory1::EnumAdapters1"},
                                std::pair{adapter_choice::at(7), "IDXGIFactory1::EnumAdapters1"}}) {
        const std::string message = refusal(choice, E_NOTIMPL);
        INFO(message);
        CHECK(message.find(d3d12::to_string(choice) + " needs DXGI (" + call + ")") != std::string::npos);
        CHECK(message.find("vkd3d on Linux") != std::string::npos);
        CHECK(message.find("only the default adapter") != std::string::npos);
    }
}
#endif

TEST_CASE("d3d12: GATHER_ELEMENTS, ONNX's example with negative INT64 indices, and an index out of range refused as "
          "the CPU library refuses it",
          "[d3d12]") {
    // ONNX GatherElements' second example, Axis 0, the indices as INT64 with a negative one:
    // data [[1, 2, 3], [4, 5, 6], [7, 8, 9]], indices [[1, 2, 0], [2, 0, 0]] -> [[4, 8, 3], [7, 2, 3]].
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    const operator_desc desc = gather_elements_desc{t(data_type::int32, {3, 3}), t(data_type::int64, {2, 3}),
                                                    t(data_type::int32, {2, 3}), 0};
    const auto data = bytes_of(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    const auto indices = bytes_of(std::vector<std::int64_t>{1, -1, 0, -1, 0, -3});
    const auto out = gpu().run(desc, std::span<const std::span<const std::byte>>(spans_of({data, indices})));
    CHECK(values_of<std::int32_t>(out.front(), 6) == std::vector<std::int32_t>{4, 8, 3, 7, 2, 3});

    // One byte elements along the inner axis (four lanes of a word, each its own index), UINT32 indices.
    const operator_desc bytes = gather_elements_desc{t(data_type::uint8, {2, 4}), t(data_type::uint32, {2, 4}),
                                                     t(data_type::uint8, {2, 4}), 1};
    const std::vector<std::byte> b = bytes_of(std::vector<std::uint8_t>{10, 11, 12, 13, 20, 21, 22, 23});
    const auto b_out = gpu().run(bytes, std::span<const std::span<const std::byte>>(spans_of(
                                            {b, bytes_of(std::vector<std::uint32_t>{3, 2, 1, 0, 0, 0, 3, 3})})));
    CHECK(values_of<std::uint8_t>(b_out.front(), 8) == std::vector<std::uint8_t>{13, 12, 11, 10, 20, 20, 23, 23});

    // -4 is outside [-3, 3): the same validation_error as dmlref::execute, before any dispatch.
    const auto bad = bytes_of(std::vector<std::int64_t>{1, -1, 0, -4, 0, 0});
    const std::string cpu_message = cpu_refusal(desc, {data, bad});
    REQUIRE_THAT(cpu_message, Catch::Contains("GATHER_ELEMENTS") && Catch::Contains("-4"));
    CHECK_THROWS_MATCHES(gpu().run(desc, std::span<const std::span<const std::byte>>(spans_of({data, bad}))),
                         validation_error, Catch::Message(cpu_message));
}

TEST_CASE("d3d12: REVERSE_SUBSEQUENCES, a length past the axis read as DirectML reads it, and UINT64 lengths of 2^32 "
          "and more", "[d3d12]") {
    // Rows of 2 with lengths 3 and 2 over 1, 2, 3, 4 give 2, 2, 4, 3: element o < len reads
    // min(len - 1 - o, n - 1) (docs/directml.md).
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    const operator_desc rows = reverse_subsequences_desc{t(data_type::int16, {2, 2}), t(data_type::uint32, {2, 1}),
                                                         t(data_type::int16, {2, 2}), 1};
    const auto out = gpu().run(rows, std::span<const std::span<const std::byte>>(spans_of(
                                         {bytes_of(std::vector<std::int16_t>{1, 2, 3, 4}), bytes_of(std::vector<std::uint32_t>{3, 2})})));
    CHECK(values_of<std::int16_t>(out.front(), 4) == std::vector<std::int16_t>{2, 2, 4, 3});

    // UINT64 lengths over an axis of 5: 2^32 + 2 is past the axis (dmlref reads the whole value:
    // every element the last one), 0 copies, 3 reverses the first three.
    const operator_desc wide = reverse_subsequences_desc{t(data_type::uint8, {3, 5}), t(data_type::uint64, {3, 1}),
                                                         t(data_type::uint8, {3, 5}), 1};
    const auto w = gpu().run(wide, std::span<const std::span<const std::byte>>(spans_of(
                                       {bytes_of(std::vector<std::uint8_t>{0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 0}), // 16: its TotalTensorSizeInBytes
                                        bytes_of(std::vector<std::uint64_t>{(std::uint64_t{1} << 32) + 2, 0, 3})})));
    CHECK(values_of<std::uint8_t>(w.front(), 15) ==
          std::vector<std::uint8_t>{4, 4, 4, 4, 4, 10, 11, 12, 13, 14, 22, 21, 20, 23, 24});
}

TEST_CASE("d3d12: GATHER, DirectML's examples, negative indices, and an index out of range refused as the CPU library "
          "refuses it",
          "[d3d12]") {
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    const auto run = [](const operator_desc& desc, const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
        return gpu().run(desc, std::span<const std::span<const std::byte>>(spans_of({a, b}))).front();
    };
    // 1-D remapping: {11, 12, 13, 14} by {3, 1, 3, 0, 2}.
    const operator_desc one_d = gather_desc{t(data_type::float32, {4}), t(data_type::uint32, {5}), t(data_type::float32, {5}), 0, 1};
    CHECK(values_of<float>(run(one_d, bytes_of(std::vector<float>{11, 12, 13, 14}),
                               bytes_of(std::vector<std::uint32_t>{3, 1, 3, 0, 2})),
                           5) == std::vector<float>{14, 12, 14, 11, 13});
    // Axis 1, IndexDimensions 2 (ONNX's Gather example): {1, 3, 2} by {1, 2, 2} -> {2, 2, 2}, the
    // indices as INT64 with negative ones.
    const operator_desc rows = gather_desc{t(data_type::float32, {1, 3, 2}), t(data_type::int64, {1, 2, 2}),
                                           t(data_type::float32, {2, 2, 2}), 1, 2};
    CHECK(values_of<float>(run(rows, bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6}),
                               bytes_of(std::vector<std::int64_t>{-3, 1, -2, 2})),
                           8) == std::vector<float>{1, 2, 3, 4, 3, 4, 5, 6});
    // IndexDimensions 2 on a 2-D input: the logical {3, 1, 2} keeps its last 2 entries, row 0.
    const operator_desc dropped = gather_desc{t(data_type::uint8, {3, 2}), t(data_type::int32, {1, 2}),
                                              t(data_type::uint8, {1, 2}), 1, 2};
    CHECK(values_of<std::uint8_t>(run(dropped, bytes_of(std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 0, 0}),
                                      bytes_of(std::vector<std::int32_t>{1, -2})),
                                  2) == std::vector<std::uint8_t>{2, 1});
    // 3 is outside [-3, 3): the same validation_error as dmlref::execute, before any dispatch.
    const auto bad = bytes_of(std::vector<std::int64_t>{0, 1, 3, 2});
    const auto in = bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6});
    const std::string cpu_message = cpu_refusal(rows, {in, bad});
    REQUIRE_THAT(cpu_message, Catch::StartsWith("GATHER:") && Catch::Contains("3"));
    CHECK_THROWS_MATCHES(run(rows, in, bad), validation_error, Catch::Message(cpu_message));
}

TEST_CASE("d3d12: GATHER_ND and GATHER_ND1, DirectML's examples and ONNX's batch example", "[d3d12]") {
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    const auto run = [](const operator_desc& desc, const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
        return gpu().run(desc, std::span<const std::span<const std::byte>>(spans_of({a, b}))).front();
    };
    // 2-D remapping: tuples (0, 1) and (1, 0) of a {2, 2, 2} input take its rows {2, 3} and {4, 5}.
    const operator_desc nd = gather_nd_desc{t(data_type::int16, {1, 2, 2, 2}), t(data_type::uint64, {1, 1, 2, 2}),
                                            t(data_type::int16, {1, 1, 2, 2}), 3, 2};
    CHECK(values_of<std::int16_t>(run(nd, bytes_of(std::vector<std::int16_t>{0, 1, 2, 3, 4, 5, 6, 7}),
                                      bytes_of(std::vector<std::uint64_t>{0, 1, 1, 0})),
                                  4) == std::vector<std::int16_t>{2, 3, 4, 5});
    // With a batch dimension (ND1), tuples of 2 with a negative entry.
    const operator_desc batch = gather_nd1_desc{t(data_type::float32, {1, 3, 2, 2}), t(data_type::int32, {1, 3, 2, 2}),
                                                t(data_type::float32, {1, 1, 3, 2}), 3, 3, 1};
    CHECK(values_of<float>(run(batch, bytes_of(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
                               bytes_of(std::vector<std::int32_t>{0, 0, 1, -1, 1, 1, -2, 0, 0, 1, 1, 0})),
                           6) == std::vector<float>{0, 3, 7, 4, 9, 10});
    // ONNX GatherND, batch_dims 1, INT64 indices: {2, 2, 2} by {1, 2, 1} -> {1, 2, 2}.
    const operator_desc onnx = gather_nd1_desc{t(data_type::float64, {2, 2, 2}), t(data_type::int64, {1, 2, 1}),
                                               t(data_type::float64, {1, 2, 2}), 3, 2, 1};
    CHECK(values_of<double>(run(onnx, bytes_of(std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}),
                                bytes_of(std::vector<std::int64_t>{1, 0})),
                            4) == std::vector<double>{2, 3, 4, 5});
}

TEST_CASE("d3d12: ONE_HOT, DirectML's examples and out-of-range indices of every type as OffValue", "[d3d12]") {
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    const auto run = [](const operator_desc& desc, const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
        return gpu().run(desc, std::span<const std::span<const std::byte>>(spans_of({a, b}))).front();
    };
    const auto values = bytes_of(std::vector<float>{0, 1});
    const operator_desc axis3 = one_hot_desc{t(data_type::uint32, {1, 1, 3, 1}), t(data_type::float32, {1, 1, 1, 2}),
                                             t(data_type::float32, {1, 1, 3, 4}), 3};
    CHECK(values_of<float>(run(axis3, bytes_of(std::vector<std::uint32_t>{0, 3, 2}), values), 12) ==
          std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0});
    const operator_desc axis2 = one_hot_desc{t(data_type::uint32, {1, 1, 1, 4}), t(data_type::float32, {1, 1, 1, 2}),
                                             t(data_type::float32, {1, 1, 3, 4}), 2};
    CHECK(values_of<float>(run(axis2, bytes_of(std::vector<std::uint32_t>{0, 2, 1, 0}), values), 12) ==
          std::vector<float>{1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0});
    // Values {1, 1, 3, 1}: OffValue 4, OnValue 2 (the innermost axis of size > 1), the 9 unused.
    const operator_desc three = one_hot_desc{t(data_type::int32, {1, 1, 3, 1}), t(data_type::float32, {1, 1, 3, 1}),
                                             t(data_type::float32, {1, 1, 3, 4}), 3};
    CHECK(values_of<float>(run(three, bytes_of(std::vector<std::int32_t>{-4, 100, 3}),
                               bytes_of(std::vector<float>{4, 2, 9})),
                           12) == std::vector<float>{2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2});
    // 16-bit elements, two to a word; 64-bit indices past 2^32 and 2^63 hit nothing.
    const auto u16 = bytes_of(std::vector<std::uint16_t>{7, 9});
    const operator_desc i64 = one_hot_desc{t(data_type::int64, {4, 1}), t(data_type::uint16, {1, 2}),
                                           t(data_type::uint16, {4, 3}), 1};
    CHECK(values_of<std::uint16_t>(run(i64, bytes_of(std::vector<std::int64_t>{-4, std::numeric_limits<std::int64_t>::min(), 3, -1}), u16),
                                   12) == std::vector<std::uint16_t>{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 9});
    const operator_desc u64 = one_hot_desc{t(data_type::uint64, {4, 1}), t(data_type::uint16, {1, 2}),
                                           t(data_type::uint16, {4, 3}), 1};
    CHECK(values_of<std::uint16_t>(run(u64, bytes_of(std::vector<std::uint64_t>{(std::uint64_t{1} << 32) + 1, std::uint64_t{1} << 63, 2, 0}), u16),
                                   12) == std::vector<std::uint16_t>{7, 7, 7, 7, 7, 7, 7, 7, 9, 9, 7, 7});
}

TEST_CASE("d3d12: SCATTER_ELEMENTS, ONNX's example with a negative index, duplicate targets (the last update stays), "
          "and an index out of range refused as the CPU library refuses it",
          "[d3d12]") {
    // ONNX ScatterElements' negative-index example, Axis 1: data [[1, 2, 3, 4, 5]], indices
    // [[1, -3]], updates [[1.1, 2.1]] -> [[1.0, 1.1, 2.1, 4.0, 5.0]].
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    const operator_desc desc = scatter_elements_desc{t(data_type::float32, {1, 5}), t(data_type::int64, {1, 2}),
                                                     t(data_type::float32, {1, 2}), t(data_type::float32, {1, 5}), 1};
    REQUIRE(d3d12::kernels::make_dispatches(desc).size() == 2); // the copy, then the scatter
    CHECK_THROWS_WITH(d3d12::kernels::make_params(desc), Catch::StartsWith("SCATTER_ELEMENTS: runs as two dispatches"));
    const auto data = bytes_of(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
    const auto updates = bytes_of(std::vector<float>{1.1f, 2.1f});
    const auto out = gpu().run(desc, std::span<const std::span<const std::byte>>(
                                         spans_of({data, bytes_of(std::vector<std::int64_t>{1, -3}), updates})));
    CHECK(values_of<float>(out.front(), 5) == std::vector<float>{1.0f, 1.1f, 2.1f, 4.0f, 5.0f});

    // One-byte elements, Axis 0 of {4, 2}: updates rows 0 and 2 both name row 1 (-3 wraps to 1),
    // row 1 names row 3; the later row (2) stays in row 1, as in the CPU library. Rows 0 and 2 keep
    // the input, so one output word takes lanes from the copy and from the updates.
    const operator_desc bytes = scatter_elements_desc{t(data_type::uint8, {4, 2}), t(data_type::int32, {3, 2}),
                                                      t(data_type::uint8, {3, 2}), t(data_type::uint8, {4, 2}), 0};
    const auto b_in = bytes_of(std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
    const auto b_idx = bytes_of(std::vector<std::int32_t>{1, -3, 3, 3, -3, 1});
    const auto b_upd = bytes_of(std::vector<std::uint8_t>{10, 11, 20, 21, 30, 31, 0, 0}); // 8: TotalTensorSizeInBytes rounds up
    const auto b_out = gpu().run(bytes, std::span<const std::span<const std::byte>>(spans_of({b_in, b_idx, b_upd})));
    std::vector<std::byte> b_cpu(8);
    dmlref::execute(bytes, std::vector<std::span<const std::byte>>{b_in, b_idx, b_upd}, std::vector<std::span<std::byte>>{b_cpu});
    CHECK(values_of<std::uint8_t>(b_cpu, 8) == std::vector<std::uint8_t>{1, 2, 30, 31, 5, 6, 20, 21});
    CHECK(b_out.front() == b_cpu);

    // 5 is outside [-5, 5) on Axis 1: the same validation_error as dmlref::execute, before any dispatch.
    const auto bad = bytes_of(std::vector<std::int64_t>{1, 5});
    const std::string cpu_message = cpu_refusal(desc, {data, bad, updates});
    REQUIRE_THAT(cpu_message, Catch::Contains("SCATTER_ELEMENTS") && Catch::Contains("is 5"));
    CHECK_THROWS_MATCHES(gpu().run(desc, std::span<const std::span<const std::byte>>(spans_of({data, bad, updates}))),
                         validation_error, Catch::Message(cpu_message));
}

TEST_CASE("d3d12: SCATTER_ND, ONNX's first example with a negative INT32 index, and an index out of range "
          "refused as the CPU library refuses it",
          "[d3d12]") {
    // ONNX ScatterND's first example: data [1, 2, 3, 4, 5, 6, 7, 8], indices [[4], [3], [1], [7]],
    // updates [9, 10, 11, 12] -> [1, 11, 3, 10, 9, 6, 7, 12]; here over two axes (DirectML's
    // tensors share one DimensionCount): input {1, 8}, InputDimensionCount 1, indices {4, 1},
    // IndicesDimensionCount 2, updates {1, 4}; the index 7 written as -1.
    const auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    const operator_desc desc = scatter_nd_desc{t(data_type::int16, {1, 8}), t(data_type::int32, {4, 1}),
                                               t(data_type::int16, {1, 4}), t(data_type::int16, {1, 8}), 1, 2};
    const auto data = bytes_of(std::vector<std::int16_t>{1, 2, 3, 4, 5, 6, 7, 8});
    const auto updates = bytes_of(std::vector<std::int16_t>{9, 10, 11, 12});
    const auto out = gpu().run(desc, std::span<const std::span<const std::byte>>(
                                         spans_of({data, bytes_of(std::vector<std::int32_t>{4, 3, 1, -1}), updates})));
    CHECK(values_of<std::int16_t>(out.front(), 8) == std::vector<std::int16_t>{1, 11, 3, 10, 9, 6, 7, 12});

    // -9 is outside [-8, 8): the same validation_error as dmlref::execute, before any dispatch.
    const auto bad = bytes_of(std::vector<std::int32_t>{4, -9, 1, 7});
    const std::string cpu_message = cpu_refusal(desc, {data, bad, updates});
    REQUIRE_THAT(cpu_message, Catch::Contains("SCATTER_ND") && Catch::Contains("-9"));
    CHECK_THROWS_MATCHES(gpu().run(desc, std::span<const std::span<const std::byte>>(spans_of({data, bad, updates}))),
                         validation_error, Catch::Message(cpu_message));
}
