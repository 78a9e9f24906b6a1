// A GoogleTest suite that uses the installed dmlref: the matcher passes on the reference's own
// output and fails, with the report, on a changed copy (checked through gtest-spi).
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <dmlref/dmlref.hpp>
#include <dmlref/gtest.hpp>

TEST(Consumer, BitEqualsTheReference) {
    dmlref::tensor<int, 1> x({3}, {1, 2, 3});
    dmlref::tensor<int, 1> padded({7});
    dmlref::pad<int, 1>(x.view(), padded.view(), dmlref::padding_mode::wrap, 0, {2}, {2});
    const dmlref::tensor<int, 1> expected({7}, {2, 3, 1, 2, 3, 1, 2});
    EXPECT_THAT(padded, dmlref::testing::BitEquals(expected));
    auto wrong = padded;
    wrong(6) = 5;
    EXPECT_NONFATAL_FAILURE(EXPECT_THAT(wrong, dmlref::testing::BitEquals(expected)),
                            "INT32 tensor of sizes {7}: 1 of 7 elements differ");
}
