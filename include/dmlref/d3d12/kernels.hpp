#pragma once
/// \file kernels.hpp
/// The compute kernels, assembled with the DXBC emitter, and the parameters the host passes them.
/// Each kernel mirrors a file in shaders/ (slice.hlsl, depth_space.hlsl, padding.hlsl,
/// slice_grad.hlsl, gather.hlsl, reverse_subsequences.hlsl, one_hot.hlsl, scatter.hlsl, sharing
/// layout.hlsli and main.hlsli): the HLSL is the readable source, this file its hand translation,
/// statement by statement.
///
/// Every kernel computes its operator's index equation itself, from DirectML's parameters:
///   - a thread owns one unit of the output buffer: one 32-bit word for 1-, 2- and 4-byte
///     elements, one 8-byte element (two words) for 8-byte ones. It writes whole words only, so
///     no two threads ever write the same word (no read-modify-write races);
///   - it turns each element offset of its unit into output coordinates by dividing by the output
///     strides from the largest down (which is exact because a valid output never maps two
///     coordinates to one element); an offset that is no element of the tensor (a gap between
///     strided rows, or past the end) is left as it was;
///   - it maps the coordinates to an input element by the operator's equation, loads the
///     input word(s) and, for 1- and 2-byte elements, extracts and inserts the bit field.
/// Buffers are raw 32-bit words (ByteAddressBuffer t0, RWByteAddressBuffer u0); the header is 16
/// root constants (b0) and the per-axis table, beyond the root-constant budget, a constant buffer (b1).
///
/// JOIN and SPLIT run as one dispatch per part, each the slice kernel (as ELEMENT_WISE_IDENTITY)
/// between the part and its sub-view of the whole tensor: the part's sizes over the whole's strides,
/// starting at the element the header's input_base (SPLIT) or output_base (JOIN) names. A thread
/// tests its element offsets against that sub-view, so it writes only the part's elements and
/// keeps every other lane of its word: dispatches over one output buffer compose.
///
/// The gather kernel runs GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 from the CPU library's
/// own gather plan (dmlref::detail::gather_plan, filled by the ops' shape rules): per output axis
/// an input and an index stride, then a tuple of indices (one for GATHER and GATHER_ELEMENTS, T for
/// the ND ops) that each move the input element along their axis. It reads a second raw buffer,
/// the indices (t1). The host has checked every index the plan reads first (the CPU library's own
/// check and message), so the kernel trusts each to lie in [-size, size) with size < 2^31: the low
/// word of an index element then carries its value, sign included (INT64's high word is only its
/// sign extension), and a negative value is wrapped by adding the size. REVERSE_SUBSEQUENCES reads
/// its SequenceLengthsTensor the same way (t1); lengths are never refused, so its kernel reads the
/// whole value (both words of a UINT64) and clamps it as the CPU library does. ONE_HOT's indices
/// are never refused either (one out of range leaves its sequence OffValue): its kernel reads the
/// whole index and tests the range itself; t0 is the ValuesTensor.
///
/// SCATTER_ELEMENTS and SCATTER_ND run as two dispatches: the slice kernel (as
/// ELEMENT_WISE_IDENTITY) copies InputTensor to OutputTensor, then the scatter kernel, over the
/// output, reads the UpdatesTensor (t0) and the indices (t1). Its thread still owns one output
/// word, so no two threads write one word: for each output element it searches the updates that
/// can land there (those at its coordinates on the axes the indices do not choose) from the last
/// in the updates' row-major order to the first, and takes the first whose indices name the
/// element: the last update wins, duplicates included, as in the CPU library. An element no update
/// names is no element for this dispatch and keeps what the copy wrote. The host checks every
/// index first (the CPU library's check and message), as for the gathers.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "../operator.hpp"
#include "dxbc.hpp"

