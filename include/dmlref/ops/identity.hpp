#pragma once
/// \file identity.hpp
/// ELEMENT_WISE_IDENTITY (without ScaleBias) over strided views: the strided copy.
///
///   Output[o] = Input[o]   for every coordinate o, each side addressed through its own strides
///
/// Preconditions: the two tensors have the same sizes; the output never maps two coordinates to
/// one element. The input may: a zero input stride broadcasts an axis, and permuted input strides
/// transpose, so this one copy expresses transposes, broadcasts and NCHW <-> NHWC layout changes.
/// DirectML's optional ScaleBias (Out = In * Scale + Bias) is arithmetic, not data movement: the
/// desc layer refuses it.
///
/// | DirectML              | ONNX                                  | numpy                        | PyTorch                          | WebNN      |
/// |-----------------------|---------------------------------------|------------------------------|----------------------------------|------------|
/// | ELEMENT_WISE_IDENTITY | Identity; Transpose, Expand (strides) | `np.copyto(out, x)`, `x.copy()` | `out.copy_(x)`, `x.clone()`    | `identity` |

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common.hpp"

namespace dmlref {
namespace detail {

/// ELEMENT_WISE_IDENTITY's rules on layouts (ranks already match): the views' own rules, and equal sizes.
DMLREF_FUNC std::optional<std::string> check_identity(std::string_view op, const layout& in, const layout& out)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_views(op, in, out)) return message;
    for (std::size_t i = 0; i < in.rank; ++i)
        if (out.extents[i] != in.extents[i])
            return detail::message("{}: OutputTensor.Sizes[{}] = {} differs from InputTensor.Sizes[{}] = {}; they must "
                                   "match",
                                   op, i, out.extents[i], i, in.extents[i]);
    return std::nullopt;
}
#else
;
#endif

/// The copy plan of a valid ELEMENT_WISE_IDENTITY: per axis, affine with the input's stride (0
/// where the input broadcasts; an axis of one element never steps).
DMLREF_FUNC copy_plan plan_identity(const layout& in, const layout& out)
#if DMLREF_DEFINE_FUNCS
{
    copy_plan plan;
    plan.rank = out.rank;
    for (std::size_t i = 0; i < out.rank; ++i)
        set_affine(plan.axes[i], out.extents[i], out.strides[i], 0, out.extents[i] == 1 ? 0 : in.strides[i]);
    return plan;
}
#else
;
#endif

} // namespace detail

/// ELEMENT_WISE_IDENTITY from `input` into `output`: `output[o] = input[o]`, bit for bit. The
/// input view may broadcast (zero strides) or be permuted; the output may be strided. Throws
/// validation_error when the extents differ, the output overlaps itself, or the views overlap.
template <class T, std::size_t Rank> void identity(strided_view<const T, Rank> input, strided_view<T, Rank> output) {
    const detail::layout in = detail::layout_of(input), out = detail::layout_of(output);
    detail::throw_if(detail::check_identity("identity", in, out));
    detail::run_on_views("identity", detail::plan_identity(in, out), input, output);
}

} // namespace dmlref
