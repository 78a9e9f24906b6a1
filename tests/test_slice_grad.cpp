// SLICE_GRAD: the documented example (docs/operator-facts.md section 7) as a literal, the zeros'
// bit patterns, negative strides against SLICE1 (SLICE_GRAD is its adjoint), its validation rules
// and messages per feature level, and the typed view API over every element type and ranks 1 to
// 8. The engine == textbook properties on random descs live in test_property.cpp.
#include <catch2/catch.hpp>

#include "desc_test_support.hpp"

#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/parallel.hpp>
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

/// run_both over a sentinel output (0x5a), so that zeros written and bytes left alone differ.
std::vector<std::byte> run_grad(const operator_desc& desc, const std::vector<std::byte>& input, std::byte fill = std::byte{0x5a}) {
    return run_both(desc, input, fill);
}

slice_grad_desc grad_desc(data_type type, std::vector<std::uint32_t> in_sizes, std::vector<std::uint32_t> out_sizes,
                          std::vector<std::uint32_t> offsets, std::vector<std::uint32_t> sizes,
                          std::vector<std::int32_t> strides) {
    return {make_buffer_tensor_desc(type, std::move(in_sizes)), make_buffer_tensor_desc(type, std::move(out_sizes)),
            std::move(offsets), std::move(sizes), std::move(strides)};
}

} // namespace

// ---- the documented example --------------------------------------------------------------------

TEST_CASE("SLICE_GRAD: the documented example, [[a, c], [i, k]] back into a 4x4 of zeros", "[slice_grad]") {
    // The page's SLICE1 takes [[a, c], [i, k]] from the 4x4 [[a..d], [e..h], [i..l], [m..p]]: offsets
    // {0, 0}, sizes {4, 4}, strides {2, 2}. SLICE_GRAD with that window puts them back, zeros elsewhere.
    const auto desc = grad_desc(data_type::float32, {2, 2}, {4, 4}, {0, 0}, {4, 4}, {2, 2});
    const float a = 1, c = 3, i = 9, k = 11;
    CHECK(values_of<float>(run_grad(desc, bytes_of(std::vector<float>{a, c, i, k}))) ==
          std::vector<float>{a, 0, c, 0, 0, 0, 0, 0, i, 0, k, 0, 0, 0, 0, 0});
    // The same window through SLICE1 reads them back: SLICE1 after SLICE_GRAD is the identity.
    const slice1_desc forward{make_buffer_tensor_desc(data_type::float32, {4, 4}),
                              make_buffer_tensor_desc(data_type::float32, {2, 2}), {0, 0}, {4, 4}, {2, 2}};
    std::vector<std::byte> back(16);
    execute(forward, run_grad(desc, bytes_of(std::vector<float>{a, c, i, k})), back);
    CHECK(values_of<float>(back) == std::vector<float>{a, c, i, k});
}

TEST_CASE("SLICE_GRAD writes its zeros as all bits clear, for every type (+0.0 for the floats)", "[slice_grad]") {
    for (data_type type : movable_data_types) {
        INFO(to_string(type));
        const auto desc = grad_desc(type, {2}, {5}, {1}, {3}, {2});
        const std::size_t w = element_size(type);
        const std::vector<std::byte> input(desc.input_tensor.total_tensor_size_in_bytes, std::byte{0xff}); // NaN or -1
        const auto out = run_grad(desc, input, std::byte{0x77});
        REQUIRE(out.size() >= 5 * w);
        for (std::size_t e = 0; e < 5; ++e) {
            const bool window = e == 1 || e == 3;
            for (std::size_t b = 0; b < w; ++b) CHECK(out[e * w + b] == (window ? std::byte{0xff} : std::byte{0}));
        }
    }
}

