#pragma once
/// \file execute.hpp
/// Running a plan: the copy engine's entry point, execute(), and the row walk under it, which runs
/// any range of a prepared plan's rows (execute_part(): parallel.hpp gives each thread one).
///
/// How it is fast (prepare() and execute_rows() below): extent-1 axes vanish, axes are ordered by
/// output stride and merged where contiguous in both tensors, and the innermost one or two axes
/// become a row kernel chosen once per plan: memcpy for contiguous runs, reversed runs, stride-2
/// runs, the interleave of depth to space and the de-interleave of space to depth (B = 2 to 4),
/// cache-line blocks of transposing copies (any width) in vector tiles, gathers through padding tables,
/// fills, and a plain strided loop for everything else. The
/// kernels compilers do not vectorize at -O2 use 16-byte vector shuffles (GCC 12+, Clang), and
/// interleaves of 3 or 4 rows SSSE3 byte shuffles or AVX-512 VBMI byte permutes where the processor
/// has them (x86-64; VBMI with GCC). Outputs
/// larger than the caches use streaming stores (x86-64), and rows far apart in inputs larger than
/// the caches are prefetched a few rows ahead. Nothing allocates: scratch is O(rank).

#include <cstddef>

#include "plan.hpp"
#include "prepare.hpp"
#include "row_kernels.hpp"
#include "x86.hpp"

