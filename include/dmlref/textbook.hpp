#pragma once
/// \file textbook.hpp
/// The audit path: every operator evaluated element by element, straight from the index equations
/// that open ops/depth_space.hpp, ops/slice.hpp and ops/padding.hpp (DirectML's documented formulas,
/// with DECISIONS 3 and 4 for the padding value and folded pads). For each output coordinate it
/// computes the input coordinate the formula names, or takes the padding constant, and copies the
/// element's bytes. No plan, no copy engine, no padding tables, no row kernels: a few dozen lines
/// that a reader checks against the documentation in minutes.
///
/// dmlref's fast path (plans, row kernels, byte shuffles, streaming stores) must agree with it bit
/// for bit; the tests hold them to it on random descs and every conformance model. When a result
/// surprises you, run your case through both:
///
///   dmlref::execute(desc, input, fast);                     // the engine
///   dmlref::textbook::execute(desc, input, slow);           // one loop over output coordinates
///   // fast == slow, byte for byte: the bytes outside the output tensor are left alone by both
///   auto from = dmlref::textbook::source_of(desc, {0, 1, 2, 3});  // input [0, 1, 0, 3], or the padding constant
///
/// It checks like the library: textbook::execute validates exactly as dmlref::execute does
/// (validate(desc, input, output, level); the same validation_error and message), and the typed
/// overloads as the typed ops do. Those checks are the library's own functions (operator.hpp and
/// the ops' check_* functions). The ops' headers bring the plan vocabulary (detail/plan.hpp) with
/// them, and, header-only, the engine's headers too (ops/common.hpp); with dmlref::compiled they
/// declare the engine and nothing more. Nothing here calls the engine or builds a plan.
///
/// Output elements not written: none. Every coordinate of the output tensor receives the element
/// source_of names. Bytes of the output buffer that no coordinate reaches (the gaps a strided
/// OutputTensor leaves, the tail up to TotalTensorSizeInBytes) are no element of the tensor: both
/// evaluators leave them as they were, and source_of has no answer for them.
///
/// Speed: one formula and one element copy per output element, many times slower than the
/// engine's row kernels (docs/verification.md gives measured figures). For audits and tests.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "data_type.hpp"
#include "error.hpp"
#include "operator.hpp"
#include "strided_view.hpp"
#include "tensor_desc.hpp"

namespace dmlref::textbook {

// ---- the formulas -------------------------------------------------------------------------------

/// DEPTH_TO_SPACE(1): Out[n, c, y, x] = In[n, cd, y / B, x / B], with bh = y % B, bw = x % B and
/// C' = `output_channels` (OutputTensor.Sizes[1]):
///   DEPTH_COLUMN_ROW: cd = (bh * B + bw) * C' + c;  COLUMN_ROW_DEPTH: cd = c * B * B + bh * B + bw.
constexpr index_array<4> depth_to_space_source(const index_array<4>& out, std::ptrdiff_t block_size,
                                               depth_space_order order, std::ptrdiff_t output_channels) noexcept {
    const std::ptrdiff_t b = block_size, n = out[0], c = out[1], y = out[2], x = out[3];
    const std::ptrdiff_t bh = y % b, bw = x % b;
    const std::ptrdiff_t cd = order == depth_space_order::depth_column_row ? (bh * b + bw) * output_channels + c
                                                                           : c * b * b + bh * b + bw;
    return {n, cd, y / b, x / b};
}

/// SPACE_TO_DEPTH(1): Out[n, cd, h, w] = In[n, c, h * B + bh, w * B + bw], with C' =
/// `input_channels` (InputTensor.Sizes[1]) and (c, bh, bw) read back from cd:
///   DEPTH_COLUMN_ROW: cd = (bh * B + bw) * C' + c;  COLUMN_ROW_DEPTH: cd = c * B * B + bh * B + bw.
constexpr index_array<4> space_to_depth_source(const index_array<4>& out, std::ptrdiff_t block_size,
                                               depth_space_order order, std::ptrdiff_t input_channels) noexcept {
    const std::ptrdiff_t b = block_size, n = out[0], cd = out[1], h = out[2], w = out[3];
    std::ptrdiff_t c = 0, bh = 0, bw = 0;
    if (order == depth_space_order::depth_column_row) {
        c = cd % input_channels;
        bw = (cd / input_channels) % b;
        bh = cd / input_channels / b;
    } else {
        bw = cd % b;
        bh = (cd / b) % b;
        c = cd / (b * b);
    }
    return {n, c, h * b + bh, w * b + bw};
}

/// SLICE1, one axis: In coordinate = CopyStart + InputWindowStrides * o, where CopyStart =
/// InputWindowOffsets, moved to the window's last element for a negative stride. (SLICE v0 is
/// Offsets + Strides * o: a positive stride, so `window_size` does not matter.) Like the two
/// above, it takes the parameters of a valid operator, whose products all fit.
constexpr std::ptrdiff_t slice_source(std::ptrdiff_t out, std::ptrdiff_t window_offset, std::ptrdiff_t window_size,
                                      std::ptrdiff_t window_stride) noexcept {
    const std::ptrdiff_t copy_start = window_stride < 0 ? window_offset + window_size - 1 : window_offset;
    return copy_start + window_stride * out;
}

/// SLICE_GRAD, one axis: the input gradient's coordinate g that output coordinate `x` receives, or
/// nullopt where x is no window element (the element is 0). The window's elements are CopyStart +
/// InputWindowStrides * g for g in [0, n), with CopyStart as SLICE1's (the window's last element
/// for a negative stride): SLICE1's equation solved for g.
inline std::optional<std::ptrdiff_t> slice_grad_source(std::ptrdiff_t x, std::ptrdiff_t offset, std::ptrdiff_t size,
                                                        std::ptrdiff_t stride, std::ptrdiff_t n) {
    const std::ptrdiff_t copy_start = offset + (stride < 0 ? size - 1 : 0);
    const std::ptrdiff_t distance = x - copy_start;
    if (distance % stride != 0) return std::nullopt;
    const std::ptrdiff_t g = distance / stride;
    if (g < 0 || g >= n) return std::nullopt;
    return g;
}

/// REVERSE_SUBSEQUENCES, along Axis: the input coordinate that output coordinate `o` copies in a
/// sequence of `length` elements on an axis of `n`: min(length - 1 - o, n - 1) for o < length, else
/// o itself. DirectML's page clamps the length to n; DirectML itself holds the read coordinate at
/// n - 1 as here (docs/directml.md), in 64 bits for UINT64 lengths.
constexpr std::ptrdiff_t reverse_subsequences_source(std::ptrdiff_t o, std::uint64_t length, std::ptrdiff_t n) noexcept {
    const auto u = static_cast<std::uint64_t>(o);
    if (u >= length) return o;
    const std::uint64_t mirror = length - 1 - u;
    return mirror < static_cast<std::uint64_t>(n - 1) ? static_cast<std::ptrdiff_t>(mirror) : n - 1;
}

/// PADDING(1), one axis of `n` input elements: the input coordinate for t = o - StartPadding, or
/// nullopt where the element is the padding constant (CONSTANT mode, t outside [0, n)). Pads
/// larger than the axis fold periodically (DECISIONS 4), with a mod that is never negative:
///   EDGE clamp(t, 0, n - 1);  REFLECTION p = 2(n - 1), m = t mod p, m < n ? m : p - m;
///   SYMMETRIC p = 2n, m = t mod p, m < n ? m : p - 1 - m;  WRAP t mod n.
/// nullopt too where no formula applies: n < 1, n so large that the period 2n does not fit in
/// ptrdiff_t (no tensor has such an axis). REFLECTION of one element repeats it (DECISIONS 5, as
/// DirectML does). Any t is fine.
constexpr std::optional<std::ptrdiff_t> padding_axis_source(padding_mode mode, std::ptrdiff_t t, std::ptrdiff_t n) noexcept {
    if (0 <= t && t < n) return t;
    auto mod = [](std::ptrdiff_t a, std::ptrdiff_t p) {
        const std::ptrdiff_t r = a % p;
        return r < 0 ? r + p : r;
    };
    if (n < 1 || n > std::numeric_limits<std::ptrdiff_t>::max() / 2) return std::nullopt;
    switch (mode) {
    case padding_mode::constant: return std::nullopt;
    case padding_mode::edge: return t < 0 ? 0 : n - 1;
    case padding_mode::reflection: {
        if (n == 1) return 0;
        const std::ptrdiff_t p = 2 * (n - 1), m = mod(t, p);
        return m < n ? m : p - m;
    }
    case padding_mode::symmetric: {
        const std::ptrdiff_t p = 2 * n, m = mod(t, p);
        return m < n ? m : p - 1 - m;
    }
    case padding_mode::wrap: return mod(t, n);
    }
    return std::nullopt;
}

/// DECISIONS 3, written out: PADDING's FLOAT value as the bytes of `type` (little-endian, the
/// first element-size bytes). Integers truncate toward zero and saturate at the type's range, NaN
/// becomes 0; FLOAT16 rounds to nearest even; FLOAT32 keeps its bits; FLOAT64 is exact.
inline std::array<std::byte, 8> padding_value_bytes(data_type type, float value) noexcept {
    std::array<std::byte, 8> bytes{};
    auto put = [&](auto v) { std::memcpy(bytes.data(), &v, sizeof(v)); };
    auto integer = [&](auto zero) {
        using I = decltype(zero);
        if (value != value) return put(I{0});
        // Past a bound of the type it saturates; inside, the conversion truncates toward zero.
        const double v = static_cast<double>(value);
        if (v <= static_cast<double>(std::numeric_limits<I>::lowest())) return put(std::numeric_limits<I>::lowest());
        if (v >= static_cast<double>(std::numeric_limits<I>::max())) return put(std::numeric_limits<I>::max());
        put(static_cast<I>(v));
    };
    switch (type) {
    case data_type::float32: put(value); break;
    case data_type::float64: put(static_cast<double>(value)); break;
    case data_type::float16: put(half_bits_from_double(static_cast<double>(value))); break;
    case data_type::uint8: integer(std::uint8_t{}); break;
    case data_type::int8: integer(std::int8_t{}); break;
    case data_type::uint16: integer(std::uint16_t{}); break;
    case data_type::int16: integer(std::int16_t{}); break;
    case data_type::uint32: integer(std::uint32_t{}); break;
    case data_type::int32: integer(std::int32_t{}); break;
    case data_type::uint64: integer(std::uint64_t{}); break;
    case data_type::int64: integer(std::int64_t{}); break;
    default: break;
    }
    return bytes;
}

// ---- where one output element comes from --------------------------------------------------------

/// What an output element is a copy of.
enum class source_kind {
    input,            ///< the input element at `coordinates`
    padding_constant, ///< PADDING(1)'s value (CONSTANT mode, outside the input on some axis)
    zero,             ///< no input element: SLICE_GRAD's 0 (all bits clear) outside its window
};

/// The answer of source_of: an input coordinate, or the padding constant.
struct source {
    source_kind kind = source_kind::input;
    std::vector<std::uint32_t> coordinates; ///< the input coordinate; empty for the padding constant and zero
    /// Which input, in binding order (inputs_of): JOIN's InputTensors index, a scatter's
    /// UpdatesTensor (2), ONE_HOT's ValuesTensor (1); 0 (InputTensor) otherwise.
    std::size_t input = 0;

