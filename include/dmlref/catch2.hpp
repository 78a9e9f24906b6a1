#pragma once
/// \file catch2.hpp
/// Catch2 (v2) support for any project's tests: a bit-exact matcher whose failure message is
/// dmlref's comparison report, and StringMakers that print dmlref's types readably.
///
///   #include <catch2/catch.hpp>
///   #include <dmlref/catch2.hpp>
///   CHECK_THAT(gpu_output, dmlref::BitEquals(reference_output));      // views or tensors
///   CHECK_THAT(bytes, dmlref::BitEquals(data_type::float16, sizes, expected_bytes, &desc));

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "compare.hpp"
#include "format.hpp"
#include "strided_view.hpp"

namespace dmlref {

/// Matches a view or tensor that equals the expected one bit for bit (extents too).
template <class Arg>
class bit_equals_matcher : public Catch::MatcherBase<Arg> {
public:
    bit_equals_matcher(Arg expected, compare_options options, const operator_desc* op)
        : expected_(std::move(expected)), options_(options), op_(op ? std::optional<operator_desc>(*op) : std::nullopt) {}

    bool match(const Arg& actual) const override {
        return detail::bit_equal_report(actual, expected_, options_, op_ ? &*op_ : nullptr, report_);
    }
    std::string describe() const override { return "is bit-identical to the expected tensor:\n" + report_; }

private:
    Arg expected_;
    compare_options options_;
    std::optional<operator_desc> op_;
    mutable std::string report_;
};

/// Matches packed row-major bytes of `sizes` elements of `type` that equal `expected` bit for bit.
class bit_equals_bytes_matcher : public Catch::MatcherBase<std::span<const std::byte>> {
public:
    bit_equals_bytes_matcher(data_type type, std::vector<std::uint32_t> sizes, std::span<const std::byte> expected,
                             compare_options options, const operator_desc* op)
        : type_(type), sizes_(std::move(sizes)), expected_(expected.begin(), expected.end()), options_(options),
          op_(op ? std::optional<operator_desc>(*op) : std::nullopt) {}

    bool match(const std::span<const std::byte>& actual) const override {
        return detail::bit_equal_report(type_, sizes_, expected_, actual, options_, op_ ? &*op_ : nullptr, report_);
    }
    std::string describe() const override { return "is bit-identical to the expected tensor:\n" + report_; }

private:
    data_type type_;
    std::vector<std::uint32_t> sizes_;
    std::vector<std::byte> expected_;
    compare_options options_;
    std::optional<operator_desc> op_;
    mutable std::string report_;
};

/// Bit-exact matcher for views and tensors. `op`, when given, is the operator that produced the
/// tensor: the failure message then names the regions of its output that differ, and for each
/// listed mismatch the input element (or the padding constant) the operator takes it from.
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

} // namespace dmlref

namespace Catch {

/// dmlref's enums, descs, views, tensors and reports print as fmt prints them.
template <class T>
    requires(std::is_same_v<T, dmlref::data_type> || std::is_same_v<T, dmlref::feature_level> ||
             std::is_same_v<T, dmlref::padding_mode> || std::is_same_v<T, dmlref::depth_space_order> ||
             std::is_same_v<T, dmlref::operator_type> || std::is_same_v<T, dmlref::tensor_flags> ||
             std::is_same_v<T, dmlref::buffer_tensor_desc> || std::is_same_v<T, dmlref::operator_desc> ||
             std::is_same_v<T, dmlref::compare_report> || dmlref::detail::desc_struct<T>)
struct StringMaker<T> {
    static std::string convert(const T& value) { return fmt::format("{}", value); }
};
template <class T, std::size_t Rank>
struct StringMaker<dmlref::strided_view<T, Rank>> {
    static std::string convert(const dmlref::strided_view<T, Rank>& view) { return fmt::format("{}", view); }
};
template <class T, std::size_t Rank>
struct StringMaker<dmlref::tensor<T, Rank>> {
    static std::string convert(const dmlref::tensor<T, Rank>& t) { return fmt::format("{}", t); }
};
template <>
struct StringMaker<dmlref::float16> {
    static std::string convert(dmlref::float16 h) { return fmt::format("{}", h.to_double()); }
};

} // namespace Catch
