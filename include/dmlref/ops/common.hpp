#pragma once
/// \file common.hpp
/// What the op headers share: views to layouts, checks on views, and running a plan over views.

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#ifdef DMLREF_CHECK_FORMAT_STRINGS
#include <fmt/core.h>
#endif

#include "../detail/checked.hpp"
#include "../detail/plan.hpp"
// The engine that runs the plans: here, unless the compiled library holds it.
#if DMLREF_DEFINE_FUNCS
#include "../detail/execute.hpp"
#endif
#include "../error.hpp"
#include "../strided_view.hpp"
#include "../tensor_desc.hpp"

namespace dmlref::detail {

/// One argument of an error message, as format_message() reads it: text, or an integer. (bool and
/// the character types are left out: fmt writes them as words and characters, not numbers.)
struct message_arg {
    std::string_view text;
    std::uint64_t magnitude = 0;
    bool is_text = false, negative = false;
    message_arg(std::string_view s) noexcept : text(s), is_text(true) {}
    message_arg(const std::string& s) noexcept : text(s), is_text(true) {}
    message_arg(const char* s) noexcept : text(s), is_text(true) {}
    template <class T>
        requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
                 !std::is_same_v<T, signed char> && !std::is_same_v<T, unsigned char>)
    message_arg(T v) noexcept
        : magnitude(v < T{} ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v)),
          negative(v < T{}) {}
};

/// Appends `part` to a message's `text`. Message text is added through this alone, and so through
/// one member of std::string, append(pointer, size): since C++20, libstdc++ compiles each member
/// of std::string that a translation unit uses in that unit, and `+=`, `+`, push_back and range
/// appends would each add their own to every user of <dmlref/dmlref.hpp>.
inline void append_text(std::string& text, std::string_view part) { text.append(part.data(), part.size()); }

/// `format` with each "{}" replaced by the next argument (integers in decimal) and each "{:#x}" by
/// the next integer in hexadecimal ("0x1f"): the two fields the library's messages use, as fmt
/// formats them. One function for every message, with no template behind it.
DMLREF_COLD DMLREF_FUNC std::string format_message(std::string_view format, std::initializer_list<message_arg> args)
#if DMLREF_DEFINE_FUNCS
{
    std::string text;
    const message_arg* next = args.begin();
    for (std::size_t at = 0; at < format.size();) {
        const std::size_t open = format.find('{', at), close = format.find('}', open);
        if (close == std::string_view::npos || next == args.end()) { // no field left: the rest as it is
            append_text(text, format.substr(at));
            break;
        }
        append_text(text, format.substr(at, open - at));
        const bool hex = format.substr(open, close - open) == "{:#x";
        if (next->is_text) {
            append_text(text, next->text);
        } else {
            char digits[24];
            char* end = digits + sizeof digits;
            char* first = end;
            std::uint64_t v = next->magnitude;
            do *--first = "0123456789abcdef"[v % (hex ? 16 : 10)];
            while ((v /= (hex ? 16 : 10)) != 0);
            if (hex) {
                *--first = 'x';
                *--first = '0';
            }
            if (next->negative) *--first = '-';
            append_text(text, {first, static_cast<std::size_t>(end - first)});
        }
        ++next;
        at = close + 1;
    }
    return text;
}
#else
;
#endif

