// JOIN and SPLIT over views (ops/join_split.hpp), timed against memcpy of the output bytes in the
// same loop (paired_loop): float32, four equal parts of a {1, 64, H, W} tensor, joined or split on
// the channels (each part one contiguous block) and on the width (each part rows of W / 4 elements),
// at 4 MiB and 64 MiB. Each is checked against the textbook evaluator once before it is timed.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <dmlref/textbook_join_split.hpp>

#include "bench_common.hpp"

namespace dmlref_bench {
namespace {

struct parts_workload {
    std::string name;
    dmlref::index_array<4> whole{};
    std::size_t axis = 0;
    bool is_join = true;
};

constexpr std::size_t part_count = 4;

dmlref::index_array<4> part_extents(const parts_workload& w) {
    dmlref::index_array<4> p = w.whole;
    p[w.axis] /= static_cast<std::ptrdiff_t>(part_count);
    return p;
}

void run_parts(benchmark::State& state, const parts_workload& w) {
    const dmlref::index_array<4> part = part_extents(w);
    const std::size_t part_elements = static_cast<std::size_t>(part[0] * part[1] * part[2] * part[3]);
    const std::size_t whole_elements = part_elements * part_count;
    const std::vector<std::byte> pattern = pattern_bytes(whole_elements * sizeof(float));
    std::vector<float> whole(whole_elements), check(whole_elements);
    std::memcpy(whole.data(), pattern.data(), pattern.size());
    std::vector<std::vector<float>> parts(part_count, std::vector<float>(part_elements)), again = parts;
    for (std::size_t k = 0; k < part_count; ++k) std::memcpy(parts[k].data(), pattern.data() + k * part_elements * sizeof(float), part_elements * sizeof(float));
    std::vector<dmlref::strided_view<const float, 4>> in_parts;
    std::vector<dmlref::strided_view<float, 4>> out_parts, out_again;
    for (std::size_t k = 0; k < part_count; ++k) {
        in_parts.emplace_back(parts[k].data(), part);
        out_parts.emplace_back(parts[k].data(), part);
        out_again.emplace_back(again[k].data(), part);
    }
    const dmlref::strided_view<float, 4> whole_view(whole.data(), w.whole), check_view(check.data(), w.whole);
    auto once = [&] {
        if (w.is_join) dmlref::join<float, 4>(in_parts, whole_view, w.axis);
        else dmlref::split<float, 4>(whole_view, out_parts, w.axis);
    };
    once(); // the check: the engine equals the textbook
    bool same = true;
    if (w.is_join) {
        dmlref::textbook::join<float, 4>(in_parts, check_view, w.axis);
        same = std::memcmp(whole.data(), check.data(), whole.size() * sizeof(float)) == 0; // bits: the pattern holds NaNs
    } else {
        dmlref::textbook::split<float, 4>(whole_view, out_again, w.axis);
        for (std::size_t k = 0; k < part_count; ++k)
            same = same && std::memcmp(parts[k].data(), again[k].data(), part_elements * sizeof(float)) == 0;
    }
    if (!same) {
        state.SkipWithError("dmlref differs from the textbook evaluator");
        return;
    }
    paired_loop(state, whole_elements * sizeof(float), [&] {
        once();
        benchmark::DoNotOptimize(w.is_join ? static_cast<void*>(whole.data()) : static_cast<void*>(parts[0].data()));
    });
}

void run_parts_memcpy(benchmark::State& state, const parts_workload& w) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(w.whole[0] * w.whole[1] * w.whole[2] * w.whole[3]) * sizeof(float);
    std::vector<std::byte> source = pattern_bytes(bytes), output(bytes);
    paired_loop(state, bytes, [&] {
        std::memcpy(output.data(), source.data(), output.size());
        benchmark::DoNotOptimize(output.data());
    });
}

} // namespace

void register_join_split() {
    static const std::vector<parts_workload> workloads = [] {
        std::vector<parts_workload> all;
        for (const auto& [size, whole] : {std::pair{"4MiB", dmlref::index_array<4>{1, 64, 128, 128}},
                                          std::pair{"64MiB", dmlref::index_array<4>{1, 64, 512, 512}}})
            for (bool is_join : {true, false})
                for (std::size_t axis : {std::size_t{1}, std::size_t{3}})
                    all.push_back({std::string(is_join ? "join" : "split") + (axis == 1 ? "_c4" : "_w4") + "/" + size + "/f32",
                                   whole, axis, is_join});
        return all;
    }();
    for (const parts_workload& w : workloads) {
        benchmark::RegisterBenchmark((w.name + "/memcpy").c_str(), run_parts_memcpy, std::cref(w))->UseManualTime();
        benchmark::RegisterBenchmark((w.name + "/dmlref").c_str(), run_parts, std::cref(w))->UseManualTime();
    }
}

} // namespace dmlref_bench
