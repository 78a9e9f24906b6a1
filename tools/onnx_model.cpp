// ONNX node tests read back: a one-node model of Pad, Slice, DepthToSpace, SpaceToDepth, Identity,
// Transpose, Expand, Tile, Resize, Concat, Split, ReverseSequence or GatherElements mapped to the
// DirectML desc of the same meaning (PADDING1, SLICE1, DEPTH_TO_SPACE1, SPACE_TO_DEPTH1,
// ELEMENT_WISE_IDENTITY, TILE, UPSAMPLE_2D, JOIN, SPLIT, REVERSE_SUBSEQUENCES and GATHER_ELEMENTS
// on packed tensors; Transpose and Expand as ELEMENT_WISE_IDENTITY reading the
// packed data through permuted or zero strides), run on the reference and compared with the data
// set's outputs (output_K.pb, one per graph output).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dmlref/compare.hpp>

#include "model.hpp"
#include "onnx_common.hpp"
#include "onnx_node_test.hpp"

namespace dmlref::node_test {

namespace {

namespace fs = std::filesystem;

/// Model files and tensors read here are small; this bounds a damaged or hostile one.
std::uint64_t read_limit() { return model::available_memory() / 4; }

npy::array array_of(const onnx::TensorProto& t, const std::string& where) {
    const auto type = detail::data_type_of_onnx(t.data_type());
    if (!type)
        throw validation_error(fmt::format("{}: data_type {} has no DirectML type (the eleven numeric types do)", where, t.data_type()));
    npy::array a;
    a.type = *type;
    for (auto d : t.dims()) {
        if (d < 0) throw validation_error(fmt::format("{}: dims {{{}}} has a negative dimension", where, fmt::join(t.dims(), ", ")));
        a.shape.push_back(static_cast<std::uint64_t>(d));
    }
    const std::size_t width = element_size(*type);
    const auto count = npy::element_count(a.shape);
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
        throw validation_error(fmt::format("{}: external data is not read; write the elements into the file", where));
    if (t.has_raw_data()) {
        if (!count || t.raw_data().size() != *count * width)
            throw validation_error(fmt::format("{}: raw_data holds {} bytes; dims {{{}}} of {} need {}", where, t.raw_data().size(),
                                               fmt::join(a.shape, ", "), to_string(*type), count ? *count * width : 0));
        a.data.resize(t.raw_data().size());
        if (!a.data.empty()) // an empty tensor (Resize's roi) may have no bytes at all to point at
            std::memcpy(a.data.data(), t.raw_data().data(), a.data.size());
        return a;
    }
    // The typed fields ONNX's helpers write when not asked for raw_data.
    auto take = [&](const auto& field, auto as) {
        using T = decltype(as);
        if (!count || static_cast<std::uint64_t>(field.size()) != *count)
            throw validation_error(fmt::format("{}: {} values for dims {{{}}}", where, field.size(), fmt::join(a.shape, ", ")));
        a.data.resize(*count * width);
        for (int i = 0; i < field.size(); ++i) {
            const T v = static_cast<T>(field.Get(i));
            std::memcpy(a.data.data() + static_cast<std::size_t>(i) * width, &v, width);
        }
    };
    switch (*type) {
    case data_type::float32: take(t.float_data(), float{}); break;
    case data_type::float64: take(t.double_data(), double{}); break;
    case data_type::int64: take(t.int64_data(), std::int64_t{}); break;
    case data_type::uint32: take(t.uint64_data(), std::uint32_t{}); break;
    case data_type::uint64: take(t.uint64_data(), std::uint64_t{}); break;
    case data_type::int32: take(t.int32_data(), std::int32_t{}); break;
    case data_type::int16: take(t.int32_data(), std::int16_t{}); break;
    case data_type::int8: take(t.int32_data(), std::int8_t{}); break;
    case data_type::uint16: case data_type::float16: take(t.int32_data(), std::uint16_t{}); break;
    case data_type::uint8: take(t.int32_data(), std::uint8_t{}); break;
    default: break;
    }
    return a;
}

onnx::TensorProto parse_tensor(const fs::path& path) {
    const auto bytes = model::read_regular_file(path, read_limit());
    onnx::TensorProto t;
    if (!t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        throw validation_error(fmt::format("{}: not a TensorProto", path.string()));
    return t;
}

/// The integers of an index input (int64, or int32 where the schema allows it).
std::vector<std::int64_t> integers(const npy::array& a, const std::string& where) {
    std::vector<std::int64_t> v;
    if (a.type == data_type::int64) {
        v.resize(a.data.size() / 8);
        if (!v.empty()) std::memcpy(v.data(), a.data.data(), v.size() * 8);
    } else if (a.type == data_type::int32) {
        for (std::size_t i = 0; i < a.data.size() / 4; ++i) {
            std::int32_t x;
            std::memcpy(&x, a.data.data() + 4 * i, 4);
            v.push_back(x);
        }
    } else {
        throw validation_error(fmt::format("{} is {}; it must be int64 (or int32)", where, to_string(a.type)));
    }
    return v;
}

/// The node being mapped, for messages: "model.onnx: node 0 (Pad)".
struct node_context {
    std::string label;
    [[noreturn]] void fail(std::string_view what) const { throw validation_error(fmt::format("{}: {}", label, what)); }
};

buffer_tensor_desc packed(data_type type, std::vector<std::uint32_t> sizes) {
    buffer_tensor_desc d;
    d.data_type = type;
    d.sizes = std::move(sizes);
    d.total_tensor_size_in_bytes = calc_buffer_tensor_size(d);
    return d;
}

std::vector<std::uint32_t> dml_sizes(const node_context& node, const npy::array& data, std::size_t min_rank, std::size_t max_rank) {
    if (data.shape.size() < min_rank || data.shape.size() > max_rank)
        node.fail(fmt::format("the data input has {} dimensions; the DirectML operator takes {}", data.shape.size(),
                              min_rank == max_rank ? fmt::format("{}", min_rank) : fmt::format("{} to {}", min_rank, max_rank)));
    std::vector<std::uint32_t> sizes;
    for (std::size_t k = 0; k < data.shape.size(); ++k) {
        if (data.shape[k] == 0 || data.shape[k] > UINT32_MAX)
            node.fail(fmt::format("the data input's axis {} has size {}; DirectML sizes are 1 to 2^32-1", k, data.shape[k]));
        sizes.push_back(static_cast<std::uint32_t>(data.shape[k]));
    }
    return sizes;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, std::string_view name) {
    for (const auto& a : n.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

void only_attributes(const node_context& node, const onnx::NodeProto& n, std::initializer_list<std::string_view> known) {
    for (const auto& a : n.attribute())
        if (std::find(known.begin(), known.end(), a.name()) == known.end())
            node.fail(fmt::format("attribute '{}' has no DirectML form here", a.name()));
}

operator_desc map_pad(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                      const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {"mode"});
    if (opset < 11) node.fail(fmt::format("opset {} gives pads as an attribute; only Pad-11 and later (pads as an input) are mapped", opset));
    const auto sizes = dml_sizes(node, data, 1, 8);
    const std::size_t rank = sizes.size();
    std::string mode = "constant";
    if (const auto* a = attribute(n, "mode")) mode = a->s();
    padding_mode dml_mode;
    if (mode == "constant") dml_mode = padding_mode::constant;
    else if (mode == "edge") dml_mode = padding_mode::edge;
    else if (mode == "reflect") dml_mode = padding_mode::reflection;
    else if (mode == "wrap") dml_mode = padding_mode::wrap;
    else node.fail(fmt::format("attribute mode '{}' has no DirectML PADDING1 mode", mode));
    if (inputs.size() < 2 || !inputs[1]) node.fail("input 'pads' is missing");
    const auto pads = integers(*inputs[1], node.label + ": input 'pads'");
    std::vector<std::int64_t> axes;
    if (inputs.size() > 3 && inputs[3]) {
        for (auto axis : integers(*inputs[3], node.label + ": input 'axes'")) {
            if (axis < -static_cast<std::int64_t>(rank) || axis >= static_cast<std::int64_t>(rank))
                node.fail(fmt::format("input 'axes' names axis {} of a {}-dimensional input", axis, rank));
            axes.push_back(axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis);
        }
    } else {
        for (std::size_t k = 0; k < rank; ++k) axes.push_back(static_cast<std::int64_t>(k));
    }
    if (pads.size() != 2 * axes.size())
        node.fail(fmt::format("input 'pads' has {} values; {} axes need {}", pads.size(), axes.size(), 2 * axes.size()));
    std::vector<std::uint32_t> start(rank, 0), end(rank, 0), out_sizes(sizes);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto axis = static_cast<std::size_t>(axes[i]);
        for (std::size_t side = 0; side < 2; ++side) {
            const std::size_t index = i + side * axes.size();
            const std::int64_t pad = pads[index];
            if (pad < 0)
                node.fail(fmt::format("input pads[{}]={} is negative (cropping); DirectML PADDING1 pads are unsigned", index, pad));
            if (dml_mode == padding_mode::reflection && pad >= sizes[axis])
                node.fail(fmt::format("mode 'reflect' with pads[{}]={} >= axis size {} has no DirectML PADDING1 form", index, pad,
                                      sizes[axis]));
            if (pad > UINT32_MAX) node.fail(fmt::format("input pads[{}]={} exceeds 32 bits", index, pad));
            (side == 0 ? start : end)[axis] = static_cast<std::uint32_t>(pad);
        }
        const std::uint64_t total = std::uint64_t{sizes[axis]} + start[axis] + end[axis];
        if (total > UINT32_MAX) node.fail(fmt::format("axis {} pads to {} elements, more than 2^32-1", axis, total));
        out_sizes[axis] = static_cast<std::uint32_t>(total);
    }
    scalar_union value;
    if (inputs.size() > 2 && inputs[2]) {
        const npy::array& c = *inputs[2];
        if (c.type != data.type)
            node.fail(fmt::format("input 'constant_value' is {}; the data is {}", to_string(c.type), to_string(data.type)));
        if (c.data.size() != element_size(c.type)) node.fail("input 'constant_value' is not one element");
        std::memcpy(value.bytes.data(), c.data.data(), c.data.size());
    }
    return padding1_desc{packed(data.type, sizes), packed(data.type, out_sizes), dml_mode, data.type, value, start, end};
}

operator_desc map_slice(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                        const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {});
    if (opset < 10) node.fail(fmt::format("opset {} gives starts and ends as attributes; only Slice-10 and later are mapped", opset));
    const auto sizes = dml_sizes(node, data, 1, 8);
    const auto rank = static_cast<std::int64_t>(sizes.size());
    if (inputs.size() < 3 || !inputs[1] || !inputs[2]) node.fail("inputs 'starts' and 'ends' are required");
    const auto starts = integers(*inputs[1], node.label + ": input 'starts'");
    const auto ends = integers(*inputs[2], node.label + ": input 'ends'");
    std::vector<std::int64_t> axes, steps;
    if (inputs.size() > 3 && inputs[3]) axes = integers(*inputs[3], node.label + ": input 'axes'");
    else for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
    if (inputs.size() > 4 && inputs[4]) steps = integers(*inputs[4], node.label + ": input 'steps'");
    else steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        node.fail(fmt::format("inputs starts, ends, axes and steps have {}, {}, {} and {} values; they must agree", starts.size(),
                              ends.size(), axes.size(), steps.size()));
    std::vector<std::uint32_t> offsets(sizes.size(), 0), windows(sizes), out_sizes(sizes);
    std::vector<std::int32_t> strides(sizes.size(), 1);
    std::vector<bool> seen(sizes.size(), false);
    for (std::size_t i = 0; i < starts.size(); ++i) {
        std::int64_t axis = axes[i];
        if (axis < -rank || axis >= rank) node.fail(fmt::format("input axes[{}]={} is outside a {}-dimensional input", i, axis, rank));
        if (axis < 0) axis += rank;
        const auto a = static_cast<std::size_t>(axis);
        if (seen[a]) node.fail(fmt::format("input 'axes' names axis {} twice", axis));
        seen[a] = true;
        const std::int64_t dim = sizes[a], step = steps[i];
        if (step == 0) node.fail(fmt::format("input steps[{}]=0", i));
        // Slice-11's rules: a negative index counts from the end; starts clamp to [0, dim] (step > 0)
        // or [0, dim-1] (step < 0), ends to [0, dim] or [-1, dim-1].
        auto adjust = [&](std::int64_t v, std::int64_t low, std::int64_t high) {
            if (v < 0) v = v < -dim ? -1 : v + dim;
            return std::clamp(v, low, high);
        };
        const std::int64_t start = step > 0 ? adjust(starts[i], 0, dim) : adjust(starts[i], 0, dim - 1);
        const std::int64_t end = step > 0 ? adjust(ends[i], 0, dim) : adjust(ends[i], -1, dim - 1);
        const std::int64_t span = step > 0 ? end - start : start - end;
        const std::int64_t magnitude = step == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max()
                                                                                       : (step < 0 ? -step : step);
        const std::int64_t count = span <= 0 ? 0 : 1 + (span - 1) / magnitude;
        if (count == 0)
            node.fail(fmt::format("axis {} selects no element (starts[{}]={}, ends[{}]={}, steps[{}]={}); DirectML tensors have no "
                                  "empty dimension",
                                  axis, i, starts[i], i, ends[i], i, step));
        if (count == 1) { // one element: any step reads it
            offsets[a] = static_cast<std::uint32_t>(start);
            windows[a] = 1;
            strides[a] = 1;
        } else {
            const std::int64_t last = start + (count - 1) * step;
            offsets[a] = static_cast<std::uint32_t>(std::min(start, last));
            windows[a] = static_cast<std::uint32_t>((start < last ? last - start : start - last) + 1);
            if (magnitude > INT32_MAX) node.fail(fmt::format("input steps[{}]={} exceeds SLICE1's 32-bit strides", i, step));
            strides[a] = static_cast<std::int32_t>(step);
        }
        out_sizes[a] = static_cast<std::uint32_t>(count);
    }
    return slice1_desc{packed(data.type, sizes), packed(data.type, out_sizes), offsets, windows, strides};
}

operator_desc map_depth_space(const node_context& node, const onnx::NodeProto& n, const npy::array& data, bool to_space) {
    only_attributes(node, n, {"blocksize", "mode"});
    const auto sizes = dml_sizes(node, data, 4, 4);
    const auto* b = attribute(n, "blocksize");
    if (!b) node.fail("attribute 'blocksize' is missing");
    if (b->i() < 1 || b->i() > UINT32_MAX) node.fail(fmt::format("attribute blocksize={} is not a DirectML BlockSize", b->i()));
    const auto block = static_cast<std::uint32_t>(b->i());
    std::string mode = "DCR";
    if (const auto* m = attribute(n, "mode")) mode = m->s();
    if (mode != "DCR" && mode != "CRD") node.fail(fmt::format("attribute mode '{}' is neither DCR nor CRD", mode));
    const auto order = mode == "DCR" ? depth_space_order::depth_column_row : depth_space_order::column_row_depth;
    const std::uint64_t bb = std::uint64_t{block} * block;
    if (to_space) {
        if (sizes[1] % bb != 0)
            node.fail(fmt::format("attribute blocksize={}: the {} channels are not a multiple of {}", block, sizes[1], bb));
        const std::uint64_t h = std::uint64_t{sizes[2]} * block, w = std::uint64_t{sizes[3]} * block;
        if (h > UINT32_MAX || w > UINT32_MAX) node.fail(fmt::format("attribute blocksize={} makes the output larger than 2^32-1", block));
        return depth_to_space1_desc{packed(data.type, sizes),
                                    packed(data.type, {sizes[0], static_cast<std::uint32_t>(sizes[1] / bb),
                                                       static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(w)}),
                                    block, order};
    }
    if (sizes[2] % block != 0 || sizes[3] % block != 0)
        node.fail(fmt::format("attribute blocksize={} does not divide the height {} and width {}", block, sizes[2], sizes[3]));
    const std::uint64_t c = sizes[1] * bb;
    if (c > UINT32_MAX) node.fail(fmt::format("attribute blocksize={} makes more than 2^32-1 channels", block));
    return space_to_depth1_desc{packed(data.type, sizes),
                                packed(data.type, {sizes[0], static_cast<std::uint32_t>(c), sizes[2] / block, sizes[3] / block}),
                                block, order};
}

operator_desc map_identity(const node_context& node, const onnx::NodeProto& n, const npy::array& data) {
    only_attributes(node, n, {});
    const auto sizes = dml_sizes(node, data, 1, 8);
    return element_wise_identity_desc{packed(data.type, sizes), packed(data.type, sizes), std::nullopt};
}

/// Transpose: IDENTITY reading the data's packed elements through permuted strides (output axis
/// i reads data axis perm[i]).
operator_desc map_transpose(const node_context& node, const onnx::NodeProto& n, const npy::array& data) {
    only_attributes(node, n, {"perm"});
    const auto sizes = dml_sizes(node, data, 1, 8);
    const std::size_t rank = sizes.size();
    std::vector<std::int64_t> perm;
    if (const auto* a = attribute(n, "perm")) perm.assign(a->ints().begin(), a->ints().end());
    else for (std::size_t k = rank; k-- > 0;) perm.push_back(static_cast<std::int64_t>(k)); // reversed, ONNX's default
    std::vector<bool> seen(rank, false);
    if (perm.size() != rank) node.fail(fmt::format("attribute perm has {} entries; the data has {} dimensions", perm.size(), rank));
    for (std::size_t i = 0; i < rank; ++i) {
        if (perm[i] < 0 || perm[i] >= static_cast<std::int64_t>(rank) || seen[static_cast<std::size_t>(perm[i])])
            node.fail(fmt::format("attribute perm {} is not a permutation of 0 to {}", fmt::join(perm, ", "), rank - 1));
        seen[static_cast<std::size_t>(perm[i])] = true;
    }
    const buffer_tensor_desc held = packed(data.type, sizes);
    const std::vector<std::uint32_t> data_strides = packed_strides(sizes);
    buffer_tensor_desc in = held;
    std::vector<std::uint32_t> strides(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        in.sizes[i] = sizes[static_cast<std::size_t>(perm[i])];
        strides[i] = data_strides[static_cast<std::size_t>(perm[i])];
    }
    in.strides = strides;
    return element_wise_identity_desc{in, packed(data.type, in.sizes), std::nullopt};
}

/// Expand: IDENTITY broadcasting the data's axes of size 1 (stride 0) to numpy's broadcast of the
/// data's shape and input 'shape', aligned at the last axis.
operator_desc map_expand(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                         const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {});
    if (opset < 8) node.fail(fmt::format("opset {} has no Expand (Expand-8 is the first)", opset));
    if (inputs.size() < 2 || !inputs[1]) node.fail("input 'shape' is required");
    const auto shape = integers(*inputs[1], node.label + ": input 'shape'");
    const auto sizes = dml_sizes(node, data, 1, 8);
    const std::size_t rank = std::max(sizes.size(), shape.size());
    if (rank > 8) node.fail(fmt::format("the output has {} dimensions; DirectML tensors have at most 8", rank));
    const std::vector<std::uint32_t> data_strides = packed_strides(sizes);
    std::vector<std::uint32_t> out_sizes(rank), strides(rank, 0);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::size_t from_end = rank - 1 - i;
        const bool has_data = from_end < sizes.size(), has_shape = from_end < shape.size();
        const std::uint64_t d = has_data ? sizes[sizes.size() - 1 - from_end] : 1;
        const std::int64_t s = has_shape ? shape[shape.size() - 1 - from_end] : 1;
        if (s < 1 || s > static_cast<std::int64_t>(UINT32_MAX))
            node.fail(fmt::format("input shape holds {}; DirectML sizes are 1 to 2^32-1", s));
        if (d != 1 && s != 1 && static_cast<std::uint64_t>(s) != d)
            node.fail(fmt::format("input shape's {} does not broadcast with the data's {} (axis {} of the output)", s, d, i));
        out_sizes[i] = static_cast<std::uint32_t>(d != 1 ? d : static_cast<std::uint64_t>(s));
        if (has_data && d != 1) strides[i] = data_strides[sizes.size() - 1 - from_end];
    }
    buffer_tensor_desc in = packed(data.type, out_sizes);
    in.strides = strides;
    in.total_tensor_size_in_bytes = packed(data.type, sizes).total_tensor_size_in_bytes;
    return element_wise_identity_desc{in, packed(data.type, out_sizes), std::nullopt};
}