    bool is_padding_constant() const noexcept { return kind == source_kind::padding_constant; }
    bool is_zero() const noexcept { return kind == source_kind::zero; }
    friend bool operator==(const source&, const source&) = default;
};

/// "input [0, 1, 0, 3]", "InputTensors[2] [0, 1]" (a JOIN input after the first) or "the padding constant";
/// to_string(s, desc) names the input by the desc's field.
inline std::string to_string(const source& s) {
    if (s.is_padding_constant()) return "the padding constant";
    if (s.is_zero()) return "zero";
    std::string text = s.input == 0 ? "input [" : "InputTensors[" + std::to_string(s.input) + "] [";
    for (std::size_t i = 0; i < s.coordinates.size(); ++i) {
        if (i > 0) text.append(", ");
        text.append(std::to_string(s.coordinates[i]));
    }
    return text.append("]");
}

/// `s` with the input named by `desc`'s field: "UpdatesTensor [1, 0]", "ValuesTensor [0, 1]",
/// "InputTensor [2]".
inline std::string to_string(const source& s, const operator_desc& desc) {
    if (s.kind != source_kind::input) return to_string(s);
    const auto ins = inputs_of(desc);
    std::string text = s.input < ins.size() ? ins[s.input].field + " [" : "input [";
    for (std::size_t i = 0; i < s.coordinates.size(); ++i) {
        if (i > 0) text.append(", ");
        text.append(std::to_string(s.coordinates[i]));
    }
    return text.append("]");
}

namespace detail {

/// Up to eight coordinates, as the loops below count them.
using coordinate = std::array<std::ptrdiff_t, max_dimension_count>;

/// The formula of one desc: sets `in` to the input coordinate of output coordinate `out` and
/// returns true, or returns false where the element is the padding constant. `d` is valid.
template <class Desc> bool source_in(const Desc& d, const coordinate& out, coordinate& in) {
    const std::size_t rank = d.output_tensor.sizes.size();
    if constexpr (std::is_same_v<Desc, depth_to_space_desc> || std::is_same_v<Desc, depth_to_space1_desc>) {
        depth_space_order order = depth_space_order::depth_column_row; // the v0 op's only order
        if constexpr (requires { d.order; }) order = d.order;
        const auto s = depth_to_space_source({out[0], out[1], out[2], out[3]}, d.block_size, order,
                                             d.output_tensor.sizes[1]);
        for (std::size_t i = 0; i < 4; ++i) in[i] = s[i];
        return true;
    } else if constexpr (std::is_same_v<Desc, space_to_depth_desc> || std::is_same_v<Desc, space_to_depth1_desc>) {
        depth_space_order order = depth_space_order::depth_column_row;
        if constexpr (requires { d.order; }) order = d.order;
        const auto s = space_to_depth_source({out[0], out[1], out[2], out[3]}, d.block_size, order,
                                             d.input_tensor.sizes[1]);
        for (std::size_t i = 0; i < 4; ++i) in[i] = s[i];
        return true;
    } else if constexpr (std::is_same_v<Desc, slice_desc>) { // InputTensor[Offsets + Strides * o]
        for (std::size_t i = 0; i < rank; ++i) in[i] = slice_source(out[i], d.offsets[i], 1, d.strides[i]);
        return true;
    } else if constexpr (std::is_same_v<Desc, slice1_desc>) {
        for (std::size_t i = 0; i < rank; ++i)
            in[i] = slice_source(out[i], d.input_window_offsets[i], d.input_window_sizes[i], d.input_window_strides[i]);
        return true;
    } else if constexpr (std::is_same_v<Desc, element_wise_identity_desc>) { // InputTensor[o]
        for (std::size_t i = 0; i < rank; ++i) in[i] = out[i];
        return true;
    } else if constexpr (std::is_same_v<Desc, slice_grad_desc>) { // a window element on every axis, else 0
        bool inside = true;
        for (std::size_t i = 0; i < rank; ++i) {
            const auto g = slice_grad_source(out[i], d.input_window_offsets[i], d.input_window_sizes[i],
                                             d.input_window_strides[i], d.input_tensor.sizes[i]);
            inside = inside && g.has_value();
            in[i] = g.value_or(0);
        }
        return inside;
    } else if constexpr (std::is_same_v<Desc, tile_desc>) { // InputTensor[o mod InputTensor.Sizes]
        for (std::size_t i = 0; i < rank; ++i) in[i] = out[i] % std::ptrdiff_t{d.input_tensor.sizes[i]};
        return true;
    } else if constexpr (std::is_same_v<Desc, upsample_2d_desc>) { // last two axes: floor(o / scale)
        for (std::size_t i = 0; i < rank; ++i) in[i] = out[i];
        in[rank - 2] = out[rank - 2] / std::ptrdiff_t{d.scale_size.height};
        in[rank - 1] = out[rank - 1] / std::ptrdiff_t{d.scale_size.width};
        return true;
    } else { // PADDING, PADDING1: separable per axis, the constant if outside on any axis
        bool inside = true;
        for (std::size_t i = 0; i < rank; ++i) {
            const auto s = padding_axis_source(d.padding_mode, out[i] - std::ptrdiff_t{d.start_padding[i]},
                                          d.input_tensor.sizes[i]);
            inside = inside && s.has_value();
            in[i] = s.value_or(0);
        }
        return inside;
    }
}

/// A tensor desc's element strides: its own, or packed row-major.
inline coordinate element_strides(const buffer_tensor_desc& t) {
    coordinate strides{};
    std::ptrdiff_t packed = 1;
    for (std::size_t i = t.sizes.size(); i-- > 0;) {
        strides[i] = t.strides ? std::ptrdiff_t{(*t.strides)[i]} : packed;
        packed *= std::ptrdiff_t{t.sizes[i]}; // at most 2^32 - 1 elements: validated
    }
    return strides;
}

/// The desc's first output tensor (SPLIT's OutputTensors[0]).
inline const buffer_tensor_desc& output_of(const operator_desc& desc) { return outputs_of(desc).front().desc(); }

/// The element bits of `width` bytes at `coordinate` of a tensor at `base`.
inline const std::byte* element_at(const std::byte* base, const buffer_tensor_desc& t, const coordinate& c,
                                   std::size_t width) {
    const coordinate strides = element_strides(t);
    std::ptrdiff_t at = 0;
    for (std::size_t i = 0; i < t.sizes.size(); ++i) at += c[i] * strides[i];
    return base + at * static_cast<std::ptrdiff_t>(width);
}

/// JOIN and SPLIT from their index equation (ops/join_split.hpp): for every coordinate o of the
/// whole, the part k with base(k) <= o[Axis] < base(k) + Sizes[Axis], and o - base(k) on Axis.
template <class Desc>
void execute_parts(const Desc& d, std::span<const std::span<const std::byte>> inputs,
                   std::span<const std::span<std::byte>> outputs) {
    constexpr bool is_split = std::is_same_v<Desc, split_desc>;
    const auto& parts = [&]() -> const std::vector<buffer_tensor_desc>& {
        if constexpr (is_split) return d.output_tensors; else return d.input_tensors;
    }();
    const buffer_tensor_desc& whole = [&]() -> const buffer_tensor_desc& {
        if constexpr (is_split) return d.input_tensor; else return d.output_tensor;
    }();
    const std::size_t rank = whole.sizes.size(), width = element_size(whole.data_type);
    coordinate o{};
    const std::uint64_t count = element_count(whole.sizes);
    for (std::uint64_t n = 0; n < count; ++n) {
        std::size_t k = 0;
        coordinate c = o;
        while (c[d.axis] >= std::ptrdiff_t{parts[k].sizes[d.axis]}) c[d.axis] -= parts[k++].sizes[d.axis];
        if (is_split) {
            const std::byte* from = element_at(inputs[0].data(), whole, o, width);
            std::memcpy(const_cast<std::byte*>(element_at(outputs[k].data(), parts[k], c, width)), from, width);
        } else {
            const std::byte* from = element_at(inputs[k].data(), parts[k], c, width);
            std::memcpy(const_cast<std::byte*>(element_at(outputs[0].data(), whole, o, width)), from, width);
        }
        for (std::size_t i = rank; i-- > 0;) { // the next coordinate, row-major
            if (++o[i] < std::ptrdiff_t{whole.sizes[i]}) break;
            o[i] = 0;
        }
    }
}

/// The length at coordinate `at` of a lengths tensor (UINT32 or UINT64, little-endian) at `base`.
inline std::uint64_t length_at(const std::byte* base, const buffer_tensor_desc& lengths, const coordinate& at) {
    std::uint64_t length = 0;
    std::memcpy(&length, element_at(base, lengths, at, element_size(lengths.data_type)), element_size(lengths.data_type));
    return length;
}

/// REVERSE_SUBSEQUENCES from its index equation (ops/reverse_subsequences.hpp): for every output
/// coordinate o, the length at o with 0 on Axis, and the input element reverse_subsequences_source
/// names on Axis (o itself on every other axis).
inline void execute_reverse_subsequences(const reverse_subsequences_desc& d, std::span<const std::span<const std::byte>> inputs,
                                         std::span<const std::span<std::byte>> outputs) {
    const buffer_tensor_desc& out = d.output_tensor;
    const std::size_t rank = out.sizes.size(), width = element_size(out.data_type);
    const auto n = std::ptrdiff_t{d.input_tensor.sizes[d.axis]};
    coordinate o{};
    const std::uint64_t count = element_count(out.sizes);
    for (std::uint64_t k = 0; k < count; ++k) {
        coordinate at = o, s = o;
        at[d.axis] = 0;
        s[d.axis] = reverse_subsequences_source(o[d.axis], length_at(inputs[1].data(), d.sequence_lengths_tensor, at), n);
        std::memcpy(const_cast<std::byte*>(element_at(outputs[0].data(), out, o, width)),
                    element_at(inputs[0].data(), d.input_tensor, s, width), width);
        for (std::size_t i = rank; i-- > 0;) { // the next coordinate, row-major
            if (++o[i] < std::ptrdiff_t{out.sizes[i]}) break;
            o[i] = 0;
        }
    }
}

/// A logical output coordinate of the gathers: N + IndexDimensions - 1 entries may pass N.
using wide_coordinate = std::array<std::ptrdiff_t, 2 * max_dimension_count>;

/// The logical coordinate of output coordinate `o` (`n` entries) for a logical shape of `count`
/// entries `sizes`, placed into the output as the gathers place it (operator-facts.md §10): a
/// shorter shape is the last `count` entries of o; a longer one takes 0 at its first count - n
/// entries and the entries of o in order elsewhere. Those first entries are any sizes for GATHER
/// (`keep_last`: DirectML keeps the last n, docs/directml.md), and all of size 1 for the ND ops
/// (the desc layer refuses others), whose first size-1 entries take the 0s.
inline wide_coordinate logical_of(const wide_coordinate& sizes, std::size_t count, const coordinate& o, std::size_t n,
                                  bool keep_last = false) {
    wide_coordinate c{};
    if (count <= n || keep_last) {
        for (std::size_t l = 0; l < count; ++l) c[l] = l + n < count ? 0 : o[n + l - count];
        return c;
    }
    std::size_t drop = count - n, j = 0;
    for (std::size_t l = 0; l < count; ++l) {
        if (drop > 0 && sizes[l] == 1) {
            c[l] = 0;
            --drop;
        } else {
            c[l] = o[j++];
        }
    }
    return c;
}

/// The index at coordinate `at` of an index tensor at `base` (INT32, UINT32, INT64 or UINT64, all
/// 64 bits of the wide ones), onto an axis of `size`: i + size for a negative signed index. Throws
/// validation_error naming the operator, the index's coordinate and its value where that is
/// outside [0, size).
inline std::ptrdiff_t index_at(std::string_view op, const std::byte* base, const buffer_tensor_desc& t, const coordinate& at,
                               std::ptrdiff_t size) {
    const std::size_t width = element_size(t.data_type);
    std::uint64_t bits = 0;
    std::memcpy(&bits, element_at(base, t, at, width), width);
    const bool is_signed = t.data_type == data_type::int32 || t.data_type == data_type::int64;
    std::string value;
    if (is_signed) {
        const std::int64_t v = width == 4 ? std::int64_t{static_cast<std::int32_t>(static_cast<std::uint32_t>(bits))}
                                          : static_cast<std::int64_t>(bits);
        const std::int64_t wrapped = v < 0 ? v + size : v;
        if (wrapped >= 0 && wrapped < size) return static_cast<std::ptrdiff_t>(wrapped);
        value = std::to_string(v);
    } else {
        if (bits < static_cast<std::uint64_t>(size)) return static_cast<std::ptrdiff_t>(bits);
        value = std::to_string(bits);
    }
    std::string where;
    for (std::size_t i = 0; i < t.sizes.size(); ++i) where += (i ? ", " : "") + std::to_string(at[i]);
    throw validation_error(std::string("textbook ").append(op).append(": IndicesTensor[").append(where).append("] is ")
                               .append(value).append(", outside an axis of ").append(std::to_string(size)));
}

/// GATHER (Axis a, IndexDimensions k): the logical output (p, q, r), p of length a, q of k, r of
/// N - a - 1, is Out[p, q, r] = In[p, wrap(Indices[0..., q]), r]. The input coordinate of `o`.
inline coordinate gather_source(const gather_desc& d, const std::byte* indices, const coordinate& o) {
    const std::size_t n = d.output_tensor.sizes.size(), a = d.axis, k = d.index_dimensions;
    wide_coordinate sizes{};
    std::size_t count = 0;
    for (std::size_t i = 0; i < a; ++i) sizes[count++] = d.input_tensor.sizes[i];
    for (std::size_t e = n - k; e < n; ++e) sizes[count++] = d.indices_tensor.sizes[e];
    for (std::size_t i = a + 1; i < n; ++i) sizes[count++] = d.input_tensor.sizes[i];
    const wide_coordinate c = logical_of(sizes, count, o, n, true);
    coordinate at{}, s{}; // Indices[0..., q]
    for (std::size_t e = 0; e < k; ++e) at[n - k + e] = c[a + e];
    for (std::size_t i = 0; i < a; ++i) s[i] = c[i];
    s[a] = index_at("GATHER", indices, d.indices_tensor, at, std::ptrdiff_t{d.input_tensor.sizes[a]});
    for (std::size_t i = a + 1; i < n; ++i) s[i] = c[i - 1 + k];
    return s;
}

/// GATHER_ELEMENTS (Axis a): Out[o] = In[o with o[a] -> wrap(Indices[o])]; SCATTER_ELEMENTS's
/// target the same with the output as `sized` (the tensor the index addresses).
inline coordinate elements_coordinate(std::string_view op, const buffer_tensor_desc& sized, const buffer_tensor_desc& idx,
                                      std::size_t axis, const std::byte* indices, const coordinate& o) {
    coordinate s = o;
    s[axis] = index_at(op, indices, idx, o, std::ptrdiff_t{sized.sizes[axis]});
    return s;
}

inline coordinate gather_elements_source(const gather_elements_desc& d, const std::byte* indices, const coordinate& o) {
    return elements_coordinate("GATHER_ELEMENTS", d.input_tensor, d.indices_tensor, d.axis, indices, o);
}

/// GATHER_ND1 (I = InputDimensionCount, J = IndicesDimensionCount, B = BatchDimensionCount, T the
/// last index size, R = I - B - T; GATHER_ND with B = 0): the logical output (b, q, r), b of length
/// B, q of J - B - 1, r of R, is Out[b, q, r] = In[0..., b, t_0, ..., t_{T-1}, r] with
/// t_m = wrap(Indices[0..., b, q, m]).
inline coordinate gather_nd_source(std::string_view op, const buffer_tensor_desc& input, const buffer_tensor_desc& idx,
                                   std::size_t ni, std::size_t nj, std::size_t b, const std::byte* indices, const coordinate& o) {
    const std::size_t n = input.sizes.size(), t = idx.sizes[n - 1], r = ni - b - t;
    wide_coordinate sizes{};
    std::size_t count = 0;
    for (std::size_t e = n - nj; e + 1 < n; ++e) sizes[count++] = idx.sizes[e];
    for (std::size_t i = n - r; i < n; ++i) sizes[count++] = input.sizes[i];
    const wide_coordinate c = logical_of(sizes, count, o, n);
    coordinate at{}, s{};
    for (std::size_t e = 0; e + 1 < nj; ++e) at[n - nj + e] = c[e]; // Indices[0..., b, q, m]
    for (std::size_t e = 0; e < b; ++e) s[n - ni + e] = c[e];       // In[0..., b, ...]
    for (std::size_t m = 0; m < t; ++m) {
        at[n - 1] = static_cast<std::ptrdiff_t>(m);
        const std::size_t axis = n - ni + b + m;
        s[axis] = index_at(op, indices, idx, at, std::ptrdiff_t{input.sizes[axis]});
    }
    for (std::size_t e = 0; e < r; ++e) s[n - r + e] = c[nj - 1 + e]; // ..., r]
    return s;
}

/// The input coordinate a gather's output coordinate `o` copies, reading the indices at `indices`.
template <class Desc> coordinate gather_family_source(const Desc& d, const std::byte* indices, const coordinate& o) {
    if constexpr (std::is_same_v<Desc, gather_desc>) {
        return gather_source(d, indices, o);
    } else if constexpr (std::is_same_v<Desc, gather_elements_desc>) {
        return gather_elements_source(d, indices, o);
    } else if constexpr (std::is_same_v<Desc, gather_nd_desc>) {
        return gather_nd_source("GATHER_ND", d.input_tensor, d.indices_tensor, d.input_dimension_count,
                                d.indices_dimension_count, 0, indices, o);
    } else {
        return gather_nd_source("GATHER_ND1", d.input_tensor, d.indices_tensor, d.input_dimension_count,
                                d.indices_dimension_count, d.batch_dimension_count, indices, o);
    }
}

/// A gather from its equation: every output coordinate in row-major order copies the input element
/// gather_family_source names (an index out of range throws, the output partly written).
template <class Desc>
void execute_gather_family(const Desc& d, std::span<const std::span<const std::byte>> inputs,
                           std::span<const std::span<std::byte>> outputs) {
    const buffer_tensor_desc& out = d.output_tensor;
    const std::size_t rank = out.sizes.size(), width = element_size(out.data_type);
    coordinate o{};
    const std::uint64_t count = element_count(out.sizes);
    for (std::uint64_t k = 0; k < count; ++k) {
        const coordinate s = gather_family_source(d, inputs[1].data(), o);
        std::memcpy(const_cast<std::byte*>(element_at(outputs[0].data(), out, o, width)),
                    element_at(inputs[0].data(), d.input_tensor, s, width), width);
        for (std::size_t i = rank; i-- > 0;) { // the next coordinate, row-major
            if (++o[i] < std::ptrdiff_t{out.sizes[i]}) break;
            o[i] = 0;
        }
    }
}

/// The output coordinate a scatter writes update coordinate `u` to: SCATTER_ELEMENTS
/// Out[u with u[Axis] -> wrap(Indices[u])]; SCATTER_ND (R = I - T) Out[0..., t_0, ..., t_{T-1}, r]
/// for the update (q, r), t = wrap(Indices[0..., q, 0..T)): GATHER_ND's source equation with the
/// output in the input's place and the updates in the output's.
template <class Desc> coordinate scatter_target(const Desc& d, const std::byte* indices, const coordinate& u) {
    if constexpr (std::is_same_v<Desc, scatter_elements_desc>) {
        return elements_coordinate("SCATTER_ELEMENTS", d.output_tensor, d.indices_tensor, d.axis, indices, u);
    } else {
        return gather_nd_source("SCATTER_ND", d.output_tensor, d.indices_tensor, d.input_dimension_count,
                                d.indices_dimension_count, 0, indices, u);
    }
}

/// Calls `f(c)` for every coordinate of `sizes`, row-major.
template <class F> void for_each_coordinate_of(const std::vector<std::uint32_t>& sizes, F f) {
    coordinate c{};
    const std::uint64_t count = element_count(sizes);
    for (std::uint64_t k = 0; k < count; ++k) {
        f(static_cast<const coordinate&>(c));
        for (std::size_t i = sizes.size(); i-- > 0;) {
            if (++c[i] < std::ptrdiff_t{sizes[i]}) break;
            c[i] = 0;
        }
    }
}

/// A scatter from its equation: the output is the input, element by element; then each update, in
/// row-major order of the updates, lands on scatter_target's element (of duplicate targets the last
/// update stays: dmlref's rule, operator-facts.md §22). An index out of range throws.
template <class Desc>
void execute_scatter_family(const Desc& d, std::span<const std::span<const std::byte>> inputs,
                            std::span<const std::span<std::byte>> outputs) {
    const buffer_tensor_desc& out = d.output_tensor;
    const std::size_t width = element_size(out.data_type);
    for_each_coordinate_of(out.sizes, [&](const coordinate& o) {
        std::memcpy(const_cast<std::byte*>(element_at(outputs[0].data(), out, o, width)),
                    element_at(inputs[0].data(), d.input_tensor, o, width), width);
    });
    for_each_coordinate_of(d.updates_tensor.sizes, [&](const coordinate& u) {
        const coordinate t = scatter_target(d, inputs[1].data(), u);
        std::memcpy(const_cast<std::byte*>(element_at(outputs[0].data(), out, t, width)),
                    element_at(inputs[2].data(), d.updates_tensor, u, width), width);
    });
}

/// ONE_HOT at output coordinate `o`: the coordinate of ValuesTensor it copies. With i the index at o
/// with 0 on Axis and i' = i + Out.Sizes[Axis] for a negative signed i: OnValue (coordinate 1 on
/// ValuesTensor's innermost axis of size above 1, 0 elsewhere) where o[Axis] = i', OffValue
/// (coordinate 0) elsewhere, and on the whole sequence where i' is outside [0, Out.Sizes[Axis]).
inline coordinate one_hot_value(const one_hot_desc& d, const std::byte* indices, const coordinate& o) {
    coordinate at = o, value{};
    at[d.axis] = 0;
    const buffer_tensor_desc& idx = d.indices_tensor;
    const std::size_t width = element_size(idx.data_type);
    std::uint64_t bits = 0;
    std::memcpy(&bits, element_at(indices, idx, at, width), width);
    const auto size = std::int64_t{d.output_tensor.sizes[d.axis]};
    bool hot = false;
    if (idx.data_type == data_type::int32 || idx.data_type == data_type::int64) {
        const std::int64_t v = width == 4 ? std::int64_t{static_cast<std::int32_t>(static_cast<std::uint32_t>(bits))}
                                          : static_cast<std::int64_t>(bits);
        const std::int64_t i = v < 0 ? v + size : v;
        hot = i >= 0 && i < size && i == o[d.axis];
    } else {
        hot = bits < static_cast<std::uint64_t>(size) && static_cast<std::int64_t>(bits) == o[d.axis];
    }
    if (hot)
        for (std::size_t i = d.values_tensor.sizes.size(); i-- > 0;)
            if (d.values_tensor.sizes[i] > 1) {
                value[i] = 1;
                break;
            }
    return value;
}

/// ONE_HOT from its equation, one output element at a time.
inline void execute_one_hot(const one_hot_desc& d, std::span<const std::span<const std::byte>> inputs,
                            std::span<const std::span<std::byte>> outputs) {
    const std::size_t width = element_size(d.output_tensor.data_type);
    for_each_coordinate_of(d.output_tensor.sizes, [&](const coordinate& o) {
        std::memcpy(const_cast<std::byte*>(element_at(outputs[0].data(), d.output_tensor, o, width)),
                    element_at(inputs[1].data(), d.values_tensor, one_hot_value(d, inputs[0].data(), o), width), width);
    });
}

/// The descs that bind more than one input and one output tensor, from their equations.
template <class Desc>
void execute_several(const Desc& d, std::span<const std::span<const std::byte>> inputs,
                     std::span<const std::span<std::byte>> outputs) {
    if constexpr (std::is_same_v<Desc, reverse_subsequences_desc>) {
        execute_reverse_subsequences(d, inputs, outputs);
    } else if constexpr (is_gather_desc_v<Desc>) {
        execute_gather_family(d, inputs, outputs);
    } else if constexpr (is_scatter_desc_v<Desc>) {
        execute_scatter_family(d, inputs, outputs);
    } else if constexpr (std::is_same_v<Desc, one_hot_desc>) {
        execute_one_hot(d, inputs, outputs);
    } else {
        execute_parts(d, inputs, outputs);
    }
}

/// Thrown where a formula names an input coordinate outside the input: a bug here, never the caller's.
[[noreturn]] inline void outside_input(std::string_view op) {
    throw std::logic_error(std::string("textbook: ").append(op).append(
        ": the formula names an input coordinate outside InputTensor.Sizes"));
}

} // namespace detail

/// Runs the operator from `input` into `output` (each the whole buffer bound to the tensor), one
/// output element at a time from the formulas above. Checks first, exactly as dmlref::execute does
/// (throws validation_error and writes nothing when a check fails); writes every element of the
/// output tensor and no other byte.
inline void execute(const operator_desc& desc, std::span<const std::byte> input, std::span<std::byte> output,
                    feature_level level = newest_feature_level) {
    dmlref::detail::throw_if(validate(desc, input, output, level));
    std::visit(
        [&](const auto& d) {
            if constexpr (!is_single_tensor_desc_v<std::remove_cvref_t<decltype(d)>>) {
                detail::execute_several(d, std::span<const std::span<const std::byte>>(&input, 1),
                                        std::span<const std::span<std::byte>>(&output, 1));
            } else {
            const std::size_t rank = d.output_tensor.sizes.size(), width = element_size(d.input_tensor.data_type);
            const detail::coordinate in_strides = detail::element_strides(d.input_tensor),
                                     out_strides = detail::element_strides(d.output_tensor);
            std::array<std::byte, 8> fill{};
            using desc_t = std::remove_cvref_t<decltype(d)>;
            if constexpr (std::is_same_v<desc_t, padding_desc>)
                fill = padding_value_bytes(d.output_tensor.data_type, d.padding_value);
            if constexpr (std::is_same_v<desc_t, padding1_desc>) {
                // DirectML's reading of the union: 32- and 64-bit types its first bytes; 8- and
                // 16-bit ones its first 4 bytes as a number, all ones where it does not fit.
                if (width >= 4) {
                    std::memcpy(fill.data(), d.padding_value.bytes.data(), 8);
                } else {
                    const std::uint64_t number = d.padding_value.bytes[0] | (std::uint64_t{d.padding_value.bytes[1]} << 8) |
                                                 (std::uint64_t{d.padding_value.bytes[2]} << 16) |
                                                 (std::uint64_t{d.padding_value.bytes[3]} << 24);
                    const std::uint64_t all_ones = (std::uint64_t{1} << (8 * width)) - 1;
                    const std::uint64_t element = number > all_ones ? all_ones : number;
                    for (std::size_t b = 0; b < width; ++b) fill[b] = static_cast<std::byte>(element >> (8 * b));
                }
            }
            detail::coordinate o{}, s{};
            const std::uint64_t count = element_count(d.output_tensor.sizes);
            for (std::uint64_t k = 0; k < count; ++k) {
                std::ptrdiff_t to = 0;
                for (std::size_t i = 0; i < rank; ++i) to += o[i] * out_strides[i];
                std::byte* destination = output.data() + to * static_cast<std::ptrdiff_t>(width);
                if (detail::source_in(d, o, s)) {
                    std::ptrdiff_t from = 0;
                    for (std::size_t i = 0; i < rank; ++i) {
                        if (s[i] < 0 || s[i] >= std::ptrdiff_t{d.input_tensor.sizes[i]}) detail::outside_input(dmlref::to_string(d.type));
                        from += s[i] * in_strides[i];
                    }
                    std::memcpy(destination, input.data() + from * static_cast<std::ptrdiff_t>(width), width);
                } else {
                    std::memcpy(destination, fill.data(), width);
                }
                for (std::size_t i = rank; i-- > 0;) { // the next coordinate, row-major
                    if (++o[i] < std::ptrdiff_t{d.output_tensor.sizes[i]}) break;
                    o[i] = 0;
                }
            }
            }
        },
        desc);
}

/// Runs the operator over one buffer per tensor, in DirectML's binding order (inputs_of(desc),
/// outputs_of(desc)); checks first, exactly as dmlref::execute does.
inline void execute(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                    std::span<const std::span<std::byte>> outputs, feature_level level = newest_feature_level) {
    dmlref::detail::throw_if(validate(desc, inputs, outputs, level));
    std::visit(
        [&](const auto& d) {
            if constexpr (is_single_tensor_desc_v<std::remove_cvref_t<decltype(d)>>) {
                textbook::execute(desc, inputs[0], outputs[0], level);
            } else {
                detail::execute_several(d, inputs, outputs);
            }
        },
        desc);
}

/// source_of for output `output_index` of the desc's outputs (SPLIT's OutputTensors[output_index];
/// 0 for every other operator), given the input buffers in binding order where the answer depends
/// on an input's values (has_data_dependent_mapping: REVERSE_SUBSEQUENCES reads its
/// SequenceLengthsTensor); the other operators do not read them. For JOIN, `source::input` names
/// the input.
inline source source_of(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                        std::size_t output_index, const std::vector<std::uint32_t>& output_coordinate,
                        feature_level level = newest_feature_level);

/// Where the element at `output_coordinate` of the operator's output comes from: the input
/// coordinate the formula names, or the padding constant. Checks the desc as validate(desc, level)
/// does, and the coordinate against OutputTensor.Sizes; throws validation_error when either fails,
/// and for an operator whose answer depends on an input's values (REVERSE_SUBSEQUENCES: take the
/// overload with the input buffers).
inline source source_of(const operator_desc& desc, std::size_t output_index,
                        const std::vector<std::uint32_t>& output_coordinate, feature_level level = newest_feature_level) {
    return source_of(desc, {}, output_index, output_coordinate, level);
}

inline source source_of(const operator_desc& desc, const std::vector<std::uint32_t>& output_coordinate,
                        feature_level level = newest_feature_level) {
    return source_of(desc, {}, 0, output_coordinate, level);
}

inline source source_of(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                        std::size_t output_index, const std::vector<std::uint32_t>& output_coordinate,
                        feature_level level) {
    check(desc, level);
    const std::string_view op = dmlref::to_string(type_of(desc));
    const auto outputs = outputs_of(desc);
    if (output_index >= outputs.size())
        throw validation_error(dmlref::detail::message("{}: output {} does not exist; {} has {} output tensors", op,
                                                       output_index, op, outputs.size()));
    const std::string& field = outputs[output_index].field;
    const auto& sizes = outputs[output_index].desc().sizes;
    if (output_coordinate.size() != sizes.size())
        throw validation_error(dmlref::detail::message("{}: the output coordinate has {} entries; {} has {} "
                                                       "dimensions",
                                                       op, output_coordinate.size(), field, sizes.size()));
    detail::coordinate o{}, s{};
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (output_coordinate[i] >= sizes[i])
            throw validation_error(dmlref::detail::message("{}: the output coordinate's entry {} is {}; "
                                                           "{}.Sizes[{}] is {}",
                                                           op, i, output_coordinate[i], field, i, sizes[i]));
        o[i] = output_coordinate[i];
    }
    if (const auto* j = std::get_if<join_desc>(&desc)) { // the part whose window on Axis holds o
        source result{source_kind::input, std::vector<std::uint32_t>(output_coordinate), 0};
        while (result.coordinates[j->axis] >= j->input_tensors[result.input].sizes[j->axis])
            result.coordinates[j->axis] -= j->input_tensors[result.input++].sizes[j->axis];
        return result;
    }
    if (const auto* p = std::get_if<split_desc>(&desc)) { // base(k) on Axis
        source result{source_kind::input, std::vector<std::uint32_t>(output_coordinate), 0};
        for (std::size_t k = 0; k < output_index; ++k) result.coordinates[p->axis] += p->output_tensors[k].sizes[p->axis];
        return result;
    }
    if (has_data_dependent_mapping(type_of(desc))) { // the second input's values: pass its buffer
        const auto ins = inputs_of(desc);
        const buffer_tensor_desc& second = ins[1].desc();
        if (inputs.size() != ins.size() || inputs[1].size() < second.total_tensor_size_in_bytes)
            throw validation_error(dmlref::detail::message(
                "{}: where an output element comes from depends on {}'s values; pass source_of the {} input buffers "
                "({}, {} of at least {} bytes), not {}",
                op, ins[1].field, ins.size(), ins[0].field, ins[1].field, second.total_tensor_size_in_bytes,
                inputs.size()));
    }
    if (const auto* r = std::get_if<reverse_subsequences_desc>(&desc)) { // the length at o with 0 on Axis
        const buffer_tensor_desc& lengths = r->sequence_lengths_tensor;
        detail::coordinate at = o;
        at[r->axis] = 0;
        source result{source_kind::input, std::vector<std::uint32_t>(output_coordinate), 0};
        result.coordinates[r->axis] = static_cast<std::uint32_t>(reverse_subsequences_source(
            o[r->axis], detail::length_at(inputs[1].data(), lengths, at), std::ptrdiff_t{r->input_tensor.sizes[r->axis]}));
        return result;
    }
    if (const auto* h = std::get_if<one_hot_desc>(&desc)) { // OffValue or OnValue
        const detail::coordinate v = detail::one_hot_value(*h, inputs[0].data(), o);
        source result{source_kind::input, std::vector<std::uint32_t>(h->values_tensor.sizes.size()), 1};
        for (std::size_t i = 0; i < result.coordinates.size(); ++i) result.coordinates[i] = static_cast<std::uint32_t>(v[i]);
        return result;
    }
    if (const std::optional<source> written = std::visit( // a scatter: the last update that lands on o, else the input's element
            [&](const auto& d) -> std::optional<source> {
                if constexpr (is_scatter_desc_v<std::remove_cvref_t<decltype(d)>>) {
                    source result{source_kind::input, std::vector<std::uint32_t>(output_coordinate), 0};
                    detail::for_each_coordinate_of(d.updates_tensor.sizes, [&](const detail::coordinate& u) {
                        if (detail::scatter_target(d, inputs[1].data(), u) != o) return;
                        result.input = 2; // UpdatesTensor
                        for (std::size_t i = 0; i < result.coordinates.size(); ++i)
                            result.coordinates[i] = static_cast<std::uint32_t>(u[i]);
                    });
                    return result;
                } else {
                    return std::nullopt;
                }
            },
            desc);
        written)
        return *written;
    const bool from_input = std::visit(
        [&](const auto& d) {
            if constexpr (is_gather_desc_v<std::remove_cvref_t<decltype(d)>>) {
                s = detail::gather_family_source(d, inputs[1].data(), o);
                return true;
            } else if constexpr (is_single_tensor_desc_v<std::remove_cvref_t<decltype(d)>>) {
                return detail::source_in(d, o, s);
            } else {
                return false; // handled above
            }
        },
        desc);
    if (!from_input)
        return {std::holds_alternative<slice_grad_desc>(desc) ? source_kind::zero : source_kind::padding_constant, {}};
    source result{source_kind::input, std::vector<std::uint32_t>(sizes.size())};
    const auto& in_sizes = inputs_of(desc).front().desc().sizes;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (s[i] < 0 || s[i] >= std::ptrdiff_t{in_sizes[i]}) detail::outside_input(op);
        result.coordinates[i] = static_cast<std::uint32_t>(s[i]);
    }
    return result;
}

