#pragma once
/// \file textbook_indexed.hpp
/// The audit path of the indexed operators: each evaluated element by element straight from the
/// index equations that open ops/gather.hpp, ops/scatter.hpp and ops/one_hot.hpp, as textbook.hpp
/// does for the first eight. For each output (or update) coordinate, `*_source_of` names the
/// input coordinate the formula picks and the coordinate of the index element that chose it; the
/// evaluators copy that element's bits. No plan, no blocks, no memcpy of rows: the engine must
/// agree with this bit for bit, and the tests hold it to that on random shapes.
///
/// It checks with the library's own functions (the views, the shapes); the index values it wraps
/// and checks itself, as it meets them, so an out-of-range index throws validation_error with the
/// output partly written (the engine checks every index before its first write).

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "ops/gather.hpp"
#include "ops/one_hot.hpp"
#include "ops/scatter.hpp"
#include "strided_view.hpp"
#include "textbook.hpp"

namespace dmlref::textbook {

/// Where one element comes from: the input coordinate, and the index element that chose it (for
/// the ND ops, the first entry of the coordinate tuple).
template <std::size_t Rank> struct indexed_source {
    index_array<Rank> input{};
    index_array<Rank> index{};
    friend bool operator==(const indexed_source&, const indexed_source&) = default;
};

namespace detail {

/// The index at `at` of `indices` wrapped onto an axis of `size`: i + size for a negative signed
/// index; throws validation_error where the result is outside [0, size).
template <class I, std::size_t Rank>
std::ptrdiff_t wrapped(const char* op, strided_view<const I, Rank> indices, const index_array<Rank>& at,
                       std::ptrdiff_t size) {
    const I raw = indices[at];
    if constexpr (std::is_signed_v<I>) {
        const std::int64_t v = raw < 0 ? std::int64_t{raw} + size : std::int64_t{raw};
        if (v >= 0 && v < size) return static_cast<std::ptrdiff_t>(v);
    } else {
        if (std::uint64_t{raw} < static_cast<std::uint64_t>(size)) return static_cast<std::ptrdiff_t>(raw);
    }
    throw validation_error(std::string("textbook ") + op + ": index " + std::to_string(raw) + " at " +
                           dmlref::detail::coordinate_text(at, Rank) + " is outside an axis of " + std::to_string(size));
}

/// The logical coordinate (`count` entries) of output coordinate `o`: fewer entries than Rank
/// read the last ones of `o`; more (GATHER alone: the ND operators refuse them) take 0 for their
/// first count - Rank entries whatever their size and `o` in order for the rest.
template <std::size_t Rank>
std::array<std::ptrdiff_t, 2 * Rank> logical_coordinate(std::size_t count, const index_array<Rank>& o) {
    std::array<std::ptrdiff_t, 2 * Rank> c{};
    for (std::size_t l = 0; l < count; ++l) c.at(l) = l + Rank < count ? 0 : o.at(Rank + l - count);
    return c;
}

} // namespace detail

// (The formulas index with at(): the textbook checks every subscript, and GCC's -Warray-bounds
// cannot see that a rank-1 case never reaches the loops' later entries.)

/// GATHER at output coordinate `o`: Out[p, q, r] = In[p, wrap(Indices[0..., q]), r].
template <class T, class I, std::size_t Rank>
indexed_source<Rank> gather_source_of(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                                      std::ptrdiff_t axis, std::ptrdiff_t index_dimensions, const index_array<Rank>& o) {
    const auto a = static_cast<std::size_t>(axis), k = static_cast<std::size_t>(index_dimensions);
    const std::size_t count = Rank - 1 + k; // {In.Sizes[0..a), Indices.Sizes[Rank-k..Rank), In.Sizes[a+1..Rank)}
    const auto c = detail::logical_coordinate<Rank>(count, o);
    indexed_source<Rank> s;
    for (std::size_t e = 0; e < k; ++e) s.index.at(Rank - k + e) = c.at(a + e); // Indices[0..., q]
    for (std::size_t d = 0; d < a; ++d) s.input.at(d) = c.at(d);
    s.input.at(a) = detail::wrapped("gather", indices, s.index, input.extents().at(a));
    for (std::size_t d = a + 1; d < Rank; ++d) s.input.at(d) = c.at(d - 1 + k);
    return s;
}

/// GATHER_ELEMENTS at output coordinate `o`: Out[o] = In[o with o[axis] -> wrap(Indices[o])].
template <class T, class I, std::size_t Rank>
indexed_source<Rank> gather_elements_source_of(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                                               std::ptrdiff_t axis, const index_array<Rank>& o) {
    indexed_source<Rank> s{o, o};
    s.input.at(static_cast<std::size_t>(axis)) =
        detail::wrapped("gather_elements", indices, o, input.extents().at(static_cast<std::size_t>(axis)));
    return s;
}

/// GATHER_ND1 at output coordinate `o`: Out[b, q, r] = In[0..., b, t_0, ..., t_{T-1}, r], with
/// t_m = wrap(Indices[0..., b, q, m]).
template <class T, class I, std::size_t Rank>
indexed_source<Rank> gather_nd_source_of(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                                         std::ptrdiff_t input_dimensions, std::ptrdiff_t indices_dimensions,
                                         std::ptrdiff_t batch_dimensions, const index_array<Rank>& o) {
    const auto n = Rank, ni = static_cast<std::size_t>(input_dimensions), nj = static_cast<std::size_t>(indices_dimensions),
               b = static_cast<std::size_t>(batch_dimensions);
    const auto t = static_cast<std::size_t>(indices.extents().at(n - 1));
    const std::size_t r = ni - b - t;
    const std::size_t count = nj - 1 + r; // {Indices.Sizes[n-nj..n-1), In.Sizes[n-r..n)}: at most n
    const auto c = detail::logical_coordinate<Rank>(count, o);
    indexed_source<Rank> s;
    for (std::size_t e = 0; e + 1 < nj; ++e) s.index.at(n - nj + e) = c.at(e);          // Indices[0..., b, q, 0]
    for (std::size_t e = 0; e < b; ++e) s.input.at(n - ni + e) = c.at(e);               // In[0..., b, ...]
    for (std::size_t m = 0; m < t; ++m) {
        index_array<Rank> at = s.index;
        at.at(n - 1) = static_cast<std::ptrdiff_t>(m);
        const std::size_t d = n - ni + b + m;
        s.input.at(d) = detail::wrapped("gather_nd", indices, at, input.extents().at(d));
    }
    for (std::size_t e = 0; e < r; ++e) s.input.at(n - r + e) = c.at(nj - 1 + e);       // ..., r]
    return s;
}

/// dmlref::gather, element by element; the library's checks on views and shapes.
template <class T, class I, std::size_t Rank>
void gather(strided_view<const T, Rank> input, strided_view<const I, Rank> indices, strided_view<T, Rank> output,
            std::ptrdiff_t axis, std::ptrdiff_t index_dimensions) {
    namespace d = dmlref::detail;
    d::check_gather_views("gather", input, indices, output);
    d::gather_plan unused;
    d::throw_if(d::check_gather_shapes("gather", d::layout_of(input), d::layout_of(indices), d::layout_of(output), axis,
                                       index_dimensions, unused));
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        detail::copy_bits(output[o], input[gather_source_of(input, indices, axis, index_dimensions, o).input]);
    });
}

