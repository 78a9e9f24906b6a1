#pragma once
/// \file prepare.hpp
/// Preparing a plan to run: extent-1 axes vanish, axes are ordered by output stride and merged
/// where contiguous in both tensors, the inner kernel is chosen (prepare()), and the choices that
/// depend on the output's size are made (streaming stores, prefetching).

#include <cstddef>
#include <cstdint>

#include "plan.hpp"
#include "x86.hpp"

namespace dmlref::detail {

/// How the innermost loop of a prepared plan moves elements.
enum class inner_shape : std::uint8_t {
    rows,         ///< the innermost axis, piece by piece
    interleave,   ///< the two innermost axes: B input rows zipped into one output row
    deinterleave, ///< the two innermost axes: one input row dealt into B output rows
    transpose,    ///< the innermost axes: a run contiguous in the input by a run contiguous in the output, in blocks
};

/// A plan made ready to run: simplified, its loops ordered, its inner kernel chosen.
struct prepared_plan {
    copy_plan plan;
    bool all_fill = false;
    inner_shape shape = inner_shape::rows;
    std::ptrdiff_t block = 0;   ///< interleave factor B
    std::size_t outer_rank = 0; ///< axes [0, outer_rank) are walked row by row
    std::ptrdiff_t rows = 1;    ///< product of the outer extents
    std::size_t bytes = 0;      ///< the output's bytes: every extent times the width
    bool stream = false;        ///< write with streaming stores (outputs larger than the caches)
    bool stream_runs = false;   ///< contiguous runs too (outputs of run_stream_threshold and more)
    /// Software prefetch of the input row `ahead` rows on (0: none): its `span` bytes from
    /// `first` bytes off the row's input pointer.
    std::ptrdiff_t ahead = 0, first = 0, span = 0;
    /// Transposes: the kernel walks the innermost in_run + out_run axes. Axes [rank - out_run, rank)
    /// lie in sequence in the output (outermost first; the last has output stride 1), axes
    /// [rank - out_run - in_run, rank - out_run) in sequence in the input (the last has step 1).
    std::size_t in_run = 0, out_run = 0;
    /// Transposes: the bytes from the input origin to the end of the last element the plan reads
    /// (the kernel's vectors may read past a run's elements, never past this).
    std::ptrdiff_t in_reach = 0;
};

/// Outputs of at least this many bytes are written with streaming stores where the target has them.
inline constexpr std::size_t stream_threshold = std::size_t{16} << 20;

/// Outputs of at least this many bytes write their contiguous runs with streaming stores too: twice
/// the other kernels' threshold, past the last-level cache a core has (32 MiB on this machine).
/// (Alternating runs, ratio to memcpy: PADDING1 CONSTANT at 64 MiB, 66 MiB out, 4-byte elements
/// 0.94-1.01x through the cache and 1.16-1.17x streamed, CONSTANT and WRAP at every width
/// 0.93-1.07x and 1.03-1.29x; a SLICE1 trimming W by one at 64 MiB 0.93-0.95x and 1.13-1.18x. The
/// centred window's 16 MiB output streamed ran 0.66-0.71x against 0.76-0.82x through the cache.)
inline constexpr std::size_t run_stream_threshold = std::size_t{32} << 20;

/// How far ahead, in input bytes, rows are prefetched.
inline constexpr std::ptrdiff_t prefetch_distance = 4096;

/// The bytes one prefetch fetches (a cache line).
inline constexpr std::ptrdiff_t prefetch_line = 64;

inline constexpr std::ptrdiff_t max_interleave = 4; ///< larger blocks run as strided rows

/// Output rows spread over more bytes than this share a core's cache poorly (its L2: 1 MiB on this
/// machine's cores, 256 KiB to 2 MiB elsewhere). Measured in space to depth: see prepare().
inline constexpr std::ptrdiff_t far_apart = std::ptrdiff_t{512} << 10;

/// Space to depth walked row by row reads its input in B passes; it does so a tile of about this
/// many input bytes at a time, so that a tile's later passes find it in the cache (see prepare()).
inline constexpr std::ptrdiff_t pass_tile = std::ptrdiff_t{1} << 20;

/// A divisor of `extent` in [target / 2, target] (target >= 1), or 0 when none is (found within a
/// bounded search, so that planning stays cheap).
inline std::ptrdiff_t divisor_near(std::ptrdiff_t extent, std::ptrdiff_t target) noexcept {
    for (std::ptrdiff_t t = target, tries = 0; t >= 1 && 2 * t >= target && tries < 4096; --t, ++tries)
        if (extent % t == 0) return t;
    return 0;
}

/// Moves axis `a` of `plan` to just outside its innermost axis, axis `last`; the axes between
/// move out by one, in their order. Returns the moved axis.
inline axis_plan move_beside_inner(copy_plan& plan, std::size_t a, std::size_t last) noexcept {
    const axis_plan moved = plan.axes[a];
    for (std::size_t b = a; b + 1 < last; ++b) plan.axes[b] = plan.axes[b + 1];
    plan.axes[last - 1] = moved;
    return moved;
}

/// |v|: strides and steps are signed.
constexpr std::ptrdiff_t magnitude(std::ptrdiff_t v) noexcept { return v < 0 ? -v : v; }

/// Step 1: extent-1 axes go, their input offset folded into the input origin, and single-affine
/// axes start at the origin, so that the later steps compare steps and strides alone. An extent-1
/// axis whose one coordinate is a fill makes every element a fill (all_fill). A plan left with
/// no axis is one element.
inline void drop_unit_axes(prepared_plan& p) noexcept {
    copy_plan& plan = p.plan;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        std::ptrdiff_t offset = 0;
        if (plan.axes[a].extent == 1 && !input_offset(plan.axes[a], 0, offset)) p.all_fill = true;
    }
    std::size_t kept = 0;
    std::ptrdiff_t origin = 0;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        axis_plan axis = plan.axes[a];
        if (axis.extent == 1) {
            std::ptrdiff_t offset = 0;
            if (input_offset(axis, 0, offset)) origin += offset;
            continue;
        }
        if (p.all_fill) {
            axis.piece_count = 0;
            axis.add({piece::kind::fill, axis.extent, 0, 0, nullptr, 0});
        } else if (axis.single_affine()) {
            origin += axis.pieces[0].start;
            axis.pieces[0].start = 0;
        }
        plan.axes[kept++] = axis;
    }
    if (!p.all_fill) plan.input += origin * static_cast<std::ptrdiff_t>(plan.width);
    if (kept == 0) { // one element
        plan.axes[0] = axis_plan::affine(1, 0, 0, 0);
        if (p.all_fill) {
            plan.axes[0].piece_count = 0;
            plan.axes[0].add({piece::kind::fill, 1, 0, 0, nullptr, 0});
        }
        kept = 1;
    }
    plan.rank = kept;
}