/// Tile: TILE with input 'repeats' (one per axis) as its Repeats.
operator_desc map_tile(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                       const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {});
    if (opset < 6) node.fail(fmt::format("opset {} has Tile-1 (tiles and axis inputs); Tile-6 and later are mapped", opset));
    if (inputs.size() < 2 || !inputs[1]) node.fail("input 'repeats' is required");
    const auto repeats = integers(*inputs[1], node.label + ": input 'repeats'");
    const auto sizes = dml_sizes(node, data, 1, 8);
    if (repeats.size() != sizes.size())
        node.fail(fmt::format("input repeats has {} entries; the data has {} dimensions", repeats.size(), sizes.size()));
    std::vector<std::uint32_t> dml_repeats, out_sizes;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const std::int64_t r = repeats[i];
        if (r < 1 || r > static_cast<std::int64_t>(UINT32_MAX))
            node.fail(fmt::format("input repeats holds {} on axis {}; DirectML's Repeats are 1 to 2^32-1", r, i));
        const std::uint64_t size = std::uint64_t{sizes[i]} * static_cast<std::uint64_t>(r);
        if (size > UINT32_MAX) node.fail(fmt::format("axis {}: {} x {} exceeds DirectML's 2^32-1 sizes", i, sizes[i], r));
        dml_repeats.push_back(static_cast<std::uint32_t>(r));
        out_sizes.push_back(static_cast<std::uint32_t>(size));
    }
    return tile_desc{packed(data.type, sizes), packed(data.type, out_sizes), dml_repeats};
}

