#pragma once
/// \file parity_cases.hpp
/// Descs near the validity boundary, for asking dmlref and the real DirectML the same question desc
/// by desc (`dmlref directml-parity`): valid descs exactly at a limit ("valid: ..." classes), and
/// descs with exactly one thing wrong, each built as a valid base desc plus one mutation. Every
/// field of every operator and of both tensor descs is probed at its limit and one past it, and at
/// values whose sums and products wrap modulo 2^32 into something that looks valid in 32-bit
/// arithmetic.
///
/// Case `index` of seed `seed` depends on (seed, index) alone, with every compiler and standard
/// library (every draw goes through seeded_random.hpp); the n-th draw of a class depends on (seed,
/// operator, class, n) alone, so it keeps its desc as classes are added (known divergences record
/// their reproducers that way). The class of a boundary case is a
/// deterministic round robin: every fourth index takes the next valid class, the others the next
/// mutation class, classes listed class by class with the operators interleaved, so any 3,000
/// consecutive indices visit every (operator, class) pair. Prints nothing. No expression holds
/// two draws whose order the language leaves unspecified (a call's arguments, the operands of +):
/// GCC and clang evaluate those in different orders.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <dmlref/format.hpp>
#include <dmlref/operator.hpp>

#include "random_cases.hpp"
#include "seeded_random.hpp"

