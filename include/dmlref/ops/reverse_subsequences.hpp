#pragma once
/// \file reverse_subsequences.hpp
/// REVERSE_SUBSEQUENCES over strided views: reverses the first `len` elements of every sequence
/// along one axis and copies the rest.
///
///   Output[..., i, ...] = Input[..., min(len - 1 - i, n - 1), ...]   for i < len
///   Output[..., i, ...] = Input[..., i, ...]                         for i >= len
///   len = SequenceLengths[..., 0, ...] (the coordinate with Axis set to 0), n = Input.Sizes[Axis]
///
/// Preconditions: Axis < the rank; the output has the input's sizes; SequenceLengths has the
/// input's sizes on every axis but Axis, where its size is 1. A length past the axis is never
/// refused. DirectML's page says it behaves as if clamped to n; DirectML itself clamps the read
/// coordinate instead (the min above), so the first len - n elements repeat the axis's last one and
/// the rest reverse the elements from len - n up: lengths 3 and 2 over rows 1, 2 and 3, 4 give
/// 2, 2, 4, 3 (docs/directml.md). dmlref follows DirectML. 0 and 1 copy the sequence unchanged. The
/// lengths are data: the checks read only layouts, and only the copy reads the lengths. The output
/// overlaps neither the input nor the lengths.
///
/// | DirectML             | ONNX            | numpy      | PyTorch    | WebNN |
/// |----------------------|-----------------|------------|------------|-------|
/// | REVERSE_SUBSEQUENCES | ReverseSequence | (none: a recipe) | (none: a recipe) | (none) |
/// numpy and PyTorch have no operator: per sequence, `y[:len] = x[:len][::-1]` along the axis
/// (`torch.flip` of the prefix). WebNN's `reverse` reverses whole axes. ONNX ReverseSequence is the
/// rank >= 2 case with a batch axis and a time axis (0 and 1, either way round): Axis is its
/// time_axis and the lengths are its sequence_lens laid along batch_axis (int64 there).

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "common.hpp"

namespace dmlref {
namespace detail {

/// REVERSE_SUBSEQUENCES's rules on layouts: each view's own rules (the output never self-aliasing),
/// Axis inside the rank, the lengths' sizes (the input's, 1 on Axis) and the output's (the input's).
DMLREF_FUNC std::optional<std::string> check_reverse_subsequences(std::string_view op, const layout& in, const layout& lengths,
                                                             const layout& out, std::size_t axis)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_layout(op, "InputTensor", in, false)) return message;
    if (in.rank == 0) return detail::message("{}: InputTensor has no dimensions; there is no axis to reverse on", op);
    if (axis >= in.rank)
        return detail::message("{}: Axis = {} is outside [0, {}] (InputTensor has {} dimensions)", op, axis, in.rank - 1,
                               in.rank);
    if (lengths.rank != in.rank)
        return detail::message("{}: SequenceLengthsTensor has {} dimensions; InputTensor has {}; they must match", op,
                               lengths.rank, in.rank);
    if (out.rank != in.rank)
        return detail::message("{}: OutputTensor has {} dimensions; InputTensor has {}; they must match", op, out.rank,
                               in.rank);
    if (auto message = check_layout(op, "SequenceLengthsTensor", lengths, false)) return message;
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (i == axis && lengths.extents[i] != 1)
            return detail::message("{}: SequenceLengthsTensor.Sizes[{}] = {}; on Axis ({}) it must be 1", op, i,
                                   lengths.extents[i], axis);
        if (i != axis && lengths.extents[i] != in.extents[i])
            return detail::message("{}: SequenceLengthsTensor.Sizes[{}] = {} differs from InputTensor.Sizes[{}] = {}; "
                                   "only Axis ({}) may differ (it is 1)",
                                   op, i, lengths.extents[i], i, in.extents[i], axis);
    }
    if (auto message = check_layout(op, "OutputTensor", out, true)) return message;
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