/// Step 2: axes in the order of their output strides, largest outermost (stable), so that the
/// output is walked in memory order: the order every later step starts from.
inline void order_by_output_stride(copy_plan& plan) noexcept {
    for (std::size_t a = 1; a < plan.rank; ++a) // insertion sort, at most 8 axes
        for (std::size_t b = a; b > 0 && magnitude(plan.axes[b].out_stride) > magnitude(plan.axes[b - 1].out_stride); --b)
            std::swap(plan.axes[b], plan.axes[b - 1]);
}

/// Step 3: neighbouring single-affine axes contiguous in both tensors become one axis: longer rows
/// for the kernels, fewer steps for the odometer.
inline void merge_contiguous_axes(copy_plan& plan) noexcept {
    std::size_t kept = 1;
    for (std::size_t a = 1; a < plan.rank; ++a) {
        const axis_plan& axis = plan.axes[a];
        axis_plan& outer = plan.axes[kept - 1];
        if (axis.single_affine() && outer.single_affine() && outer.out_stride == axis.extent * axis.out_stride &&
            outer.pieces[0].step == axis.extent * axis.pieces[0].step) {
            outer.extent *= axis.extent;
            outer.out_stride = axis.out_stride;
            outer.pieces[0] = {piece::kind::affine, outer.extent, 0, axis.pieces[0].step, nullptr, 0};
            continue;
        }
        plan.axes[kept++] = axis;
    }
    plan.rank = kept;
}