namespace dmlref::parity {

/// One desc to put to both sides.
struct parity_case {
    operator_desc desc;
    /// "valid", "valid: <limit>", or "<field>: <what>"; the same text for every draw of the class.
    std::string klass;
    /// This draw's specifics (axis, values), for reproducers.
    std::string detail;
    /// False when DirectML's C structs cannot carry the desc exactly (a tensor's Strides of another
    /// length than its Sizes; an operator's arrays of different lengths): the caller skips it.
    bool expressible = true;
    /// True when a buffer of the input or the output (its TotalTensorSizeInBytes, or
    /// DMLCalcBufferTensorSize) would exceed 64 MiB: validate only, never execute.
    bool huge = false;
};

namespace detail {

using rng_t = seeded::generator;
using seeded::chance;
using seeded::pick;

inline constexpr std::uint64_t two_32 = 0x1'0000'0000ull;
inline constexpr std::uint32_t u32_max = 0xffff'ffffu;
inline constexpr std::uint64_t huge_bytes = 64ull << 20;

/// The operators of one input and one output tensor, which the classes below take in turn
/// (JOIN's and SPLIT's classes, over tensor arrays, are in parity_cases_join_split.hpp).
inline constexpr operator_type single_tensor_ops[] = {
    operator_type::depth_to_space,  operator_type::depth_to_space1, operator_type::space_to_depth,
    operator_type::space_to_depth1, operator_type::slice,           operator_type::slice1,
    operator_type::padding,         operator_type::padding1,        operator_type::element_wise_identity,
    operator_type::slice_grad,      operator_type::tile,            operator_type::upsample_2d};

/// Every operator the parity cases draw.
inline constexpr operator_type all_ops[] = {
    operator_type::depth_to_space,  operator_type::depth_to_space1, operator_type::space_to_depth,
    operator_type::space_to_depth1, operator_type::slice,           operator_type::slice1,
    operator_type::padding,         operator_type::padding1,        operator_type::element_wise_identity,
    operator_type::slice_grad,      operator_type::tile,            operator_type::upsample_2d,
    operator_type::join,            operator_type::split,           operator_type::reverse_subsequences,
    operator_type::gather,          operator_type::gather_elements, operator_type::gather_nd,
    operator_type::gather_nd1,      operator_type::scatter_elements, operator_type::scatter_nd,
    operator_type::one_hot};

constexpr bool is_depth_space(operator_type op) noexcept {
    return op == operator_type::depth_to_space || op == operator_type::depth_to_space1 ||
           op == operator_type::space_to_depth || op == operator_type::space_to_depth1;
}
constexpr bool is_to_space(operator_type op) noexcept {
    return op == operator_type::depth_to_space || op == operator_type::depth_to_space1;
}
constexpr bool has_order(operator_type op) noexcept {
    return op == operator_type::depth_to_space1 || op == operator_type::space_to_depth1;
}
constexpr bool is_slice_op(operator_type op) noexcept {
    return op == operator_type::slice || op == operator_type::slice1;
}
constexpr bool is_padding_op(operator_type op) noexcept {
    return op == operator_type::padding || op == operator_type::padding1;
}
constexpr bool is_identity(operator_type op) noexcept { return op == operator_type::element_wise_identity; }
constexpr bool is_slice_grad(operator_type op) noexcept { return op == operator_type::slice_grad; }
constexpr bool is_tile(operator_type op) noexcept { return op == operator_type::tile; }
constexpr bool is_upsample(operator_type op) noexcept { return op == operator_type::upsample_2d; }
/// The operators whose output is the input's sizes times a parameter that may be 1 (TILE's
/// Repeats, UPSAMPLE_2D's ScaleSize): with neutral parameters they copy, as IDENTITY does.
constexpr bool is_scaling(operator_type op) noexcept { return is_tile(op) || is_upsample(op); }

/// The type `op` takes in place of `type` where its support table (at 6_4) lists no `type`:
/// UPSAMPLE_2D takes FLOAT16 for 1- and 2-byte types and FLOAT32 for the others.
inline data_type supported_type(operator_type op, data_type type) {
    if (supports_data_type(op, feature_level::fl_6_4, type)) return type;
    return element_size(type) <= 2 ? data_type::float16 : data_type::float32;
}

/// A uniform index below `count` (count > 0).
inline std::size_t pick_index(rng_t& rng, std::size_t count) {
    return pick(rng, 0, static_cast<std::uint32_t>(count - 1));
}

/// (seed, index) mixed into one generator seed, splitmix64 style; `stream` keeps the boundary and
/// the valid cases of one seed apart.
inline std::uint64_t mix(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
    std::uint64_t state = seed ^ (stream * 0xd1b5'4a32'd192'ed03ull);
    const std::uint64_t a = seeded::splitmix64_next(state);
    state = a ^ (index * 0x9e37'79b9'7f4a'7c15ull);
    return seeded::splitmix64_next(state);
}

// ---- descs from op parameters --------------------------------------------------------------------

/// An operator's parameters and input sizes; realize() derives the output sizes the way 32-bit
/// arithmetic does (so a parameter that wraps gives the output that looks right modulo 2^32) and
/// makes packed tensors with exact TotalTensorSizeInBytes.
struct recipe {
    operator_type op = operator_type::slice;
    data_type type = data_type::float32;
    std::vector<std::uint32_t> in;
    std::uint32_t block = 1;
    depth_space_order order = depth_space_order::depth_column_row;
    std::vector<std::uint32_t> offsets; ///< SLICE Offsets, SLICE1 InputWindowOffsets
    std::vector<std::uint32_t> sizes;   ///< SLICE Sizes (the output), SLICE1 InputWindowSizes
    std::vector<std::int64_t> strides;  ///< SLICE Strides (unsigned), SLICE1 InputWindowStrides
    std::vector<std::uint32_t> out;     ///< SLICE1's output sizes; SLICE_GRAD's OutputGradientTensor sizes (`in`: its InputGradientTensor)
    padding_mode mode = padding_mode::constant;
    std::vector<std::uint32_t> start, end;
    float value = 0.0f;
    scalar_union value1;
    std::vector<std::uint32_t> repeats;        ///< TILE
    std::uint32_t scale_width = 1, scale_height = 1; ///< UPSAMPLE_2D
    interpolation_mode interpolation = interpolation_mode::nearest_neighbor;

    void resize(std::size_t rank) {
        for (auto* v : {&offsets, &sizes, &out, &start, &end}) v->assign(rank, 0);
        strides.assign(rank, 1);
    }
};

inline std::vector<std::uint32_t> output_sizes(const recipe& r) {
    const auto& in = r.in;
    const std::uint32_t b = r.block, square = b * b;
    switch (r.op) {
    case operator_type::depth_to_space:
    case operator_type::depth_to_space1: return {in[0], square ? in[1] / square : in[1], in[2] * b, in[3] * b};
    case operator_type::space_to_depth:
    case operator_type::space_to_depth1: return {in[0], in[1] * square, b ? in[2] / b : in[2], b ? in[3] / b : in[3]};
    case operator_type::slice: return r.sizes;
    case operator_type::slice1:
    case operator_type::slice_grad: return r.out;
    case operator_type::tile: {
        std::vector<std::uint32_t> out(in.size());
        for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] * (i < r.repeats.size() ? r.repeats[i] : 1u);
        return out;
    }
    case operator_type::upsample_2d: {
        std::vector<std::uint32_t> out = in;
        if (out.size() >= 2) {
            out[out.size() - 2] *= r.scale_height;
            out[out.size() - 1] *= r.scale_width;
        }
        return out;
    }
    default: break;
    }
    std::vector<std::uint32_t> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] + r.start[i] + r.end[i];
    return out;
}

inline operator_desc realize(const recipe& r) {
    const buffer_tensor_desc in = make_buffer_tensor_desc(r.type, r.in);
    const buffer_tensor_desc out = make_buffer_tensor_desc(r.type, output_sizes(r));
    switch (r.op) {
    case operator_type::join:
    case operator_type::split:
    case operator_type::reverse_subsequences:
    case operator_type::gather:
    case operator_type::gather_elements:
    case operator_type::gather_nd:
    case operator_type::gather_nd1:
    case operator_type::scatter_elements:
    case operator_type::scatter_nd:
    case operator_type::one_hot: dmlref::detail::refuse_tensor_array(r.op, "the DirectML parity cases");
    case operator_type::depth_to_space: return depth_to_space_desc{in, out, r.block};
    case operator_type::depth_to_space1: return depth_to_space1_desc{in, out, r.block, r.order};
    case operator_type::space_to_depth: return space_to_depth_desc{in, out, r.block};
    case operator_type::space_to_depth1: return space_to_depth1_desc{in, out, r.block, r.order};
    case operator_type::slice: {
        std::vector<std::uint32_t> strides;
        for (std::int64_t s : r.strides) strides.push_back(static_cast<std::uint32_t>(s));
        return slice_desc{in, out, r.offsets, r.sizes, strides};
    }
    case operator_type::slice1: {
        std::vector<std::int32_t> strides;
        for (std::int64_t s : r.strides) strides.push_back(static_cast<std::int32_t>(s));
        return slice1_desc{in, out, r.offsets, r.sizes, strides};
    }
    case operator_type::padding: return padding_desc{in, out, r.mode, r.value, r.start, r.end};
    case operator_type::element_wise_identity: return element_wise_identity_desc{in, out, std::nullopt};
    case operator_type::slice_grad: {
        std::vector<std::int32_t> strides;
        for (std::int64_t s : r.strides) strides.push_back(static_cast<std::int32_t>(s));
        return slice_grad_desc{in, out, r.offsets, r.sizes, strides};
    }
    case operator_type::tile: return tile_desc{in, out, r.repeats};
    case operator_type::upsample_2d: return upsample_2d_desc{in, out, {r.scale_width, r.scale_height}, r.interpolation};
    case operator_type::padding1: break;
    }
    return padding1_desc{in, out, r.mode, r.type, r.value1, r.start, r.end};
}

/// A random slice window on axis k inside the first `n` elements of the axis (as random_cases).
inline void random_window(rng_t& rng, recipe& r, std::size_t k, std::uint32_t n) {
    r.offsets[k] = pick(rng, 0, n - 1);
    const std::uint32_t magnitude = pick(rng, 1, 3);
    if (r.op == operator_type::slice1) {
        r.sizes[k] = pick(rng, 1, n - r.offsets[k]);
        r.strides[k] = chance(rng, 50) ? -std::int64_t{magnitude} : std::int64_t{magnitude};
        const std::uint32_t most = 1 + (r.sizes[k] - 1) / magnitude;
        r.out[k] = chance(rng, 70) ? most : pick(rng, 1, most);
    } else {
        r.strides[k] = magnitude;
        r.sizes[k] = pick(rng, 1, (n - 1 - r.offsets[k]) / magnitude + 1);
    }
}

/// Sets slice axis k to the window [offset, offset + size) copied with `stride` into all the
/// elements it gives (SLICE: `count` elements with stride `stride`).
inline void set_window(recipe& r, std::size_t k, std::uint32_t offset, std::uint32_t count_or_size, std::int64_t stride) {
    r.offsets[k] = offset;
    r.sizes[k] = count_or_size;
    r.strides[k] = stride;
    if (r.op == operator_type::slice1) {
        const auto magnitude = static_cast<std::uint64_t>(stride < 0 ? -stride : stride);
        r.out[k] = static_cast<std::uint32_t>(1 + (count_or_size - 1) / magnitude);
    }
}

inline recipe depth_space_recipe(rng_t& rng, operator_type op, data_type type, std::uint32_t b, std::uint32_t n,
                                 std::uint32_t c, std::uint32_t h, std::uint32_t w) {
    recipe r;
    r.op = op;
    r.type = type;
    r.block = b;
    r.in = is_to_space(op) ? std::vector<std::uint32_t>{n, c * b * b, h, w} : std::vector<std::uint32_t>{n, c, h * b, w * b};
    if (has_order(op)) r.order = static_cast<depth_space_order>(pick(rng, 0, 1));
    return r;
}

/// Pads for one axis of `n` elements as random_cases draws them (larger than the axis at low ranks).
inline void random_pads(rng_t& rng, recipe& r, std::size_t i, std::size_t rank) {
    const std::uint32_t n = r.in[i];
    const std::uint32_t most = rank <= 2 ? 2 * n + 4 : rank <= 4 ? n + 2 : 2;
    r.start[i] = pick(rng, 0, most);
    r.end[i] = pick(rng, 0, most);
    if (r.mode == padding_mode::reflection && n == 1) r.start[i] = r.end[i] = 0; // dmlref's DECISIONS 5
}

/// SLICE1's recipe as SLICE_GRAD's: the same window, SLICE1's output sizes as the input
/// gradient's, its input sizes as the output gradient's.
inline recipe slice1_as_grad(recipe r) {
    r.op = operator_type::slice_grad;
    std::swap(r.in, r.out);
    return r;
}

/// A random valid recipe for `op` with packed tensors of a few thousand elements at most. `rank`
/// 0 draws one (SLICE(1) and PADDING(1): 1 to 8; depth/space is always 4-D).
inline recipe random_recipe(rng_t& rng, operator_type op, data_type type, std::size_t rank = 0,
                            std::optional<padding_mode> mode = std::nullopt) {
    if (is_depth_space(op)) {
        const std::uint32_t b = pick(rng, 1, 4), n = pick(rng, 1, 2), c = pick(rng, 1, 3);
        std::uint32_t h = pick(rng, 1, 3), w = pick(rng, 1, 3);
        if (chance(rng, 70) && h == w) w = h % 3 + 1;
        return depth_space_recipe(rng, op, type, b, n, c, h, w);
    }
    recipe r;
    r.op = op;
    r.type = supported_type(op, type);
    if (is_tile(op)) { // repeats 1 to 3, the output kept to a few thousand elements
        const std::size_t dims = rank ? rank : pick(rng, 1, 8);
        r.in = random_cases::random_sizes(rng, dims);
        r.resize(dims);
        r.repeats.assign(dims, 1);
        std::uint64_t count = element_count(r.in);
        for (std::size_t i = 0; i < dims; ++i) {
            r.repeats[i] = pick(rng, 1, 3);
            if (count * r.repeats[i] > 3000) r.repeats[i] = 1;
            count *= r.repeats[i];
        }
        return r;
    }
    if (is_upsample(op)) { // 4-D or 5-D, scales 1 to 4
        const std::size_t dims = rank ? rank : pick(rng, 4, 5);
        r.in = random_cases::random_sizes(rng, dims);
        r.resize(dims);
        r.scale_height = pick(rng, 1, 4);
        r.scale_width = pick(rng, 1, 4);
        return r;
    }
    if (is_slice_op(op)) {
        const std::size_t dims = rank ? rank : pick(rng, 1, 8);
        r.in = random_cases::random_sizes(rng, dims);
        r.resize(dims);
        for (std::size_t k = 0; k < dims; ++k) random_window(rng, r, k, r.in[k]);
        return r;
    }
    if (is_identity(op)) { // no parameters: the output has the input's sizes (no pads)
        const std::size_t dims = rank ? rank : pick(rng, 1, 8);
        r.in = random_cases::random_sizes(rng, dims);
        r.resize(dims);
        return r;
    }
    if (is_slice_grad(op)) { // SLICE1's window, its tensors swapped: the gradient flows back into the window
        recipe forward = random_recipe(rng, operator_type::slice1, type, rank);
        return slice1_as_grad(std::move(forward));
    }
    for (;;) {
        const std::size_t dims = rank ? rank : pick(rng, 1, 8);
        r.in = random_cases::random_sizes(rng, dims);
        r.resize(dims);
        r.mode = mode ? *mode : static_cast<padding_mode>(pick(rng, 0, 4));
        for (std::size_t i = 0; i < dims; ++i) random_pads(rng, r, i, dims);
        if (element_count(output_sizes(r)) <= 3000) break;
    }
    r.value = random_cases::random_padding_float(rng);
    for (auto& byte : r.value1.bytes) byte = static_cast<std::uint8_t>(rng());
    return r;
}

/// random_recipe with a rank drawn from [low, high] and then a random type, the two draws in
/// sequence (as arguments of one call, their order would be the compiler's choice; this is the
/// order GCC took, so the descs it drew stay as they were).
inline recipe ranked_recipe(rng_t& rng, operator_type op, std::uint32_t low, std::uint32_t high) {
    const std::size_t rank = pick(rng, low, high);
    const data_type type = random_cases::random_type(rng);
    return random_recipe(rng, op, type, rank);
}

/// A recipe for `op` over input sizes `in` with neutral parameters: BlockSize `block`, windows
/// that copy the whole axis (`full`) or a few elements from its start, no padding.
inline recipe neutral_recipe(rng_t& rng, operator_type op, data_type type, std::vector<std::uint32_t> in,
                             std::uint32_t block, bool full) {
    recipe r;
    r.op = op;
    r.type = supported_type(op, type);
    r.in = std::move(in);
    r.block = block;
    if (has_order(op)) r.order = static_cast<depth_space_order>(pick(rng, 0, 1));
    if (is_depth_space(op)) return r;
    r.resize(r.in.size());
    r.repeats.assign(r.in.size(), 1); // TILE: a copy; UPSAMPLE_2D: ScaleSize {1, 1}
    if (is_identity(op) || is_scaling(op)) return r;
    if (is_slice_grad(op)) { // the whole output gradient is the window, stride 1 or -1
        r.out = r.in;
        for (std::size_t k = 0; k < r.in.size(); ++k) {
            r.sizes[k] = r.in[k];
            r.strides[k] = chance(rng, 50) ? -1 : 1;
        }
        return r;
    }
    if (is_slice_op(op)) {
        for (std::size_t k = 0; k < r.in.size(); ++k) {
            if (full) set_window(r, k, 0, r.in[k], op == operator_type::slice1 && chance(rng, 50) ? -1 : 1);
            else random_window(rng, r, k, std::min<std::uint32_t>(r.in[k], 12));
        }
    } else {
        r.mode = static_cast<padding_mode>(pick(rng, 0, 4));
        r.value = random_cases::random_padding_float(rng);
        for (auto& byte : r.value1.bytes) byte = static_cast<std::uint8_t>(rng());
    }
    return r;
}

// ---- layouts ------------------------------------------------------------------------------------

inline buffer_tensor_desc& input_ref(operator_desc& d) {
    return std::visit(dmlref::single_tensor_only{"the DirectML parity cases", [](auto& x) -> buffer_tensor_desc& { return x.input_tensor; }}, d);
}
inline buffer_tensor_desc& output_ref(operator_desc& d) {
    return std::visit(dmlref::single_tensor_only{"the DirectML parity cases", [](auto& x) -> buffer_tensor_desc& { return x.output_tensor; }}, d);
}
inline buffer_tensor_desc& tensor_ref(operator_desc& d, bool output) { return output ? output_ref(d) : input_ref(d); }
inline const buffer_tensor_desc& tensor_ref(const operator_desc& d, bool output) {
    return output ? random_cases::output_of(d) : random_cases::input_of(d);
}

/// Explicit strides, no broadcast: packed (kind 1), rows wider than packed (2), permuted axes with
/// wider rows (3); `gaps` makes every stride above the first larger than packed. Exact total.
inline buffer_tensor_desc with_strides(rng_t& rng, buffer_tensor_desc t, std::uint32_t kind, bool gaps = false) {
    t.strides = random_cases::layout_strides(rng, t.sizes, kind, gaps);
    t.total_tensor_size_in_bytes = calc_buffer_tensor_size(t);
    return t;
}

enum class layout { random, packed, strided };

inline buffer_tensor_desc apply_layout(rng_t& rng, const buffer_tensor_desc& t, layout kind, bool is_input) {
    switch (kind) {
    case layout::random: return random_cases::random_tensor(rng, t.data_type, t.sizes, is_input);
    case layout::strided: return with_strides(rng, t, pick(rng, 1, 3));
    case layout::packed: break;
    }
    return t;
}

/// The recipe's desc with the given layouts of its input and its output.
inline operator_desc base_of(rng_t& rng, const recipe& r, layout in, layout out) {
    operator_desc d = realize(r);
    input_ref(d) = apply_layout(rng, input_ref(d), in, true);
    output_ref(d) = apply_layout(rng, output_ref(d), out, false);
    return d;
}

inline data_type random_type(rng_t& rng) { return random_cases::random_type(rng); }

/// A random type of at least `bytes` bytes.
inline data_type random_type_of_at_least(rng_t& rng, std::size_t bytes) {
    std::vector<data_type> options;
    for (data_type t : movable_data_types)
        if (element_size(t) >= bytes) options.push_back(t);
    return options[pick_index(rng, options.size())];
}

/// A random type whose element size is one of `widths` (bytes).
inline data_type random_type_of_width(rng_t& rng, const std::vector<std::size_t>& widths) {
    std::vector<data_type> options;
    for (data_type t : movable_data_types)
        if (std::find(widths.begin(), widths.end(), element_size(t)) != widths.end()) options.push_back(t);
    return options[pick_index(rng, options.size())];
}

/// The most elements a packed tensor of `bytes`-byte elements holds that DirectML accepts: its
/// DMLCalcBufferTensorSize (n * bytes rounded up to 4) within the cap on TotalTensorSizeInBytes,
/// (2^32 - 1) * bytes (max_total_tensor_size_in_bytes), so n * bytes within that cap rounded down
/// to 4; and n within the element cap.
constexpr std::uint64_t largest_packed_count(std::uint64_t bytes) noexcept {
    if (bytes == 0) return 0;
    return std::min(max_element_count, (max_total_tensor_size_in_bytes(bytes) & ~std::uint64_t{3}) / bytes);
}
static_assert(largest_packed_count(1) == two_32 - 4 && largest_packed_count(2) == two_32 - 2 &&
              largest_packed_count(4) == two_32 - 1 && largest_packed_count(8) == two_32 - 1);

/// The element sizes that share the largest packed tensor DirectML accepts, with its count as
/// two axes a * b (b >= 3, so that a pad of 1 on each side leaves an axis of b - 2), for the
/// "valid: ... the largest DirectML accepts" classes.
struct largest_group {
    std::string count;    ///< "2^32 - 1"
    std::string last;     ///< the last element's index, "2^32 - 2"
    std::string each;     ///< "four or eight bytes each"
    std::string of;       ///< "four or eight bytes"
    std::vector<std::size_t> widths;
    std::uint32_t a, b;
};

inline const std::vector<largest_group>& largest_groups() {
    static const std::vector<largest_group> groups{
        {"2^32 - 1", "2^32 - 2", "four or eight bytes each", "four or eight bytes", {4, 8}, 65537, 65535},
        {"2^32 - 2", "2^32 - 3", "two bytes each", "two bytes", {2}, 2, 0x7fff'ffffu},
        {"2^32 - 4", "2^32 - 5", "one byte each", "one byte", {1}, 65538, 65534}};
    return groups;
}

/// Another movable type whose width is (`same`) or is not the width of `t`; `narrower` keeps to
/// narrower ones.
inline data_type other_type(rng_t& rng, data_type t, bool same, bool narrower = false) {
    std::vector<data_type> options;
    for (data_type u : movable_data_types) {
        if (u == t) continue;
        const bool same_width = element_size(u) == element_size(t);
        if (same ? same_width : (!same_width && (!narrower || element_size(u) < element_size(t))))
            options.push_back(u);
    }
    return options[pick_index(rng, options.size())];
}

/// A random valid desc of `op` with random layouts.
inline operator_desc random_base(rng_t& rng, operator_type op, data_type type, std::size_t rank = 0) {
    return base_of(rng, random_recipe(rng, op, type, rank), layout::random, layout::random);
}

/// A random axis of `sizes` that satisfies `pred`, if any.
template <class Pred> std::optional<std::size_t> random_axis(rng_t& rng, std::size_t rank, Pred pred) {
    std::vector<std::size_t> axes;
    for (std::size_t i = 0; i < rank; ++i)
        if (pred(i)) axes.push_back(i);
    if (axes.empty()) return std::nullopt;
    return axes[pick_index(rng, axes.size())];
}

/// Draws with `make` until it gives a value (a base with the property a class needs).
template <class Make> auto redraw(rng_t& rng, Make make) {
    for (int attempt = 0; attempt < 100000; ++attempt)
        if (auto value = make(rng)) return *value;
    throw std::logic_error("parity_cases: no base desc with the property the class needs");
}

/// DMLCalcBufferTensorSize counted in 32 bits, as a 32-bit implementation would: the element
/// count (packed) or the index of the last element (strided) modulo 2^32.
inline std::uint64_t wrapped_size(const buffer_tensor_desc& t) {
    std::uint32_t last = 0;
    if (t.strides) {
        for (std::size_t i = 0; i < t.sizes.size() && i < t.strides->size(); ++i) last += (t.sizes[i] - 1) * (*t.strides)[i];
    } else {
        std::uint32_t count = 1;
        for (std::uint32_t s : t.sizes) count *= s;
        last = count - 1;
    }
    const std::uint64_t bytes = (std::uint64_t{last} + 1) * element_size(t.data_type);
    return (bytes + 3) & ~std::uint64_t{3};
}

// ---- classes --------------------------------------------------------------------------------------

/// A case with its valid base: `desc` is `base` with `fields` changed (one field; a `coupled`
/// class changes the two or three that one DirectML quantity spans, such as a pad that wraps
/// 2^32 and the output size it gives modulo 2^32). Valid classes have base == desc, no fields.
struct built {
    operator_desc base;
    operator_desc desc;
    std::vector<std::string> fields;
    std::string detail;
    bool coupled = false;
};

inline built change(const operator_desc& base, std::string field) { return built{base, base, {std::move(field)}, {}, false}; }
inline built valid(const operator_desc& desc, std::string detail = {}) { return built{desc, desc, {}, std::move(detail), false}; }

using build_fn = std::function<built(rng_t&, operator_type)>;

struct class_entry {
    operator_type op;
    std::string klass;
    build_fn build;
};

struct class_table {
    std::vector<class_entry> valid, invalid;
};

/// Adds a class for each operator of one input and one output that `applies` accepts, operators
/// interleaved.
template <class Applies>
void add(std::vector<class_entry>& list, const std::string& klass, Applies applies, const build_fn& build) {
    for (operator_type op : single_tensor_ops)
        if (applies(op)) list.push_back({op, klass, build});
}

inline bool any_op(operator_type) { return true; }

/// The op's per-axis arrays with the value a new entry gets: f(name, vector, filler).
template <class Desc, class F> void for_each_array(Desc& d, F f) {
    std::visit(
        dmlref::single_tensor_only{"the DirectML parity cases", [&](auto& x) {
            using D = std::remove_cvref_t<decltype(x)>;
            if constexpr (std::is_same_v<D, slice_desc>) {
                f("Offsets", x.offsets, std::uint32_t{0});
                f("Sizes", x.sizes, std::uint32_t{1});
                f("Strides", x.strides, std::uint32_t{1});
            } else if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_grad_desc>) {
                f("InputWindowOffsets", x.input_window_offsets, std::uint32_t{0});
                f("InputWindowSizes", x.input_window_sizes, std::uint32_t{1});
                f("InputWindowStrides", x.input_window_strides, std::int32_t{1});
            } else if constexpr (std::is_same_v<D, padding_desc> || std::is_same_v<D, padding1_desc>) {
                f("StartPadding", x.start_padding, std::uint32_t{0});
                f("EndPadding", x.end_padding, std::uint32_t{0});
            }
        }},
        d);
}

inline std::vector<std::string> array_names(operator_type op) {
    switch (op) {
    case operator_type::slice: return {"Offsets", "Sizes", "Strides"};
    case operator_type::slice1:
    case operator_type::slice_grad: return {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"};
    case operator_type::padding:
    case operator_type::padding1: return {"StartPadding", "EndPadding"};
    default: return {};
    }
}

inline std::uint32_t* block_size_ref(operator_desc& d) {
    return std::visit(dmlref::single_tensor_only{"the DirectML parity cases", [](auto& x) -> std::uint32_t* {
        if constexpr (requires { x.block_size; }) return &x.block_size;
        else return nullptr;
    }}, d);
}
inline depth_space_order* order_ref(operator_desc& d) {
    return std::visit(dmlref::single_tensor_only{"the DirectML parity cases", [](auto& x) -> depth_space_order* {
        if constexpr (requires { x.order; }) return &x.order;
        else return nullptr;
    }}, d);
}
inline padding_mode* mode_ref(operator_desc& d) {
    return std::visit(dmlref::single_tensor_only{"the DirectML parity cases", [](auto& x) -> padding_mode* {
        if constexpr (requires { x.padding_mode; }) return &x.padding_mode;
        else return nullptr;
    }}, d);
}
inline std::vector<std::uint32_t>* pads_ref(operator_desc& d, bool end) {
    return std::visit(dmlref::single_tensor_only{"the DirectML parity cases", [end](auto& x) -> std::vector<std::uint32_t>* {
        if constexpr (requires { x.start_padding; }) return end ? &x.end_padding : &x.start_padding;
        else return nullptr;
    }}, d);
}

/// Raises the base's TotalTensorSizeInBytes so that the mutated tensor fits it too, as far as
/// DirectML's cap of (2^32 - 1) elements' worth of bytes allows (max_total_tensor_size_in_bytes):
/// the base stays valid, and a mutated tensor of more bytes keeps the largest
/// TotalTensorSizeInBytes DirectML accepts for its type.
inline void make_room(operator_desc& base, bool output, std::uint64_t bytes) {
    auto& t = tensor_ref(base, output);
    const std::uint64_t most = max_total_tensor_size_in_bytes(element_size(t.data_type));
    t.total_tensor_size_in_bytes = std::max(t.total_tensor_size_in_bytes, std::min(bytes, most));
}

inline std::string sizes_text(const std::vector<std::uint32_t>& v) { return fmt::format("{{{}}}", fmt::join(v, ", ")); }

/// Two distinct axes of `rank` (rank >= 2), in random order.
inline std::pair<std::size_t, std::size_t> two_axes(rng_t& rng, std::size_t rank) {
    const std::size_t i = pick_index(rng, rank);
    std::size_t j = pick_index(rng, rank - 1);
    if (j >= i) ++j;
    return {i, j};
}

/// Input sizes of `rank` axes, all 1 except a at axis i and b at axis j.
inline std::vector<std::uint32_t> two_axis_sizes(std::size_t rank, std::size_t i, std::uint32_t a, std::size_t j,
                                                 std::uint32_t b) {
    std::vector<std::uint32_t> sizes(rank, 1);
    sizes[i] = a;
    sizes[j] = b;
    return sizes;
}

/// A rank of at least `low` for SLICE(1) and PADDING(1) (depth/space: 4; UPSAMPLE_2D: 4 or 5).
inline std::size_t rank_from(rng_t& rng, operator_type op, std::uint32_t low, std::uint32_t high = 8) {
    if (is_upsample(op)) return pick(rng, 4, 5);
    return is_depth_space(op) ? 4 : pick(rng, low, high);
}

// The classes of both tensor descs, for every operator.
inline void add_tensor_classes(class_table& t) {
    for (const bool out : {false, true}) {
        const std::string x = out ? "OutputTensor" : "InputTensor";
        const auto field = [x](std::string_view name) { return x + "." + std::string(name); };

        // DataType
        struct named_value {
            std::string name;
            std::uint64_t value;
        };
        for (const named_value& v : std::vector<named_value>{
                 {"UNKNOWN", 0}, {"UINT4", 12}, {"INT4", 13}, {"14", 14}, {"0xFFFFFFFF", u32_max}})
            add(t.invalid, field("DataType: ") + v.name, any_op, [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), field("DataType"));
                auto& tensor = tensor_ref(b.desc, out);
                b.detail = fmt::format("{} -> {}", to_string(tensor.data_type), v.value);
                tensor.data_type = static_cast<data_type>(v.value);
                return b;
            });
        add(t.invalid, field("DataType: another type of the same width (this tensor only)"), any_op,
            [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), field("DataType"));
                auto& tensor = tensor_ref(b.desc, out);
                const data_type other = other_type(rng, tensor.data_type, true);
                b.detail = fmt::format("{} -> {}", to_string(tensor.data_type), to_string(other));
                tensor.data_type = other;
                return b;
            });
        add(t.invalid, field("DataType: a narrower type (this tensor only)"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(random_base(rng, op, random_type_of_at_least(rng, 2)), field("DataType"));
            auto& tensor = tensor_ref(b.desc, out);
            const data_type other = other_type(rng, tensor.data_type, false, true);
            b.detail = fmt::format("{} -> {}", to_string(tensor.data_type), to_string(other));
            tensor.data_type = other;
            return b;
        });