namespace dmlref::d3d12 {

/// The kernels: one per operator family (ELEMENT_WISE_IDENTITY, TILE, UPSAMPLE_2D, JOIN and SPLIT
/// run on the slice and padding kernels through their parameters; the four gathers on one, the two
/// scatters on another).
enum class kernel_family : std::uint32_t { slice, depth_space, padding, slice_grad, gather, reverse_subsequences, one_hot, scatter };

/// "slice", "depth_space", "padding", "slice_grad", "gather", "reverse_subsequences", "one_hot".
constexpr std::string_view to_string(kernel_family family) noexcept {
    switch (family) {
    case kernel_family::slice: return "slice";
    case kernel_family::depth_space: return "depth_space";
    case kernel_family::padding: return "padding";
    case kernel_family::slice_grad: return "slice_grad";
    case kernel_family::gather: return "gather";
    case kernel_family::reverse_subsequences: return "reverse_subsequences";
    case kernel_family::one_hot: return "one_hot";
    case kernel_family::scatter: return "scatter";
    }
    return "unknown";
}

namespace testing {
/// Deliberately wrong kernels, for showing that verification catches a wrong GPU kernel.
enum class kernel_fault : std::uint32_t {
    none,
    swapped_depth_space_order, ///< depth/space kernels use the other DEPTH_COLUMN_ROW / COLUMN_ROW_DEPTH order
    off_by_one_fold,           ///< the padding kernel folds with a period one too long
    slice_grad_no_gaps,        ///< the SLICE_GRAD kernel takes every coordinate of the window's span, gaps included
    gather_negative_from_start, ///< the gather kernel counts a negative index -1 - i from the start (to i), not the end
    reverse_clamp_to_axis,      ///< the REVERSE_SUBSEQUENCES kernel clamps a length past the axis to its size (DirectML's page, not DirectML)
    gather_tuple_first_entry,   ///< the gather kernel reads a tuple's first index for each of its entries
    one_hot_low_word_only,      ///< the ONE_HOT kernel ignores a 64-bit index's high word (2^32 + i hits i)
    scatter_first_wins,         ///< the scatter kernel keeps the FIRST update that names an element, not the last
};
} // namespace testing

namespace kernels {

inline constexpr std::uint32_t threads_per_group = 64;
inline constexpr std::uint32_t header_dwords = 16; ///< root constants b0 (4 vec4)
inline constexpr std::uint32_t axis_rows = 16;     ///< cb1 vec4 rows: [0, 8) and [8, 16), one each per axis
/// The scatter kernel's cb1: the 16 rows above, then [16, 24) its free axes and [24, 32) its
/// index tuple's entries (the other kernels declare and read the first 16 alone).
inline constexpr std::uint32_t scatter_axis_rows = 32;

/// Header words (root constants, cb0).
enum header_word : std::uint32_t {
    unit_count = 0,  ///< threads with work: output words (1-, 2-, 4-byte elements) or 8-byte elements
    row_pitch = 1,   ///< threads per row of the 2-D dispatch: unit = id.y * row_pitch + id.x
    rank = 2,        ///< number of axes in cb1
    option = 3,      ///< padding: the PaddingMode; depth/space: bit 0 space-to-depth, bit 1 COLUMN_ROW_DEPTH
    fill_low = 4,    ///< padding: the constant's raw bits (low word)
    fill_high = 5,   ///< padding: the constant's high word (8-byte elements)
    block_size = 6,  ///< depth/space: B
    channels = 7,    ///< depth/space: C', the channel count of the "space" tensor
    input_strides = 8, ///< depth/space: the input's element strides of N, C, H, W (4 words)
    input_base = 12,   ///< the input element the tensor starts at (SPLIT's part in the whole input; else 0)
    output_base = 13,  ///< the output element the tensor starts at (JOIN's part in the whole output; else 0)
    // The gather, REVERSE_SUBSEQUENCES and ONE_HOT kernels (the depth/space words, unused there):
    index_shift = 8,         ///< log2 of the index (length) element's bytes: 2 (32-bit) or 3 (64-bit)
    tuple_count = 9,         ///< gather: indices per tuple (cb1 rows 8 + m: the entries' axis stride and size)
    tuple_step = 10,         ///< gather: the index-tensor stride between a tuple's entries
    sequence_stride = 9,     ///< REVERSE_SUBSEQUENCES: the input's element stride along Axis
    sequence_size = 10,      ///< REVERSE_SUBSEQUENCES: the input's size along Axis (lengths clamp to it);
                             ///< ONE_HOT: the output's (negative indices count back from it)
    on_value = 9,            ///< ONE_HOT: OnValue's element in the ValuesTensor (OffValue is element 0)
    index_signed = 11,       ///< ONE_HOT: all ones for INT32 and INT64 indices, else 0
    // The scatter kernel (index_shift as above):
    scatter_free_count = 9,   ///< the free axes (cb1 rows 16 on): the updates' axes the indices choose the output position of
    scatter_tuple_count = 10, ///< indices per tuple (cb1 rows 24 on): 1 for SCATTER_ELEMENTS, T for SCATTER_ND
    scatter_tuple_step = 11,  ///< the IndicesTensor's stride between the entries of one tuple
    scatter_candidates = 14,  ///< the updates that can land on one output element: the free axes' sizes' product
};

/// Everything a dispatch needs besides the buffers.
struct dispatch_params {
    kernel_family family = kernel_family::slice;
    std::uint32_t width = 0; ///< element bytes: 1, 2, 4 or 8
    std::array<std::uint32_t, header_dwords> header{};
    /// cb1, per output axis k in decreasing output stride:
    ///   row k     = (output stride, output size, input stride, a)
    ///   row 8 + k = (b, n, the axis' position in the desc, 0)
    /// slice: a = CopyStart, b = the signed window stride; padding: a = StartPadding, b = input size;
    /// slice_grad: a = CopyStart, b = the signed window stride, n = the InputGradientTensor's size;
    /// gather: the plan's input step (0 where the indices choose), a = 0, and the row's fourth word
    /// (8 + k, w) its index step; rows 8 + m, x and y, hold tuple entry m's input stride and size.
    /// reverse_subsequences: input stride 0 on Axis, b = 1, the SequenceLengthsTensor's stride (0 on
    /// Axis) in w and n = 1 on Axis (the row whose coordinate is the position in the sequence),
    /// else 0; one_hot: input stride 0, the IndicesTensor's stride (0 on Axis) in w, n as reverse's.
    /// scatter: input stride = the UpdatesTensor's stride, a = the IndicesTensor's stride (both 0 on
    /// the axes the indices choose), b = the output stride on the axes the index tuple addresses,
    /// else 0; rows 16 + f = (size, UpdatesTensor stride, IndicesTensor stride, 0) per free axis,
    /// outermost first; rows 24 + m = (OutputTensor size, OutputTensor stride, 0, 0) per tuple entry.
    std::array<std::uint32_t, scatter_axis_rows * 4> axes{};
    std::uint32_t units = 0;
};

/// One dispatch of a desc: its kernel parameters and the tensors it binds, as indices into
/// inputs_of(desc) and outputs_of(desc): `input` as t0, `indices` as t1 (the input again where the
/// kernel reads no second tensor), `output` as u0.
struct dispatch_step {
    dispatch_params params;
    std::size_t input = 0;
    std::size_t output = 0;
    std::size_t indices = 0;
};

/// Whether operator `type` is one the gather kernel runs: GATHER, GATHER_ELEMENTS, GATHER_ND and
/// GATHER_ND1.
constexpr bool is_gather(operator_type type) noexcept {
    return type == operator_type::gather || type == operator_type::gather_elements ||
           type == operator_type::gather_nd || type == operator_type::gather_nd1;
}

/// Whether operator `type` is one the scatter kernel runs: SCATTER_ELEMENTS and SCATTER_ND.
constexpr bool is_scatter(operator_type type) noexcept {
    return type == operator_type::scatter_elements || type == operator_type::scatter_nd;
}

/// Whether a kernel runs operator `type`: every data-movement operator (the indexed ones on the
/// gather, ONE_HOT and scatter kernels, REVERSE_SUBSEQUENCES on its own).
constexpr bool has_kernel(operator_type type) noexcept {
    return !has_data_dependent_mapping(type) || is_gather(type) || is_scatter(type) ||
           type == operator_type::reverse_subsequences || type == operator_type::one_hot;
}

/// Throws validation_error for an operator no kernel runs (none today: an operator added to the
/// library without a kernel is refused by name, never run wrongly).
inline void refuse_without_kernel(operator_type type) {
    if (!has_kernel(type))
        throw validation_error(
            fmt::format("{}: no D3D12 kernel runs {} yet (the CPU library runs it)", to_string(type), to_string(type)));
}

/// Throws validation_error where a tensor the desc binds is beyond the kernels' 32-bit
/// addressing: more than 4 GiB - 1 bytes, or a size of 2^31 or more.
inline void check_32bit_addressing(const operator_desc& any) {
    const std::string_view op = to_string(type_of(any));
    for (const auto& tensors : {inputs_of(any), outputs_of(any)})
        for (const bound_tensor& t : tensors) {
            if (calc_buffer_tensor_size(t.desc()) > 0xffff'ffffu)
                throw validation_error(fmt::format(
                    "{}: {} needs {} bytes; the D3D12 kernels address at most 4 GiB - 1 bytes per buffer", op, t.field,
                    calc_buffer_tensor_size(t.desc())));
            for (std::size_t i = 0; i < t.desc().sizes.size(); ++i)
                if (t.desc().sizes[i] >= 0x8000'0000u)
                    throw validation_error(fmt::format("{}: {}.Sizes[{}] = {} is 2^31 or more, beyond the D3D12 "
                                                       "kernels' 32-bit signed index arithmetic",
                                                       op, t.field, i, t.desc().sizes[i]));
        }
}

/// UPSAMPLE_2D's layouts as an IDENTITY's: every axis whose output is `scale` times the input's
/// becomes (input size, output stride * scale, input stride) and (scale, output stride, 0).
inline std::pair<detail::layout, detail::layout> split_scaled_axes(const detail::layout& in, const detail::layout& out) {
    detail::layout split_in{}, split_out{};
    std::size_t k = 0;
    for (std::size_t i = 0; i < out.rank; ++i) {
        const std::ptrdiff_t n = in.extents[i], scale = out.extents[i] / n;
        split_in.extents[k] = split_out.extents[k] = n;
        split_in.strides[k] = in.strides[i];
        split_out.strides[k++] = out.strides[i] * scale;
        if (scale != 1) {
            split_in.extents[k] = split_out.extents[k] = scale;
            split_in.strides[k] = 0;
            split_out.strides[k++] = out.strides[i];
        }
    }
    split_in.rank = split_out.rank = k;
    return {split_in, split_out};
}

/// The axes of an output of `rank` axes by decreasing stride; size-1 axes last (their rows then
/// take stride 1, so their coordinate is the remainder, which must be 0).
inline std::array<std::size_t, dmlref::detail::max_plan_rank>
axis_order(std::size_t rank, const std::array<std::ptrdiff_t, dmlref::detail::max_plan_rank>& extents,
           const std::array<std::ptrdiff_t, dmlref::detail::max_plan_rank>& strides) {
    std::array<std::size_t, dmlref::detail::max_plan_rank> order{};
    std::iota(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(rank), std::size_t{0});
    auto key = [&](std::size_t a) { return extents[a] == 1 ? std::ptrdiff_t{0} : strides[a]; };
    std::stable_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(rank),
                     [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
    return order;
}

/// Threads of a dispatch over an output buffer of `bytes` with elements of `width` bytes: one per
/// word, or per element for 8-byte ones.
constexpr std::uint32_t unit_count_of(std::uint64_t bytes, std::uint32_t width) noexcept {
    return static_cast<std::uint32_t>(width == 8 ? bytes / 8 : bytes / 4);
}

/// The header's index_shift for index (length) elements of `type`: log2 of their bytes.
constexpr std::uint32_t index_shift_of(data_type type) noexcept { return element_size(type) == 8 ? 3u : 2u; }

/// A table or header word: strides, sizes and offsets, below 2^32 (check_32bit_addressing);
/// SLICE's negative window strides wrap to their two's complement, which the kernels read signed.
constexpr std::uint32_t word(std::ptrdiff_t v) noexcept { return static_cast<std::uint32_t>(v); }

/// Sets the output's rows of the axis table: its axes by decreasing stride (axis_order), row k
/// holding axis order[k]'s output stride (1 for an axis of one element) and size, and the header's
/// rank. Returns the order, for the rows' other words.
inline std::array<std::size_t, dmlref::detail::max_plan_rank>
set_output_rows(dispatch_params& p, std::size_t axes, const std::array<std::ptrdiff_t, dmlref::detail::max_plan_rank>& extents,
                const std::array<std::ptrdiff_t, dmlref::detail::max_plan_rank>& strides) {
    const auto order = axis_order(axes, extents, strides);
    p.header[rank] = static_cast<std::uint32_t>(axes);
    for (std::size_t k = 0; k < axes; ++k) {
        const std::size_t a = order[k];
        p.axes[4 * k] = extents[a] == 1 ? 1u : word(strides[a]);
        p.axes[4 * k + 1] = word(extents[a]);
    }
    return order;
}

/// The parameters of a valid desc with one input and one output (the caller has checked their
/// addressing: check_32bit_addressing).
template <class D> dispatch_params single_params(const D& d) {
    dispatch_params p;
    p.width = static_cast<std::uint32_t>(element_size(d.input_tensor.data_type));
    detail::layout in = detail::layout_of(d.input_tensor), out = detail::layout_of(d.output_tensor);
    // UPSAMPLE_2D NEAREST_NEIGHBOR is an IDENTITY of a higher rank: each scaled axis splits
    // into (input size, scale), the inner axis stepping 0 through the input (the CPU
    // plan's view, detail::plan_upsample). A 5-D tensor becomes 7 axes; the table has 8.
    if constexpr (std::is_same_v<D, upsample_2d_desc>) std::tie(in, out) = split_scaled_axes(in, out);
    p.units = unit_count_of(calc_buffer_tensor_size(d.output_tensor), p.width);
    const auto order = set_output_rows(p, out.rank, out.extents, out.strides);
    auto& h = p.header;
    for (std::size_t k = 0; k < out.rank; ++k) {
        const std::size_t a = order[k];
        std::uint32_t* row = &p.axes[4 * k];
        std::uint32_t* row2 = &p.axes[4 * (8 + k)];
        row[2] = word(in.strides[a]);
        row2[2] = static_cast<std::uint32_t>(a);
        if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_grad_desc>) {
            // CopyStart; SLICE_GRAD's window of size 0 with a negative stride starts at
            // offset - 1 (measured), which this wrapping sum gives too.
            const std::int32_t stride = d.input_window_strides[a];
            row[3] = d.input_window_offsets[a] + (stride < 0 ? d.input_window_sizes[a] - 1 : 0);
            row2[0] = static_cast<std::uint32_t>(stride);
            row2[1] = word(in.extents[a]); // SLICE_GRAD: the gradient's size (unused by SLICE1)
        } else if constexpr (std::is_same_v<D, slice_desc>) {
            row[3] = d.offsets[a];
            row2[0] = d.strides[a];
        } else if constexpr (std::is_same_v<D, element_wise_identity_desc> || std::is_same_v<D, upsample_2d_desc>) {
            row[3] = 0; // SLICE1 with offsets 0 and strides 1 over the same (strided or broadcast) input
            row2[0] = 1;
        } else if constexpr (std::is_same_v<D, padding_desc> || std::is_same_v<D, padding1_desc>) {
            row[3] = d.start_padding[a];
            row2[0] = word(in.extents[a]);
        } else if constexpr (std::is_same_v<D, tile_desc>) {
            row[3] = 0; // PADDING in WRAP mode with StartPadding 0: input coordinate = o mod input size
            row2[0] = word(in.extents[a]);
        } else if constexpr (std::is_same_v<D, reverse_subsequences_desc>) {
            row[2] = a == d.axis ? 0u : word(in.strides[a]); // Axis' input coordinate is the reversed one
            row[3] = 0;
            row2[0] = 1;
            row2[1] = a == d.axis ? 1u : 0u; // the sequence axis
            row2[3] = a == d.axis ? 0u : word(detail::layout_of(d.sequence_lengths_tensor).strides[a]); // its coordinate 0
        }
    }
    if constexpr (detail::is_depth_space_v<D>) {
        p.family = kernel_family::depth_space;
        constexpr bool to_depth = detail::direction_of<D>() == depth_space_direction::space_to_depth;
        h[option] = (to_depth ? 1u : 0u) |
                    (detail::order_of(d) == depth_space_order::column_row_depth ? 2u : 0u);
        h[block_size] = d.block_size;
        h[channels] = word(to_depth ? in.extents[1] : out.extents[1]);
        for (std::size_t i = 0; i < 4; ++i) h[input_strides + i] = word(in.strides[i]);
    } else if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_desc> ||
                         std::is_same_v<D, element_wise_identity_desc> || std::is_same_v<D, upsample_2d_desc>) {
        p.family = kernel_family::slice;
    } else if constexpr (std::is_same_v<D, tile_desc>) {
        p.family = kernel_family::padding;
        h[option] = static_cast<std::uint32_t>(padding_mode::wrap); // fill unused: WRAP never fills
    } else if constexpr (std::is_same_v<D, slice_grad_desc>) {
        p.family = kernel_family::slice_grad; // fill: all bits clear, the zeros outside the window
    } else if constexpr (std::is_same_v<D, reverse_subsequences_desc>) {
        p.family = kernel_family::reverse_subsequences;
        h[index_shift] = index_shift_of(d.sequence_lengths_tensor.data_type);
        h[sequence_stride] = word(in.strides[d.axis]);
        h[sequence_size] = word(in.extents[d.axis]);
    } else {
        p.family = kernel_family::padding;
        h[option] = static_cast<std::uint32_t>(d.padding_mode);
        std::array<std::byte, 8> fill{};
        if constexpr (std::is_same_v<D, padding_desc>)
            fill = detail::padding_v0_value(d.output_tensor.data_type, d.padding_value);
        else
            fill = detail::padding1_value(d.output_tensor.data_type, d.padding_value); // as DirectML reads the union
        std::memcpy(&h[fill_low], fill.data(), 4);
        std::memcpy(&h[fill_high], fill.data() + 4, 4);
    }
    return p;
}

/// A GATHER-family desc's plan (the CPU library's own, filled by the op's shape rules) and what
/// checking its indices as the CPU does takes.
struct gather_setup {
    std::string_view op;
    dmlref::detail::gather_plan plan;
    dmlref::detail::layout input, indices;
    std::size_t first_axis = 0;    ///< the input axis the (first tuple entry's) index addresses
    bool per_tuple_entry = false;  ///< the ND ops: entry m addresses axis first_axis + m
    data_type index_type = data_type::uint32;
};

/// The gather setup of a valid GATHER, GATHER_ELEMENTS, GATHER_ND or GATHER_ND1 desc.
inline gather_setup gather_setup_of(const operator_desc& any) {
    namespace lib = dmlref::detail;
    return std::visit(
        [](const auto& d) -> gather_setup {
            using D = std::remove_cvref_t<decltype(d)>;
            gather_setup s;
            if constexpr (is_gather_desc_v<D>) {
                s.op = to_string(D::type);
                s.input = lib::desc_layout(d.input_tensor);
                s.indices = lib::desc_layout(d.indices_tensor);
                s.index_type = d.indices_tensor.data_type;
                const lib::layout out = lib::desc_layout(d.output_tensor);
                if constexpr (std::is_same_v<D, gather_desc>) {
                    lib::throw_if(lib::check_gather_shapes(s.op, s.input, s.indices, out, d.axis, d.index_dimensions, s.plan));
                    s.first_axis = d.axis;
                } else if constexpr (std::is_same_v<D, gather_elements_desc>) {
                    lib::throw_if(lib::check_gather_elements_shapes(s.op, s.input, s.indices, out, d.axis, s.plan));
                    s.first_axis = d.axis;
                } else {
                    std::uint32_t batch = 0;
                    if constexpr (std::is_same_v<D, gather_nd1_desc>) batch = d.batch_dimension_count;
                    lib::throw_if(lib::check_gather_nd_shapes(s.op, s.input, s.indices, out, d.input_dimension_count,
                                                              d.indices_dimension_count, batch, s.plan));
                    s.first_axis = lib::nd_first_axis(s.input.rank, d.input_dimension_count, batch);
                    s.per_tuple_entry = true;
                }
                return s;
            } else {
                throw std::logic_error("gather_setup_of: not a gather");
            }
        },
        any);
}

/// Whether the host checks operator `type`'s indices before its kernel runs (check_indices): the
/// gathers and the scatters, whose kernels trust each index to lie in [-size, size).
constexpr bool checks_indices(operator_type type) noexcept { return is_gather(type) || is_scatter(type); }

/// Checks every index the kernel of a gather or scatter desc reads, as dmlref::execute does (the
/// same validation_error): a gather's against the input axis each addresses (its plan's, so a
/// dropped axis is read at coordinate 0 alone), a scatter's against the output's.
inline void check_indices(const operator_desc& any, const std::byte* indices) {
    namespace lib = dmlref::detail;
    if (is_gather(type_of(any))) {
        const gather_setup s = gather_setup_of(any);
        return lib::check_gather_indices(s.op, s.plan, s.indices, {s.first_axis, s.per_tuple_entry, &s.input}, indices,
                                         s.index_type);
    }
    std::visit(
        [&](const auto& d) {
            using D = std::remove_cvref_t<decltype(d)>;
            if constexpr (is_scatter_desc_v<D>) {
                const lib::layout out = lib::desc_layout(d.output_tensor);
                lib::index_axes axes{0, false, &out};
                if constexpr (std::is_same_v<D, scatter_elements_desc>) axes.first_axis = d.axis;
                else axes = {lib::nd_first_axis(out.rank, d.input_dimension_count, 0), true, &out};
                lib::throw_if(lib::check_indices(to_string(D::type), "IndicesTensor", indices,
                                                 lib::desc_layout(d.indices_tensor), d.indices_tensor.data_type,
                                                 "OutputTensor", axes));
            } else {
                throw std::logic_error("kernels::check_indices: not a gather or a scatter");
            }
        },
        any);
}

/// The gather kernel's parameters: the plan's walk over the output (axis rows by decreasing output
/// stride: output stride and size, the input step, the index step) and its tuple.
inline dispatch_params gather_params(const operator_desc& any) {
    const gather_setup s = gather_setup_of(any);
    const dmlref::detail::gather_plan& g = s.plan;
    const buffer_tensor_desc& output = outputs_of(any).front().desc();
    dispatch_params p;
    p.family = kernel_family::gather;
    p.width = static_cast<std::uint32_t>(element_size(output.data_type));
    p.units = unit_count_of(calc_buffer_tensor_size(output), p.width);
    const auto order = set_output_rows(p, g.rank, g.extent, g.walked_stride);
    for (std::size_t k = 0; k < g.rank; ++k) {
        const std::size_t a = order[k];
        p.axes[4 * k + 2] = word(g.addressed_step[a]);
        p.axes[4 * (8 + k) + 3] = word(g.index_step[a]);
    }
    for (std::size_t m = 0; m < g.tuple; ++m) {
        p.axes[4 * (8 + m) + 0] = word(g.axis_stride[m]);
        p.axes[4 * (8 + m) + 1] = word(g.axis_size[m]);
    }
    auto& h = p.header;
    h[index_shift] = index_shift_of(s.index_type);
    h[tuple_count] = static_cast<std::uint32_t>(g.tuple);
    h[tuple_step] = word(g.tuple_step);
    return p;
}

/// The ONE_HOT kernel's parameters: per output axis the IndicesTensor's stride (0 on Axis, whose
/// coordinate the kernel compares with the index), OnValue's element and the index's type.
inline dispatch_params one_hot_params(const one_hot_desc& d) {
    namespace lib = dmlref::detail;
    const lib::layout idx = lib::desc_layout(d.indices_tensor), out = lib::desc_layout(d.output_tensor);
    dispatch_params p;
    p.family = kernel_family::one_hot;
    p.width = static_cast<std::uint32_t>(element_size(d.output_tensor.data_type));
    p.units = unit_count_of(calc_buffer_tensor_size(d.output_tensor), p.width);
    const auto order = set_output_rows(p, out.rank, out.extents, out.strides);
    for (std::size_t k = 0; k < out.rank; ++k) {
        const std::size_t a = order[k];
        std::uint32_t* row2 = &p.axes[4 * (8 + k)];
        row2[1] = a == d.axis ? 1u : 0u;
        row2[3] = a == d.axis ? 0u : word(idx.strides[a]);
    }
    auto& h = p.header;
    h[index_shift] = index_shift_of(d.indices_tensor.data_type);
    h[on_value] = word(lib::one_hot_values(lib::desc_layout(d.values_tensor)).second);
    h[sequence_size] = word(out.extents[d.axis]);
    h[index_signed] = d.indices_tensor.data_type == data_type::int32 || d.indices_tensor.data_type == data_type::int64
                          ? 0xffff'ffffu
                          : 0u;
    return p;
}

/// The sizes of `part` over the strides of `whole`: the part's sub-view of the whole tensor (its
/// first element at offset 0; the caller passes where it starts as a base offset).
inline buffer_tensor_desc part_view(const buffer_tensor_desc& whole, const buffer_tensor_desc& part) {
    buffer_tensor_desc view = whole;
    view.sizes = part.sizes;
    view.strides = whole.strides ? *whole.strides : packed_strides(whole.sizes);
    return view;
}

/// The scatter kernel's parameters for a valid SCATTER_ELEMENTS or SCATTER_ND desc: the second of
/// its two dispatches (the first copies InputTensor to OutputTensor). Each output element o finds
/// the updates that can land on it: those whose coordinates equal o's on the "fixed" axes (all
/// but Axis; SCATTER_ND: the trailing R = InputDimensionCount - T axes, T the tuple length) and
/// run over the "free" ones (Axis; SCATTER_ND: the updates' axes of the index tuples, which match
/// the IndicesTensor's leading axes). The updates and the output are right-aligned to one rank,
/// so a fixed axis has one number in both (checked here, as are the sizes the kernel relies on).
template <class D> dispatch_params scatter_params(const D& d) {
    static_assert(is_scatter_desc_v<D>, "scatter_params: SCATTER_ELEMENTS and SCATTER_ND only");
    const dmlref::detail::layout out = dmlref::detail::desc_layout(d.output_tensor),
                                 upd = dmlref::detail::desc_layout(d.updates_tensor),
                                 idx = dmlref::detail::desc_layout(d.indices_tensor);
    const std::size_t n = out.rank;
    auto require = [](bool holds, const char* what) {
        if (!holds) throw std::logic_error(fmt::format("scatter_params: {} (the desc layer accepted the desc)", what));
    };
    std::array<std::uint32_t, dmlref::detail::max_plan_rank> fixed_upd{}, fixed_idx{}, target{};
    struct free_row {
        std::uint32_t size, upd_stride, idx_stride;
    };
    std::vector<free_row> free_axes;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> tuple; // (output size, output stride) per entry
    std::uint32_t tuple_step = 0;
    if constexpr (std::is_same_v<D, scatter_elements_desc>) {
        const std::size_t a = d.axis;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == a) continue;
            require(upd.extents[j] == out.extents[j] && idx.extents[j] == out.extents[j],
                    "UpdatesTensor and IndicesTensor match OutputTensor off Axis");
            fixed_upd[j] = word(upd.strides[j]);
            fixed_idx[j] = word(idx.strides[j]);
        }
        target[a] = word(out.strides[a]);
        free_axes.push_back({word(upd.extents[a]), word(upd.strides[a]), word(idx.strides[a])});
        tuple.emplace_back(word(out.extents[a]), word(out.strides[a]));
    } else {
        const auto i_dims = static_cast<std::ptrdiff_t>(d.input_dimension_count),
                   j_dims = static_cast<std::ptrdiff_t>(d.indices_dimension_count), axes = static_cast<std::ptrdiff_t>(n);
        const std::ptrdiff_t t = idx.extents[n - 1], r = i_dims - t, first = axes - i_dims;
        const std::ptrdiff_t first_free = axes - r - (j_dims - 1); // the updates' first tuple axis
        require(t >= 1 && r >= 0 && first_free >= 0, "the updates' logical shape fits the rank");
        for (std::ptrdiff_t m = 0; m < t; ++m) {
            const auto j = static_cast<std::size_t>(first + m);
            target[j] = word(out.strides[j]);
            tuple.emplace_back(word(out.extents[j]), word(out.strides[j]));
        }
        for (std::size_t j = static_cast<std::size_t>(axes - r); j < n; ++j) {
            require(upd.extents[j] == out.extents[j], "UpdatesTensor matches OutputTensor on the trailing R axes");
            fixed_upd[j] = word(upd.strides[j]);
        }
        for (std::ptrdiff_t j = 0; j < first_free; ++j)
            require(upd.extents[static_cast<std::size_t>(j)] == 1, "the updates' leading axes are 1");
        for (std::ptrdiff_t e = 0; e + 1 < j_dims; ++e) {
            const auto uj = static_cast<std::size_t>(first_free + e), ij = static_cast<std::size_t>(axes - j_dims + e);
            require(upd.extents[uj] == idx.extents[ij], "UpdatesTensor's tuple axes match IndicesTensor's");
            free_axes.push_back({word(upd.extents[uj]), word(upd.strides[uj]), word(idx.strides[ij])});
        }
        tuple_step = word(idx.strides[n - 1]);
    }
    require(free_axes.size() <= 8 && tuple.size() <= 8, "at most 8 free axes and tuple entries");

