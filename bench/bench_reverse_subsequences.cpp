// REVERSE_SUBSEQUENCES over views (ops/reverse_subsequences.hpp), timed against memcpy of the
// output bytes in the same loop (paired_loop): a float32 {T, N} tensor at 4 MiB and 64 MiB,
// reversed on the outer axis (each sequence a column; each output row one contiguous copy of an
// input row where the lengths agree) with every length 3T/4, and with lengths varying from column
// to column; and reversed on the inner axis (each sequence a row) with lengths varying from row to
// row. Each is checked against the textbook evaluator once before it is timed.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <dmlref/textbook_reverse_subsequences.hpp>

#include "bench_common.hpp"

namespace dmlref_bench {
namespace {

struct reverse_workload {
    std::string name;
    dmlref::index_array<2> extents{};
    std::size_t axis = 0;
    bool equal_lengths = true;
};

std::vector<std::uint32_t> lengths_of(const reverse_workload& w) {
    const std::ptrdiff_t n = w.extents[w.axis], count = w.extents[1 - w.axis];
    std::vector<std::uint32_t> lengths(static_cast<std::size_t>(count));
    for (std::ptrdiff_t k = 0; k < count; ++k) // a fixed spread over [0, n]
        lengths[static_cast<std::size_t>(k)] =
            static_cast<std::uint32_t>(w.equal_lengths ? 3 * n / 4 : (k * 7919) % (n + 1));
    return lengths;
}

void run_reverse(benchmark::State& state, const reverse_workload& w) {
    const std::size_t elements = static_cast<std::size_t>(w.extents[0] * w.extents[1]);
    const std::vector<std::byte> pattern = pattern_bytes(elements * sizeof(float));
    std::vector<float> input(elements), output(elements), check(elements);
    std::memcpy(input.data(), pattern.data(), pattern.size());
    const std::vector<std::uint32_t> lengths = lengths_of(w);
    dmlref::index_array<2> lengths_extents = w.extents;
    lengths_extents[w.axis] = 1;
    const dmlref::strided_view<const float, 2> in_view(input.data(), w.extents);
    const dmlref::strided_view<const std::uint32_t, 2> lengths_view(lengths.data(), lengths_extents);
    const dmlref::strided_view<float, 2> out_view(output.data(), w.extents), check_view(check.data(), w.extents);
    auto once = [&] { dmlref::reverse_subsequences<float, 2>(in_view, lengths_view, out_view, w.axis); };
    once(); // the check: the engine equals the textbook (bits: the pattern holds NaNs)
    dmlref::textbook::reverse_subsequences<float, 2>(in_view, lengths_view, check_view, w.axis);
    if (std::memcmp(output.data(), check.data(), output.size() * sizeof(float)) != 0) {
        state.SkipWithError("dmlref differs from the textbook evaluator");
        return;
    }
    paired_loop(state, elements * sizeof(float), [&] {
        once();
        benchmark::DoNotOptimize(output.data());
    });
}

void run_reverse_memcpy(benchmark::State& state, const reverse_workload& w) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(w.extents[0] * w.extents[1]) * sizeof(float);
    std::vector<std::byte> source = pattern_bytes(bytes), output(bytes);
    paired_loop(state, bytes, [&] {
        std::memcpy(output.data(), source.data(), output.size());
        benchmark::DoNotOptimize(output.data());
    });
}

} // namespace

void register_reverse_subsequences() {
    static const std::vector<reverse_workload> workloads = [] {
        std::vector<reverse_workload> all;
        for (const auto& [size, extents] : {std::pair{"4MiB", dmlref::index_array<2>{1024, 1024}},
                                            std::pair{"64MiB", dmlref::index_array<2>{4096, 4096}}}) {
            all.push_back({std::string("revseq_outer_equal/") + size + "/f32", extents, 0, true});
            all.push_back({std::string("revseq_outer_varied/") + size + "/f32", extents, 0, false});
            all.push_back({std::string("revseq_inner_varied/") + size + "/f32", extents, 1, false});
        }
        return all;
    }();
    for (const reverse_workload& w : workloads) {
        benchmark::RegisterBenchmark((w.name + "/memcpy").c_str(), run_reverse_memcpy, std::cref(w))->UseManualTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref").c_str(), run_reverse, std::cref(w))->UseManualTime();
    }
}

} // namespace dmlref_bench
