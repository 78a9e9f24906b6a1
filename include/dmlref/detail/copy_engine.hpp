#pragma once
/// \file copy_engine.hpp
/// The one copy engine. Every operator describes its output as a plan: per output axis, where
/// each output coordinate reads the input. The engine walks the output and moves element bits.
///
/// Per axis the input mapping is piecewise, with at most three pieces in output order:
///   affine  input offset = start + j * step      (slices, depth/space permutations, padding interior)
///   table   input offset = offsets[j]            (folded padding borders: EDGE, REFLECTION, ...)
///   fill    no input; the element is the plan's fill value (CONSTANT padding borders)
/// where j counts coordinates from the piece's first one. Offsets and strides count elements.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dmlref::detail {

inline constexpr std::size_t max_plan_rank = 8;

/// One run of output coordinates of an axis and how they map to input offsets.
struct piece {
    enum class kind : std::uint8_t { affine, table, fill };
    kind how = kind::affine;
    std::ptrdiff_t count = 0;                ///< output coordinates covered
    std::ptrdiff_t start = 0;                ///< affine: input offset of the first coordinate
    std::ptrdiff_t step = 0;                 ///< affine: input stride between coordinates
    const std::ptrdiff_t* offsets = nullptr; ///< table: `count` input offsets
};

/// One output axis: its extent and stride in the output, and its pieces (counts sum to extent).
struct axis_plan {
    std::ptrdiff_t extent = 1;
    std::ptrdiff_t out_stride = 0;
    std::array<piece, 3> pieces{};
    std::size_t piece_count = 0;

    static axis_plan affine(std::ptrdiff_t extent, std::ptrdiff_t out_stride, std::ptrdiff_t in_start,
                            std::ptrdiff_t in_step) noexcept {
        axis_plan axis{extent, out_stride, {}, 1};
        axis.pieces[0] = {piece::kind::affine, extent, in_start, in_step, nullptr};
        return axis;
    }
    void add(const piece& p) noexcept {
        if (p.count > 0) pieces[piece_count++] = p;
    }
    bool single_affine() const noexcept { return piece_count == 1 && pieces[0].how == piece::kind::affine; }
};

/// A whole copy: output axes in loop order (outermost first), the two buffers at their element 0,
/// the element width in bytes, and the fill value's bytes (little-endian, `width` of them used).
struct copy_plan {
    std::size_t rank = 0;
    std::array<axis_plan, max_plan_rank> axes{};
    const std::byte* input = nullptr;
    std::byte* output = nullptr;
    std::size_t width = 0;
    std::array<std::byte, 8> fill{};
};

/// Extents and element strides of a tensor of dynamic rank (1 to 8): what the ops plan with, so
/// that planning is compiled once, whatever the element type and rank of the caller's views.
struct layout {
    std::size_t rank = 0;
    std::array<std::ptrdiff_t, max_plan_rank> extents{};
    std::array<std::ptrdiff_t, max_plan_rank> strides{};
};

template <std::size_t Width> struct word_of;
template <> struct word_of<1> { using type = std::uint8_t; };
template <> struct word_of<2> { using type = std::uint16_t; };
template <> struct word_of<4> { using type = std::uint32_t; };
template <> struct word_of<8> { using type = std::uint64_t; };

/// Moves of Width-byte elements through the same-width unsigned word (no aliasing questions:
/// loads and stores are memcpy, which compilers turn into single moves).
template <std::size_t Width>
struct mover {
    using word = typename word_of<Width>::type;
    static word load(const std::byte* p) noexcept {
        word w;
        std::memcpy(&w, p, Width);
        return w;
    }
    static void store(std::byte* p, word w) noexcept { std::memcpy(p, &w, Width); }

    static void fill(std::byte* out, std::ptrdiff_t count, std::ptrdiff_t out_step, word value) noexcept {
        for (std::ptrdiff_t i = 0; i < count; ++i) store(out + i * out_step, value);
    }

    /// count elements from `in` (step `in_step` bytes) to `out` (step `out_step` bytes).
    static void run(std::byte* out, std::ptrdiff_t out_step, const std::byte* in, std::ptrdiff_t in_step,
                    std::ptrdiff_t count) noexcept {
        constexpr auto w = static_cast<std::ptrdiff_t>(Width);
        if (out_step == w && in_step == w) {
            std::memcpy(out, in, static_cast<std::size_t>(count) * Width);
        } else if (in_step == 0) {
            fill(out, count, out_step, load(in));
        } else {
            for (std::ptrdiff_t i = 0; i < count; ++i) store(out + i * out_step, load(in + i * in_step));
        }
    }

    static void gather(std::byte* out, std::ptrdiff_t out_step, const std::byte* in, const std::ptrdiff_t* offsets,
                       std::ptrdiff_t count) noexcept {
        for (std::ptrdiff_t i = 0; i < count; ++i)
            store(out + i * out_step, load(in + offsets[i] * static_cast<std::ptrdiff_t>(Width)));
    }
};

/// Input offset of coordinate `c` on `axis`, or false when it falls in a fill piece.
inline bool input_offset(const axis_plan& axis, std::ptrdiff_t c, std::ptrdiff_t& offset) noexcept {
    for (std::size_t k = 0; k < axis.piece_count; ++k) {
        const piece& p = axis.pieces[k];
        if (c < p.count) {
            switch (p.how) {
            case piece::kind::affine: offset = p.start + c * p.step; return true;
            case piece::kind::table: offset = p.offsets[c]; return true;
            case piece::kind::fill: return false;
            }
        }
        c -= p.count;
    }
    return false; // unreachable for a well-formed plan
}

