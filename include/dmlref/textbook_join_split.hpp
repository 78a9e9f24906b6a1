#pragma once
/// \file textbook_join_split.hpp
/// The audit path of JOIN and SPLIT: element by element from the index equations that open
/// ops/join_split.hpp, as textbook.hpp does for the first nine operators. For each coordinate of
/// the whole (JOIN's output, SPLIT's input) `join_source_of` names the part and the part's
/// coordinate; the evaluators copy that element's bits. No plan and no engine: the engine must
/// agree with this bit for bit, and the tests hold it to that on random shapes and layouts.
///
/// It checks with the library's own functions (check_parts, check_apart), so it refuses what
/// dmlref::join and dmlref::split refuse, with the same messages.

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "ops/join_split.hpp"
#include "strided_view.hpp"
#include "textbook.hpp"

namespace dmlref::textbook {

/// Where an element of the whole lives among the parts: part `part`, at `coordinate`.
template <std::size_t Rank> struct part_source {
    std::size_t part = 0;
    index_array<Rank> coordinate{};
    friend bool operator==(const part_source&, const part_source&) = default;
};

/// Coordinate `o` of the whole, for parts of `lengths` along `axis`: the part k with
/// base(k) <= o[axis] < base(k) + lengths[k], and o with o[axis] - base(k) on the axis. (JOIN's
/// output element o is that input's element; SPLIT's output k element c is the input's element o.)
template <std::size_t Rank>
part_source<Rank> join_source_of(std::span<const std::ptrdiff_t> lengths, const index_array<Rank>& o, std::size_t axis) {
    part_source<Rank> s{0, o};
    std::ptrdiff_t base = 0;
    while (s.part + 1 < lengths.size() && o[axis] >= base + lengths[s.part]) base += lengths[s.part++];
    s.coordinate[axis] = o[axis] - base;
    return s;
}

namespace detail {
template <class Views> std::vector<std::ptrdiff_t> lengths_of(const Views& views, std::size_t axis) {
    std::vector<std::ptrdiff_t> lengths;
    for (const auto& v : views) lengths.push_back(axis < v.extents().size() ? v.extent(axis) : 0);
    return lengths;
}
} // namespace detail

/// dmlref::join, element by element; the same checks and exceptions.
template <class T, std::size_t Rank>
void join(std::span<const strided_view<const T, Rank>> inputs, strided_view<T, Rank> output, std::size_t axis) {
    namespace d = dmlref::detail;
    std::vector<d::layout> parts;
    for (const auto& v : inputs) parts.push_back(d::layout_of(v));
    d::throw_if(d::check_parts("join", parts, d::layout_of(output), axis, false));
    for (std::size_t k = 0; k < inputs.size(); ++k)
        d::throw_if(d::check_apart("join", "OutputTensor", output.base() + output.offset(), d::layout_of(output), sizeof(T),
                                   d::part_field("InputTensors", k), inputs[k].base() + inputs[k].offset(), parts[k], sizeof(T)));
    const std::vector<std::ptrdiff_t> lengths = detail::lengths_of(inputs, axis);
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        const part_source<Rank> s = join_source_of<Rank>(lengths, o, axis);
        detail::copy_bits(output[o], inputs[s.part][s.coordinate]);
    });
}

/// dmlref::split, element by element; the same checks and exceptions.
template <class T, std::size_t Rank>
void split(strided_view<const T, Rank> input, std::span<const strided_view<T, Rank>> outputs, std::size_t axis) {
    namespace d = dmlref::detail;
    std::vector<d::layout> parts;
    for (const auto& v : outputs) parts.push_back(d::layout_of(v));
    d::throw_if(d::check_parts("split", parts, d::layout_of(input), axis, true));
    std::vector<std::pair<std::pair<std::uintptr_t, std::uintptr_t>, std::size_t>> ranges;
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        d::throw_if(d::check_apart("split", d::part_field("OutputTensors", k), outputs[k].base() + outputs[k].offset(),
                                   parts[k], sizeof(T), "InputTensor", input.base() + input.offset(), d::layout_of(input),
                                   sizeof(T)));
        ranges.push_back({*d::view_byte_range(outputs[k].base() + outputs[k].offset(), parts[k], sizeof(T)), k});
    }
    d::throw_if(d::check_outputs_apart("split", std::move(ranges)));
    const std::vector<std::ptrdiff_t> lengths = detail::lengths_of(outputs, axis);
    detail::for_each_coordinate<Rank>(input.extents(), [&](const index_array<Rank>& o) {
        const part_source<Rank> s = join_source_of<Rank>(lengths, o, axis);
        detail::copy_bits(outputs[s.part][s.coordinate], input[o]);
    });
}

} // namespace dmlref::textbook