        // Flags
        for (const named_value& v : std::vector<named_value>{{"OWNED_BY_DML (0x1)", 1}, {"0x2", 2}, {"0x80000000", 0x8000'0000u}})
            add(t.invalid, field("Flags: ") + v.name, any_op, [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), field("Flags"));
                tensor_ref(b.desc, out).flags = static_cast<tensor_flags>(v.value);
                b.detail = fmt::format("0 -> {:#x}", v.value);
                return b;
            });

        // DimensionCount (the tensor packed, so that Sizes alone carries it)
        const auto packed_base = [out](rng_t& rng, operator_type op, std::size_t rank) {
            return base_of(rng, random_recipe(rng, op, random_type(rng), rank), out ? layout::random : layout::packed,
                           out ? layout::packed : layout::random);
        };
        add(t.invalid, field("DimensionCount: 0"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(packed_base(rng, op, 0), field("DimensionCount"));
            auto& tensor = tensor_ref(b.desc, out);
            b.detail = fmt::format("{} -> 0 (Sizes {} -> {{}})", tensor.sizes.size(), sizes_text(tensor.sizes));
            tensor.sizes.clear();
            return b;
        });
        add(t.invalid, field("DimensionCount: one more (a trailing size 1)"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(packed_base(rng, op, rank_from(rng, op, 1, 7)), field("DimensionCount"));
            auto& tensor = tensor_ref(b.desc, out);
            b.detail = fmt::format("{} -> {}", tensor.sizes.size(), tensor.sizes.size() + 1);
            tensor.sizes.push_back(1);
            return b;
        });
        add(t.invalid, field("DimensionCount: one less (the last axis dropped)"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(packed_base(rng, op, rank_from(rng, op, 2)), field("DimensionCount"));
            auto& tensor = tensor_ref(b.desc, out);
            b.detail = fmt::format("{} -> {} (dropped size {})", tensor.sizes.size(), tensor.sizes.size() - 1,
                                   tensor.sizes.back());
            tensor.sizes.pop_back();
            return b;
        });
        add(t.invalid, field("DimensionCount: 9 (trailing sizes 1)"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(packed_base(rng, op, 0), field("DimensionCount"));
            auto& tensor = tensor_ref(b.desc, out);
            b.detail = fmt::format("{} -> 9", tensor.sizes.size());
            tensor.sizes.resize(9, 1);
            return b;
        });

        // Sizes
        add(t.invalid, field("Sizes: 0 on one axis"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(random_base(rng, op, random_type(rng)), field("Sizes"));
            auto& tensor = tensor_ref(b.desc, out);
            const std::size_t k = pick_index(rng, tensor.sizes.size());
            b.detail = fmt::format("axis {}: {} -> 0", k, tensor.sizes[k]);
            tensor.sizes[k] = 0;
            return b;
        });
        // A larger input of SLICE(1) stays valid, a smaller one is the window classes' business.
        const auto sizes_apply = [out](operator_type op) { return out || !is_slice_op(op); };
        for (const int delta : {1, -1})
            add(t.invalid, field(delta > 0 ? "Sizes: one more on one axis" : "Sizes: one less on one axis"), sizes_apply,
                [=](rng_t& rng, operator_type op) {
                    auto [base, k] = redraw(rng, [&](rng_t& g) -> std::optional<std::pair<operator_desc, std::size_t>> {
                        operator_desc d = packed_base(g, op, 0);
                        const auto& sizes = tensor_ref(d, out).sizes;
                        const auto axis = random_axis(g, sizes.size(), [&](std::size_t i) { return delta > 0 || sizes[i] >= 2; });
                        if (!axis) return std::nullopt;
                        return std::pair{d, *axis};
                    });
                    auto& tensor = tensor_ref(base, out);
                    auto sizes = tensor.sizes;
                    sizes[k] = delta > 0 ? sizes[k] + 1 : sizes[k] - 1;
                    make_room(base, out, calc_buffer_tensor_size(tensor.data_type, sizes));
                    built b = change(base, field("Sizes"));
                    b.detail = fmt::format("axis {}: {} -> {}", k, tensor.sizes[k], sizes[k]);
                    tensor_ref(b.desc, out).sizes = sizes;
                    return b;
                });

        // Strides (the tensor with explicit strides)
        const auto strided_base = [out](rng_t& rng, operator_type op, data_type type, std::size_t rank) {
            return base_of(rng, random_recipe(rng, op, type, rank), out ? layout::random : layout::strided,
                           out ? layout::strided : layout::random);
        };
        add(t.invalid, field("Strides: one entry more than Sizes"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(strided_base(rng, op, random_type(rng), 0), field("Strides"));
            auto& strides = *tensor_ref(b.desc, out).strides;
            b.detail = fmt::format("{} -> {} entries", strides.size(), strides.size() + 1);
            strides.push_back(1);
            return b;
        });
        add(t.invalid, field("Strides: one entry fewer than Sizes"), any_op, [=](rng_t& rng, operator_type op) {
            built b = change(strided_base(rng, op, random_type(rng), 0), field("Strides"));
            auto& strides = *tensor_ref(b.desc, out).strides;
            b.detail = fmt::format("{} -> {} entries", strides.size(), strides.size() - 1);
            strides.pop_back();
            return b;
        });
        // A base whose tensor has explicit strides and an axis with `min_size` elements or more.
        const auto strided_axis_base = [=](rng_t& rng, operator_type op, data_type type, std::uint32_t min_size) {
            return redraw(rng, [&](rng_t& g) -> std::optional<std::pair<operator_desc, std::size_t>> {
                operator_desc d = strided_base(g, op, type, 0);
                const auto& sizes = tensor_ref(d, out).sizes;
                const auto axis = random_axis(g, sizes.size(), [&](std::size_t i) { return sizes[i] >= min_size; });
                if (!axis) return std::nullopt;
                return std::pair{d, *axis};
            });
        };
        if (out)
            add(t.invalid, field("Strides: 0 on an axis of 2 or more elements (broadcast output)"), any_op,
                [=](rng_t& rng, operator_type op) {
                    auto [base, k] = strided_axis_base(rng, op, random_type(rng), 2);
                    built b = change(base, field("Strides"));
                    auto& strides = *tensor_ref(b.desc, out).strides;
                    b.detail = fmt::format("axis {} (size {}): stride {} -> 0", k, tensor_ref(b.desc, out).sizes[k], strides[k]);
                    strides[k] = 0;
                    return b;
                });
        add(t.invalid, field("Strides: two axes with the same stride (overlapping elements)"), any_op,
            [=](rng_t& rng, operator_type op) {
                auto [base, a, c] = redraw(rng, [&](rng_t& g) -> std::optional<std::tuple<operator_desc, std::size_t, std::size_t>> {
                    const data_type type = random_type(g);
                    operator_desc d = strided_base(g, op, type, rank_from(g, op, 2));
                    const auto& sizes = tensor_ref(d, out).sizes;
                    std::vector<std::size_t> axes;
                    for (std::size_t i = 0; i < sizes.size(); ++i)
                        if (sizes[i] >= 2) axes.push_back(i);
                    if (axes.size() < 2) return std::nullopt;
                    const auto [i, j] = two_axes(g, axes.size());
                    return std::tuple{d, axes[i], axes[j]};
                });
                auto& tensor = tensor_ref(base, out);
                auto strides = *tensor.strides;
                strides[a] = strides[c];
                make_room(base, out, calc_buffer_tensor_size(tensor.data_type, tensor.sizes, strides));
                built b = change(base, field("Strides"));
                b.detail = fmt::format("axis {}: stride {} -> {} (the stride of axis {})", a, (*tensor.strides)[a], strides[a], c);
                tensor_ref(b.desc, out).strides = strides;
                return b;
            });
        add(t.invalid, field("Strides: UINT32_MAX on an axis of size 1"), any_op, [=](rng_t& rng, operator_type op) {
            auto [base, k] = redraw(rng, [&](rng_t& g) -> std::optional<std::pair<operator_desc, std::size_t>> {
                operator_desc d = strided_base(g, op, random_type(g), 0);
                const auto& sizes = tensor_ref(d, out).sizes;
                const auto axis = random_axis(g, sizes.size(), [&](std::size_t i) { return sizes[i] == 1; });
                if (!axis) return std::nullopt;
                return std::pair{d, *axis};
            });
            built b = change(base, field("Strides"));
            auto& strides = *tensor_ref(b.desc, out).strides;
            b.detail = fmt::format("axis {}: stride {} -> 4294967295", k, strides[k]);
            strides[k] = u32_max;
            return b;
        });
        // One stride raised so that the index of the last element reaches `target` or more
        // (Sizes[k] - 1 = m elements of stride s, plus the other axes' part).
        const auto raise_stride = [](const buffer_tensor_desc& tensor, std::size_t k, std::uint64_t target) {
            const auto& strides = *tensor.strides;
            std::uint64_t rest = 0;
            for (std::size_t i = 0; i < tensor.sizes.size(); ++i)
                if (i != k) rest += std::uint64_t{tensor.sizes[i] - 1} * strides[i];
            const std::uint64_t m = tensor.sizes[k] - 1u;
            const std::uint64_t need = target > rest ? target - rest : 1;
            return static_cast<std::uint32_t>(std::min<std::uint64_t>((need + m - 1) / m, u32_max));
        };
        const auto last_index = [](const buffer_tensor_desc& tensor) {
            std::uint64_t last = 0;
            for (std::size_t i = 0; i < tensor.sizes.size(); ++i) last += std::uint64_t{tensor.sizes[i] - 1} * (*tensor.strides)[i];
            return last;
        };
        // wraps: TotalTensorSizeInBytes as 32-bit arithmetic gives it (the base made that large);
        // at 2^32: the 64-bit size, at least (2^32 + 1) elements' worth of bytes, past DirectML's
        // cap of (2^32 - 1) elements' worth, so that no valid base holds it: Strides and
        // TotalTensorSizeInBytes change together (coupled).
        for (const bool wraps : {true, false})
            add(t.invalid,
                field(wraps ? "Strides: last element's index wraps 2^32 (TotalTensorSizeInBytes as in 32 bits)"
                            : "Strides: last element's index 2^32 or more (TotalTensorSizeInBytes = DMLCalcBufferTensorSize)"),
                any_op, [=](rng_t& rng, operator_type op) {
                    auto [base, k] = strided_axis_base(rng, op, random_type(rng), 3);
                    auto& tensor = tensor_ref(base, out);
                    auto mutated = tensor;
                    (*mutated.strides)[k] = raise_stride(tensor, k, two_32);
                    if (wraps) make_room(base, out, wrapped_size(mutated));
                    else mutated.total_tensor_size_in_bytes = calc_buffer_tensor_size(mutated);
                    built b = change(base, field("Strides"));
                    if (!wraps) {
                        b.fields.push_back(field("TotalTensorSizeInBytes"));
                        b.coupled = true;
                    }
                    b.detail = fmt::format("axis {} (size {}): stride {} -> {}; last index {} (mod 2^32: {}); "
                                           "TotalTensorSizeInBytes {}{}",
                                           k, tensor.sizes[k], (*tensor.strides)[k], (*mutated.strides)[k],
                                           last_index(mutated), last_index(mutated) % two_32,
                                           tensor.total_tensor_size_in_bytes,
                                           wraps ? "" : fmt::format(" -> {}", mutated.total_tensor_size_in_bytes));
                    tensor_ref(b.desc, out).strides = mutated.strides;
                    if (!wraps) tensor_ref(b.desc, out).total_tensor_size_in_bytes = mutated.total_tensor_size_in_bytes;
                    return b;
                });
        // TotalTensorSizeInBytes becomes DMLCalcBufferTensorSize (make_room): more than 2^32 bytes,
        // fewer than 2^32 elements' worth, within DirectML's cap; a size counted in bytes modulo
        // 2^32 would be small.
        add(t.invalid, field("Strides: DMLCalcBufferTensorSize above 2^32 bytes, last index below 2^32"), any_op,
            [=](rng_t& rng, operator_type op) {
                auto [base, k] = strided_axis_base(rng, op, random_type_of_at_least(rng, 2), 2);
                auto& tensor = tensor_ref(base, out);
                auto mutated = tensor;
                (*mutated.strides)[k] = raise_stride(tensor, k, two_32 / element_size(tensor.data_type));
                make_room(base, out, calc_buffer_tensor_size(mutated));
                built b = change(base, field("Strides"));
                b.detail = fmt::format("axis {} (size {}): stride {} -> {}; last index {}; {} bytes", k, tensor.sizes[k],
                                       (*tensor.strides)[k], (*mutated.strides)[k], last_index(mutated),
                                       calc_buffer_tensor_size(mutated));
                tensor_ref(b.desc, out).strides = mutated.strides;
                return b;
            });
        // A base with one big axis (every other size 1, no padding, BlockSize 1), explicit packed
        // strides, whose stride then becomes UINT32_MAX. TotalTensorSizeInBytes is (2^32 - 1)
        // elements' worth (make_room), the most DirectML accepts, so that a size that wraps below it
        // would look like a fit.
        // past 2^63: (2^31 / s + 1) * (2^32 - 1) * s bytes for elements of s bytes, a base of about 2^31 bytes.
        struct big_stride {
            std::string what;
            std::uint32_t axis_size; ///< 0: 2^31 / element size + 2
        };
        for (const big_stride& v : std::vector<big_stride>{
                 {"Strides: UINT32_MAX on an axis of 2^25 + 2 elements (span past 2^57 elements)", (1u << 25) + 2},
                 {"Strides: UINT32_MAX on an axis of 2^31 / element size + 2 elements (DMLCalcBufferTensorSize past 2^63 bytes)",
                  0}})
            add(t.invalid, field(v.what), any_op, [=](rng_t& rng, operator_type op) {
                const std::size_t rank = rank_from(rng, op, 1, 4);
                const std::size_t k = pick_index(rng, rank);
                const data_type type = random_type(rng);
                std::vector<std::uint32_t> sizes(rank, 1);
                sizes[k] = v.axis_size ? v.axis_size : static_cast<std::uint32_t>(0x8000'0000u / element_size(type) + 2);
                operator_desc base = realize(neutral_recipe(rng, op, type, sizes, 1, true));
                auto& tensor = tensor_ref(base, out);
                tensor.strides = packed_strides(tensor.sizes);
                auto mutated = tensor;
                (*mutated.strides)[k] = u32_max;
                make_room(base, out, calc_buffer_tensor_size(mutated));
                built b = change(base, field("Strides"));
                b.detail = fmt::format("axis {} of {}: stride {} -> 4294967295; TotalTensorSizeInBytes {}", k,
                                       sizes_text(tensor.sizes), (*tensor.strides)[k], tensor.total_tensor_size_in_bytes);
                tensor_ref(b.desc, out).strides = mutated.strides;
                return b;
            });

        // TotalTensorSizeInBytes
        // DirectML's cap is (2^32 - 1) elements' worth of bytes: the cap itself is accepted, one
        // byte more is not; 2^32 is past it for one byte, inside it for wider types.
        struct total_value {
            std::string name;
            std::int64_t from_calc; // used when absolute and past_cap are absent
            std::optional<std::uint64_t> absolute;
            std::optional<std::uint64_t> past_cap; // (2^32 - 1) * element size + this
        };
        for (const total_value& v : std::vector<total_value>{{"DMLCalcBufferTensorSize - 1", -1, {}, {}},
                                                             {"DMLCalcBufferTensorSize - 4", -4, {}, {}},
                                                             {"DMLCalcBufferTensorSize + 1 (not a multiple of 4)", 1, {}, {}},
                                                             {"0", 0, 0, {}},
                                                             {"(2^32 - 1) * element size", 0, {}, 0},
                                                             {"(2^32 - 1) * element size + 1", 0, {}, 1},
                                                             {"2^32", 0, two_32, {}},
                                                             {"UINT64_MAX", 0, std::numeric_limits<std::uint64_t>::max(), {}}})
            add(t.invalid, field("TotalTensorSizeInBytes: ") + v.name, any_op, [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), field("TotalTensorSizeInBytes"));
                auto& tensor = tensor_ref(b.desc, out);
                const std::uint64_t calc = calc_buffer_tensor_size(tensor);
                const std::uint64_t value =
                    v.absolute ? *v.absolute
                    : v.past_cap ? max_total_tensor_size_in_bytes(element_size(tensor.data_type)) + *v.past_cap
                                 : calc + static_cast<std::uint64_t>(v.from_calc);
                b.detail = fmt::format("{} -> {} (DMLCalcBufferTensorSize {}, {})", tensor.total_tensor_size_in_bytes, value, calc,
                                       to_string(tensor.data_type));
                tensor.total_tensor_size_in_bytes = value;
                return b;
            });

