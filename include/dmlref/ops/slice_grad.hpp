#pragma once
/// \file slice_grad.hpp
/// SLICE_GRAD over strided views: the adjoint of SLICE1, which scatters a gradient back into the
/// window SLICE1 read and writes 0 everywhere else.
///
///   CopyStart[i] = InputWindowOffsets[i] + (InputWindowStrides[i] < 0 ? InputWindowSizes[i] - 1 : 0)
///   OutputGradient[CopyStart + InputWindowStrides * g] = InputGradient[g]   for every coordinate g
///   OutputGradient[x] = 0                                                    for every other x
///
/// The 0 is the all-zero bit pattern of the type (+0.0 for the floats). Preconditions are SLICE1's
/// with the roles of its tensors swapped, per axis i: the window is non-empty and inside the
/// output gradient (InputWindowOffsets[i] + InputWindowSizes[i] <= OutputGradient.Sizes[i]); the
/// stride is not 0; and 1 <= InputGradient.Sizes[i] <= 1 + (InputWindowSizes[i] - 1) /
/// |InputWindowStrides[i]|. Non-zero strides make the written elements distinct: no two gradient
/// elements ever meet in one output element.
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
#include "slice.hpp"

namespace dmlref {
namespace detail {

/// SLICE_GRAD's rules on layouts (ranks already match): the views' own, named as DirectML names
/// them, then SLICE1's window rules with the output gradient as the tensor the window lies in.
DMLREF_FUNC std::optional<std::string> check_slice_grad(std::string_view op, const layout& in, const layout& out,
                                                        std::span<const std::ptrdiff_t> offsets,
                                                        std::span<const std::ptrdiff_t> sizes,
                                                        std::span<const std::ptrdiff_t> strides)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_layout(op, "InputGradientTensor", in, false)) return message;
    if (auto message = check_layout(op, "OutputGradientTensor", out, true)) return message;
    return check_slice1_window(op, out, in, offsets, sizes, strides, "OutputGradientTensor", "InputGradientTensor");
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
        // |stride| only where the axis steps (n > 1): then (n - 1) * |stride| < InputWindowSizes[i].
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
