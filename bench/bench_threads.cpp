// Where splitting rows over threads starts to pay: a few of the float32 workloads on
// inputs from 1 MiB to 32 MiB, each run on one thread and on two threads made to split whatever
// the output's size (execution_options::min_bytes_per_thread = 1). Every iteration is paired with
// a memcpy of the same output bytes, as in dmlref_bench (bench_common.hpp, counter x_memcpy); the
// two columns' ratio is the speedup of two threads at that size. bench/README.md has the figures
// behind execution_options' default.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_common.hpp"

namespace dmlref_bench {
namespace {

/// dmlref with `options`, checked against one thread's output before it is timed (run_checked).
void run_threads(benchmark::State& state, const workload& w, dmlref::execution_options options) {
    run_checked(state, w, [&](const std::byte* in, std::byte* out) {
        dmlref::execute(w.desc, {in, w.in_bytes}, {out, w.out_bytes}, options);
    });
}

/// The sweep: inputs {1, 64, s, s} of 1 to 32 MiB, the workloads whose outputs span the shapes
/// (as large as the input, a quarter of it, interleaved, de-interleaved, gathered).
std::vector<workload> sweep_workloads() {
    const std::pair<std::uint32_t, const char*> sizes[] = {{64, "1MiB"},   {90, "2MiB"},   {128, "4MiB"},
                                                           {181, "8MiB"},  {256, "16MiB"}, {362, "32MiB"}};
    const std::string kept[] = {"d2s_dcr_b2/", "s2d_crd_b3/", "slice_reverse_w/", "slice_window/", "pad_constant/",
                                "pad_reflection/"};
    std::vector<workload> out;
    for (const auto& [side, name] : sizes)
        for (workload& w : workloads_for(name, {1, 64, side, side}, 4, input_layout::packed, ""))
            for (const std::string& k : kept)
                if (w.name.starts_with(k)) out.push_back(std::move(w));
    return out;
}

} // namespace
} // namespace dmlref_bench

int main(int argc, char** argv) {
    using namespace dmlref_bench;
    static const std::vector<workload> workloads = sweep_workloads();
    for (const workload& w : workloads) {
        benchmark::RegisterBenchmark((w.name + "/dmlref").c_str(), run_threads, std::cref(w),
                                     dmlref::execution_options{1})
            ->UseManualTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref_2threads_split").c_str(), run_threads, std::cref(w),
                                     dmlref::execution_options{2, 1})
            ->UseManualTime();
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
