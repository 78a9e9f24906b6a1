#pragma once
/// \file random_cases.hpp
/// Random valid descs over every operator, mode, order, data type and rank 1 to 8, with strided,
/// permuted and broadcast layouts, negative slice strides, truncated slice outputs and pads larger
/// than their axis. The property tests judge the engine on them; `dmlref vectors` writes them out
/// as conformance models. Deterministic for a given seed, and the same with every compiler and
/// standard library: every draw goes through seeded_random.hpp.

#include <algorithm>
#include <bit>
#include <cstring>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <dmlref/format.hpp>
#include <dmlref/operator.hpp>

#include "seeded_random.hpp"

namespace dmlref::random_cases {

using rng_t = seeded::generator;
using seeded::chance;
using seeded::pick;

/// A desc for `sizes` with a random layout: no strides, explicit packed, padded rows, permuted axes,
/// and (inputs only) broadcast axes with stride 0. TotalTensorSizeInBytes is exact or a little more.
/// Explicit strides for `sizes`: packed (kind 1), rows wider than packed by 0 to 2 elements (2),
/// permuted axes with wider rows (3 and more); `gaps` makes every row 1 or 2 elements wider.
inline std::vector<std::uint32_t> layout_strides(rng_t& rng, const std::vector<std::uint32_t>& sizes, std::uint32_t kind,
                                                 bool gaps = false) {
    const std::size_t rank = sizes.size();
    std::vector<std::size_t> order(rank); // axes from innermost to outermost in memory
    for (std::size_t i = 0; i < rank; ++i) order[i] = rank - 1 - i;
    if (kind >= 3) seeded::shuffle(order.begin(), order.end(), rng);
    std::vector<std::uint32_t> strides(rank);
    std::uint32_t stride = 1;
    for (std::size_t axis : order) {
        strides[axis] = stride;
        const std::uint32_t extra = gaps ? pick(rng, 1, 2) : kind >= 2 ? pick(rng, 0, 2) : 0; // larger than packed
        stride *= sizes[axis] + extra;
    }
    return strides;
}

inline buffer_tensor_desc random_tensor(rng_t& rng, data_type type, const std::vector<std::uint32_t>& sizes, bool is_input) {
    buffer_tensor_desc d;
    d.data_type = type;
    d.sizes = sizes;
    const std::uint32_t kind = pick(rng, 0, is_input ? 4 : 3);
    if (kind > 0) {
        const std::size_t rank = sizes.size();
        std::vector<std::uint32_t> strides = layout_strides(rng, sizes, kind);
        if (kind == 4)
            for (std::size_t i = 0; i < rank; ++i)
                if (chance(rng, 40)) strides[i] = 0;
        d.strides = strides;
    }
    d.total_tensor_size_in_bytes = calc_buffer_tensor_size(d);
    if (chance(rng, 20)) d.total_tensor_size_in_bytes += 4 * pick(rng, 1, 3);
    return d;
}

/// Largest size per axis that keeps tensors of `rank` axes small.
inline std::uint32_t max_extent(std::size_t rank) {
    constexpr std::uint32_t table[] = {0, 12, 8, 5, 4, 3, 2, 2, 2};
    return table[rank];
}

inline std::vector<std::uint32_t> random_sizes(rng_t& rng, std::size_t rank) {
    std::vector<std::uint32_t> sizes(rank);
    for (auto& s : sizes) s = pick(rng, 1, max_extent(rank));
    return sizes;
}

inline data_type random_type(rng_t& rng) { return movable_data_types[pick(rng, 0, 10)]; }

inline operator_desc random_depth_space(rng_t& rng, int which, data_type type) {
    const std::uint32_t b = pick(rng, 1, 4);
    const std::uint32_t n = pick(rng, 1, 2), c = pick(rng, 1, 3);
    std::uint32_t h = pick(rng, 1, 3), w = pick(rng, 1, 3);
    if (chance(rng, 70) && h == w) w = h % 3 + 1; // H != W most of the time
    const bool to_space = which < 2;
    const std::vector<std::uint32_t> space{n, c, h * b, w * b}, depth{n, c * b * b, h, w};
    const auto in = random_tensor(rng, type, to_space ? depth : space, true);
    const auto out = random_tensor(rng, type, to_space ? space : depth, false);
    const auto order = static_cast<depth_space_order>(pick(rng, 0, 1));
    switch (which) {
    case 0: return depth_to_space_desc{in, out, b};
    case 1: return depth_to_space1_desc{in, out, b, order};
    case 2: return space_to_depth_desc{in, out, b};
    default: return space_to_depth1_desc{in, out, b, order};
    }
}

inline operator_desc random_slice(rng_t& rng, bool v1, data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    const auto in_sizes = random_sizes(rng, rank);
    std::vector<std::uint32_t> out_sizes(rank), offsets(rank), sizes(rank);
    std::vector<std::uint32_t> strides(rank);
    std::vector<std::int32_t> signed_strides(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::uint32_t n = in_sizes[i];
        offsets[i] = pick(rng, 0, n - 1);
        const auto magnitude = pick(rng, 1, 3);
        if (v1) {
            sizes[i] = pick(rng, 1, n - offsets[i]);
            signed_strides[i] = static_cast<std::int32_t>(magnitude) * (chance(rng, 50) ? -1 : 1);
            const std::uint32_t most = 1 + (sizes[i] - 1) / magnitude;
            out_sizes[i] = chance(rng, 70) ? most : pick(rng, 1, most); // truncation is allowed
        } else {
            strides[i] = magnitude;
            sizes[i] = pick(rng, 1, (n - 1 - offsets[i]) / magnitude + 1);
            out_sizes[i] = sizes[i];
        }
    }
    const auto in = random_tensor(rng, type, in_sizes, true);
    const auto out = random_tensor(rng, type, out_sizes, false);
    if (v1) return slice1_desc{in, out, offsets, sizes, signed_strides};
    return slice_desc{in, out, offsets, sizes, strides};
}

inline float random_padding_float(rng_t& rng) {
    switch (pick(rng, 0, 5)) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return static_cast<float>(pick(rng, 0, 1000)) / 7.0f - 70.0f; // fractions, both signs
    case 2: return chance(rng, 50) ? 1e30f : -1e30f;                       // saturates every integer
    case 3: return static_cast<float>(pick(rng, 0, 70000)) - 35000.0f;     // saturates 8/16-bit
    case 4: return std::bit_cast<float>(static_cast<std::uint32_t>(rng())); // any bits, NaN payloads too
    default: return 65520.0f; // rounds to infinity in FLOAT16
    }
}

