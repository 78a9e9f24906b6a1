// A caller's numbers at the edges of their types: offsets, strides, pads, block sizes, extents,
// byte sizes, feature levels and thread counts near PTRDIFF_MAX, PTRDIFF_MIN, 2^32 and 2^64. Each
// is a validation_error naming the op, the field, the axis and the value, never a wrapped sum
// that reads or writes outside a buffer; and values that are large but fit still pass. The views
// here describe memory that does not exist: every call must refuse them before touching it.
#include <catch2/catch.hpp>

#include <dmlref/compare.hpp>
#include <dmlref/detail/checked.hpp>
#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/parallel.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace dmlref;
using Catch::Contains;

namespace {

constexpr std::ptrdiff_t max = std::numeric_limits<std::ptrdiff_t>::max();
constexpr std::ptrdiff_t min = std::numeric_limits<std::ptrdiff_t>::min();

/// Whether `f` throws a validation_error whose message holds every word of `words`.
template <class F> void expect_rejected(F&& f, std::initializer_list<std::string> words) {
    try {
        f();
        FAIL("no validation_error was thrown");
    } catch (const validation_error& e) {
        INFO("message: " << e.what());
        for (const std::string& word : words) CHECK_THAT(std::string(e.what()), Contains(word));
    }
}

buffer_tensor_desc packed(data_type type, std::vector<std::uint32_t> sizes) {
    return make_buffer_tensor_desc(type, std::move(sizes));
}

} // namespace

// ---- checked arithmetic ------------------------------------------------------------------------

TEST_CASE("checked helpers return nullopt exactly where the result does not fit", "[hostile]") {
    using namespace dmlref::detail;
    CHECK(checked_add(max, std::ptrdiff_t{1}) == std::nullopt);
    CHECK(checked_add(max, std::ptrdiff_t{0}) == max);
    CHECK(checked_sub(min, std::ptrdiff_t{1}) == std::nullopt);
    CHECK(checked_neg(min) == std::nullopt);
    CHECK(checked_neg(min + 1) == max);
    CHECK(checked_mul(std::ptrdiff_t{1} << 32, std::ptrdiff_t{1} << 31) == std::nullopt);
    CHECK(checked_mul(std::ptrdiff_t{-1}, min) == std::nullopt);
    CHECK(checked_mul(std::ptrdiff_t{1} << 31, std::ptrdiff_t{1} << 31) == std::ptrdiff_t{1} << 62);
    const std::ptrdiff_t four[] = {65536, 65536, 65536, 65536};
    CHECK(checked_product(std::span<const std::ptrdiff_t>(four)) == std::nullopt);
    const std::ptrdiff_t with_zero[] = {65536, 65536, 65536, 65536, 0};
    CHECK(checked_product(std::span<const std::ptrdiff_t>(with_zero)) == std::uint64_t{0});
    CHECK(checked_magnitude(min) == std::uint64_t{1} << 63);
    CHECK(checked_magnitude(std::ptrdiff_t{-5}) == 5u);
    CHECK(checked_magnitude(max) == static_cast<std::uint64_t>(max));
}

// ---- slice over views ------------------------------------------------------------------------

TEST_CASE("slice: a window offset near PTRDIFF_MAX is rejected and not wrapped", "[hostile][views]") {
    std::vector<float> in(8), out(2);
    strided_view<const float, 2> input(in.data(), {2, 4});
    strided_view<float, 2> output(out.data(), {2, 1});
    // offset + size wraps to a negative number, which passed the "inside the input" check.
    expect_rejected([&] { slice<float, 2>(input, output, {0, max}, {2, 1}, {1, 1}); },
                    {"slice: InputWindowOffsets[1] + InputWindowSizes[1]", "9223372036854775807",
                     "exceeds InputTensor.Sizes[1] = 4"});
    expect_rejected([&] { slice<float, 2>(input, output, {0, 3}, {2, max}, {1, 1}); },
                    {"slice: InputWindowOffsets[1] + InputWindowSizes[1]", "9223372036854775807"});
    expect_rejected([&] { (void)slice_view<const float, 2>(input, {0, max}, {2, 1}, {1, 1}); },
                    {"slice_view: InputWindowOffsets[1]", "9223372036854775807"});
    // A view whose element 0 sits near PTRDIFF_MAX: the window's start must not wrap its offset.
    strided_view<const float, 1> far(in.data(), {4}, {1}, max - 1);
    expect_rejected([&] { (void)slice_view<const float, 1>(far, {2}, {2}, {1}); },
                    {"slice_view: the input's offset 9223372036854775806 plus the window's start 2"});
}