    dispatch_params p;
    p.family = kernel_family::scatter;
    p.width = static_cast<std::uint32_t>(element_size(d.output_tensor.data_type));
    p.units = unit_count_of(calc_buffer_tensor_size(d.output_tensor), p.width);
    const auto order = set_output_rows(p, n, out.extents, out.strides);
    auto& h = p.header;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t a = order[k];
        std::uint32_t* row = &p.axes[4 * k];
        std::uint32_t* row2 = &p.axes[4 * (8 + k)];
        row[2] = fixed_upd[a];
        row[3] = fixed_idx[a];
        row2[0] = target[a];
        row2[2] = static_cast<std::uint32_t>(a);
    }
    std::uint64_t candidates = 1;
    for (std::size_t f = 0; f < free_axes.size(); ++f) {
        std::uint32_t* row = &p.axes[4 * (16 + f)];
        row[0] = free_axes[f].size;
        row[1] = free_axes[f].upd_stride;
        row[2] = free_axes[f].idx_stride;
        candidates *= free_axes[f].size;
    }
    for (std::size_t m = 0; m < tuple.size(); ++m) {
        std::uint32_t* row = &p.axes[4 * (24 + m)];
        row[0] = tuple[m].first;
        row[1] = tuple[m].second;
    }
    require(candidates <= 0xffff'ffffu, "fewer than 2^32 updates");
    h[index_shift] = index_shift_of(d.indices_tensor.data_type);
    h[scatter_free_count] = static_cast<std::uint32_t>(free_axes.size());
    h[scatter_tuple_count] = static_cast<std::uint32_t>(tuple.size());
    h[scatter_tuple_step] = tuple_step;
    h[scatter_candidates] = static_cast<std::uint32_t>(candidates);
    return p;
}

/// The dispatches that run a valid desc (the desc layer has checked it): one for the operators
/// with one input and one output; for JOIN and SPLIT one per part with elements, each an
/// ELEMENT_WISE_IDENTITY between the part and its sub-view of the whole tensor, which starts at the
/// part's offset along Axis (output_base for JOIN, input_base for SPLIT); two for SCATTER_ELEMENTS
/// and SCATTER_ND (the copy, then the scatter: scatter_params). Throws validation_error for an
/// operator no kernel runs (refuse_without_kernel), and where a tensor
/// is beyond the kernels' 32-bit addressing (check_32bit_addressing).
inline std::vector<dispatch_step> make_dispatches(const operator_desc& any) {
    refuse_without_kernel(type_of(any));
    check_32bit_addressing(any);
    return std::visit(
        [&](const auto& d) -> std::vector<dispatch_step> {
            using D = std::remove_cvref_t<decltype(d)>;
            if constexpr (is_single_tensor_desc_v<D>) {
                return {dispatch_step{single_params(d), 0, 0}};
            } else if constexpr (is_gather_desc_v<D>) {
                return {dispatch_step{gather_params(any), 0, 0, 1}}; // InputTensor t0, IndicesTensor t1
            } else if constexpr (std::is_same_v<D, one_hot_desc>) {
                return {dispatch_step{one_hot_params(d), 1, 0, 0}}; // ValuesTensor t0, IndicesTensor t1
            } else if constexpr (std::is_same_v<D, reverse_subsequences_desc>) {
                return {dispatch_step{single_params(d), 0, 0, 1}}; // InputTensor t0, SequenceLengthsTensor t1
            } else if constexpr (std::is_same_v<D, join_desc> || std::is_same_v<D, split_desc>) {
                constexpr bool is_join = std::is_same_v<D, join_desc>;
                const auto& parts = [&]() -> const std::vector<buffer_tensor_desc>& {
                    if constexpr (is_join) return d.input_tensors; else return d.output_tensors;
                }();
                const buffer_tensor_desc& whole = [&]() -> const buffer_tensor_desc& {
                    if constexpr (is_join) return d.output_tensor; else return d.input_tensor;
                }();
                const std::vector<std::uint32_t> strides = whole.strides ? *whole.strides : packed_strides(whole.sizes);
                const std::uint64_t whole_bytes = calc_buffer_tensor_size(whole);
                std::vector<dispatch_step> steps;
                std::uint64_t offset = 0; // along Axis: the parts before this one
                for (std::size_t k = 0; k < parts.size(); ++k) {
                    const buffer_tensor_desc& part = parts[k];
                    // The element the part starts at in the whole (below 2^32: the whole's last
                    // element is at most its size in bytes).
                    const auto base = static_cast<std::uint32_t>(offset * strides[d.axis]);
                    offset += part.sizes[d.axis];
                    if (element_count(part.sizes) == 0) continue;
                    const buffer_tensor_desc view = part_view(whole, part);
                    dispatch_step step;
                    if constexpr (is_join) {
                        step.params = single_params(element_wise_identity_desc{part, view, std::nullopt});
                        step.params.header[output_base] = base;
                        // Threads over the whole output buffer: the part's elements lie past the
                        // sub-view's own extent, from the base on.
                        step.params.units = unit_count_of(whole_bytes, step.params.width);
                        step.input = k;
                    } else {
                        step.params = single_params(element_wise_identity_desc{view, part, std::nullopt});
                        step.params.header[input_base] = base;
                        step.output = k;
                    }
                    steps.push_back(step);
                }
                return steps;
            } else if constexpr (is_scatter_desc_v<D>) {
                // InputTensor copied to OutputTensor, then the updates (t0) placed by the indices (t1).
                return {dispatch_step{single_params(element_wise_identity_desc{d.input_tensor, d.output_tensor,
                                                                                std::nullopt}),
                                      0, 0, 0},
                        dispatch_step{scatter_params(d), 2, 0, 1}};
            } else {
                throw std::logic_error("make_dispatches: refused above");
            }
        },
        any);
}

/// The kernel parameters of a valid desc with one input and one output tensor (make_dispatches'
/// one dispatch). Throws validation_error as make_dispatches does, and for JOIN and SPLIT, which
/// take a dispatch per part, and the scatters, which take two (make_dispatches).
inline dispatch_params make_params(const operator_desc& any) {
    if (binds_tensor_arrays(type_of(any)))
        throw validation_error(fmt::format("{}: binds tensor arrays and runs as one dispatch per part; "
                                           "kernels::make_dispatches gives them",
                                           to_string(type_of(any))));
    if (const operator_type type = type_of(any); is_scatter(type))
        throw validation_error(fmt::format("{}: runs as two dispatches (the copy of InputTensor, then the scatter); "
                                           "kernels::make_dispatches gives them",
                                           to_string(type)));
    return make_dispatches(any).front().params;
}

namespace detail {

using namespace dxbc;

/// Temp registers of the kernels (the .x component of each), named as in the HLSL.
enum reg : std::uint32_t {
    r_unit, r_test, r_valid, r_src, r_fill, r_value /* .xy */, r_address, r_word, r_offset, r_rem, r_k, r_c,
    r_t, r_s0, r_s1, r_s2, r_s3, r_s4, r_s5, r_s6, r_s7, r_s8, r_c0, r_c1, r_c2, r_c3, reg_count
};

inline operand dst(std::uint32_t n) { return r(n).mask(mask_x); }
inline operand src(std::uint32_t n) { return r(n).x(); }
inline operand header(std::uint32_t word) { return cb(0, word / 4).select(word % 4); }
/// cb1[base + k].component: the per-axis table at the loop counter.
inline operand axis(std::uint32_t base, std::uint32_t component) {
    return operand::cb_relative(1, base, src(r_k)).select(component);
}
inline constexpr std::uint32_t all_ones = 0xffff'ffffu;

/// Whether the kernels of `family` read a second raw buffer (t1): the indices or lengths.
constexpr bool reads_second_buffer(kernel_family family) noexcept {
    return family == kernel_family::gather || family == kernel_family::reverse_subsequences ||
           family == kernel_family::one_hot || family == kernel_family::scatter;
}

/// The scatter kernel's search (scatter.hlsl's `if (valid)` block), after the axis loop has left
/// r_src = the fixed part of the update offset, r_c0 = that of the index offset and r_c1 = the
/// target, o's offset along the tuple's axes: the candidates from the last to the first (the
/// faulty kernel: first to last); the first whose indices address the target gives r_src, and
/// r_valid stays set only when one does.
inline void emit_scatter_search(program& p, testing::kernel_fault fault) {
    const operand candidates = header(scatter_candidates);
    p.if_nonzero(src(r_valid));
    p.emit(op::mov, {dst(r_s7), imm(0)}); // chosen
    p.emit(op::mov, {dst(r_s8), imm(0)}); // found
    p.emit(op::mov, {dst(r_c2), imm(0)}); // n
    p.loop();
    p.emit(op::uge, {dst(r_test), src(r_c2), candidates});
    p.breakc_nonzero(src(r_test));
    // q = candidates - 1 - n: the last update first, so the first match is the last that lands.
    if (fault == testing::kernel_fault::scatter_first_wins) {
        p.emit(op::mov, {dst(r_rem), src(r_c2)});
    } else {
        p.emit(op::iadd, {dst(r_rem), candidates, src(r_c2).negated()});
        p.emit(op::iadd, {dst(r_rem), src(r_rem), imm(all_ones)});
    }
    // u = src, i_at = at; the free axes from the innermost: c = q % size, q = q / size.
    p.emit(op::mov, {dst(r_s0), src(r_src)});
    p.emit(op::mov, {dst(r_s1), src(r_c0)});
    p.emit(op::mov, {dst(r_k), header(scatter_free_count)});
    p.loop();
    p.emit(op::ieq, {dst(r_test), src(r_k), imm(0)});
    p.breakc_nonzero(src(r_test));
    p.emit(op::iadd, {dst(r_k), src(r_k), imm(all_ones)});
    p.emit(op::udiv, {dst(r_rem), dst(r_c), src(r_rem), axis(16, 0)});
    p.emit(op::imad, {dst(r_s0), src(r_c), axis(16, 1), src(r_s0)});
    p.emit(op::imad, {dst(r_s1), src(r_c), axis(16, 2), src(r_s1)});
    p.endloop();
    // address = sum over the tuple's entries m of wrap(index m) * OutputStride.
    p.emit(op::mov, {dst(r_s2), imm(0)});
    p.emit(op::mov, {dst(r_k), imm(0)});
    p.loop();
    p.emit(op::uge, {dst(r_test), src(r_k), header(scatter_tuple_count)});
    p.breakc_nonzero(src(r_test));
    p.emit(op::imad, {dst(r_t), src(r_k), header(scatter_tuple_step), src(r_s1)});
    p.emit(op::ishl, {dst(r_t), src(r_t), header(index_shift)});
    p.emit(op::ld_raw, {dst(r_s4), src(r_t), t(1).swizzle(0)});
    p.emit(op::ilt, {dst(r_s5), src(r_s4), imm(0)});
    p.emit(op::iadd, {dst(r_s6), src(r_s4), axis(24, 0)});
    p.emit(op::movc, {dst(r_s4), src(r_s5), src(r_s6), src(r_s4)});
    p.emit(op::imad, {dst(r_s2), src(r_s4), axis(24, 1), src(r_s2)});
    p.emit(op::iadd, {dst(r_k), src(r_k), imm(1)});
    p.endloop();
    // address == target: this update lands on o; the search ends.
    p.emit(op::ieq, {dst(r_s6), src(r_s2), src(r_c1)});
    p.emit(op::movc, {dst(r_s7), src(r_s6), src(r_s0), src(r_s7)});
    p.emit(op::or_, {dst(r_s8), src(r_s8), src(r_s6)});
    p.breakc_nonzero(src(r_s6));
    p.emit(op::iadd, {dst(r_c2), src(r_c2), imm(1)});
    p.endloop();
    p.emit(op::mov, {dst(r_src), src(r_s7)});
    p.emit(op::mov, {dst(r_valid), src(r_s8)});
    p.endif();
}

/// locate(offset): r_valid = whether element offset r_offset is an element of the output tensor,
/// r_src = the input element it copies, r_fill = whether it takes the padding constant instead.
inline void emit_locate(program& p, kernel_family family, testing::kernel_fault fault) {
    p.emit(op::mov, {dst(r_rem), src(r_offset)});
    p.emit(op::mov, {dst(r_k), imm(0)});
    p.emit(op::mov, {dst(r_valid), imm(all_ones)});
    p.emit(op::mov, {dst(r_src), imm(0)});
    p.emit(op::mov, {dst(r_fill), imm(0)});
    if (family == kernel_family::depth_space)
        for (std::uint32_t j = 0; j < 4; ++j) p.emit(op::mov, {dst(r_c0 + j), imm(0)});
    if (reads_second_buffer(family)) {
        // at: the index (length) element (scatter: the fixed part of its offset); o: the position
        // in the sequence (REVERSE_SUBSEQUENCES, ONE_HOT; scatter: the target, o's offset along
        // the axes the index tuple addresses)
        p.emit(op::mov, {dst(r_c0), imm(0)});
        p.emit(op::mov, {dst(r_c1), imm(0)});
    }
    p.loop();
    p.emit(op::uge, {dst(r_test), src(r_k), header(rank)});
    p.breakc_nonzero(src(r_test));
    // c = rem / stride, rem = rem % stride; an offset with c >= size is no element.
    p.emit(op::udiv, {dst(r_c), dst(r_rem), src(r_rem), axis(0, 0)});
    p.emit(op::uge, {dst(r_test), src(r_c), axis(0, 1)});
    p.emit(op::movc, {dst(r_valid), src(r_test), imm(0), src(r_valid)});
    switch (family) {
    case kernel_family::slice:
        // src += (CopyStart + WindowStride * c) * InputStride
        p.emit(op::imad, {dst(r_t), axis(8, 0), src(r_c), axis(0, 3)});
        p.emit(op::imad, {dst(r_src), src(r_t), axis(0, 2), src(r_src)});
        break;
    case kernel_family::depth_space:
        // Keep c as the coordinate of the desc's axis this row describes.
        for (std::uint32_t j = 0; j < 4; ++j) {
            p.emit(op::ieq, {dst(r_test), axis(8, 2), imm(j)});
            p.emit(op::movc, {dst(r_c0 + j), src(r_test), src(r_c), src(r_c0 + j)});
        }
        break;
    case kernel_family::padding: {
        // t = c - StartPadding; n = the input size; outside when t is not in [0, n) (unsigned).
        const operand n = axis(8, 0), mode = header(option);
        p.emit(op::iadd, {dst(r_t), src(r_c), axis(0, 3).negated()});
        p.emit(op::uge, {dst(r_test), src(r_t), n});
        p.if_nonzero(src(r_test));
        {
            // CONSTANT: the element takes the padding value.
            p.emit(op::ieq, {dst(r_s0), mode, imm(0)});
            p.emit(op::or_, {dst(r_fill), src(r_fill), src(r_s0)});
            // The period p: REFLECTION 2n - 2, SYMMETRIC 2n, WRAP (and EDGE, unused) n.
            p.emit(op::ieq, {dst(r_s1), mode, imm(2)});
            p.emit(op::ieq, {dst(r_s2), mode, imm(3)});
            p.emit(op::ishl, {dst(r_s3), n, imm(1)});
            p.emit(op::iadd, {dst(r_s4), src(r_s3), imm(static_cast<std::uint32_t>(-2))});
            p.emit(op::movc, {dst(r_s5), src(r_s2), src(r_s3), n});
            p.emit(op::movc, {dst(r_s5), src(r_s1), src(r_s4), src(r_s5)});
            // REFLECTION of one element has period 0: fold with period 1, so it repeats.
            p.emit(op::ieq, {dst(r_s6), src(r_s5), imm(0)});
            p.emit(op::movc, {dst(r_s5), src(r_s6), imm(1), src(r_s5)});
            if (fault == testing::kernel_fault::off_by_one_fold) p.emit(op::iadd, {dst(r_s5), src(r_s5), imm(1)});
            // m = t mod p, non-negative: |t| % p, then p - that for negative t (when not 0).
            p.emit(op::ilt, {dst(r_s0), src(r_t), imm(0)});
            p.emit(op::ineg, {dst(r_s4), src(r_t)});
            p.emit(op::movc, {dst(r_s4), src(r_s0), src(r_s4), src(r_t)});
            p.emit(op::udiv, {dst(r_s6), dst(r_s4), src(r_s4), src(r_s5)});
            p.emit(op::ine, {dst(r_s6), src(r_s4), imm(0)});
            p.emit(op::and_, {dst(r_s6), src(r_s6), src(r_s0)});
            p.emit(op::iadd, {dst(r_s7), src(r_s5), src(r_s4).negated()});
            p.emit(op::movc, {dst(r_s4), src(r_s6), src(r_s7), src(r_s4)});
            // Folded: m < n ? m : p - m (REFLECTION, WRAP), p - 1 - m (SYMMETRIC; r_s2 is -1 then).
            p.emit(op::ult, {dst(r_s6), src(r_s4), n});
            p.emit(op::iadd, {dst(r_s7), src(r_s5), src(r_s4).negated()});
            p.emit(op::iadd, {dst(r_s7), src(r_s7), src(r_s2)});
            p.emit(op::movc, {dst(r_s8), src(r_s6), src(r_s4), src(r_s7)});
            // EDGE: t < 0 ? 0 : n - 1.
            p.emit(op::ieq, {dst(r_s1), mode, imm(1)});
            p.emit(op::iadd, {dst(r_s7), n, imm(all_ones)});
            p.emit(op::movc, {dst(r_s7), src(r_s0), imm(0), src(r_s7)});
            p.emit(op::movc, {dst(r_t), src(r_s1), src(r_s7), src(r_s8)});
        }
        p.endif();
        p.emit(op::imad, {dst(r_src), src(r_t), axis(0, 2), src(r_src)});
        break;
    }
    case kernel_family::gather:
    case kernel_family::reverse_subsequences:
    case kernel_family::one_hot:
        // src += c * InputStride (0 where the index chooses); at += c * IndicesStride
        p.emit(op::imad, {dst(r_src), src(r_c), axis(0, 2), src(r_src)});
        p.emit(op::imad, {dst(r_c0), src(r_c), axis(8, 3), src(r_c0)});
        if (family != kernel_family::gather) p.emit(op::movc, {dst(r_c1), axis(8, 1), src(r_c), src(r_c1)});
        break;
    case kernel_family::scatter:
        // src += c * UpdatesStride; at += c * IndicesStride (both 0 on the free axes);
        // target += c * OutputStride on the tuple's axes
        p.emit(op::imad, {dst(r_src), src(r_c), axis(0, 2), src(r_src)});
        p.emit(op::imad, {dst(r_c0), src(r_c), axis(0, 3), src(r_c0)});
        p.emit(op::imad, {dst(r_c1), src(r_c), axis(8, 0), src(r_c1)});
        break;
    case kernel_family::slice_grad: {
        // The window's element q sits at CopyStart + stride * q. t = c - CopyStart, negated for a
        // negative stride; c holds element q = t / |stride| when t >= 0, the division is exact
        // and q < n, the gradient's size; otherwise it takes the zero fill.
        p.emit(op::iadd, {dst(r_t), src(r_c), axis(0, 3).negated()});
        p.emit(op::ilt, {dst(r_s0), axis(8, 0), imm(0)});
        p.emit(op::ineg, {dst(r_s1), src(r_t)});
        p.emit(op::movc, {dst(r_t), src(r_s0), src(r_s1), src(r_t)});
        p.emit(op::ineg, {dst(r_s2), axis(8, 0)});
        p.emit(op::movc, {dst(r_s2), src(r_s0), src(r_s2), axis(8, 0)}); // |stride| (2^31 for INT32_MIN, unsigned)
        p.emit(op::ilt, {dst(r_s3), src(r_t), imm(0)});
        p.emit(op::udiv, {dst(r_s4), dst(r_s5), src(r_t), src(r_s2)});
        p.emit(op::ine, {dst(r_s5), src(r_s5), imm(0)});
        if (fault == testing::kernel_fault::slice_grad_no_gaps) p.emit(op::mov, {dst(r_s5), imm(0)});
        p.emit(op::uge, {dst(r_s6), src(r_s4), axis(8, 1)});
        p.emit(op::or_, {dst(r_s3), src(r_s3), src(r_s5)});
        p.emit(op::or_, {dst(r_s3), src(r_s3), src(r_s6)});
        p.emit(op::or_, {dst(r_fill), src(r_fill), src(r_s3)});
        p.emit(op::imad, {dst(r_src), src(r_s4), axis(0, 2), src(r_src)});
        break;
    }
    }
    p.emit(op::iadd, {dst(r_k), src(r_k), imm(1)});
    p.endloop();
    p.emit(op::ine, {dst(r_test), src(r_rem), imm(0)});
    p.emit(op::movc, {dst(r_valid), src(r_test), imm(0), src(r_valid)});
    if (family == kernel_family::gather) {
        // Only an element reads its indices (a gap's `at` may lie past the indices' buffer).
        p.if_nonzero(src(r_valid));
        // Per tuple entry m (the loop counter k again, so that axis(8, .) reads row 8 + m):
        // i = the index element's low word, its value, sign included, once the host has checked it
        // lies in [-size, size); a negative index counts from the end: i + size.
        p.emit(op::mov, {dst(r_k), imm(0)});
        p.loop();
        p.emit(op::uge, {dst(r_test), src(r_k), header(tuple_count)});
        p.breakc_nonzero(src(r_test));
        if (fault == testing::kernel_fault::gather_tuple_first_entry)
            p.emit(op::mov, {dst(r_t), src(r_c0)});
        else
            p.emit(op::imad, {dst(r_t), src(r_k), header(tuple_step), src(r_c0)});
        p.emit(op::ishl, {dst(r_t), src(r_t), header(index_shift)});
        p.emit(op::ld_raw, {dst(r_t), src(r_t), t(1).swizzle(0)});
        p.emit(op::ilt, {dst(r_s0), src(r_t), imm(0)});
        if (fault == testing::kernel_fault::gather_negative_from_start)
            p.emit(op::iadd, {dst(r_s1), src(r_t).negated(), imm(all_ones)}); // -1 - i
        else
            p.emit(op::iadd, {dst(r_s1), src(r_t), axis(8, 1)});
        p.emit(op::movc, {dst(r_t), src(r_s0), src(r_s1), src(r_t)});
        p.emit(op::imad, {dst(r_src), src(r_t), axis(8, 0), src(r_src)});
        p.emit(op::iadd, {dst(r_k), src(r_k), imm(1)});
        p.endloop();
        p.endif();
    }
    if (family == kernel_family::one_hot) {
        const operand n = header(sequence_size);
        p.if_nonzero(src(r_valid));
        // lo, hi: the index's words; a 32-bit index's hi is its extension (the sign for signed).
        p.emit(op::ishl, {dst(r_t), src(r_c0), header(index_shift)});
        p.emit(op::ld_raw, {dst(r_s0), src(r_t), t(1).swizzle(0)});
        p.emit(op::ilt, {dst(r_s2), src(r_s0), imm(0)});
        p.emit(op::and_, {dst(r_s2), src(r_s2), header(index_signed)});
        p.emit(op::mov, {dst(r_s1), src(r_s2)});
        p.emit(op::ieq, {dst(r_test), header(index_shift), imm(3)});
        if (fault != testing::kernel_fault::one_hot_low_word_only) {
            p.if_nonzero(src(r_test));
            p.emit(op::iadd, {dst(r_t), src(r_t), imm(4)});
            p.emit(op::ld_raw, {dst(r_s1), src(r_t), t(1).swizzle(0)});
            p.endif();
        }
        // In range: hi extends lo, and lo (+ n when negative) lies in [0, n).
        p.emit(op::ieq, {dst(r_s3), src(r_s1), src(r_s2)});
        p.emit(op::iadd, {dst(r_s4), src(r_s0), n});
        p.emit(op::movc, {dst(r_s0), src(r_s2), src(r_s4), src(r_s0)});
        p.emit(op::ult, {dst(r_s4), src(r_s0), n});
        p.emit(op::and_, {dst(r_s3), src(r_s3), src(r_s4)});
        // Hot where the wrapped index is o, this element's coordinate on Axis: OnValue, else OffValue (element 0).
        p.emit(op::ieq, {dst(r_s4), src(r_s0), src(r_c1)});
        p.emit(op::and_, {dst(r_s3), src(r_s3), src(r_s4)});
        p.emit(op::movc, {dst(r_src), src(r_s3), header(on_value), imm(0)});
        p.endif();
    }
    if (family == kernel_family::scatter) emit_scatter_search(p, fault);
    if (family == kernel_family::reverse_subsequences) {
        const operand n = header(sequence_size);
        p.if_nonzero(src(r_valid));
        // The length: its low word, and for a UINT64 its high word too.
        p.emit(op::ishl, {dst(r_t), src(r_c0), header(index_shift)});
        p.emit(op::ld_raw, {dst(r_s0), src(r_t), t(1).swizzle(0)});
        p.emit(op::mov, {dst(r_s1), imm(0)});
        p.emit(op::ieq, {dst(r_test), header(index_shift), imm(3)});
        p.if_nonzero(src(r_test));
        p.emit(op::iadd, {dst(r_t), src(r_t), imm(4)});
        p.emit(op::ld_raw, {dst(r_s1), src(r_t), t(1).swizzle(0)});
        p.endif();
        // len = min(length, 2n - 1): past that every element reads the axis' last one.
        p.emit(op::ishl, {dst(r_s2), n, imm(1)});
        p.emit(op::iadd, {dst(r_s2), src(r_s2), imm(all_ones)});
        if (fault == testing::kernel_fault::reverse_clamp_to_axis) p.emit(op::mov, {dst(r_s2), n});
        p.emit(op::uge, {dst(r_s3), src(r_s0), src(r_s2)});
        p.emit(op::ine, {dst(r_s4), src(r_s1), imm(0)});
        p.emit(op::or_, {dst(r_s3), src(r_s3), src(r_s4)});
        p.emit(op::movc, {dst(r_s0), src(r_s3), src(r_s2), src(r_s0)});
        // o < len reads min(len - 1 - o, n - 1); o >= len reads o.
        p.emit(op::iadd, {dst(r_s5), src(r_s0), src(r_c1).negated()});
        p.emit(op::iadd, {dst(r_s5), src(r_s5), imm(all_ones)});
        p.emit(op::iadd, {dst(r_s6), n, imm(all_ones)});
        p.emit(op::ult, {dst(r_s7), src(r_s5), src(r_s6)});
        p.emit(op::movc, {dst(r_s5), src(r_s7), src(r_s5), src(r_s6)});
        p.emit(op::uge, {dst(r_s7), src(r_c1), src(r_s0)});
        p.emit(op::movc, {dst(r_t), src(r_s7), src(r_c1), src(r_s5)});
        p.emit(op::imad, {dst(r_src), src(r_t), header(sequence_stride), src(r_src)});
        p.endif();
    }
    if (family != kernel_family::depth_space) return;

    // The depth/space equation on (c0, c1, c2, c3) = the output's (N, C, H, W) coordinates.
    const operand b = header(block_size), c_prime = header(channels);
    const bool swapped = fault == testing::kernel_fault::swapped_depth_space_order;
    auto if_crd = [&] { // if (COLUMN_ROW_DEPTH), or its opposite in the faulty kernel
        p.emit(op::and_, {dst(r_test), header(option), imm(2)});
        if (swapped) p.if_zero(src(r_test));
        else p.if_nonzero(src(r_test));
    };
    auto input_offset = [&](std::uint32_t n_, std::uint32_t c_, std::uint32_t h_, std::uint32_t w_) {
        p.emit(op::imad, {dst(r_src), src(n_), header(input_strides + 0), imm(0)});
        p.emit(op::imad, {dst(r_src), src(c_), header(input_strides + 1), src(r_src)});
        p.emit(op::imad, {dst(r_src), src(h_), header(input_strides + 2), src(r_src)});
        p.emit(op::imad, {dst(r_src), src(w_), header(input_strides + 3), src(r_src)});
    };
    p.emit(op::and_, {dst(r_test), header(option), imm(1)});
    p.if_zero(src(r_test));
    {
        // DepthToSpace: out (n, c, y, x) <- in (n, cd, y / B, x / B); bh = y % B, bw = x % B.
        p.emit(op::udiv, {dst(r_s1), dst(r_s2), src(r_c2), b}); // h, bh
        p.emit(op::udiv, {dst(r_s3), dst(r_s4), src(r_c3), b}); // w, bw
        if_crd();
        p.emit(op::imad, {dst(r_s5), src(r_c1), b, src(r_s2)}); // cd = (c * B + bh) * B + bw
        p.emit(op::imad, {dst(r_s5), src(r_s5), b, src(r_s4)});
        p.else_();
        p.emit(op::imad, {dst(r_s5), src(r_s2), b, src(r_s4)}); // cd = (bh * B + bw) * C' + c
        p.emit(op::imad, {dst(r_s5), src(r_s5), c_prime, src(r_c1)});
        p.endif();
        input_offset(r_c0, r_s5, r_s1, r_s3);
    }
    p.else_();
    {
        // SpaceToDepth: out (n, cd, h, w) <- in (n, c, h * B + bh, w * B + bw).
        if_crd();
        p.emit(op::udiv, {dst(r_s1), dst(r_s4), src(r_c1), b});  // q = cd / B, bw = cd % B
        p.emit(op::udiv, {dst(r_s5), dst(r_s2), src(r_s1), b});  // c = q / B, bh = q % B
        p.else_();
        p.emit(op::udiv, {dst(r_s1), dst(r_s5), src(r_c1), c_prime}); // q = cd / C', c = cd % C'
        p.emit(op::udiv, {dst(r_s2), dst(r_s4), src(r_s1), b});         // bh = q / B, bw = q % B
        p.endif();
        p.emit(op::imad, {dst(r_s6), src(r_c2), b, src(r_s2)}); // y = h * B + bh
        p.emit(op::imad, {dst(r_s7), src(r_c3), b, src(r_s4)}); // x = w * B + bw
        input_offset(r_c0, r_s5, r_s6, r_s7);
    }
    p.endif();
}

} // namespace detail

/// The DXBC container of a kernel for elements of `width` bytes (1, 2, 4 or 8).
inline std::vector<std::uint32_t> bytecode(kernel_family family, std::uint32_t width,
                                           testing::kernel_fault fault = testing::kernel_fault::none) {
    using namespace dxbc;
    using namespace detail;
    if (width != 1 && width != 2 && width != 4 && width != 8)
        throw std::invalid_argument(fmt::format("d3d12 kernels: element width {} is not 1, 2, 4 or 8", width));
    program p;
    p.dcl_global_flags();
    p.dcl_constant_buffer(0, header_dwords / 4, false);
    p.dcl_constant_buffer(1, family == kernel_family::scatter ? scatter_axis_rows : axis_rows, true);
    p.dcl_resource_raw(0);
    if (reads_second_buffer(family)) p.dcl_resource_raw(1);
    p.dcl_uav_raw(0);
    p.dcl_input_thread_id_xy();
    p.dcl_temps(reg_count);
    p.dcl_thread_group(threads_per_group, 1, 1);

    // unit = id.y * row_pitch + id.x; threads past the last unit do nothing.
    p.emit(op::imad, {dst(r_unit), thread_id().y(), header(row_pitch), thread_id().x()});
    p.emit(op::uge, {dst(r_test), src(r_unit), header(unit_count)});
    p.if_nonzero(src(r_test));
    p.ret();
    p.endif();

    if (width >= 4) {
        // One element per thread: offset = unit; 8-byte elements move as two words (.xy).
        const std::uint32_t mask = width == 8 ? mask_xy : mask_x;
        const std::uint32_t swizzle = width == 8 ? 0x04u /* xyxx */ : 0x00u /* xxxx */;
        const std::uint32_t log2_width = width == 8 ? 3 : 2;
        // offset = unit - output_base: the element of the output tensor, counted from its base.
        p.emit(op::iadd, {dst(r_offset), src(r_unit), header(output_base).negated()});
        emit_locate(p, family, fault);
        p.if_nonzero(src(r_valid));
        p.if_nonzero(src(r_fill));
        p.emit(op::mov, {dst(r_value), header(fill_low)});
        if (width == 8) p.emit(op::mov, {r(r_value).mask(0x2), header(fill_high)});
        p.else_();
        p.emit(op::iadd, {dst(r_address), src(r_src), header(input_base)});
        p.emit(op::ishl, {dst(r_address), src(r_address), imm(log2_width)});
        p.emit(op::ld_raw, {r(r_value).mask(mask), src(r_address), t(0).swizzle(swizzle)});
        p.endif();
        p.emit(op::ishl, {dst(r_address), src(r_unit), imm(log2_width)});
        p.emit(op::store_raw, {u(0).mask(mask), src(r_address), r(r_value).swizzle(swizzle)});
        p.endif();
    } else {
        // One output word per thread, assembled lane by lane from the words that hold the sources;
        // lanes that are no element keep the word's current bits.
        const std::uint32_t lanes = 4 / width, bits = 8 * width, log2_width = width == 2 ? 1 : 0;
        p.emit(op::ishl, {dst(r_address), src(r_unit), imm(2)});
        p.emit(op::ld_raw, {dst(r_word), src(r_address), u(0).swizzle(0)});
        for (std::uint32_t lane = 0; lane < lanes; ++lane) {
            p.emit(op::imad, {dst(r_offset), src(r_unit), imm(lanes), imm(lane)});
            p.emit(op::iadd, {dst(r_offset), src(r_offset), header(output_base).negated()});
            emit_locate(p, family, fault);
            p.if_nonzero(src(r_valid));
            p.if_nonzero(src(r_fill));
            p.emit(op::mov, {dst(r_value), header(fill_low)});
            p.else_();
            // byte = (src + input_base) * width; the word at byte & ~3; the field at bit (byte & 3) * 8.
            p.emit(op::iadd, {dst(r_s0), src(r_src), header(input_base)});
            p.emit(op::ishl, {dst(r_s0), src(r_s0), imm(log2_width)});
            p.emit(op::and_, {dst(r_s1), src(r_s0), imm(~3u)});
            p.emit(op::ld_raw, {dst(r_value), src(r_s1), t(0).swizzle(0)});
            p.emit(op::and_, {dst(r_s1), src(r_s0), imm(3)});
            p.emit(op::ishl, {dst(r_s1), src(r_s1), imm(3)});
            p.emit(op::ubfe, {dst(r_value), imm(bits), src(r_s1), src(r_value)});
            p.endif();
            p.emit(op::bfi, {dst(r_word), imm(bits), imm(lane * bits), src(r_value), src(r_word)});
            p.endif();
        }
        p.emit(op::store_raw, {u(0).mask(mask_x), src(r_address), src(r_word)});
    }
    p.ret();
    return container(p.tokens());
}

} // namespace kernels
} // namespace dmlref::d3d12