/// Whether B rows are few enough for the interleave kernels.
constexpr bool small_block(std::ptrdiff_t b) noexcept { return b >= 2 && b <= max_interleave; }

/// Step 4a: depth to space's inner pair. An output row of B = 2 to 4 elements, each from its own
/// input row, whose next axis reads those rows in sequence: the interleave kernel zips the B rows.
inline void choose_interleave(prepared_plan& p) noexcept {
    const copy_plan& plan = p.plan;
    if (plan.rank < 2) return;
    const axis_plan& inner = plan.axes[plan.rank - 1];
    const axis_plan& next = plan.axes[plan.rank - 2];
    if (inner.single_affine() && inner.out_stride == 1 && small_block(inner.extent) && next.single_affine() &&
        next.pieces[0].step == 1 && next.out_stride == inner.extent) {
        p.shape = inner_shape::interleave;
        p.block = inner.extent;
    }
}

/// Step 4b: space to depth's inner pair. An output row that reads every B-th input element (B = 2
/// to 4), and an axis of B that reads the elements between: the pair moves innermost and the
/// de-interleave kernel deals one input row into B output rows. Then the order of the walk
/// around it (below).
inline void choose_deinterleave(prepared_plan& p) noexcept {
    copy_plan& plan = p.plan;
    if (p.shape != inner_shape::rows || plan.rank < 2) return;
    const std::size_t last = plan.rank - 1;
    const axis_plan& inner = plan.axes[last];
    if (!inner.single_affine() || inner.out_stride != 1 || !small_block(inner.pieces[0].step)) return;
    for (std::size_t a = 0; a < last; ++a) {
        const axis_plan& k = plan.axes[a];
        if (k.single_affine() && k.extent == inner.pieces[0].step && k.pieces[0].step == 1) {
            const axis_plan moved = move_beside_inner(plan, a, last);
            p.shape = inner_shape::deinterleave;
            p.block = moved.extent;
            // The outer walk goes in input order, so each input row is read once, in
            // sequence, and B * B output rows (B * B * row step bytes apart at most) are
            // written at a time. Where B > 2 and those rows spread beyond a core's cache, the
            // lead axis (the output rows) stays innermost instead: B rows are written at a
            // time, each call continuing the last call's, and the input is read in B passes
            // of every B-th row, prefetched. (Block 3, f32, medians of alternating runs: DCR
            // at 64 MiB 0.64-0.71x memcpy in input order, 0.83-0.85x row by row; at 4 MiB
            // 0.40-0.48x and 0.55-0.62x. CRD at 4 MiB, rows 7 KiB apart: 0.55-0.68x in input
            // order, 0.47x row by row. Block 2 row by row at 64 MiB: 0.63-0.79x against 0.88-1.07x.)
            const std::ptrdiff_t spread = p.block * p.block * magnitude(moved.out_stride) *
                                          static_cast<std::ptrdiff_t>(plan.width);
            const bool by_output_rows = p.block > 2 && spread > far_apart && last >= 2;
            std::size_t walked = by_output_rows ? last - 2 : last - 1;
            // Where the output rows' axis spans the whole input (DCR, whose channels and rows
            // merge into it), the B passes would each cross the whole input. It splits into
            // tiles of about pass_tile input bytes, walked outside the passes, so that a
            // tile's later passes read it from the cache, as CRD's channel axis does. (DCR
            // with block 3 at 64 MiB, medians of alternating runs: 0.42-0.47x memcpy untiled
            // against 0.70-0.84x tiled for 1-byte elements, 0.57-0.59x and 0.82-0.92x for
            // 2-byte, 0.83-0.85x and 0.89-0.95x for 4-byte; 512 KiB and 2 MiB tiles ran
            // alike, 4 MiB ones slower.)
            if (by_output_rows && plan.rank < max_plan_rank && plan.axes[walked].single_affine()) {
                const axis_plan rows = plan.axes[walked];
                const std::ptrdiff_t row_bytes = magnitude(rows.pieces[0].step) * static_cast<std::ptrdiff_t>(plan.width);
                const std::ptrdiff_t target = row_bytes > 0 ? pass_tile / row_bytes : 0; // 0: broadcast rows
                const std::ptrdiff_t tile = target >= 2 ? divisor_near(rows.extent, target) : 0;
                if (tile >= 2 && tile < rows.extent) {
                    for (std::size_t b = plan.rank; b > walked; --b) plan.axes[b] = plan.axes[b - 1];
                    ++plan.rank;
                    plan.axes[walked] = axis_plan::affine(rows.extent / tile, tile * rows.out_stride, 0,
                                                          tile * rows.pieces[0].step);
                    plan.axes[walked + 1].extent = tile;
                    plan.axes[walked + 1].pieces[0].count = tile;
                    ++walked;
                }
            }
            for (std::size_t c = 1; c < walked; ++c)
                for (std::size_t d = c; d > 0 && magnitude(plan.axes[d].pieces[0].step) >
                                                     magnitude(plan.axes[d - 1].pieces[0].step); --d)
                    std::swap(plan.axes[d], plan.axes[d - 1]);
            return;
        }
    }
}

