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
    /// mean the calling thread alone. Small outputs (under 256 KiB per thread) use fewer.
    std::size_t thread_count = 1;
};

namespace detail {

/// Below this many output bytes per thread a plan uses fewer threads.
inline constexpr std::size_t min_bytes_per_thread = std::size_t{1} << 18;

/// Runs a plan over up to `thread_count` threads, the calling thread one of them. When a thread
/// cannot be started, the calling thread does its part.
inline void execute(const copy_plan& plan, std::size_t thread_count) {
    const prepared_plan p = prepare(plan);
    std::size_t bytes = plan.width;
    for (std::size_t a = 0; a < plan.rank; ++a) bytes *= static_cast<std::size_t>(plan.axes[a].extent);
    std::size_t parts = thread_count;
    if (parts > static_cast<std::size_t>(p.rows)) parts = static_cast<std::size_t>(p.rows);
    if (parts > bytes / min_bytes_per_thread) parts = bytes / min_bytes_per_thread;
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
    detail::execute(detail::checked_plan(desc, input, output, level, tables), options.thread_count);
}

} // namespace dmlref