// ---- the typed view API -------------------------------------------------------------------------

namespace detail {

/// Calls `f(o)` for every coordinate of `extents`, row-major.
template <std::size_t Rank, class F> void for_each_coordinate(const index_array<Rank>& extents, F f) {
    index_array<Rank> o{};
    for (;;) {
        f(static_cast<const index_array<Rank>&>(o));
        std::size_t i = Rank;
        for (;;) {
            if (i == 0) return;
            --i;
            if (++o[i] < extents[i]) break;
            o[i] = 0;
        }
    }
}

/// Copies the bits of one element (a copy of a float through a register could quiet a signalling NaN).
template <class T> void copy_bits(T& to, const T& from) noexcept { std::memcpy(&to, &from, sizeof(T)); }

/// The checks every typed op makes after its own: the two views do not overlap.
template <class T, std::size_t Rank, std::size_t OutRank>
void check_disjoint_views(std::string_view op, const strided_view<const T, Rank>& input,
                          const strided_view<T, OutRank>& output) {
    dmlref::detail::throw_if(dmlref::detail::check_disjoint(op, input.base() + input.offset(), dmlref::detail::layout_of(input),
                                                            output.base() + output.offset(),
                                                            dmlref::detail::layout_of(output), sizeof(T)));
}

} // namespace detail

