// <dmlref/gtest.hpp>: the matcher and the predicate-formatter pass and fail as they should, their
// failure text is the comparison report, word for word what the Catch2 matcher reports for the same
// tensors, and the printers show dmlref's types.
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <dmlref/dmlref.hpp>
#include <dmlref/gtest.hpp>

#include "catch2_report.hpp"

namespace {

using dmlref::testing::BitEquals;

dmlref::tensor<float, 4> iota(const dmlref::index_array<4>& extents) {
    dmlref::tensor<float, 4> t(extents);
    for (std::size_t i = 0; i < t.values().size(); ++i) t.values()[i] = static_cast<float>(i);
    return t;
}

const dmlref::operator_desc& reflect_desc() {
    static const dmlref::operator_desc desc = dmlref::padding1_desc{
        dmlref::make_buffer_tensor_desc(dmlref::data_type::float32, {1, 1, 3, 4}),
        dmlref::make_buffer_tensor_desc(dmlref::data_type::float32, {1, 1, 7, 7}),
        dmlref::padding_mode::reflection, dmlref::data_type::float32, {}, {0, 0, 2, 1}, {0, 0, 2, 2}};
    return desc;
}

/// The expected output of reflect_desc() and a copy with `changes` elements negated.
std::pair<dmlref::tensor<float, 4>, dmlref::tensor<float, 4>> padded(int changes) {
    const auto x = iota({1, 1, 3, 4});
    dmlref::tensor<float, 4> expected({1, 1, 7, 7});
    dmlref::execute(reflect_desc(), std::as_bytes(x.values()), std::as_writable_bytes(expected.values()));
    auto actual = expected;
    for (int i = 0; i < changes; ++i) actual.values()[static_cast<std::size_t>(i * 5 + 1)] *= -1.0f; // changes <= 9
    return {expected, actual};
}

/// The messages of the failures `check` records, without reporting them.
template <class Check> std::vector<std::string> failures_of(Check check) {
    ::testing::TestPartResultArray results;
    {
        ::testing::ScopedFakeTestPartResultReporter reporter(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                                                             &results);
        check();
    }
    std::vector<std::string> messages;
    for (int i = 0; i < results.size(); ++i) messages.push_back(results.GetTestPartResult(i).message());
    return messages;
}

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

TEST(Matcher, MatchesEqualTensorsAndViews) {
    const auto [expected, actual] = padded(0);
    EXPECT_THAT(actual, BitEquals(expected));
    EXPECT_THAT(actual.view(), BitEquals(expected.view(), {}, &reflect_desc()));
    EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal, actual, expected);
    EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal_for(reflect_desc()), actual.view(), expected);
}

TEST(Matcher, FailureTextIsTheCatch2MatchersReport) {
    for (const dmlref::operator_desc* op : {static_cast<const dmlref::operator_desc*>(nullptr), &reflect_desc()}) {
        for (int changes : {1, 3, 9}) {
            const auto [expected, actual] = padded(changes);
            const std::string catch2 = catch2_report(actual, expected, op);
            const std::string prefix = "is bit-identical to the expected tensor:\n";
            ASSERT_EQ(catch2.substr(0, prefix.size()), prefix);
            const std::string report = catch2.substr(prefix.size());
            ASSERT_NE(report.find(std::to_string(changes) + " of 49 elements differ"), std::string::npos) << report;

            const auto matcher = failures_of([&] { EXPECT_THAT(actual, BitEquals(expected, {}, op)); });
            ASSERT_EQ(matcher.size(), 1u);
            EXPECT_TRUE(ends_with(matcher[0], ", which is not bit-identical:\n" + report)) << matcher[0];
            EXPECT_NE(matcher[0].find("Value of: actual\nExpected: is bit-identical to the expected tensor\n  Actual: [[[[9, "),
                      std::string::npos)
                << matcher[0];

            const auto formatter = failures_of([&] {
                if (op) EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal_for(*op), actual, expected);
                else EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal, actual, expected);
            });
            ASSERT_EQ(formatter.size(), 1u);
            EXPECT_EQ(formatter[0], "actual is not bit-identical to expected:\n" + report);
        }
    }
}

TEST(Matcher, ReportWithTheOperatorNamesRegionsAndSources) {
    const auto [expected, actual] = padded(1);
    const auto messages = failures_of([&] { EXPECT_THAT(actual, BitEquals(expected, {}, &reflect_desc())); });
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_NE(messages[0].find("[0, 0, 0, 1] 8 (0x41000000) vs -8 (0xc1000000); from input [0, 0, 2, 0]"), std::string::npos)
        << messages[0];
    EXPECT_NE(messages[0].find("start padding of axis 2: 1 of 14 elements differ"), std::string::npos) << messages[0];
}

TEST(Matcher, DifferentExtentsAndBytes) {
    const auto a = iota({1, 1, 2, 3}), b = iota({1, 1, 3, 2});
    const auto messages = failures_of([&] { EXPECT_THAT(a, BitEquals(b)); });
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_TRUE(ends_with(messages[0], "which is not bit-identical:\nhas extents {1, 1, 2, 3}; the expected tensor has {1, 1, 3, 2}"))
        << messages[0];
    EXPECT_THAT(std::as_bytes(a.values()), BitEquals(dmlref::data_type::float32, {1, 1, 2, 3}, std::as_bytes(a.values())));
    const auto bytes = failures_of([&] {
        EXPECT_THAT(std::as_bytes(a.values()), BitEquals(dmlref::data_type::float32, {1, 1, 3, 3}, std::as_bytes(b.values())));
    });
    ASSERT_EQ(bytes.size(), 1u);
    EXPECT_NE(bytes[0].find("compare: the expected buffer has 24 bytes; 9 elements of FLOAT32 need 36"), std::string::npos)
        << bytes[0];
    auto negative_zero = iota({1, 1, 2, 3});
    negative_zero.values()[0] = -0.0f; // differs from +0, bit for bit
    EXPECT_THAT(a, ::testing::Not(BitEquals(negative_zero)));
}

TEST(Printers, ShowDmlrefsTypes) {
    EXPECT_EQ(::testing::PrintToString(iota({1, 1, 1, 3})), "[[[[0, 1, 2]]]]");
    EXPECT_EQ(::testing::PrintToString(dmlref::float16::from_double(0.5)), "0.5");
    EXPECT_EQ(::testing::PrintToString(dmlref::data_type::float16), "FLOAT16");
    EXPECT_EQ(::testing::PrintToString(dmlref::padding_mode::wrap), "WRAP");
    const std::string desc = ::testing::PrintToString(std::get<dmlref::padding1_desc>(reflect_desc()));
    EXPECT_EQ(desc.substr(0, 43), "PADDING1 {InputTensor: {DataType: FLOAT32, ");
    // GoogleTest prints a std::variant itself: the alternative, then its value through the printer above.
    EXPECT_NE(::testing::PrintToString(reflect_desc()).find("with value " + desc), std::string::npos);
}

} // namespace
