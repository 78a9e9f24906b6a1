#pragma once
/// \file common.hpp
/// What the op headers share: views to layouts, checks on views, and running a plan over views.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "../detail/copy_engine.hpp"
#include "../error.hpp"
#include "../strided_view.hpp"
#include "../tensor_desc.hpp"

namespace dmlref::detail {

/// An error message: fmt::format without the compile-time check of the format string. That check
/// costs every translation unit that includes <dmlref/dmlref.hpp> about 0.2 s of build (of some 4 s)
/// for the library's ~60 messages. dmlref's own tests and tools define DMLREF_CHECK_FORMAT_STRINGS,
/// which restores the check, so a bad format string still fails the project's build.
#ifdef DMLREF_CHECK_FORMAT_STRINGS
template <class... Args> std::string message(fmt::format_string<Args...> format, Args&&... args) {
    return fmt::format(format, std::forward<Args>(args)...);
}
#else
template <class... Args> std::string message(fmt::string_view format, Args&&... args) {
    return fmt::vformat(format, fmt::make_format_args(args...));
}
#endif

template <class T, std::size_t Rank> layout layout_of(const strided_view<T, Rank>& view) noexcept {
    layout l;
    l.rank = Rank;
    for (std::size_t i = 0; i < Rank; ++i) {
        l.extents[i] = view.extent(i);
        l.strides[i] = view.stride(i);
    }
    return l;
}

/// Throws validation_error with `message` when there is one.
inline void throw_if(const std::optional<std::string>& message) {
    if (message) throw validation_error(*message);
}

/// Extents as the DirectML field `Tensor.Sizes` would show them, e.g. "{1, 8, 2, 3}". (fmt::join
/// would instantiate fmt's whole formatting machinery in every translation unit: +0.5 s of build.)
template <class Extents> std::string extents_text(const Extents& extents) {
    std::string text = "{";
    for (std::size_t i = 0; i < extents.size(); ++i) text += detail::message("{}{}", i ? ", " : "", extents[i]);
    return text + "}";
}

/// Checks that a view's extents are positive and that an output view never maps two coordinates
/// to one element (DECISIONS 6: a zero stride over more than one element, or strides that overlap).
/// Strides pass when, sorted by magnitude, each exceeds the reach of all smaller ones.
inline std::optional<std::string> check_layout(std::string_view op, std::string_view field, const layout& l,
                                               bool is_output) {
    for (std::size_t i = 0; i < l.rank; ++i)
        if (l.extents[i] < 1)
            return detail::message("{}: {}.Sizes[{}] is {}; every size must be at least 1", op, field, i, l.extents[i]);
    if (!is_output) return std::nullopt;
    std::array<std::size_t, max_plan_rank> order{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < l.rank; ++i) {
        if (l.extents[i] == 1) continue;
        if (l.strides[i] == 0)
            return detail::message("{}: {}.Strides[{}] is 0 with {}.Sizes[{}] = {}; an output must not broadcast "
                               "(two coordinates would write one element)",
                               op, field, i, field, i, l.extents[i]);
        order[n++] = i;
    }
    auto magnitude = [&](std::size_t i) { return l.strides[i] < 0 ? -l.strides[i] : l.strides[i]; };
    for (std::size_t a = 1; a < n; ++a) // insertion sort by |stride|, at most 8 axes
        for (std::size_t b = a; b > 0 && magnitude(order[b]) < magnitude(order[b - 1]); --b)
            std::swap(order[b], order[b - 1]);
    std::uint64_t reach = 0; // largest offset distance reachable by the smaller strides (saturating)
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = order[k];
        const auto m = static_cast<std::uint64_t>(magnitude(i));
        if (m <= reach)
            return detail::message("{}: {}.Strides[{}] = {} overlaps the smaller strides of {} (they reach {} elements); "
                               "an output must not map two coordinates to one element",
                               op, field, i, l.strides[i], field, reach);
        reach = saturating_mul_add(m, static_cast<std::uint64_t>(l.extents[i] - 1), reach);
    }
    return std::nullopt;
}

/// Element offsets [low, high] a view touches, relative to its element 0.
inline std::pair<std::ptrdiff_t, std::ptrdiff_t> reach_of(const layout& l) noexcept {
    std::ptrdiff_t low = 0, high = 0;
    for (std::size_t i = 0; i < l.rank; ++i) {
        const std::ptrdiff_t span = (l.extents[i] - 1) * l.strides[i];
        (span < 0 ? low : high) += span;
    }
    return {low, high};
}

/// DECISIONS 7: input and output memory must not overlap (no in-place operation).
inline std::optional<std::string> check_disjoint(std::string_view op, const void* in, const layout& in_layout,
                                                 const void* out, const layout& out_layout, std::size_t width) {
    const auto [in_low, in_high] = reach_of(in_layout);
    const auto [out_low, out_high] = reach_of(out_layout);
    const auto w = static_cast<std::intptr_t>(width);
    const auto in_first = reinterpret_cast<std::intptr_t>(in) + in_low * w;
    const auto in_end = reinterpret_cast<std::intptr_t>(in) + (in_high + 1) * w;
    const auto out_first = reinterpret_cast<std::intptr_t>(out) + out_low * w;
    const auto out_end = reinterpret_cast<std::intptr_t>(out) + (out_high + 1) * w;
    if (in_first < out_end && out_first < in_end)
        return detail::message("{}: the input and output memory overlap (bytes [{:#x}, {:#x}) and [{:#x}, {:#x})); "
                           "dmlref does not run in place",
                           op, in_first, in_end, out_first, out_end);
    return std::nullopt;
}

/// Runs `plan` from view `input` into view `output` after the checks every view-level op makes.
template <class T, std::size_t Rank, std::size_t OutRank>
void run_on_views(std::string_view op, copy_plan plan, const strided_view<const T, Rank>& input,
                  const strided_view<T, OutRank>& output) {
    throw_if(check_disjoint(op, input.base() + input.offset(), layout_of(input), output.base() + output.offset(),
                            layout_of(output), sizeof(T)));
    plan.input = reinterpret_cast<const std::byte*>(input.base() + input.offset());
    plan.output = reinterpret_cast<std::byte*>(output.base() + output.offset());
    plan.width = sizeof(T);
    execute(plan);
}

/// The view checks shared by every op: positive extents, and an output that never self-aliases.
inline std::optional<std::string> check_views(std::string_view op, const layout& in, const layout& out) {
    if (auto message = check_layout(op, "InputTensor", in, false)) return message;
    return check_layout(op, "OutputTensor", out, true);
}

} // namespace dmlref::detail