        // GuaranteedBaseOffsetAlignment: DirectML 1.15.4 takes 0 or a power of two of at least 16
        // (its documentation: at least the element size, so "element size" and "8" probe the gap).
        for (const std::string name : {"1", "3", "element size / 2", "element size", "8"})
            add(t.invalid, field("GuaranteedBaseOffsetAlignment: ") + name, any_op, [=](rng_t& rng, operator_type op) {
                const data_type type = name == "element size / 2" ? random_type_of_at_least(rng, 2) : random_type(rng);
                built b = change(random_base(rng, op, type), field("GuaranteedBaseOffsetAlignment"));
                const auto size = static_cast<std::uint32_t>(element_size(type));
                const std::uint32_t value = name == "1"                  ? 1
                                            : name == "3"                ? 3
                                            : name == "element size / 2" ? size / 2
                                            : name == "element size"     ? size
                                                                         : 8;
                tensor_ref(b.desc, out).guaranteed_base_offset_alignment = value;
                b.detail = fmt::format("0 -> {} ({})", value, to_string(type));
                return b;
            });
    }

    // The valid ones.
    add(t.valid, "valid: TotalTensorSizeInBytes = DMLCalcBufferTensorSize on both tensors", any_op,
        [](rng_t& rng, operator_type op) {
            operator_desc d = random_base(rng, op, random_type(rng));
            for (bool out : {false, true}) tensor_ref(d, out).total_tensor_size_in_bytes = calc_buffer_tensor_size(tensor_ref(d, out));
            return valid(d);
        });
    for (const std::uint32_t alignment : {16u, 256u, 0x8000'0000u})
        add(t.valid, fmt::format("valid: GuaranteedBaseOffsetAlignment = {} on both tensors", alignment), any_op,
            [=](rng_t& rng, operator_type op) {
                operator_desc d = random_base(rng, op, random_type(rng));
                for (bool out : {false, true}) tensor_ref(d, out).guaranteed_base_offset_alignment = alignment;
                return valid(d);
            });
    add(t.valid, "valid: InputTensor.Strides 0 on an axis of 2 or more elements (broadcast)", any_op,
        [](rng_t& rng, operator_type op) {
            auto [d, k] = redraw(rng, [&](rng_t& g) -> std::optional<std::pair<operator_desc, std::size_t>> {
                operator_desc base = base_of(g, random_recipe(g, op, random_type(g)), layout::strided, layout::random);
                const auto& sizes = input_ref(base).sizes;
                const auto axis = random_axis(g, sizes.size(), [&](std::size_t i) { return sizes[i] >= 2; });
                if (!axis) return std::nullopt;
                return std::pair{base, *axis};
            });
            (*input_ref(d).strides)[k] = 0;
            return valid(d, fmt::format("axis {}", k));
        });
    add(t.valid, "valid: OutputTensor.Strides larger than packed (strided output)", any_op, [](rng_t& rng, operator_type op) {
        operator_desc d = base_of(rng, random_recipe(rng, op, random_type(rng)), layout::random, layout::packed);
        output_ref(d) = with_strides(rng, output_ref(d), pick(rng, 2, 3), true);
        return valid(d);
    });
    for (const data_type type : movable_data_types)
        add(t.valid, fmt::format("valid: DataType {}", to_string(type)),
            [type](operator_type op) { return supports_data_type(op, feature_level::fl_6_4, type); },
            [=](rng_t& rng, operator_type op) { return valid(random_base(rng, op, type)); });
    // The largest packed tensors DirectML accepts (largest_packed_count): DMLCalcBufferTensorSize
    // rounds up to 4 and TotalTensorSizeInBytes is at most (2^32 - 1) elements' worth, so 2^32 - 1
    // = 65537 * 65535 elements of four or eight bytes, 2^32 - 2 = 2 * (2^31 - 1) of two, 2^32 - 4
    // = 65538 * 65534 of one.
    for (const largest_group& g : largest_groups()) {
        const auto has_width = [g](operator_type op) { // UPSAMPLE_2D: FLOAT16 and FLOAT32 only
            if (!is_upsample(op)) return true;
            return std::find_if(g.widths.begin(), g.widths.end(), [](std::size_t w) { return w == 2 || w == 4; }) != g.widths.end();
        };
        add(t.valid, fmt::format("valid: InputTensor of {} elements ({}, the largest DirectML accepts)", g.count, g.each),
            has_width, [=](rng_t& rng, operator_type op) {
                const std::size_t rank = rank_from(rng, op, 2);
                const auto [i, j] = two_axes(rng, rank);
                const data_type type = random_type_of_width(rng, g.widths);
                return valid(realize(neutral_recipe(rng, op, type, two_axis_sizes(rank, i, g.a, j, g.b), 1, false)));
            });
        add(t.valid, fmt::format("valid: OutputTensor of {} elements ({}, the largest DirectML accepts)", g.count, g.each),
            [=](operator_type op) { return !is_depth_space(op) && has_width(op); }, [=](rng_t& rng, operator_type op) {
                const std::size_t rank = rank_from(rng, op, 2);
                const auto [i, j] = two_axes(rng, rank);
                const data_type type = random_type_of_width(rng, g.widths);
                if (is_slice_op(op) || is_identity(op) || is_slice_grad(op) || is_scaling(op))
                    return valid(realize(neutral_recipe(rng, op, type, two_axis_sizes(rank, i, g.a, j, g.b), 1, true)));
                recipe r = neutral_recipe(rng, op, type, two_axis_sizes(rank, i, g.a, j, g.b - 2), 1, false);
                r.start[j] = r.end[j] = 1;
                return valid(realize(r));
            });
    }
}

// Element counts at 2^32 and wrapping it: one field for SLICE(1) (a larger input keeps the
// window), both tensors' Sizes for the others (their output follows the input). The base (2^32 -
// 2^16 or 2^32 - 2^17 elements) is valid for every type; at 2^32 elements its TotalTensorSizeInBytes
// is then (2^32 - 1) elements' worth (make_room), one element short of the mutated tensor's.
inline void add_count_classes(class_table& t) {
    for (const bool wraps : {false, true}) {
        const std::string what = wraps ? "element count wraps 2^32 (TotalTensorSizeInBytes as in 32 bits)" : "2^32 elements";
        const auto build = [=](rng_t& rng, operator_type op) {
            const std::size_t rank = rank_from(rng, op, 2);
            auto [i, j] = two_axes(rng, rank);
            const data_type type = random_type(rng);
            // 2^32: 65536 * 65536 (base 65535 * 65536); wraps: 65537 * 65537 = 2^32 + 131073 (base 65537 * 1).
            std::vector<std::uint32_t> before = wraps ? two_axis_sizes(rank, i, 65537, j, 1) : two_axis_sizes(rank, i, 65535, j, 65536);
            std::vector<std::uint32_t> after = wraps ? two_axis_sizes(rank, i, 65537, j, 65537) : two_axis_sizes(rank, i, 65536, j, 65536);
            std::uint32_t block = 1;
            if (!wraps && is_depth_space(op)) { // BlockSize 2: D2S {1, 4, 32767|32768, 32768}, S2D {1, 1, 65534|65536, 65536}
                block = 2;
                const bool h_first = chance(rng, 50);
                const std::uint32_t big = is_to_space(op) ? 32768 : 65536, less = is_to_space(op) ? 32767 : 65534;
                before = {1, is_to_space(op) ? 4u : 1u, h_first ? less : big, h_first ? big : less};
                after = {1, is_to_space(op) ? 4u : 1u, big, big};
            }
            recipe rb = neutral_recipe(rng, op, type, before, block, false);
            recipe ra = rb;
            ra.in = after;
            operator_desc base = realize(rb);
            const operator_desc mutated = realize(ra);
            const bool both = !is_slice_op(op) && !is_slice_grad(op); // SLICE_GRAD's output keeps the window
            for (bool out : {false, true}) {
                if (out && !both) continue;
                const auto& m = tensor_ref(mutated, out);
                make_room(base, out, wraps ? wrapped_size(m) : calc_buffer_tensor_size(m));
            }
            built b = change(base, "InputTensor.Sizes");
            input_ref(b.desc).sizes = after;
            if (both) {
                b.fields.push_back("OutputTensor.Sizes");
                b.coupled = true;
                output_ref(b.desc).sizes = tensor_ref(mutated, true).sizes;
            }
            b.detail = fmt::format("InputTensor.Sizes {} -> {}{}", sizes_text(before), sizes_text(after),
                                   both ? fmt::format(", OutputTensor.Sizes -> {}", sizes_text(output_ref(b.desc).sizes)) : "");
            return b;
        };
        add(t.invalid, "InputTensor.Sizes: " + what, [](operator_type op) { return is_slice_op(op) || is_slice_grad(op); },
            build);
        add(t.invalid, "InputTensor.Sizes and OutputTensor.Sizes: " + what,
            [](operator_type op) { return !is_slice_op(op) && !is_slice_grad(op); }, build);
    }
}

// DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1).
inline void add_depth_space_classes(class_table& t) {
    const auto ds = [](operator_type op) { return is_depth_space(op); };
    const auto with_block = [](rng_t& rng, operator_type op, std::uint32_t b) {
        const std::uint32_t n = pick(rng, 1, 2), c = pick(rng, 1, 3), h = pick(rng, 1, 3);
        std::uint32_t w = pick(rng, 1, 3);
        if (chance(rng, 70) && h == w) w = h % 3 + 1;
        return depth_space_recipe(rng, op, random_type(rng), b, n, c, h, w);
    };
    add(t.valid, "valid: BlockSize 1", ds, [=](rng_t& rng, operator_type op) {
        return valid(base_of(rng, with_block(rng, op, 1), layout::random, layout::random));
    });
    add(t.valid, "valid: BlockSize the largest that fits", ds, [](rng_t& rng, operator_type op) {
        // D2S: C = B * B; S2D: H = W = B. (One draw per statement: the order of a call's arguments is unspecified.)
        const std::uint32_t b = pick(rng, 5, 64), most = b <= 32 ? 2 : 1;
        const data_type type = random_type(rng);
        const std::uint32_t first = pick(rng, 1, most), second = pick(rng, 1, most);
        const recipe r = is_to_space(op) ? depth_space_recipe(rng, op, type, b, 1, 1, first, second)
                                         : depth_space_recipe(rng, op, type, b, 1, first, 1, 1);
        return valid(base_of(rng, r, layout::random, layout::random), fmt::format("BlockSize {}", b));
    });
    // D2S {1, 65535 * 65535, 1, 1} -> {1, 1, 65535, 65535}; S2D the other way: 2^32 - 2^17 + 1
    // elements, fewer than the largest packed tensor of any type.
    add(t.valid, "valid: BlockSize 2^16 - 1 (the largest whose square fits in 32 bits)", ds, [](rng_t& rng, operator_type op) {
        const data_type type = random_type(rng);
        return valid(realize(depth_space_recipe(rng, op, type, 65535, 1, 1, 1, 1)));
    });
    add(t.valid, "valid: BlockSize 3, H != W", ds, [](rng_t& rng, operator_type op) {
        const std::uint32_t h = pick(rng, 1, 3), n = pick(rng, 1, 2), c = pick(rng, 1, 2);
        const recipe r = depth_space_recipe(rng, op, random_type(rng), 3, n, c, h, h % 3 + 1);
        return valid(base_of(rng, r, layout::random, layout::random));
    });
    for (const std::uint32_t order : {0u, 1u})
        add(t.valid, fmt::format("valid: Order {}", to_string(static_cast<depth_space_order>(order))), has_order,
            [=](rng_t& rng, operator_type op) {
                recipe r = with_block(rng, op, pick(rng, 2, 4));
                r.order = static_cast<depth_space_order>(order);
                return valid(base_of(rng, r, layout::random, layout::random));
            });

    struct block_value {
        std::string name;
        std::uint32_t min_base;
        std::function<std::uint32_t(std::uint32_t)> value;
    };
    for (const block_value& v : std::vector<block_value>{
             {"0", 1, [](std::uint32_t) { return 0u; }},
             {"one more", 1, [](std::uint32_t b) { return b + 1; }},
             {"one less", 2, [](std::uint32_t b) { return b - 1; }},
             {"UINT32_MAX (its square is 1 modulo 2^32)", 1, [](std::uint32_t) { return u32_max; }},
             {"2^16 (its square wraps to 0)", 1, [](std::uint32_t) { return 65536u; }}})
        add(t.invalid, "BlockSize: " + v.name, ds, [=](rng_t& rng, operator_type op) {
            built b = change(base_of(rng, with_block(rng, op, pick(rng, v.min_base, 4)), layout::random, layout::random),
                             "BlockSize");
            std::uint32_t& block = *block_size_ref(b.desc);
            const std::uint32_t value = v.value(block);
            b.detail = fmt::format("{} -> {}", block, value);
            block = value;
            return b;
        });
    // The next BlockSize that breaks the divisibility (D2S: of C by B * B; S2D: of H or W by B).
    add(t.invalid, "BlockSize: the next one whose square does not divide InputTensor.Sizes[1]", is_to_space,
        [=](rng_t& rng, operator_type op) {
            built b = change(base_of(rng, with_block(rng, op, pick(rng, 1, 4)), layout::random, layout::random), "BlockSize");
            std::uint32_t& block = *block_size_ref(b.desc);
            const std::uint32_t c = input_ref(b.desc).sizes[1];
            std::uint32_t value = block + 1;
            while (c % (value * value) == 0) ++value;
            b.detail = fmt::format("{} -> {} (InputTensor.Sizes[1] = {})", block, value, c);
            block = value;
            return b;
        });
    add(t.invalid, "BlockSize: the next one that does not divide InputTensor.Sizes[2] or [3]",
        [](operator_type op) { return is_depth_space(op) && !is_to_space(op); }, [=](rng_t& rng, operator_type op) {
            built b = change(base_of(rng, with_block(rng, op, pick(rng, 1, 4)), layout::random, layout::random), "BlockSize");
            std::uint32_t& block = *block_size_ref(b.desc);
            const auto& sizes = input_ref(b.desc).sizes;
            std::uint32_t value = block + 1;
            while (sizes[2] % value == 0 && sizes[3] % value == 0) ++value;
            b.detail = fmt::format("{} -> {} (InputTensor.Sizes {})", block, value, sizes_text(sizes));
            block = value;
            return b;
        });
    // BlockSize 65537: B * B = 2^32 + 131073. D2S {1, 131073, 1, 1} -> {1, 1, 65537, 65537} (whose
    // element count wraps to 131073); S2D {1, 1, 65537, 65537} -> {1, 131073, 1, 1}. The base: BlockSize 1.
    add(t.invalid, "BlockSize: 2^16 + 1 (its square and the element count wrap 2^32 to 131073)", ds,
        [](rng_t& rng, operator_type op) {
            const recipe rb = neutral_recipe(rng, op, random_type(rng), {1, 131073, 1, 1}, 1, false);
            recipe ra = rb;
            ra.block = 65537;
            if (!is_to_space(op)) ra.in = {1, 1, 65537, 65537};
            const operator_desc mutated = realize(ra);
            built b = change(realize(rb), "BlockSize");
            *block_size_ref(b.desc) = 65537;
            b.coupled = true;
            const bool out = is_to_space(op);
            b.fields.push_back(out ? "OutputTensor.Sizes" : "InputTensor.Sizes");
            tensor_ref(b.desc, out).sizes = tensor_ref(mutated, out).sizes;
            b.detail = fmt::format("BlockSize 1 -> 65537, {}.Sizes -> {}", out ? "OutputTensor" : "InputTensor",
                                   sizes_text(tensor_ref(b.desc, out).sizes));
            return b;
        });
    // The input's depth or space axis one more than a multiple (the output, by integer division, unchanged).
    struct axis_class {
        std::string klass;
        std::size_t axis;
        bool to_space;
    };
    for (const axis_class& v : std::vector<axis_class>{
             {"InputTensor.Sizes[1]: one more (not a multiple of BlockSize * BlockSize)", 1, true},
             {"InputTensor.Sizes[2]: one more (not a multiple of BlockSize)", 2, false},
             {"InputTensor.Sizes[3]: one more (not a multiple of BlockSize)", 3, false}})
        add(t.invalid, v.klass, [=](operator_type op) { return is_depth_space(op) && is_to_space(op) == v.to_space; },
            [=](rng_t& rng, operator_type op) {
                operator_desc base = base_of(rng, with_block(rng, op, pick(rng, 2, 4)), layout::packed, layout::random);
                auto sizes = input_ref(base).sizes;
                ++sizes[v.axis];
                make_room(base, false, calc_buffer_tensor_size(input_ref(base).data_type, sizes));
                built b = change(base, "InputTensor.Sizes");
                b.detail = fmt::format("axis {}: {} -> {} (BlockSize {})", v.axis, sizes[v.axis] - 1, sizes[v.axis],
                                       *block_size_ref(b.desc));
                input_ref(b.desc).sizes = sizes;
                return b;
            });
    add(t.invalid, "OutputTensor.Sizes: H and W swapped", ds, [=](rng_t& rng, operator_type op) {
        operator_desc base = redraw(rng, [&](rng_t& g) -> std::optional<operator_desc> {
            operator_desc d = base_of(g, with_block(g, op, pick(g, 1, 4)), layout::random, layout::packed);
            const auto& sizes = output_ref(d).sizes;
            if (sizes[2] == sizes[3]) return std::nullopt;
            return d;
        });
        built b = change(base, "OutputTensor.Sizes");
        auto& sizes = output_ref(b.desc).sizes;
        b.detail = fmt::format("{} -> H {} W {}", sizes_text(sizes), sizes[3], sizes[2]);
        std::swap(sizes[2], sizes[3]);
        return b;
    });
    for (const std::uint32_t order : {2u, u32_max})
        add(t.invalid, fmt::format("Order: {}", order == 2 ? "2" : "0xFFFFFFFF"), has_order, [=](rng_t& rng, operator_type op) {
            built b = change(base_of(rng, with_block(rng, op, pick(rng, 1, 4)), layout::random, layout::random), "Order");
            *order_ref(b.desc) = static_cast<depth_space_order>(order);
            b.detail = fmt::format("-> {}", order);
            return b;
        });
    for (std::size_t rank = 1; rank <= 8; ++rank) {
        if (rank == 4) continue;
        add(t.invalid, fmt::format("DimensionCount: {} on both tensors ({})", rank, rank < 4 ? "trailing axes dropped" : "trailing sizes 1"),
            ds, [=](rng_t& rng, operator_type op) {
                built b = change(base_of(rng, with_block(rng, op, pick(rng, 1, 4)), layout::packed, layout::packed),
                                 "InputTensor.DimensionCount");
                b.fields.push_back("OutputTensor.DimensionCount");
                b.coupled = true;
                for (bool out : {false, true}) tensor_ref(b.desc, out).sizes.resize(rank, 1);
                b.detail = fmt::format("4 -> {}", rank);
                return b;
            });
    }
}

// SLICE and SLICE1.
inline void add_slice_classes(class_table& t) {
    const auto v0 = [](operator_type op) { return op == operator_type::slice; };
    const auto v1 = [](operator_type op) { return op == operator_type::slice1; };
    const auto slices = [](operator_type op) { return is_slice_op(op); };

    // A recipe and one of its axes, set up by `shape(rng, recipe, axis)`; false redraws.
    const auto shaped = [](rng_t& rng, operator_type op, auto shape) {
        return redraw(rng, [&](rng_t& g) -> std::optional<std::pair<recipe, std::size_t>> {
            recipe r = random_recipe(g, op, random_type(g));
            const std::size_t k = pick_index(g, r.in.size());
            if (!shape(g, r, k)) return std::nullopt;
            return std::pair{r, k};
        });
    };
    // Axis k copies `count` (>= min_count) elements with the last one at the axis's last element
    // (SLICE1: a window [offset, n) with stride of sign `sign`, all the elements it gives).
    const auto to_end = [](rng_t& rng, recipe& r, std::size_t k, std::uint32_t min_count, int sign) {
        const std::uint32_t magnitude = pick(rng, 1, 3);
        const std::uint32_t need = (min_count - 1) * magnitude + 1;
        r.in[k] = std::max(r.in[k], need);
        const std::uint32_t n = r.in[k];
        if (r.op == operator_type::slice) {
            const std::uint32_t count = pick(rng, min_count, 1 + (n - 1) / magnitude);
            set_window(r, k, n - 1 - (count - 1) * magnitude, count, magnitude);
        } else {
            const std::uint32_t size = pick(rng, need, n);
            set_window(r, k, n - size, size, sign < 0 ? -std::int64_t{magnitude} : std::int64_t{magnitude});
        }
        return true;
    };
    const auto layouts = [](rng_t& rng, const recipe& r) { return base_of(rng, r, layout::random, layout::random); };

    for (std::uint32_t rank = 1; rank <= 8; ++rank)
        add(t.valid, fmt::format("valid: rank {}", rank),
            [rank](operator_type op) { return !is_depth_space(op) && (!is_upsample(op) || rank == 4 || rank == 5); },
            [=](rng_t& rng, operator_type op) { return valid(random_base(rng, op, random_type(rng), rank)); });
    add(t.valid, "valid: window ends at the last element", slices, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) { return to_end(g, x, axis, 1, 1); });
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    add(t.valid, "valid: one element, the axis's last", slices, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) {
            set_window(x, axis, x.in[axis] - 1, 1, pick(g, 1, 3));
            return true;
        });
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    add(t.valid, "valid: window ends at the last element, negative stride", v1, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) { return to_end(g, x, axis, 2, -1); });
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    add(t.valid, "valid: InputWindowStrides[k] = -1 over the whole window", v1, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) {
            x.in[axis] = std::max(x.in[axis], 2u);
            const std::uint32_t size = pick(g, 2, x.in[axis]);
            set_window(x, axis, pick(g, 0, x.in[axis] - size), size, -1);
            return true;
        });
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    // An axis of the most elements DirectML accepts for the type (the others 1; largest_packed_count),
    // one element copied from its last index.
    for (const largest_group& g : largest_groups())
        add(t.valid, fmt::format("valid: one element at index {} of an axis of {} elements ({})", g.last, g.count, g.each),
            slices, [=](rng_t& rng, operator_type op) {
                const std::size_t rank = pick(rng, 1, 8), k = pick_index(rng, rank);
                const data_type type = random_type_of_width(rng, g.widths);
                const auto count = static_cast<std::uint32_t>(largest_packed_count(element_size(type)));
                std::vector<std::uint32_t> sizes(rank, 1);
                sizes[k] = count;
                recipe r = neutral_recipe(rng, op, type, sizes, 1, false);
                const std::int64_t stride = pick(rng, 1, 3);
                set_window(r, k, count - 1, 1, op == operator_type::slice1 && chance(rng, 50) ? -stride : stride);
                return valid(realize(r), fmt::format("axis {}", k));
            });
    add(t.valid, "valid: Strides beyond the axis, one element", v0, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) {
            const std::uint32_t offset = pick(g, 0, x.in[axis] - 1);
            set_window(x, axis, offset, 1, x.in[axis] + pick(g, 0, 10));
            return true;
        });
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    add(t.valid, "valid: |InputWindowStrides| beyond the window, one element", v1, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) {
            const std::uint32_t size = pick(g, 1, x.in[axis]);
            const std::int64_t magnitude = size + pick(g, 0, 10);
            const std::uint32_t offset = pick(g, 0, x.in[axis] - size);
            set_window(x, axis, offset, size, chance(g, 50) ? -magnitude : magnitude);
            return true;
        });
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    add(t.valid, "valid: output truncated (fewer elements than the window gives)", v1, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) {
            x.in[axis] = std::max(x.in[axis], 2u);
            const std::uint32_t size = pick(g, 2, x.in[axis]);
            const std::uint32_t offset = pick(g, 0, x.in[axis] - size);
            set_window(x, axis, offset, size, chance(g, 50) ? -1 : 1);
            x.out[axis] = pick(g, 1, size - 1);
            return true;
        });
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    add(t.valid, "valid: output = 1 + (InputWindowSizes - 1) / |InputWindowStrides|, a remainder left", v1,
        [=](rng_t& rng, operator_type op) {
            auto [r, k] = shaped(rng, op, [&](rng_t& g, recipe& x, std::size_t axis) {
                const std::uint32_t magnitude = pick(g, 2, 3);
                const std::uint32_t quotient = pick(g, 1, 3), remainder = pick(g, 1, magnitude - 1);
                const std::uint32_t size = magnitude * quotient + remainder + 1;
                x.in[axis] = std::max(x.in[axis], size);
                const std::uint32_t offset = pick(g, 0, x.in[axis] - size);
                set_window(x, axis, offset, size,
                           chance(g, 50) ? -std::int64_t{magnitude} : std::int64_t{magnitude});
                return true;
            });
            return valid(layouts(rng, r), fmt::format("axis {}", k));
        });

    // One field of axis k of SLICE's or SLICE1's arrays, from a base whose axis k `shape` set up.
    struct axis_class {
        std::string klass;
        std::function<bool(operator_type)> applies;
        std::function<bool(rng_t&, recipe&, std::size_t)> shape;
        std::string field; // "Offsets", "Sizes", "Strides" (SLICE names; SLICE1 gets its own)
        std::function<std::int64_t(rng_t&, const recipe&, std::size_t)> value;
    };
    const auto window_shape = [=](std::uint32_t min_count, int sign) {
        return [=](rng_t& g, recipe& x, std::size_t k) { return to_end(g, x, k, min_count, sign); };
    };
    const auto exact = [](std::uint32_t count, std::uint32_t min_offset) {
        // axis k copies `count` elements with stride 1 from an offset >= min_offset
        return [=](rng_t& g, recipe& x, std::size_t k) {
            x.in[k] = std::max(x.in[k], min_offset + count);
            const std::uint32_t offset = pick(g, min_offset, x.in[k] - count);
            set_window(x, k, offset, count, chance(g, 70) || x.op == operator_type::slice ? 1 : -1);
            return true;
        };
    };
    const auto any_window = [](rng_t&, recipe&, std::size_t) { return true; };
    const auto one_output = [](rng_t&, recipe& x, std::size_t k) { // a random window, one element copied
        x.out[k] = 1;
        return true;
    };
    const std::vector<axis_class> axis_classes = {
        {"Offsets[k]: window one past the end", slices, window_shape(1, 1), "Offsets",
         [](rng_t&, const recipe& r, std::size_t k) { return std::int64_t{r.offsets[k]} + 1; }},
        {"Offsets[k]: UINT32_MAX", slices, exact(1, 0), "Offsets", [](rng_t&, const recipe&, std::size_t) { return std::int64_t{u32_max}; }},
        {"Strides[k]: 0", slices, any_window, "Strides", [](rng_t&, const recipe&, std::size_t) { return std::int64_t{0}; }},
        // SLICE
        {"Strides[k]: one more, the last element one past the end", v0, window_shape(2, 1), "Strides",
         [](rng_t&, const recipe& r, std::size_t k) { return r.strides[k] + 1; }},
        {"Sizes[k]: 0", v0, any_window, "Sizes", [](rng_t&, const recipe&, std::size_t) { return std::int64_t{0}; }},
        {"Sizes[k]: one less than OutputTensor.Sizes[k]", v0, window_shape(2, 1), "Sizes",
         [](rng_t&, const recipe& r, std::size_t k) { return std::int64_t{r.sizes[k]} - 1; }},
        // Offsets + (Sizes - 1) * Strides = 2^32 + t for a t inside the axis.
        {"Offsets[k]: Offsets + (Sizes - 1) * Strides wraps 2^32", v0, window_shape(2, 1), "Offsets",
         [](rng_t& g, const recipe& r, std::size_t k) {
             const std::int64_t span = (std::int64_t{r.sizes[k]} - 1) * r.strides[k];
             return std::int64_t{two_32} - span + pick(g, 0, static_cast<std::uint32_t>(std::min<std::int64_t>(r.in[k], span) - 1));
         }},
        {"Strides[k]: UINT32_MAX with 2 elements (the last index wraps 2^32 to Offsets - 1)", v0, exact(2, 1), "Strides",
         [](rng_t&, const recipe&, std::size_t) { return std::int64_t{u32_max}; }},
        {"Strides[k]: 2^31 with 3 elements (the last index wraps 2^32 to Offsets)", v0, exact(3, 0), "Strides",
         [](rng_t&, const recipe&, std::size_t) { return std::int64_t{0x8000'0000}; }},
        {"Strides[k]: UINT32_MAX with 1 element", v0, exact(1, 0), "Strides",
         [](rng_t&, const recipe&, std::size_t) { return std::int64_t{u32_max}; }},
        // SLICE1
        {"InputWindowSizes[k]: window one past the end", v1, window_shape(1, 1), "Sizes",
         [](rng_t&, const recipe& r, std::size_t k) { return std::int64_t{r.sizes[k]} + 1; }},
        {"InputWindowSizes[k]: window one past the end, negative stride", v1, window_shape(1, -1), "Sizes",
         [](rng_t&, const recipe& r, std::size_t k) { return std::int64_t{r.sizes[k]} + 1; }},
        {"InputWindowSizes[k]: 0", v1, any_window, "Sizes", [](rng_t&, const recipe&, std::size_t) { return std::int64_t{0}; }},
        {"InputWindowSizes[k]: UINT32_MAX", v1, any_window, "Sizes", [](rng_t&, const recipe&, std::size_t) { return std::int64_t{u32_max}; }},
        // Offsets + sizes = 2^32 + t with t inside the axis.
        {"InputWindowOffsets[k]: InputWindowOffsets + InputWindowSizes wraps 2^32", v1, any_window, "Offsets",
         [](rng_t& g, const recipe& r, std::size_t k) {
             return std::int64_t{two_32} - r.sizes[k] + pick(g, 0, std::min(r.in[k], r.sizes[k] - 1));
         }},
        {"InputWindowSizes[k]: InputWindowOffsets + InputWindowSizes wraps 2^32", v1, exact(1, 1), "Sizes",
         [](rng_t& g, const recipe& r, std::size_t k) { return std::int64_t{two_32} - r.offsets[k] + pick(g, 0, r.offsets[k] - 1); }},
        {"InputWindowStrides[k]: INT32_MIN with 1 output element", v1, one_output, "Strides",
         [](rng_t&, const recipe&, std::size_t) { return std::int64_t{std::numeric_limits<std::int32_t>::min()}; }},
        {"InputWindowStrides[k]: INT32_MIN with 2 or more output elements", v1, window_shape(2, 1), "Strides",
         [](rng_t&, const recipe&, std::size_t) { return std::int64_t{std::numeric_limits<std::int32_t>::min()}; }},
        {"InputWindowStrides[k]: INT32_MAX with 1 output element", v1, one_output, "Strides",
         [](rng_t&, const recipe&, std::size_t) { return std::int64_t{std::numeric_limits<std::int32_t>::max()}; }},
    };
    const auto slice1_name = [](const std::string& field) { return "InputWindow" + field; };
    for (const axis_class& c : axis_classes)
        add(t.invalid, c.klass, c.applies, [=](rng_t& rng, operator_type op) {
            const auto [r, axis] = shaped(rng, op, c.shape);
            const std::size_t k = axis; // clang 14 lets no lambda capture a structured binding
            const std::int64_t value = c.value(rng, r, k);
            const std::string name = op == operator_type::slice1 ? slice1_name(c.field) : c.field;
            built b = change(layouts(rng, r), name);
            std::int64_t before = 0;
            std::visit(
                dmlref::single_tensor_only{"the DirectML parity cases", [&](auto& x) {
                    using D = std::remove_cvref_t<decltype(x)>;
                    if constexpr (std::is_same_v<D, slice_desc>) {
                        auto& v = c.field == "Offsets" ? x.offsets : c.field == "Sizes" ? x.sizes : x.strides;
                        before = v[k];
                        v[k] = static_cast<std::uint32_t>(value);
                    } else if constexpr (std::is_same_v<D, slice1_desc>) {
                        if (c.field == "Strides") {
                            before = x.input_window_strides[k];
                            x.input_window_strides[k] = static_cast<std::int32_t>(value);
                        } else {
                            auto& v = c.field == "Offsets" ? x.input_window_offsets : x.input_window_sizes;
                            before = v[k];
                            v[k] = static_cast<std::uint32_t>(value);
                        }
                    }
                }},
                b.desc);
            b.detail = fmt::format("axis {} (InputTensor.Sizes[{}] = {}): {} -> {}", k, k, r.in[k], before, value);
            return b;
        });
    add(t.invalid, "OutputTensor.Sizes[k]: one more than the window gives", v1, [=](rng_t& rng, operator_type op) {
        auto [r, k] = shaped(rng, op, any_window);
        set_window(r, k, r.offsets[k], r.sizes[k], r.strides[k]); // all the elements the window gives
        operator_desc base = base_of(rng, r, layout::random, layout::packed);
        auto sizes = output_ref(base).sizes;
        ++sizes[k];
        make_room(base, true, calc_buffer_tensor_size(output_ref(base).data_type, sizes));
        built b = change(base, "OutputTensor.Sizes");
        b.detail = fmt::format("axis {}: {} -> {} (window {} stride {})", k, sizes[k] - 1, sizes[k], r.sizes[k], r.strides[k]);
        output_ref(b.desc).sizes = sizes;
        return b;
    });
}

// PADDING and PADDING1.
inline void add_padding_classes(class_table& t) {
    const auto pads = [](operator_type op) { return is_padding_op(op); };
    // A recipe in `mode` whose axis k `shape(rng, recipe, k)` sets up (false redraws); the other
    // axes keep pads of at most their size - 1 when `tame` (a single fold, none on size 1).
    const auto shaped = [](rng_t& rng, operator_type op, padding_mode mode, bool tame, auto shape) {
        return redraw(rng, [&](rng_t& g) -> std::optional<std::pair<recipe, std::size_t>> {
            recipe r = random_recipe(g, op, random_type(g), 0, mode);
            const std::size_t k = pick_index(g, r.in.size());
            if (tame)
                for (std::size_t i = 0; i < r.in.size(); ++i) {
                    r.start[i] = std::min(r.start[i], r.in[i] - 1);
                    r.end[i] = std::min(r.end[i], r.in[i] - 1);
                }
            if (!shape(g, r, k) || element_count(output_sizes(r)) > 4000) return std::nullopt;
            return std::pair{r, k};
        });
    };
    const auto layouts = [](rng_t& rng, const recipe& r) { return base_of(rng, r, layout::random, layout::random); };
    // Axis k (of at least `min_size` elements) padded `low + n * scale` to `high + n * scale` on a
    // random side or both.
    const auto pad_axis = [](std::uint32_t min_size, std::int64_t low, std::int64_t high, std::uint32_t scale) {
        return [=](rng_t& g, recipe& r, std::size_t k) {
            if (r.in[k] < min_size) return false;
            const std::int64_t n = r.in[k];
            const auto lo = static_cast<std::uint32_t>(low + n * scale), hi = static_cast<std::uint32_t>(high + n * scale);
            const std::uint32_t side = pick(g, 0, 2);
            if (side != 1) r.start[k] = pick(g, lo, hi);
            if (side != 0) r.end[k] = pick(g, lo, hi);
            return true;
        };
    };

    struct mode_class {
        std::string klass;
        padding_mode mode;
        std::function<bool(rng_t&, recipe&, std::size_t)> shape;
        bool tame = false;
    };
    for (const mode_class& c : std::vector<mode_class>{
             {"valid: REFLECTION, pad = axis size - 1", padding_mode::reflection, pad_axis(2, -1, -1, 1)},
             {"valid: SYMMETRIC, pad = axis size", padding_mode::symmetric, pad_axis(1, 0, 0, 1)},
             {"valid: CONSTANT, pads beyond the axis", padding_mode::constant, pad_axis(1, 1, 4, 2)},
             {"valid: EDGE, pads beyond the axis", padding_mode::edge, pad_axis(1, 1, 4, 2)},
             {"valid: REFLECTION, pads beyond the axis (folded periodically)", padding_mode::reflection, pad_axis(2, 0, 3, 2)},
             {"valid: SYMMETRIC, pads beyond the axis (folded periodically)", padding_mode::symmetric, pad_axis(1, 1, 3, 2)},
             {"valid: WRAP, pads up to the axis size", padding_mode::wrap, pad_axis(1, 0, 0, 1), true}})
        add(t.valid, c.klass, pads, [=](rng_t& rng, operator_type op) {
            auto [r, k] = shaped(rng, op, c.mode, c.tame, c.shape);
            return valid(layouts(rng, r), fmt::format("axis {} of {}: pads {}, {}", k, r.in[k], r.start[k], r.end[k]));
        });
    add(t.valid, "valid: CONSTANT, PaddingValue NaN, infinite or out of the type's range", pads, [=](rng_t& rng, operator_type op) {
        recipe r = random_recipe(rng, op, random_type(rng), 0, padding_mode::constant);
        const float values[] = {std::numeric_limits<float>::quiet_NaN(), std::bit_cast<float>(0x7fc0'0001u),
                                std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                1e30f, -1e30f, -0.0f, 65520.0f, 4294967296.0f, -2147483904.0f};
        r.value = values[pick_index(rng, std::size(values))];
        // PADDING1: the same bits in the type's width, the bytes past it set.
        for (auto& byte : r.value1.bytes) byte = static_cast<std::uint8_t>(rng());
        return valid(layouts(rng, r), fmt::format("PaddingValue {}", r.value));
    });

    for (const std::uint32_t mode : {5u, u32_max})
        add(t.invalid, fmt::format("PaddingMode: {}", mode == 5 ? "5" : "0xFFFFFFFF"), pads, [=](rng_t& rng, operator_type op) {
            built b = change(random_base(rng, op, random_type(rng)), "PaddingMode");
            padding_mode& m = *mode_ref(b.desc);
            b.detail = fmt::format("{} -> {}", to_string(m), mode);
            m = static_cast<padding_mode>(mode);
            return b;
        });
    // The mode changed from CONSTANT on a base whose axis k is padded as the class says.
    for (const mode_class& c : std::vector<mode_class>{
             {"PaddingMode: REFLECTION with a pad = axis size (from CONSTANT)", padding_mode::reflection, pad_axis(2, 0, 0, 1)},
             {"PaddingMode: REFLECTION on an axis of size 1 with a pad of 1 (from CONSTANT)", padding_mode::reflection,
              [](rng_t& g, recipe& r, std::size_t k) {
                  r.in[k] = 1;
                  r.start[k] = r.end[k] = 0;
                  (chance(g, 50) ? r.start[k] : r.end[k]) = 1;
                  return true;
              }},
             {"PaddingMode: SYMMETRIC with a pad = axis size + 1 (from CONSTANT)", padding_mode::symmetric, pad_axis(1, 1, 1, 1)},
             {"PaddingMode: WRAP with a pad beyond the axis (from CONSTANT)", padding_mode::wrap, pad_axis(1, 1, 3, 2)}})
        add(t.invalid, c.klass, pads, [=](rng_t& rng, operator_type op) {
            auto [r, k] = shaped(rng, op, padding_mode::constant, true, c.shape);
            built b = change(layouts(rng, r), "PaddingMode");
            *mode_ref(b.desc) = c.mode;
            b.detail = fmt::format("CONSTANT -> {}; axis {} of {}: pads {}, {}", to_string(c.mode), k, r.in[k], r.start[k], r.end[k]);
            return b;
        });
    // Pads near 2^31 on both sides of one axis, the other axes size 1: at most the largest packed
    // output DirectML accepts for the type (largest_packed_count: 2^32 - 1 elements of four or
    // eight bytes, 2^32 - 2 of two, 2^32 - 4 of one).
    const auto near_2_31 = [](rng_t& rng, operator_type op, const std::vector<std::size_t>& widths) {
        const std::size_t rank = pick(rng, 1, 8), k = pick_index(rng, rank);
        std::vector<std::uint32_t> sizes(rank, 1);
        sizes[k] = pick(rng, 1, 12);
        const data_type type = random_type_of_width(rng, widths);
        const auto count = static_cast<std::uint32_t>(largest_packed_count(element_size(type)));
        recipe r = neutral_recipe(rng, op, type, sizes, 1, false);
        r.mode = padding_mode::constant;
        r.start[k] = 0x8000'0000u + pick(rng, 0, 1000);
        r.end[k] = count - sizes[k] - r.start[k] - pick(rng, 0, 1000);
        return std::pair{r, k};
    };
    for (const largest_group& g : largest_groups())
        add(t.valid, fmt::format("valid: CONSTANT, pads near 2^31 (up to {} output elements of {})", g.count, g.of), pads,
            [=](rng_t& rng, operator_type op) {
                auto [r, k] = near_2_31(rng, op, g.widths);
                return valid(realize(r), fmt::format("axis {} of {}: pads {}, {}", k, r.in[k], r.start[k], r.end[k]));
            });
    add(t.invalid, "PaddingMode: EDGE with pads near 2^31 (from CONSTANT)", pads, [=](rng_t& rng, operator_type op) {
        auto [r, k] = near_2_31(rng, op, {1, 2, 4, 8});
        built b = change(realize(r), "PaddingMode");
        *mode_ref(b.desc) = padding_mode::edge;
        b.detail = fmt::format("axis {} of {}: pads {}, {}", k, r.in[k], r.start[k], r.end[k]);
        return b;
    });

    for (const bool end : {false, true}) {
        const std::string name = end ? "EndPadding" : "StartPadding";
        struct pad_value {
            std::string what;
            std::function<std::uint32_t(std::uint32_t)> value;
        };
        for (const pad_value& v : std::vector<pad_value>{{"one more (OutputTensor.Sizes[k] one short)", [](std::uint32_t p) { return p + 1; }},
                                                         {"UINT32_MAX", [](std::uint32_t) { return u32_max; }}})
            add(t.invalid, name + "[k]: " + v.what, pads, [=](rng_t& rng, operator_type op) {
                // An axis where a pad is allowed (not REFLECTION of one element): one thing wrong.
                auto [r, k] = shaped(rng, op, static_cast<padding_mode>(pick(rng, 0, 4)), false,
                                     [](rng_t&, recipe& x, std::size_t axis) {
                                         return !(x.mode == padding_mode::reflection && x.in[axis] == 1);
                                     });
                built b = change(layouts(rng, r), name);
                auto& p = *pads_ref(b.desc, end);
                const std::uint32_t value = v.value(p[k]);
                b.detail = fmt::format("axis {}: {} -> {}", k, p[k], value);
                p[k] = value;
                return b;
            });
        // The pad raised by 2^32 - d: the output, in 32 bits, d elements shorter (the brief's
        // example: InputTensor.Sizes 5, StartPadding 2^32 - 3, OutputTensor.Sizes 2).
        add(t.invalid, name + "[k]: wraps 2^32 (OutputTensor.Sizes[k] as in 32 bits)", pads, [=](rng_t& rng, operator_type op) {
            auto [r, k] = shaped(rng, op, static_cast<padding_mode>(pick(rng, 0, 4)), false,
                                 [&](rng_t&, recipe& x, std::size_t axis) {
                                     const std::uint32_t other = end ? x.start[axis] : x.end[axis];
                                     return x.in[axis] + other >= 2 && !(x.mode == padding_mode::reflection && x.in[axis] == 1);
                                 });
            const std::uint32_t own = end ? r.end[k] : r.start[k], other = end ? r.start[k] : r.end[k];
            const std::uint32_t d = pick(rng, own + 1, r.in[k] + own + other - 1);
            recipe mutated = r;
            (end ? mutated.end : mutated.start)[k] = own - d; // own + 2^32 - d
            operator_desc base = base_of(rng, r, layout::random, layout::packed);
            built b = change(base, name);
            b.fields.push_back("OutputTensor.Sizes");
            b.coupled = true;
            (*pads_ref(b.desc, end))[k] = own - d;
            output_ref(b.desc).sizes = output_sizes(mutated);
            b.detail = fmt::format("axis {}: InputTensor.Sizes {}, {} {} -> {}, OutputTensor.Sizes[{}] {} -> {}", k, r.in[k], name,
                                   own, own - d, k, output_sizes(r)[k], output_sizes(mutated)[k]);
            return b;
        });
    }
    add(t.invalid, "StartPadding[k] and EndPadding[k]: sum 2^32 (the output size as in 32 bits unchanged)", pads,
        [=](rng_t& rng, operator_type op) {
            auto [r, k] = shaped(rng, op, static_cast<padding_mode>(pick(rng, 0, 4)), false, [](rng_t&, recipe& x, std::size_t axis) {
                x.start[axis] = x.end[axis] = 0;
                return true;
            });
            built b = change(layouts(rng, r), "StartPadding");
            b.fields.push_back("EndPadding");
            b.coupled = true;
            const std::uint32_t a = pick(rng, 0, 1000);
            (*pads_ref(b.desc, false))[k] = 0x8000'0000u + a;
            (*pads_ref(b.desc, true))[k] = 0x8000'0000u - a;
            b.detail = fmt::format("axis {} of {}: pads 0, 0 -> {}, {}", k, r.in[k], 0x8000'0000u + a, 0x8000'0000u - a);
            return b;
        });

    // PADDING1's PaddingValueDataType.
    struct value_type {
        std::string name;
        std::function<data_type(rng_t&, data_type)> value;
    };
    for (const value_type& v : std::vector<value_type>{
             {"another type of the same width", [](rng_t& g, data_type d) { return other_type(g, d, true); }},
             {"a type of another width", [](rng_t& g, data_type d) { return other_type(g, d, false); }},
             {"UNKNOWN", [](rng_t&, data_type) { return data_type::unknown; }},
             {"UINT4", [](rng_t&, data_type) { return data_type::uint4; }},
             {"14", [](rng_t&, data_type) { return static_cast<data_type>(14); }}})
        add(t.invalid, "PaddingValueDataType: " + v.name, [](operator_type op) { return op == operator_type::padding1; },
            [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), "PaddingValueDataType");
                auto& d = std::get<padding1_desc>(b.desc);
                const data_type value = v.value(rng, d.padding_value_data_type);
                b.detail = fmt::format("{} -> {}", to_string(d.padding_value_data_type), static_cast<std::uint32_t>(value));
                d.padding_value_data_type = value;
                return b;
            });
}

// The operator's arrays (SLICE(1), PADDING(1)): an entry too many or too few in one (not
// expressible: one DimensionCount), all one more or one less (DimensionCount off by one), and 9
// dimensions everywhere.
inline void add_array_classes(class_table& t) {
    const auto has_arrays = [](operator_type op) { return !array_names(op).empty(); };
    for (const std::string array : {"Offsets", "Sizes", "Strides", "InputWindowOffsets", "InputWindowSizes",
                                    "InputWindowStrides", "StartPadding", "EndPadding"})
        for (const bool more : {true, false}) {
            const auto applies = [array](operator_type op) {
                const auto names = array_names(op);
                return std::find(names.begin(), names.end(), array) != names.end();
            };
            add(t.invalid, array + (more ? ": one entry more than DimensionCount" : ": one entry fewer than DimensionCount"), applies,
                [=](rng_t& rng, operator_type op) {
                    built b = change(random_base(rng, op, random_type(rng)), array);
                    for_each_array(b.desc, [&](std::string_view name, auto& v, auto filler) {
                        if (name != array) return;
                        b.detail = fmt::format("{} -> {} entries", v.size(), more ? v.size() + 1 : v.size() - 1);
                        if (more) v.push_back(filler);
                        else v.pop_back();
                    });
                    return b;
                });
        }
    for (const bool more : {true, false})
        add(t.invalid, more ? "DimensionCount: one more than the tensors' (every array)" : "DimensionCount: one less than the tensors' (every array)",
            has_arrays, [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), "DimensionCount");
                const std::size_t rank = input_ref(b.desc).sizes.size();
                b.detail = fmt::format("{} -> {}", rank, more ? rank + 1 : rank - 1);
                for_each_array(b.desc, [&](std::string_view, auto& v, auto filler) {
                    if (more) v.push_back(filler);
                    else v.pop_back();
                });
                return b;
            });
    add(t.invalid, "DimensionCount: 9 on both tensors and every array (trailing sizes 1)", has_arrays, [](rng_t& rng, operator_type op) {
        built b = change(base_of(rng, random_recipe(rng, op, random_type(rng)), layout::packed, layout::packed), "InputTensor.DimensionCount");
        b.fields = {"InputTensor.DimensionCount", "OutputTensor.DimensionCount", "DimensionCount"};
        b.coupled = true;
        b.detail = fmt::format("{} -> 9", input_ref(b.desc).sizes.size());
        for (bool out : {false, true}) tensor_ref(b.desc, out).sizes.resize(9, 1);
        for_each_array(b.desc, [&](std::string_view, auto& v, auto filler) { v.resize(9, filler); });
        return b;
    });
}

