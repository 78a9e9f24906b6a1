// The README's usage example: SLICE1 with a negative stride, through the desc-level API.
#include <dmlref/dmlref.hpp>
#include <fmt/ranges.h>
#include <vector>

int main() {
    using namespace dmlref;
    std::vector<float> in(16), out(4);
    for (int i = 0; i < 16; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
    slice1_desc desc{make_buffer_tensor_desc(data_type::float32, {1, 1, 4, 4}),
                     make_buffer_tensor_desc(data_type::float32, {1, 1, 2, 2}),
                     {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}};
    execute(desc, std::as_bytes(std::span(in)), std::as_writable_bytes(std::span(out)));
    fmt::print("{}\n", fmt::join(out, ", ")); // 14, 16, 6, 8
}