/// Resize (opset 11 on) as UPSAMPLE_2D NEAREST_NEIGHBOR: mode "nearest" with float scales that
/// are 1 on every axis but the last two, and whole numbers there. Two coordinate transformations
/// mean pixel replication, Out[..., y, x] = In[..., floor(y / Height), floor(x / Width)], for
/// whole scales: "asymmetric" with nearest_mode "floor" (the input coordinate is y / Height,
/// rounded down), and "half_pixel" (Resize's default) with nearest_mode "round_prefer_floor" (the
/// default) or "round_prefer_ceil": with y = q * Height + r, the input coordinate
/// (y + 0.5) / Height - 0.5 = q + ((r + 0.5) / Height - 0.5) lies strictly between q - 0.5 and
/// q + 0.5, so it rounds to q and never ties. Any other pair, or a scale that is not whole, is
/// refused.
operator_desc map_resize(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                         const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {"mode", "coordinate_transformation_mode", "nearest_mode"});
    if (opset < 11)
        node.fail(fmt::format("opset {} has Resize-10, which names no coordinate transformation or rounding; Resize-11 and "
                              "later are mapped", opset));
    auto text = [&](std::string_view name, std::string fallback) {
        const auto* a = attribute(n, name);
        return a ? a->s() : fallback;
    };
    const std::string mode = text("mode", "nearest"), transform = text("coordinate_transformation_mode", "half_pixel"),
                      rounding = text("nearest_mode", "round_prefer_floor");
    if (mode != "nearest") node.fail(fmt::format("attribute mode '{}' computes; only 'nearest' moves data", mode));
    const bool replicates = (transform == "asymmetric" && rounding == "floor") ||
                            (transform == "half_pixel" && (rounding == "round_prefer_floor" || rounding == "round_prefer_ceil"));
    if (!replicates)
        node.fail(fmt::format("coordinate_transformation_mode '{}' with nearest_mode '{}' is not pixel replication (asymmetric "
                              "with floor, and half_pixel with round_prefer_floor or round_prefer_ceil, are)",
                              transform, rounding));
    if (inputs.size() < 3 || !inputs[2] || inputs[2]->data.empty())
        node.fail("input 'scales' is required (output sizes given as 'sizes' are not mapped)");
    if (inputs.size() > 3 && inputs[3] && !inputs[3]->data.empty()) node.fail("input 'sizes' is given as well as 'scales'");
    const npy::array& scales_input = *inputs[2];
    if (scales_input.type != data_type::float32) node.fail(fmt::format("input 'scales' is {}; it must be float", to_string(scales_input.type)));
    std::vector<float> scales(scales_input.data.size() / 4);
    std::memcpy(scales.data(), scales_input.data.data(), scales.size() * 4);
    const auto sizes = dml_sizes(node, data, 4, 5);
    if (scales.size() != sizes.size())
        node.fail(fmt::format("input scales has {} entries; the data has {} dimensions", scales.size(), sizes.size()));
    std::vector<std::uint32_t> out_sizes = sizes;
    std::uint32_t whole[2] = {}; // height, width
    for (std::size_t i = 0; i < scales.size(); ++i) {
        const float s = scales[i];
        const bool scaled = i + 2 >= scales.size();
        if (!scaled && s != 1.0f)
            node.fail(fmt::format("input scales holds {} on axis {}; UPSAMPLE_2D scales the last two axes only", s, i));
        if (!(s >= 1.0f && s <= 4294967295.0f && s == std::floor(s)))
            node.fail(fmt::format("input scales holds {} on axis {}; UPSAMPLE_2D's ScaleSize is a whole number of at least 1", s, i));
        const auto factor = static_cast<std::uint64_t>(s);
        const std::uint64_t size = std::uint64_t{sizes[i]} * factor;
        if (size > UINT32_MAX) node.fail(fmt::format("axis {}: {} x {} exceeds DirectML's 2^32-1 sizes", i, sizes[i], factor));
        out_sizes[i] = static_cast<std::uint32_t>(size);
        if (scaled) whole[i + 2 - scales.size()] = static_cast<std::uint32_t>(factor);
    }
    return upsample_2d_desc{packed(data.type, sizes), packed(data.type, out_sizes), size_2d{whole[1], whole[0]},
                            interpolation_mode::nearest_neighbor};
}

