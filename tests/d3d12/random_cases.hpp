#pragma once
// Random valid descs for the D3D12 tests: every operator, mode, order, block sizes 1 to 4, all 11
// data types, ranks 1 to 8, pads larger than the axis, negative window strides, strided outputs
// (with gaps) and strided, permuted and broadcast inputs. Each generator returns a desc the desc
// layer accepts at the newest feature level.
#include <dmlref/operator.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace d3d12_test {

using rng_t = std::mt19937_64;

inline std::uint32_t pick(rng_t& rng, std::uint32_t low, std::uint32_t high) {
    return std::uniform_int_distribution<std::uint32_t>(low, high)(rng);
}
inline bool chance(rng_t& rng, int percent) { return pick(rng, 0, 99) < static_cast<std::uint32_t>(percent); }

/// A tensor of `sizes`: packed, or with explicit strides in a random axis order with gaps between
/// rows; inputs may also broadcast (stride 0) axes. Sometimes a few spare bytes at the end.
inline dmlref::buffer_tensor_desc tensor(rng_t& rng, dmlref::data_type type, const std::vector<std::uint32_t>& sizes,
                                         bool is_input) {
    std::optional<std::vector<std::uint32_t>> strides;
    const std::uint32_t layout = pick(rng, 0, is_input ? 3 : 2);
    if (layout > 0) {
        std::vector<std::size_t> order(sizes.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i; // innermost first
        if (chance(rng, 50)) std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::uint32_t> s(sizes.size());
        std::uint32_t next = 1;
        for (std::size_t axis : order) {
            s[axis] = next;
            next *= sizes[axis] + (layout >= 2 ? pick(rng, 0, 2) : 0);
        }
        if (layout == 3)
            for (auto& v : s)
                if (chance(rng, 35)) v = 0;
        strides = s;
    }
    auto desc = dmlref::make_buffer_tensor_desc(type, sizes, strides);
    if (chance(rng, 15)) desc.total_tensor_size_in_bytes += 4 * pick(rng, 1, 2);
    return desc;
}

inline dmlref::data_type any_type(rng_t& rng) { return dmlref::movable_data_types[pick(rng, 0, 10)]; }

/// Sizes of `rank` axes with at most about `budget` elements in all.
inline std::vector<std::uint32_t> sizes_for(rng_t& rng, std::size_t rank, std::uint32_t budget = 600) {
    std::vector<std::uint32_t> sizes(rank, 1);
    std::uint64_t count = 1;
    for (auto& s : sizes) {
        const auto room = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, budget / count));
        s = pick(rng, 1, std::min<std::uint32_t>(room, rank <= 2 ? 24 : rank <= 4 ? 7 : 3));
        count *= s;
    }
    return sizes;
}

inline dmlref::operator_desc depth_space(rng_t& rng, int which, dmlref::data_type type) {
    const std::uint32_t b = pick(rng, 1, 4), n = pick(rng, 1, 2), c = pick(rng, 1, 3);
    std::uint32_t h = pick(rng, 1, 3), w = pick(rng, 1, 4);
    if (h == w) w = w % 4 + 1; // H != W: order bugs hide in square blocks
    const std::vector<std::uint32_t> space{n, c, h * b, w * b}, depth{n, c * b * b, h, w};
    const bool to_space = which < 2;
    const auto in = tensor(rng, type, to_space ? depth : space, true);
    const auto out = tensor(rng, type, to_space ? space : depth, false);
    const auto order = static_cast<dmlref::depth_space_order>(pick(rng, 0, 1));
    switch (which) {
    case 0: return dmlref::depth_to_space_desc{in, out, b};
    case 1: return dmlref::depth_to_space1_desc{in, out, b, order};
    case 2: return dmlref::space_to_depth_desc{in, out, b};
    default: return dmlref::space_to_depth1_desc{in, out, b, order};
    }
}

