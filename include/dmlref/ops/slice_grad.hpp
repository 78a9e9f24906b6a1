#pragma once
/// \file slice_grad.hpp
/// SLICE_GRAD over strided views: the adjoint of SLICE1, which scatters a gradient back into the
/// window SLICE1 read and writes 0 everywhere else.
///
///   CopyStart[i] = InputWindowOffsets[i] + (InputWindowStrides[i] < 0 ? InputWindowSizes[i] - 1 : 0)
///   OutputGradient[CopyStart + InputWindowStrides * g] = InputGradient[g]   for every coordinate g
///   OutputGradient[x] = 0                                                    for every other x
///
/// The 0 is the all-zero bit pattern of the type (+0.0 for the floats), as DirectML 1.15.4 writes
/// it. Preconditions (check_slice_grad; DirectML's, measured, which are not SLICE1's with its
/// tensors swapped): per axis, a non-zero stride; the window inside the output gradient (it may be
/// empty); InputWindowOffsets[i] + (InputGradient.Sizes[i] - 1) * |InputWindowStrides[i]| <
/// OutputGradient.Sizes[i], so the gradient may hold more elements than the window gives; and, as
/// dmlref's own rule, no element before the tensor's start. Non-zero strides make the written
/// elements distinct: no two gradient elements ever meet in one output element.
///
/// | DirectML   | ONNX                          | numpy                                | PyTorch                                                    | WebNN |
/// |------------|-------------------------------|--------------------------------------|------------------------------------------------------------|-------|
/// | SLICE_GRAD | none (the gradient of Slice)  | `out = np.zeros(...); out[window] = x` | `torch.ops.aten.slice_backward`; `torch.zeros(...)` then slice assignment | none  |

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common.hpp"

namespace dmlref {
namespace detail {

/// SLICE_GRAD's rules on layouts (ranks already match), as DirectML 1.15.4 applies them (measured:
/// docs/directml.md), and dmlref's own: the views' rules under DirectML's names, then per axis i
///   - InputWindowStrides[i] is not 0;
///   - the window lies inside the output gradient: InputWindowOffsets[i] + InputWindowSizes[i] <=
///     OutputGradient.Sizes[i] (an empty window, size 0, passes: DirectML accepts it);
///   - DirectML's bound on the gradient: InputWindowOffsets[i] + (InputGradient.Sizes[i] - 1) *
///     |InputWindowStrides[i]| < OutputGradient.Sizes[i]. It counts from the offset whatever the
///     stride's sign, and not within the window: the gradient may hold more elements than SLICE1's
///     window gives, and they land past the window's end (a positive stride) or before its start;
///   - dmlref's own: with a negative stride, every element lands at or after the tensor's start:
///     CopyStart[i] - (InputGradient.Sizes[i] - 1) * |InputWindowStrides[i]| >= 0. DirectML accepts
///     such descs too (a known divergence): dmlref never writes outside a tensor.
/// Every sum and product is formed in 64 bits and checked: nothing wraps.
DMLREF_FUNC std::optional<std::string> check_slice_grad(std::string_view op, const layout& in, const layout& out,
                                                        std::span<const std::ptrdiff_t> offsets,
                                                        std::span<const std::ptrdiff_t> sizes,
                                                        std::span<const std::ptrdiff_t> strides)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_layout(op, "InputGradientTensor", in, false)) return message;
    if (auto message = check_layout(op, "OutputGradientTensor", out, true)) return message;
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (strides[i] == 0) return detail::message("{}: InputWindowStrides[{}] is 0; strides may not be 0", op, i);
        if (sizes[i] < 0)
            return detail::message("{}: InputWindowSizes[{}] is {}; sizes may not be negative", op, i, sizes[i]);
        if (offsets[i] < 0)
            return detail::message("{}: InputWindowOffsets[{}] is {}; offsets may not be negative", op, i, offsets[i]);
        if (const auto window_end = checked_add(offsets[i], sizes[i]); !window_end || *window_end > out.extents[i])
            return detail::message("{}: InputWindowOffsets[{}] + InputWindowSizes[{}] = {} + {} = {} exceeds "
                                   "OutputGradientTensor.Sizes[{}] = {}",
                                   op, i, i, offsets[i], sizes[i],
                                   window_end ? detail::message("{}", *window_end) : std::string("more than 2^63 - 1"),
                                   i, out.extents[i]);
        const auto magnitude = checked_neg(strides[i] < 0 ? strides[i] : -strides[i]);
        const auto reach = magnitude ? checked_mul(in.extents[i] - 1, *magnitude) : std::nullopt;
        const auto last = reach ? checked_add(offsets[i], *reach) : std::nullopt;
        if (!last || *last >= out.extents[i])
            return detail::message("{}: InputWindowOffsets[{}] + (InputGradientTensor.Sizes[{}] - 1) * "
                                   "|InputWindowStrides[{}]| = {} + ({} - 1) * |{}| = {} is not below "
                                   "OutputGradientTensor.Sizes[{}] = {}",
                                   op, i, i, i, offsets[i], in.extents[i], strides[i],
                                   last ? detail::message("{}", *last) : std::string("more than 2^63 - 1"), i,
                                   out.extents[i]);
        if (strides[i] < 0 && offsets[i] + sizes[i] - 1 - *reach < 0)
            return detail::message("{}: InputWindowStrides[{}] = {} writes the {} gradient element(s) from CopyStart = "
                                   "InputWindowOffsets[{}] + InputWindowSizes[{}] - 1 = {} down to {}, before "
                                   "OutputGradientTensor's start (DirectML accepts this desc; dmlref writes nothing "
                                   "outside a tensor)",
                                   op, i, strides[i], in.extents[i], i, i, offsets[i] + sizes[i] - 1,
                                   offsets[i] + sizes[i] - 1 - *reach);
    }
    return std::nullopt;
}
#else
;
#endif