TEST_CASE("slice: a window stride of PTRDIFF_MIN is rejected and not negated", "[hostile][views]") {
    std::vector<float> in(8), out(2);
    strided_view<const float, 2> input(in.data(), {2, 4});
    strided_view<float, 2> output(out.data(), {2, 1});
    expect_rejected([&] { slice<float, 2>(input, output, {0, 0}, {2, 4}, {1, min}); },
                    {"slice: InputWindowStrides[1]", "-9223372036854775808"});
    expect_rejected([&] { (void)slice_view<const float, 2>(input, {0, 0}, {2, 4}, {1, min}); },
                    {"slice_view: InputWindowStrides[1]", "-9223372036854775808"});
    // The largest magnitude that fits is fine: one element of the window.
    CHECK_NOTHROW(slice<float, 2>(input, output, {0, 0}, {2, 4}, {1, min + 1}));
    CHECK_NOTHROW(slice<float, 2>(input, output, {0, 0}, {2, 4}, {1, max}));
    const auto view = slice_view<const float, 2>(input, {0, 0}, {2, 4}, {1, max});
    CHECK(view.extents() == index_array<2>{2, 1});
}

TEST_CASE("slice: a window stride times an input stride that overflows is not formed", "[hostile][views]") {
    // The window's stride of 2^40 never steps (its axis copies one element); the plan must not
    // multiply it by the input's stride of 2^30 (2^70).
    std::vector<float> in(4), out(1);
    strided_view<const float, 1> input(in.data(), {4});
    strided_view<float, 1> output(out.data(), {1});
    in[2] = 7;
    strided_view<const float, 2> wide(in.data(), {1, 4}, {std::ptrdiff_t{1} << 30, 1});
    strided_view<float, 2> one(out.data(), {1, 1});
    CHECK_NOTHROW(slice<float, 2>(wide, one, {0, 2}, {1, 1}, {std::ptrdiff_t{1} << 40, 1}));
    CHECK(out[0] == 7);
}

TEST_CASE("views whose reach does not fit are rejected: inputs and outputs alike", "[hostile][views]") {
    std::vector<float> in(4), out(4);
    // An input whose two axes of stride 2^62 sum past PTRDIFF_MAX.
    strided_view<const float, 2> input(in.data(), {2, 2}, {std::ptrdiff_t{1} << 62, std::ptrdiff_t{1} << 62});
    strided_view<float, 2> output(out.data(), {2, 2});
    expect_rejected([&] { slice<float, 2>(input, output, {0, 0}, {2, 2}, {1, 1}); },
                    {"slice: InputTensor.Strides[0] = 4611686018427387904", "InputTensor.Sizes[0] = 2",
                     "past 144115188075855871"});
    // Each axis alone fits; the second takes the span to 2^57.
    strided_view<const float, 2> two_axes(in.data(), {2, 2}, {std::ptrdiff_t{1} << 56, std::ptrdiff_t{1} << 56});
    expect_rejected([&] { slice<float, 2>(two_axes, output, {0, 0}, {2, 2}, {1, 1}); },
                    {"slice: InputTensor.Strides[1] = 72057594037927936 with InputTensor.Sizes[1] = 2"});
    // An output of one axis whose stride is PTRDIFF_MIN: its magnitude is never taken.
    strided_view<const float, 1> small(in.data(), {2});
    strided_view<float, 1> reversed(out.data(), {2}, {min});
    expect_rejected([&] { slice<float, 1>(small, reversed, {0}, {2}, {1}); },
                    {"slice: OutputTensor.Strides[0] = -9223372036854775808", "OutputTensor.Sizes[0] = 2"});
    // An output that fits in ptrdiff_t but not in bytes of 8-byte elements.
    strided_view<float, 1> far(out.data(), {2}, {std::ptrdiff_t{1} << 61});
    expect_rejected([&] { slice<float, 1>(small, far, {0}, {2}, {1}); }, {"slice: OutputTensor.Strides[0]"});
    // An input that broadcasts 2^64 elements from one.
    strided_view<const float, 4> broadcast(in.data(), {65536, 65536, 65536, 65536}, {0, 0, 0, 0});
    strided_view<float, 4> one(out.data(), {1, 1, 1, 1});
    expect_rejected([&] { slice<float, 4>(broadcast, one, {0, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}); },
                    {"slice: InputTensor.Sizes {65536, 65536, 65536, 65536}", "elements"});
    // Large strides that fit are fine: a broadcast input of 2^40 elements, a stride of 2^40 on an
    // axis of one element.
    strided_view<const float, 2> big(in.data(), {std::ptrdiff_t{1} << 20, std::ptrdiff_t{1} << 20}, {0, 0});
    strided_view<float, 2> pair(out.data(), {1, 2}, {std::ptrdiff_t{1} << 40, 1});
    CHECK_NOTHROW(slice<float, 2>(big, pair, {5, 5}, {1, 2}, {1, 1}));
}

