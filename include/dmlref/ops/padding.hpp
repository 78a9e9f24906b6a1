#pragma once
/// \file padding.hpp
/// PADDING / PADDING1 over strided views, every mode, pads of any size.
///
///   Output.Sizes[i] = Input.Sizes[i] + StartPadding[i] + EndPadding[i]
///   Output[o] = Input[src(o)], src separable per axis: t = o[i] - StartPadding[i], n = Input.Sizes[i]
///     inside      0 <= t < n                      src = t
///     CONSTANT    t outside on any axis           the padding value
///     EDGE        src = clamp(t, 0, n - 1)
///     REFLECTION  p = 2(n - 1), m = t mod p       src = m < n ? m : p - m      (edges not repeated)
///     SYMMETRIC   p = 2n,       m = t mod p       src = m < n ? m : p - 1 - m  (edges repeated)
///     WRAP        src = t mod n
/// with a non-negative `mod`, so pads larger than the axis fold periodically, on either side, with
/// different pads on the two sides (DirectML documents the folding; DECISIONS 4). REFLECTION of an
/// axis of size 1 (period 0) repeats its one element, as DirectML 1.15.4 does (DECISIONS 5).
/// The interior is a strided copy; the borders gather through per-axis tables of a period or a few
/// (O(n) entries, whatever the pad), read modulo their length.
///
/// | DirectML   | ONNX Pad mode | numpy.pad  | PyTorch F.pad | TensorFlow MirrorPad / pad |
/// |------------|---------------|------------|---------------|----------------------------|
/// | CONSTANT   | constant      | constant   | constant      | CONSTANT                   |
/// | EDGE       | edge          | edge       | replicate     | -                          |
/// | REFLECTION | reflect       | reflect    | reflect       | REFLECT                    |
/// | SYMMETRIC  | -             | symmetric  | -             | SYMMETRIC                  |
/// | WRAP       | wrap          | wrap       | circular      | -                          |

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace dmlref {

/// DML_PADDING_MODE.
enum class padding_mode : std::uint32_t {
    constant = 0,
    edge = 1,
    reflection = 2,
    symmetric = 3, ///< DirectML feature level 3_0
    wrap = 4,      ///< DirectML feature level 6_4
};

/// The input coordinate that padding mode `mode` reads for coordinate `t` (relative to the
/// input's start, any value) of an axis of `n` elements, or -1 for CONSTANT outside the input.
/// REFLECTION of one element (period 0) repeats it, as DirectML does. Where t is outside and n is
/// no size a view may have (below 1, or past detail::max_view_elements, where the period 2n would
/// not fit), the result is -1 too, never a division by zero or a wrapped period.
constexpr std::ptrdiff_t padding_source(padding_mode mode, std::ptrdiff_t t, std::ptrdiff_t n) noexcept {
    if (t >= 0 && t < n) return t;
    if (n < 1 || n > detail::max_view_elements) return -1;
    if (mode == padding_mode::reflection && n == 1) return 0;
    auto mod = [](std::ptrdiff_t a, std::ptrdiff_t p) { return ((a % p) + p) % p; };
    switch (mode) {
    case padding_mode::constant: return -1;
    case padding_mode::edge: return t < 0 ? 0 : n - 1;
    case padding_mode::reflection: {
        const std::ptrdiff_t p = 2 * (n - 1), m = mod(t, p);
        return m < n ? m : p - m;
    }
    case padding_mode::symmetric: {
        const std::ptrdiff_t p = 2 * n, m = mod(t, p);
        return m < n ? m : p - 1 - m;
    }
    case padding_mode::wrap: return mod(t, n);
    }
    return -1;
}

namespace detail {

/// PADDING's rules on layouts (ranks already match; pads already known non-negative for the desc
/// layer). Once they pass, the output's size bounds every pad, so plan_padding's sums of pads and
/// its table offsets (inside the input's reach) cannot overflow.
DMLREF_FUNC std::optional<std::string> check_padding(std::string_view op, const layout& in, const layout& out,
                                                     padding_mode mode, std::span<const std::ptrdiff_t> start,
                                                     std::span<const std::ptrdiff_t> end)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_views(op, in, out)) return message;
    if (static_cast<std::uint32_t>(mode) > static_cast<std::uint32_t>(padding_mode::wrap))
        return detail::message("{}: PaddingMode is {}; it must be CONSTANT (0), EDGE (1), REFLECTION (2), SYMMETRIC (3) "
                               "or WRAP (4)",
                               op, static_cast<std::uint32_t>(mode));
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (start[i] < 0) return detail::message("{}: StartPadding[{}] is {}; pads may not be negative", op, i, start[i]);
        if (end[i] < 0) return detail::message("{}: EndPadding[{}] is {}; pads may not be negative", op, i, end[i]);
        // Checked: two pads near PTRDIFF_MAX wrapped the sum back to a small output size.
        const auto padded = checked_add(in.extents[i], start[i]);
        const auto want = padded ? checked_add(*padded, end[i]) : std::nullopt;
        if (!want)
            return detail::message("{}: InputTensor.Sizes[{}] + StartPadding[{}] + EndPadding[{}] = {} + {} + {} does not "
                                   "fit in a signed 64-bit size",
                                   op, i, i, i, in.extents[i], start[i], end[i]);
        if (out.extents[i] != *want)
            return detail::message("{}: OutputTensor.Sizes[{}] = {} should be InputTensor.Sizes[{}] + StartPadding[{}] + "
                                   "EndPadding[{}] = {} + {} + {} = {}",
                                   op, i, out.extents[i], i, i, i, in.extents[i], start[i], end[i], *want);
    }
    return std::nullopt;
}
#else
;
#endif

