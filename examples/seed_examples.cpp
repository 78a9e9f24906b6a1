// The demo: every worked example of DirectML's pages (DEPTH_TO_SPACE1, PADDING1, SLICE1, and the
// SPACE_TO_DEPTH1 inverses of the depth-to-space examples) run through dmlref's desc-level API,
// printed in the pages' nested-bracket format and checked against the pages' outputs.
// Exits with status 1 if any output differs.
#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using dmlref::data_type;

/// Raw bytes of `values` as elements of T.
template <class T> std::vector<std::byte> bytes_of(const std::vector<T>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

struct example {
    std::string title;
    dmlref::operator_desc desc;
    std::vector<std::byte> input;
    std::vector<std::byte> expected;
};

/// Runs one example, prints it, and says whether it reproduces the page.
bool run(const example& e) {
    const auto& [in_desc, out_desc] = std::visit(
        dmlref::single_tensor_only{"this example", [](const auto& d) { return std::pair{d.input_tensor, d.output_tensor}; }}, e.desc);
    std::vector<std::byte> output(out_desc.total_tensor_size_in_bytes);
    dmlref::execute(e.desc, e.input, output);
    output.resize(e.expected.size());
    const bool same = output == e.expected;
    fmt::print("== {} ({})\nInputTensor: (Sizes:{{{}}}, DataType:{})\n{}\nOutputTensor: (Sizes:{{{}}}, DataType:{})\n{}\n"
               "{}\n\n",
               e.title, dmlref::type_of(e.desc), fmt::join(in_desc.sizes, ", "), in_desc.data_type,
               dmlref::format_tensor(in_desc.data_type, in_desc.sizes, e.input),
               fmt::join(out_desc.sizes, ", "), out_desc.data_type,
               dmlref::format_tensor(out_desc.data_type, out_desc.sizes, output),
               same ? "matches the page" : "DIFFERS from the page: expected\n" +
                                               dmlref::format_tensor(out_desc.data_type, out_desc.sizes, e.expected));
    return same;
}

std::vector<example> examples() {
    using dmlref::make_buffer_tensor_desc;
    using order = dmlref::depth_space_order;
    using mode = dmlref::padding_mode;
    std::vector<example> all;

    // DML_DEPTH_TO_SPACE1_OPERATOR_DESC: input {1, 8, 2, 3}, element (c, h, w) = 9c + 3h + w.
    std::vector<std::uint32_t> depth(48);
    for (std::uint32_t c = 0; c < 8; ++c)
        for (std::uint32_t h = 0; h < 2; ++h)
            for (std::uint32_t w = 0; w < 3; ++w) depth[c * 6 + h * 3 + w] = 9 * c + 3 * h + w;
    const std::vector<std::uint32_t> dcr = {0,  18, 1,  19, 2,  20, 36, 54, 37, 55, 38, 56, 3,  21, 4,  22,
                                            5,  23, 39, 57, 40, 58, 41, 59, 9,  27, 10, 28, 11, 29, 45, 63,
                                            46, 64, 47, 65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68};
    const std::vector<std::uint32_t> crd = {0,  9,  1,  10, 2,  11, 18, 27, 19, 28, 20, 29, 3,  12, 4,  13,
                                            5,  14, 21, 30, 22, 31, 23, 32, 36, 45, 37, 46, 38, 47, 54, 63,
                                            55, 64, 56, 65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68};
    const auto deep = make_buffer_tensor_desc(data_type::uint32, {1, 8, 2, 3});
    const auto wide = make_buffer_tensor_desc(data_type::uint32, {1, 2, 4, 6});
    all.push_back({"DEPTH_TO_SPACE1 example 1: DEPTH_COLUMN_ROW",
                   dmlref::depth_to_space1_desc{deep, wide, 2, order::depth_column_row}, bytes_of(depth),
                   bytes_of(dcr)});
    all.push_back({"DEPTH_TO_SPACE1 example 2: COLUMN_ROW_DEPTH",
                   dmlref::depth_to_space1_desc{deep, wide, 2, order::column_row_depth}, bytes_of(depth),
                   bytes_of(crd)});
    all.push_back({"SPACE_TO_DEPTH1, the inverse of example 1",
                   dmlref::space_to_depth1_desc{wide, deep, 2, order::depth_column_row}, bytes_of(dcr),
                   bytes_of(depth)});
    all.push_back({"SPACE_TO_DEPTH1, the inverse of example 2",
                   dmlref::space_to_depth1_desc{wide, deep, 2, order::column_row_depth}, bytes_of(crd),
                   bytes_of(depth)});

    // DML_PADDING1_OPERATOR_DESC: input {1, 1, 4, 4}, StartPadding {0, 0, 1, 2}, EndPadding {0, 0, 3, 4}.
    const std::vector<float> rows = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};
    const std::vector<float> constant = {
        9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 5, 6, 7, 8, 9, 9, 9, 9,
        9, 9, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
        9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    const std::vector<float> edge = {
        1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8,
        1, 1, 1, 2, 3, 4, 4, 4, 4, 4, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8,
        5, 5, 5, 6, 7, 8, 8, 8, 8, 8, 5, 5, 5, 6, 7, 8, 8, 8, 8, 8};
    const std::vector<float> reflection = {
        7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 7, 6, 5, 6, 7, 8, 7, 6, 5, 6,
        3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2,
        7, 6, 5, 6, 7, 8, 7, 6, 5, 6, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2};
    const std::vector<float> symmetric = {
        2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
        2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5,
        2, 1, 1, 2, 3, 4, 4, 3, 2, 1, 6, 5, 5, 6, 7, 8, 8, 7, 6, 5};
    const auto square = make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 4});
    const auto padded = make_buffer_tensor_desc(data_type::float32, {1, 1, 8, 10});
    auto padding = [&](mode m) {
        return dmlref::padding1_desc{square, padded, m, data_type::float32, dmlref::scalar_union::of(9.0f),
                                     {0, 0, 1, 2}, {0, 0, 3, 4}};
    };
    all.push_back({"PADDING1 example 1: CONSTANT 9", padding(mode::constant), bytes_of(rows), bytes_of(constant)});
    all.push_back({"PADDING1 example 2: EDGE", padding(mode::edge), bytes_of(rows), bytes_of(edge)});
    all.push_back({"PADDING1 example 3: REFLECTION", padding(mode::reflection), bytes_of(rows), bytes_of(reflection)});
    all.push_back({"PADDING1 example 4: SYMMETRIC", padding(mode::symmetric), bytes_of(rows), bytes_of(symmetric)});

    // DML_SLICE1_OPERATOR_DESC: input {1, 1, 4, 4} holding 1 to 16.
    std::vector<float> counting(16);
    for (std::size_t i = 0; i < 16; ++i) counting[i] = static_cast<float>(i + 1);
    const auto quarter = make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2});
    all.push_back({"SLICE1 example 1: positive strides",
                   dmlref::slice1_desc{square, quarter, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, 2, 2}}, bytes_of(counting),
                   bytes_of(std::vector<float>{2, 4, 10, 12})});
    all.push_back({"SLICE1 example 2: negative strides",
                   dmlref::slice1_desc{square, quarter, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}}, bytes_of(counting),
                   bytes_of(std::vector<float>{14, 16, 6, 8})});
    return all;
}

} // namespace

int main() {
    int passed = 0, failed = 0;
    for (const example& e : examples()) (run(e) ? passed : failed) += 1;
    fmt::print("{} passed, {} failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
