// TILE: the documented examples (docs/operator-facts.md section 4) as literal arrays, its
// validation rules and messages per feature level, the typed view API over every element type
// and ranks 1 to 8, both plan shapes (split affine axes, and the WRAP tables past the plan's
// rank), and engine == textbook on random descs. tests/test_property.cpp adds TILE to the
// all-operator properties.
#include <catch2/catch.hpp>

#include "desc_test_support.hpp"

#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/textbook.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace dmlref;
using namespace dmlref::test_support;
using Catch::Contains;

namespace {

tile_desc tile_of(data_type type, const std::vector<std::uint32_t>& sizes, const std::vector<std::uint32_t>& repeats) {
    std::vector<std::uint32_t> out(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) out[i] = sizes[i] * (i < repeats.size() ? repeats[i] : 1);
    return {make_buffer_tensor_desc(type, sizes), make_buffer_tensor_desc(type, out), repeats};
}

} // namespace

// ---- the documented examples -------------------------------------------------------------------

TEST_CASE("TILE: the documented example, Repeats {1, 1, 3, 3} on {1, 1, 2, 3}", "[tile]") {
    const auto desc = tile_of(data_type::float32, {1, 1, 2, 3}, {1, 1, 3, 3});
    CHECK(desc.output_tensor.sizes == std::vector<std::uint32_t>{1, 1, 6, 9});
    const std::vector<float> expected{1, 2, 3, 1, 2, 3, 1, 2, 3, //
                                      4, 5, 6, 4, 5, 6, 4, 5, 6, //
                                      1, 2, 3, 1, 2, 3, 1, 2, 3, //
                                      4, 5, 6, 4, 5, 6, 4, 5, 6, //
                                      1, 2, 3, 1, 2, 3, 1, 2, 3, //
                                      4, 5, 6, 4, 5, 6, 4, 5, 6};
    CHECK(values_of<float>(run_both(desc, bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6}))) == expected);
    CHECK_THAT(to_string(operator_desc(desc)), Contains("RepeatsCount: 4, Repeats: {1, 1, 3, 3}"));
}

TEST_CASE("TILE: the older page's example, [[1, 2], [3, 4]] with Repeats {1, 2}", "[tile]") {
    const auto desc = tile_of(data_type::int32, {2, 2}, {1, 2});
    CHECK(values_of<std::int32_t>(run_both(desc, bytes_of(std::vector<std::int32_t>{1, 2, 3, 4}))) ==
          std::vector<std::int32_t>{1, 2, 1, 2, 3, 4, 3, 4});
}

TEST_CASE("TILE: numpy's np.tile examples", "[tile]") {
    // np.tile([0, 1, 2], 2) -> [0, 1, 2, 0, 1, 2]
    CHECK(values_of<std::int8_t>(run_both(tile_of(data_type::int8, {3}, {2}), bytes_of(std::vector<std::int8_t>{0, 1, 2}))) ==
          std::vector<std::int8_t>{0, 1, 2, 0, 1, 2, 0, 0}); // TotalTensorSizeInBytes rounds up to 4
    // np.tile([[1, 2], [3, 4]], (2, 1)) -> [[1, 2], [3, 4], [1, 2], [3, 4]]
    CHECK(values_of<std::uint16_t>(run_both(tile_of(data_type::uint16, {2, 2}, {2, 1}),
                                            bytes_of(std::vector<std::uint16_t>{1, 2, 3, 4}))) ==
          std::vector<std::uint16_t>{1, 2, 3, 4, 1, 2, 3, 4});
}