// ---- padding over views ----------------------------------------------------------------------

TEST_CASE("pad: pads that wrap the output size are rejected", "[hostile][views]") {
    std::vector<float> in(4), out(2);
    strided_view<const float, 1> input(in.data(), {4});
    strided_view<float, 1> output(out.data(), {2});
    // 4 + (2^63 - 1) + (2^63 - 1) wraps to 2, the output's size.
    expect_rejected([&] { pad<float, 1>(input, output, padding_mode::edge, 0.0f, {max}, {max}); },
                    {"pad: InputTensor.Sizes[0] + StartPadding[0] + EndPadding[0]", "4 + 9223372036854775807",
                     "does not fit"});
    expect_rejected([&] { pad<float, 1>(input, output, padding_mode::constant, 0.0f, {max}, {max}); },
                    {"pad: InputTensor.Sizes[0] + StartPadding[0] + EndPadding[0]"});
    std::vector<float> big(7);
    strided_view<float, 1> padded(big.data(), {7});
    CHECK_NOTHROW(pad<float, 1>(input, padded, padding_mode::reflection, 0.0f, {1}, {2}));
}

TEST_CASE("padding_source: sizes no view may have give -1 and never divide by zero", "[hostile]") {
    // REFLECTION of one element (period 0) repeats it, as DirectML does (DECISIONS 5): 0 for any t.
    for (std::ptrdiff_t t : {std::ptrdiff_t{5}, std::ptrdiff_t{1}, std::ptrdiff_t{-1}, std::ptrdiff_t{-2}, max, min})
        CHECK(padding_source(padding_mode::reflection, t, 1) == 0);
    // Sizes no view may have still give -1, in every folding mode.
    for (padding_mode mode : {padding_mode::reflection, padding_mode::symmetric, padding_mode::wrap, padding_mode::edge})
        for (std::ptrdiff_t n : {std::ptrdiff_t{0}, std::ptrdiff_t{-1}, min, max}) {
            CHECK(padding_source(mode, -1, n) == -1); // outside any axis
            CHECK(padding_source(mode, max, n) == -1);
            CHECK(padding_source(mode, min, n) == -1);
        }
    CHECK(padding_source(padding_mode::wrap, 5, 0) == -1);
    CHECK(padding_source(padding_mode::symmetric, -1, max) == -1);
    CHECK(padding_source(padding_mode::symmetric, -1, -3) == -1);
    CHECK(padding_source(padding_mode::symmetric, max - 1, max) == max - 1); // inside is inside
    CHECK(padding_source(padding_mode::wrap, min, 3) == 1);                  // -2^63 mod 3
    CHECK(padding_source(padding_mode::reflection, max, 4) == 1);            // (2^63 - 1) mod 6 = 1
}

// ---- depth/space over views ------------------------------------------------------------------