/// A transpose's runs grow until they span this many bytes: the axes past them are better walked
/// outside the block, or in the other run, where they may lie near in their tensor.
inline constexpr std::ptrdiff_t transpose_run = 4096;

/// A transpose's output run takes axes past holes only while its rows (the segments between the
/// holes) are shorter than this many bytes: it then writes them through the cache, whose lines
/// they share with the holes, and longer rows stream their whole lines instead (extend_output_run()).
inline constexpr std::ptrdiff_t short_output_rows = 256;

/// Appends to `chain` the axes that continue it in the output: the axis of least output stride
/// not below the span of the chain so far (from its first element to its last, inclusive). Where
/// the chain's first axis is short, also past a gap under a line: padded pitches then leave
/// holes in the run, which the kernel never writes. Single-affine axes not yet `taken` only, until
/// the run spans transpose_run bytes.
inline void extend_output_run(const copy_plan& plan, std::array<std::size_t, max_plan_rank>& chain, std::size_t& length,
                              std::array<bool, max_plan_rank>& taken) noexcept {
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    std::ptrdiff_t span = plan.axes[chain[0]].extent;
    const std::ptrdiff_t gap = span * w < short_output_rows ? prefetch_line : 1; // in bytes: under it
    while (span * w < transpose_run) {
        std::size_t best = plan.rank;
        for (std::size_t a = 0; a < plan.rank; ++a) {
            const axis_plan& k = plan.axes[a];
            if (!taken[a] && k.single_affine() && k.out_stride >= span && (best == plan.rank || k.out_stride < plan.axes[best].out_stride))
                best = a;
        }
        if (best == plan.rank || (plan.axes[best].out_stride - span) * w >= gap) return;
        chain[length++] = best;
        taken[best] = true;
        span += (plan.axes[best].extent - 1) * plan.axes[best].out_stride;
    }
}

/// An input run shorter than this many bytes lets a short output run widen (widen_short_output_run()).
inline constexpr std::ptrdiff_t short_input_run = 1024;