namespace dmlref::detail {

/// Runs rows [first_row, last_row) of a prepared plan through the kernels `k` chosen for it. A row
/// is one call of the inner kernel. The fastest outer axis is walked by pointer steps in a loop
/// chosen once per plan; the other outer axes by an odometer. The walk is the same for every width
/// (one copy of it, not four).
inline void execute_rows(const prepared_plan& p, const width_kernels k, std::ptrdiff_t first_row,
                         std::ptrdiff_t last_row) noexcept {
    const copy_plan& plan = p.plan;
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    auto any_row = [&](std::byte* out, const std::byte* in, bool fill) { k.any(p, out, in, fill); };
    const rows_fn rows = k.rows;
    if (p.outer_rank == 0) {
        // One row: a whole 2-D shape (a rank-2 transpose, say) still goes through its kernel.
        if (p.shape == inner_shape::rows || p.all_fill) return any_row(plan.output, plan.input, p.all_fill);
        return rows(p, plan.output, plan.input, {1, 0, 0});
    }

    // Axes [0, lead) move by odometer; their cumulative input/output offsets and fill state at
    // the current coordinate are kept per axis. Axis `lead` is the tight loop. Where it and the
    // axis outside it are both affine, whole runs of it go to the row loop together: a short lead
    // axis then costs no odometer step per run. (Depth to space and space to depth walk B block
    // rows a run where they go in input order. Benchmark runs alternating, f32 at 4 MiB, ratio to
    // memcpy: space to depth CRD block 3 0.49-0.53x run by run, 0.49-0.58x (6 of 7 runs 0.54 or
    // more) in sets; block 2 0.62-0.72x and 0.73-0.90x; depth to space block 2 0.78-0.83x and
    // 0.88-0.95x. At 64 MiB no change.)
    const std::size_t lead = p.outer_rank - 1;
    const axis_plan& lead_axis = plan.axes[lead];
    const bool paired = lead > 0 && lead_axis.single_affine() && plan.axes[lead - 1].single_affine();
    std::array<std::ptrdiff_t, max_plan_rank> coord{}, in_at{}, out_at{};
    std::array<bool, max_plan_rank> fill_at{};
    auto settle = [&](std::size_t from) {
        for (std::size_t a = from; a < lead; ++a) {
            std::ptrdiff_t offset = 0;
            const bool inside = input_offset(plan.axes[a], coord[a], offset);
            in_at[a] = (a > 0 ? in_at[a - 1] : 0) + offset;
            out_at[a] = (a > 0 ? out_at[a - 1] : 0) + coord[a] * plan.axes[a].out_stride;
            fill_at[a] = (a > 0 && fill_at[a - 1]) || !inside;
        }
    };
    std::ptrdiff_t rest = first_row;
    for (std::size_t a = p.outer_rank; a-- > 0;) {
        coord[a] = rest % plan.axes[a].extent;
        rest /= plan.axes[a].extent;
    }
    settle(0);

    for (std::ptrdiff_t done = first_row; done < last_row;) {
        const std::ptrdiff_t in_base = lead > 0 ? in_at[lead - 1] : 0;
        const std::ptrdiff_t out_base = lead > 0 ? out_at[lead - 1] : 0;
        const bool base_fill = p.all_fill || (lead > 0 && fill_at[lead - 1]);
        const std::ptrdiff_t first = coord[lead];
        const std::ptrdiff_t end = last_row - done < lead_axis.extent - first ? first + (last_row - done) : lead_axis.extent;
        std::ptrdiff_t sets = 1; // whole runs of the lead axis, along the axis outside it, for one call
        if (paired && first == 0 && !base_fill) {
            const std::ptrdiff_t whole = (last_row - done) / lead_axis.extent, left = plan.axes[lead - 1].extent - coord[lead - 1];
            sets = whole < left ? whole : left;
        }
        if (sets > 1) {
            const axis_plan& outer = plan.axes[lead - 1];
            rows(p, plan.output + out_base * w, plan.input + (in_base + lead_axis.pieces[0].start) * w,
                 {lead_axis.extent, lead_axis.out_stride * w, lead_axis.pieces[0].step * w, sets, outer.out_stride * w,
                  outer.pieces[0].step * w});
            coord[lead - 1] += sets - 1; // the odometer below takes it to the next set
        } else if (!base_fill) {
            // Rows [first, end) piece by piece: the affine pieces (the whole axis, or the rows
            // between pads) through the plan's row loop, fill and table rows one by one.
            const std::ptrdiff_t out_step = lead_axis.out_stride * w;
            std::ptrdiff_t j = first, piece_first = 0;
            for (std::size_t n = 0; n < lead_axis.piece_count && j < end; ++n) {
                const piece& pc = lead_axis.pieces[n];
                const std::ptrdiff_t stop = piece_first + pc.count < end ? piece_first + pc.count : end;
                if (j < stop && pc.how == piece::kind::affine) {
                    rows(p, plan.output + out_base * w + j * out_step,
                         plan.input + (in_base + pc.start + (j - piece_first) * pc.step) * w,
                         {stop - j, out_step, pc.step * w});
                } else {
                    const bool fill = pc.how == piece::kind::fill;
                    const std::ptrdiff_t period = fill ? 1 : table_length(pc);
                    for (std::ptrdiff_t r = j, at = (j - piece_first) % period; r < stop; ++r) {
                        const std::ptrdiff_t offset = fill ? 0 : pc.offsets[at];
                        any_row(plan.output + out_base * w + r * out_step, plan.input + (in_base + offset) * w, fill);
                        at = at + 1 == period ? 0 : at + 1;
                    }
                }
                j = stop > j ? stop : j;
                piece_first += pc.count;
            }
        } else {
            for (std::ptrdiff_t j = first; j < end; ++j)
                any_row(plan.output + (out_base + j * lead_axis.out_stride) * w, plan.input + in_base * w, true);
        }
        done += sets > 1 ? sets * lead_axis.extent : end - first;
        coord[lead] = 0;

        std::size_t a = lead; // odometer over axes [0, lead)
        while (a > 0) {
            --a;
            if (++coord[a] < plan.axes[a].extent) break;
            coord[a] = 0;
        }
        settle(a);
    }
}

inline void execute_part(const prepared_plan& p, const width_kernels k, std::ptrdiff_t first_row,
                         std::ptrdiff_t last_row) noexcept {
    execute_rows(p, k, first_row, last_row);
#if DMLREF_STREAM_STORES
    if (p.stream) stream_fence();
#endif
}

/// The kernels of the plan's width, whichever it is (1, 2, 4 or 8 bytes).
inline width_kernels kernels_of(const prepared_plan& p) noexcept {
    switch (p.plan.width) {
    case 1: return kernels_for<1>(p);
    case 2: return kernels_for<2>(p);
    case 4: return kernels_for<4>(p);
    default: return kernels_for<8>(p);
    }
}

/// Runs rows [first_row, last_row) of a prepared plan (parallel.hpp gives each thread one range).
inline void execute_part(const prepared_plan& p, std::ptrdiff_t first_row, std::ptrdiff_t last_row) noexcept {
    execute_part(p, kernels_of(p), first_row, last_row);
}

/// Runs a plan on the calling thread. Every input offset the plan names must lie inside the input
/// buffer and every output offset inside the output buffer; the callers guarantee it.
DMLREF_FUNC void execute(const copy_plan& plan) noexcept
#if DMLREF_DEFINE_FUNCS
{
    for_each_stage(plan, [](const copy_plan& stage) {
        const prepared_plan p = prepare(stage);
        execute_part(p, 0, p.rows);
    });
}
#else
;
#endif

/// execute() for a plan whose width is `Width` bytes, compiling that width's kernels alone: the
/// typed entry points of a header-only build, whose element type fixes the width, call this (a
/// typed op then builds in about half the time: bench/README.md).
template <std::size_t Width> void execute_of_width(const copy_plan& plan) noexcept {
    for_each_stage(plan, [](const copy_plan& stage) {
        const prepared_plan p = prepare(stage);
        execute_part(p, kernels_for<Width>(p), 0, p.rows);
    });
}

} // namespace dmlref::detail
