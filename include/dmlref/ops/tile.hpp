#pragma once
/// \file tile.hpp
/// TILE over strided views: the input repeated along each axis.
///
///   Output.Sizes[i] = Input.Sizes[i] * Repeats[i]
///   Output[o] = Input[o[0] mod Input.Sizes[0], ..., o[N-1] mod Input.Sizes[N-1]]
///
/// Preconditions: the ranks match; every repeat count is at least 1 and each output size is the
/// input's size times it (computed in 64 bits: a product that would wrap 2^32 is refused, never
/// reduced); the output never maps two coordinates to one element. The input may broadcast.
///
/// Plan: an axis the input repeats (count r > 1 over n > 1 elements) splits into two output axes
/// (r, n), the outer one stepping 0 through the input and n elements through the output, so the
/// whole copy stays affine (the engine's contiguous-row kernels apply) while rank + split axes
/// fit in max_plan_rank; any axes past that read through a WRAP table of period n (as PADDING's
/// WRAP border does). An input axis of one element steps 0 over the whole output axis.
///
/// | DirectML | ONNX | numpy     | PyTorch                              | WebNN  |
/// |----------|------|-----------|--------------------------------------|--------|
/// | TILE     | Tile | `np.tile` | `torch.Tensor.repeat`, `torch.tile`  | `tile` |

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace dmlref {
namespace detail {

/// TILE's rules on layouts (ranks already match): the views' own rules, repeats of at least 1,
/// and OutputTensor.Sizes[i] == InputTensor.Sizes[i] * Repeats[i] in 64-bit arithmetic.
DMLREF_FUNC std::optional<std::string> check_tile(std::string_view op, const layout& in, const layout& out,
                                                  std::span<const std::ptrdiff_t> repeats)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_views(op, in, out)) return message;
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (repeats[i] < 1)
            return detail::message("{}: Repeats[{}] is {}; every repeat count must be at least 1", op, i, repeats[i]);
        const auto want = checked_mul(in.extents[i], repeats[i]);
        if (!want)
            return detail::message("{}: InputTensor.Sizes[{}] * Repeats[{}] = {} * {} does not fit in a signed 64-bit "
                                   "size",
                                   op, i, i, in.extents[i], repeats[i]);
        if (out.extents[i] != *want)
            return detail::message("{}: OutputTensor.Sizes[{}] = {} should be InputTensor.Sizes[{}] * Repeats[{}] = {} * "
                                   "{} = {}",
                                   op, i, out.extents[i], i, i, in.extents[i], repeats[i], *want);
    }
    return std::nullopt;
}
#else
;
#endif

/// The copy plan of a valid TILE (repeats are Output.Sizes / Input.Sizes); `tables` receives the
/// WRAP tables of the axes that cannot split for want of plan rank.
DMLREF_FUNC copy_plan plan_tile(const layout& in, const layout& out, std::vector<std::ptrdiff_t>& tables)
#if DMLREF_DEFINE_FUNCS
{
    tables.clear();
    // Axes that need a split: more than one input element, repeated more than once; split in
    // axis order while the plan's rank allows, the rest read through WRAP tables.
    std::size_t spare = max_plan_rank - out.rank;
    std::size_t table_entries = 0;
    std::array<bool, max_plan_rank> split{};
    for (std::size_t i = 0; i < out.rank; ++i) {
        if (in.extents[i] <= 1 || out.extents[i] == in.extents[i]) continue;
        if (spare > 0) {
            split[i] = true;
            --spare;
        } else {
            table_entries += static_cast<std::size_t>(in.extents[i]);
        }
    }
    tables.reserve(table_entries); // no reallocation below: the plan keeps pointers into it
    copy_plan plan;
    std::size_t k = 0;
    for (std::size_t i = 0; i < out.rank; ++i) {
        const std::ptrdiff_t n = in.extents[i], extent = out.extents[i];
        if (n == 1) {
            set_affine(plan.axes[k++], extent, out.strides[i], 0, 0);
        } else if (extent == n) {
            set_affine(plan.axes[k++], n, out.strides[i], 0, in.strides[i]);
        } else if (split[i]) {
            set_affine(plan.axes[k++], extent / n, n * out.strides[i], 0, 0);
            set_affine(plan.axes[k++], n, out.strides[i], 0, in.strides[i]);
        } else {
            const std::size_t at = tables.size();
            for (std::ptrdiff_t j = 0; j < n; ++j) tables.push_back(j * in.strides[i]);
            axis_plan& axis = plan.axes[k++];
            axis.extent = extent;
            axis.out_stride = out.strides[i];
            axis.add({piece::kind::table, extent, 0, 0, tables.data() + at, n});
        }
    }
    plan.rank = k;
    return plan;
}
#else
;
#endif

/// The typed entry point's rules: the repeat counts read off the extents (each output extent a
/// positive whole multiple of the input's), then check_tile.
DMLREF_FUNC std::optional<std::string> check_tile_views(std::string_view op, const layout& in, const layout& out)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_views(op, in, out)) return message;
    std::array<std::ptrdiff_t, max_plan_rank> repeats{};
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (out.extents[i] % in.extents[i] != 0)
            return detail::message("{}: output extent[{}] = {} is not a whole multiple of input extent[{}] = {}", op, i,
                                   out.extents[i], i, in.extents[i]);
        repeats[i] = out.extents[i] / in.extents[i];
    }
    return check_tile(op, in, out, std::span(repeats).first(in.rank));
}
#else
;
#endif

} // namespace detail

/// TILE from `input` into `output`: `output[o] = input[o mod input.extents()]`, bit for bit, the
/// repeat counts read off the extents. Throws validation_error when an output extent is not a
/// whole multiple of the input's, the output overlaps itself, or the views overlap.
template <class T, std::size_t Rank> void tile(strided_view<const T, Rank> input, strided_view<T, Rank> output) {
    const detail::layout in = detail::layout_of(input), out = detail::layout_of(output);
    detail::throw_if(detail::check_tile_views("tile", in, out));
    std::vector<std::ptrdiff_t> tables;
    detail::run_on_views("tile", detail::plan_tile(in, out, tables), input, output);
}

} // namespace dmlref