TEST_CASE("SLICE_GRAD with negative strides starts at the window's end, as SLICE1 reads", "[slice_grad]") {
    // Window [1, 6) of 7 elements, stride -2: SLICE1 reads 5, 3, 1; SLICE_GRAD puts g0 at 5, g1 at 3, g2 at 1.
    const auto desc = grad_desc(data_type::int32, {3}, {7}, {1}, {5}, {-2});
    CHECK(values_of<std::int32_t>(run_grad(desc, bytes_of(std::vector<std::int32_t>{10, 20, 30}))) ==
          std::vector<std::int32_t>{0, 30, 0, 20, 0, 10, 0});
    // Fewer gradient elements than the window holds (SLICE1's truncated output): the first ones from CopyStart.
    const auto fewer = grad_desc(data_type::int32, {2}, {7}, {1}, {5}, {-2});
    CHECK(values_of<std::int32_t>(run_grad(fewer, bytes_of(std::vector<std::int32_t>{10, 20}))) ==
          std::vector<std::int32_t>{0, 0, 0, 20, 0, 10, 0});
    // Stride -1 on one axis, +3 on the other (the fill-then-copy plan), over a 2 x 7 output.
    const auto both = grad_desc(data_type::uint8, {2, 2}, {2, 7}, {0, 2}, {2, 5}, {-1, 3});
    CHECK(values_of<std::uint8_t>(run_grad(both, bytes_of(std::vector<std::uint8_t>{1, 2, 3, 4}))) ==
          std::vector<std::uint8_t>{0, 0, 3, 0, 0, 4, 0, 0, 0, 1, 0, 0, 2, 0, 0x5a, 0x5a}); // 14 elements, 2 tail bytes
}

TEST_CASE("SLICE_GRAD takes a gradient longer than the window, and an empty window, as DirectML 1.15.4 does",
          "[slice_grad]") {
    // DirectML's bound counts from the offset: offset 1, stride 2, three elements fit 7 (1, 3, 5),
    // though the window [1, 2) gives SLICE1 one. (Measured: DirectML accepts and writes them.)
    const auto longer = grad_desc(data_type::int32, {3}, {7}, {1}, {1}, {2});
    CHECK(values_of<std::int32_t>(run_grad(longer, bytes_of(std::vector<std::int32_t>{10, 20, 30}))) ==
          std::vector<std::int32_t>{0, 10, 0, 20, 0, 30, 0});
    const auto empty = grad_desc(data_type::int32, {2}, {4}, {1}, {0}, {1});
    CHECK(values_of<std::int32_t>(run_grad(empty, bytes_of(std::vector<std::int32_t>{10, 20}))) ==
          std::vector<std::int32_t>{0, 10, 20, 0});
    // An empty window with a negative stride: CopyStart = offset - 1.
    const auto empty_back = grad_desc(data_type::int32, {2}, {6}, {3}, {0}, {-2});
    CHECK(values_of<std::int32_t>(run_grad(empty_back, bytes_of(std::vector<std::int32_t>{10, 20}))) ==
          std::vector<std::int32_t>{20, 0, 10, 0, 0, 0});
}

TEST_CASE("SLICE_GRAD is SLICE1's adjoint: <slice1(x), g> == <x, slice_grad(g)> on random windows", "[slice_grad]") {
    std::uint32_t state = 12345;
    auto next = [&](std::uint32_t n) {
        state = state * 1664525u + 1013904223u;
        return (state >> 8) % n;
    };
    for (int trial = 0; trial < 300; ++trial) {
        const std::uint32_t rank = 1 + next(4);
        std::vector<std::uint32_t> big(rank), offsets(rank), sizes(rank), small(rank);
        std::vector<std::int32_t> strides(rank);
        for (std::uint32_t i = 0; i < rank; ++i) {
            big[i] = 1 + next(7);
            offsets[i] = next(big[i]);
            sizes[i] = 1 + next(big[i] - offsets[i]);
            const auto m = static_cast<std::int32_t>(1 + next(3));
            strides[i] = next(2) ? -m : m;
            small[i] = 1 + next(1 + (sizes[i] - 1) / static_cast<std::uint32_t>(m));
        }
        const slice1_desc forward{make_buffer_tensor_desc(data_type::int64, big),
                                  make_buffer_tensor_desc(data_type::int64, small), offsets, sizes, strides};
        const slice_grad_desc backward{make_buffer_tensor_desc(data_type::int64, small),
                                       make_buffer_tensor_desc(data_type::int64, big), offsets, sizes, strides};
        const std::size_t nb = element_count(big), ns = element_count(small);
        std::vector<std::int64_t> x(nb), g(ns);
        for (auto& v : x) v = static_cast<std::int64_t>(next(1000));
        for (auto& v : g) v = static_cast<std::int64_t>(next(1000));
        std::vector<std::byte> sx(ns * 8), gg(nb * 8);
        execute(forward, bytes_of(x), sx);
        gg = run_grad(backward, bytes_of(g));
        const auto a = values_of<std::int64_t>(sx), b = values_of<std::int64_t>(gg);
        std::int64_t left = 0, right = 0;
        for (std::size_t k = 0; k < ns; ++k) left += a[k] * g[k];
        for (std::size_t k = 0; k < nb; ++k) right += x[k] * b[k];
        CHECK(left == right);
        // Every gradient element lands somewhere: the sum is kept.
        CHECK(std::accumulate(b.begin(), b.end(), std::int64_t{0}) == std::accumulate(g.begin(), g.end(), std::int64_t{0}));
    }
}