/// dmlref::depth_to_space, element by element; the same checks and exceptions.
template <class T>
void depth_to_space(strided_view<const T, 4> input, strided_view<T, 4> output, std::ptrdiff_t block_size,
                    depth_space_order order = depth_space_order::depth_column_row) {
    namespace d = dmlref::detail;
    d::throw_if(d::check_depth_space("depth_to_space", depth_space_direction::depth_to_space, d::layout_of(input),
                                     d::layout_of(output), block_size, order));
    detail::check_disjoint_views("depth_to_space", input, output);
    detail::for_each_coordinate<4>(output.extents(), [&](const index_array<4>& o) {
        detail::copy_bits(output[o], input[depth_to_space_source(o, block_size, order, output.extent(1))]);
    });
}

/// dmlref::space_to_depth, element by element; the same checks and exceptions.
template <class T>
void space_to_depth(strided_view<const T, 4> input, strided_view<T, 4> output, std::ptrdiff_t block_size,
                    depth_space_order order = depth_space_order::depth_column_row) {
    namespace d = dmlref::detail;
    d::throw_if(d::check_depth_space("space_to_depth", depth_space_direction::space_to_depth, d::layout_of(input),
                                     d::layout_of(output), block_size, order));
    detail::check_disjoint_views("space_to_depth", input, output);
    detail::for_each_coordinate<4>(output.extents(), [&](const index_array<4>& o) {
        detail::copy_bits(output[o], input[space_to_depth_source(o, block_size, order, input.extent(1))]);
    });
}