/// The length at `at` (an element of `width` bytes, 4 or 8) as the copy uses it: at most
/// 2 * axis_size - 1, past which every element of the sequence reads the axis's last one.
DMLREF_FUNC std::ptrdiff_t clamped_length(const std::byte* at, std::size_t width, std::ptrdiff_t axis_size) noexcept
#if DMLREF_DEFINE_FUNCS
{
    std::uint64_t v = 0;
    if (width == 4) {
        std::uint32_t v32;
        std::memcpy(&v32, at, 4);
        v = v32;
    } else {
        std::memcpy(&v, at, 8);
    }
    const std::ptrdiff_t most = axis_size > 0 ? 2 * axis_size - 1 : 0;
    return v < static_cast<std::uint64_t>(most) ? static_cast<std::ptrdiff_t>(v) : most;
}
#else
;
#endif

/// Where element `o` of a sequence of `len` (clamped_length) on an axis of `n` reads: o's mirror
/// len - 1 - o for o < len, held at n - 1, else o itself.
constexpr std::ptrdiff_t reversed_source(std::ptrdiff_t o, std::ptrdiff_t len, std::ptrdiff_t n) noexcept {
    if (o >= len) return o;
    return len - 1 - o < n - 1 ? len - 1 - o : n - 1;
}

/// Makes `axis` the affine pieces of one sequence of `n` elements whose first `len` (clamped_length)
/// are reversed: for len <= n the prefix from element len - 1 backwards, then the tail in place; for
/// len > n the first len - n elements the last one repeated (stride 0), then the rest from element
/// n - 1 backwards (a piece of no elements is left out, so len 0 and len n are one piece).
DMLREF_FUNC void set_reversed_prefix(axis_plan& axis, std::ptrdiff_t n, std::ptrdiff_t len, std::ptrdiff_t out_stride,
                                std::ptrdiff_t in_stride) noexcept
#if DMLREF_DEFINE_FUNCS
{
    axis = axis_plan{};
    axis.extent = n;
    axis.out_stride = out_stride;
    if (len > n) {
        axis.add({piece::kind::affine, len - n, (n - 1) * in_stride, 0, nullptr, 0});
        axis.add({piece::kind::affine, 2 * n - len, (n - 1) * in_stride, -in_stride, nullptr, 0});
        return;
    }
    axis.add({piece::kind::affine, len, (len - 1) * in_stride, -in_stride, nullptr, 0});
    axis.add({piece::kind::affine, n - len, len * in_stride, in_stride, nullptr, 0});
}
#else
;
#endif

/// The sequences whose lengths and offsets the rows way holds at a time (on the stack).
inline constexpr std::ptrdiff_t gather_block = 256;

/// The rows way of run_reverse_subsequences for the `count` sequences along `inner` at one walked
/// coordinate (`in_at`, `out_at`): for each block of up to gather_block sequences, their lengths
/// (`length_of(j)`), then per coordinate t of Axis one gather of the block's output row, where
/// sequence j reads element reversed_source(t, len_j, n) of its sequence.
template <class LengthOf>
void gather_reversed_rows(const std::byte* in_at, std::byte* out_at, std::size_t width, std::ptrdiff_t n,
                          std::ptrdiff_t in_axis_stride, std::ptrdiff_t out_axis_stride, std::ptrdiff_t count,
                          std::ptrdiff_t in_step, std::ptrdiff_t out_step, LengthOf length_of) {
    const auto w = static_cast<std::ptrdiff_t>(width);
    std::array<std::ptrdiff_t, gather_block> lengths{}, offsets{};
    copy_plan plan;
    plan.rank = 1;
    plan.width = width;
    for (std::ptrdiff_t first = 0; first < count; first += gather_block) {
        const std::ptrdiff_t b = count - first < gather_block ? count - first : gather_block;
        for (std::ptrdiff_t j = 0; j < b; ++j) lengths[static_cast<std::size_t>(j)] = length_of(first + j);
        axis_plan& axis = plan.axes[0];
        axis = axis_plan{};
        axis.extent = b;
        axis.out_stride = out_step;
        axis.add({piece::kind::table, b, 0, 0, offsets.data(), 0});
        plan.input = in_at + first * in_step * w;
        for (std::ptrdiff_t t = 0; t < n; ++t) {
            for (std::ptrdiff_t j = 0; j < b; ++j) {
                const std::ptrdiff_t len = lengths[static_cast<std::size_t>(j)];
                offsets[static_cast<std::size_t>(j)] = reversed_source(t, len, n) * in_axis_stride + j * in_step;
            }
            plan.output = out_at + (first * out_step + t * out_axis_stride) * w;
            execute(plan);
        }
    }
}