// ELEMENT_WISE_IDENTITY: the layouts it exists for (transposes, broadcasts, layout changes), and
// ScaleBias, which DirectML accepts and dmlref refuses (it computes: tests/directml/known-divergences.json).
inline void add_identity_classes(class_table& t) {
    const auto identity = [](operator_type op) { return is_identity(op); };
    add(t.valid, "valid: InputTensor with permuted strides (a transpose)", identity, [](rng_t& rng, operator_type op) {
        const recipe r = ranked_recipe(rng, op, 2, 8);
        operator_desc d = realize(r);
        input_ref(d) = with_strides(rng, input_ref(d), 3);
        return valid(d);
    });
    add(t.valid, "valid: InputTensor.Strides all 0 (one element broadcast)", identity, [](rng_t& rng, operator_type op) {
        operator_desc d = base_of(rng, random_recipe(rng, op, random_type(rng)), layout::packed, layout::random);
        auto& in = input_ref(d);
        in.strides = std::vector<std::uint32_t>(in.sizes.size(), 0);
        in.total_tensor_size_in_bytes = calc_buffer_tensor_size(in);
        return valid(d);
    });
    add(t.valid, "valid: NCHW input to an NHWC output (output strides {HWC, 1, WC, C})", identity,
        [](rng_t& rng, operator_type op) {
            recipe r = random_recipe(rng, op, random_type(rng), 4);
            operator_desc d = base_of(rng, r, layout::random, layout::packed);
            auto& out = output_ref(d);
            const auto& s = out.sizes; // N, C, H, W
            out.strides = std::vector<std::uint32_t>{s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]};
            out.total_tensor_size_in_bytes = calc_buffer_tensor_size(out);
            return valid(d);
        });
    add(t.invalid, "ScaleBias: set (arithmetic; dmlref refuses it)", identity, [](rng_t& rng, operator_type op) {
        built b = change(random_base(rng, op, random_type(rng)), "ScaleBias");
        auto& d = std::get<element_wise_identity_desc>(b.desc);
        const float values[] = {1.0f, 0.0f, 2.0f, 10.0f, -1.0f};
        const float scale = values[pick_index(rng, std::size(values))];
        const float bias = values[pick_index(rng, std::size(values))];
        d.scale_bias = scale_bias{scale, bias};
        b.detail = fmt::format("null -> {{Scale: {}, Bias: {}}}", scale, bias);
        return b;
    });
}