/// Appends to a short output run (its elements under short_output_rows bytes) the axes nearest in
/// the output, whatever the gaps, until it is not: the holes cost nothing (the stage holds
/// elements, and no byte of a hole is written), and a block of a few dozen elements cost more to
/// set up than to move (a float64 transpose whose output rows are 2 elements in a pitch of 10, its
/// input's run 40 elements: 65 to 22 ms, single runs on a loaded host). Where the input's run is
/// long, it reads that many more input rows at a time, each a stream of its own, where a few long
/// ones read faster (a float64 one of output rows of 3 and an input run of 1410: 12 to 25 ms):
/// the caller widens only beside input runs under short_input_run bytes.
inline void widen_short_output_run(const copy_plan& plan, std::array<std::size_t, max_plan_rank>& chain,
                                   std::size_t& length, std::array<bool, max_plan_rank>& taken) noexcept {
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    std::ptrdiff_t elements = 1;
    for (std::size_t k = 0; k < length; ++k) elements *= plan.axes[chain[k]].extent;
    while (elements * w < short_output_rows) {
        std::size_t best = plan.rank;
        for (std::size_t a = 0; a < plan.rank; ++a) {
            const axis_plan& k = plan.axes[a];
            if (!taken[a] && k.single_affine() && k.out_stride > 0 &&
                (best == plan.rank || k.out_stride < plan.axes[best].out_stride))
                best = a;
        }
        if (best == plan.rank) return;
        chain[length++] = best;
        taken[best] = true;
        elements *= plan.axes[best].extent;
    }
}

/// Appends to `chain` the axes that continue it in the input: the axis of least step not below
/// the span the chain reads (its elements from the first to the last, inclusive), while the gap
/// it leaves is under a line: a pitch wider than the rows (padded layouts) leaves holes in the
/// run, which the kernel's tiles read as the input's lines hold them and never write out. Each
/// axis's coordinates then lie in sequence in the input between the holes. Until the run spans
/// transpose_run bytes; returns the span.
inline std::ptrdiff_t extend_input_run(const copy_plan& plan, std::array<std::size_t, max_plan_rank>& chain,
                                       std::size_t& length, std::array<bool, max_plan_rank>& taken) noexcept {
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    std::ptrdiff_t span = plan.axes[chain[0]].extent;
    while (span * w < transpose_run) {
        std::size_t best = plan.rank;
        for (std::size_t a = 0; a < plan.rank; ++a) {
            const axis_plan& k = plan.axes[a];
            if (!taken[a] && k.single_affine() && k.pieces[0].step >= span &&
                (best == plan.rank || k.pieces[0].step < plan.axes[best].pieces[0].step))
                best = a;
        }
        if (best == plan.rank || (plan.axes[best].pieces[0].step - span) * w >= prefetch_line) return span;
        chain[length++] = best;
        taken[best] = true;
        span += (plan.axes[best].extent - 1) * plan.axes[best].pieces[0].step;
    }
    return span;
}

/// The two runs of a transpose (choose_transpose()): plan axes, innermost first.
struct transpose_runs {
    std::array<std::size_t, max_plan_rank> out{}, in{};
    std::size_t out_length = 0, in_length = 0;
    std::array<bool, max_plan_rank> taken{};
    std::ptrdiff_t in_span = 0; ///< positions of the input's run, holes included
};

/// The runs of a transposing copy, or false where the plan is none: its output row (the innermost
/// axis, output stride 1) reads the input elements apart (|step| > 1), and another axis reads it in
/// sequence (step 1). Each run starts from its axis and grows as extend_output_run() and
/// extend_input_run() say, the output's run first; a short output run beside a short input run
/// then widens (widen_short_output_run()).
inline bool find_transpose_runs(const copy_plan& plan, transpose_runs& runs) noexcept {
    if (plan.rank < 2) return false;
    const std::size_t last = plan.rank - 1;
    const axis_plan& inner = plan.axes[last];
    if (!inner.single_affine() || inner.out_stride != 1 || magnitude(inner.pieces[0].step) < 2) return false;
    std::size_t first_in = last;
    for (std::size_t a = 0; a < last && first_in == last; ++a)
        if (plan.axes[a].single_affine() && plan.axes[a].pieces[0].step == 1) first_in = a;
    if (first_in == last) return false;
    runs.out[runs.out_length++] = last;
    runs.in[runs.in_length++] = first_in;
    runs.taken[last] = runs.taken[first_in] = true;
    extend_output_run(plan, runs.out, runs.out_length, runs.taken);
    runs.in_span = extend_input_run(plan, runs.in, runs.in_length, runs.taken);
    if (runs.in_span * static_cast<std::ptrdiff_t>(plan.width) < short_input_run)
        widen_short_output_run(plan, runs.out, runs.out_length, runs.taken);
    return true;
}