TEST_CASE("depth_to_space: a block size whose square does not fit is rejected", "[hostile][views]") {
    std::vector<float> in(4), out(4);
    // C = 2^32 channels broadcast from one element; B * B = 2^64 was 0, and C % 0 divided by zero.
    const std::ptrdiff_t b = std::ptrdiff_t{1} << 32;
    strided_view<const float, 4> input(in.data(), {1, b, 1, 1}, {0, 0, 0, 0});
    strided_view<float, 4> output(out.data(), {1, 1, 1, 1});
    expect_rejected([&] { depth_to_space<float>(input, output, b); },
                    {"depth_to_space: InputTensor.Sizes[1] = 4294967296 is not a multiple of BlockSize * BlockSize = "
                     "4294967296 * 4294967296"});
    // 2^31 * 2^31 = 2^62 fits, and exceeds C = 2^56.
    strided_view<const float, 4> deep(in.data(), {1, std::ptrdiff_t{1} << 56, 1, 1}, {0, 0, 0, 0});
    expect_rejected([&] { depth_to_space<float>(deep, output, std::ptrdiff_t{1} << 31); },
                    {"depth_to_space: InputTensor.Sizes[1] = 72057594037927936 is not a multiple of BlockSize * "
                     "BlockSize = 2147483648 * 2147483648"});
    expect_rejected([&] { depth_to_space<float>(input, output, max); }, {"depth_to_space", "BlockSize"});
    // H * B past PTRDIFF_MAX: the input's broadcast sizes hold too many elements first.
    strided_view<const float, 4> tall(in.data(), {1, std::ptrdiff_t{1} << 28, (std::ptrdiff_t{1} << 50) + 1, 1},
                                      {0, 0, 0, 0});
    strided_view<float, 4> square(out.data(), {1, 1, 1 << 14, 1 << 14});
    expect_rejected([&] { depth_to_space<float>(tall, square, 1 << 14); }, {"depth_to_space: InputTensor.Sizes"});
}

TEST_CASE("space_to_depth: a block size of PTRDIFF_MAX is rejected", "[hostile][views]") {
    std::vector<float> in(4), out(4);
    strided_view<const float, 4> input(in.data(), {1, 1, max, max}, {0, 0, 0, 0});
    strided_view<float, 4> output(out.data(), {1, 1, 1, 1});
    expect_rejected([&] { space_to_depth<float>(input, output, max); }, {"space_to_depth: InputTensor.Sizes"});
    strided_view<const float, 4> one(in.data(), {1, 1, 1, 1});
    expect_rejected([&] { space_to_depth<float>(one, output, max); },
                    {"space_to_depth: InputTensor.Sizes[2] = 1 is not a multiple of BlockSize = 9223372036854775807"});
    // Large but valid (checked, not run: the memory does not exist): a broadcast input of 2^40
    // elements in blocks of 2^20, and its depth-to-space back.
    detail::layout wide{4, {1, 1, std::ptrdiff_t{1} << 20, std::ptrdiff_t{1} << 20}, {0, 0, 0, 0}};
    detail::layout deep{4, {1, std::ptrdiff_t{1} << 40, 1, 1}, {std::ptrdiff_t{1} << 40, 1, 1, 1}};
    CHECK(detail::check_depth_space("space_to_depth", depth_space_direction::space_to_depth, wide, deep,
                                    std::ptrdiff_t{1} << 20, depth_space_order::column_row_depth) == std::nullopt);
    detail::layout deep_broadcast{4, {1, std::ptrdiff_t{1} << 40, 1, 1}, {0, 0, 0, 0}};
    detail::layout wide_out{4, {1, 1, std::ptrdiff_t{1} << 20, std::ptrdiff_t{1} << 20},
                            {std::ptrdiff_t{1} << 40, std::ptrdiff_t{1} << 40, std::ptrdiff_t{1} << 20, 1}};
    CHECK(detail::check_depth_space("depth_to_space", depth_space_direction::depth_to_space, deep_broadcast, wide_out,
                                    std::ptrdiff_t{1} << 20, depth_space_order::depth_column_row) == std::nullopt);
}

// ---- tensor and strided_view -----------------------------------------------------------------

TEST_CASE("tensor rejects extents whose element count does not fit", "[hostile][views]") {
    expect_rejected([] { tensor<float, 4> t({65536, 65536, 65536, 65536}); }, {"tensor", "65536"});
    expect_rejected([] { tensor<float, 2> t({-1, 4}); }, {"tensor", "-1"});
    expect_rejected([] { tensor<float, 1> t({max}); }, {"tensor", "9223372036854775807"});
    expect_rejected([] { tensor<float, 1> t({max}, {1.0f}); }, {"tensor", "9223372036854775807"});
    CHECK(tensor<float, 2>({0, 4}).size() == 0);
}