inline operator_desc random_padding(rng_t& rng, bool v1, data_type type) {
    for (;;) {
        const std::size_t rank = pick(rng, 1, 8);
        const auto in_sizes = random_sizes(rng, rank);
        const auto mode = static_cast<padding_mode>(pick(rng, 0, 4));
        std::vector<std::uint32_t> start(rank), end(rank), out_sizes(rank);
        std::uint64_t count = 1;
        for (std::size_t i = 0; i < rank; ++i) {
            const std::uint32_t n = in_sizes[i];
            const std::uint32_t most = rank <= 2 ? 2 * n + 4 : rank <= 4 ? n + 2 : 2; // larger than the axis
            start[i] = pick(rng, 0, most);
            end[i] = pick(rng, 0, most);
            if (mode == padding_mode::reflection && n == 1) start[i] = end[i] = 0; // DECISIONS 5
            out_sizes[i] = n + start[i] + end[i];
            count *= out_sizes[i];
        }
        if (count > 3000) continue;
        const auto in = random_tensor(rng, type, in_sizes, true);
        const auto out = random_tensor(rng, type, out_sizes, false);
        if (!v1) return padding_desc{in, out, mode, random_padding_float(rng), start, end};
        scalar_union value;
        for (auto& b : value.bytes) b = static_cast<std::uint8_t>(rng());
        return padding1_desc{in, out, mode, type, value, start, end};
    }
}

