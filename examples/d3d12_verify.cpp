// Verifies the D3D12 backend against the CPU reference on a set of cases, one line each, and
// prints a summary. With --bench it also times the GPU path (on lavapipe: the CPU running Vulkan)
// against memcpy of the same bytes in the same run; the ratio is informational.
//
//   d3d12_verify [--bench]
#include <dmlref/d3d12.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <string_view>
#include <vector>

using namespace dmlref;

namespace {

std::vector<std::byte> pattern(std::uint64_t count) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(count));
    std::uint32_t x = 12345;
    for (auto& b : bytes) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<std::byte>(x >> 24);
    }
    return bytes;
}

std::vector<operator_desc> cases() {
    std::vector<operator_desc> list;
    auto t = [](data_type type, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(type, std::move(sizes)); };
    for (data_type type : movable_data_types) {
        for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
            list.push_back(depth_to_space1_desc{t(type, {2, 18, 2, 3}), t(type, {2, 2, 6, 9}), 3, order});
            list.push_back(space_to_depth1_desc{t(type, {1, 3, 4, 8}), t(type, {1, 12, 2, 4}), 2, order});
        }
        list.push_back(slice1_desc{t(type, {5, 6, 7}), t(type, {2, 3, 4}), {1, 0, 2}, {4, 6, 5}, {-2, 2, -1}});
        list.push_back(slice_desc{t(type, {3, 4, 5, 6, 2}), t(type, {2, 2, 2, 3, 1}), {0, 1, 0, 0, 1}, {2, 2, 2, 3, 1},
                                  {2, 1, 3, 2, 1}});
        for (std::uint32_t mode = 0; mode <= 4; ++mode) {
            scalar_union value;
            value.bytes = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
            list.push_back(padding1_desc{t(type, {2, 3, 4}), t(type, {2 + 1, 3 + 7 + 5, 4 + 2 + 9}),
                                         static_cast<padding_mode>(mode), type, value, {1, 7, 2}, {0, 5, 9}});
        }
        list.push_back(padding_desc{t(type, {4, 5}), t(type, {7, 6}), padding_mode::constant, -2.5f, {2, 0}, {1, 1}});
    }
    return list;
}

std::string describe(const operator_desc& desc) {
    return std::visit(
        dmlref::single_tensor_only{"the D3D12 backend", [](const auto& d) {
            std::string text = fmt::format("{:<16} {:<8} {{{}}} -> {{{}}}", to_string(d.type),
                                           to_string(d.input_tensor.data_type), fmt::join(d.input_tensor.sizes, ","),
                                           fmt::join(d.output_tensor.sizes, ","));
            if constexpr (requires { d.order; }) text += fmt::format(" {}", to_string(d.order));
            if constexpr (requires { d.padding_mode; }) text += fmt::format(" {}", to_string(d.padding_mode));
            return text;
        }},
        desc);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void bench(d3d12::context& gpu) {
    // SLICE1 of 16M FLOAT32 elements reversed on the inner axis: 64 MiB read, 64 MiB written.
    const operator_desc desc = slice1_desc{make_buffer_tensor_desc(data_type::float32, {4096, 4096}),
                                           make_buffer_tensor_desc(data_type::float32, {4096, 4096}),
                                           {0, 0}, {4096, 4096}, {1, -1}};
    const std::uint64_t bytes = std::uint64_t{4096} * 4096 * 4;
    auto in = gpu.create_buffer(bytes);
    auto out = gpu.create_buffer(bytes);
    const auto input = pattern(bytes);
    gpu.upload(in.get(), input);
    gpu.execute(desc, in.get(), out.get()); // compiles the pipeline
    constexpr int repeats = 5;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i) gpu.execute(desc, in.get(), out.get());
    const double gpu_seconds = seconds_since(start) / repeats;

    std::vector<std::byte> copy(input.size());
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i) std::memcpy(copy.data(), input.data(), copy.size());
    const double memcpy_seconds = seconds_since(start) / repeats;
    if (copy != input) throw std::runtime_error("memcpy lost bytes"); // keeps the copies observable
    auto gib_per_s = [&](double s) { return static_cast<double>(bytes) / s / (1u << 30); };
    fmt::print("bench: SLICE1 FLOAT32 {{4096, 4096}} (64 MiB in, 64 MiB out), mean of {}\n", repeats);
    fmt::print("  GPU execute (dispatch + wait): {:8.2f} ms  {:6.2f} GiB/s\n", gpu_seconds * 1e3, gib_per_s(gpu_seconds));
    fmt::print("  memcpy of the same bytes:      {:8.2f} ms  {:6.2f} GiB/s\n", memcpy_seconds * 1e3,
               gib_per_s(memcpy_seconds));
    fmt::print("  GPU path / memcpy throughput: {:.3f} (informational; on lavapipe the GPU is the CPU)\n",
               memcpy_seconds / gpu_seconds);
}

} // namespace

int main(int argc, char** argv) {
    const bool with_bench = argc > 1 && std::string_view(argv[1]) == "--bench";
    try {
        d3d12::context gpu;
        int passed = 0, failed = 0;
        for (const operator_desc& desc : cases()) {
            const auto input = pattern(std::visit(dmlref::single_tensor_only{"the D3D12 backend", [](const auto& d) { return d.input_tensor.total_tensor_size_in_bytes; }}, desc));
            const compare_report report = gpu.verify(desc, input);
            fmt::print("{} {}: {}\n", report.equal() ? "ok  " : "FAIL", describe(desc),
                       report.equal() ? fmt::format("{} elements bit-identical", report.element_count)
                                      : report.to_string());
            ++(report.equal() ? passed : failed);
        }
        fmt::print("\n{} passed, {} failed\n", passed, failed);
        if (with_bench) bench(gpu);
        return failed == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "d3d12_verify: {}\n", e.what());
        return 2;
    }
}
