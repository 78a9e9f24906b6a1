// A consumer of the installed or embedded dmlref: runs one operator through each API layer and
// checks the result, so a packaging mistake (missing header, missing fmt dependency, wrong
// include path) fails the build or the run.
#include <dmlref/dmlref.hpp>

// Linked to dmlref::compiled, the headers only declare the engine: the consumer links because the
// library defines it, and it must have been told so (the target's compile definition).
#if defined(DMLREF_EXPECT_COMPILED) && (!defined(DMLREF_COMPILED) || DMLREF_DEFINE_FUNCS)
#error "dmlref::compiled did not put the headers in compiled mode"
#endif

#include <cstdio>
#include <span>
#include <vector>

int main() {
    // Desc layer: SLICE1 example 2 of DirectML's documentation.
    const auto in = dmlref::make_buffer_tensor_desc(dmlref::data_type::float32, {1, 1, 4, 4});
    const auto out = dmlref::make_buffer_tensor_desc(dmlref::data_type::float32, {1, 1, 2, 2});
    const dmlref::slice1_desc desc{in, out, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}};
    std::vector<float> input(16);
    for (int i = 0; i < 16; ++i) input[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
    std::vector<float> output(4, 0.0f);
    dmlref::execute(desc, std::as_bytes(std::span(input)), std::as_writable_bytes(std::span(output)));
    const std::vector<float> expected = {14, 16, 6, 8};
    if (output != expected) {
        std::fprintf(stderr, "SLICE1 gave %g %g %g %g\n", output[0], output[1], output[2], output[3]);
        return 1;
    }
    // View layer: pad with REFLECTION.
    dmlref::tensor<int, 1> x({3}, {1, 2, 3});
    dmlref::tensor<int, 1> padded({17});
    dmlref::pad<int, 1>(x.view(), padded.view(), dmlref::padding_mode::reflection, 0, {7}, {7});
    const std::vector<int> folded = {2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2};
    if (std::vector<int>(padded.values().begin(), padded.values().end()) != folded) {
        std::fprintf(stderr, "pad REFLECTION gave a wrong fold\n");
        return 1;
    }
    // Validation reaches the consumer as an exception.
    try {
        dmlref::check(desc, dmlref::feature_level::fl_2_0);
        std::fprintf(stderr, "SLICE1 was accepted at feature level 2_0\n");
        return 1;
    } catch (const dmlref::validation_error&) {
    }
#ifdef DMLREF_PACKAGING_TOOLCHAIN // packaging.toolchain's toolchain file was used
    std::puts("dmlref consumer: built with the test toolchain file");
#endif
    std::puts("dmlref consumer: ok");
    return 0;
}
