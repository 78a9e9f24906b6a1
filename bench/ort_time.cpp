// dmlref_ort_time: dmlref's half of bench/ort_bench.mjs, which times ONNX Runtime's CPU provider on
// the same workloads. One dispatchable (DxDispatch's JSON, as model files spell it) runs on an
// input the benchmark gives (raw bytes), `repeats` times, each run paired with a memcpy of the
// output's bytes into another buffer: the yardstick both halves measure in their own process. The
// output of the last run is written for the benchmark to compare with ONNX Runtime's, bit for bit.
//
//   dmlref_ort_time DISPATCHABLE.json INPUT.bin OUTPUT.bin REPEATS
//
// Prints one JSON line: {"bytes": output bytes, "dmlref": [seconds...], "memcpy": [seconds...]}.
// One thread (execution_options' default); the output buffer is written once before the timing, so
// no run pays for its first touch of the pages, as ONNX Runtime's pre-allocated outputs do not.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dmlref/dmlref.hpp>

#include "model.hpp"

namespace {

std::vector<std::byte> read_all(const char* path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw std::runtime_error(fmt::format("cannot open {}", path));
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(bytes.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv) try {
    if (argc != 5) {
        std::fputs("usage: dmlref_ort_time DISPATCHABLE.json INPUT.bin OUTPUT.bin REPEATS\n", stderr);
        return 2;
    }
    const auto text = read_all(argv[1]);
    const dmlref::operator_desc desc = dmlref::model::parse_dispatchable(
        std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), argv[1]);
    dmlref::check(desc);
    const auto input = read_all(argv[2]);
    const auto in_tensor = std::visit(dmlref::single_tensor_only{"the benchmark", [](const auto& d) { return d.input_tensor; }}, desc);
    const auto out_tensor = std::visit(dmlref::single_tensor_only{"the benchmark", [](const auto& d) { return d.output_tensor; }}, desc);
    const std::uint64_t need_in = dmlref::model::buffer_elements(in_tensor) * dmlref::element_size(in_tensor.data_type);
    if (input.size() != need_in)
        throw std::runtime_error(fmt::format("{} holds {} bytes; the input tensor needs {}", argv[2], input.size(), need_in));
    const std::size_t out_bytes = dmlref::model::buffer_elements(out_tensor) * dmlref::element_size(out_tensor.data_type);
    std::vector<std::byte> output(out_bytes, std::byte{0xA5}), copy_from(out_bytes, std::byte{1}),
        copy_to(out_bytes, std::byte{2});
    const int repeats = std::max(1, std::atoi(argv[4]));
    std::vector<double> engine, memcpy_s;
    dmlref::execute(desc, input, output); // warm: code, page tables, the caches as a steady state has them
    for (int r = 0; r < repeats; ++r) {
        auto start = std::chrono::steady_clock::now();
        dmlref::execute(desc, input, output);
        engine.push_back(seconds_since(start));
        start = std::chrono::steady_clock::now();
        std::memcpy(copy_to.data(), copy_from.data(), out_bytes);
        memcpy_s.push_back(seconds_since(start));
    }
    std::ofstream(argv[3], std::ios::binary).write(reinterpret_cast<const char*>(output.data()),
                                                   static_cast<std::streamsize>(output.size()));
    fmt::print("{{\"bytes\": {}, \"dmlref\": [{}], \"memcpy\": [{}]}}\n", out_bytes, fmt::join(engine, ", "),
               fmt::join(memcpy_s, ", "));
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "dmlref_ort_time: %s\n", e.what());
    return 1;
}