// SLICE_GRAD: SLICE1's window classes (each limit of InputWindowOffsets, InputWindowSizes and
// InputWindowStrides, the wraps modulo 2^32 of offset + size and of the count the window gives, a
// stride of 0, a window outside the tensor) with SLICE1's two tensors swapped: SLICE_GRAD's rules
// are SLICE1's with the output gradient as the tensor the window lies in. Each SLICE1 class of
// add_slice_classes gets its SLICE_GRAD twin (but the rank classes, which SLICE_GRAD has), its
// names mapped to DirectML's tensor names; the changed fields keep the positional names every
// class uses (InputTensor: the desc's first tensor, here the input gradient). A twin whose base
// would broadcast the output gradient (SLICE1's input may) is drawn again.
inline std::string swap_tensor_names(std::string_view text, std::string_view input, std::string_view output) {
    // Built anew, not replaced in place (GCC 12's -Wrestrict misreads std::string::replace here).
    std::string result;
    for (std::size_t at = 0; at < text.size();) {
        if (text.substr(at, 11) == "InputTensor") {
            result.append(output);
            at += 11;
        } else if (text.substr(at, 12) == "OutputTensor") {
            result.append(input);
            at += 12;
        } else {
            result.push_back(text[at++]);
        }
    }
    return result;
}
inline std::string grad_names(std::string_view text) {
    return swap_tensor_names(text, "InputGradientTensor", "OutputGradientTensor");
}
inline operator_desc slice1_desc_as_grad(const operator_desc& d) {
    const auto& s = std::get<slice1_desc>(d);
    return slice_grad_desc{s.output_tensor, s.input_tensor, s.input_window_offsets, s.input_window_sizes,
                           s.input_window_strides};
}
inline void add_slice_grad_classes(class_table& t, std::pair<std::size_t, std::size_t> valid_range,
                                   std::pair<std::size_t, std::size_t> invalid_range) {
    for (auto [list, range] : {std::pair{&t.valid, valid_range}, std::pair{&t.invalid, invalid_range}}) {
        for (std::size_t i = range.first; i < range.second; ++i) {
            const class_entry e = (*list)[i];
            if (e.op != operator_type::slice1) continue;
            const std::string klass = grad_names(e.klass);
            if (std::any_of(list->begin(), list->end(),
                            [&](const class_entry& x) { return x.op == operator_type::slice_grad && x.klass == klass; }))
                continue;
            list->push_back({operator_type::slice_grad, klass, [build = e.build](rng_t& rng, operator_type) {
                                 built b;
                                 do {
                                     b = build(rng, operator_type::slice1);
                                     b.base = slice1_desc_as_grad(b.base);
                                     b.desc = slice1_desc_as_grad(b.desc);
                                 } while (validate(b.base).has_value());
                                 for (std::string& f : b.fields) f = swap_tensor_names(f, "InputTensor", "OutputTensor");
                                 b.detail = grad_names(b.detail);
                                 return b;
                             }});
        }
    }
    const auto grad = [](operator_type op) { return is_slice_grad(op); };
    add(t.valid, "valid: InputGradientTensor broadcast on every axis (strides 0)", grad, [](rng_t& rng, operator_type op) {
        operator_desc d = base_of(rng, random_recipe(rng, op, random_type(rng)), layout::packed, layout::random);
        auto& in = input_ref(d);
        in.strides = std::vector<std::uint32_t>(in.sizes.size(), 0);
        in.total_tensor_size_in_bytes = calc_buffer_tensor_size(in);
        return valid(d);
    });
    add(t.valid, "valid: |InputWindowStrides| 2 or 3 on every axis (zeros between the window's elements)", grad,
        [](rng_t& rng, operator_type) {
            recipe r = ranked_recipe(rng, operator_type::slice1, 1, 4); // at most 7^4 elements
            for (std::size_t k = 0; k < r.in.size(); ++k) {
                const std::int64_t m = pick(rng, 2, 3);
                r.in[k] = std::max<std::uint32_t>(r.in[k], 2 * static_cast<std::uint32_t>(m) + 1);
                const std::int64_t stride = chance(rng, 50) ? -m : m;
                set_window(r, k, pick(rng, 0, 1), r.in[k] - 1, stride);
            }
            return valid(base_of(rng, slice1_as_grad(std::move(r)), layout::random, layout::random));
        });
    // DirectML merges an axis the window covers whole into the axis before it (stride 1 on both,
    // packed tensors) and then places a shorter gradient along the merged axis: known divergence
    // slice-grad-merged-axes (docs/directml.md).
    add(t.valid, "valid: InputGradientTensor shorter than a window that covers a whole inner axis (packed tensors)", grad,
        [](rng_t& rng, operator_type) {
            recipe r = ranked_recipe(rng, operator_type::slice_grad, 2, 5);
            const std::size_t rank = r.out.size(), k = pick(rng, 1, static_cast<std::uint32_t>(rank - 1));
            for (std::size_t i = 0; i < rank; ++i) {
                r.out[i] = pick(rng, 1, 4);
                if (i + 1 == k) r.out[i] = pick(rng, 2, 4); // the outer axis of the pair: more than one gradient row
                if (i == k) r.out[i] = pick(rng, 2, 5);     // the inner axis: room for a shorter gradient
                if (i >= k) {
                    set_window(r, i, 0, r.out[i], 1); // the whole axis
                    r.in[i] = r.out[i];
                } else {
                    const std::uint32_t offset = i + 1 == k ? pick(rng, 0, r.out[i] - 2) : pick(rng, 0, r.out[i] - 1);
                    const std::int64_t stride = i + 1 == k || chance(rng, 50) ? 1 : -1;
                    set_window(r, i, offset, pick(rng, i + 1 == k ? 2 : 1, r.out[i] - offset), stride);
                    r.in[i] = r.sizes[i];
                }
            }
            r.in[k] = pick(rng, 1, r.out[k] - 1); // the gradient shorter than the window on axis k
            return valid(base_of(rng, r, layout::packed, layout::packed), fmt::format("axis {}", k));
        });
}

