// compare(): bit-exact verdicts and reports that localise planted faults: only the padding border,
// one block offset of depth/space, one axis's tail, a slice's last window step; and, given the
// operator, the input element (or padding constant) behind each listed mismatch.
#include <catch2/catch.hpp>

#include <dmlref/compare.hpp>
#include <dmlref/dmlref.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

using namespace dmlref;

namespace {

/// The output of `desc` over an input counting 1, 2, 3, ... (float32), as packed bytes.
struct run_result {
    std::vector<std::uint32_t> sizes;
    std::vector<float> values;
};

run_result run(const operator_desc& desc) {
    const auto in = inputs_of(desc).front().desc();
    const auto out = outputs_of(desc).front().desc();
    std::vector<float> input(in.total_tensor_size_in_bytes / 4);
    std::iota(input.begin(), input.end(), 1.0f);
    std::vector<float> output(out.total_tensor_size_in_bytes / 4);
    execute(desc, std::as_bytes(std::span(input)), std::as_writable_bytes(std::span(output)));
    return {out.sizes, output};
}

/// Flips every element whose coordinates satisfy `pick`; returns how many.
std::uint64_t plant(run_result& r, const std::function<bool(const std::vector<std::uint32_t>&)>& pick) {
    std::vector<std::uint32_t> c(r.sizes.size(), 0);
    std::uint64_t planted = 0;
    for (float& v : r.values) {
        if (pick(c)) {
            v = -v - 0.5f;
            ++planted;
        }
        for (std::size_t k = c.size(); k-- > 0;) {
            if (++c[k] < r.sizes[k]) break;
            c[k] = 0;
        }
    }
    return planted;
}

compare_report compare_runs(const run_result& expected, const run_result& actual, const operator_desc* op = nullptr) {
    return compare(data_type::float32, expected.sizes, std::as_bytes(std::span(expected.values)),
                   std::as_bytes(std::span(actual.values)), {}, op);
}

} // namespace

TEST_CASE("compare: identical tensors, and the report says so", "[compare]") {
    const std::vector<std::uint32_t> sizes = {2, 3};
    const std::vector<std::int16_t> a = {1, 2, 3, 4, 5, 6};
    const auto r = compare(data_type::int16, sizes, std::as_bytes(std::span(a)), std::as_bytes(std::span(a)));
    CHECK(r.equal());
    CHECK(r.mismatch_count == 0);
    CHECK(r.element_count == 6);
    CHECK(r.to_string() == "INT16 tensor of sizes {2, 3}: all 6 elements are bit-identical");
}

