// Smoke tests of the three op families over views; the full suite lives beside this file.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>

#include <numeric>

using namespace dmlref;

TEST_CASE("slice with a negative stride over views reverses an axis", "[slice]") {
    tensor<float, 2> in({2, 3}, {1, 2, 3, 4, 5, 6});
    tensor<float, 2> out({2, 3});
    slice<float, 2>(in.view(), out.view(), {0, 0}, {2, 3}, {1, -1});
    CHECK(std::vector<float>(out.values().begin(), out.values().end()) == std::vector<float>{3, 2, 1, 6, 5, 4});
}