TEST_CASE("strided_view::size rejects extents whose product does not fit", "[hostile][views]") {
    float x = 0;
    strided_view<float, 4> huge(&x, {65536, 65536, 65536, 65536}, {0, 0, 0, 0});
    expect_rejected([&] { (void)huge.size(); }, {"65536"});
    strided_view<float, 2> fine(&x, {std::ptrdiff_t{1} << 31, std::ptrdiff_t{1} << 31}, {0, 0});
    CHECK(fine.size() == std::ptrdiff_t{1} << 62);
    // packed_strides stops before it overflows: no such view describes memory, and the ops reject it.
    const auto strides = packed_strides<4>({65536, 65536, 65536, 65536});
    CHECK(strides[3] == 1);
    CHECK(strides[1] == std::ptrdiff_t{1} << 32);
}

// ---- format and compare ----------------------------------------------------------------------

TEST_CASE("format_tensor: sizes whose product wraps are an invalid tensor and never read", "[hostile][toolkit]") {
    const std::vector<std::byte> bytes(16);
    const std::vector<std::uint32_t> sizes = {65536, 65536, 65536, 65536};
    CHECK(format_tensor(data_type::float32, sizes, bytes) == "<invalid tensor>");
    const std::vector<std::uint32_t> eight(8, 0xffffffffu);
    CHECK(format_tensor(data_type::uint8, eight, bytes) == "<invalid tensor>");
    const std::vector<std::uint32_t> four = {2, 2};
    CHECK(format_tensor(data_type::float32, four, bytes) == "[[0, 0],\n [0, 0]]");
}

TEST_CASE("format_view: extents past the tensor's count or past 2^32 are an invalid tensor", "[hostile][toolkit]") {
    float x = 0;
    strided_view<const float, 4> huge(&x, {65536, 65536, 65536, 65536}, {0, 0, 0, 0});
    CHECK(format_view(huge) == "<invalid tensor>");
    strided_view<const float, 1> past_u32(&x, {std::ptrdiff_t{1} << 32}, {0});
    CHECK(format_view(past_u32) == "<invalid tensor>");
}

TEST_CASE("compare: sizes whose product wraps or does not match the buffers are rejected", "[hostile][toolkit]") {
    const std::vector<std::byte> bytes(16);
    const std::vector<std::uint32_t> sizes = {65536, 65536, 65536, 65536};
    expect_rejected([&] { (void)compare(data_type::float32, sizes, bytes, bytes); },
                    {"compare: the sizes {65536, 65536, 65536, 65536}", "more than"});
    const std::vector<std::uint32_t> three = {3};
    expect_rejected([&] { (void)compare(data_type::float32, three, bytes, bytes); },
                    {"compare: the expected buffer has 16 bytes", "3 elements of FLOAT32 need 12"});
}

TEST_CASE("compare: a zero size allocates nothing per coordinate of the other axes", "[hostile][toolkit]") {
    // A zero size makes no elements whatever the others are.
    const std::vector<std::uint32_t> empty = {0, 0xffffffffu, 0xffffffffu};
    const auto r = compare(data_type::uint8, empty, {}, {});
    CHECK(r.equal());
    CHECK(r.element_count == 0);
}

TEST_CASE("compare over views: extents past 2^32 are rejected and not truncated", "[hostile][toolkit]") {
    float x = 0;
    strided_view<const float, 1> past_u32(&x, {std::ptrdiff_t{1} << 32}, {0});
    expect_rejected([&] { (void)compare(past_u32, past_u32); }, {"compare", "4294967296"});
}

// ---- desc layer ------------------------------------------------------------------------------