TEST_CASE("compare: bits, not values: -0 differs from +0, NaN payloads differ unless nan_equal", "[compare]") {
    const std::vector<std::uint32_t> sizes = {3};
    const float nan1 = std::numeric_limits<float>::quiet_NaN();
    float nan2 = nan1;
    std::uint32_t bits;
    std::memcpy(&bits, &nan2, 4);
    bits |= 1; // another payload
    std::memcpy(&nan2, &bits, 4);
    const std::vector<float> e = {0.0f, nan1, 1.0f}, a = {-0.0f, nan2, 1.0f};
    auto r = compare(data_type::float32, sizes, std::as_bytes(std::span(e)), std::as_bytes(std::span(a)));
    CHECK(r.mismatch_count == 2);
    REQUIRE(r.first.size() == 2);
    CHECK(r.first[0].coordinates == std::vector<std::uint32_t>{0});
    CHECK(r.first[0].expected_bits == 0x0000'0000u);
    CHECK(r.first[0].actual_bits == 0x8000'0000u);
    CHECK_THAT(r.to_string(), Catch::Contains("[0] 0 (0x00000000) vs -0 (0x80000000)") &&
                                  Catch::Contains("2 of 3 elements differ"));
    r = compare(data_type::float32, sizes, std::as_bytes(std::span(e)), std::as_bytes(std::span(a)), {.nan_equal = true});
    CHECK(r.mismatch_count == 1);
    // A NaN never equals a number, even with nan_equal.
    const std::vector<float> n = {0.0f, 2.0f, 1.0f};
    CHECK(compare(data_type::float32, sizes, std::as_bytes(std::span(e)), std::as_bytes(std::span(n)), {.nan_equal = true})
              .mismatch_count == 1);
}

TEST_CASE("compare: every width, float16 shown as a number", "[compare]") {
    const std::vector<std::uint32_t> sizes = {2};
    for (data_type t : movable_data_types) {
        const std::size_t w = element_size(t);
        std::vector<std::byte> e(2 * w, std::byte{0}), a = e;
        a[2 * w - 1] = std::byte{0x3c}; // the top byte of the second element
        const auto r = compare(t, sizes, e, a);
        INFO(to_string(t));
        CHECK(r.mismatch_count == 1);
        REQUIRE(r.first.size() == 1);
        CHECK(r.first[0].coordinates == std::vector<std::uint32_t>{1});
        CHECK(r.first[0].actual_bits == std::uint64_t{0x3c} << (8 * (w - 1)));
    }
    const std::vector<std::uint16_t> h1 = {0x3c00, 0}, h2 = {0x3e00, 0};
    CHECK_THAT(compare(data_type::float16, sizes, std::as_bytes(std::span(h1)), std::as_bytes(std::span(h2))).to_string(),
               Catch::Contains("[0] 1 (0x3c00) vs 1.5 (0x3e00)"));
}

TEST_CASE("compare: lists the first max_listed mismatches in row-major order", "[compare]") {
    const std::vector<std::uint32_t> sizes = {4, 5};
    std::vector<std::uint8_t> e(20, 0), a(20, 1);
    const auto r = compare(data_type::uint8, sizes, std::as_bytes(std::span(e)), std::as_bytes(std::span(a)), {.max_listed = 3});
    CHECK(r.mismatch_count == 20);
    REQUIRE(r.first.size() == 3);
    CHECK(r.first[2].coordinates == std::vector<std::uint32_t>{0, 2});
    CHECK_THAT(r.to_string(), Catch::Contains("axis 0 (size 4): 0..3 (all)") && Catch::Contains("axis 1 (size 5): 0..4 (all)"));
}

TEST_CASE("compare: buffers that do not match the sizes are refused", "[compare]") {
    const std::vector<std::uint32_t> sizes = {2, 2};
    const std::vector<float> four(4), three(3);
    CHECK_THROWS_WITH(compare(data_type::float32, sizes, std::as_bytes(std::span(four)), std::as_bytes(std::span(three))),
                      Catch::Contains("actual buffer has 12 bytes") && Catch::Contains("need 16"));
    CHECK_THROWS_AS(compare(data_type::uint4, sizes, std::as_bytes(std::span(four)), std::as_bytes(std::span(four))),
                    validation_error);
    const operator_desc wrong = slice1_desc{make_buffer_tensor_desc(data_type::float32, {4, 4}),
                                            make_buffer_tensor_desc(data_type::float32, {3, 2}), {0, 0}, {3, 2}, {1, 1}};
    CHECK_THROWS_WITH(compare(data_type::float32, sizes, std::as_bytes(std::span(four)), std::as_bytes(std::span(four)), {}, &wrong),
                      Catch::Contains("OutputTensor.Sizes 3,2"));
}

TEST_CASE("compare: a fault only in the padding border is named as that border", "[compare][localise]") {
    const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::float32, {1, 2, 4, 5}),
                                             make_buffer_tensor_desc(data_type::float32, {1, 2, 7, 8}),
                                             padding_mode::reflection, data_type::float32, scalar_union::of(0.0f),
                                             {0, 0, 1, 2}, {0, 0, 2, 1}};
    const run_result expected = run(desc);
    run_result actual = expected;
    // A kernel that gets the start padding of axis 3 wrong, and nothing else.
    const auto planted = plant(actual, [](const auto& c) { return c[3] < 2; });
    const auto r = compare_runs(expected, actual, &desc);
    CHECK(r.mismatch_count == planted);
    REQUIRE_FALSE(r.regions.empty());
    CHECK(r.regions[0].region == "start padding of axis 3");
    CHECK(r.regions[0].mismatches == planted);
    CHECK(r.regions[0].mismatches == r.regions[0].elements);
    CHECK(r.axis_ranges[3] == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 1}});
    CHECK(r.axis_ranges[2] == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 6}});
    // Every other region is either untouched or touched only where it meets that border (corners).
    for (const auto& g : r.regions)
        if (g.region != "start padding of axis 3") CHECK(g.mismatches < g.elements);
    CHECK_THAT(r.to_string(), Catch::Contains("by region of the PADDING1 output") &&
                                  Catch::Contains("start padding of axis 3: 28 of 28 elements differ (all)") &&
                                  Catch::Contains("interior (copied from the input): 0 of 40 elements differ") &&
                                  Catch::Contains("end padding of axis 3: 0 of 14 elements differ") &&
                                  Catch::Contains("start padding of axis 2: 4 of 16 elements differ"));
}

