#pragma once
/// \file gtest.hpp
/// GoogleTest (and GoogleMock) support for any project's tests, as catch2.hpp gives Catch2's: a
/// bit-exact matcher and a predicate-formatter whose failure message is dmlref's comparison report,
/// and printers that show dmlref's types readably. Opt-in: link GTest::gmock (Debian's libgmock-dev).
///
///   #include <gmock/gmock.h>
///   #include <dmlref/gtest.hpp>
///   EXPECT_THAT(gpu_output, dmlref::testing::BitEquals(reference_output));          // views or tensors
///   EXPECT_THAT(gpu_output, dmlref::testing::BitEquals(reference_output, {}, &desc)); // with the operator
///   EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal, gpu_output, reference_output);
///   EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal_for(desc), gpu_output, reference_output);
///
/// The report is compare_report::to_string(), word for word what the Catch2 matcher reports for
/// the same tensors.

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compare.hpp"
#include "format.hpp"
#include "strided_view.hpp"

namespace dmlref::testing {

namespace detail {
/// What both matchers tell GoogleMock they check.
struct bit_equals_description {
    void DescribeTo(std::ostream* os) const { *os << "is bit-identical to the expected tensor"; }
    void DescribeNegationTo(std::ostream* os) const { *os << "is not bit-identical to the expected tensor"; }
};
} // namespace detail

/// GoogleMock matcher of a view or tensor that equals the expected one bit for bit (extents too).
/// On a mismatch it explains with the comparison report.
template <class Expected>
class bit_equals_matcher : public detail::bit_equals_description {
public:
    using is_gtest_matcher = void;

    bit_equals_matcher(Expected expected, compare_options options, const operator_desc* op)
        : expected_(std::move(expected)), options_(options), op_(op ? std::optional<operator_desc>(*op) : std::nullopt) {}

    template <class Actual> bool MatchAndExplain(const Actual& actual, std::ostream* os) const {
        std::string report;
        const bool equal = dmlref::detail::bit_equal_report(actual, expected_, options_, op_ ? &*op_ : nullptr, report);
        if (!equal && os) *os << "which is not bit-identical:\n" << report;
        return equal;
    }

private:
    Expected expected_;
    compare_options options_;
    std::optional<operator_desc> op_;
};

/// GoogleMock matcher of packed row-major bytes (a std::span<const std::byte>) of `sizes` elements
/// of `type` that equal `expected` bit for bit.
class bit_equals_bytes_matcher : public detail::bit_equals_description {
public:
    using is_gtest_matcher = void;

    bit_equals_bytes_matcher(data_type type, std::vector<std::uint32_t> sizes, std::span<const std::byte> expected,
                             compare_options options, const operator_desc* op)
        : type_(type), sizes_(std::move(sizes)), expected_(expected.begin(), expected.end()), options_(options),
          op_(op ? std::optional<operator_desc>(*op) : std::nullopt) {}

    bool MatchAndExplain(std::span<const std::byte> actual, std::ostream* os) const {
        std::string report;
        const bool equal =
            dmlref::detail::bit_equal_report(type_, sizes_, expected_, actual, options_, op_ ? &*op_ : nullptr, report);
        if (!equal && os) *os << "which is not bit-identical:\n" << report;
        return equal;
    }

private:
    data_type type_;
    std::vector<std::uint32_t> sizes_;
    std::vector<std::byte> expected_;
    compare_options options_;
    std::optional<operator_desc> op_;
};

/// Bit-exact matcher for views and tensors. `op`, when given, is the operator that produced the
/// tensor: the report then names the regions of its output that differ, and for each listed
/// mismatch the input element (or the padding constant) the operator takes it from.
template <class T, std::size_t Rank>
bit_equals_matcher<strided_view<T, Rank>> BitEquals(strided_view<T, Rank> expected, compare_options options = {},
                                                    const operator_desc* op = nullptr) {
    return {expected, options, op};
}
template <class T, std::size_t Rank>
bit_equals_matcher<tensor<T, Rank>> BitEquals(const tensor<T, Rank>& expected, compare_options options = {},
                                              const operator_desc* op = nullptr) {
    return {expected, options, op};
}
/// Bit-exact matcher for raw bytes (a std::span<const std::byte>, or anything that converts to one).
inline bit_equals_bytes_matcher BitEquals(data_type type, std::vector<std::uint32_t> sizes,
                                          std::span<const std::byte> expected, const operator_desc* op = nullptr,
                                          compare_options options = {}) {
    return {type, std::move(sizes), expected, options, op};
}

/// Predicate-formatter for EXPECT_PRED_FORMAT2 / ASSERT_PRED_FORMAT2 (actual first, expected
/// second): fails with "<actual> is not bit-identical to <expected>:" and the report.
struct bit_equal_formatter {
    compare_options options{};
    const operator_desc* op = nullptr;

    template <class Actual, class Expected>
    ::testing::AssertionResult operator()(const char* actual_text, const char* expected_text, const Actual& actual,
                                          const Expected& expected) const {
        std::string report;
        if (dmlref::detail::bit_equal_report(actual, expected, options, op, report)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << actual_text << " is not bit-identical to " << expected_text << ":\n" << report;
    }
};

/// EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal, actual, expected).
inline constexpr bit_equal_formatter bit_equal{};

/// The predicate-formatter with the operator that produced the expected tensor (the report then
/// has its regions and each mismatch's source): EXPECT_PRED_FORMAT2(bit_equal_for(desc), a, e).
/// `op` must outlive the assertion.
inline bit_equal_formatter bit_equal_for(const operator_desc& op, compare_options options = {}) { return {options, &op}; }

} // namespace dmlref::testing

namespace dmlref {

// GoogleTest's printers, found by argument-dependent lookup: views and tensors in the nested-bracket
// format (elided like numpy's past 1000 elements), float16 as its value, descs, enums and reports
// with DirectML's names. (An operator_desc is a std::variant, which GoogleTest prints itself: the
// alternative's name, then the desc through these.)
template <class T, std::size_t Rank> void PrintTo(const strided_view<T, Rank>& view, std::ostream* os) {
    *os << fmt::format("{}", view);
}
template <class T, std::size_t Rank> void PrintTo(const tensor<T, Rank>& t, std::ostream* os) { *os << fmt::format("{}", t); }
inline void PrintTo(float16 h, std::ostream* os) { *os << fmt::format("{}", h.to_double()); }
inline void PrintTo(const compare_report& r, std::ostream* os) { *os << r.to_string(); }
inline void PrintTo(const buffer_tensor_desc& t, std::ostream* os) { *os << to_string(t); }
template <class D>
    requires detail::desc_struct<D>
void PrintTo(const D& d, std::ostream* os) {
    *os << to_string(operator_desc(d));
}
template <class E>
    requires(std::is_same_v<E, data_type> || std::is_same_v<E, feature_level> || std::is_same_v<E, padding_mode> ||
             std::is_same_v<E, depth_space_order> || std::is_same_v<E, operator_type> || std::is_same_v<E, tensor_flags>)
void PrintTo(const E& value, std::ostream* os) {
    *os << to_string(value);
}

} // namespace dmlref