/// dmlref::gather_elements, element by element.
template <class T, class I, std::size_t Rank>
void gather_elements(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                     strided_view<T, Rank> output, std::ptrdiff_t axis) {
    namespace d = dmlref::detail;
    d::check_gather_views("gather_elements", input, indices, output);
    d::gather_plan unused;
    d::throw_if(d::check_gather_elements_shapes("gather_elements", d::layout_of(input), d::layout_of(indices),
                                                d::layout_of(output), axis, unused));
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        detail::copy_bits(output[o], input[gather_elements_source_of(input, indices, axis, o).input]);
    });
}

/// dmlref::gather_nd, element by element.
template <class T, class I, std::size_t Rank>
void gather_nd(strided_view<const T, Rank> input, strided_view<const I, Rank> indices, strided_view<T, Rank> output,
               std::ptrdiff_t input_dimensions, std::ptrdiff_t indices_dimensions, std::ptrdiff_t batch_dimensions = 0) {
    namespace d = dmlref::detail;
    d::check_gather_views("gather_nd", input, indices, output);
    d::gather_plan unused;
    d::throw_if(d::check_gather_nd_shapes("gather_nd", d::layout_of(input), d::layout_of(indices), d::layout_of(output),
                                          input_dimensions, indices_dimensions, batch_dimensions, unused));
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        detail::copy_bits(output[o], input[gather_nd_source_of(input, indices, input_dimensions, indices_dimensions,
                                                               batch_dimensions, o)
                                               .input]);
    });
}

/// SCATTER_ELEMENTS for update coordinate `u`: the output coordinate it writes (u with u[axis] ->
/// wrap(Indices[u])) as `input`, and the index element that chose it.
template <class T, class I, std::size_t Rank>
indexed_source<Rank> scatter_elements_target_of(strided_view<const T, Rank> output, strided_view<const I, Rank> indices,
                                                std::ptrdiff_t axis, const index_array<Rank>& u) {
    return gather_elements_source_of(output, indices, axis, u); // the same equation, read the other way
}