TEST_CASE("SLICE_GRAD into a strided output leaves the gaps as they were", "[slice_grad]") {
    slice_grad_desc desc = grad_desc(data_type::int16, {2, 1}, {3, 2}, {0, 1}, {3, 1}, {2, 1});
    desc.output_tensor = make_buffer_tensor_desc(data_type::int16, {3, 2}, std::vector<std::uint32_t>{3, 1});
    const auto out = values_of<std::int16_t>(run_grad(desc, bytes_of(std::vector<std::int16_t>{7, 8}), std::byte{0x11}));
    CHECK(out == std::vector<std::int16_t>{0, 7, 0x1111, 0, 0, 0x1111, 0, 8});
}

TEST_CASE("SLICE_GRAD's source_of names the gradient element, or zero", "[slice_grad]") {
    const auto desc = grad_desc(data_type::float32, {2, 2}, {4, 4}, {0, 0}, {4, 4}, {2, -2});
    // Axis 1, stride -2 over [0, 4): CopyStart 3, elements at 3 (g 0) and 1 (g 1).
    CHECK(textbook::source_of(desc, {2, 1}) == textbook::source{textbook::source_kind::input, {1, 1}});
    CHECK(textbook::source_of(desc, {0, 3}) == textbook::source{textbook::source_kind::input, {0, 0}});
    const auto zero = textbook::source_of(desc, {1, 1});
    CHECK(zero.is_zero());
    CHECK(textbook::to_string(zero) == "zero");
    CHECK(textbook::source_of(desc, {0, 0}).is_zero());
}

// ---- validation --------------------------------------------------------------------------------

TEST_CASE("SLICE_GRAD: SLICE1's window rules, with DirectML's tensor names", "[slice_grad][validation]") {
    const auto ok = grad_desc(data_type::float32, {1, 1, 2, 2}, {1, 1, 4, 4}, {0, 0, 0, 0}, {1, 1, 4, 4}, {1, 1, 2, 2});
    REQUIRE(validate(ok) == std::nullopt);
    auto d = ok;
    d.input_window_strides[3] = 0;
    expect_rejected(d, {"SLICE_GRAD", "InputWindowStrides[3] is 0"});
    d = ok;
    d.input_window_sizes[2] = 0; // an empty window: DirectML 1.15.4 accepts it; the gradient counts from the offset
    CHECK(validate(d) == std::nullopt);
    d = ok;
    d.input_window_offsets[2] = 1;
    expect_rejected(d, {"SLICE_GRAD", "InputWindowOffsets[2] + InputWindowSizes[2] = 1 + 4 = 5", "OutputGradientTensor.Sizes[2] = 4"});
    d = ok;
    d.input_window_offsets[3] = 4294967295u; // a wrap in 32 bits: 2^32 - 1 + 4 = 3
    expect_rejected(d, {"SLICE_GRAD", "InputWindowOffsets[3] + InputWindowSizes[3] = 4294967295 + 4 = 4294967299"});
    d = ok;
    d.input_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 2});
    expect_rejected(d, {"SLICE_GRAD", "InputWindowOffsets[2] + (InputGradientTensor.Sizes[2] - 1) * |InputWindowStrides[2]| "
                                      "= 0 + (3 - 1) * |2| = 4 is not below OutputGradientTensor.Sizes[2] = 4"});
    d = ok; // a negative stride: the elements run down from CopyStart = 0 + 1 - 1 = 0, the second before the start
    d.input_window_sizes[3] = 1;
    d.input_window_strides[3] = -2;
    expect_rejected(d, {"SLICE_GRAD", "InputWindowStrides[3] = -2 writes the 2 gradient element(s) from CopyStart",
                        "= 0 down to -2, before OutputGradientTensor's start"});
    d = ok;
    d.input_window_strides.pop_back();
    expect_rejected(d, {"SLICE_GRAD", "InputWindowStrides has 3 entries", "DimensionCount", "is 4"});
    d = ok;
    d.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 4, 4});
    expect_rejected(d, {"SLICE_GRAD", "OutputGradientTensor has 3 dimensions", "InputGradientTensor has 4"});
    d = ok;
    d.output_tensor = make_buffer_tensor_desc(data_type::int32, {1, 1, 4, 4});
    expect_rejected(d, {"SLICE_GRAD", "OutputGradientTensor.DataType INT32", "InputGradientTensor.DataType FLOAT32"});
    d = ok;
    d.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 4}, std::vector<std::uint32_t>{16, 16, 0, 1});
    expect_rejected(d, {"SLICE_GRAD", "OutputGradientTensor.Strides[2] is 0", "must not broadcast"});
    d = ok;
    d.input_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}, std::vector<std::uint32_t>{0, 0, 0, 0}); // an input may broadcast
    CHECK(validate(d) == std::nullopt);
    d.input_window_strides[1] = -2147483647 - 1; // one element on the axis: any non-zero stride
    CHECK(validate(d) == std::nullopt);
}

