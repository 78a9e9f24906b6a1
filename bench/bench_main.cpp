// Benchmarks of the workloads: dmlref (one thread and two), memcpy of the same output
// bytes, the naive evaluator of the tests, and the peers (bench_eigen.cpp, bench_xtensor.cpp).
// Every implementation is checked bit-exactly against dmlref before it is timed.

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "../tests/naive_evaluator.hpp"
#include "bench_common.hpp"

namespace dmlref_bench {
namespace {

void run_memcpy(benchmark::State& state, const workload& w) {
    std::vector<std::byte> source = pattern_bytes(w.out_bytes), output(w.out_bytes);
    for (auto _ : state) {
        std::memcpy(output.data(), source.data(), output.size());
        benchmark::DoNotOptimize(output.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(w.out_bytes));
}

void run_dmlref(benchmark::State& state, const workload& w, std::size_t threads) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    std::vector<std::byte> output(w.out_bytes);
    const dmlref::execution_options options{threads};
    for (auto _ : state) {
        dmlref::execute(w.desc, input, output, options);
        benchmark::DoNotOptimize(output.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(w.out_bytes));
}

void run_naive(benchmark::State& state, const workload& w) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    const std::vector<std::byte> initial(w.out_bytes);
    if (dmlref_test::naive_execute(w.desc, input, initial) != reference_output(w, input)) {
        state.SkipWithError("naive evaluator differs from dmlref");
        return;
    }
    for (auto _ : state) {
        std::vector<std::byte> output = dmlref_test::naive_execute(w.desc, input, initial);
        benchmark::DoNotOptimize(output.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(w.out_bytes));
}

} // namespace
} // namespace dmlref_bench

int main(int argc, char** argv) {
    using namespace dmlref_bench;
    static const std::vector<workload> workloads = all_workloads();
    for (const workload& w : workloads) {
        benchmark::RegisterBenchmark((w.name + "/memcpy").c_str(), run_memcpy, std::cref(w))->UseRealTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref").c_str(), run_dmlref, std::cref(w), std::size_t{1})
            ->UseRealTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref_2threads").c_str(), run_dmlref, std::cref(w), std::size_t{2})
            ->UseRealTime();
        if (w.naive) benchmark::RegisterBenchmark((w.name + "/naive").c_str(), run_naive, std::cref(w))->UseRealTime();
        if (w.peers) {
            register_eigen(w);
            register_xtensor(w);
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