/// dmlref::slice (SLICE1), element by element; the same checks and exceptions.
template <class T, std::size_t Rank>
void slice(strided_view<const T, Rank> input, strided_view<T, Rank> output, const index_array<Rank>& window_offsets,
           const index_array<Rank>& window_sizes, const index_array<Rank>& window_strides) {
    namespace d = dmlref::detail;
    d::throw_if(d::check_slice1("slice", d::layout_of(input), d::layout_of(output), window_offsets, window_sizes,
                                window_strides));
    detail::check_disjoint_views("slice", input, output);
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        index_array<Rank> s{};
        for (std::size_t i = 0; i < Rank; ++i)
            s[i] = slice_source(o[i], window_offsets[i], window_sizes[i], window_strides[i]);
        detail::copy_bits(output[o], input[s]);
    });
}

/// dmlref::identity (ELEMENT_WISE_IDENTITY), element by element; the same checks and exceptions.
template <class T, std::size_t Rank> void identity(strided_view<const T, Rank> input, strided_view<T, Rank> output) {
    namespace d = dmlref::detail;
    d::throw_if(d::check_identity("identity", d::layout_of(input), d::layout_of(output)));
    detail::check_disjoint_views("identity", input, output);
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) { detail::copy_bits(output[o], input[o]); });
}

