#pragma once
/// \file upsample.hpp
/// UPSAMPLE_2D in NEAREST_NEIGHBOR mode over strided views: pixel replication of the last two axes.
///
///   Output.Sizes = {N, C, H * ScaleSize.Height, W * ScaleSize.Width}          (4-D)
///                  {N, C, D, H * ScaleSize.Height, W * ScaleSize.Width}       (5-D)
///   Output[..., y, x] = Input[..., floor(y / ScaleSize.Height), floor(x / ScaleSize.Width)]
///
/// The other axes map one to one. With integer scales the nearest input pixel centre to an
/// output pixel centre, (y + 0.5) / Height - 0.5, is never a tie, so nearest-neighbour is exactly
/// this floor (docs/operator-facts.md §9). LINEAR interpolation computes (weighted averages), so
/// it is not data movement: the desc layer refuses it.
///
/// Preconditions: rank 4 or 5 for the desc layer (the view entry point takes any rank of at least
/// 2 and scales its last two axes); scales of at least 1 with the products computed in 64 bits (a
/// product that would wrap 2^32 is refused, never reduced); the output never maps two coordinates
/// to one element. The input may broadcast.
///
/// Plan: each scaled axis splits into (input extent, scale), the inner axis stepping 0 through
/// the input: a pure affine copy of rank 6 (4-D) or 7 (5-D).
///
/// | DirectML                      | ONNX                                                         | numpy                        | PyTorch                               | WebNN                  |
/// |-------------------------------|--------------------------------------------------------------|------------------------------|---------------------------------------|------------------------|
/// | UPSAMPLE_2D, NEAREST_NEIGHBOR | Resize / Upsample `nearest` (asymmetric, floor), integer scales | `x.repeat(s, -2).repeat(t, -1)` | `torch.nn.Upsample(mode='nearest')` | `resample2d` `nearest-neighbor` |

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common.hpp"

namespace dmlref {
namespace detail {

/// UPSAMPLE_2D's rules on layouts (ranks already match, rank >= 2): the views' own rules, scales
/// of at least 1, equal sizes on the leading axes and the scaled sizes on the last two, in 64-bit
/// arithmetic.
DMLREF_FUNC std::optional<std::string> check_upsample(std::string_view op, const layout& in, const layout& out,
                                                      std::ptrdiff_t scale_height, std::ptrdiff_t scale_width)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_views(op, in, out)) return message;
    if (in.rank < 2) return detail::message("{}: the tensors have {} dimensions; at least 2 are needed", op, in.rank);
    if (scale_height < 1) return detail::message("{}: ScaleSize.Height is {}; it must be at least 1", op, scale_height);
    if (scale_width < 1) return detail::message("{}: ScaleSize.Width is {}; it must be at least 1", op, scale_width);
    for (std::size_t i = 0; i < in.rank; ++i) {
        const bool h = i == in.rank - 2, w = i == in.rank - 1;
        if (!h && !w) {
            if (out.extents[i] != in.extents[i])
                return detail::message("{}: OutputTensor.Sizes[{}] = {} differs from InputTensor.Sizes[{}] = {}; only "
                                       "the last two dimensions are scaled",
                                       op, i, out.extents[i], i, in.extents[i]);
            continue;
        }
        const std::ptrdiff_t scale = h ? scale_height : scale_width;
        const std::string_view name = h ? "ScaleSize.Height" : "ScaleSize.Width";
        const auto want = checked_mul(in.extents[i], scale);
        if (!want)
            return detail::message("{}: InputTensor.Sizes[{}] * {} = {} * {} does not fit in a signed 64-bit size", op, i,
                                   name, in.extents[i], scale);
        if (out.extents[i] != *want)
            return detail::message("{}: OutputTensor.Sizes[{}] = {} should be InputTensor.Sizes[{}] * {} = {} * {} = {}",
                                   op, i, out.extents[i], i, name, in.extents[i], scale, *want);
    }
    return std::nullopt;
}
#else
;
#endif

/// The copy plan of a valid nearest-neighbour UPSAMPLE_2D: the leading axes one to one, each of
/// the last two split into (input extent, scale) with the inner axis stepping 0 through the input.
DMLREF_FUNC copy_plan plan_upsample(const layout& in, const layout& out)
#if DMLREF_DEFINE_FUNCS
{
    copy_plan plan;
    std::size_t k = 0;
    for (std::size_t i = 0; i < out.rank; ++i) {
        const std::ptrdiff_t n = in.extents[i], scale = out.extents[i] / n;
        const std::ptrdiff_t step = n == 1 ? 0 : in.strides[i];
        if (scale == 1) {
            set_affine(plan.axes[k++], n, out.strides[i], 0, step);
        } else {
            set_affine(plan.axes[k++], n, scale * out.strides[i], 0, step);
            set_affine(plan.axes[k++], scale, out.strides[i], 0, 0);
        }
    }
    plan.rank = k;
    return plan;
}
#else
;
#endif

} // namespace detail

/// Nearest-neighbour UPSAMPLE_2D from `input` into `output`: the last two axes scaled by
/// `scale_height` and `scale_width`, `output[..., y, x] = input[..., y / scale_height, x / scale_width]`,
/// bit for bit. Rank 2 to 6 (the plan splits two axes). Throws validation_error when the extents
/// do not match the scales, the output overlaps itself, or the views overlap.
template <class T, std::size_t Rank>
void upsample_2d_nearest(strided_view<const T, Rank> input, strided_view<T, Rank> output, std::ptrdiff_t scale_height,
                         std::ptrdiff_t scale_width) {
    static_assert(Rank >= 2 && Rank + 2 <= detail::max_plan_rank,
                  "upsample_2d_nearest scales the last two axes of a view of rank 2 to 6");
    const detail::layout in = detail::layout_of(input), out = detail::layout_of(output);
    detail::throw_if(detail::check_upsample("upsample_2d", in, out, scale_height, scale_width));
    detail::run_on_views("upsample_2d", detail::plan_upsample(in, out), input, output);
}

} // namespace dmlref
