#pragma once
/// \file parallel.hpp
/// Opt-in threads for the desc-level execute: the output's outer rows split into contiguous
/// parts, one per thread. A separate header because <thread> costs every includer compile time;
/// dmlref.hpp does not include it.
///
///   dmlref::execute(desc, input, output, dmlref::execution_options{2});

#include <cstddef>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include "operator.hpp"

namespace dmlref {

/// How execute() runs. The result never depends on it.
struct execution_options {
    /// Threads that split the output's outer rows, the calling thread included; 0 and 1 both
    /// mean the calling thread alone.
    std::size_t thread_count = 1;
    /// Output bytes each thread gets at least (0: no minimum): outputs smaller than
    /// `thread_count` times this run on fewer threads, and under twice this on the calling thread
    /// alone. On small outputs, starting a thread and its core reading what another core's caches
    /// hold cost more than the split saves. The default, 4 MiB, is where two threads started to
    /// pay in bench/bench_threads.cpp on a 2-core VM (bench/README.md): medians of 3 runs, two
    /// threads ran each of 20 outputs of 4 MiB or less at 0.12-0.89x the speed of one, and 15 of
    /// 16 outputs of 8 to 32 MiB at 1.04-1.52x (the 16th at 0.90x).
    std::size_t min_bytes_per_thread = std::size_t{4} << 20;
};

namespace detail {

/// Runs a plan over up to `options.thread_count` threads, the calling thread one of them. When a
/// thread cannot be started, the calling thread does its part.
inline void execute(const copy_plan& plan, const execution_options& options) {
    const prepared_plan p = prepare(plan);
    std::size_t parts = options.thread_count;
    if (parts > static_cast<std::size_t>(p.rows)) parts = static_cast<std::size_t>(p.rows);
    const std::size_t fit = options.min_bytes_per_thread > 0 ? p.bytes / options.min_bytes_per_thread : parts;
    if (parts > fit) parts = fit;
    if (parts <= 1) return execute_part(p, 0, p.rows);

    const auto rows = static_cast<std::size_t>(p.rows);
    auto bound = [&](std::size_t part) { return static_cast<std::ptrdiff_t>(rows * part / parts); };
    std::vector<std::thread> workers;
    workers.reserve(parts - 1);
    for (std::size_t part = 1; part < parts; ++part) {
        try {
            workers.emplace_back([&p, first = bound(part), last = bound(part + 1)] { execute_part(p, first, last); });
        } catch (const std::system_error&) {
            execute_part(p, bound(part), bound(part + 1));
        }
    }
    execute_part(p, 0, bound(1));
    for (std::thread& worker : workers) worker.join();
}

} // namespace detail

/// execute() with `options`: the same checks, the same result, the rows split over threads.
inline void execute(const operator_desc& desc, std::span<const std::byte> input, std::span<std::byte> output,
                    execution_options options, feature_level level = newest_feature_level) {
    std::vector<std::ptrdiff_t> tables;
    detail::execute(detail::checked_plan(desc, input, output, level, tables), options);
}

} // namespace dmlref