TEST_CASE("compare: a fault in one block offset of depth_to_space is named as that offset", "[compare][localise]") {
    for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
        const operator_desc desc = depth_to_space1_desc{make_buffer_tensor_desc(data_type::float32, {1, 18, 2, 3}),
                                                        make_buffer_tensor_desc(data_type::float32, {1, 2, 6, 9}), 3, order};
        const run_result expected = run(desc);
        run_result actual = expected;
        const auto planted = plant(actual, [](const auto& c) { return c[2] % 3 == 2 && c[3] % 3 == 1; });
        const auto r = compare_runs(expected, actual, &desc);
        CHECK(r.mismatch_count == planted);
        CHECK(r.regions.size() == 9);
        CHECK(r.regions[0].region == "block offset (2, 1)");
        CHECK(r.regions[0].mismatches == planted);
        CHECK(r.regions[1].mismatches == 0);
    }
}

TEST_CASE("compare: a fault in one block offset of space_to_depth is named as that offset, in both orders", "[compare][localise]") {
    for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
        const operator_desc desc = space_to_depth1_desc{make_buffer_tensor_desc(data_type::float32, {1, 3, 4, 6}),
                                                        make_buffer_tensor_desc(data_type::float32, {1, 12, 2, 3}), 2, order};
        const run_result expected = run(desc);
        run_result actual = expected;
        // The output channels that hold block offset (0, 1): DCR channel = (bh*2 + bw)*3 + c; CRD channel = c*4 + bh*2 + bw.
        const bool dcr = order == depth_space_order::depth_column_row;
        const auto planted = plant(actual, [&](const auto& c) { return dcr ? c[1] / 3 == 1 : c[1] % 4 == 1; });
        const auto r = compare_runs(expected, actual, &desc);
        INFO(to_string(order));
        CHECK(r.regions.size() == 4);
        CHECK(r.regions[0].region == "block offset (0, 1)");
        CHECK(r.regions[0].mismatches == planted);
        CHECK(r.regions[0].elements == planted);
    }
}

TEST_CASE("compare: a fault in one axis's tail shows in that axis's ranges", "[compare][localise]") {
    const operator_desc desc = slice1_desc{make_buffer_tensor_desc(data_type::float32, {2, 5, 9}),
                                           make_buffer_tensor_desc(data_type::float32, {2, 5, 4}), {0, 0, 1}, {2, 5, 8}, {1, 1, -2}};
    const run_result expected = run(desc);
    run_result actual = expected;
    const auto planted = plant(actual, [](const auto& c) { return c[1] >= 3; });
    const auto r = compare_runs(expected, actual, &desc);
    CHECK(r.mismatch_count == planted);
    CHECK(r.axis_ranges[1] == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{3, 4}});
    CHECK_THAT(r.to_string(), Catch::Contains("axis 1 (size 5): 3..4\n") && Catch::Contains("axis 0 (size 2): 0..1 (all)") &&
                                  Catch::Contains("last window step on axis 1"));
}

TEST_CASE("compare: a fault on a slice's last window step is named as that step", "[compare][localise]") {
    const operator_desc desc = slice_desc{make_buffer_tensor_desc(data_type::float32, {1, 1, 6, 9}),
                                          make_buffer_tensor_desc(data_type::float32, {1, 1, 3, 4}), {0, 0, 0, 1}, {1, 1, 3, 4}, {1, 1, 2, 2}};
    const run_result expected = run(desc);
    run_result actual = expected;
    const auto planted = plant(actual, [](const auto& c) { return c[3] == 3 && c[2] == 1; });
    const auto r = compare_runs(expected, actual, &desc);
    REQUIRE(r.mismatch_count == 1);
    CHECK(planted == 1);
    CHECK(r.regions[0].region == "last window step on axis 3");
    CHECK(r.regions[0].mismatches == 1);
}

TEST_CASE("compare: views of any strides compare element by element", "[compare]") {
    tensor<std::int32_t, 2> a({3, 2}, {1, 2, 3, 4, 5, 6});
    tensor<std::int32_t, 2> t({2, 3}, {1, 3, 5, 2, 4, 7}); // the transpose, with one wrong element
    const strided_view<const std::int32_t, 2> transposed(t.data(), {3, 2}, {1, 3});
    const auto r = compare(strided_view<const std::int32_t, 2>(a.view()), transposed);
    CHECK(r.mismatch_count == 1);
    REQUIRE(r.first.size() == 1);
    CHECK(r.first[0].coordinates == std::vector<std::uint32_t>{2, 1});
    CHECK(r.first[0].expected_bits == 6);
    CHECK(r.first[0].actual_bits == 7);
}