/// An ONNX axis attribute as a DirectML Axis: [0, rank), or from `negative_from` on (the opset
/// where the operator takes them) [-rank, rank), counting from the end.
std::uint32_t axis_of(const node_context& node, std::int64_t axis, std::size_t rank, std::int64_t opset, std::int64_t negative_from) {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < 0 && opset < negative_from)
        node.fail(fmt::format("attribute axis={} is negative, which opset {} does not allow (opset {} and later count it from the end)",
                              axis, opset, negative_from));
    if (axis < -r || axis >= r)
        node.fail(fmt::format("attribute axis={} is outside a {}-dimensional input (axes {} to {})", axis, rank,
                              opset < negative_from ? 0 : -r, r - 1));
    return static_cast<std::uint32_t>(axis < 0 ? axis + r : axis);
}

/// Concat (opset 1 on) as JOIN: every input one of InputTensors, in order; Axis the `axis`
/// attribute (Concat-1's default 1 where it is left out; required from Concat-4; negative from
/// Concat-11).
operator_desc map_concat(const node_context& node, const onnx::NodeProto& n, std::int64_t opset,
                         const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {"axis"});
    std::vector<std::vector<std::uint32_t>> sizes;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (!inputs[k]) node.fail(fmt::format("input {} is left out (an empty name); Concat joins every input", k));
        const npy::array& a = *inputs[k];
        if (a.type != inputs[0]->type)
            node.fail(fmt::format("input {} ('{}') is {}; input 0 is {}", k, n.input(static_cast<int>(k)), to_string(a.type),
                                  to_string(inputs[0]->type)));
        if (a.shape.size() != inputs[0]->shape.size())
            node.fail(fmt::format("input {} ('{}') has {} dimensions; input 0 has {}", k, n.input(static_cast<int>(k)), a.shape.size(),
                                  inputs[0]->shape.size()));
        const node_context part{fmt::format("{}: input {} ('{}')", node.label, k, n.input(static_cast<int>(k)))};
        sizes.push_back(dml_sizes(part, a, 1, 8));
    }
    const std::size_t rank = sizes[0].size();
    const auto* a = attribute(n, "axis");
    if (!a && opset >= 4) node.fail(fmt::format("attribute 'axis' is missing (Concat-{} requires it)", opset));
    const std::uint32_t axis = axis_of(node, a ? a->i() : 1, rank, opset, 11);
    std::vector<std::uint32_t> out_sizes = sizes[0];
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        for (std::size_t i = 0; i < rank; ++i)
            if (i != axis && sizes[k][i] != sizes[0][i])
                node.fail(fmt::format("input {} has size {} on axis {}; input 0 has {} (only axis {} may differ)", k, sizes[k][i], i,
                                      sizes[0][i], axis));
        total += sizes[k][axis];
    }
    if (total > UINT32_MAX) node.fail(fmt::format("the inputs join to {} elements on axis {}, more than 2^32-1", total, axis));
    out_sizes[axis] = static_cast<std::uint32_t>(total);
    join_desc d;
    for (const auto& s : sizes) d.input_tensors.push_back(packed(inputs[0]->type, s));
    d.output_tensor = packed(inputs[0]->type, out_sizes);
    d.axis = axis;
    return d;
}

/// Split as SPLIT: one OutputTensors entry per node output, in order; Axis the `axis` attribute
/// (default 0, negative from Split-11). The parts' sizes on the axis: `split` (an attribute in
/// Split-2..12, an input in Split-1 and from Split-13 on), else Split-18's `num_outputs` (parts of
/// ceil(size / num_outputs), the last what remains), else equal parts (which must divide the axis).
operator_desc map_split(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                        const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {"axis", "split", "num_outputs"});
    const auto sizes = dml_sizes(node, data, 1, 8);
    const auto* a = attribute(n, "axis");
    const std::uint32_t axis = axis_of(node, a ? a->i() : 0, sizes.size(), opset, 11);
    const std::uint32_t dim = sizes[axis];
    const auto count = static_cast<std::size_t>(n.output_size());
    std::optional<std::vector<std::int64_t>> split;
    if (const auto* s = attribute(n, "split")) {
        if (opset >= 13) node.fail(fmt::format("attribute 'split' is Split-2..12's; Split-{} takes split as an input", opset));
        split.emplace(s->ints().begin(), s->ints().end());
    }
    if (inputs.size() > 1 && inputs[1]) {
        if (opset >= 2 && opset < 13) node.fail(fmt::format("Split-{} takes one input; 'split' is an attribute there", opset));
        if (split) node.fail("split is given both as an attribute and as an input");
        split = integers(*inputs[1], node.label + ": input 'split'");
    }
    const auto* num = attribute(n, "num_outputs");
    if (num && opset < 18) node.fail(fmt::format("attribute 'num_outputs' is Split-18's; this model imports opset {}", opset));
    if (num && split) node.fail("both 'split' and attribute 'num_outputs' are given (Split-18 takes one of them)");
    std::vector<std::int64_t> parts;
    if (split) {
        parts = *split;
        if (parts.size() != count)
            node.fail(fmt::format("split has {} entries {{{}}}; the node has {} outputs", parts.size(), fmt::join(parts, ", "), count));
    } else if (num) {
        if (num->i() != static_cast<std::int64_t>(count))
            node.fail(fmt::format("attribute num_outputs={}; the node has {} outputs", num->i(), count));
        const std::int64_t chunk = (dim + num->i() - 1) / num->i();
        parts.assign(count, chunk);
        parts.back() = dim - chunk * static_cast<std::int64_t>(count - 1);
    } else {
        if (opset >= 18) node.fail("neither input 'split' nor attribute 'num_outputs' is given (Split-18 needs one)");
        if (dim % count != 0)
            node.fail(fmt::format("axis {} has size {}, which {} equal parts do not divide (no 'split' is given)", axis, dim, count));
        parts.assign(count, dim / static_cast<std::int64_t>(count));
    }
    std::int64_t total = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (parts[k] < 1)
            node.fail(fmt::format("output {} gets {} elements on axis {} (split {{{}}}); DirectML tensors have no empty dimension", k,
                                  parts[k], axis, fmt::join(parts, ", ")));
        total += std::min<std::int64_t>(parts[k], std::int64_t{UINT32_MAX} + 1);
    }
    if (total != dim)
        node.fail(fmt::format("split {{{}}} adds up to {}; axis {} has size {}", fmt::join(parts, ", "), total, axis, dim));
    split_desc d;
    d.input_tensor = packed(data.type, sizes);
    for (const std::int64_t part : parts) {
        auto out = sizes;
        out[axis] = static_cast<std::uint32_t>(part);
        d.output_tensors.push_back(packed(data.type, out));
    }
    d.axis = axis;
    return d;
}