/// dmlref::slice_grad (SLICE_GRAD), element by element; the same checks and exceptions.
template <class T, std::size_t Rank>
void slice_grad(strided_view<const T, Rank> input_gradient, strided_view<T, Rank> output_gradient,
                const index_array<Rank>& window_offsets, const index_array<Rank>& window_sizes,
                const index_array<Rank>& window_strides) {
    namespace d = dmlref::detail;
    d::throw_if(d::check_slice_grad("slice_grad", d::layout_of(input_gradient), d::layout_of(output_gradient),
                                    window_offsets, window_sizes, window_strides));
    detail::check_disjoint_views("slice_grad", input_gradient, output_gradient);
    const T zero = std::bit_cast<T>(std::array<unsigned char, sizeof(T)>{}); // all bits clear, +0.0 for floats
    detail::for_each_coordinate<Rank>(output_gradient.extents(), [&](const index_array<Rank>& o) {
        index_array<Rank> g{};
        bool inside = true;
        for (std::size_t i = 0; i < Rank; ++i) {
            const auto a = slice_grad_source(o[i], window_offsets[i], window_sizes[i], window_strides[i],
                                             input_gradient.extent(i));
            inside = inside && a.has_value();
            g[i] = a.value_or(0);
        }
        detail::copy_bits(output_gradient[o], inside ? input_gradient[g] : zero);
    });
}

