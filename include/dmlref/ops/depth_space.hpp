#pragma once
/// \file depth_space.hpp
/// DEPTH_TO_SPACE(1) and SPACE_TO_DEPTH(1) over 4-D strided views {N, C, H, W}.
///
/// With B the block size, bh = y % B, bw = x % B, and C' the channels of the "space" tensor:
///   DepthToSpace: Out[n, c, y, x]  = In[n, cd, y / B, x / B]             Out = {N, C / B^2, H * B, W * B}
///   SpaceToDepth: Out[n, cd, h, w] = In[n, c, h * B + bh, w * B + bw]     Out = {N, C * B^2, H / B, W / B}
///     DEPTH_COLUMN_ROW: cd = (bh * B + bw) * C' + c   (blocks outermost in the depth axis)
///     COLUMN_ROW_DEPTH: cd = c * B * B + bh * B + bw  (channels outermost in the depth axis)
/// Both are pure permutations: the 4-D tensor reshaped to 6-D and transposed, copied by the engine.
/// Preconditions: B >= 1; DepthToSpace needs C % B^2 == 0, SpaceToDepth H % B == W % B == 0; the
/// output sizes are exactly the formula's. DEPTH_TO_SPACE and SPACE_TO_DEPTH (v0) are DEPTH_COLUMN_ROW.
///
/// | DirectML                               | ONNX                          | TensorFlow     | PyTorch           |
/// |----------------------------------------|-------------------------------|----------------|-------------------|
/// | DEPTH_TO_SPACE1, DEPTH_COLUMN_ROW      | DepthToSpace mode="DCR"       | depth_to_space | -                 |
/// | DEPTH_TO_SPACE1, COLUMN_ROW_DEPTH      | DepthToSpace mode="CRD"       | -              | pixel_shuffle     |
/// | SPACE_TO_DEPTH1, DEPTH_COLUMN_ROW      | SpaceToDepth (mode="DCR")     | space_to_depth | -                 |
/// | SPACE_TO_DEPTH1, COLUMN_ROW_DEPTH      | SpaceToDepth-28 mode="CRD"    | -              | pixel_unshuffle   |

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common.hpp"

namespace dmlref {

/// DML_DEPTH_SPACE_ORDER.
enum class depth_space_order : std::uint32_t {
    depth_column_row = 0, ///< ONNX "DCR", TensorFlow
    column_row_depth = 1, ///< ONNX "CRD", PyTorch pixel_shuffle
};

/// Which way the block moves.
enum class depth_space_direction { depth_to_space, space_to_depth };

namespace detail {

/// The rules of the four depth/space operators on 4-D layouts.
DMLREF_FUNC std::optional<std::string> check_depth_space(std::string_view op, depth_space_direction direction,
                                                         const layout& in, const layout& out, std::ptrdiff_t block_size,
                                                         depth_space_order order)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_views(op, in, out)) return message;
    if (block_size < 1) return detail::message("{}: BlockSize is {}; it must be at least 1", op, block_size);
    if (order != depth_space_order::depth_column_row && order != depth_space_order::column_row_depth)
        return detail::message("{}: Order is {}; it must be DEPTH_COLUMN_ROW (0) or COLUMN_ROW_DEPTH (1)", op,
                               static_cast<std::uint32_t>(order));
    // B * B, C * B * B and H * B are checked: a block size whose square does not fit in
    // ptrdiff_t made B * B wrap (to 0 for B = 2^32, then C % 0). A square that does not fit
    // exceeds every size, so no C is a multiple of it.
    const std::ptrdiff_t b = block_size;
    const auto square = checked_mul(b, b);
    std::array<std::ptrdiff_t, 4> want{};
    const auto& size = in.extents;
    // The product `size[i] * factor` for output axis `i`, or a message when it does not fit.
    auto times = [&](std::size_t i, std::ptrdiff_t factor, std::string_view factor_name) -> std::optional<std::string> {
        const auto product = checked_mul(size[i], factor);
        if (product) {
            want[i] = *product;
            return std::nullopt;
        }
        return detail::message("{}: InputTensor.Sizes[{}] * {} = {} * {} does not fit in a signed 64-bit size", op, i,
                               factor_name, size[i], factor);
    };
    if (direction == depth_space_direction::depth_to_space) {
        if (b > size[1] || !square || size[1] % *square != 0)
            return detail::message("{}: InputTensor.Sizes[1] = {} is not a multiple of BlockSize * BlockSize = {} * {}", op,
                                   size[1], b, b);
        want[0] = size[0];
        want[1] = size[1] / *square;
        if (auto m = times(2, b, "BlockSize")) return m;
        if (auto m = times(3, b, "BlockSize")) return m;
    } else {
        for (std::size_t i : {std::size_t{2}, std::size_t{3}})
            if (size[i] % b != 0)
                return detail::message("{}: InputTensor.Sizes[{}] = {} is not a multiple of BlockSize = {}", op, i,
                                       size[i], b);
        if (!square) // H and W are multiples of B, so H * W >= B * B: unreachable past check_views
            return detail::message("{}: BlockSize * BlockSize = {} * {} does not fit in a signed 64-bit size", op, b, b);
        want[0] = size[0];
        if (auto m = times(1, *square, "(BlockSize * BlockSize)")) return m;
        want[2] = size[2] / b;
        want[3] = size[3] / b;
    }
    constexpr std::string_view formula[2][4] = {
        {"InputTensor.Sizes[0]", "InputTensor.Sizes[1] / (BlockSize * BlockSize)", "InputTensor.Sizes[2] * BlockSize",
         "InputTensor.Sizes[3] * BlockSize"},
        {"InputTensor.Sizes[0]", "InputTensor.Sizes[1] * BlockSize * BlockSize", "InputTensor.Sizes[2] / BlockSize",
         "InputTensor.Sizes[3] / BlockSize"}};
    for (std::size_t i = 0; i < 4; ++i)
        if (out.extents[i] != want[i])
            return detail::message("{}: OutputTensor.Sizes[{}] = {} should be {} = {}", op, i, out.extents[i],
                                   formula[direction == depth_space_direction::space_to_depth][i], want[i]);
    return std::nullopt;
}
#else
;
#endif