/// The runs way of run_reverse_subsequences for the `count` sequences along `inner` at one walked
/// coordinate: each run of equal lengths (`length_of(j)`) one plan of rank 2.
template <class LengthOf>
void copy_reversed_runs(const std::byte* in_at, std::byte* out_at, std::size_t width, std::ptrdiff_t n,
                        std::ptrdiff_t in_axis_stride, std::ptrdiff_t out_axis_stride, std::ptrdiff_t count,
                        std::ptrdiff_t in_step, std::ptrdiff_t out_step, LengthOf length_of) {
    const auto w = static_cast<std::ptrdiff_t>(width);
    copy_plan plan;
    plan.rank = 2;
    plan.width = width;
    std::ptrdiff_t len = length_of(0);
    for (std::ptrdiff_t first = 0; first < count;) {
        std::ptrdiff_t end = first + 1, next_len = len;
        while (end < count && (next_len = length_of(end)) == len) ++end;
        set_reversed_prefix(plan.axes[0], n, len, out_axis_stride, in_axis_stride);
        set_affine(plan.axes[1], end - first, out_step, 0, end - first == 1 ? 0 : in_step);
        plan.input = in_at + first * in_step * w;
        plan.output = out_at + first * out_step * w;
        execute(plan);
        first = end;
        len = next_len;
    }
}

/// Runs a checked REVERSE_SUBSEQUENCES. `inner` is the axis off Axis with the smallest output
/// stride (the sequences next to each other in the output); the other axes off Axis are walked
/// here, and each walked coordinate's sequences along `inner` are copied one of two ways:
/// - runs: consecutive sequences of equal length form one run, and each run is one copy plan of
///   rank 2: Axis as the two pieces of set_reversed_prefix, and `inner` as an affine axis. Where
///   Axis is outer and the lengths agree along `inner`, a plan copies whole rows (memcpy in the
///   engine); where Axis is innermost, each row is a reversed run and a plain one.
/// - rows: where Axis is outer and the runs are short (lengths that vary from sequence to
///   sequence), a run is a column walked across rows, element by element (0.04x memcpy on a
///   {1024, 1024} float32 tensor). Instead each output row along `inner` is gathered through a
///   table of `gather_block` input offsets, one per sequence, filled per row.
/// Nothing is allocated: the tables live on the stack.
DMLREF_FUNC void run_reverse_subsequences(const layout& in, const std::byte* in_at, const layout& lengths,
                                     const std::byte* lengths_at, std::size_t lengths_width, const layout& out,
                                     std::byte* out_at, std::size_t axis, std::size_t width)