TEST_CASE("compare: given the operator, each listed mismatch names the input element or the padding constant",
          "[compare][source]") {
    // PADDING1, CONSTANT: input {1, 3, 4} in the middle of {1, 5, 7} (one row before, one after; 2 and 1 columns).
    const operator_desc desc = padding1_desc{make_buffer_tensor_desc(data_type::float32, {1, 3, 4}),
                                             make_buffer_tensor_desc(data_type::float32, {1, 5, 7}),
                                             padding_mode::constant, data_type::float32, scalar_union::of(0.5f),
                                             {0, 1, 2}, {0, 1, 1}};
    const run_result expected = run(desc);
    run_result actual = expected;
    // One wrong element in the start padding, and one in the interior: output (0, 2, 3) is input (0, 1, 1) = 6.
    plant(actual, [](const auto& c) { return (c[1] == 0 && c[2] == 4) || (c[1] == 2 && c[2] == 3); });
    const auto r = compare_runs(expected, actual, &desc);
    REQUIRE(r.first.size() == 2);
    CHECK(r.first[0].source == textbook::source{textbook::source_kind::padding_constant, {}});
    CHECK(r.first[1].source == textbook::source{textbook::source_kind::input, {0, 1, 1}});
    const std::string text = r.to_string();
    CHECK_THAT(text, Catch::Contains("[coordinates] expected (bits) vs actual (bits); where the operator takes the "
                                     "element from:\n") &&
                         Catch::Contains("  [0, 0, 4] 0.5 (0x3f000000) vs -1 (0xbf800000); from the padding constant\n") &&
                         Catch::Contains("  [0, 2, 3] 6 (0x40c00000) vs -6.5 (0xc0d00000); from input [0, 1, 1]\n"));
    // Without the operator there is nothing to name.
    const auto plain = compare_runs(expected, actual);
    CHECK_FALSE(plain.first[0].source.has_value());
    CHECK_THAT(plain.to_string(), !Catch::Contains("from"));

    // SLICE1 with a negative stride: the source walks back from the window's end.
    const operator_desc slice = slice1_desc{make_buffer_tensor_desc(data_type::float32, {2, 9}),
                                            make_buffer_tensor_desc(data_type::float32, {2, 3}), {0, 1}, {2, 7}, {1, -3}};
    const run_result e = run(slice);
    run_result a = e;
    plant(a, [](const auto& c) { return c[0] == 1 && c[1] == 2; });
    CHECK_THAT(compare_runs(e, a, &slice).to_string(), Catch::Contains("[1, 2] 11 (0x41300000) vs -11.5 (0xc1380000); "
                                                                       "from input [1, 1]"));
}

TEST_CASE("compare: the region list keeps every region with mismatches and at most 3 clean ones", "[compare][source]") {
    // DEPTH_TO_SPACE1 with B = 3 has 9 block offsets; wrong elements in two of them.
    const operator_desc desc = depth_to_space1_desc{make_buffer_tensor_desc(data_type::float32, {1, 18, 2, 3}),
                                                    make_buffer_tensor_desc(data_type::float32, {1, 2, 6, 9}), 3,
                                                    depth_space_order::column_row_depth};
    const run_result expected = run(desc);
    run_result actual = expected;
    plant(actual, [](const auto& c) { return (c[2] % 3 == 2 && c[3] % 3 == 1) || (c == std::vector<std::uint32_t>{0, 0, 0, 0}); });
    const auto r = compare_runs(expected, actual, &desc);
    CHECK(r.regions.size() == 9); // the report keeps them all
    const std::string text = r.to_string();
    const std::string list = text.substr(text.find("by region"));
    CHECK_THAT(list, Catch::Contains("block offset (2, 1): 12 of 12 elements differ (all)") &&
                         Catch::Contains("block offset (0, 0): 1 of 12 elements differ") &&
                         Catch::Contains("  and 4 more clean regions (0 elements differ)\n"));
    CHECK(std::count(list.begin(), list.end(), '\n') == 1 + 2 + 3 + 1);
    // Where at most 3 are clean, every one is listed.
    run_result wider = expected;
    plant(wider, [](const auto& c) { return c[3] % 3 != 1 || c[2] % 3 == 0; });
    const std::string all = compare_runs(expected, wider, &desc).to_string();
    CHECK(std::count(all.begin(), all.end(), '\n') >= 9);
    CHECK_THAT(all, !Catch::Contains("more clean region"));
}