// TILE: Repeats at 1 and large, every axis repeated (past the plan's rank: the WRAP tables);
// RepeatsCount off the tensors' DimensionCount; Repeats 0, one more, UINT32_MAX, and products
// that wrap 2^32 back to the output's size. (FLOAT64, which the page's table omits, is among the
// generic valid DataType classes: DirectML 1.15.4 accepts it.)
inline void add_tile_classes(class_table& t) {
    const auto tiles = [](operator_type op) { return is_tile(op); };
    const auto layouts = [](rng_t& rng, const recipe& r) { return base_of(rng, r, layout::random, layout::random); };
    add(t.valid, "valid: Repeats all 1 (a copy)", tiles, [=](rng_t& rng, operator_type op) {
        recipe r = random_recipe(rng, op, random_type(rng));
        r.repeats.assign(r.in.size(), 1);
        return valid(layouts(rng, r));
    });
    // The plan splits a repeated axis into two: past rank + repeated axes = 8 it reads WRAP tables.
    add(t.valid, "valid: rank + repeated axes above 8 (axes of 2 elements, Repeats 2)", tiles, [=](rng_t& rng, operator_type op) {
        const std::size_t rank = pick(rng, 5, 8);
        recipe r = random_recipe(rng, op, random_type(rng), rank);
        r.in.assign(rank, 2);
        r.repeats.assign(rank, 1);
        const std::size_t repeated = std::min<std::size_t>(rank, 9 - rank + pick(rng, 0, 1));
        for (std::size_t k = 0; k < repeated; ++k) r.repeats[rank - 1 - k] = 2;
        return valid(layouts(rng, r));
    });
    add(t.valid, "valid: Repeats[k] 4096 on an axis of one element", tiles, [=](rng_t& rng, operator_type op) {
        recipe r = ranked_recipe(rng, op, 1, 4);
        r.in.assign(r.in.size(), 1);
        r.repeats.assign(r.in.size(), 1);
        const std::size_t k = pick_index(rng, r.in.size());
        r.repeats[k] = 4096;
        return valid(layouts(rng, r), fmt::format("axis {}", k));
    });
    add(t.valid, "valid: Repeats[k] 3 on an axis of 2 or more elements read with a zero stride", tiles, [=](rng_t& rng, operator_type op) {
        recipe r = ranked_recipe(rng, op, 1, 6);
        const std::size_t k = pick_index(rng, r.in.size());
        r.in[k] = 2;
        r.repeats.assign(r.in.size(), 1);
        r.repeats[k] = 3;
        operator_desc d = base_of(rng, r, layout::strided, layout::random);
        (*input_ref(d).strides)[k] = 0;
        return valid(d, fmt::format("axis {}", k));
    });
    for (const bool more : {true, false})
        add(t.invalid, more ? "RepeatsCount: one more than the tensors' DimensionCount" : "RepeatsCount: one less than the tensors' DimensionCount",
            tiles, [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), "RepeatsCount");
                auto& repeats = std::get<tile_desc>(b.desc).repeats;
                b.detail = fmt::format("{} -> {}", repeats.size(), more ? repeats.size() + 1 : repeats.size() - 1);
                if (more) repeats.push_back(1);
                else repeats.pop_back();
                return b;
            });
    add(t.invalid, "RepeatsCount: 0", tiles, [](rng_t& rng, operator_type op) {
        built b = change(random_base(rng, op, random_type(rng)), "RepeatsCount");
        auto& repeats = std::get<tile_desc>(b.desc).repeats;
        b.detail = fmt::format("{} -> 0", repeats.size());
        repeats.clear();
        return b;
    });
    struct repeat_value {
        std::string what;
        std::uint32_t (*to)(std::uint32_t);
    };
    for (const repeat_value& v : {repeat_value{"0", [](std::uint32_t) { return 0u; }},
                                 repeat_value{"one more (OutputTensor.Sizes unchanged)", [](std::uint32_t r) { return r + 1; }},
                                 repeat_value{"one less (OutputTensor.Sizes unchanged)", [](std::uint32_t r) { return r - 1; }},
                                 repeat_value{"UINT32_MAX", [](std::uint32_t) { return 0xFFFF'FFFFu; }}})
        add(t.invalid, "Repeats[k]: " + v.what, tiles, [=](rng_t& rng, operator_type op) {
            recipe r = random_recipe(rng, op, random_type(rng));
            const std::size_t k = pick_index(rng, r.in.size());
            if (v.what.rfind("one less", 0) == 0) r.repeats[k] = std::max<std::uint32_t>(r.repeats[k], 2);
            built b = change(layouts(rng, r), "Repeats");
            auto& repeats = std::get<tile_desc>(b.desc).repeats;
            b.detail = fmt::format("axis {}: {} -> {}", k, repeats[k], v.to(repeats[k]));
            repeats[k] = v.to(repeats[k]);
            return b;
        });
    // InputTensor.Sizes[k] = 2^m, Repeats[k] + 2^(32 - m): the product gains exactly 2^32.
    add(t.invalid, "Repeats[k]: wraps 2^32 (InputTensor.Sizes[k] * Repeats[k] = OutputTensor.Sizes[k] + 2^32)", tiles,
        [=](rng_t& rng, operator_type op) {
            recipe r = ranked_recipe(rng, op, 1, 6);
            const std::size_t k = pick_index(rng, r.in.size());
            const std::uint32_t m = pick(rng, 1, 3);
            r.in[k] = 1u << m;
            r.repeats[k] = pick(rng, 1, 2);
            built b = change(layouts(rng, r), "Repeats");
            auto& repeats = std::get<tile_desc>(b.desc).repeats;
            const std::uint32_t wrapped = repeats[k] + (1u << (32 - m));
            b.detail = fmt::format("axis {} of {} elements: {} -> {}", k, r.in[k], repeats[k], wrapped);
            repeats[k] = wrapped;
            return b;
        });
}

// UPSAMPLE_2D: ScaleSize at 1, large on an axis of one element; 0, one more, UINT32_MAX and
// products that wrap 2^32; InterpolationMode LINEAR (which dmlref refuses: it computes) and past
// it; ranks and types outside its table on both tensors.
inline void add_upsample_classes(class_table& t) {
    const auto ups = [](operator_type op) { return is_upsample(op); };
    const auto layouts = [](rng_t& rng, const recipe& r) { return base_of(rng, r, layout::random, layout::random); };
    add(t.valid, "valid: ScaleSize {Width: 1, Height: 1} (a copy)", ups, [=](rng_t& rng, operator_type op) {
        recipe r = random_recipe(rng, op, random_type(rng));
        r.scale_width = r.scale_height = 1;
        return valid(layouts(rng, r));
    });
    for (const bool height : {true, false})
        add(t.valid, height ? "valid: ScaleSize.Height 4096 on a height of 1" : "valid: ScaleSize.Width 4096 on a width of 1", ups,
            [=](rng_t& rng, operator_type op) {
                recipe r = random_recipe(rng, op, random_type(rng));
                for (auto& n : r.in) n = 1;
                r.in[r.in.size() - (height ? 1 : 2)] = pick(rng, 1, 2);
                (height ? r.scale_height : r.scale_width) = 4096;
                (height ? r.scale_width : r.scale_height) = 1;
                return valid(layouts(rng, r));
            });
    add(t.valid, "valid: InputTensor broadcast on H and W (strides 0), scaled", ups, [=](rng_t& rng, operator_type op) {
        recipe r = random_recipe(rng, op, random_type(rng));
        operator_desc d = base_of(rng, r, layout::strided, layout::random);
        auto& strides = *input_ref(d).strides;
        strides[strides.size() - 1] = strides[strides.size() - 2] = 0;
        return valid(d);
    });
    struct scale_value {
        std::string what;
        std::uint32_t (*to)(std::uint32_t);
    };
    for (const bool height : {true, false})
        for (const scale_value& v : {scale_value{"0", [](std::uint32_t) { return 0u; }},
                                    scale_value{"one more (OutputTensor.Sizes unchanged)", [](std::uint32_t s) { return s + 1; }},
                                    scale_value{"UINT32_MAX", [](std::uint32_t) { return 0xFFFF'FFFFu; }}}) {
            const std::string field = height ? "ScaleSize.Height" : "ScaleSize.Width";
            add(t.invalid, field + ": " + v.what, ups, [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), field);
                auto& scale = height ? std::get<upsample_2d_desc>(b.desc).scale_size.height
                                     : std::get<upsample_2d_desc>(b.desc).scale_size.width;
                b.detail = fmt::format("{} -> {}", scale, v.to(scale));
                scale = v.to(scale);
                return b;
            });
            // The axis of 2^m elements with the scale + 2^(32 - m): the product gains exactly 2^32.
            if (v.what != "0") continue; // the wrap class once per field
            add(t.invalid, field + ": wraps 2^32 (InputTensor.Sizes * scale = OutputTensor.Sizes + 2^32)", ups,
                [=](rng_t& rng, operator_type op) {
                    recipe r = random_recipe(rng, op, random_type(rng));
                    const std::uint32_t m = pick(rng, 1, 3);
                    r.in[r.in.size() - (height ? 2 : 1)] = 1u << m;
                    (height ? r.scale_height : r.scale_width) = pick(rng, 1, 2);
                    built b = change(layouts(rng, r), field);
                    auto& scale = height ? std::get<upsample_2d_desc>(b.desc).scale_size.height
                                         : std::get<upsample_2d_desc>(b.desc).scale_size.width;
                    const std::uint32_t wrapped = scale + (1u << (32 - m));
                    b.detail = fmt::format("axis of {} elements: {} -> {}", 1u << m, scale, wrapped);
                    scale = wrapped;
                    return b;
                });
        }
    for (const std::uint32_t mode : {1u, 2u, 0xFFFF'FFFFu})
        add(t.invalid,
            mode == 1 ? std::string("InterpolationMode: LINEAR (arithmetic; dmlref refuses it)")
                      : fmt::format("InterpolationMode: {}", mode == 2 ? "2" : "0xFFFFFFFF"),
            ups, [=](rng_t& rng, operator_type op) {
                built b = change(random_base(rng, op, random_type(rng)), "InterpolationMode");
                std::get<upsample_2d_desc>(b.desc).interpolation_mode = static_cast<interpolation_mode>(mode);
                b.detail = fmt::format("NEAREST_NEIGHBOR -> {}", mode);
                return b;
            });
    for (const std::uint32_t rank : {2u, 3u, 6u})
        add(t.invalid, fmt::format("DimensionCount: {} on both tensors ({})", rank, rank < 4 ? "trailing axes dropped" : "a trailing size 1"),
            ups, [=](rng_t& rng, operator_type op) {
                recipe r = random_recipe(rng, op, random_type(rng), rank < 4 ? 4 : 5);
                built b = change(base_of(rng, r, layout::packed, layout::packed), "InputTensor.DimensionCount");
                b.fields.push_back("OutputTensor.DimensionCount");
                b.coupled = true;
                for (bool out : {false, true}) tensor_ref(b.desc, out).sizes.resize(rank, 1);
                b.detail = fmt::format("{} -> {}", r.in.size(), rank);
                return b;
            });
    for (const data_type type : movable_data_types) {
        if (supports_data_type(operator_type::upsample_2d, feature_level::fl_6_4, type)) continue;
        add(t.invalid, fmt::format("InputTensor.DataType and OutputTensor.DataType: {} (not in UPSAMPLE_2D's table)", to_string(type)),
            ups, [=](rng_t& rng, operator_type op) {
                const data_type from = element_size(type) <= 2 ? data_type::float16 : data_type::float32;
                operator_desc base = random_base(rng, op, from);
                for (bool out : {false, true}) { // room for the wider elements, so that only the type is wrong
                    buffer_tensor_desc wider = tensor_ref(base, out);
                    wider.data_type = type;
                    make_room(base, out, calc_buffer_tensor_size(wider));
                }
                built b = change(base, "InputTensor.DataType");
                b.fields.push_back("OutputTensor.DataType");
                b.coupled = true;
                for (bool out : {false, true}) tensor_ref(b.desc, out).data_type = type;
                b.detail = fmt::format("{} -> {}", to_string(from), to_string(type));
                return b;
            });
    }
}

} // namespace detail
} // namespace dmlref::parity

// JOIN's and SPLIT's classes, and REVERSE_SUBSEQUENCES's and the indexed operators', on the
// helpers above.
#include "parity_cases_join_split.hpp"
#include "parity_cases_indexed.hpp"

namespace dmlref::parity {
namespace detail {

inline const class_table& classes() {
    static const class_table table = [] {
        class_table t;
        add_tensor_classes(t);
        add_count_classes(t);
        add_depth_space_classes(t);
        const std::size_t valid_from = t.valid.size(), invalid_from = t.invalid.size();
        add_slice_classes(t);
        const std::pair valid_range{valid_from, t.valid.size()}, invalid_range{invalid_from, t.invalid.size()};
        add_padding_classes(t);
        add_array_classes(t);
        add_identity_classes(t);
        add_slice_grad_classes(t, valid_range, invalid_range);
        add_tile_classes(t);
        add_upsample_classes(t);
        add_join_split_classes(t);
        add_indexed_classes(t);
        return t;
    }();
    return table;
}

/// Whether DirectML's C structs carry `d` exactly.
inline bool expressible(const operator_desc& d) {
    bool ok = true;
    for (const auto& tensors : {inputs_of(d), outputs_of(d)})
        for (const bound_tensor& t : tensors)
            if (t.desc().strides && t.desc().strides->size() != t.desc().sizes.size()) ok = false;
    if (is_parts_op(type_of(d)) || is_indexed_op(type_of(d))) return ok; // no arrays of the operator's own
    std::optional<std::size_t> length;
    for_each_array(d, [&](std::string_view, const auto& v, auto) {
        if (length && *length != v.size()) ok = false;
        length = v.size();
    });
    return ok;
}

/// Whether a buffer of `d` would exceed 64 MiB.
inline bool huge(const operator_desc& d) {
    for (const auto& tensors : {inputs_of(d), outputs_of(d)})
        for (const bound_tensor& t : tensors)
            if (t.desc().total_tensor_size_in_bytes > huge_bytes || calc_buffer_tensor_size(t.desc()) > huge_bytes) return true;
    return false;
}

/// FNV-1a of the operator's name and the class's text: what a class's draws are seeded from, so
/// that a draw depends on its class alone, not on the classes listed before it.
inline std::uint64_t class_hash(operator_type op, std::string_view klass) {
    std::uint64_t h = 0xcbf2'9ce4'8422'2325ull;
    const auto take = [&](std::string_view text) {
        for (const char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 0x100'0000'01b3ull;
    };
    take(to_string(op));
    take("\n");
    take(klass);
    return h;
}

/// Where boundary case `index` falls in the round robin: its class entry and its draw, the
/// number of earlier cases of that entry.
inline std::pair<const class_entry*, std::uint64_t> entry_of(std::uint64_t index) {
    const class_table& t = classes();
    const std::uint64_t block = index / 4, slot = index % 4;
    if (slot == 0) return {&t.valid[block % t.valid.size()], block / t.valid.size()};
    const std::uint64_t k = block * 3 + slot - 1;
    return {&t.invalid[k % t.invalid.size()], k / t.invalid.size()};
}

/// Boundary case `index` of `seed` with its base (see parity_case and built). Its generator is
/// seeded from (seed, operator, class, draw), so a case keeps its desc when classes are added or
/// removed elsewhere in the table; only its index moves (index_of finds it).
inline std::pair<parity_case, built> boundary_case_with_base(std::uint64_t seed, std::uint64_t index) {
    const auto [entry, draw] = entry_of(index);
    rng_t rng(mix(seed ^ class_hash(entry->op, entry->klass), draw, 1));
    built b = entry->build(rng, entry->op);
    parity_case c{b.desc, entry->klass, b.detail, expressible(b.desc), huge(b.desc)};
    return {std::move(c), std::move(b)};
}

} // namespace detail

/// Draw `draw` of the boundary class (`op`, `klass`): its case index in today's table, or nothing
/// when the table has no such class.
inline std::optional<std::uint64_t> index_of(operator_type op, std::string_view klass, std::uint64_t draw) {
    const detail::class_table& t = detail::classes();
    for (std::size_t i = 0; i < t.valid.size(); ++i)
        if (t.valid[i].op == op && t.valid[i].klass == klass) return (draw * t.valid.size() + i) * 4;
    for (std::size_t i = 0; i < t.invalid.size(); ++i)
        if (t.invalid[i].op == op && t.invalid[i].klass == klass) {
            const std::uint64_t k = draw * t.invalid.size() + i;
            return k / 3 * 4 + k % 3 + 1;
        }
    return std::nullopt;
}

/// index_of for an operator named as DirectML names it ("SLICE1"), as known divergences record it.
inline std::optional<std::uint64_t> index_of(std::string_view op, std::string_view klass, std::uint64_t draw) {
    const auto type = parse_operator_type(op);
    return type ? index_of(*type, klass, draw) : std::nullopt;
}

/// The draw of boundary case `index`: how many cases of its class come before it.
inline std::uint64_t draw_of(std::uint64_t index) { return detail::entry_of(index).second; }

/// The boundary case number `index` of the run seeded `seed`: deterministic for (seed, index)
/// alone, independent of any other index, the same with every compiler and standard library.
inline parity_case boundary_case(std::uint64_t seed, std::uint64_t index) {
    return detail::boundary_case_with_base(seed, index).first;
}

/// A valid case (for output parity): every operator and order (JOIN and SPLIT with one to five
/// parts, each tensor laid out its own way; REVERSE_SUBSEQUENCES and the indexed operators with
/// every index type, parity_cases_indexed.hpp), all five padding modes with pads beyond the axis, all
/// eleven data types, ranks 1-8, strided and broadcast inputs, strided outputs (random_cases'
/// descs); the operators in turn; deterministic for (seed, index) alone.
inline parity_case valid_case(std::uint64_t seed, std::uint64_t index) {
    detail::rng_t rng(detail::mix(seed, index, 2));
    constexpr std::size_t indexed = std::size(detail::indexed_ops), count = random_cases::all_operator_count + indexed;
    const auto which = static_cast<std::size_t>(index % count);
    operator_desc d = which < random_cases::all_operator_count
                          ? random_cases::random_any_desc(rng, which)
                          : detail::random_indexed_base(rng, detail::indexed_ops[which - random_cases::all_operator_count]);
    const bool big = detail::huge(d);
    return parity_case{std::move(d), "valid", {}, true, big};
}

/// Every class boundary_case can produce, per operator: (operator, klass) pairs, the valid
/// classes first.
inline std::vector<std::pair<operator_type, std::string>> boundary_classes() {
    std::vector<std::pair<operator_type, std::string>> list;
    for (const auto* group : {&detail::classes().valid, &detail::classes().invalid})
        for (const auto& entry : *group) list.emplace_back(entry.op, entry.klass);
    return list;
}

} // namespace dmlref::parity
