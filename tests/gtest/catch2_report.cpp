// What the Catch2 matcher of <dmlref/catch2.hpp> reports for two tensors: test_gtest holds the
// GoogleTest matcher's failure text to it. (Catch2's implementation comes from dmlref_catch_impl,
// without Catch2's main: the GoogleTest binary has GoogleTest's.)
#define CATCH_CONFIG_PREFIX_ALL
#include <catch2/catch.hpp>
#include <dmlref/catch2.hpp>

#include "catch2_report.hpp"

std::string catch2_report(const dmlref::tensor<float, 4>& actual, const dmlref::tensor<float, 4>& expected,
                          const dmlref::operator_desc* op) {
    const auto matcher = dmlref::BitEquals(expected, {}, op);
    if (matcher.match(actual)) return "";
    return matcher.describe();
}