/// The axes outside the runs in output order, then the input's run and the output's run, each
/// outermost first.
inline void place_runs_innermost(prepared_plan& p, const transpose_runs& runs) noexcept {
    copy_plan& plan = p.plan;
    std::array<axis_plan, max_plan_rank> order{};
    std::size_t placed = 0;
    for (std::size_t a = 0; a < plan.rank; ++a)
        if (!runs.taken[a]) order[placed++] = plan.axes[a];
    for (std::size_t k = runs.in_length; k-- > 0;) order[placed++] = plan.axes[runs.in[k]];
    for (std::size_t k = runs.out_length; k-- > 0;) order[placed++] = plan.axes[runs.out[k]];
    plan.axes = order;
    p.shape = inner_shape::transpose;
    p.in_run = runs.in_length;
    p.out_run = runs.out_length;
}

/// Where the input's run is shorter than a line, the outer axis that reads the input nearest in
/// sequence (under a line on) goes just outside the block, so that the next blocks read the rest
/// of the lines this one fetched while they are still in the cache; in output order it would come
/// round again only after the axes between had.
inline void lead_nearest_input(prepared_plan& p, std::ptrdiff_t in_span) noexcept {
    copy_plan& plan = p.plan;
    const std::size_t outer = p.plan.rank - p.in_run - p.out_run;
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    if (outer < 2 || in_span * w >= prefetch_line) return;
    std::size_t best = outer;
    for (std::size_t a = 0; a < outer; ++a) {
        const axis_plan& k = plan.axes[a];
        const std::ptrdiff_t bytes = magnitude(k.pieces[0].step) * w;
        if (k.single_affine() && bytes > 0 && bytes < prefetch_line &&
            (best == outer || bytes < magnitude(plan.axes[best].pieces[0].step) * w))
            best = a;
    }
    if (best < outer) move_beside_inner(plan, best, outer);
}

/// The bytes from the input origin to the end of the last element a plan reads.
inline std::ptrdiff_t input_reach(const copy_plan& plan) noexcept {
    std::ptrdiff_t high = 0;
    for (std::size_t b = 0; b < plan.rank; ++b) {
        const auto [first, last_offset] = input_range(plan.axes[b]);
        high += last_offset > first ? last_offset : first;
    }
    return (high + 1) * static_cast<std::ptrdiff_t>(plan.width);
}

/// Step 4c: a transposing copy (find_transpose_runs()). Its two runs go innermost and the
/// transpose kernel moves them as one 2-D block: in vector tiles read along the input's run and
/// written along the output's, through a stage that the caches hold, so that both sides move
/// whole lines and vectors (the walk below moves one element at a time and reads a line per
/// element). Any element width. The axes outside stay in output order but for the input's
/// nearest (lead_nearest_input()).
inline void choose_transpose(prepared_plan& p) noexcept {
    transpose_runs runs;
    if (p.shape != inner_shape::rows || !find_transpose_runs(p.plan, runs)) return;
    place_runs_innermost(p, runs);
    lead_nearest_input(p, runs.in_span);
    p.in_reach = input_reach(p.plan);
}