TEST_CASE("SLICE_GRAD follows its tensor-support table per feature level", "[slice_grad][validation]") {
    using fl = feature_level;
    const auto of = [](data_type t, std::vector<std::uint32_t> sizes) {
        std::vector<std::uint32_t> zeros(sizes.size(), 0);
        std::vector<std::int32_t> ones(sizes.size(), 1);
        return grad_desc(t, sizes, sizes, zeros, sizes, ones);
    };
    expect_rejected(of(data_type::float32, {1, 1, 2, 2}), {"SLICE_GRAD", "not available at feature level 2_1", "3_0"}, fl::fl_2_1);
    // 3_0: 4 to 5 dimensions, the eight 8- to 32-bit types.
    for (data_type t : {data_type::float32, data_type::float16, data_type::int32, data_type::int16, data_type::int8,
                        data_type::uint32, data_type::uint16, data_type::uint8})
        CHECK(validate(of(t, {1, 1, 2, 2}), fl::fl_3_0) == std::nullopt);
    expect_rejected(of(data_type::float32, {2, 2}), {"SLICE_GRAD", "InputGradientTensor has 2 dimensions", "4 to 5", "3_0"}, fl::fl_3_0);
    expect_rejected(of(data_type::int64, {1, 1, 2, 2}), {"InputGradientTensor.DataType INT64", "3_0"}, fl::fl_3_0);
    // 3_1: 1 to 8 dimensions.
    CHECK(validate(of(data_type::int8, {5}), fl::fl_3_1) == std::nullopt);
    CHECK(validate(of(data_type::int8, {1, 2, 1, 2, 1, 2, 1, 2}), fl::fl_3_1) == std::nullopt);
    expect_rejected(of(data_type::int8, {1, 1, 1, 1, 1, 1, 1, 1, 1}), {"9 dimensions", "1 to 8"}, fl::fl_3_1);
    expect_rejected(of(data_type::float64, {2}), {"FLOAT64", "4_0"}, fl::fl_4_0);
    // 4_1: FLOAT64, INT64, UINT64.
    for (data_type t : {data_type::float64, data_type::int64, data_type::uint64})
        CHECK(validate(of(t, {2}), fl::fl_4_1) == std::nullopt);
    for (data_type t : movable_data_types) CHECK(supports_data_type(operator_type::slice_grad, fl::fl_6_4, t));
    CHECK(parse_operator_type("DML_OPERATOR_SLICE_GRAD") == operator_type::slice_grad);
    CHECK(static_cast<std::uint32_t>(operator_type::slice_grad) == 135);
    CHECK(introduced_in(operator_type::slice_grad) == fl::fl_3_0);
}

TEST_CASE("slice_grad over views: bad windows and overlapping views are refused", "[slice_grad][views][validation]") {
    tensor<float, 2> g({2, 2}), out({4, 4});
    const auto run = [](auto a, auto b, index_array<2> s) { slice_grad<float, 2>(a, b, {0, 0}, {4, 4}, s); };
    const auto run_textbook = [](auto a, auto b, index_array<2> s) { textbook::slice_grad<float, 2>(a, b, {0, 0}, {4, 4}, s); };
    CHECK_NOTHROW(run(g.view(), out.view(), {2, 2}));
    CHECK_THROWS_MATCHES(run(g.view(), out.view(), {2, 0}), validation_error,
                         Catch::Message("slice_grad: InputWindowStrides[1] is 0; strides may not be 0"));
    CHECK_THROWS_MATCHES(run_textbook(g.view(), out.view(), {2, 0}), validation_error,
                         Catch::Message("slice_grad: InputWindowStrides[1] is 0; strides may not be 0"));
    CHECK_THROWS_WITH(run(g.view(), out.view(), {4, 2}),
                      Contains("InputWindowOffsets[0] + (InputGradientTensor.Sizes[0] - 1) * |InputWindowStrides[0]| = "
                               "0 + (2 - 1) * |4| = 4 is not below OutputGradientTensor.Sizes[0] = 4"));
    tensor<float, 2> same({4, 4});
    CHECK_THROWS_WITH((slice_grad<float, 2>(same.view(), same.view(), {0, 0}, {4, 4}, {1, 1})), Contains("overlap"));
    CHECK_THROWS_WITH((textbook::slice_grad<float, 2>(same.view(), same.view(), {0, 0}, {4, 4}, {1, 1})), Contains("overlap"));
}