/// ELEMENT_WISE_IDENTITY over random sizes: the input strided, permuted (a transpose) or broadcast
/// (zero strides), the output packed or strided; never a ScaleBias.
inline operator_desc random_identity(rng_t& rng, data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    const auto sizes = random_sizes(rng, rank);
    const auto in = random_tensor(rng, type, sizes, true);
    const auto out = random_tensor(rng, type, sizes, false);
    return element_wise_identity_desc{in, out, std::nullopt};
}

/// SLICE_GRAD over random sizes: SLICE1's window (offsets, sizes, strides of magnitude 1 to 3 and
/// either sign, the input gradient the window's element count or fewer), the input gradient
/// strided, permuted or broadcast, the output gradient packed or strided. A third of the descs
/// step by 1 on every axis (the one-pass plan), the rest leave gaps on some axis (fill, then copy).
inline operator_desc random_slice_grad(rng_t& rng, data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    const auto out_sizes = random_sizes(rng, rank);
    const bool unit = chance(rng, 33);
    std::vector<std::uint32_t> in_sizes(rank), offsets(rank), sizes(rank);
    std::vector<std::int32_t> strides(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::uint32_t n = out_sizes[i];
        offsets[i] = pick(rng, 0, n - 1);
        sizes[i] = pick(rng, 1, n - offsets[i]);
        const auto magnitude = unit ? 1u : pick(rng, 1, 3);
        strides[i] = static_cast<std::int32_t>(magnitude) * (chance(rng, 50) ? -1 : 1);
        const std::uint32_t most = 1 + (sizes[i] - 1) / magnitude;
        in_sizes[i] = chance(rng, 70) ? most : pick(rng, 1, most); // fewer than the window holds: allowed
    }
    if (!unit) { // one axis of 3 or more elements steps by 2 or 3 over 2 or more elements: zeros between them
        std::vector<std::size_t> wide;
        for (std::size_t i = 0; i < rank; ++i)
            if (out_sizes[i] >= 3) wide.push_back(i);
        if (!wide.empty()) {
            const std::size_t k = wide[pick(rng, 0, static_cast<std::uint32_t>(wide.size() - 1))];
            offsets[k] = pick(rng, 0, out_sizes[k] - 3);
            sizes[k] = pick(rng, 3, out_sizes[k] - offsets[k]);
            const auto magnitude = pick(rng, 2, std::min(3u, sizes[k] - 1));
            strides[k] = static_cast<std::int32_t>(magnitude) * (chance(rng, 50) ? -1 : 1);
            in_sizes[k] = pick(rng, 2, 1 + (sizes[k] - 1) / magnitude);
        }
    }
    // DirectML's bound counts from the offset (check_slice_grad): with a positive stride the
    // gradient may reach past the window's end; an empty window (size 0) is accepted too.
    const std::size_t k = pick(rng, 0, static_cast<std::uint32_t>(rank - 1));
    if (strides[k] > 0 && chance(rng, 25)) {
        const auto m = static_cast<std::uint32_t>(strides[k]);
        in_sizes[k] = pick(rng, in_sizes[k], 1 + (out_sizes[k] - 1 - offsets[k]) / m);
        if (chance(rng, 30)) sizes[k] = 0;
    }
    const auto in = random_tensor(rng, type, in_sizes, true);
    const auto out = random_tensor(rng, type, out_sizes, false);
    return slice_grad_desc{in, out, offsets, sizes, strides};
}

