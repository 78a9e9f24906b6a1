#pragma once
/// \file bench_common.hpp
/// What the benchmark files share: the workloads, input bytes, dmlref's output as the reference
/// every other implementation must match, and the peer registration entry points.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

#include <dmlref/parallel.hpp>

#include "workloads.hpp"

namespace dmlref_bench {

/// `count` bytes of a fixed pseudo-random pattern: the top byte of a 32-bit linear congruential
/// generator per byte. Neighbouring elements rarely match (in 64 MiB: one 1-byte pair in 256, 525
/// 2-byte pairs, no 4- or 8-byte pair), so a misplaced element shows in the bit-exact checks.
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

/// The timing loop of every implementation: after one untimed round, each iteration first copies
/// the workload's output bytes with memcpy between two buffers of its own, then runs `body()` once;
/// only `body` is the benchmark's (manual) time. The counter `x_memcpy` is memcpy's total time over body's: the
/// throughput ratio to memcpy, measured side by side, so that load from other processes on a
/// shared machine moves both alike.
///
/// With `memcpy_pairs` = 2 the memcpy alternates between two source/target pairs, so that the
/// buffers it copies were last used two iterations back rather than one. On a 2-core VM of the
/// README's kind (2026-11-25, six runs at f1a4d5f) a 16 MiB memcpy repeated on the same 32 MiB of
/// buffers, with the window's iteration in between, ran about a fifth faster than one alternating
/// over two pairs (bench/README.md): part of those 32 MiB stays in the cache. The second pair
/// shows how much of a ratio that is.
template <class Body>
void paired_loop(benchmark::State& state, std::uint64_t bytes, Body body, std::size_t memcpy_pairs = 1) {
    using clock = std::chrono::steady_clock;
    std::vector<std::vector<std::byte>> sources, targets;
    for (std::size_t k = 0; k < memcpy_pairs; ++k) {
        sources.push_back(pattern_bytes(bytes));
        targets.emplace_back(bytes);
    }
    // One untimed round first. On the VM the figures come from, the first touch of buffers that
    // already existed, after another large buffer was freed, cost up to 40x a warm pass (a 64 MiB
    // pad: 160 ms against 4 ms, whichever implementation ran it); an iteration count of 1, which
    // Google Benchmark picks for slow bodies, then timed that alone.
    for (std::size_t k = 0; k < memcpy_pairs; ++k) std::memcpy(targets[k].data(), sources[k].data(), bytes);
    body();
    benchmark::ClobberMemory();
    double body_seconds = 0, memcpy_seconds = 0;
    std::size_t pair = 0;
    for (auto _ : state) {
        const auto t0 = clock::now();
        std::memcpy(targets[pair].data(), sources[pair].data(), bytes);
        benchmark::ClobberMemory();
        const auto t1 = clock::now();
        body();
        benchmark::ClobberMemory();
        const auto t2 = clock::now();
        const double seconds = std::chrono::duration<double>(t2 - t1).count();
        state.SetIterationTime(seconds);
        body_seconds += seconds;
        memcpy_seconds += std::chrono::duration<double>(t1 - t0).count();
        if (++pair == memcpy_pairs) pair = 0;
    }
    state.counters["x_memcpy"] = body_seconds > 0 ? memcpy_seconds / body_seconds : 0;
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
}

/// Time one implementation of `w` other than dmlref; `body(in, out)` runs it once on the workload's
/// input and output bytes. Skips with an error when its output differs from dmlref's.
template <class Body> void run_checked(benchmark::State& state, const workload& w, Body body) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    std::vector<std::byte> output(w.out_bytes);
    body(input.data(), output.data());
    if (output != reference_output(w, input)) {
        state.SkipWithError("output differs from dmlref");
        return;
    }
    paired_loop(state, w.out_bytes, [&] {
        body(input.data(), output.data());
        benchmark::DoNotOptimize(output.data());
    });
}

/// run_checked for an implementation that writes float32 output from float32 input.
template <class Body> void run_float_peer(benchmark::State& state, const workload& w, Body body) {
    run_checked(state, w, [&](const std::byte* in, std::byte* out) {
        body(reinterpret_cast<const float*>(in), reinterpret_cast<float*>(out));
    });
}

/// Registers Eigen's and xtensor's forms of `w` where those libraries can express it.
void register_eigen(const workload& w);
/// JOIN and SPLIT over views (bench_join_split.cpp): they have no desc-level workload yet.
void register_join_split();
/// REVERSE_SUBSEQUENCES over views (bench_reverse_subsequences.cpp), likewise.
void register_reverse_subsequences();
void register_xtensor(const workload& w);

} // namespace dmlref_bench
