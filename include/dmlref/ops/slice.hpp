#pragma once
/// \file slice.hpp
/// SLICE1 (and SLICE, its v0 form) over strided views.
///
///   CopyStart[i] = InputWindowOffsets[i] + (InputWindowStrides[i] < 0 ? InputWindowSizes[i] - 1 : 0)
///   Output[o]    = Input[CopyStart + InputWindowStrides * o]
///
/// Preconditions, per axis i: the window is non-empty and inside the input
/// (InputWindowOffsets[i] + InputWindowSizes[i] <= Input.Sizes[i]); the stride is not 0; and
/// 1 <= Output.Sizes[i] <= 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]|, so the output
/// may copy fewer elements than the window holds. SLICE v0 is SLICE1 with window size
/// (Sizes[i] - 1) * Strides[i] + 1 and an output of exactly Sizes[i].
///
/// | DirectML              | ONNX           | numpy                  | PyTorch                      |
/// |-----------------------|----------------|------------------------|------------------------------|
/// | SLICE1, SLICE         | Slice (steps)  | `x[a:b:s]`, `s` < 0 ok | `x[a:b:s]` (s > 0), `flip`   |
/// ONNX's negative-step slice maps to SLICE1 as DirectML's ONNX Runtime backend does it: the
/// window is [end + 1, start + 1) and the stride is negative.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common.hpp"

namespace dmlref {
namespace detail {

/// SLICE1's parameter rules for each axis (ranks already match). The window's arithmetic is
/// checked: an offset or a stride near the ends of ptrdiff_t is refused, never wrapped.
DMLREF_FUNC std::optional<std::string> check_slice1(std::string_view op, const layout& in, const layout& out,
                                                    std::span<const std::ptrdiff_t> offsets,
                                                    std::span<const std::ptrdiff_t> sizes,
                                                    std::span<const std::ptrdiff_t> strides)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_views(op, in, out)) return message;
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (strides[i] == 0) return detail::message("{}: InputWindowStrides[{}] is 0; strides may not be 0", op, i);
        if (sizes[i] < 1)
            return detail::message("{}: InputWindowSizes[{}] is {}; the input window must not be empty", op, i, sizes[i]);
        if (offsets[i] < 0)
            return detail::message("{}: InputWindowOffsets[{}] is {}; offsets may not be negative", op, i, offsets[i]);
        if (const auto window_end = checked_add(offsets[i], sizes[i]); !window_end || *window_end > in.extents[i])
            return detail::message("{}: InputWindowOffsets[{}] + InputWindowSizes[{}] = {} + {} = {} exceeds "
                                   "InputTensor.Sizes[{}] = {}",
                                   op, i, i, offsets[i], sizes[i],
                                   window_end ? detail::message("{}", *window_end) : std::string("more than 2^63 - 1"),
                                   i, in.extents[i]);
        const auto magnitude = checked_neg(strides[i] < 0 ? strides[i] : -strides[i]);
        if (!magnitude)
            return detail::message("{}: InputWindowStrides[{}] is {}; its magnitude does not fit in a signed 64-bit "
                                   "stride",
                                   op, i, strides[i]);
        const std::ptrdiff_t most = 1 + (sizes[i] - 1) / *magnitude;
        if (out.extents[i] > most)
            return detail::message("{}: OutputTensor.Sizes[{}] = {} exceeds the {} element(s) the window copies "
                                   "(1 + (InputWindowSizes[{}] - 1) / |InputWindowStrides[{}]| = 1 + ({} - 1) / {})",
                                   op, i, out.extents[i], most, i, i, sizes[i], *magnitude);
    }
    return std::nullopt;
}
#else
;
#endif

/// The input step of a valid SLICE1 along one axis, in input elements: the window stride times
/// the input's stride. An axis that copies one element never steps, and its window stride may be
/// any size: it gets 0, so that the product is formed only where it lies inside the input's reach.
DMLREF_FUNC std::ptrdiff_t slice1_step(std::ptrdiff_t out_extent, std::ptrdiff_t window_stride,
                                  std::ptrdiff_t in_stride) noexcept