/// The copy plan of a valid depth/space operator: a 6-D affine view walked in output order. Each
/// product of B and a stride below is at most twice the span of the view the stride belongs to
/// (B * B <= C, B <= H * B), which check_layout bounded.
DMLREF_FUNC copy_plan plan_depth_space(depth_space_direction direction, const layout& in, const layout& out,
                                       std::ptrdiff_t b, depth_space_order order)
#if DMLREF_DEFINE_FUNCS
{
    copy_plan plan;
    plan.rank = 6;
    const bool dcr = order == depth_space_order::depth_column_row;
    std::size_t next = 0; // the axes are written in place, outermost first
    auto axis = [&](std::ptrdiff_t extent, std::ptrdiff_t out_stride, std::ptrdiff_t in_step) {
        set_affine(plan.axes[next++], extent, out_stride, 0, in_step);
    };
    const auto& [n_in, c_in, h_in, w_in] = std::array{in.strides[0], in.strides[1], in.strides[2], in.strides[3]};
    const auto& [n_out, c_out, h_out, w_out] =
        std::array{out.strides[0], out.strides[1], out.strides[2], out.strides[3]};
    if (direction == depth_space_direction::depth_to_space) {
        // Output (n, c, y = h * B + bh, x = w * B + bw) walked as (n, c, h, bh, w, bw).
        const std::ptrdiff_t channels = out.extents[1];
        const std::ptrdiff_t c_step = dcr ? c_in : b * b * c_in;
        const std::ptrdiff_t bh_step = dcr ? b * channels * c_in : b * c_in;
        const std::ptrdiff_t bw_step = dcr ? channels * c_in : c_in;
        axis(out.extents[0], n_out, n_in);
        axis(channels, c_out, c_step);
        axis(in.extents[2], b * h_out, h_in);
        axis(b, h_out, bh_step);
        axis(in.extents[3], b * w_out, w_in);
        axis(b, w_out, bw_step);
    } else {
        // Output (n, cd, h, w) with cd split into (bh, bw, c) for DCR or (c, bh, bw) for CRD.
        const std::ptrdiff_t channels = in.extents[1];
        axis(out.extents[0], n_out, n_in);
        if (dcr) {
            axis(b, b * channels * c_out, h_in);
            axis(b, channels * c_out, w_in);
            axis(channels, c_out, c_in);
        } else {
            axis(channels, b * b * c_out, c_in);
            axis(b, b * c_out, h_in);
            axis(b, c_out, w_in);
        }
        axis(out.extents[2], h_out, b * h_in);
        axis(out.extents[3], w_out, b * w_in);
    }
    return plan;
}
#else
;
#endif

} // namespace detail

/// DEPTH_TO_SPACE1 from `input` {N, C, H, W} into `output` {N, C / B^2, H * B, W * B}.
/// Throws validation_error for shapes or parameters DirectML rejects, and for overlapping views.
template <class T>
void depth_to_space(strided_view<const T, 4> input, strided_view<T, 4> output, std::ptrdiff_t block_size,
                    depth_space_order order = depth_space_order::depth_column_row) {
    const detail::layout in = detail::layout_of(input), out = detail::layout_of(output);
    constexpr auto direction = depth_space_direction::depth_to_space;
    detail::throw_if(detail::check_depth_space("depth_to_space", direction, in, out, block_size, order));
    detail::run_on_views("depth_to_space", detail::plan_depth_space(direction, in, out, block_size, order), input,
                         output);
}

/// SPACE_TO_DEPTH1 from `input` {N, C, H, W} into `output` {N, C * B^2, H / B, W / B}.
/// Throws validation_error for shapes or parameters DirectML rejects, and for overlapping views.
template <class T>
void space_to_depth(strided_view<const T, 4> input, strided_view<T, 4> output, std::ptrdiff_t block_size,
                    depth_space_order order = depth_space_order::depth_column_row) {
    const detail::layout in = detail::layout_of(input), out = detail::layout_of(output);
    constexpr auto direction = depth_space_direction::space_to_depth;
    detail::throw_if(detail::check_depth_space("space_to_depth", direction, in, out, block_size, order));
    detail::run_on_views("space_to_depth", detail::plan_depth_space(direction, in, out, block_size, order), input,
                         output);
}

} // namespace dmlref
