// dmlref_ort_time: dmlref's half of bench/ort_bench.mjs, which times ONNX Runtime's CPU provider on
// the same workloads. One dispatchable (DxDispatch's JSON, as model files spell it) runs on inputs
// the benchmark gives (raw bytes, one file per input tensor in DirectML's binding order:
// inputs_of(desc)), `repeats` times, each run paired with a memcpy of the outputs' bytes (all of
// them together) into another buffer: the yardstick both halves measure in their own process. The
// outputs of the last run are written, one file per output tensor (outputs_of(desc)), for the
// benchmark to compare with ONNX Runtime's, bit for bit.
//
//   dmlref_ort_time DISPATCHABLE.json REPEATS OUTPUT_STEM INPUT.bin...
//
// Writes OUTPUT_STEM.0, OUTPUT_STEM.1, ... (one per output tensor) and prints one JSON line:
// {"bytes": output bytes, "dmlref": [seconds...], "memcpy": [seconds...]}. Every input, index and
// length tensors included, is read into memory once before the timing, as ONNX Runtime's feeds are
// made once. One thread (execution_options' default); the output buffers are written once before
// the timing, so no run pays for its first touch of the pages, as ONNX Runtime's pre-allocated
// outputs do not.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
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

std::size_t buffer_bytes(const dmlref::buffer_tensor_desc& tensor) {
    return dmlref::model::buffer_elements(tensor) * dmlref::element_size(tensor.data_type);
}

} // namespace

int main(int argc, char** argv) try {
    if (argc < 5) {
        std::fputs("usage: dmlref_ort_time DISPATCHABLE.json REPEATS OUTPUT_STEM INPUT.bin...\n", stderr);
        return 2;
    }
    const auto text = read_all(argv[1]);
    const dmlref::operator_desc desc = dmlref::model::parse_dispatchable(
        std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), argv[1]);
    dmlref::check(desc);
    const auto in_tensors = dmlref::inputs_of(desc);
    const auto out_tensors = dmlref::outputs_of(desc);
    if (static_cast<std::size_t>(argc - 4) != in_tensors.size())
        throw std::runtime_error(fmt::format("{} binds {} input tensors; {} input files were given", argv[1],
                                             in_tensors.size(), argc - 4));
    std::vector<std::vector<std::byte>> inputs;
    for (std::size_t k = 0; k < in_tensors.size(); ++k) {
        inputs.push_back(read_all(argv[4 + k]));
        const std::size_t need = buffer_bytes(in_tensors[k].desc());
        if (inputs.back().size() != need)
            throw std::runtime_error(fmt::format("{} holds {} bytes; {} needs {}", argv[4 + k], inputs.back().size(),
                                                 in_tensors[k].field, need));
    }
    std::vector<std::vector<std::byte>> outputs;
    std::size_t out_bytes = 0;
    for (const auto& t : out_tensors) {
        outputs.emplace_back(buffer_bytes(t.desc()), std::byte{0xA5});
        out_bytes += outputs.back().size();
    }
    const std::vector<std::span<const std::byte>> in_spans(inputs.begin(), inputs.end());
    const std::vector<std::span<std::byte>> out_spans(outputs.begin(), outputs.end());
    std::vector<std::byte> copy_from(out_bytes, std::byte{1}), copy_to(out_bytes, std::byte{2});
    const int repeats = std::max(1, std::atoi(argv[2]));
    std::vector<double> engine, memcpy_s;
    dmlref::execute(desc, in_spans, out_spans); // warm: code, page tables, the caches as a steady state has them
    for (int r = 0; r < repeats; ++r) {
        auto start = std::chrono::steady_clock::now();
        dmlref::execute(desc, in_spans, out_spans);
        engine.push_back(seconds_since(start));
        start = std::chrono::steady_clock::now();
        std::memcpy(copy_to.data(), copy_from.data(), out_bytes);
        memcpy_s.push_back(seconds_since(start));
    }
    for (std::size_t k = 0; k < outputs.size(); ++k)
        std::ofstream(fmt::format("{}.{}", argv[3], k), std::ios::binary)
            .write(reinterpret_cast<const char*>(outputs[k].data()), static_cast<std::streamsize>(outputs[k].size()));
    fmt::print("{{\"bytes\": {}, \"dmlref\": [{}], \"memcpy\": [{}]}}\n", out_bytes, fmt::join(engine, ", "),
               fmt::join(memcpy_s, ", "));
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "dmlref_ort_time: %s\n", e.what());
    return 1;
}
