#pragma once
/// \file plan.hpp
/// The plan: the vocabulary the ops speak to the copy engine. Every operator describes its output
/// as a plan: per output axis, where each output coordinate reads the input. The engine
/// (execute.hpp) walks the output and moves element bits.
///
/// Per axis the input mapping is piecewise, with at most three pieces in output order:
///   affine  input offset = start + j * step      (slices, depth/space permutations, padding interior)
///   table   input offset = offsets[j mod period] (folded padding borders: EDGE, REFLECTION, ...)
///   fill    no input; the element is the plan's fill value (CONSTANT padding borders)
/// where j counts coordinates from the piece's first one. Offsets and strides count elements.

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "config.hpp"

namespace dmlref::detail {

inline constexpr std::size_t max_plan_rank = 8;

/// One run of output coordinates of an axis and how they map to input offsets.
struct piece {
    enum class kind : std::uint8_t { affine, table, fill };
    kind how = kind::affine;
    std::ptrdiff_t count = 0;                ///< output coordinates covered
    std::ptrdiff_t start = 0;                ///< affine: input offset of the first coordinate
    std::ptrdiff_t step = 0;                 ///< affine: input stride between coordinates
    const std::ptrdiff_t* offsets = nullptr; ///< table: `period` input offsets (`count` where period is 0)
    /// table: the entries `offsets` holds; coordinate j reads offsets[j % period]. A folded border
    /// repeats (EDGE with period 1, REFLECTION 2(n - 1), SYMMETRIC 2n, WRAP n), so its table holds
    /// a period or a few, however long the pad. 0, or anything not below `count`: one entry a coordinate.
    std::ptrdiff_t period = 0;
};

/// The entries a table piece holds: its period, or its count where that is shorter (or unset).
constexpr std::ptrdiff_t table_length(const piece& p) noexcept {
    return p.period > 0 && p.period < p.count ? p.period : p.count;
}

/// One output axis: its extent and stride in the output, and its pieces (counts sum to extent).
struct axis_plan {
    std::ptrdiff_t extent = 1;
    std::ptrdiff_t out_stride = 0;
    std::array<piece, 3> pieces{};
    std::size_t piece_count = 0;

    static axis_plan affine(std::ptrdiff_t extent, std::ptrdiff_t out_stride, std::ptrdiff_t in_start,
                            std::ptrdiff_t in_step) noexcept {
        axis_plan axis{extent, out_stride, {}, 1};
        axis.pieces[0] = {piece::kind::affine, extent, in_start, in_step, nullptr, 0};
        return axis;
    }
    void add(const piece& p) noexcept {
        if (p.count > 0) pieces[piece_count++] = p;
    }
    bool single_affine() const noexcept { return piece_count == 1 && pieces[0].how == piece::kind::affine; }
};

/// A whole copy: output axes in loop order (outermost first), the two buffers at their element 0,
/// the element width in bytes (1, 2, 4 or 8), and the fill value's bytes (little-endian, `width` of them used).
struct copy_plan {
    std::size_t rank = 0;
    std::array<axis_plan, max_plan_rank> axes{};
    const std::byte* input = nullptr;
    std::byte* output = nullptr;
    std::size_t width = 0;
    std::array<std::byte, 8> fill{};
    /// Where coordinate 0 of the axes lies in the output, in elements from `output`: 0 but for a
    /// plan that writes a window of the output (SLICE_GRAD with window strides beyond 1).
    std::ptrdiff_t output_start = 0;
    /// A first stage: `fill` into every element of the output laid out with these extents and
    /// strides (the whole output tensor), before the axes copy (prefill_rank 0: none). SLICE_GRAD
    /// with a window stride beyond 1 leaves zeros between the window's elements, which no three
    /// pieces of an axis express; it fills the tensor with 0, then copies the window.
    std::size_t prefill_rank = 0;
    std::array<std::ptrdiff_t, max_plan_rank> prefill_extents{}, prefill_strides{};
};

/// Extents and element strides of a tensor of dynamic rank (1 to 8): what the ops plan with, so
/// that planning is compiled once, whatever the element type and rank of the caller's views.
struct layout {
    std::size_t rank = 0;
    std::array<std::ptrdiff_t, max_plan_rank> extents{};
    std::array<std::ptrdiff_t, max_plan_rank> strides{};
};

/// Input offset of coordinate `c` on `axis`, or false when it falls in a fill piece.
inline bool input_offset(const axis_plan& axis, std::ptrdiff_t c, std::ptrdiff_t& offset) noexcept {
    for (std::size_t k = 0; k < axis.piece_count; ++k) {
        const piece& p = axis.pieces[k];
        if (c < p.count) {
            switch (p.how) {
            case piece::kind::affine: offset = p.start + c * p.step; return true;
            case piece::kind::table: offset = p.offsets[c % table_length(p)]; return true;
            case piece::kind::fill: return false;
            }
        }
        c -= p.count;
    }
    return false; // unreachable for a well-formed plan
}

/// The lowest and highest input offsets `axis` reads (high < low when it reads none).
inline std::pair<std::ptrdiff_t, std::ptrdiff_t> input_range(const axis_plan& axis) noexcept {
    std::ptrdiff_t low = 0, high = -1;
    auto take = [&](std::ptrdiff_t at) {
        if (high < low) low = high = at;
        low = at < low ? at : low;
        high = at > high ? at : high;
    };
    for (std::size_t k = 0; k < axis.piece_count; ++k) {
        const piece& pc = axis.pieces[k];
        if (pc.how == piece::kind::affine) {
            take(pc.start);
            take(pc.start + (pc.count - 1) * pc.step);
        } else if (pc.how == piece::kind::table) {
            for (std::ptrdiff_t j = 0, n = table_length(pc); j < n; ++j) take(pc.offsets[j]);
        }
    }
    return {low, high};
}

/// Calls `run(stage)` for each single-stage plan that `plan` is, in order: its prefill (a plan of
/// fill pieces over the prefill layout), then its axes from `output_start` on. Every runner of a
/// plan goes through this, so that no stage is skipped.
template <class Run> void for_each_stage(const copy_plan& plan, Run&& run) {
    if (plan.prefill_rank == 0 && plan.output_start == 0) return run(plan);
    if (plan.prefill_rank > 0) {
        copy_plan fill;
        fill.rank = plan.prefill_rank;
        for (std::size_t i = 0; i < plan.prefill_rank; ++i) {
            axis_plan& axis = fill.axes[i];
            axis.extent = plan.prefill_extents[i];
            axis.out_stride = plan.prefill_strides[i];
            axis.pieces[0] = {piece::kind::fill, axis.extent, 0, 0, nullptr, 0};
            axis.piece_count = 1;
        }
        fill.input = plan.input;
        fill.output = plan.output;
        fill.width = plan.width;
        fill.fill = plan.fill;
        run(static_cast<const copy_plan&>(fill));
    }
    copy_plan copy = plan;
    copy.prefill_rank = 0;
    copy.output_start = 0;
    copy.output = plan.output + plan.output_start * static_cast<std::ptrdiff_t>(plan.width);
    run(static_cast<const copy_plan&>(copy));
}

/// Runs a plan on the calling thread (defined in execute.hpp; in compiled mode, in the library).
/// Every input offset the plan names must lie inside the input buffer and every output offset
/// inside the output buffer; the callers guarantee it.
DMLREF_FUNC void execute(const copy_plan& plan) noexcept;

} // namespace dmlref::detail