inline dmlref::operator_desc slice(rng_t& rng, bool v1, dmlref::data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    const auto in_sizes = sizes_for(rng, rank);
    std::vector<std::uint32_t> out_sizes(rank), offsets(rank), sizes(rank), strides(rank);
    std::vector<std::int32_t> signed_strides(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::uint32_t n = in_sizes[i];
        offsets[i] = pick(rng, 0, n - 1);
        const std::uint32_t magnitude = pick(rng, 1, 3);
        if (v1) {
            sizes[i] = pick(rng, 1, n - offsets[i]);
            signed_strides[i] = static_cast<std::int32_t>(magnitude) * (chance(rng, 50) ? -1 : 1);
            const std::uint32_t most = 1 + (sizes[i] - 1) / magnitude;
            out_sizes[i] = chance(rng, 75) ? most : pick(rng, 1, most);
        } else {
            strides[i] = magnitude;
            sizes[i] = pick(rng, 1, (n - 1 - offsets[i]) / magnitude + 1);
            out_sizes[i] = sizes[i];
        }
    }
    const auto in = tensor(rng, type, in_sizes, true);
    const auto out = tensor(rng, type, out_sizes, false);
    if (v1) return dmlref::slice1_desc{in, out, offsets, sizes, signed_strides};
    return dmlref::slice_desc{in, out, offsets, sizes, strides};
}

inline dmlref::operator_desc padding(rng_t& rng, bool v1, dmlref::data_type type) {
    const std::size_t rank = pick(rng, 1, 8);
    const auto mode = static_cast<dmlref::padding_mode>(pick(rng, 0, 4));
    const auto in_sizes = sizes_for(rng, rank, rank <= 2 ? 200 : 60);
    std::vector<std::uint32_t> start(rank), end(rank), out_sizes(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::uint32_t n = in_sizes[i];
        const std::uint32_t most = rank <= 2 ? 3 * n + 3 : rank <= 4 ? n + 2 : 1; // pads beyond the axis
        start[i] = pick(rng, 0, most);
        end[i] = pick(rng, 0, most);
        if (mode == dmlref::padding_mode::reflection && n == 1) start[i] = end[i] = 0;
        out_sizes[i] = n + start[i] + end[i];
    }
    const auto in = tensor(rng, type, in_sizes, true);
    const auto out = tensor(rng, type, out_sizes, false);
    if (!v1) {
        const float values[] = {0.0f, -1.5f, 3.75f, 1e30f, -7.0f, 65520.0f};
        return dmlref::padding_desc{in, out, mode, values[pick(rng, 0, 5)], start, end};
    }
    dmlref::scalar_union value;
    for (auto& byte : value.bytes) byte = static_cast<std::uint8_t>(rng());
    return dmlref::padding1_desc{in, out, mode, type, value, start, end};
}

/// Case `index` of a run: the eight operators in turn, any data type.
inline dmlref::operator_desc any_desc(rng_t& rng, std::size_t index) {
    const dmlref::data_type type = any_type(rng);
    switch (index % 8) {
    case 0: case 1: case 2: case 3: return depth_space(rng, static_cast<int>(index % 8), type);
    case 4: return slice(rng, false, type);
    case 5: return slice(rng, true, type);
    case 6: return padding(rng, false, type);
    default: return padding(rng, true, type);
    }
}

inline const dmlref::buffer_tensor_desc& input_of(const dmlref::operator_desc& d) {
    return std::visit([](const auto& x) -> const dmlref::buffer_tensor_desc& { return x.input_tensor; }, d);
}
inline const dmlref::buffer_tensor_desc& output_of(const dmlref::operator_desc& d) {
    return std::visit([](const auto& x) -> const dmlref::buffer_tensor_desc& { return x.output_tensor; }, d);
}

inline std::vector<std::byte> random_bytes(rng_t& rng, std::uint64_t count) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(count));
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    return bytes;
}

} // namespace d3d12_test