#if DMLREF_DEFINE_FUNCS
{
    const auto w = static_cast<std::ptrdiff_t>(width), lw = static_cast<std::ptrdiff_t>(lengths_width);
    const std::size_t rank = in.rank;
    const std::ptrdiff_t n = in.extents[axis];
    auto magnitude = [](std::ptrdiff_t v) { return v < 0 ? -v : v; };
    std::size_t inner = rank; // none: every sequence stands alone
    for (std::size_t i = 0; i < rank; ++i)
        if (i != axis && in.extents[i] > 1 &&
            (inner == rank || magnitude(out.strides[i]) < magnitude(out.strides[inner])))
            inner = i;
    const std::ptrdiff_t count = inner == rank ? 1 : in.extents[inner];
    const std::ptrdiff_t in_step = inner == rank ? 0 : in.strides[inner], out_step = inner == rank ? 0 : out.strides[inner];
    const std::ptrdiff_t lengths_step = inner == rank ? 0 : lengths.strides[inner];
    // Rows only where Axis lies outside `inner` in the output and a row holds several sequences.
    const bool axis_outer = inner != rank && n > 1 && magnitude(out.strides[axis]) > magnitude(out_step);

    std::array<std::ptrdiff_t, max_plan_rank> c{}; // the walked coordinate (0 on Axis and on `inner`)
    for (;;) {
        std::ptrdiff_t in_offset = 0, out_offset = 0, lengths_offset = 0;
        for (std::size_t i = 0; i < rank; ++i) {
            in_offset += c[i] * in.strides[i];
            out_offset += c[i] * out.strides[i];
            lengths_offset += c[i] * lengths.strides[i];
        }
        const std::byte* const row_lengths = lengths_at + lengths_offset * lw;
        const auto length_of = [&](std::ptrdiff_t j) {
            return clamped_length(row_lengths + j * lengths_step * lw, lengths_width, n);
        };
        std::ptrdiff_t runs = 1; // the runs of equal lengths, counted where the rows way may pay
        if (axis_outer)
            for (std::ptrdiff_t j = 1, last = length_of(0); j < count; ++j) {
                const std::ptrdiff_t len = length_of(j);
                runs += len != last;
                last = len;
            }
        if (axis_outer && runs * 8 > count) // runs of fewer than 8 sequences on average
            gather_reversed_rows(in_at + in_offset * w, out_at + out_offset * w, width, n, in.strides[axis],
                                 out.strides[axis], count, in_step, out_step, length_of);
        else
            copy_reversed_runs(in_at + in_offset * w, out_at + out_offset * w, width, n, in.strides[axis],
                               out.strides[axis], count, in_step, out_step, length_of);
        std::size_t i = rank; // the odometer over the axes off Axis and `inner`
        for (;;) {
            if (i == 0) return;
            --i;
            if (i == axis || i == inner) continue;
            if (++c[i] < in.extents[i]) break;
            c[i] = 0;
        }
    }
}
#else
;
#endif

} // namespace detail

/// REVERSE_SUBSEQUENCES: copies `input` into `output`, reversing along `axis` the first
/// `sequence_lengths[c]` elements of the sequence at each coordinate c off the axis (c with 0 on
/// the axis), bit for bit; a length past the axis reads as DirectML does (min(len - 1 - i, n - 1),
/// the equation at the top of this file).
/// The lengths are UINT32 or UINT64, as in DirectML. Inputs may broadcast or be permuted or
/// reversed; the output may be strided. Throws validation_error (op "reverse_subsequences") when
/// the axis or a size does not fit, the output self-aliases, or the output overlaps the input or
/// the lengths.
template <class T, std::size_t Rank, class L>
    requires(std::is_same_v<L, std::uint32_t> || std::is_same_v<L, std::uint64_t>)
void reverse_subsequences(strided_view<const T, Rank> input, strided_view<const L, Rank> sequence_lengths,
                          strided_view<T, Rank> output, std::size_t axis) {
    constexpr std::string_view op = "reverse_subsequences";
    const detail::layout in = detail::layout_of(input), lengths = detail::layout_of(sequence_lengths),
                         out = detail::layout_of(output);
    detail::throw_if(detail::check_reverse_subsequences(op, in, lengths, out, axis));
    T* const out_at = output.base() + output.offset();
    const T* const in_at = input.base() + input.offset();
    const L* const lengths_at = sequence_lengths.base() + sequence_lengths.offset();
    detail::throw_if(detail::check_apart(op, "OutputTensor", out_at, out, sizeof(T), "InputTensor", in_at, in, sizeof(T)));
    detail::throw_if(detail::check_apart(op, "OutputTensor", out_at, out, sizeof(T), "SequenceLengthsTensor", lengths_at,
                                         lengths, sizeof(L)));
    detail::run_reverse_subsequences(in, reinterpret_cast<const std::byte*>(in_at), lengths,
                                     reinterpret_cast<const std::byte*>(lengths_at), sizeof(L), out,
                                     reinterpret_cast<std::byte*>(out_at), axis, sizeof(T));
}

} // namespace dmlref
