#pragma once
/// \file bench_common.hpp
/// What the benchmark files share: the workloads, input bytes, dmlref's output as the reference
/// every other implementation must match, and the peer registration entry points.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "workloads.hpp"

namespace dmlref_bench {

/// `count` bytes of a fixed pseudo-random pattern (no two neighbouring elements alike).
inline std::vector<std::byte> pattern_bytes(std::uint64_t count) {
    std::vector<std::byte> bytes(count);
    std::uint32_t state = 0x9e3779b9u;
    for (std::byte& b : bytes) {
        state = state * 1664525u + 1013904223u;
        b = static_cast<std::byte>(state >> 24);
    }
    return bytes;
}

/// dmlref's output for `input`: the bytes every other implementation must reproduce.
inline std::vector<std::byte> reference_output(const workload& w, const std::vector<std::byte>& input) {
    std::vector<std::byte> output(w.out_bytes);
    dmlref::execute(w.desc, input, output);
    return output;
}

/// Time one implementation of `w` that writes float32 output from float32 input; `body(in, out)`
/// runs it once. Skips with an error when its output differs from dmlref's.
template <class Body> void run_float_peer(benchmark::State& state, const workload& w, Body body) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    std::vector<std::byte> output(w.out_bytes);
    const auto* in = reinterpret_cast<const float*>(input.data());
    auto* out = reinterpret_cast<float*>(output.data());
    body(in, out);
    if (output != reference_output(w, input)) {
        state.SkipWithError("output differs from dmlref");
        return;
    }
    for (auto _ : state) {
        body(in, out);
        benchmark::DoNotOptimize(out);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(w.out_bytes));
}

/// Registers Eigen's and xtensor's forms of `w` where those libraries can express it.
void register_eigen(const workload& w);
void register_xtensor(const workload& w);

} // namespace dmlref_bench