/// An error message, its fields filled by format_message(). With fmt::format, every translation
/// unit that includes <dmlref/dmlref.hpp> parsed fmt and instantiated its formatting for the
/// library's ~60 messages: about 0.2 s of a 3.6 s build (bench/compile_probe.cpp). dmlref's own
/// tests and tools define DMLREF_CHECK_FORMAT_STRINGS, which has fmt check each format string
/// against its arguments at compile time, so a bad message still fails the project's build; the
/// text comes from format_message() either way.
#ifdef DMLREF_CHECK_FORMAT_STRINGS
template <class... Args>
DMLREF_COLD std::string message(fmt::format_string<const Args&...> format, const Args&... args) {
    const fmt::string_view text = format;
    return format_message(std::string_view(text.data(), text.size()), {message_arg(args)...});
}
#else
template <class... Args> DMLREF_COLD std::string message(std::string_view format, const Args&... args) {
    return format_message(format, {message_arg(args)...});
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

/// Makes `axis` (of a plan value-initialized already) one affine piece, written in place: building
/// an axis_plan and copying it, per axis, was a tenth of a small call's time (perf of the Python
/// module's dmlref.slice on 64 elements).
DMLREF_FUNC void set_affine(axis_plan& axis, std::ptrdiff_t extent, std::ptrdiff_t out_stride, std::ptrdiff_t in_start,
                       std::ptrdiff_t in_step) noexcept
#if DMLREF_DEFINE_FUNCS
{
    axis.extent = extent;
    axis.out_stride = out_stride;
    axis.pieces[0] = {piece::kind::affine, extent, in_start, in_step, nullptr, 0};
    axis.piece_count = 1;
}
#else
;
#endif

/// Throws validation_error with `message` when there is one.
DMLREF_FUNC void throw_if(const std::optional<std::string>& message)
#if DMLREF_DEFINE_FUNCS
{
    if (message) throw validation_error(*message);
}
#else
;
#endif

/// Extents as the DirectML field `Tensor.Sizes` would show them, e.g. "{1, 8, 2, 3}". (fmt::join
/// would instantiate fmt's whole formatting machinery in every translation unit: +0.5 s of build.)
template <class Extents> DMLREF_COLD std::string extents_text(const Extents& extents) {
    std::string text = "{";
    for (std::size_t i = 0; i < extents.size(); ++i)
        append_text(text, detail::message("{}{}", i ? ", " : "", extents[i]));
    append_text(text, "}");
    return text;
}

/// Checks that a view's extents are positive; that it holds and spans at most max_view_elements
/// elements, inputs and outputs alike; and that an output never maps two coordinates to one
/// element (DECISIONS 6: a zero stride over more than one element, or strides that overlap).
/// Strides pass when, sorted by magnitude, each exceeds the reach of all smaller ones.
///
/// This is where overflow stops: once a layout passes, every offset a plan over it forms lies
/// within its reach, and every product or sum of its extents and strides that the planner and the
/// engine form is at most a small multiple of its element count or span, which the headroom of
/// max_view_elements covers (times the element width). The op checks after it only need their
/// own parameters' arithmetic checked.
DMLREF_FUNC std::optional<std::string> check_layout(std::string_view op, std::string_view field, const layout& l,
                                               bool is_output)
#if DMLREF_DEFINE_FUNCS
{
    for (std::size_t i = 0; i < l.rank; ++i)
        if (l.extents[i] < 1)
            return detail::message("{}: {}.Sizes[{}] is {}; every size must be at least 1", op, field, i, l.extents[i]);
    const std::span<const std::ptrdiff_t> extents(l.extents.data(), l.rank), strides(l.strides.data(), l.rank);
    if (const auto count = checked_product(extents); !count || *count > static_cast<std::uint64_t>(max_view_elements))
        return detail::message("{}: {}.Sizes {} hold {} elements; a view holds at most {} (2^57 - 1)", op, field,
                               extents_text(extents),
                               count ? detail::message("{}", *count) : std::string("more than 2^64"),
                               max_view_elements);
    if (const auto reach = checked_reach(extents, strides); !reach || reach->second - reach->first >= max_view_elements)
        for (std::size_t i = 0; i < l.rank; ++i) { // the first axis that takes the span past the bound
            const auto part = checked_reach(extents.first(i + 1), strides.first(i + 1));
            if (!part || part->second - part->first >= max_view_elements)
                return detail::message("{}: {}.Strides[{}] = {} with {}.Sizes[{}] = {} takes the elements the view "
                                       "spans past {} (2^57 - 1)",
                                       op, field, i, l.strides[i], field, i, l.extents[i], max_view_elements);
        }
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
    auto magnitude = [&](std::size_t i) { return checked_magnitude(l.strides[i]); };
    for (std::size_t a = 1; a < n; ++a) // insertion sort by |stride|, at most 8 axes
        for (std::size_t b = a; b > 0 && magnitude(order[b]) < magnitude(order[b - 1]); --b)
            std::swap(order[b], order[b - 1]);
    std::uint64_t reach = 0; // largest offset distance reachable by the smaller strides (saturating)
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = order[k];
        const std::uint64_t m = magnitude(i);
        if (m <= reach)
            return detail::message("{}: {}.Strides[{}] = {} overlaps the smaller strides of {} (they reach {} elements); "
                                   "an output must not map two coordinates to one element",
                                   op, field, i, l.strides[i], field, reach);
        reach = saturating_mul_add(m, static_cast<std::uint64_t>(l.extents[i] - 1), reach);
    }
    return std::nullopt;
}
#else
;
#endif

/// DECISIONS 7: input and output memory must not overlap (no in-place operation). The byte ranges
/// are computed checked: a view that reaches outside the address space is refused, not wrapped.
DMLREF_FUNC std::optional<std::string> check_disjoint(std::string_view op, const void* in, const layout& in_layout,
                                                      const void* out, const layout& out_layout, std::size_t width)