/// Drops extent-1 axes (folding their offset into the input origin), folds single-affine starts
/// into the origin, and merges neighbouring affine axes that are contiguous in both tensors.
/// Returns false when the whole output is fill.
inline bool simplify(copy_plan& plan) noexcept {
    for (std::size_t a = 0; a < plan.rank; ++a) {
        std::ptrdiff_t offset = 0;
        if (plan.axes[a].extent == 1 && !input_offset(plan.axes[a], 0, offset)) return false;
    }
    std::size_t kept = 0;
    std::ptrdiff_t origin = 0;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        axis_plan axis = plan.axes[a];
        if (axis.extent == 1) {
            std::ptrdiff_t offset = 0;
            input_offset(axis, 0, offset);
            origin += offset;
            continue;
        }
        if (axis.single_affine()) {
            origin += axis.pieces[0].start;
            axis.pieces[0].start = 0;
            if (kept > 0) {
                axis_plan& outer = plan.axes[kept - 1];
                if (outer.single_affine() && outer.out_stride == axis.extent * axis.out_stride &&
                    outer.pieces[0].step == axis.extent * axis.pieces[0].step) {
                    outer.extent *= axis.extent;
                    outer.out_stride = axis.out_stride;
                    outer.pieces[0] = {piece::kind::affine, outer.extent, 0, axis.pieces[0].step, nullptr};
                    continue;
                }
            }
        }
        plan.axes[kept++] = axis;
    }
    plan.rank = kept;
    plan.input += origin * static_cast<std::ptrdiff_t>(plan.width);
    return true;
}

template <std::size_t Width>
void execute_width(copy_plan plan) noexcept {
    using move = mover<Width>;
    constexpr auto w = static_cast<std::ptrdiff_t>(Width);
    typename move::word fill_value;
    std::memcpy(&fill_value, plan.fill.data(), Width);

    // A plan that is all fill still visits every output element.
    const bool all_fill = !simplify(plan);
    if (all_fill) {
        for (std::size_t a = 0; a < plan.rank; ++a) {
            plan.axes[a].piece_count = 0;
            plan.axes[a].add({piece::kind::fill, plan.axes[a].extent, 0, 0, nullptr});
        }
    }
    if (plan.rank == 0) {
        move::store(plan.output, all_fill ? fill_value : move::load(plan.input));
        return;
    }

    const std::size_t outer_rank = plan.rank - 1;
    const axis_plan& inner = plan.axes[outer_rank];
    const std::ptrdiff_t inner_out_step = inner.out_stride * w;

    // Cumulative input/output offsets and fill state of the outer axes at the current coordinate.
    std::array<std::ptrdiff_t, max_plan_rank> coord{}, in_at{}, out_at{};
    std::array<bool, max_plan_rank> fill_at{};
    auto settle = [&](std::size_t from) {
        for (std::size_t a = from; a < outer_rank; ++a) {
            std::ptrdiff_t offset = 0;
            const bool inside = input_offset(plan.axes[a], coord[a], offset);
            const std::ptrdiff_t in_before = a > 0 ? in_at[a - 1] : 0;
            const std::ptrdiff_t out_before = a > 0 ? out_at[a - 1] : 0;
            in_at[a] = in_before + offset;
            out_at[a] = out_before + coord[a] * plan.axes[a].out_stride;
            fill_at[a] = (a > 0 && fill_at[a - 1]) || !inside;
        }
    };
    settle(0);

    for (;;) {
        const std::ptrdiff_t in_row = outer_rank > 0 ? in_at[outer_rank - 1] : 0;
        std::byte* out = plan.output + (outer_rank > 0 ? out_at[outer_rank - 1] : 0) * w;
        const bool row_fill = outer_rank > 0 && fill_at[outer_rank - 1];
        for (std::size_t k = 0; k < inner.piece_count; ++k) {
            const piece& p = inner.pieces[k];
            if (row_fill || p.how == piece::kind::fill) {
                move::fill(out, p.count, inner_out_step, fill_value);
            } else if (p.how == piece::kind::affine) {
                move::run(out, inner_out_step, plan.input + (in_row + p.start) * w, p.step * w, p.count);
            } else {
                move::gather(out, inner_out_step, plan.input + in_row * w, p.offsets, p.count);
            }
            out += p.count * inner_out_step;
        }

        // Odometer over the outer axes.
        std::size_t a = outer_rank;
        while (a > 0) {
            --a;
            if (++coord[a] < plan.axes[a].extent) break;
            coord[a] = 0;
            if (a == 0) return;
        }
        if (outer_rank == 0) return;
        settle(a);
    }
}

/// Runs a plan. Every input offset the plan names must lie inside the input buffer and every
/// output offset inside the output buffer; the callers (ops and the desc layer) guarantee it.
inline void execute(const copy_plan& plan) noexcept {
    switch (plan.width) {
    case 1: execute_width<1>(plan); break;
    case 2: execute_width<2>(plan); break;
    case 4: execute_width<4>(plan); break;
    case 8: execute_width<8>(plan); break;
    default: break;
    }
}

} // namespace dmlref::detail