TEST_CASE("TILE: a strided input and a strided output, the output's gaps left alone", "[tile]") {
    // Input {2, 3} read transposed from a 3x2 buffer; output {4, 3} rows of 5.
    tile_desc desc{make_buffer_tensor_desc(data_type::uint8, {2, 3}, std::vector<std::uint32_t>{1, 2}),
                   make_buffer_tensor_desc(data_type::uint8, {4, 3}, std::vector<std::uint32_t>{5, 1}), {2, 1}};
    REQUIRE(validate(desc) == std::nullopt);
    const auto out = values_of<std::uint8_t>(run_both(desc, bytes_of(std::vector<std::uint8_t>{1, 4, 2, 5, 3, 6}), std::byte{0xee}));
    const std::vector<std::uint8_t> expected{1, 2, 3, 0xee, 0xee, 4, 5, 6, 0xee, 0xee,
                                             1, 2, 3, 0xee, 0xee, 4, 5, 6, 0xee, 0xee}; // rounded up to 4 bytes
    CHECK(out == expected);
}

TEST_CASE("TILE's source_of names o mod the input's sizes", "[tile]") {
    const auto desc = tile_of(data_type::float32, {1, 1, 2, 3}, {1, 1, 3, 3});
    CHECK(textbook::to_string(textbook::source_of(desc, {0, 0, 5, 7})) == "input [0, 0, 1, 1]");
    CHECK(textbook::to_string(textbook::source_of(desc, {0, 0, 2, 3})) == "input [0, 0, 0, 0]");
}

// ---- validation --------------------------------------------------------------------------------

TEST_CASE("TILE: RepeatsCount, Repeats and the output's sizes", "[tile][validation]") {
    auto desc = tile_of(data_type::float32, {1, 1, 2, 3}, {1, 1, 3, 3});
    desc.repeats = {1, 3, 3};
    expect_rejected(desc, {"TILE", "RepeatsCount is 3", "DimensionCount 4"});
    desc.repeats = {1, 1, 3, 3, 1};
    expect_rejected(desc, {"TILE", "RepeatsCount is 5"});
    desc = tile_of(data_type::float32, {1, 1, 2, 3}, {1, 1, 3, 3});
    desc.repeats[2] = 0;
    expect_rejected(desc, {"TILE", "Repeats[2] is 0", "at least 1"});
    desc = tile_of(data_type::float32, {1, 1, 2, 3}, {1, 1, 3, 3});
    desc.repeats[3] = 2;
    expect_rejected(desc, {"TILE: OutputTensor.Sizes[3] = 9 should be InputTensor.Sizes[3] * Repeats[3] = 3 * 2 = 6"});
    // A product that wraps 2^32 back to the output's size is refused, not reduced: 3 * 1431655766 = 2^32 + 2.
    desc = tile_of(data_type::float32, {1, 1, 2, 3}, {1, 1, 3, 3});
    desc.output_tensor = make_buffer_tensor_desc(data_type::float32, {1, 1, 6, 2});
    desc.repeats[3] = 1431655766u;
    expect_rejected(desc, {"OutputTensor.Sizes[3] = 2 should be InputTensor.Sizes[3] * Repeats[3] = 3 * 1431655766 = 4294967298"});
    // Output broadcast (a zero stride) is refused; the input may broadcast.
    desc = tile_of(data_type::float32, {2, 3}, {2, 2});
    desc.output_tensor = make_buffer_tensor_desc(data_type::float32, {4, 6}, std::vector<std::uint32_t>{0, 1});
    expect_rejected(desc, {"TILE", "OutputTensor"});
    desc = tile_of(data_type::float32, {2, 3}, {2, 2});
    desc.input_tensor = make_buffer_tensor_desc(data_type::float32, {2, 3}, std::vector<std::uint32_t>{0, 1});
    CHECK(validate(desc) == std::nullopt);
}