/// ReverseSequence (opset 10 on) as REVERSE_SUBSEQUENCES: Axis = time_axis (default 0), the
/// lengths UINT64 of the input's sizes with 1 on Axis, each sequence_lens[i] laid along batch_axis
/// (default 1; the other of axes 0 and 1). Lengths outside [0, the time axis's size] are refused
/// (ReverseSequence does not define them; ONNX Runtime refuses them).
operator_desc map_reverse_sequence(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                                   const std::vector<std::optional<npy::array>>& inputs, npy::array& lengths_out) {
    only_attributes(node, n, {"batch_axis", "time_axis"});
    if (opset < 10) node.fail(fmt::format("ReverseSequence came with opset 10; this model imports opset {}", opset));
    const auto sizes = dml_sizes(node, data, 2, 8);
    const auto* b = attribute(n, "batch_axis");
    const auto* t = attribute(n, "time_axis");
    const std::int64_t batch = b ? b->i() : 1, time = t ? t->i() : 0;
    if ((batch != 0 && batch != 1) || (time != 0 && time != 1) || batch == time)
        node.fail(fmt::format("attributes batch_axis={} and time_axis={}: ReverseSequence takes 0 and 1, one each", batch, time));
    if (inputs.size() < 2 || !inputs[1]) node.fail("input 'sequence_lens' is missing");
    const npy::array& s = *inputs[1];
    if (s.type != data_type::int64) node.fail(fmt::format("input 'sequence_lens' is {}; ReverseSequence takes int64", to_string(s.type)));
    const auto batch_size = sizes[static_cast<std::size_t>(batch)], time_size = sizes[static_cast<std::size_t>(time)];
    if (s.shape.size() != 1 || s.shape[0] != batch_size)
        node.fail(fmt::format("input 'sequence_lens' has shape {{{}}}; batch_axis {} has size {}, so it must be {{{}}}",
                              fmt::join(s.shape, ", "), batch, batch_size, batch_size));
    const auto lens = integers(s, node.label + ": input 'sequence_lens'");
    for (std::size_t i = 0; i < lens.size(); ++i)
        if (lens[i] < 0 || lens[i] > std::int64_t{time_size})
            node.fail(fmt::format("input sequence_lens[{}]={} is outside [0, {}] (time_axis {}'s size)", i, lens[i], time_size, time));
    auto lsizes = sizes;
    lsizes[static_cast<std::size_t>(time)] = 1;
    lengths_out = npy::array{data_type::uint64, {lsizes.begin(), lsizes.end()}, {}};
    const std::uint64_t count = element_count(lsizes);
    lengths_out.data.resize(static_cast<std::size_t>(count) * 8);
    std::uint64_t inner = 1; // elements per index of batch_axis
    for (std::size_t k = static_cast<std::size_t>(batch) + 1; k < lsizes.size(); ++k) inner *= lsizes[k];
    for (std::uint64_t e = 0; e < count; ++e) {
        const auto v = static_cast<std::uint64_t>(lens[static_cast<std::size_t>((e / inner) % batch_size)]);
        std::memcpy(lengths_out.data.data() + e * 8, &v, 8);
    }
    return reverse_subsequences_desc{packed(data.type, sizes), packed(data_type::uint64, lsizes), packed(data.type, sizes),
                                     static_cast<std::uint32_t>(time)};
}

/// GatherElements (opset 11 on) as GATHER_ELEMENTS: Axis = axis (default 0, negative counting from
/// the end), indices INT32 or INT64 as given, negative ones counting from the end as both define
/// them. DirectML's indices have the data's sizes on every axis but Axis; an index outside
/// [-s, s-1] is refused (GatherElements calls it an error).
operator_desc map_gather_elements(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                                  const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {"axis"});
    if (opset < 11) node.fail(fmt::format("GatherElements came with opset 11; this model imports opset {}", opset));
    const auto sizes = dml_sizes(node, data, 1, 8);
    if (inputs.size() < 2 || !inputs[1]) node.fail("input 'indices' is missing");
    const npy::array& idx = *inputs[1];
    if (idx.type != data_type::int32 && idx.type != data_type::int64)
        node.fail(fmt::format("input 'indices' is {}; GatherElements takes int32 or int64", to_string(idx.type)));
    if (idx.shape.size() != sizes.size())
        node.fail(fmt::format("input 'indices' has {} dimensions; the data has {}", idx.shape.size(), sizes.size()));
    const node_context part{node.label + ": input 'indices'"};
    const auto isizes = dml_sizes(part, idx, 1, 8);
    const auto* a = attribute(n, "axis");
    const std::uint32_t axis = axis_of(node, a ? a->i() : 0, sizes.size(), opset, 11);
    for (std::size_t k = 0; k < sizes.size(); ++k)
        if (k != axis && isizes[k] != sizes[k])
            node.fail(fmt::format("input 'indices' has size {} on axis {}; the data has {} (DirectML's GATHER_ELEMENTS takes "
                                  "the data's sizes on every axis but axis {})",
                                  isizes[k], k, sizes[k], axis));
    const auto values = integers(idx, node.label + ": input 'indices'");
    const std::int64_t s = sizes[axis];
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] < -s || values[i] >= s)
            node.fail(fmt::format("input indices[{}]={} is outside [{}, {}] (axis {}'s size is {})", i, values[i], -s, s - 1, axis, s));
    return gather_elements_desc{packed(data.type, sizes), packed(idx.type, isizes), packed(data.type, isizes), axis};
}

/// `sizes` right-aligned into `n` dimensions with leading 1s (as DirectML's indexed operators pad
/// their tensors to one DimensionCount).
std::vector<std::uint32_t> padded_to(const std::vector<std::uint32_t>& sizes, std::size_t n) {
    std::vector<std::uint32_t> out(n - sizes.size(), 1);
    out.insert(out.end(), sizes.begin(), sizes.end());
    return out;
}

/// Index input `k`, named `name`: present, int64 (or int32 where `int32_ok`); its sizes.
std::vector<std::uint32_t> index_sizes(const node_context& node, const std::vector<std::optional<npy::array>>& inputs, std::size_t k,
                                       std::string_view name, bool int32_ok, std::size_t min_rank) {
    if (inputs.size() <= k || !inputs[k]) node.fail(fmt::format("input '{}' is missing", name));
    const npy::array& idx = *inputs[k];
    if (idx.type != data_type::int64 && !(int32_ok && idx.type == data_type::int32))
        node.fail(fmt::format("input '{}' is {}; the operator takes {}", name, to_string(idx.type), int32_ok ? "int32 or int64" : "int64"));
    return dml_sizes(node_context{fmt::format("{}: input '{}'", node.label, name)}, idx, min_rank, 8);
}

/// The DimensionCount N that holds every shape of `ranks`: the largest; refused past 8.
std::size_t common_rank(const node_context& node, std::initializer_list<std::size_t> ranks) {
    const std::size_t n = std::max<std::size_t>(1, std::max(ranks));
    if (n > 8) node.fail(fmt::format("its tensors need {} dimensions; DirectML's take up to 8", n));
    return n;
}

/// A gather's output shape in `n` dimensions: leading 1s added, or (a longer one) its leading
/// entries dropped, which must be 1, as DirectML fits GATHER's and GATHER_ND's output; refused
/// otherwise.
std::vector<std::uint32_t> fitted_output(const node_context& node, const std::vector<std::uint32_t>& out, std::size_t n) {
    if (out.size() <= n) return padded_to(out, n);
    for (std::size_t k = 0; k < out.size() - n; ++k)
        if (out[k] != 1)
            node.fail(fmt::format("the output shape {{{}}} has {} dimensions, and its leading {} are not all 1 (DirectML's tensors "
                                  "take up to 8; it drops only leading 1s)",
                                  fmt::join(out, ", "), out.size(), out.size() - n));
    return {out.end() - static_cast<std::ptrdiff_t>(n), out.end()};
}

/// Gather (opset 1 on; negative indices from opset 11) as GATHER: the data and indices padded with
/// leading 1s to N = the largest of their ranks and the output's (r + q - 1), Axis = axis + the
/// data's padding, IndexDimensions = the indices' rank; the output's ONNX shape (data[:axis] +
/// indices + data[axis+1:]) into `onnx_out`. An index outside [-s, s-1] is refused.
operator_desc map_gather(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                         const std::vector<std::optional<npy::array>>& inputs, std::vector<std::uint64_t>& onnx_out) {
    only_attributes(node, n, {"axis"});
    const auto sizes = dml_sizes(node, data, 1, 8);
    const auto isizes = index_sizes(node, inputs, 1, "indices", true, 0);
    const auto* a = attribute(n, "axis");
    const std::uint32_t axis = axis_of(node, a ? a->i() : 0, sizes.size(), opset, 11);
    const auto values = integers(*inputs[1], node.label + ": input 'indices'");
    const std::int64_t s = sizes[axis], lowest = opset < 11 ? 0 : -s;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] < lowest || values[i] >= s)
            node.fail(fmt::format("input indices[{}]={} is outside [{}, {}] (axis {}'s size is {}{})", i, values[i], lowest, s - 1, axis,
                                  s, opset < 11 ? "; Gather reads negative indices from opset 11 on" : ""));
    std::vector<std::uint32_t> out(sizes.begin(), sizes.begin() + axis);
    out.insert(out.end(), isizes.begin(), isizes.end());
    out.insert(out.end(), sizes.begin() + axis + 1, sizes.end());
    const std::size_t rank = common_rank(node, {sizes.size(), isizes.size(), std::min<std::size_t>(out.size(), 8)});
    onnx_out.assign(out.begin(), out.end());
    return gather_desc{packed(data.type, padded_to(sizes, rank)), packed(inputs[1]->type, padded_to(isizes, rank)),
                       packed(data.type, fitted_output(node, out, rank)), static_cast<std::uint32_t>(axis + rank - sizes.size()),
                       static_cast<std::uint32_t>(isizes.size())};
}