// ---- every type, ranks 1 to 8 ---------------------------------------------------------------------

namespace {

/// A window with stride 2 on even axes and -1 on odd ones over extents 3, 4, 3, 4, ...; the input
/// gradient reversed on axis 0, the output gradient strided: engine == textbook, gaps untouched.
template <class T, std::size_t Rank> void check_slice_grad_rank() {
    index_array<Rank> out_extents{}, in_extents{}, offsets{}, sizes{}, strides{};
    for (std::size_t i = 0; i < Rank; ++i) {
        out_extents[i] = i % 2 == 0 ? 3 : 4;
        offsets[i] = i % 2 == 0 ? 0 : 1;
        sizes[i] = out_extents[i] - offsets[i];
        strides[i] = i % 2 == 0 ? 2 : -1;
        in_extents[i] = i % 2 == 0 ? 2 : 3;
    }
    std::ptrdiff_t count = 1;
    for (auto e : in_extents) count *= e;
    std::vector<T> in_storage(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < in_storage.size() * sizeof(T); ++k)
        reinterpret_cast<unsigned char*>(in_storage.data())[k] = static_cast<unsigned char>(k % 251 + 1);
    index_array<Rank> in_strides{};
    std::ptrdiff_t stride = 1;
    for (std::size_t i = Rank; i-- > 0;) {
        in_strides[i] = stride;
        stride *= in_extents[i];
    }
    const std::ptrdiff_t in_offset = (in_extents[0] - 1) * in_strides[0];
    in_strides[0] = -in_strides[0];
    const strided_view<const T, Rank> input(in_storage.data(), in_extents, in_strides, in_offset);
    index_array<Rank> out_strides{};
    stride = 1;
    for (std::size_t i = Rank; i-- > 0;) {
        out_strides[i] = stride;
        stride *= out_extents[i] + (i == Rank - 1 ? 1 : 0);
    }
    std::vector<T> out_storage(static_cast<std::size_t>(stride)), again;
    std::memset(static_cast<void*>(out_storage.data()), 0xab, out_storage.size() * sizeof(T));
    again = out_storage;
    slice_grad<T, Rank>(input, strided_view<T, Rank>(out_storage.data(), out_extents, out_strides), offsets, sizes, strides);
    textbook::slice_grad<T, Rank>(input, strided_view<T, Rank>(again.data(), out_extents, out_strides), offsets, sizes, strides);
    CHECK(std::memcmp(again.data(), out_storage.data(), again.size() * sizeof(T)) == 0);
    // The spare element of each innermost row keeps its 0xab bytes; the window's corner got input[0...0].
    const std::size_t row = static_cast<std::size_t>(out_extents[Rank - 1] + 1);
    for (std::size_t k = row - 1; k < out_storage.size(); k += row)
        CHECK(reinterpret_cast<const unsigned char*>(&out_storage[k])[0] == 0xab);
    index_array<Rank> corner{}, zero_coordinate{};
    for (std::size_t i = 0; i < Rank; ++i) corner[i] = i % 2 == 0 ? 0 : 3;
    const strided_view<T, Rank> result(out_storage.data(), out_extents, out_strides);
    CHECK(std::memcmp(&result[corner], &input[zero_coordinate], sizeof(T)) == 0);
}

} // namespace


TEMPLATE_TEST_CASE("slice_grad over views: every type, ranks 1 to 8, reversed input, strided output",
                   "[slice_grad][views]", DMLREF_ELEMENT_TYPES) {
    check_slice_grad_rank<TestType, 1>();
    check_slice_grad_rank<TestType, 2>();
    check_slice_grad_rank<TestType, 3>();
    check_slice_grad_rank<TestType, 4>();
    check_slice_grad_rank<TestType, 5>();
    check_slice_grad_rank<TestType, 6>();
    check_slice_grad_rank<TestType, 7>();
    check_slice_grad_rank<TestType, 8>();
}
