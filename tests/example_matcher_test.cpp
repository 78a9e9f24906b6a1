// The README's example: a GPU kernel's output checked against dmlref in a Catch2 test.
#include <catch2/catch.hpp>
#include <dmlref/catch2.hpp>
#include <dmlref/dmlref.hpp>

// Stands in for the implementation under test (a GPU kernel's output read back to the host).
static dmlref::tensor<float, 4> my_depth_to_space(const dmlref::tensor<float, 4>& x) {
    dmlref::tensor<float, 4> y({1, 1, 4, 6});
    dmlref::depth_to_space<float>(x.view(), y.view(), 2, dmlref::depth_space_order::column_row_depth);
    return y;
}

TEST_CASE("my depth_to_space matches the reference bit for bit", "[example]") {
    dmlref::tensor<float, 4> x({1, 4, 2, 3});
    for (std::size_t i = 0; i < x.values().size(); ++i) x.values()[i] = static_cast<float>(i);

    dmlref::tensor<float, 4> expected({1, 1, 4, 6});
    dmlref::depth_to_space<float>(x.view(), expected.view(), 2, dmlref::depth_space_order::column_row_depth);

    CHECK_THAT(my_depth_to_space(x), dmlref::BitEquals(expected));
}