TEST_CASE("TILE follows its tensor-support table per feature level", "[tile][validation]") {
    using fl = feature_level;
    CHECK(static_cast<std::uint32_t>(operator_type::tile) == 70);
    CHECK(parse_operator_type("DML_OPERATOR_TILE") == operator_type::tile);
    CHECK(introduced_in(operator_type::tile) == fl::fl_1_0);
    // 1_0: 4 dimensions, FLOAT32 and FLOAT16.
    CHECK(validate(tile_of(data_type::float16, {1, 1, 2, 2}, {1, 2, 1, 2}), fl::fl_1_0) == std::nullopt);
    expect_rejected(tile_of(data_type::float32, {1, 1, 1, 2, 2}, {1, 1, 1, 1, 1}), {"TILE", "5 dimensions", "takes 4", "1_0"},
                    fl::fl_1_0);
    expect_rejected(tile_of(data_type::int32, {1, 1, 2, 2}, {1, 1, 1, 1}), {"TILE", "INT32", "1_0", "FLOAT32, FLOAT16"}, fl::fl_1_0);
    // 2_1: the 8-, 16- and 32-bit integers; 4 dimensions.
    CHECK(validate(tile_of(data_type::uint8, {1, 1, 2, 2}, {1, 1, 1, 3}), fl::fl_2_1) == std::nullopt);
    expect_rejected(tile_of(data_type::uint8, {2, 2}, {1, 3}), {"2 dimensions", "takes 4"}, fl::fl_3_0);
    // 3_1: 1 to 8 dimensions.
    CHECK(validate(tile_of(data_type::int16, {2}, {3}), fl::fl_3_1) == std::nullopt);
    CHECK(validate(tile_of(data_type::int16, {1, 2, 1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 1}), fl::fl_3_1) == std::nullopt);
    expect_rejected(tile_of(data_type::int16, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}), {"9 dimensions", "1 to 8"});
    expect_rejected(tile_of(data_type::int64, {2}, {2}), {"INT64", "4_0"}, fl::fl_4_0);
    // 4_1: INT64, UINT64, and FLOAT64, which the page's table omits but DirectML 1.15.4 accepts.
    for (data_type t : {data_type::int64, data_type::uint64, data_type::float64})
        CHECK(validate(tile_of(t, {2}, {2}), fl::fl_4_1) == std::nullopt);
    expect_rejected(tile_of(data_type::float64, {2}, {2}), {"FLOAT64", "4_0"}, fl::fl_4_0);
}

TEST_CASE("tile over views: extents that are no multiple, and overlapping views, are refused", "[tile][views][validation]") {
    tensor<float, 2> in({2, 3}), out({4, 4});
    CHECK_THROWS_MATCHES((tile<float, 2>)(in.view(), out.view()), validation_error,
                         Catch::Message("tile: output extent[1] = 4 is not a whole multiple of input extent[1] = 3"));
    CHECK_THROWS_MATCHES((textbook::tile<float, 2>)(in.view(), out.view()), validation_error,
                         Catch::Message("tile: output extent[1] = 4 is not a whole multiple of input extent[1] = 3"));
    tensor<float, 2> same({2, 3});
    CHECK_THROWS_WITH((tile<float, 2>)(same.view(), same.view()), Contains("overlap"));
}

// ---- every type, ranks 1 to 8 over views; both plan shapes --------------------------------------

namespace {

/// Random input view (negative, permuted or zero strides), every axis repeated: engine == textbook,
/// the output's spare elements untouched.
template <class T, std::size_t Rank> void check_tile_rank(std::mt19937_64& rng, bool all_repeated) {
    index_array<Rank> extents{}, out_extents{};
    for (std::size_t i = 0; i < Rank; ++i) {
        extents[i] = static_cast<std::ptrdiff_t>(1 + rng() % 3);
        out_extents[i] = extents[i] * static_cast<std::ptrdiff_t>(all_repeated ? 2 + rng() % 2 : 1 + rng() % 3);
    }
    test_support::check_engine_equals_textbook<T, Rank>(
        rng, extents, out_extents, 0xa5, [](auto in, auto out) { tile<T, Rank>(in, out); },
        [](auto in, auto out) { textbook::tile<T, Rank>(in, out); });
}

} // namespace


TEMPLATE_TEST_CASE("tile over views: every type, ranks 1 to 8, reversed and permuted input, strided output, every axis "
                   "repeated (WRAP tables from rank 5) and some",
                   "[tile][views]", DMLREF_ELEMENT_TYPES) {
    std::mt19937_64 rng(0x711e);
    for (int round = 0; round < 6; ++round) {
        const bool all = round % 2 == 0;
        check_tile_rank<TestType, 1>(rng, all);
        check_tile_rank<TestType, 2>(rng, all);
        check_tile_rank<TestType, 3>(rng, all);
        check_tile_rank<TestType, 4>(rng, all);
        check_tile_rank<TestType, 5>(rng, all);
        check_tile_rank<TestType, 6>(rng, all);
        check_tile_rank<TestType, 7>(rng, all);
        check_tile_rank<TestType, 8>(rng, all);
    }
}

