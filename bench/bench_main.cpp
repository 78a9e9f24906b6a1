// Benchmarks of the workloads: dmlref (one thread and two), memcpy of the same output
// bytes, the textbook evaluator (<dmlref/textbook.hpp>, timed as `naive`), the peers (bench_eigen.cpp, bench_xtensor.cpp) and,
// for the centred window, two row loops written by hand.
// Every implementation is checked bit-exactly against dmlref before it is timed, and every
// iteration is paired with a memcpy of the same bytes (bench_common.hpp, counter x_memcpy).

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <dmlref/textbook.hpp>

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

/// dmlref on `threads` threads; paired with a memcpy rotating over `memcpy_pairs` buffer pairs.
void run_dmlref(benchmark::State& state, const workload& w, std::size_t threads, std::size_t memcpy_pairs) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    std::vector<std::byte> output(w.out_bytes);
    const dmlref::execution_options options{threads};
    paired_loop(
        state, w.out_bytes,
        [&] {
            dmlref::execute(w.desc, input, output, options);
            benchmark::DoNotOptimize(output.data());
        },
        memcpy_pairs);
}

void run_naive(benchmark::State& state, const workload& w) {
    const std::vector<std::byte> input = pattern_bytes(w.in_bytes);
    std::vector<std::byte> output(w.out_bytes);
    dmlref::textbook::execute(w.desc, input, output);
    if (output != reference_output(w, input)) {
        state.SkipWithError("the textbook evaluator differs from dmlref");
        return;
    }
    paired_loop(state, w.out_bytes, [&] {
        dmlref::textbook::execute(w.desc, input, output);
        benchmark::DoNotOptimize(output.data());
    });
}

/// The centred window written by hand, as the yardstick for dmlref's window in the same binary and
/// loop: one memcpy per output row. With `prefetch`, each row first prefetches the input row as
/// many rows on as dmlref's engine does (4 KiB of rows), counting on across channel ends: the
/// hardware prefetchers do not follow rows that read half of each input row.
void run_window_by_hand(benchmark::State& state, const workload& w, bool prefetch) {
    const auto& d = std::get<dmlref::slice1_desc>(w.desc);
    const std::size_t width = dmlref::element_size(d.input_tensor.data_type);
    const std::size_t channels = std::size_t{w.in_sizes[0]} * w.in_sizes[1], height = w.in_sizes[2];
    const std::size_t pitch = w.in_sizes[3] * width, plane = height * pitch;
    const std::size_t row = d.input_window_sizes[3] * width, rows = d.input_window_sizes[2];
    const std::size_t first = d.input_window_offsets[2] * pitch + d.input_window_offsets[3] * width;
    const auto distance = static_cast<std::size_t>(dmlref::detail::prefetch_distance);
    const std::size_t ahead = row >= distance ? 1 : distance / row;
    run_checked(state, w, [&](const std::byte* input, std::byte* out) {
        std::size_t next_c = 0, next_y = ahead; // the row `ahead` on in output order
        for (; next_y >= rows; next_y -= rows) ++next_c;
        for (std::size_t c = 0; c < channels; ++c) {
            const std::byte* in = input + c * plane + first;
            for (std::size_t y = 0; y < rows; ++y, in += pitch, out += row) {
                if (prefetch && next_c < channels) {
                    const std::byte* next = input + next_c * plane + first + next_y * pitch;
                    for (std::size_t at = 0; at < row; at += 64) __builtin_prefetch(next + at);
                    if (++next_y == rows) next_y = 0, ++next_c;
                }
                std::memcpy(out, in, row);
            }
        }
    });
}

} // namespace
} // namespace dmlref_bench

int main(int argc, char** argv) {
    using namespace dmlref_bench;
    static const std::vector<workload> workloads = all_workloads();
    for (const workload& w : workloads) {
        benchmark::RegisterBenchmark((w.name + "/memcpy").c_str(), run_memcpy, std::cref(w))->UseManualTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref").c_str(), run_dmlref, std::cref(w), std::size_t{1},
                                     std::size_t{1})
            ->UseManualTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref_2threads").c_str(), run_dmlref, std::cref(w), std::size_t{2},
                                     std::size_t{1})
            ->UseManualTime();
        // DRAM-sized inputs whose output is a quarter of them or less (the stride-2 slice and the
        // window): memcpy's 2 x 16 MiB fit the 32 MiB level-3 cache a core has here, the input does not.
        if (w.in_bytes >= (std::uint64_t{64} << 20) && 4 * w.out_bytes <= w.in_bytes)
            benchmark::RegisterBenchmark((w.name + "/dmlref_memcpy_2pairs").c_str(), run_dmlref, std::cref(w),
                                         std::size_t{1}, std::size_t{2})
                ->UseManualTime();
        if (w.naive) benchmark::RegisterBenchmark((w.name + "/naive").c_str(), run_naive, std::cref(w))->UseManualTime();
        if (w.kind == family::slice_window && w.packed) {
            benchmark::RegisterBenchmark((w.name + "/rows_by_hand").c_str(), run_window_by_hand, std::cref(w), false)
                ->UseManualTime();
            benchmark::RegisterBenchmark((w.name + "/rows_by_hand_prefetch").c_str(), run_window_by_hand, std::cref(w),
                                         true)
                ->UseManualTime();
        }
        if (w.peers) {
            register_eigen(w);
            register_xtensor(w);
        }
    }
    register_join_split();
    register_reverse_subsequences();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