/// TILE over random sizes and repeat counts 1 to 3 (the output kept to a few thousand elements):
/// the input strided, permuted or broadcast, the output packed or strided.
inline operator_desc random_tile(rng_t& rng, data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    const auto sizes = random_sizes(rng, rank);
    std::vector<std::uint32_t> repeats(rank), out_sizes(rank);
    std::uint64_t count = 1;
    for (std::uint32_t s : sizes) count *= s;
    for (std::size_t i = 0; i < rank; ++i) {
        repeats[i] = pick(rng, 1, 3);
        if (count * repeats[i] > 4096) repeats[i] = 1;
        count *= repeats[i];
        out_sizes[i] = sizes[i] * repeats[i];
    }
    const auto in = random_tensor(rng, type, sizes, true);
    const auto out = random_tensor(rng, type, out_sizes, false);
    return tile_desc{in, out, repeats};
}

/// UPSAMPLE_2D (NEAREST_NEIGHBOR) over random 4-D and 5-D sizes and scales 1 to 4 (FLOAT32 or
/// FLOAT16, its only types; other types are drawn as one of them): the input strided, permuted or
/// broadcast, the output packed or strided.
inline operator_desc random_upsample(rng_t& rng, data_type type) {
    if (!supports_data_type(operator_type::upsample_2d, newest_feature_level, type))
        type = chance(rng, 50) ? data_type::float32 : data_type::float16;
    const std::size_t rank = pick(rng, 4, 5);
    const auto sizes = random_sizes(rng, rank);
    const std::uint32_t height = pick(rng, 1, 4), width = pick(rng, 1, 4);
    std::vector<std::uint32_t> out_sizes = sizes;
    out_sizes[rank - 2] *= height;
    out_sizes[rank - 1] *= width;
    const auto in = random_tensor(rng, type, sizes, true);
    const auto out = random_tensor(rng, type, out_sizes, false);
    return upsample_2d_desc{in, out, {width, height}, interpolation_mode::nearest_neighbor};
}

/// The sizes of JOIN's or SPLIT's parts over random sizes of the whole: one to five parts (one in
/// eight descs a single part: a copy), each of 1 to max_extent(rank) elements along Axis, the
/// other axes the whole's. Returns the parts' sizes; `whole` gets their sum on Axis.
inline std::vector<std::vector<std::uint32_t>> random_parts(rng_t& rng, std::vector<std::uint32_t>& whole, std::size_t axis) {
    const std::size_t count = chance(rng, 12) ? 1 : pick(rng, 2, 5);
    std::vector<std::vector<std::uint32_t>> parts(count, whole);
    whole[axis] = 0;
    for (auto& part : parts) {
        part[axis] = pick(rng, 1, max_extent(whole.size()));
        whole[axis] += part[axis];
    }
    return parts;
}

/// JOIN over random sizes, 1 to 8 axes and any Axis: the inputs strided, permuted or broadcast,
/// each laid out its own way, the output packed or strided.
inline operator_desc random_join(rng_t& rng, data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    auto sizes = random_sizes(rng, rank);
    const std::size_t axis = pick(rng, 0, static_cast<std::uint32_t>(rank - 1));
    const auto parts = random_parts(rng, sizes, axis);
    join_desc d;
    for (const auto& part : parts) d.input_tensors.push_back(random_tensor(rng, type, part, true));
    d.output_tensor = random_tensor(rng, type, sizes, false);
    d.axis = static_cast<std::uint32_t>(axis);
    return d;
}

/// SPLIT over random sizes, 1 to 8 axes and any Axis: the input strided, permuted or broadcast,
/// the outputs packed or strided, each its own way.
inline operator_desc random_split(rng_t& rng, data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    auto sizes = random_sizes(rng, rank);
    const std::size_t axis = pick(rng, 0, static_cast<std::uint32_t>(rank - 1));
    const auto parts = random_parts(rng, sizes, axis);
    split_desc d;
    d.input_tensor = random_tensor(rng, type, sizes, true);
    for (const auto& part : parts) d.output_tensors.push_back(random_tensor(rng, type, part, false));
    d.axis = static_cast<std::uint32_t>(axis);
    return d;
}

/// How many operators random_desc cycles through.
inline constexpr std::size_t operator_count = 12;