/// Step 5: the walk around a row whose elements lie a line or more apart in the input (a copy
/// into a transposed or column-major output, depth to space with B > 4), which reads a line per
/// element. Walked in output order with the axes that read the input in sequence far outside it,
/// a line is read again only after every axis between has gone round, long out of the cache: a
/// line per element moved. Those axes (steps under a line) go just outside the row instead, the
/// smallest step innermost, so that the rows after a row read the lines it fetched; the outermost
/// of them is cut into tiles where the lines of its rows would not stay in a core's cache.
/// (SLICE1 of {1, 64, 512, 512} float32 into a column-major output, single runs on a loaded host:
/// 1.03 s in output order, 0.28-0.51 s with the axis moved, 0.04 s into a packed output.)
/// Padded axes (fills and tables beside their affine piece) move too, by their affine piece.
inline void move_dense_axes_inside(prepared_plan& p) noexcept {
    copy_plan& plan = p.plan;
    if (p.shape != inner_shape::rows || plan.rank < 3) return;
    const std::size_t last = plan.rank - 1;
    const axis_plan inner = plan.axes[last];
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    auto step_of = [&](const axis_plan& k) { // the affine piece's step in bytes, 0 for none
        for (std::size_t n = 0; n < k.piece_count; ++n)
            if (k.pieces[n].how == piece::kind::affine) return magnitude(k.pieces[n].step) * w;
        return std::ptrdiff_t{0};
    };
    auto dense = [&](const axis_plan& k) { return step_of(k) > 0 && step_of(k) < prefetch_line; };
    std::array<axis_plan, max_plan_rank> order{};
    std::size_t placed = 0, moved_count = 0;
    for (std::size_t a = 0; a < last; ++a)
        if (!dense(plan.axes[a])) order[placed++] = plan.axes[a];
    const std::size_t first_moved = placed;
    for (std::size_t a = 0; a < last; ++a)
        if (dense(plan.axes[a])) {
            order[placed++] = plan.axes[a];
            ++moved_count;
        }
    for (std::size_t c = first_moved + 1; c < placed; ++c) // steps descending, stable
        for (std::size_t d = c; d > first_moved && step_of(order[d]) > step_of(order[d - 1]); --d)
            std::swap(order[d], order[d - 1]);
    bool changed = false;
    for (std::size_t a = 0; a < last; ++a)
        changed = changed || order[a].out_stride != plan.axes[a].out_stride || order[a].extent != plan.axes[a].extent;
    if (moved_count == 0 || step_of(inner) < prefetch_line || !changed) return;
    for (std::size_t a = 0; a < last; ++a) plan.axes[a] = order[a];
    // The lines a run of the moved axes reads: a line per element of the row for each line of
    // their input (at most).
    const axis_plan outer_moved = plan.axes[first_moved];
    std::ptrdiff_t span = 1;
    for (std::size_t a = first_moved; a < last; ++a) span += (plan.axes[a].extent - 1) * step_of(plan.axes[a]);
    const std::ptrdiff_t lines = (span + prefetch_line - 1) / prefetch_line;
    const std::ptrdiff_t inner_lines = span / outer_moved.extent / prefetch_line + 1; // per element of it
    const std::ptrdiff_t target = far_apart / (inner.extent * prefetch_line * inner_lines);
    if (lines * inner.extent * prefetch_line > far_apart && target >= 2 && plan.rank < max_plan_rank &&
        outer_moved.single_affine()) {
        const std::ptrdiff_t tile = divisor_near(outer_moved.extent, target);
        if (tile >= 2 && tile < outer_moved.extent) {
            for (std::size_t a = plan.rank; a > first_moved; --a) plan.axes[a] = plan.axes[a - 1];
            ++plan.rank;
            plan.axes[first_moved] = axis_plan::affine(outer_moved.extent / tile, tile * outer_moved.out_stride, 0,
                                                       tile * outer_moved.pieces[0].step);
            axis_plan& cut = plan.axes[first_moved + 1];
            cut.extent = tile;
            cut.pieces[0].count = tile;
        }
    }
    // The row's elements often lie a power of two apart (planes of a packed input), all in one
    // set of the caches, whose ways they outnumber. Rows of 8 to 16 elements keep those lines few
    // enough to stay while the moved axes walk them (the case above, float32: 0.51 s with whole
    // rows of 64, 0.18-0.23 s with rows of 4 to 16, 0.28 s with rows of 32). The rows' tiles go
    // outside the moved axes.
    const std::size_t in_at = plan.rank - 1;
    const axis_plan row = plan.axes[in_at];
    const std::ptrdiff_t short_row = divisor_near(row.extent, 16);
    if (short_row >= 2 && short_row < row.extent && plan.rank < max_plan_rank && row.single_affine()) {
        for (std::size_t a = in_at; a > first_moved; --a) plan.axes[a] = plan.axes[a - 1];
        plan.axes[first_moved] = axis_plan::affine(row.extent / short_row, short_row * row.out_stride, 0,
                                                   short_row * row.pieces[0].step);
        plan.axes[in_at + 1] = row;
        plan.axes[in_at + 1].extent = short_row;
        plan.axes[in_at + 1].pieces[0].count = short_row;
        ++plan.rank;
    }
}