/// The tuples of a GatherND or ScatterND index input: each entry m within [-s, s-1] of data axis
/// `first + m`; refused otherwise. Returns the tuples with negative entries made positive.
std::vector<std::vector<std::int64_t>> nd_tuples(const node_context& node, const npy::array& idx, const std::vector<std::uint32_t>& sizes,
                                                 std::size_t first, std::size_t t) {
    const auto values = integers(idx, node.label + ": input 'indices'");
    std::vector<std::vector<std::int64_t>> tuples;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::int64_t s = sizes[first + i % t];
        if (values[i] < -s || values[i] >= s)
            node.fail(fmt::format("input indices[{}]={} is outside [{}, {}] (data axis {}'s size is {})", i, values[i], -s, s - 1,
                                  first + i % t, s));
        if (i % t == 0) tuples.emplace_back();
        tuples.back().push_back(values[i] < 0 ? values[i] + s : values[i]);
    }
    return tuples;
}

/// GatherND (opset 11: GATHER_ND; opset 12 on, with batch_dims B: GATHER_ND1) : InputDimensionCount
/// = the data's rank r, IndicesDimensionCount = the indices' rank q (int64, last dimension T in
/// [1, r - B], the first B equal to the data's), every tensor padded with leading 1s to N = the
/// largest rank; the output's ONNX shape (indices[:-1] + data[B+T:]) into `onnx_out`.
operator_desc map_gather_nd(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                            const std::vector<std::optional<npy::array>>& inputs, std::vector<std::uint64_t>& onnx_out) {
    only_attributes(node, n, {"batch_dims"});
    if (opset < 11) node.fail(fmt::format("GatherND came with opset 11; this model imports opset {}", opset));
    const auto sizes = dml_sizes(node, data, 1, 8);
    const auto isizes = index_sizes(node, inputs, 1, "indices", false, 1);
    const auto* bd = attribute(n, "batch_dims");
    const std::int64_t b = bd ? bd->i() : 0;
    const std::size_t r = sizes.size(), q = isizes.size();
    if (b < 0 || static_cast<std::size_t>(b) >= std::min(r, q))
        node.fail(fmt::format("attribute batch_dims={} is outside [0, {}) (the data has {} dimensions, the indices {})", b, std::min(r, q),
                              r, q));
    const auto bu = static_cast<std::size_t>(b);
    for (std::size_t k = 0; k < bu; ++k)
        if (isizes[k] != sizes[k])
            node.fail(fmt::format("input 'indices' has size {} on batch axis {}; the data has {}", isizes[k], k, sizes[k]));
    const std::size_t t = isizes[q - 1];
    if (t > r - bu)
        node.fail(fmt::format("input 'indices' has tuples of {} entries; the data has {} dimensions past its {} batch dimensions", t,
                              r - bu, bu));
    nd_tuples(node, *inputs[1], sizes, bu, t);
    std::vector<std::uint32_t> out(isizes.begin(), isizes.end() - 1);
    out.insert(out.end(), sizes.begin() + static_cast<std::ptrdiff_t>(bu + t), sizes.end());
    const std::size_t rank = common_rank(node, {r, q, std::min<std::size_t>(out.size(), 8)});
    onnx_out.assign(out.begin(), out.end());
    const auto in = packed(data.type, padded_to(sizes, rank)), idx = packed(data_type::int64, padded_to(isizes, rank)),
               o = packed(data.type, fitted_output(node, out, rank));
    if (opset < 12) return gather_nd_desc{in, idx, o, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(q)};
    return gather_nd1_desc{in, idx, o, static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(b)};
}

/// ScatterElements's and ScatterND's `reduction` (opset 16 on): only "none", DirectML's only one.
void no_reduction(const node_context& node, const onnx::NodeProto& n) {
    if (const auto* red = attribute(n, "reduction"); red && red->s() != "none")
        node.fail(fmt::format("attribute reduction='{}': DirectML's scatters write, they do not reduce", red->s()));
}

/// The updates input of a scatter: present, the data's type, of shape `want`.
const npy::array& updates_of(const node_context& node, const std::vector<std::optional<npy::array>>& inputs, const npy::array& data,
                             const std::vector<std::uint32_t>& want) {
    if (inputs.size() < 3 || !inputs[2]) node.fail("input 'updates' is missing");
    const npy::array& u = *inputs[2];
    if (u.type != data.type) node.fail(fmt::format("input 'updates' is {}; the data is {}", to_string(u.type), to_string(data.type)));
    if (u.shape != std::vector<std::uint64_t>(want.begin(), want.end()))
        node.fail(fmt::format("input 'updates' has shape {{{}}}; it must be {{{}}}", fmt::join(u.shape, ", "), fmt::join(want, ", ")));
    return u;
}

/// ScatterElements (opset 11 on; reduction "none") as SCATTER_ELEMENTS: Axis = axis, indices int32
/// or int64 of the data's rank, updates of the indices' shape. An index outside [-s, s-1], or two
/// naming one element (ScatterElements leaves the result undefined), is refused.
operator_desc map_scatter_elements(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                                   const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {"axis", "reduction"});
    no_reduction(node, n);
    if (opset < 11) node.fail(fmt::format("ScatterElements came with opset 11; this model imports opset {}", opset));
    const auto sizes = dml_sizes(node, data, 1, 8);
    const auto isizes = index_sizes(node, inputs, 1, "indices", true, 1);
    if (isizes.size() != sizes.size())
        node.fail(fmt::format("input 'indices' has {} dimensions; the data has {}", isizes.size(), sizes.size()));
    const auto* a = attribute(n, "axis");
    const std::uint32_t axis = axis_of(node, a ? a->i() : 0, sizes.size(), opset, 11);
    updates_of(node, inputs, data, isizes);
    const auto values = integers(*inputs[1], node.label + ": input 'indices'");
    const std::int64_t s = sizes[axis];
    std::set<std::vector<std::uint32_t>> targets;
    std::vector<std::uint32_t> c(isizes.size(), 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] < -s || values[i] >= s)
            node.fail(fmt::format("input indices[{}]={} is outside [{}, {}] (axis {}'s size is {})", i, values[i], -s, s - 1, axis, s));
        auto target = c;
        target[axis] = static_cast<std::uint32_t>(values[i] < 0 ? values[i] + s : values[i]);
        if (!targets.insert(target).second)
            node.fail(fmt::format("input indices[{}]={} names an output element an earlier index names (ScatterElements leaves "
                                  "duplicates undefined; DirectML says no write wins by rule)",
                                  i, values[i]));
        for (std::size_t k = c.size(); k-- > 0;) {
            if (++c[k] < isizes[k]) break;
            c[k] = 0;
        }
    }
    return scatter_elements_desc{packed(data.type, sizes), packed(inputs[1]->type, isizes), packed(data.type, isizes),
                                 packed(data.type, sizes), axis};
}

/// ScatterND (opset 11 on; reduction "none") as SCATTER_ND: InputDimensionCount = the data's rank r,
/// IndicesDimensionCount = the indices' rank q (int64, tuples of T in [1, r]), updates of shape
/// indices[:-1] + data[T:], every tensor padded with leading 1s to N = the largest rank (the
/// updates fitted as GATHER_ND's output). An index outside its axis, or two tuples naming one
/// place (undefined in ScatterND), is refused.
operator_desc map_scatter_nd(const node_context& node, const onnx::NodeProto& n, std::int64_t opset, const npy::array& data,
                             const std::vector<std::optional<npy::array>>& inputs) {
    only_attributes(node, n, {"reduction"});
    no_reduction(node, n);
    if (opset < 11) node.fail(fmt::format("ScatterND came with opset 11; this model imports opset {}", opset));
    const auto sizes = dml_sizes(node, data, 1, 8);
    const auto isizes = index_sizes(node, inputs, 1, "indices", false, 1);
    const std::size_t r = sizes.size(), q = isizes.size(), t = isizes[q - 1];
    if (t > r) node.fail(fmt::format("input 'indices' has tuples of {} entries; the data has {} dimensions", t, r));
    std::vector<std::uint32_t> usizes(isizes.begin(), isizes.end() - 1);
    usizes.insert(usizes.end(), sizes.begin() + static_cast<std::ptrdiff_t>(t), sizes.end());
    updates_of(node, inputs, data, usizes);
    std::set<std::vector<std::int64_t>> places;
    for (const auto& tuple : nd_tuples(node, *inputs[1], sizes, 0, t))
        if (!places.insert(tuple).second)
            node.fail(fmt::format("input 'indices' names place ({}) twice (ScatterND leaves duplicates undefined)", fmt::join(tuple, ", ")));
    const std::size_t rank = common_rank(node, {r, q, std::min<std::size_t>(usizes.size(), 8)});
    return scatter_nd_desc{packed(data.type, padded_to(sizes, rank)), packed(data_type::int64, padded_to(isizes, rank)),
                           packed(data.type, fitted_output(node, usizes, rank)), packed(data.type, padded_to(sizes, rank)),
                           static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(q)};
}