TEST_CASE("a tensor desc whose DMLCalcBufferTensorSize does not fit is rejected", "[hostile][validation]") {
    // (2^32 - 2) * (2^32 - 1) + 1 elements of 4 bytes: past 2^64 bytes, where the size saturates and
    // a TotalTensorSizeInBytes of 2^64 - 1 used to pass.
    slice1_desc d{packed(data_type::float32, {1}), packed(data_type::float32, {1}), {0}, {1}, {1}};
    d.input_tensor = {data_type::float32, tensor_flags::none, {0xffffffffu}, std::vector<std::uint32_t>{0xffffffffu},
                      std::numeric_limits<std::uint64_t>::max(), 0};
    auto message = validate(d);
    REQUIRE(message);
    CHECK_THAT(*message, Contains("SLICE1: InputTensor.Strides {4294967295}"));
    CHECK_THAT(*message, Contains("Sizes {4294967295}"));
    CHECK_THAT(*message, Contains("2^64"));
    std::vector<std::byte> in(16), out(16);
    CHECK_THROWS_AS(execute(d, in, out), validation_error);

    // Past PTRDIFF_MAX bytes but inside 2^64: 2^31 + 2^20 bytes 2^32 - 1 apart.
    d = slice1_desc{packed(data_type::uint8, {1}), packed(data_type::uint8, {1}), {0}, {1}, {1}};
    d.output_tensor = {data_type::uint8, tensor_flags::none, {0x8010'0000u}, std::vector<std::uint32_t>{0xffffffffu},
                       std::numeric_limits<std::uint64_t>::max(), 0};
    d.input_tensor.sizes = {0x8010'0000u};
    d.input_tensor.total_tensor_size_in_bytes = 0x8010'0000u;
    d.input_window_sizes = {0x8010'0000u};
    message = validate(d);
    REQUIRE(message);
    CHECK_THAT(*message, Contains("SLICE1: OutputTensor.Strides {4294967295}"));
    CHECK_THAT(*message, Contains("9223372036854775807"));

    // Large strides inside 2^63 bytes: 2^20 elements 2^32 - 1 apart, 2^52 bytes in all, counted
    // exactly and refused by DirectML's cap on TotalTensorSizeInBytes ((2^32 - 1) elements' worth,
    // 2^32 - 1 bytes of one-byte elements), not by an overflow.
    d.output_tensor = {data_type::uint8, tensor_flags::none, {0x10'0000u}, std::vector<std::uint32_t>{0xffffffffu}, 0, 0};
    d.output_tensor.total_tensor_size_in_bytes = calc_buffer_tensor_size(d.output_tensor);
    CHECK(d.output_tensor.total_tensor_size_in_bytes == (0xf'ffffull * 0xffff'ffffull + 1 + 3) / 4 * 4);
    d.input_tensor = packed(data_type::uint8, {0x10'0000u});
    d.input_window_sizes = {0x10'0000u};
    message = validate(d);
    REQUIRE(message);
    CHECK(*message == fmt::format("SLICE1: OutputTensor.TotalTensorSizeInBytes = {} is more than (2^32 - 1) elements of 1 "
                                  "bytes = 4294967295; DirectML refuses larger buffer tensors",
                                  d.output_tensor.total_tensor_size_in_bytes));
    // The largest strides that fit pass: 2 elements 2^32 - 5 apart, the last at byte 2^32 - 5.
    d.output_tensor = {data_type::uint8, tensor_flags::none, {2}, std::vector<std::uint32_t>{0xffff'fffbu}, 0, 0};
    d.output_tensor.total_tensor_size_in_bytes = calc_buffer_tensor_size(d.output_tensor);
    CHECK(d.output_tensor.total_tensor_size_in_bytes == 0xffff'fffcu);
    d.input_window_sizes = {2};
    CHECK(validate(d) == std::nullopt);
    // Of eight bytes the cap is (2^32 - 1) * 8: 2 elements 2^32 - 2 apart fit (the last ends at
    // byte (2^32 - 1) * 8), 2^32 - 1 apart do not.
    d = slice1_desc{packed(data_type::float64, {2}), packed(data_type::float64, {2}), {0}, {2}, {1}};
    d.output_tensor = {data_type::float64, tensor_flags::none, {2}, std::vector<std::uint32_t>{0xffff'fffeu}, 0, 0};
    d.output_tensor.total_tensor_size_in_bytes = calc_buffer_tensor_size(d.output_tensor);
    CHECK(d.output_tensor.total_tensor_size_in_bytes == 0x7'ffff'fff8ull);
    CHECK(validate(d) == std::nullopt);
    (*d.output_tensor.strides)[0] = 0xffff'ffffu;
    d.output_tensor.total_tensor_size_in_bytes = calc_buffer_tensor_size(d.output_tensor);
    CHECK(d.output_tensor.total_tensor_size_in_bytes == 0x8'0000'0000ull);
    CHECK(validate(d) == "SLICE1: OutputTensor.TotalTensorSizeInBytes = 34359738368 is more than (2^32 - 1) elements of 8 "
                         "bytes = 34359738360; DirectML refuses larger buffer tensors");
}

TEST_CASE("feature levels that are not DirectML's are rejected and named in hex", "[hostile][validation]") {
    const slice1_desc d{packed(data_type::float32, {4}), packed(data_type::float32, {2}), {0}, {4}, {2}};
    REQUIRE_FALSE(validate(d));
    std::vector<std::byte> in(16), out(8);
    for (const std::uint32_t level : {0x10000u, 0xffffffffu, 0x2050u, 0x0u, 0x6401u}) {
        INFO(level);
        const auto message = validate(d, static_cast<feature_level>(level));
        REQUIRE(message);
        CHECK_THAT(*message, Contains(fmt::format("{:#x}", level)));
        CHECK_THAT(*message, Contains("SLICE1"));
        CHECK_THAT(*message, Contains("feature level"));
        CHECK_THROWS_AS(execute(d, in, out, static_cast<feature_level>(level)), validation_error);
        CHECK_THROWS_AS(execute(d, in, out, execution_options{2}, static_cast<feature_level>(level)), validation_error);
    }
    CHECK_FALSE(validate(d, feature_level::fl_6_4));
    CHECK_FALSE(validate(d, feature_level::fl_3_0));
}

// ---- threads ---------------------------------------------------------------------------------

namespace {
/// A SLICE1 of `rows` rows of 2 of 4 floats: rows that do not merge, 8 output bytes each.
struct row_slice {
    slice1_desc desc;
    std::vector<std::byte> input, output;
    explicit row_slice(std::uint32_t rows)
        : desc{packed(data_type::float32, {rows, 4}), packed(data_type::float32, {rows, 2}), {0, 1}, {rows, 2}, {1, 1}},
          input(std::size_t{rows} * 16), output(std::size_t{rows} * 8) {
        for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>(i * 7);
    }
    detail::prepared_plan prepared() {
        std::vector<std::ptrdiff_t> tables;
        return detail::prepare(detail::checked_plan(desc, input, output, newest_feature_level, tables));
    }
};
} // namespace

TEST_CASE("thread_parts: never more threads than cores and never under 64 KiB a thread", "[hostile][threads]") {
    row_slice s(65536); // 512 KiB of output in 65,536 rows
    const detail::prepared_plan p = s.prepared();
    REQUIRE(p.rows == 65536);
    REQUIRE(p.bytes == 512u << 10);
    const execution_options many{100000, 0};
    CHECK(detail::thread_parts(p, many, 4) == 4);    // the cores
    CHECK(detail::thread_parts(p, many, 1000) == 8); // 512 KiB in parts of at least 64 KiB
    CHECK(detail::thread_parts(p, many, 0) == 1);    // cores unknown: the calling thread alone
    CHECK(detail::thread_parts(p, many) <= std::max<std::size_t>(detail::hardware_threads(), 1));
    CHECK(detail::thread_parts(p, {0, 0}, 4) == 1);
    CHECK(detail::thread_parts(p, {1, 0}, 4) == 1);
    CHECK(detail::thread_parts(p, {3, 0}, 4) == 3);
    CHECK(detail::thread_parts(p, {100000, 256u << 10}, 1000) == 2); // the caller's larger minimum
    CHECK(detail::thread_parts(p, {100000, 512u << 10}, 1000) == 1);
    row_slice tiny(4096); // 32 KiB: under the floor, one thread whatever is asked
    CHECK(detail::thread_parts(tiny.prepared(), many, 1000) == 1);
}

TEST_CASE("execute with 100,000 threads asked over 65,536 rows gives the one-thread result", "[hostile][threads]") {
    row_slice s(65536);
    execute(s.desc, s.input, s.output, execution_options{100000, 0});
    std::vector<std::byte> one(s.output.size());
    execute(s.desc, s.input, one);
    CHECK(s.output == one);
    // The split itself, forced past the bounds: 7 parts of 65,536 rows, the last rows included.
    std::vector<std::byte> seven(s.output.size());
    std::vector<std::ptrdiff_t> tables;
    detail::execute_parts(detail::prepare(detail::checked_plan(s.desc, s.input, seven, newest_feature_level, tables)), 7);
    CHECK(seven == one);
}
