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

#include "detail/execute.hpp"
#include "operator.hpp"

namespace dmlref {

/// How execute() runs. The result never depends on it.
///
/// Both fields are requests with bounds: a call never starts more threads than the machine runs at
/// once (std::thread::hardware_concurrency(), read once; where it reports 0, unknown, the calling
/// thread works alone rather than guess), and never gives a thread less than
/// min_thread_bytes (64 KiB) of output whatever min_bytes_per_thread says, so a thread_count of
/// 100,000 over a small output neither starts a thread per row nor allocates their stacks.
struct execution_options {
    /// Threads that split the output's outer rows, the calling thread included; 0 and 1 both
    /// mean the calling thread alone.
    std::size_t thread_count = 1;
    /// Output bytes each thread gets at least (0: the 64 KiB floor alone): outputs smaller than
    /// `thread_count` times this run on fewer threads, and under twice this on the calling thread
    /// alone. On small outputs, starting a thread and its core reading what another core's caches
    /// hold cost more than the split saves. The default, 4 MiB, is where two threads started to
    /// pay in bench/bench_threads.cpp on a 2-core VM (bench/README.md): medians of 3 runs, two
    /// threads ran each of 20 outputs of 4 MiB or less at 0.12-0.89x the speed of one, and 15 of
    /// 16 outputs of 8 to 32 MiB at 1.04-1.52x (the 16th at 0.90x).
    std::size_t min_bytes_per_thread = std::size_t{4} << 20;
};

/// The least output a thread is given, whatever execution_options::min_bytes_per_thread says: a
/// thread's start costs tens of microseconds and a stack, which 64 KiB of copying does not repay.
inline constexpr std::size_t min_thread_bytes = std::size_t{64} << 10;

namespace detail {

/// The threads the machine runs at once, read once (hardware_concurrency() can read a file each
/// call); 0 where it is unknown.
inline std::size_t hardware_threads() noexcept {
    static const std::size_t threads = std::thread::hardware_concurrency();
    return threads;
}

/// How many parts (threads, the calling one included) execute() splits `p` into: at most
/// `options.thread_count`, the plan's rows, `cores` (0, unknown, counts as 1) and one part per
/// min_thread_bytes or per `options.min_bytes_per_thread` of output, whichever is larger; at least 1.
inline std::size_t thread_parts(const prepared_plan& p, const execution_options& options,
                                std::size_t cores = hardware_threads()) noexcept {
    std::size_t parts = options.thread_count;
    if (parts > static_cast<std::size_t>(p.rows)) parts = static_cast<std::size_t>(p.rows);
    if (parts > cores) parts = cores;
    const std::size_t floor = options.min_bytes_per_thread > min_thread_bytes ? options.min_bytes_per_thread
                                                                              : min_thread_bytes;
    if (parts > p.bytes / floor) parts = p.bytes / floor;
    return parts < 1 ? 1 : parts;
}

/// Runs a prepared plan split into `parts` runs of rows (at most one a row), each on its own
/// thread, the calling thread one of them, with no bound but the rows: tests split small outputs
/// with it. When a thread cannot be started, the calling thread does its part.
inline void execute_parts(const prepared_plan& p, std::size_t parts) {
    if (parts > static_cast<std::size_t>(p.rows)) parts = static_cast<std::size_t>(p.rows);
    if (parts <= 1) return execute_part(p, 0, p.rows);

    const auto rows = static_cast<std::size_t>(p.rows);
    // rows * part / parts without forming rows * part (rows may reach 2^57; r * part < parts^2).
    const std::size_t q = rows / parts, r = rows % parts;
    auto bound = [&](std::size_t part) { return static_cast<std::ptrdiff_t>(q * part + r * part / parts); };
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

/// Runs a plan over thread_parts() threads, the calling thread one of them.
inline void execute(const copy_plan& plan, const execution_options& options) {
    for_each_stage(plan, [&](const copy_plan& stage) {
        const prepared_plan p = prepare(stage);
        execute_parts(p, thread_parts(p, options));
    });
}

} // namespace detail

/// execute() with `options`: the same checks, the same result, the rows split over threads.
inline void execute(const operator_desc& desc, std::span<const std::byte> input, std::span<std::byte> output,
                    execution_options options, feature_level level = newest_feature_level) {
    if (!binds_one_input_and_output(type_of(desc))) return execute(desc, input, output, level); // one thread
    std::vector<std::ptrdiff_t> tables;
    detail::execute(detail::checked_plan(desc, input, output, level, tables), options);
}

/// execute() over one buffer per tensor with `options`: a desc with one input and one output splits
/// its rows over threads as above; JOIN, SPLIT and REVERSE_SUBSEQUENCES run on the calling thread.
inline void execute(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                    std::span<const std::span<std::byte>> outputs, execution_options options,
                    feature_level level = newest_feature_level) {
    if (!binds_one_input_and_output(type_of(desc))) return execute(desc, inputs, outputs, level);
    detail::throw_if(validate(desc, inputs, outputs, level));
    execute(desc, inputs[0], outputs[0], options, level);
}

} // namespace dmlref