/// Step 6: the walk's size (rows for the odometer, bytes of output) and the choices that depend
/// on it: streaming stores for outputs larger than the caches (contiguous runs from a larger size
/// on, see run_stream_threshold).
inline void count_rows_and_bytes(prepared_plan& p) noexcept {
    const copy_plan& plan = p.plan;
    p.outer_rank = p.shape == inner_shape::rows        ? plan.rank - 1
                   : p.shape == inner_shape::transpose ? plan.rank - p.in_run - p.out_run
                                                       : plan.rank - 2;
    p.bytes = plan.width;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        p.bytes *= static_cast<std::size_t>(plan.axes[a].extent);
        if (a < p.outer_rank) p.rows *= plan.axes[a].extent;
    }
    p.stream = DMLREF_STREAM_STORES && p.bytes >= stream_threshold;
    p.stream_runs = DMLREF_STREAM_STORES && p.bytes >= run_stream_threshold;
}

/// Step 7: software prefetch. Rows that do not follow one another in an input larger than the
/// caches break the hardware prefetchers' streams; the row kernels then prefetch the row `ahead`
/// rows on. (Interleaves read B streams the hardware follows, and measured no faster with it.)
inline void choose_prefetch(prepared_plan& p) noexcept {
    const copy_plan& plan = p.plan;
    if (p.shape == inner_shape::interleave || p.shape == inner_shape::transpose || p.outer_rank == 0) return;
    std::ptrdiff_t reach = 1;         // elements from the lowest input offset to the highest, at most
    std::ptrdiff_t low = 0, high = 0; // the input one row reads, from the row's input pointer
    std::ptrdiff_t elements = 1;      // the elements one row moves
    bool reads = true;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        const auto [first, last_offset] = input_range(plan.axes[a]);
        if (last_offset > first) reach += last_offset - first;
        if (a < p.outer_rank) continue;
        reads = reads && last_offset >= first;
        low += first;
        high += last_offset;
        elements *= plan.axes[a].extent;
    }
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    // Only rows that read most of the lines they span are fetched ahead, so a row never costs more
    // prefetches than it moves elements. A row of elements far apart (depth to space with B > 4, a
    // transposing copy into a column-major output) spans up to the whole input: it took one
    // prefetch per 64 bytes of it, per row, and 43 MB of depth to space with B = 5 ran two minutes
    // instead of a fraction of a second. Its elements lie on lines of their own, which the
    // hardware follows from row to row.
    const bool dense = (high - low + 1) <= elements * (prefetch_line / w > 0 ? prefetch_line / w : 1);
    if (reach * w >= static_cast<std::ptrdiff_t>(stream_threshold) && reads && dense) {
        p.first = low * w;
        p.span = (high - low + 1) * w;
        p.ahead = p.span >= prefetch_distance ? 1 : prefetch_distance / p.span;
    }
}

/// Prepares a plan to run without changing what it copies: a sequence of the steps above, each
/// deciding one thing. The inner kernel is chosen (4a-4c) after the axes are ordered and merged,
/// and the walk around it (4b, 5) after the kernel, since the best walk depends on it.
inline prepared_plan prepare(const copy_plan& source) noexcept {
    prepared_plan p;
    p.plan = source;
    drop_unit_axes(p);
    order_by_output_stride(p.plan);
    merge_contiguous_axes(p.plan);
    choose_interleave(p);
    choose_deinterleave(p);
    choose_transpose(p);
    move_dense_axes_inside(p);
    count_rows_and_bytes(p);
    choose_prefetch(p);
    return p;
}

} // namespace dmlref::detail