/// OneHot (opset 11 on: indices in [-depth, depth-1] count from the end, others give off_value
/// everywhere, as DirectML's ONE_HOT) as ONE_HOT: indices int32 or int64 of rank q >= 1, padded
/// with a 1 at Axis (axis, default -1, in [-q-1, q]); depth one integer, the output's size on Axis;
/// values [off, on] as a ValuesTensor {1, ..., 1, 2} of N = q + 1 dimensions.
operator_desc map_one_hot(const node_context& node, const onnx::NodeProto& n, std::int64_t opset,
                          const std::vector<std::optional<npy::array>>& inputs, npy::array& values_out) {
    only_attributes(node, n, {"axis"});
    if (opset < 11)
        node.fail(fmt::format("OneHot before opset 11 gives off_value for a negative index; DirectML's ONE_HOT counts it from the end "
                              "(this model imports opset {})",
                              opset));
    const auto isizes = index_sizes(node, {inputs[0]}, 0, "indices", true, 1);
    const std::size_t q = isizes.size();
    const auto* a = attribute(n, "axis");
    const std::int64_t raw = a ? a->i() : -1, out_rank = static_cast<std::int64_t>(q) + 1;
    if (raw < -out_rank || raw >= out_rank)
        node.fail(fmt::format("attribute axis={} is outside [{}, {}] (the output has {} dimensions)", raw, -out_rank, out_rank - 1, out_rank));
    const auto axis = static_cast<std::uint32_t>(raw < 0 ? raw + out_rank : raw);
    if (inputs.size() < 3 || !inputs[1] || !inputs[2]) node.fail("inputs 'depth' and 'values' are required");
    const auto depth = integers(*inputs[1], node.label + ": input 'depth'");
    if (depth.size() != 1 || depth[0] < 1 || depth[0] > UINT32_MAX)
        node.fail(fmt::format("input 'depth' must be one integer in [1, 2^32-1]; it holds {}", fmt::join(depth, ", ")));
    const npy::array& v = *inputs[2];
    if (element_count(std::vector<std::uint32_t>(v.shape.begin(), v.shape.end())) != 2 || v.shape.size() != 1)
        node.fail(fmt::format("input 'values' has shape {{{}}}; OneHot takes [off_value, on_value], shape {{2}}", fmt::join(v.shape, ", ")));
    std::vector<std::uint32_t> out = isizes, idx = isizes;
    out.insert(out.begin() + axis, static_cast<std::uint32_t>(depth[0]));
    idx.insert(idx.begin() + axis, 1);
    const std::size_t rank = common_rank(node, {out.size()});
    std::vector<std::uint32_t> vsizes(rank, 1);
    vsizes.back() = 2;
    values_out = v;
    values_out.shape.assign(vsizes.begin(), vsizes.end());
    return one_hot_desc{packed(inputs[0]->type, idx), packed(v.type, vsizes), packed(v.type, out), axis};
}

bool has_model(const fs::path& folder) {
    std::error_code error;
    return fs::is_regular_file(folder / "model.onnx", error);
}

std::string message_of(const std::exception& e) { return e.what(); }

} // namespace

bool is_tensor_file(const fs::path& path) { return path.extension() == ".pb"; }

npy::array read_tensor_file(const fs::path& path, std::uint64_t max_bytes) {
    const auto bytes = model::read_regular_file(path, max_bytes);
    onnx::TensorProto t;
    if (!t.ParseFromArray(bytes.data(), static_cast<int>(std::min<std::size_t>(bytes.size(), INT32_MAX))) ||
        bytes.size() > INT32_MAX)
        throw validation_error(fmt::format("{}: not a TensorProto (protobuf)", path.string()));
    return array_of(t, path.string());
}