#if DMLREF_DEFINE_FUNCS
{
    return out_extent == 1 ? 0 : window_stride * in_stride;
}
#else
;
#endif

/// The copy plan of a valid SLICE1 (pointers and width left for the caller). Every product here
/// lies within the input's reach, which check_layout bounded.
DMLREF_FUNC copy_plan plan_slice1(const layout& in, const layout& out, std::span<const std::ptrdiff_t> offsets,
                                  std::span<const std::ptrdiff_t> sizes, std::span<const std::ptrdiff_t> strides)
#if DMLREF_DEFINE_FUNCS
{
    copy_plan plan;
    plan.rank = out.rank;
    for (std::size_t i = 0; i < out.rank; ++i) {
        const std::ptrdiff_t copy_start = offsets[i] + (strides[i] < 0 ? sizes[i] - 1 : 0);
        set_affine(plan.axes[i], out.extents[i], out.strides[i], copy_start * in.strides[i],
                   slice1_step(out.extents[i], strides[i], in.strides[i]));
    }
    return plan;
}
#else
;
#endif

} // namespace detail

/// SLICE1 from `input` into `output`: `output[o] = input[copy_start + window_strides * o]`, where a
/// negative stride starts at the window's end. Throws validation_error for parameters DirectML
/// rejects (see the file comment) and when the two views overlap in memory.
template <class T, std::size_t Rank>
void slice(strided_view<const T, Rank> input, strided_view<T, Rank> output, const index_array<Rank>& window_offsets,
           const index_array<Rank>& window_sizes, const index_array<Rank>& window_strides) {
    const detail::layout in = detail::layout_of(input), out = detail::layout_of(output);
    detail::throw_if(detail::check_slice1("slice", in, out, window_offsets, window_sizes, window_strides));
    detail::run_on_views("slice", detail::plan_slice1(in, out, window_offsets, window_sizes, window_strides),
                         input, output);
}

/// The view of `input` that SLICE1 copies: the result of a slice without copying it. Its extents
/// are the largest output SLICE1 allows, 1 + (window_sizes[i] - 1) / |window_strides[i]|.
template <class T, std::size_t Rank>
strided_view<T, Rank> slice_view(strided_view<T, Rank> input, const index_array<Rank>& window_offsets,
                                 const index_array<Rank>& window_sizes, const index_array<Rank>& window_strides) {
    detail::layout in = detail::layout_of(input), out = in;
    // Packed strides: the checks below also reject an output that overlaps itself. Where their
    // product does not fit, the rest are 0: check_layout refuses the count before it reads them.
    std::ptrdiff_t packed = 1;
    for (std::size_t i = Rank; i-- > 0;) {
        const std::uint64_t magnitude = detail::checked_magnitude(window_strides[i]);
        const auto steps = [&] { return static_cast<std::uint64_t>(window_sizes[i] - 1) / magnitude; };
        out.extents[i] = magnitude == 0 || window_sizes[i] < 1 ? 1 : 1 + static_cast<std::ptrdiff_t>(steps());
        out.strides[i] = packed;
        packed = detail::checked_mul(packed, out.extents[i]).value_or(0);
    }
    detail::throw_if(detail::check_slice1("slice_view", in, out, window_offsets, window_sizes, window_strides));
    index_array<Rank> extents{}, strides{};
    std::ptrdiff_t start = 0; // inside the input's reach, which check_layout bounded
    for (std::size_t i = 0; i < Rank; ++i) {
        extents[i] = out.extents[i];
        strides[i] = detail::slice1_step(out.extents[i], window_strides[i], input.stride(i));
        start += (window_offsets[i] + (window_strides[i] < 0 ? window_sizes[i] - 1 : 0)) * input.stride(i);
    }
    const auto offset = detail::checked_add(input.offset(), start);
    if (!offset)
        throw validation_error(detail::message("slice_view: the input's offset {} plus the window's start {} does not "
                                               "fit in ptrdiff_t",
                                               input.offset(), start));
    return {input.base(), extents, strides, *offset};
}

} // namespace dmlref