#if DMLREF_DEFINE_FUNCS
{
    const auto w = static_cast<std::ptrdiff_t>(width);
    // [first, end) in bytes of the view at `base`, or nullopt where an address does not fit.
    auto bytes = [&](const void* base, const layout& l) -> std::optional<std::pair<std::ptrdiff_t, std::ptrdiff_t>> {
        const auto reach = checked_reach({l.extents.data(), l.rank}, {l.strides.data(), l.rank});
        if (!reach) return std::nullopt;
        const auto at = static_cast<std::ptrdiff_t>(reinterpret_cast<std::intptr_t>(base));
        const auto low = checked_mul(reach->first, w), after = checked_add(reach->second, std::ptrdiff_t{1});
        const auto high = after ? checked_mul(*after, w) : std::nullopt;
        const auto first = low ? checked_add(at, *low) : std::nullopt;
        const auto end = high ? checked_add(at, *high) : std::nullopt;
        if (!first || !end) return std::nullopt;
        return std::pair{*first, *end};
    };
    const auto in_bytes = bytes(in, in_layout), out_bytes = bytes(out, out_layout);
    if (!in_bytes || !out_bytes)
        return detail::message("{}: the {} view's memory from {:#x} reaches outside the address space", op,
                               in_bytes ? "output" : "input", reinterpret_cast<std::uintptr_t>(in_bytes ? out : in));
    const auto [in_first, in_end] = *in_bytes;
    const auto [out_first, out_end] = *out_bytes;
    if (in_first < out_end && out_first < in_end)
        return detail::message("{}: the input and output memory overlap (bytes [{:#x}, {:#x}) and [{:#x}, {:#x})); "
                               "dmlref does not run in place",
                               op, in_first, in_end, out_first, out_end);
    return std::nullopt;
}
#else
;
#endif

/// Runs `plan` from view `input` into view `output` after the checks every view-level op makes.
template <class T, std::size_t Rank, std::size_t OutRank>
void run_on_views(std::string_view op, copy_plan plan, const strided_view<const T, Rank>& input,
                  const strided_view<T, OutRank>& output) {
    throw_if(check_disjoint(op, input.base() + input.offset(), layout_of(input), output.base() + output.offset(),
                            layout_of(output), sizeof(T)));
    plan.input = reinterpret_cast<const std::byte*>(input.base() + input.offset());
    plan.output = reinterpret_cast<std::byte*>(output.base() + output.offset());
    plan.width = sizeof(T);
#ifdef DMLREF_COMPILED
    execute(plan); // the library's engine
#else
    execute_of_width<sizeof(T)>(plan); // only this width's kernels, not all four
#endif
}

/// The view checks shared by every op: positive extents, and an output that never self-aliases.
DMLREF_FUNC std::optional<std::string> check_views(std::string_view op, const layout& in, const layout& out)
#if DMLREF_DEFINE_FUNCS
{
    if (auto message = check_layout(op, "InputTensor", in, false)) return message;
    return check_layout(op, "OutputTensor", out, true);
}
#else
;
#endif

/// A view's element 0 as bytes.
template <class T> const std::byte* bytes_at(const T* base, std::ptrdiff_t offset) noexcept {
    return reinterpret_cast<const std::byte*>(base + offset);
}
template <class T> std::byte* bytes_at(T* base, std::ptrdiff_t offset) noexcept {
    return reinterpret_cast<std::byte*>(base + offset);
}

/// The bytes [first, end) a view of `l` at `base` with elements of `width` bytes covers; nullopt
/// where an address does not fit.
DMLREF_FUNC std::optional<std::pair<std::uintptr_t, std::uintptr_t>> view_byte_range(const void* base, const layout& l,
                                                                           std::size_t width) noexcept
#if DMLREF_DEFINE_FUNCS
{
    const auto reach = checked_reach({l.extents.data(), l.rank}, {l.strides.data(), l.rank});
    if (!reach) return std::nullopt;
    const auto at = reinterpret_cast<std::uintptr_t>(base);
    const auto w = static_cast<std::uintptr_t>(width);
    const auto low = static_cast<std::uintptr_t>(-reach->first) * w;
    const auto high = (static_cast<std::uintptr_t>(reach->second) + 1) * w;
    if (low > at || at > std::numeric_limits<std::uintptr_t>::max() - high) return std::nullopt;
    return std::pair{at - low, at + high};
}
#else
;
#endif

/// The output must overlap none of the inputs (dmlref does not run in place).
DMLREF_FUNC std::optional<std::string> check_apart(std::string_view op, std::string_view out_field, const void* out,
                                              const layout& out_layout, std::size_t out_width,
                                              std::string_view in_field, const void* in, const layout& in_layout,
                                              std::size_t in_width)
#if DMLREF_DEFINE_FUNCS
{
    const auto a = view_byte_range(out, out_layout, out_width), b = view_byte_range(in, in_layout, in_width);
    if (!a || !b)
        return detail::message("{}: the {} view's memory reaches outside the address space", op, !a ? out_field : in_field);
    if (a->first < b->second && b->first < a->second)
        return detail::message("{}: the memory of {} [{:#x}, {:#x}) and of {} [{:#x}, {:#x}) overlap; dmlref does not "
                               "run in place",
                               op, out_field, a->first, a->second, in_field, b->first, b->second);
    return std::nullopt;
}
#else
;
#endif

} // namespace dmlref::detail