/// The copy plan of a valid SLICE_GRAD (pointers and width left for the caller; the fill, 0, is
/// the plan's default). The output is walked in increasing coordinates: along an axis with a
/// negative stride the input gradient is read backwards. The window's lowest coordinate on axis
/// i is CopyStart[i] for a positive stride, CopyStart[i] - (n - 1) * |stride| for a negative one
/// (n = InputGradient.Sizes[i]).
///
/// Where every axis steps by 1 (|stride| 1, or one element) the plan is CONSTANT padding's: per
/// axis a fill piece, the window, a fill piece: one pass, every output element written once.
/// Where an axis steps further, the zeros between the window's elements fit no three pieces: the
/// plan fills the whole output first (its prefill stage), then copies the window as a strided view
/// of the output from `output_start`.
DMLREF_FUNC copy_plan plan_slice_grad(const layout& in, const layout& out, std::span<const std::ptrdiff_t> offsets,
                                      std::span<const std::ptrdiff_t> sizes, std::span<const std::ptrdiff_t> strides)
#if DMLREF_DEFINE_FUNCS
{
    copy_plan plan;
    plan.rank = out.rank;
    bool gaps = false;
    for (std::size_t i = 0; i < out.rank; ++i)
        gaps = gaps || (in.extents[i] > 1 && strides[i] != 1 && strides[i] != -1);
    for (std::size_t i = 0; i < out.rank; ++i) {
        const std::ptrdiff_t n = in.extents[i];
        // |stride| only where the axis steps (n > 1): then (n - 1) * |stride| < OutputGradient.Sizes[i].
        const std::ptrdiff_t step = n == 1 ? 0 : (strides[i] < 0 ? -strides[i] : strides[i]);
        const std::ptrdiff_t low = strides[i] < 0 ? offsets[i] + sizes[i] - 1 - (n - 1) * step : offsets[i];
        const std::ptrdiff_t in_start = strides[i] < 0 ? (n - 1) * in.strides[i] : 0;
        const std::ptrdiff_t in_step = n == 1 ? 0 : (strides[i] < 0 ? -in.strides[i] : in.strides[i]);
        axis_plan& axis = plan.axes[i];
        if (!gaps) {
            axis.extent = out.extents[i];
            axis.out_stride = out.strides[i];
            axis.add({piece::kind::fill, low, 0, 0, nullptr, 0});
            axis.add({piece::kind::affine, n, in_start, in_step, nullptr, 0});
            axis.add({piece::kind::fill, out.extents[i] - low - n, 0, 0, nullptr, 0});
        } else {
            set_affine(axis, n, n == 1 ? out.strides[i] : step * out.strides[i], in_start, in_step);
            plan.output_start += low * out.strides[i];
            plan.prefill_extents[i] = out.extents[i];
            plan.prefill_strides[i] = out.strides[i];
        }
    }
    if (gaps) plan.prefill_rank = out.rank;
    return plan;
}
#else
;
#endif

} // namespace detail

/// SLICE_GRAD from `input_gradient` into `output_gradient`: each element of the input gradient
/// goes to `copy_start + window_strides * g` of the output gradient (a negative stride starting at
/// the window's end, as SLICE1 reads), and every other element of the output gradient becomes 0
/// (all bits clear). Throws validation_error for parameters DirectML rejects (see the file
/// comment) and when the two views overlap in memory.
template <class T, std::size_t Rank>
void slice_grad(strided_view<const T, Rank> input_gradient, strided_view<T, Rank> output_gradient,
                const index_array<Rank>& window_offsets, const index_array<Rank>& window_sizes,
                const index_array<Rank>& window_strides) {
    const detail::layout in = detail::layout_of(input_gradient), out = detail::layout_of(output_gradient);
    detail::throw_if(detail::check_slice_grad("slice_grad", in, out, window_offsets, window_sizes, window_strides));
    detail::run_on_views("slice_grad",
                         detail::plan_slice_grad(in, out, window_offsets, window_sizes, window_strides),
                         input_gradient, output_gradient);
}

} // namespace dmlref