/// dmlref::tile (TILE), element by element; the same checks and exceptions.
template <class T, std::size_t Rank> void tile(strided_view<const T, Rank> input, strided_view<T, Rank> output) {
    namespace d = dmlref::detail;
    d::throw_if(d::check_tile_views("tile", d::layout_of(input), d::layout_of(output)));
    detail::check_disjoint_views("tile", input, output);
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        index_array<Rank> s{};
        for (std::size_t i = 0; i < Rank; ++i) s[i] = o[i] % input.extent(i);
        detail::copy_bits(output[o], input[s]);
    });
}

/// dmlref::upsample_2d_nearest (UPSAMPLE_2D, NEAREST_NEIGHBOR), element by element; the same
/// checks and exceptions.
template <class T, std::size_t Rank>
void upsample_2d_nearest(strided_view<const T, Rank> input, strided_view<T, Rank> output, std::ptrdiff_t scale_height,
                         std::ptrdiff_t scale_width) {
    static_assert(Rank >= 2, "upsample_2d_nearest scales the last two axes");
    namespace d = dmlref::detail;
    d::throw_if(d::check_upsample("upsample_2d", d::layout_of(input), d::layout_of(output), scale_height, scale_width));
    detail::check_disjoint_views("upsample_2d", input, output);
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        index_array<Rank> s = o;
        s[Rank - 2] = o[Rank - 2] / scale_height;
        s[Rank - 1] = o[Rank - 1] / scale_width;
        detail::copy_bits(output[o], input[s]);
    });
}

/// dmlref::pad (PADDING1), element by element; the same checks and exceptions.
template <class T, std::size_t Rank>
void pad(strided_view<const T, Rank> input, strided_view<T, Rank> output, padding_mode mode,
         std::type_identity_t<T> value, const index_array<Rank>& start_padding, const index_array<Rank>& end_padding) {
    namespace d = dmlref::detail;
    d::throw_if(d::check_padding("pad", d::layout_of(input), d::layout_of(output), mode, start_padding, end_padding));
    detail::check_disjoint_views("pad", input, output);
    detail::for_each_coordinate<Rank>(output.extents(), [&](const index_array<Rank>& o) {
        index_array<Rank> s{};
        bool inside = true;
        for (std::size_t i = 0; i < Rank; ++i) {
            const auto a = padding_axis_source(mode, o[i] - start_padding[i], input.extent(i));
            inside = inside && a.has_value();
            s[i] = a.value_or(0);
        }
        detail::copy_bits(output[o], inside ? input[s] : value);
    });
}

} // namespace dmlref::textbook