/// Cycles through the operators so that every one gets an equal share: index 0-7 the first eight
/// (depth/space, slice, padding), 8 ELEMENT_WISE_IDENTITY, 9 SLICE_GRAD, 10 TILE, 11 UPSAMPLE_2D.
inline operator_desc random_desc(rng_t& rng, std::size_t index) {
    const data_type type = random_type(rng);
    switch (index % operator_count) {
    case 8: return random_identity(rng, type);
    case 9: return random_slice_grad(rng, type);
    case 10: return random_tile(rng, type);
    case 11: return random_upsample(rng, type);
    case 0: case 1: case 2: case 3: return random_depth_space(rng, static_cast<int>(index % operator_count), type);
    case 4: return random_slice(rng, false, type);
    case 5: return random_slice(rng, true, type);
    case 6: return random_padding(rng, false, type);
    default: return random_padding(rng, true, type);
    }
}

/// How many operators random_any_desc cycles through: random_desc's twelve, then JOIN and SPLIT
/// (which bind tensor arrays: one buffer per tensor).
inline constexpr std::size_t all_operator_count = operator_count + 2;

/// random_desc, and at index 12 JOIN, 13 SPLIT (of all_operator_count).
inline operator_desc random_any_desc(rng_t& rng, std::size_t index) {
    const std::size_t which = index % all_operator_count;
    if (which < operator_count) return random_desc(rng, which);
    const data_type type = random_type(rng);
    return which == operator_count ? random_join(rng, type) : random_split(rng, type);
}

/// REVERSE_SUBSEQUENCES for `dmlref vectors`: mostly the descs ONNX ReverseSequence expresses (2 to 5
/// axes, Axis 0 or 1); one in ten of any rank 1 to 8 and any Axis. Every layout random_tensor
/// draws, the lengths UINT32 or UINT64; redrawn until the desc layer accepts it (the data types
/// and ranks of the newest feature level). The lengths' values: vectors_index_values.
inline operator_desc random_reverse_subsequences(rng_t& rng, data_type type) {
    for (;;) {
        const bool onnx_like = !chance(rng, 10);
        const std::size_t rank = onnx_like ? pick(rng, 2, 5) : pick(rng, 1, 8);
        const auto sizes = random_sizes(rng, rank);
        const auto axis = onnx_like ? pick(rng, 0, 1) : pick(rng, 0, static_cast<std::uint32_t>(rank - 1));
        auto lengths = sizes;
        lengths[axis] = 1;
        const data_type length_type = chance(rng, 50) ? data_type::uint32 : data_type::uint64;
        operator_desc d = reverse_subsequences_desc{random_tensor(rng, type, sizes, true), random_tensor(rng, length_type, lengths, true),
                                                    random_tensor(rng, type, sizes, false), axis};
        if (!validate(d)) return d;
        type = random_type(rng);
    }
}

/// GATHER_ELEMENTS for `dmlref vectors`: 1 to `max_rank` axes (5; the D3D12 suite asks 8), any Axis, 1 to 4 indices along it, the four
/// index types, every layout random_tensor draws; redrawn until the desc layer accepts it.
inline operator_desc random_gather_elements(rng_t& rng, data_type type, std::uint32_t max_rank = 5) {
    constexpr data_type index_types[] = {data_type::uint32, data_type::int32, data_type::uint64, data_type::int64};
    for (;;) {
        const std::size_t rank = pick(rng, 1, max_rank);
        const auto sizes = random_sizes(rng, rank);
        const auto axis = pick(rng, 0, static_cast<std::uint32_t>(rank - 1));
        auto indices = sizes;
        indices[axis] = pick(rng, 1, 4);
        const data_type index_type = index_types[pick(rng, 0, 3)];
        operator_desc d = gather_elements_desc{random_tensor(rng, type, sizes, true), random_tensor(rng, index_type, indices, true),
                                               random_tensor(rng, type, indices, false), axis};
        if (!validate(d)) return d;
        type = random_type(rng);
    }
}

