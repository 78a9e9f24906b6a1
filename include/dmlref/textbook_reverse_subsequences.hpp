#pragma once
/// \file textbook_reverse_subsequences.hpp
/// The audit path of REVERSE_SUBSEQUENCES: element by element from the index equation that opens
/// ops/reverse_subsequences.hpp, as textbook_join_split.hpp does for JOIN and SPLIT. For each
/// output coordinate `reverse_subsequences_source_of` names the input coordinate; the evaluator
/// reads the sequence's length at the coordinate with Axis set to 0 and copies that element's
/// bits. No plan and no engine: the engine must agree with this bit for bit.
///
/// It checks with the library's own functions (check_reverse_subsequences, check_apart), so it
/// refuses what dmlref::reverse_subsequences refuses, with the same messages.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ops/reverse_subsequences.hpp"
#include "strided_view.hpp"
#include "textbook.hpp"

namespace dmlref::textbook {

/// The input coordinate that output coordinate `o` copies, for a sequence of `length` along `axis`
/// of an axis of `axis_size` elements: o with min(length - 1 - o[axis], axis_size - 1) on the axis
/// where o[axis] < length, else o itself (reverse_subsequences_source in textbook.hpp).
template <std::size_t Rank>
index_array<Rank> reverse_subsequences_source_of(const index_array<Rank>& o, std::size_t axis, std::uint64_t length,
                                                 std::ptrdiff_t axis_size) {
    index_array<Rank> s = o;
    s[axis] = reverse_subsequences_source(o[axis], length, axis_size);
    return s;
}

/// dmlref::reverse_subsequences, element by element; the same checks and exceptions.
template <class T, std::size_t Rank, class L>
    requires(std::is_same_v<L, std::uint32_t> || std::is_same_v<L, std::uint64_t>)
void reverse_subsequences(strided_view<const T, Rank> input, strided_view<const L, Rank> sequence_lengths,
                          strided_view<T, Rank> output, std::size_t axis) {
    namespace d = dmlref::detail;
    constexpr std::string_view op = "reverse_subsequences";
    const d::layout in = d::layout_of(input), lengths = d::layout_of(sequence_lengths), out = d::layout_of(output);
    d::throw_if(d::check_reverse_subsequences(op, in, lengths, out, axis));
    d::throw_if(d::check_apart(op, "OutputTensor", output.base() + output.offset(), out, sizeof(T), "InputTensor",
                               input.base() + input.offset(), in, sizeof(T)));
    d::throw_if(d::check_apart(op, "OutputTensor", output.base() + output.offset(), out, sizeof(T), "SequenceLengthsTensor",
                               sequence_lengths.base() + sequence_lengths.offset(), lengths, sizeof(L)));
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        index_array<Rank> at_length = o;
        at_length[axis] = 0;
        const std::uint64_t length = sequence_lengths[at_length];
        detail::copy_bits(output[o], input[reverse_subsequences_source_of<Rank>(o, axis, length, input.extent(axis))]);
    });
}

} // namespace dmlref::textbook
