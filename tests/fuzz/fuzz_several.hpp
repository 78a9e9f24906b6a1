#pragma once
/// \file fuzz_several.hpp
/// fuzz_ops's descs of the operators past the first ten: TILE and UPSAMPLE_2D, and those that bind
/// several tensors (JOIN's and SPLIT's arrays, REVERSE_SUBSEQUENCES's lengths, the indexed
/// operators' indices and updates). Their shapes are derived from the drawn input sizes most of the
/// time, so that many descs pass validation; any field may instead be anything. Index and length
/// tensors are data: index_bytes() writes their elements from the fuzzer's bytes, mostly near the
/// axes' sizes (negative ones included), sometimes any 32- or 64-bit value.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <dmlref/dmlref.hpp>

#include "fuzz_input.hpp"

namespace dmlref_fuzz {

using namespace dmlref;

/// The operators fuzz_ops draws here, in the order of its operator byte past the first ten.
inline constexpr std::size_t several_count = 12;

/// An index type most of the time (INT32, UINT32, INT64, UINT64), any type at all sometimes.
inline data_type index_type(input& in) {
    static constexpr data_type kinds[] = {data_type::int32, data_type::uint32, data_type::int64, data_type::uint64};
    const std::uint8_t f = in.byte();
    return f < 0xf0 ? kinds[f % 4] : static_cast<data_type>(f % 14);
}

/// `v` right-aligned into `n` entries: leading 1s pad a shorter list; a longer one drops its first
/// entries of 1 (the indexed operators' output rule), and keeps the rest if they are not 1.
inline std::vector<std::uint32_t> right_aligned(std::vector<std::uint32_t> v, std::size_t n) {
    while (v.size() > n && v.front() == 1) v.erase(v.begin());
    while (v.size() < n) v.insert(v.begin(), 1);
    return v;
}

/// Whether an input tensor is data the operator reads as indices or lengths.
inline bool is_index_field(std::string_view field) {
    return field.find("Indices") != std::string_view::npos || field.find("SequenceLengths") != std::string_view::npos;
}

/// Writes index elements of `type` into `bytes` (the whole buffer) from the fuzzer's bytes: mostly
/// in [-2, 2] (in range on the drawn axes of two or more elements, negative ones included),
/// sometimes in [-6, 6] (past the axis), one time in eight any 64-bit value, truncated to the
/// element. Past the fuzzer's bytes: 0 and 1 in turn, in range on every axis of two elements.
inline void index_bytes(input& in, data_type type, std::span<std::byte> bytes) {
    const std::size_t width = type == data_type::int64 || type == data_type::uint64 ? 8 : 4;
    for (std::size_t at = 0; at + width <= bytes.size(); at += width) {
        std::int64_t v = static_cast<std::int64_t>(at / width % 2);
        if (!in.rest().empty()) {
            const std::uint8_t f = in.byte();
            v = f < 0xc0 ? f % 5 - 2 : f < 0xe0 ? f % 13 - 6 : in.raw<std::int64_t>();
        }
        std::memcpy(bytes.data() + at, &v, width); // little-endian: the low bytes
    }
}

/// A desc of operator `op` (0 .. several_count - 1), built around input sizes `sizes`.
/// `tensor(type, sizes)` draws a tensor desc (strides, TotalTensorSizeInBytes, flags) as fuzz_ops
/// does for the other operators; `out_sizes(formula)` derives an output's sizes, or draws any.
template <class Tensor, class OutSizes>
operator_desc make_several(input& in, std::uint8_t op, data_type type, data_type out_type, std::vector<std::uint32_t> sizes,
                           Tensor&& tensor, OutSizes&& out_sizes) {
    const std::size_t rank = sizes.size();
    auto size_at = [&](std::size_t i) { return i < sizes.size() ? std::uint64_t{sizes[i]} : 1; };
    // An axis: inside the rank most of the time.
    auto axis = [&]() -> std::uint32_t {
        const std::uint8_t f = in.byte();
        return f < 0xf0 ? static_cast<std::uint32_t>(rank ? f % rank : 0) : in.raw<std::uint32_t>();
    };
    // JOIN's and SPLIT's parts: up to four (none at all, too, which DirectML refuses), each of
    // `sizes` with its own size on `along`; `add(k, part)` takes each, and may draw itself. Returns
    // the parts' sum along the axis.
    auto draw_parts = [&](std::uint32_t along, auto&& add) {
        const std::size_t parts = in.byte() % 5;
        std::uint64_t total = 0;
        for (std::size_t k = 0; k < parts; ++k) {
            std::vector<std::uint32_t> part = sizes;
            if (along < rank) part[along] = 1 + in.u32(3);
            total += along < rank ? part[along] : 0;
            add(k, part);
        }
        return total;
    };
    // A count next to `near`: equal most of the time, one off or anything sometimes.
    auto count_near = [&](std::size_t near) -> std::uint32_t {
        const std::uint8_t f = in.byte();
        if (f < 0xd0) return static_cast<std::uint32_t>(near);
        if (f < 0xf0) return static_cast<std::uint32_t>(near + f % 3) - 1u;
        return in.raw<std::uint32_t>();
    };
    switch (op) {
    case 0: { // TILE
        std::vector<std::uint32_t> repeats(count_near(rank) % 12);
        for (auto& r : repeats) r = in.u32(4);
        const auto out = out_sizes([&](std::size_t i) { return size_at(i) * (i < repeats.size() ? repeats[i] : 1); });
        return tile_desc{tensor(type, sizes), tensor(out_type, out), repeats};
    }
    case 1: { // UPSAMPLE_2D: the last two axes scaled
        const std::uint32_t width = in.u32(4), height = in.u32(4);
        const auto mode = static_cast<interpolation_mode>(in.u32(3));
        const auto out = out_sizes([&](std::size_t i) {
            return size_at(i) * (i + 1 == rank ? width : i + 2 == rank ? height : 1);
        });
        return upsample_2d_desc{tensor(type, sizes), tensor(out_type, out), {width, height}, mode};
    }
    case 2: { // JOIN: parts of `sizes` with their own sizes on the axis
        join_desc d;
        d.axis = axis();
        const std::uint64_t total = draw_parts(d.axis, [&](std::size_t k, const std::vector<std::uint32_t>& part) {
            d.input_tensors.push_back(tensor(k == 0 ? type : in.byte() < 0xf8 ? type : out_type, part));
        });
        d.output_tensor = tensor(out_type, out_sizes([&](std::size_t i) { return i == d.axis ? total : size_at(i); }));
        return d;
    }
    case 3: { // SPLIT: the input's axis cut into parts
        split_desc d;
        d.axis = axis();
        const std::uint64_t total = draw_parts(
            d.axis, [&](std::size_t, const std::vector<std::uint32_t>& part) { d.output_tensors.push_back(tensor(out_type, part)); });
        std::vector<std::uint32_t> whole = sizes;
        if (d.axis < rank && in.byte() < 0xf0) whole[d.axis] = static_cast<std::uint32_t>(total);
        d.input_tensor = tensor(type, whole);
        return d;
    }
    case 4: { // REVERSE_SUBSEQUENCES: lengths have the input's sizes with 1 on the axis
        reverse_subsequences_desc d;
        d.axis = axis();
        std::vector<std::uint32_t> lengths = sizes;
        if (d.axis < rank && in.byte() < 0xf0) lengths[d.axis] = 1;
        d.input_tensor = tensor(type, sizes);
        d.sequence_lengths_tensor = tensor(index_type(in), lengths);
        d.output_tensor = tensor(out_type, out_sizes([&](std::size_t i) { return size_at(i); }));
        return d;
    }
    case 5: { // GATHER (Axis a, IndexDimensions k)
        const std::uint32_t a = axis(), k = count_near(in.u32(static_cast<std::uint32_t>(rank) + 1));
        std::vector<std::uint32_t> indices(rank, 1);
        for (std::size_t i = rank - std::min<std::size_t>(k, rank); i < rank; ++i) indices[i] = 1 + in.u32(3);
        std::vector<std::uint32_t> logical;
        for (std::size_t i = 0; i < rank && i < a; ++i) logical.push_back(sizes[i]);
        for (std::size_t i = rank - std::min<std::size_t>(k, rank); i < rank; ++i) logical.push_back(indices[i]);
        for (std::size_t i = a + 1; i < rank; ++i) logical.push_back(sizes[i]);
        const auto shaped = right_aligned(logical, rank);
        const auto out = out_sizes([&](std::size_t i) { return i < shaped.size() ? shaped[i] : 1; });
        return gather_desc{tensor(type, sizes), tensor(index_type(in), indices), tensor(out_type, out), a, k};
    }
    case 6: { // GATHER_ELEMENTS: indices have the input's sizes but on the axis
        const std::uint32_t a = axis();
        std::vector<std::uint32_t> indices = sizes;
        if (a < rank) indices[a] = 1 + in.u32(4);
        const auto out = out_sizes([&](std::size_t i) { return i < indices.size() ? indices[i] : 1; });
        return gather_elements_desc{tensor(type, sizes), tensor(index_type(in), indices), tensor(out_type, out), a};
    }
    case 7:
    case 8:
    case 10: { // GATHER_ND, GATHER_ND1, SCATTER_ND: I input axes, J index axes, B batch axes, T = the tuple
        const std::uint32_t inputs = count_near(1 + in.u32(static_cast<std::uint32_t>(rank ? rank : 1)));
        const std::uint32_t batch = op == 8 ? count_near(in.u32(inputs ? inputs : 1)) : 0;
        const std::uint32_t index_axes = count_near(std::min<std::size_t>(rank, batch + 1 + in.u32(3)));
        const std::uint32_t tuple = count_near(1 + in.u32(std::max<std::uint32_t>(1, inputs - std::min(inputs, batch))));
        std::vector<std::uint32_t> in_sizes = sizes, idx(rank, 1);
        for (std::size_t i = 0; i + std::min<std::size_t>(inputs, rank) < rank; ++i) in_sizes[i] = 1; // leading 1s
        const std::size_t in0 = rank - std::min<std::size_t>(inputs, rank), ix0 = rank - std::min<std::size_t>(index_axes, rank);
        for (std::size_t i = ix0; i < rank; ++i) idx[i] = 1 + in.u32(3);
        for (std::size_t b = 0; b < batch && in0 + b < rank && ix0 + b < rank; ++b) idx[ix0 + b] = in_sizes[in0 + b];
        if (rank) idx[rank - 1] = tuple;
        // The logical output: the batch sizes, the index sizes between batch and tuple, the input's
        // sizes past the batch and the tuple.
        std::vector<std::uint32_t> logical;
        for (std::size_t b = 0; b < batch && in0 + b < rank; ++b) logical.push_back(in_sizes[in0 + b]);
        for (std::size_t i = ix0 + batch; i + 1 < rank; ++i) logical.push_back(idx[i]);
        for (std::size_t i = in0 + batch + tuple; i < rank; ++i) logical.push_back(in_sizes[i]);
        const auto shaped = right_aligned(logical, rank);
        const auto out = out_sizes([&](std::size_t i) { return i < shaped.size() ? shaped[i] : 1; });
        if (op == 7) return gather_nd_desc{tensor(type, in_sizes), tensor(index_type(in), idx), tensor(out_type, out), inputs, index_axes};
        if (op == 8)
            return gather_nd1_desc{tensor(type, in_sizes), tensor(index_type(in), idx), tensor(out_type, out), inputs, index_axes, batch};
        return scatter_nd_desc{tensor(type, in_sizes), tensor(index_type(in), idx), tensor(type, out),
                               tensor(out_type, out_sizes([&](std::size_t i) { return in_sizes[i]; })), inputs, index_axes};
    }
    case 9: { // SCATTER_ELEMENTS: indices and updates have the input's sizes but on the axis
        const std::uint32_t a = axis();
        std::vector<std::uint32_t> indices = sizes;
        if (a < rank) indices[a] = 1 + in.u32(4);
        return scatter_elements_desc{tensor(type, sizes), tensor(index_type(in), indices),
                                     tensor(in.byte() < 0xf8 ? type : out_type, indices),
                                     tensor(out_type, out_sizes([&](std::size_t i) { return size_at(i); })), a};
    }
    default: { // ONE_HOT: `sizes` are the output's; the indices have 1 on the axis; two values
        const std::uint32_t a = axis();
        std::vector<std::uint32_t> indices = sizes, values(rank, 1);
        if (a < rank) indices[a] = 1;
        if (rank) values[rank - 1 - in.byte() % rank] = 2 + in.u32(2) - (in.byte() >= 0xf8 ? 2u : 0u);
        return one_hot_desc{tensor(index_type(in), indices), tensor(out_type, values), tensor(out_type, sizes), a};
    }
    }
}

} // namespace dmlref_fuzz
