// The README's GoogleTest example: a GPU kernel's output checked against dmlref with GoogleMock's
// EXPECT_THAT and with EXPECT_PRED_FORMAT2. Built a second time with DMLREF_EXAMPLE_PLANTED_CHANGE,
// where the kernel gets one element wrong: that build must fail with dmlref's report.
#include <gmock/gmock.h>
#include <dmlref/dmlref.hpp>
#include <dmlref/gtest.hpp>

// Stands in for the implementation under test (a GPU kernel's output read back to the host).
static dmlref::tensor<float, 4> my_depth_to_space(const dmlref::tensor<float, 4>& x) {
    dmlref::tensor<float, 4> y({1, 1, 4, 6});
    dmlref::depth_to_space<float>(x.view(), y.view(), 2, dmlref::depth_space_order::column_row_depth);
#ifdef DMLREF_EXAMPLE_PLANTED_CHANGE
    y(0, 0, 2, 3) = -1.0f; // one element wrong
#endif
    return y;
}

TEST(Example, MyDepthToSpaceMatchesTheReferenceBitForBit) {
    dmlref::tensor<float, 4> x({1, 4, 2, 3});
    for (std::size_t i = 0; i < x.values().size(); ++i) x.values()[i] = static_cast<float>(i);

    dmlref::tensor<float, 4> expected({1, 1, 4, 6});
    dmlref::depth_to_space<float>(x.view(), expected.view(), 2, dmlref::depth_space_order::column_row_depth);

    EXPECT_THAT(my_depth_to_space(x), dmlref::testing::BitEquals(expected));
}

TEST(Example, WithTheOperatorTheReportNamesRegionsAndSources) {
    const dmlref::operator_desc desc = dmlref::depth_to_space1_desc{
        dmlref::make_buffer_tensor_desc(dmlref::data_type::float32, {1, 4, 2, 3}),
        dmlref::make_buffer_tensor_desc(dmlref::data_type::float32, {1, 1, 4, 6}), 2,
        dmlref::depth_space_order::column_row_depth};
    dmlref::tensor<float, 4> x({1, 4, 2, 3});
    for (std::size_t i = 0; i < x.values().size(); ++i) x.values()[i] = static_cast<float>(i);
    dmlref::tensor<float, 4> expected({1, 1, 4, 6});
    dmlref::execute(desc, std::as_bytes(x.values()), std::as_writable_bytes(expected.values()));

    EXPECT_PRED_FORMAT2(dmlref::testing::bit_equal_for(desc), my_depth_to_space(x), expected);
}
