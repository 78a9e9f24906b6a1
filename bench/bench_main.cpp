// Benchmarks of the workloads: dmlref (one thread and two), memcpy of the same output
// bytes, the naive evaluator of the tests, and the peers (bench_eigen.cpp, bench_xtensor.cpp).
// Every implementation is checked bit-exactly against dmlref before it is timed, and every
// iteration is paired with a memcpy of the same bytes (bench_common.hpp, counter x_memcpy).

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
    paired_loop(state, w.out_bytes, [&] {
        std::memcpy(output.data(), source.data(), output.size());
        benchmark::DoNotOptimize(output.data());
    });
}

void run_dmlref(benchmark::State& state, const workload& w, std::size_t threads) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    std::vector<std::byte> output(w.out_bytes);
    const dmlref::execution_options options{threads};
    paired_loop(state, w.out_bytes, [&] {
        dmlref::execute(w.desc, input, output, options);
        benchmark::DoNotOptimize(output.data());
    });
}

void run_naive(benchmark::State& state, const workload& w) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    const std::vector<std::byte> initial(w.out_bytes);
    if (dmlref_test::naive_execute(w.desc, input, initial) != reference_output(w, input)) {
        state.SkipWithError("naive evaluator differs from dmlref");
        return;
    }
    paired_loop(state, w.out_bytes, [&] {
        std::vector<std::byte> output = dmlref_test::naive_execute(w.desc, input, initial);
        benchmark::DoNotOptimize(output.data());
    });
}

} // namespace
} // namespace dmlref_bench

int main(int argc, char** argv) {
    using namespace dmlref_bench;
    static const std::vector<workload> workloads = all_workloads();
    for (const workload& w : workloads) {
        benchmark::RegisterBenchmark((w.name + "/memcpy").c_str(), run_memcpy, std::cref(w))->UseManualTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref").c_str(), run_dmlref, std::cref(w), std::size_t{1})
            ->UseManualTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref_2threads").c_str(), run_dmlref, std::cref(w), std::size_t{2})
            ->UseManualTime();
        if (w.naive) benchmark::RegisterBenchmark((w.name + "/naive").c_str(), run_naive, std::cref(w))->UseManualTime();
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