loaded_test load_node_test(const fs::path& model_path) {
    const auto bytes = model::read_regular_file(model_path, std::min<std::uint64_t>(read_limit(), INT32_MAX));
    onnx::ModelProto m;
    if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        throw validation_error(fmt::format("{}: not an ONNX model (ModelProto)", model_path.string()));
    std::int64_t opset = -1;
    for (const auto& o : m.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
    if (opset < 0) throw validation_error(fmt::format("{}: imports no opset of the default domain", model_path.string()));
    const auto& g = m.graph();
    if (g.node_size() != 1)
        throw validation_error(fmt::format("{}: the graph has {} nodes; one node of Pad, Slice, DepthToSpace, SpaceToDepth, Identity, Transpose, Expand, Tile, Resize, Concat, Split, ReverseSequence, GatherElements, Gather, GatherND, ScatterElements, ScatterND or OneHot is mapped",
                                           model_path.string(), g.node_size()));
    const onnx::NodeProto& n = g.node(0);
    const node_context node{fmt::format("{}: node 0 ({})", model_path.string(), n.op_type())};
    if (!n.domain().empty() && n.domain() != "ai.onnx") node.fail(fmt::format("domain '{}' is not ONNX's", n.domain()));
    if (n.input_size() == 0 || n.output_size() == 0 || (n.output_size() != 1 && n.op_type() != "Split"))
        node.fail(fmt::format("it has {} inputs and {} outputs; it needs a data input and one output (Split: one or more)", n.input_size(),
                              n.output_size()));
    if (g.output_size() != n.output_size())
        node.fail(fmt::format("the graph has {} outputs; the node has {}", g.output_size(), n.output_size()));
    for (int k = 0; k < n.output_size(); ++k)
        if (g.output(k).name() != n.output(k))
            node.fail(fmt::format("graph output {} is '{}'; node output {} is '{}' (output_{}.pb is the graph's output {})", k,
                                  g.output(k).name(), k, n.output(k), k, k));

    // Each input's value: an initializer, or the data set's input_K.pb (K counts the graph inputs
    // that are not initializers, as onnx_test_runner does).
    const fs::path data_set = model_path.parent_path() / "test_data_set_0";
    std::vector<std::string> fed;
    for (const auto& in : g.input()) {
        bool initialised = false;
        for (const auto& init : g.initializer()) initialised = initialised || init.name() == in.name();
        if (!initialised) fed.push_back(in.name());
    }
    auto value_of = [&](const std::string& name) -> std::optional<npy::array> {
        if (name.empty()) return std::nullopt; // an optional input left out
        for (const auto& init : g.initializer())
            if (init.name() == name) return array_of(init, fmt::format("{}: initializer '{}'", node.label, name));
        const auto it = std::find(fed.begin(), fed.end(), name);
        if (it == fed.end()) node.fail(fmt::format("input '{}' is neither a graph input nor an initializer", name));
        const fs::path file = data_set / fmt::format("input_{}.pb", it - fed.begin());
        const onnx::TensorProto t = parse_tensor(file);
        if (!t.name().empty() && t.name() != name)
            node.fail(fmt::format("{} holds '{}', not the graph input '{}'", file.string(), t.name(), name));
        return array_of(t, file.string());
    };
    std::vector<std::optional<npy::array>> inputs;
    for (const auto& name : n.input()) inputs.push_back(value_of(name));
    if (!inputs[0]) node.fail("the data input is missing");
    const npy::array& data = *inputs[0];

    loaded_test test{.folder = model_path.parent_path(), .desc = {}, .inputs = {data}, .expected = {}, .output_names = {}, .output_shapes = {}};
    for (const auto& o : g.output()) test.output_names.push_back(o.name());
    if (n.op_type() == "Pad") test.desc = map_pad(node, n, opset, data, inputs);
    else if (n.op_type() == "Slice") test.desc = map_slice(node, n, opset, data, inputs);
    else if (n.op_type() == "DepthToSpace") test.desc = map_depth_space(node, n, data, true);
    else if (n.op_type() == "SpaceToDepth") test.desc = map_depth_space(node, n, data, false);
    else if (n.op_type() == "Identity") test.desc = map_identity(node, n, data);
    else if (n.op_type() == "Transpose") test.desc = map_transpose(node, n, data);
    else if (n.op_type() == "Expand") test.desc = map_expand(node, n, opset, data, inputs);
    else if (n.op_type() == "Tile") test.desc = map_tile(node, n, opset, data, inputs);
    else if (n.op_type() == "Resize") test.desc = map_resize(node, n, opset, data, inputs);
    else if (n.op_type() == "Concat") {
        test.desc = map_concat(node, n, opset, inputs);
        test.inputs.clear();
        for (const auto& in : inputs) test.inputs.push_back(*in); // map_concat: every one present
    } else if (n.op_type() == "Split") test.desc = map_split(node, n, opset, data, inputs);
    else if (n.op_type() == "ReverseSequence") {
        npy::array lengths;
        test.desc = map_reverse_sequence(node, n, opset, data, inputs, lengths);
        test.inputs.push_back(std::move(lengths));
    } else if (n.op_type() == "GatherElements") {
        test.desc = map_gather_elements(node, n, opset, data, inputs);
        test.inputs.push_back(*inputs[1]); // map_gather_elements: present
    } else if (n.op_type() == "Gather") {
        test.output_shapes.emplace_back();
        test.desc = map_gather(node, n, opset, data, inputs, test.output_shapes.back());
        test.inputs.push_back(*inputs[1]); // map_gather: present
    } else if (n.op_type() == "GatherND") {
        test.output_shapes.emplace_back();
        test.desc = map_gather_nd(node, n, opset, data, inputs, test.output_shapes.back());
        test.inputs.push_back(*inputs[1]); // map_gather_nd: present
    } else if (n.op_type() == "ScatterElements" || n.op_type() == "ScatterND") {
        test.desc = n.op_type() == "ScatterND" ? map_scatter_nd(node, n, opset, data, inputs)
                                               : map_scatter_elements(node, n, opset, data, inputs);
        test.inputs.push_back(*inputs[1]); // present: both mappings check
        test.inputs.push_back(*inputs[2]);
        test.output_shapes.push_back(data.shape);
    } else if (n.op_type() == "OneHot") {
        npy::array values;
        test.desc = map_one_hot(node, n, opset, inputs, values);
        test.inputs.push_back(std::move(values));
    } else node.fail("the operator has no DirectML data-movement form here (Pad, Slice, DepthToSpace, SpaceToDepth, Identity, "
                   "Transpose, Expand, Tile, Resize, Concat, Split, ReverseSequence, GatherElements, Gather, GatherND, "
                   "ScatterElements, ScatterND and OneHot do)");
    if (auto why = dmlref::validate(test.desc)) node.fail(fmt::format("the DirectML desc it maps to is invalid: {}", *why));

    std::error_code error;
    if (fs::exists(data_set / "output_0.pb", error)) {
        const auto outs = outputs_of(test.desc);
        for (std::size_t k = 0; k < outs.size(); ++k) {
            const fs::path file = data_set / fmt::format("output_{}.pb", k);
            test.expected.push_back(read_tensor_file(file, read_limit()));
            const buffer_tensor_desc& out = outs[k].desc();
            const std::vector<std::uint64_t> shape =
                k < test.output_shapes.size() ? test.output_shapes[k] : std::vector<std::uint64_t>(out.sizes.begin(), out.sizes.end());
            if (test.expected.back().type != out.data_type || test.expected.back().shape != shape)
                throw validation_error(fmt::format("{}: holds {} {{{}}}; node 0 ({}) gives {} {{{}}}", file.string(),
                                                   to_string(test.expected.back().type), fmt::join(test.expected.back().shape, ", "),
                                                   n.op_type(), to_string(out.data_type), fmt::join(shape, ", ")));
        }
    }
    return test;
}

namespace {

/// Runs one node test; true when it passes. Prints the report on a difference, the error on a
/// failure to load.
bool run_one(const fs::path& folder, bool write_expected, bool quiet, std::ostream& out, npy::temporary_observer on_temporary) {
    const loaded_test t = load_node_test(folder / "model.onnx");
    const auto ins = inputs_of(t.desc), outs = outputs_of(t.desc);
    // Each input bound as a dispatch binds it: TotalTensorSizeInBytes, rounded up to 4.
    std::vector<std::vector<std::byte>> inputs, results;
    for (std::size_t k = 0; k < ins.size(); ++k) {
        inputs.push_back(t.inputs.at(k).data);
        inputs[k].resize(std::max(inputs[k].size(), static_cast<std::size_t>(ins[k].desc().total_tensor_size_in_bytes)));
    }
    for (const auto& o : outs) results.emplace_back(static_cast<std::size_t>(calc_buffer_tensor_size(o.desc())));
    std::vector<std::span<const std::byte>> in_spans(inputs.begin(), inputs.end());
    std::vector<std::span<std::byte>> out_spans(results.begin(), results.end());
    dmlref::execute(t.desc, in_spans, out_spans);
    for (std::size_t k = 0; k < outs.size(); ++k)
        results[k].resize(static_cast<std::size_t>(element_count(outs[k].desc().sizes) * element_size(outs[k].desc().data_type)));
    if (write_expected) {
        fs::create_directories(folder / "test_data_set_0");
        for (std::size_t k = 0; k < outs.size(); ++k) {
            const buffer_tensor_desc& o = outs[k].desc();
            onnx::TensorProto p;
            p.set_name(t.output_names.at(k));
            p.set_data_type(detail::onnx_type_of(o.data_type));
            if (k < t.output_shapes.size())
                for (auto s : t.output_shapes[k]) p.add_dims(static_cast<std::int64_t>(s));
            else
                for (auto s : o.sizes) p.add_dims(s);
            p.set_raw_data(results[k].data(), results[k].size());
            std::string bytes;
            p.SerializeToString(&bytes);
            npy::write_file_atomically(folder / "test_data_set_0" / fmt::format("output_{}.pb", k),
                                       std::as_bytes(std::span(bytes.data(), bytes.size())), {on_temporary});
        }
        if (!quiet)
            out << fmt::format("{}: wrote test_data_set_0/{}\n", folder.string(),
                               outs.size() == 1 ? std::string("output_0.pb") : fmt::format("output_0.pb ... output_{}.pb", outs.size() - 1));
        return true;
    }
    if (t.expected.empty())
        throw validation_error(fmt::format("{}: no test_data_set_0/output_0.pb to compare with (--write-expected writes it)",
                                           folder.string()));
    // One report over every output: SPLIT's laid end to end along Axis (compared_output), so a
    // difference is named by its part.
    std::vector<std::vector<std::byte>> expected;
    for (const auto& e : t.expected) expected.push_back(e.data);
    const data_type type = outs.front().desc().data_type;
    const compare_report report =
        compare(type, compared_sizes(t.desc), compared_output(t.desc, expected), compared_output(t.desc, results), {}, &t.desc);
    const std::string files = outs.size() == 1 ? "output_0.pb" : fmt::format("output_0.pb ... output_{}.pb", outs.size() - 1);
    if (!report.equal()) {
        out << fmt::format("{}: the reference differs from test_data_set_0/{}\n{}", folder.string(), files, report.to_string());
        return false;
    }
    if (!quiet) out << fmt::format("{}: {}\n", folder.string(), report.to_string());
    return true;
}

} // namespace

int run_node_tests(const fs::path& folder, bool write_expected, bool quiet, std::ostream& out, npy::temporary_observer on_temporary) {
    if (has_model(folder)) return run_one(folder, write_expected, quiet, out, on_temporary) ? 0 : 1;
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.is_directory() && has_model(entry.path())) cases.push_back(entry.path());
    if (cases.empty())
        throw validation_error(fmt::format("'{}' is a folder holding no model.onnx, nor folders that do (ONNX node tests); a "
                                           "DxDispatch model is a file",
                                           folder.string()));
    std::sort(cases.begin(), cases.end());
    std::vector<std::string> failed;
    for (const auto& c : cases) {
        try {
            if (!run_one(c, write_expected, true, out, on_temporary)) failed.push_back(c.filename().string());
        } catch (const std::exception& e) {
            out << fmt::format("{}: error: {}\n", c.string(), message_of(e));
            failed.push_back(c.filename().string());
        }
    }
    out << fmt::format("{} node tests: {} passed, {} failed{}\n", cases.size(), cases.size() - failed.size(), failed.size(),
                       failed.empty() ? "" : fmt::format(": {}", fmt::join(failed, ", ")));
    return failed.empty() ? 0 : 1;
}

} // namespace dmlref::node_test