TEST_CASE("TILE's plan: repeated axes split while the rank allows, WRAP tables past it", "[tile]") {
    std::vector<std::ptrdiff_t> tables;
    detail::layout in, out;
    in.rank = out.rank = 6;
    for (std::size_t i = 0; i < 6; ++i) {
        in.extents[i] = 2;
        out.extents[i] = 6;
    }
    in.strides = {32, 16, 8, 4, 2, 1};
    out.strides = {7776, 1296, 216, 36, 6, 1};
    const detail::copy_plan plan = detail::plan_tile(in, out, tables);
    CHECK(plan.rank == 8);
    std::size_t affine = 0, table = 0;
    for (std::size_t k = 0; k < plan.rank; ++k) (plan.axes[k].single_affine() ? affine : table) += 1;
    CHECK(affine == 4);            // the first two axes, each split into (3, 2)
    CHECK(table == 4);             // the other four read through WRAP tables
    CHECK(tables.size() == 4 * 2); // of period 2
    CHECK(plan.axes[0].extent == 3);
    CHECK(plan.axes[0].pieces[0].step == 0);
    CHECK(plan.axes[0].out_stride == 2 * 7776);
}

// ---- random descs: engine == textbook -----------------------------------------------------------

TEST_CASE("TILE: engine == textbook on 2,000 random descs of every type and rank, strided and broadcast inputs",
          "[tile][property]") {
    std::mt19937_64 rng(0x711e'2026);
    int tabled = 0;
    for (int k = 0; k < 2000; ++k) {
        const data_type type = movable_data_types[rng() % std::size(movable_data_types)];
        const std::size_t rank = 1 + rng() % 8;
        std::vector<std::uint32_t> sizes(rank), repeats(rank), out_sizes(rank), in_strides(rank), out_strides(rank);
        std::uint64_t in_count = 1, out_count = 1;
        for (std::size_t i = 0; i < rank; ++i) {
            sizes[i] = static_cast<std::uint32_t>(1 + rng() % (rank > 4 ? 3 : 5));
            repeats[i] = static_cast<std::uint32_t>(1 + rng() % 3);
            out_sizes[i] = sizes[i] * repeats[i];
            in_count *= sizes[i];
            out_count *= out_sizes[i];
        }
        if (out_count > 20000) continue;
        // Input: a random permutation of the axes, some broadcast; output: padded rows.
        std::vector<std::size_t> order(rank);
        for (std::size_t i = 0; i < rank; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        std::uint32_t s = 1;
        for (std::size_t i : order) {
            in_strides[i] = rng() % 5 == 0 ? 0 : s;
            s *= sizes[i];
        }
        std::uint32_t o = 1;
        for (std::size_t i = rank; i-- > 0;) {
            out_strides[i] = o;
            o *= out_sizes[i] + (rng() % 3 == 0 ? 1 : 0);
        }
        const tile_desc desc{make_buffer_tensor_desc(type, sizes, in_strides),
                             make_buffer_tensor_desc(type, out_sizes, out_strides), repeats};
        INFO("case " << k << ": " << to_string(operator_desc(desc)));
        REQUIRE(validate(desc) == std::nullopt);
        std::vector<std::byte> input(desc.input_tensor.total_tensor_size_in_bytes);
        for (auto& b : input) b = static_cast<std::byte>(rng());
        std::size_t repeated = 0;
        for (std::size_t i = 0; i < rank; ++i) repeated += sizes[i] > 1 && repeats[i] > 1;
        tabled += rank + repeated > 8;
        run_both(desc, input, static_cast<std::byte>(rng()));
        (void)in_count;
    }
    CHECK(tabled > 20);
}