/// The index tensor's values of a REVERSE_SUBSEQUENCES or GATHER_ELEMENTS desc drawn above, written
/// into `buffer` (the tensor's whole buffer) at each element's place; an element that several
/// coordinates share (a zero stride) keeps the last value, which is valid for all of them.
/// REVERSE_SUBSEQUENCES: mostly one length per index of the batch axis (the other of axes 0 and 1),
/// 0 to the axis size; one in seven varying on every axis, one in twenty past the axis (DirectML's
/// page clamps those). GATHER_ELEMENTS: an index inside the axis, negative for half of the signed
/// types' (counting from the end).
inline void vectors_index_values(rng_t& rng, const operator_desc& d, std::vector<std::byte>& buffer) {
    const buffer_tensor_desc& t = inputs_of(d)[1].desc();
    const buffer_tensor_desc& in = inputs_of(d)[0].desc();
    const std::size_t rank = t.sizes.size(), width = element_size(t.data_type);
    const bool is_signed = t.data_type == data_type::int32 || t.data_type == data_type::int64;
    std::uint32_t axis = 0;
    std::visit([&](const auto& x) { if constexpr (requires { x.axis; }) axis = x.axis; }, d);
    const std::uint32_t bound = in.sizes[axis];
    const bool reverse = std::holds_alternative<reverse_subsequences_desc>(d);
    const std::size_t batch = axis == 0 && rank > 1 ? 1 : 0;
    const bool per_batch = reverse && !chance(rng, 15);
    const bool past = reverse && chance(rng, 5);
    std::vector<std::int64_t> batch_lengths;
    if (per_batch)
        for (std::uint32_t b = 0; b < t.sizes[batch]; ++b) batch_lengths.push_back(pick(rng, 0, bound));
    if (past) batch_lengths.assign(batch_lengths.size(), bound + pick(rng, 1, 3));
    std::vector<std::uint32_t> c(rank, 0);
    const std::uint64_t count = element_count(t.sizes);
    for (std::uint64_t e = 0; e < count; ++e) {
        std::uint64_t offset = 0, packed = 1;
        for (std::size_t k = rank; k-- > 0;) {
            offset += std::uint64_t{c[k]} * (t.strides ? (*t.strides)[k] : packed);
            packed *= t.sizes[k];
        }
        std::int64_t v = 0;
        if (reverse) {
            v = per_batch ? batch_lengths[c[batch]] : past ? bound + 1 : pick(rng, 0, bound);
        } else {
            v = pick(rng, 0, bound - 1);
            if (is_signed && chance(rng, 50)) v -= bound;
        }
        const std::uint64_t bits = static_cast<std::uint64_t>(v);
        if ((offset + 1) * width <= buffer.size()) std::memcpy(buffer.data() + offset * width, &bits, width); // little-endian
        for (std::size_t k = rank; k-- > 0;) {
            if (++c[k] < t.sizes[k]) break;
            c[k] = 0;
        }
    }
}

inline const buffer_tensor_desc& input_of(const operator_desc& d) {
    return inputs_of(d).front().desc();
}
inline const buffer_tensor_desc& output_of(const operator_desc& d) {
    return outputs_of(d).front().desc();
}

inline std::vector<std::byte> random_bytes(rng_t& rng, std::uint64_t count) {
    std::vector<std::byte> bytes(count);
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    return bytes;
}

/// Random elements of a packed tensor; the bytes that round its buffer up to 4 stay 0, as in a
/// fresh output buffer, so whole buffers compare.
inline std::vector<std::byte> random_packed(rng_t& rng, const buffer_tensor_desc& t) {
    std::vector<std::byte> bytes(t.total_tensor_size_in_bytes);
    const std::uint64_t used = element_count(t.sizes) * element_size(t.data_type);
    for (std::uint64_t i = 0; i < used; ++i) bytes[i] = static_cast<std::byte>(rng());
    return bytes;
}

/// A one-line account of a desc for failure messages, with DirectML's field names.
inline std::string describe(const operator_desc& d) { return to_string(d); }

} // namespace dmlref::random_cases