/// Entries a folded border's table keeps at least (where the border is that long): a border of a
/// short period (EDGE's is 1) gathers this many elements a call, not one period a call.
inline constexpr std::ptrdiff_t min_table_length = 256;

/// The copy plan of a valid PADDING; `tables` receives the border gather tables the plan points into.
/// A folded border repeats with the mode's period (EDGE 1, REFLECTION 2(n - 1), SYMMETRIC 2n, WRAP
/// n), so each table holds the smallest whole number of periods that reaches min_table_length (or
/// the border, where shorter), and the engine reads it modulo that length: the tables take
/// O(sum of the input's extents) entries, however large the pads.
DMLREF_FUNC copy_plan plan_padding(const layout& in, const layout& out, padding_mode mode,
                                   std::span<const std::ptrdiff_t> start, std::span<const std::ptrdiff_t> end,
                                   std::vector<std::ptrdiff_t>& tables)
#if DMLREF_DEFINE_FUNCS
{
    tables.clear();
    auto length = [&](std::size_t axis, std::ptrdiff_t count) -> std::ptrdiff_t {
        if (count <= 0) return 0;
        const std::ptrdiff_t n = in.extents[axis];
        const std::ptrdiff_t period = mode == padding_mode::edge         ? 1
                                      : mode == padding_mode::reflection ? std::max<std::ptrdiff_t>(2 * (n - 1), 1)
                                      : mode == padding_mode::symmetric  ? 2 * n
                                                                         : n; // REFLECTION of one element: 1
        const std::ptrdiff_t periods = (min_table_length + period - 1) / period;
        return period * periods < count ? period * periods : count;
    };
    if (mode != padding_mode::constant) {
        std::size_t total = 0;
        for (std::size_t i = 0; i < in.rank; ++i)
            total += static_cast<std::size_t>(length(i, start[i]) + length(i, end[i]));
        tables.reserve(total); // no reallocation below: the plan keeps pointers into it
    }
    copy_plan plan;
    plan.rank = out.rank;
    auto border = [&](std::size_t axis, std::ptrdiff_t first, std::ptrdiff_t count) {
        if (mode == padding_mode::constant) return piece{piece::kind::fill, count, 0, 0, nullptr, 0};
        const std::size_t at = tables.size();
        const std::ptrdiff_t entries = length(axis, count);
        for (std::ptrdiff_t t = first; t < first + entries; ++t)
            tables.push_back(padding_source(mode, t, in.extents[axis]) * in.strides[axis]);
        return piece{piece::kind::table, count, 0, 0, tables.data() + at, entries};
    };
    for (std::size_t i = 0; i < out.rank; ++i) {
        axis_plan& axis = plan.axes[i];
        axis.extent = out.extents[i];
        axis.out_stride = out.strides[i];
        axis.add(border(i, -start[i], start[i]));
        axis.add({piece::kind::affine, in.extents[i], 0, in.strides[i], nullptr, 0});
        axis.add(border(i, in.extents[i], end[i]));
    }
    return plan;
}
#else
;
#endif

} // namespace detail

/// PADDING1 from `input` into `output` in `mode`, `value` filling CONSTANT borders. Throws
/// validation_error for shapes or parameters DirectML rejects, and for overlapping views.
template <class T, std::size_t Rank>
void pad(strided_view<const T, Rank> input, strided_view<T, Rank> output, padding_mode mode,
         std::type_identity_t<T> value, const index_array<Rank>& start_padding, const index_array<Rank>& end_padding) {
    const detail::layout in = detail::layout_of(input), out = detail::layout_of(output);
    detail::throw_if(detail::check_padding("pad", in, out, mode, start_padding, end_padding));
    std::vector<std::ptrdiff_t> tables;
    detail::copy_plan plan = detail::plan_padding(in, out, mode, start_padding, end_padding, tables);
    std::memcpy(plan.fill.data(), &value, sizeof(T));
    detail::run_on_views("pad", plan, input, output);
}

} // namespace dmlref