/// SCATTER_ND for update coordinate `u`: the output coordinate it writes, and the index tuple's
/// first element.
template <class T, class I, std::size_t Rank>
indexed_source<Rank> scatter_nd_target_of(strided_view<const T, Rank> output, strided_view<const I, Rank> indices,
                                          std::ptrdiff_t input_dimensions, std::ptrdiff_t indices_dimensions,
                                          const index_array<Rank>& u) {
    return gather_nd_source_of(output, indices, input_dimensions, indices_dimensions, 0, u);
}

/// dmlref::scatter_elements, element by element: the input copied, then each update written in
/// row-major order.
template <class T, class I, std::size_t Rank>
void scatter_elements(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                      strided_view<const T, Rank> updates, strided_view<T, Rank> output, std::ptrdiff_t axis) {
    namespace d = dmlref::detail;
    d::check_scatter_views("scatter_elements", input, indices, updates, output);
    d::gather_plan unused;
    d::throw_if(d::check_scatter_elements_shapes("scatter_elements", d::layout_of(input), d::layout_of(indices),
                                                 d::layout_of(updates), d::layout_of(output), axis, unused));
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) { detail::copy_bits(output[o], input[o]); });
    detail::for_each_coordinate<Rank>(updates.extents(), [&](const index_array<Rank>& u) {
        detail::copy_bits(output[scatter_elements_target_of(strided_view<const T, Rank>(output), indices, axis, u).input],
                          updates[u]);
    });
}

/// dmlref::scatter_nd, element by element.
template <class T, class I, std::size_t Rank>
void scatter_nd(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                strided_view<const T, Rank> updates, strided_view<T, Rank> output, std::ptrdiff_t input_dimensions,
                std::ptrdiff_t indices_dimensions) {
    namespace d = dmlref::detail;
    d::check_scatter_views("scatter_nd", input, indices, updates, output);
    d::gather_plan unused;
    d::throw_if(d::check_scatter_nd_shapes("scatter_nd", d::layout_of(input), d::layout_of(indices), d::layout_of(updates),
                                           d::layout_of(output), input_dimensions, indices_dimensions, unused));
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) { detail::copy_bits(output[o], input[o]); });
    detail::for_each_coordinate<Rank>(updates.extents(), [&](const index_array<Rank>& u) {
        detail::copy_bits(output[scatter_nd_target_of(strided_view<const T, Rank>(output), indices, input_dimensions,
                                                      indices_dimensions, u)
                                     .input],
                          updates[u]);
    });
}

/// ONE_HOT at output coordinate `o`: the values coordinate it takes (OffValue's [0, ...] or
/// OnValue's) as `input`, and the index element of its sequence as `index`.
template <class T, class I, std::size_t Rank>
indexed_source<Rank> one_hot_source_of(strided_view<const I, Rank> indices, strided_view<const T, Rank> values,
                                       std::ptrdiff_t out_axis_size, std::ptrdiff_t axis, const index_array<Rank>& o) {
    const auto a = static_cast<std::size_t>(axis);
    indexed_source<Rank> s;
    s.index = o;
    s.index.at(a) = 0;
    const I raw = indices[s.index];
    bool hot = false;
    if constexpr (std::is_signed_v<I>) {
        const std::int64_t i = raw < 0 ? std::int64_t{raw} + out_axis_size : std::int64_t{raw};
        hot = i == o.at(a); // o[axis] lies in [0, size): equal only when i' does too
    } else {
        hot = std::uint64_t{raw} == static_cast<std::uint64_t>(o.at(a));
    }
    if (hot) // OnValue: coordinate 1 on the innermost axis of size > 1
        for (std::size_t i = Rank; i-- > 0;)
            if (values.extents().at(i) > 1) {
                s.input.at(i) = 1;
                break;
            }
    return s;
}

/// dmlref::one_hot, element by element.
template <class T, class I, std::size_t Rank>
void one_hot(strided_view<const I, Rank> indices, strided_view<const T, Rank> values, strided_view<T, Rank> output,
             std::ptrdiff_t axis) {
    namespace d = dmlref::detail;
    const d::layout idx = d::layout_of(indices), val = d::layout_of(values), out = d::layout_of(output);
    d::throw_if(d::check_layout("one_hot", "IndicesTensor", idx, false));
    d::throw_if(d::check_layout("one_hot", "ValuesTensor", val, false));
    d::throw_if(d::check_layout("one_hot", "OutputTensor", out, true));
    d::throw_if(d::check_one_hot_shapes("one_hot", idx, val, out, axis));
    const std::ptrdiff_t size = output.extents().at(static_cast<std::size_t>(axis));
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        detail::copy_bits(output[o], values[one_hot_source_of(indices, values, size, axis, o).input]);
    });
}

} // namespace dmlref::textbook
