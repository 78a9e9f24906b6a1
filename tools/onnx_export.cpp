// DirectML cases as ONNX node tests: which cases have an ONNX operator of exactly their meaning, at
// which opset, and the files that say so.
//
// Mapping (each at the lowest opset that expresses the op, mode and type; IR = the lowest that
// opset allows):
//   PADDING, PADDING1  -> Pad-11 (pads an int64 input [starts..., ends...], constant_value a
//                         0-d input of the tensor's type, CONSTANT only), modes constant, edge,
//                         reflect; WRAP -> Pad-19 "wrap". Pad-11 takes all eleven types.
//                         REFLECTION only with every pad < its axis: ONNX defines reflect no
//                         further (its spec since PR #7700), DirectML folds on periodically.
//                         SYMMETRIC has no ONNX mode. PADDING's FLOAT value goes in converted to
//                         the tensor's type as dmlref converts it (DECISIONS 3).
//   SLICE, SLICE1      -> Slice-10 (starts, ends, axes, steps int64 inputs; all eleven types):
//                         starts = the first element read, ends = one step past the last element
//                         of the *output* (so a window longer than the output needs no clamping),
//                         negative strides as negative steps. A negative step that reads index 0
//                         needs ends = -(axis size) - 1, which clamps to -1 ("before index 0")
//                         only from Slice-11's clamping rules on: such cases are opset 11.
//   DEPTH_TO_SPACE, DEPTH_TO_SPACE1 DEPTH_COLUMN_ROW -> DepthToSpace-1 (DCR, no mode attribute);
//   DEPTH_TO_SPACE1 COLUMN_ROW_DEPTH                 -> DepthToSpace-11 mode "CRD".
//   SPACE_TO_DEPTH, SPACE_TO_DEPTH1 DEPTH_COLUMN_ROW -> SpaceToDepth-1. COLUMN_ROW_DEPTH: no
//                         released opset (SpaceToDepth has no mode before opset 28): left out.
//   ELEMENT_WISE_IDENTITY (no ScaleBias), by its InputTensor's layout (all eleven types):
//                         packed -> Identity-1; packed in another axis order (a transpose) ->
//                         Transpose-1 of the buffer's elements in memory order, `perm` the
//                         inverse of that order; packed but for zero strides (a broadcast) ->
//                         Expand-8 of the buffer's elements (size 1 on the broadcast axes) to
//                         the sizes; both at once, or gaps between rows: left out.
//   SLICE_GRAD -> none: ONNX has no such operator (the gradient of Slice is a training graph's
//                         business, not a node of the default domain): left out.
//   TILE -> Tile-6 (repeats an int64 input, one per axis).
//   UPSAMPLE_2D NEAREST_NEIGHBOR -> Resize-11, mode "nearest", coordinate_transformation_mode
//                         "asymmetric", nearest_mode "floor" (input = output / scale, rounded
//                         down: pixel replication for integer scales), an empty roi and float
//                         scales {1, ..., 1, Height, Width}. Resize-10 names neither the
//                         coordinate transformation nor the rounding, so 11 is the lowest that
//                         says exactly this. Resize takes all eleven types; UPSAMPLE_2D has two.
//   JOIN  -> Concat-4 (the first Concat of all eleven types; `axis` = Axis), one graph input per
//            InputTensors entry, input_0 ... input_{N-1}, in order.
//   SPLIT -> Split-13 (`axis` = Axis, `split` an int64 input: each OutputTensors entry's size on
//            Axis), one graph output per entry, output_0 ... output_{N-1} (output_K.pb), in order.
//            Split-13 takes `split` as an input, as Slice and Pad take their index lists (Split-2..12
//            as an attribute; Split-1, float types only, either way).
//   REVERSE_SUBSEQUENCES -> ReverseSequence-10 (time_axis = Axis, batch_axis the other of axes 0
//            and 1; sequence_lens an int64 input [batch size], the lengths read off the batch axis).
//            Only where ReverseSequence says the same: 2 or more dimensions, Axis 0 or 1, the
//            lengths equal along every axis but the batch axis, and each within [0, the Axis size]
//            (ReverseSequence accepts no other; a longer one DirectML's page clamps): the rest are
//            left out. The lengths' values decide this, so the plan reads them.
//   GATHER_ELEMENTS -> GatherElements-11 (`axis` = Axis; data, then indices). INT32 and INT64
//            indices go in as they are, UINT32 and UINT64 ones as int64 (GatherElements takes
//            int32 and int64); a negative signed index counts from the end in both (GatherElements
//            from opset 11 on: [-s, s-1]). An index outside its axis (which dmlref refuses and
//            GatherElements calls an error): left out.
//   GATHER -> Gather-11 (`axis` = Axis; data = InputTensor, indices = IndicesTensor's last
//            IndexDimensions dimensions, INT32 as int32, the others as int64; the output in ONNX's
//            shape data[:axis] + indices + data[axis+1:], OutputTensor's elements in C order).
//            Gather-11 is the first to read negative indices ([-s, s-1]).
//   GATHER_ND -> GatherND-11, GATHER_ND1 -> GatherND-12 (`batch_dims` = BatchDimensionCount):
//            data = InputTensor's last InputDimensionCount dimensions, indices (int64) =
//            IndicesTensor's last IndicesDimensionCount; the output indices[:-1] +
//            data[batch_dims + T:].
//   SCATTER_ELEMENTS -> ScatterElements-11 (`axis` = Axis; data, indices, updates; no reduction),
//   SCATTER_ND -> ScatterND-11 (data and updates as GatherND's, int64 indices). Two updates of
//            one element are undefined in both ONNX and DirectML: such cases are left out.
//   ONE_HOT -> OneHot-11 (indices as int64 of IndicesTensor's shape without Axis, depth = the
//            output's size on Axis, values = [OffValue, OnValue], `axis` = Axis; a
//            one-dimensional ONE_HOT as one index of shape {1}, output {1, depth}). OneHot-11 and
//            DirectML agree on every index: [-depth, depth-1] marks OnValue (negative from the end),
//            any other gives OffValue along the axis. OneHot-9/10 give OffValue for negative ones.
//   For all: an index outside its axis (dmlref refuses it at execute) is left out.
//   Their parts are packed ONNX tensors whatever the descs' strides: each input_K.pb holds the
//   elements its tensor reads, each output_K.pb those its tensor is written, gathered in C order
//   (case.json's input_strides and output_strides keep the layouts).
// Input layouts: a strided or broadcast InputTensor decides which buffer elements the operator
// reads, which a node test (a packed tensor per input) cannot say: left out (but IDENTITY's above,
// and JOIN's and SPLIT's parts, and the tensors of REVERSE_SUBSEQUENCES and the indexed operators,
// gathered as said there: their meaning is that of the logical tensors).
// Output strides only place the results in memory: those cases are exported with the packed
// logical output.
#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <dmlref/format.hpp>

#include "model.hpp"
#include "onnx_common.hpp"
#include "onnx_node_test.hpp"

namespace dmlref::node_test {

namespace {

namespace fs = std::filesystem;
using detail::onnx_type_of;

/// A graph input beside the data: its name and its value.
struct named_tensor {
    std::string name;
    npy::array value;
};

/// A case's ONNX form.
struct node_plan {
    std::string op_type;
    std::string data_name; ///< the schema's name of the data input
    std::int64_t opset = 0;
    std::string mode;            ///< the meaning (also where the attribute is left at its default)
    bool write_mode = false;     ///< whether the mode attribute is written
    std::int64_t blocksize = 0;  ///< DepthToSpace / SpaceToDepth
    std::vector<named_tensor> inputs; ///< after the data input, in the schema's order
    std::vector<std::int64_t> perm;   ///< Transpose
    /// String attributes besides `mode` (Resize's coordinate_transformation_mode, nearest_mode).
    std::vector<std::pair<std::string, std::string>> strings;
    /// The tensor of the input buffer the data input holds (packed), where it is not InputTensor:
    /// the buffer's elements in memory order (Transpose), or without the broadcast axes (Expand).
    std::optional<buffer_tensor_desc> data_tensor;
    /// Concat's data inputs, one per InputTensors entry ("input_0", ...), in place of data_name.
    std::vector<std::string> data_names;
    /// The node's outputs in order: "output", or Split's "output_0", ... one per OutputTensors entry.
    std::vector<std::string> output_names{"output"};
    std::optional<std::int64_t> axis; ///< Concat, Split, GatherElements
    /// Integer attributes besides axis and blocksize (ReverseSequence's batch_axis, time_axis).
    std::vector<std::pair<std::string, std::int64_t>> ints;
    /// The data input's shape where it is not InputTensor's sizes (the same elements in C order:
    /// GatherND's and ScatterND's data, InputTensor without its leading 1s).
    std::optional<std::vector<std::uint64_t>> data_shape;
    /// The data input itself where it is not a tensor's elements (OneHot's indices, as int64).
    std::optional<npy::array> data_value;
    /// The output's shape where it is not OutputTensor's sizes (the same elements in C order:
    /// Gather's and GatherND's output, whose rank ONNX derives, DirectML's fitted to N).
    std::optional<std::vector<std::uint64_t>> output_shape;
};

node_plan make_plan(std::string op_type, std::string data_name, std::int64_t opset) {
    node_plan p;
    p.op_type = std::move(op_type);
    p.data_name = std::move(data_name);
    p.opset = opset;
    return p;
}

npy::array float_vector(const std::vector<float>& values) {
    npy::array a{data_type::float32, {values.size()}, std::vector<std::byte>(values.size() * 4)};
    if (!values.empty()) std::memcpy(a.data.data(), values.data(), a.data.size());
    return a;
}

npy::array int64_vector(const std::vector<std::int64_t>& values) {
    npy::array a{data_type::int64, {values.size()}, std::vector<std::byte>(values.size() * 8)};
    if (!values.empty()) std::memcpy(a.data.data(), values.data(), a.data.size());
    return a;
}

std::vector<std::int64_t> as_int64(const npy::array& a) {
    std::vector<std::int64_t> v(a.data.size() / 8);
    if (!v.empty()) std::memcpy(v.data(), a.data.data(), v.size() * 8);
    return v;
}

/// Whether a tensor's elements lie packed in C order (explicit packed strides included; the
/// stride of a size-1 axis never matters).
bool is_packed(const buffer_tensor_desc& t) {
    if (!t.strides) return true;
    std::uint64_t packed = 1;
    for (std::size_t k = t.sizes.size(); k-- > 0;) {
        if (t.sizes[k] != 1 && (*t.strides)[k] != packed) return false;
        packed *= t.sizes[k];
    }
    return true;
}

bool is_broadcast(const buffer_tensor_desc& t) {
    if (!t.strides) return false;
    for (std::size_t k = 0; k < t.sizes.size(); ++k)
        if (t.sizes[k] != 1 && (*t.strides)[k] == 0) return true;
    return false;
}

/// ELEMENT_WISE_IDENTITY's plan from its InputTensor's layout (see the mapping above), or why it has none.
std::variant<node_plan, std::string> plan_identity(const buffer_tensor_desc& in) {
    if (is_packed(in)) return make_plan("Identity", "input", 1);
    const std::vector<std::uint32_t>& strides = *in.strides; // is_packed: present
    const std::size_t rank = in.sizes.size();
    if (is_broadcast(in)) { // Expand of the elements without the broadcast axes, if they lie packed
        buffer_tensor_desc data = in;
        for (std::size_t k = 0; k < rank; ++k)
            if (strides[k] == 0) data.sizes[k] = 1;
        if (!is_packed(data)) return std::string("broadcast and permuted or strided input (an Expand of a Transpose or of a slice)");
        node_plan p = make_plan("Expand", "input", 8);
        p.inputs.push_back({"shape", int64_vector({in.sizes.begin(), in.sizes.end()})});
        p.data_tensor = std::move(data);
        return p;
    }
    // Transpose: the axes of more than one element in decreasing stride (memory order), the others
    // where they are; the buffer holds them packed in that order if at all.
    std::vector<std::size_t> order(rank), moved;
    for (std::size_t k = 0; k < rank; ++k) {
        order[k] = k;
        if (in.sizes[k] != 1) moved.push_back(k);
    }
    std::vector<std::size_t> sorted = moved;
    std::stable_sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) { return strides[a] > strides[b]; });
    for (std::size_t j = 0; j < moved.size(); ++j) order[moved[j]] = sorted[j];
    buffer_tensor_desc data = in;
    std::vector<std::uint32_t> data_strides(rank);
    std::vector<std::int64_t> perm(rank);
    for (std::size_t k = 0; k < rank; ++k) {
        data.sizes[k] = in.sizes[order[k]];
        data_strides[k] = strides[order[k]];
        perm[order[k]] = static_cast<std::int64_t>(k); // output axis order[k] reads data axis k
    }
    data.strides = data_strides;
    if (!is_packed(data)) return std::string("strided input (a node test's input is a packed tensor)");
    node_plan p = make_plan("Transpose", "data", 1);
    p.perm = std::move(perm);
    p.data_tensor = std::move(data);
    return p;
}

std::string_view onnx_pad_mode(padding_mode mode) {
    switch (mode) {
    case padding_mode::constant: return "constant";
    case padding_mode::edge: return "edge";
    case padding_mode::reflection: return "reflect";
    case padding_mode::wrap: return "wrap";
    default: return "";
    }
}

/// The plan of a PADDING or PADDING1 case, or why it has none.
template <class Desc> std::variant<node_plan, std::string> plan_padding(const Desc& d, std::span<const std::byte, 8> value) {
    const auto mode = onnx_pad_mode(d.padding_mode);
    if (mode.empty()) return std::string("SYMMETRIC padding (ONNX Pad has no symmetric mode)");
    const auto& sizes = d.input_tensor.sizes;
    if (d.padding_mode == padding_mode::reflection)
        for (std::size_t k = 0; k < sizes.size(); ++k)
            if (d.start_padding[k] >= sizes[k] || d.end_padding[k] >= sizes[k])
                return std::string("REFLECTION with a pad >= its axis size (ONNX Pad reflect is defined for pads < the axis only)");
    node_plan p = make_plan("Pad", "data", d.padding_mode == padding_mode::wrap ? 19 : 11);
    p.mode = mode;
    p.write_mode = true;
    std::vector<std::int64_t> pads;
    for (auto s : d.start_padding) pads.push_back(s);
    for (auto e : d.end_padding) pads.push_back(e);
    p.inputs.push_back({"pads", int64_vector(pads)});
    if (d.padding_mode == padding_mode::constant) {
        const data_type type = d.output_tensor.data_type;
        const std::size_t width = element_size(type);
        npy::array c{type, {}, std::vector<std::byte>(width)};
        std::memcpy(c.data.data(), value.data(), width);
        p.inputs.push_back({"constant_value", std::move(c)});
    }
    return p;
}

std::variant<node_plan, std::string> plan_slice(const buffer_tensor_desc& in, const buffer_tensor_desc& out,
                                                const std::vector<std::uint32_t>& offsets,
                                                const std::vector<std::uint32_t>& window_sizes,
                                                const std::vector<std::int32_t>& strides) {
    node_plan p = make_plan("Slice", "data", 10);
    std::vector<std::int64_t> starts, ends, axes, steps;
    for (std::size_t k = 0; k < in.sizes.size(); ++k) {
        const std::int64_t step = strides[k], count = out.sizes[k];
        // The first element read: the window's start, or its end for a negative stride.
        const std::int64_t first = step > 0 ? std::int64_t{offsets[k]} : std::int64_t{offsets[k]} + window_sizes[k] - 1;
        const std::int64_t last = first + (count - 1) * step;
        std::int64_t end = last + (step > 0 ? 1 : -1);
        if (end < 0) { // -1 would mean the last element: the sentinel below clamps to "before 0"
            end = -std::int64_t{in.sizes[k]} - 1;
            p.opset = 11;
        }
        starts.push_back(first);
        ends.push_back(end);
        axes.push_back(static_cast<std::int64_t>(k));
        steps.push_back(step);
    }
    p.inputs = {{"starts", int64_vector(starts)}, {"ends", int64_vector(ends)}, {"axes", int64_vector(axes)},
                {"steps", int64_vector(steps)}};
    return p;
}

/// JOIN as Concat-4 and SPLIT as Split-13 (see the mapping above). Every part is a packed ONNX
/// tensor: a strided or broadcast part is the elements its desc reads (or writes), gathered in C order.
std::variant<node_plan, std::string> plan_parts(const operator_desc& desc) {
    if (const auto* j = std::get_if<join_desc>(&desc)) {
        node_plan p = make_plan("Concat", "", 4);
        for (std::size_t k = 0; k < j->input_tensors.size(); ++k) p.data_names.push_back(fmt::format("input_{}", k));
        p.axis = j->axis;
        return p;
    }
    const auto& s = std::get<split_desc>(desc);
    node_plan p = make_plan("Split", "input", 13);
    std::vector<std::int64_t> split;
    p.output_names.clear();
    for (std::size_t k = 0; k < s.output_tensors.size(); ++k) {
        split.push_back(s.output_tensors[k].sizes[s.axis]);
        p.output_names.push_back(fmt::format("output_{}", k));
    }
    p.inputs.push_back({"split", int64_vector(split)});
    p.axis = s.axis;
    return p;
}

/// REVERSE_SUBSEQUENCES and the indexed operators: exported from their logical tensors, the index
/// tensor's values read (plan_indexed, plan_indexed_more).
bool is_indexed(const operator_desc& d) {
    return std::holds_alternative<reverse_subsequences_desc>(d) || std::holds_alternative<gather_elements_desc>(d) ||
           std::holds_alternative<gather_desc>(d) || std::holds_alternative<gather_nd_desc>(d) ||
           std::holds_alternative<gather_nd1_desc>(d) || std::holds_alternative<scatter_elements_desc>(d) ||
           std::holds_alternative<scatter_nd_desc>(d) || std::holds_alternative<one_hot_desc>(d);
}

/// An integer element of a gathered index tensor (UINT32, INT32, UINT64 or INT64) as int64; an
/// unsigned one of 2^63 or more as -1 (outside every axis: the callers refuse it).
std::int64_t index_at(const npy::array& a, std::size_t i) {
    switch (a.type) {
    case data_type::uint32: { std::uint32_t v; std::memcpy(&v, a.data.data() + 4 * i, 4); return v; }
    case data_type::int32: { std::int32_t v; std::memcpy(&v, a.data.data() + 4 * i, 4); return v; }
    case data_type::uint64: {
        std::uint64_t v;
        std::memcpy(&v, a.data.data() + 8 * i, 8);
        return v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? -1 : static_cast<std::int64_t>(v);
    }
    default: { std::int64_t v; std::memcpy(&v, a.data.data() + 8 * i, 8); return v; }
    }
}

/// REVERSE_SUBSEQUENCES as ReverseSequence-10 and GATHER_ELEMENTS as GatherElements-11 (see the
/// mapping above), from the logical tensors `gathered` (one per input tensor, C order), or why not.
std::variant<node_plan, std::string> plan_indexed(const operator_desc& desc, const std::vector<npy::array>& gathered) {
    if (const auto* r = std::get_if<reverse_subsequences_desc>(&desc)) {
        const auto& sizes = r->input_tensor.sizes;
        if (sizes.size() < 2)
            return std::string("REVERSE_SUBSEQUENCES of one dimension (ReverseSequence's input has 2 or more: a batch axis and a "
                               "time axis)");
        if (r->axis > 1)
            return std::string("REVERSE_SUBSEQUENCES with Axis 2 or more (ReverseSequence reverses along axis 0 or 1, its "
                               "time_axis)");
        const std::size_t batch = 1 - r->axis;
        const npy::array& lengths = gathered.at(1);
        std::vector<std::int64_t> lens(sizes[batch], -2); // -2: not seen yet
        std::vector<std::uint32_t> c(sizes.size(), 0);
        const auto& lsizes = r->sequence_lengths_tensor.sizes;
        for (std::size_t e = 0; e < element_count(lsizes); ++e) {
            const std::int64_t v = index_at(lengths, e);
            if (v < 0 || v > std::int64_t{sizes[r->axis]})
                return std::string("REVERSE_SUBSEQUENCES with a SequenceLengthsTensor value past its Axis size (DirectML's page "
                                   "clamps it; ReverseSequence takes lengths in [0, the time axis's size] only)");
            std::int64_t& seen = lens[c[batch]];
            if (seen != -2 && seen != v)
                return std::string("REVERSE_SUBSEQUENCES with SequenceLengthsTensor values varying off the batch axis "
                                   "(ReverseSequence has one length per index of batch_axis, the other of axes 0 and 1)");
            seen = v;
            for (std::size_t k = c.size(); k-- > 0;) {
                if (++c[k] < lsizes[k]) break;
                c[k] = 0;
            }
        }
        node_plan p = make_plan("ReverseSequence", "input", 10);
        p.ints = {{"batch_axis", static_cast<std::int64_t>(batch)}, {"time_axis", static_cast<std::int64_t>(r->axis)}};
        p.inputs.push_back({"sequence_lens", int64_vector(lens)});
        return p;
    }
    const auto& g = std::get<gather_elements_desc>(desc);
    const npy::array& indices = gathered.at(1);
    const std::int64_t size = g.input_tensor.sizes[g.axis];
    const bool is_signed = indices.type == data_type::int32 || indices.type == data_type::int64;
    std::vector<std::int64_t> values(indices.data.size() / element_size(indices.type));
    for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = index_at(indices, i);
        if (values[i] >= size || values[i] < (is_signed ? -size : 0))
            return std::string("GATHER_ELEMENTS with an IndicesTensor value outside its Axis (dmlref refuses it; "
                               "GatherElements calls it an error)");
    }
    node_plan p = make_plan("GatherElements", "data", 11);
    p.axis = g.axis;
    npy::array onnx_indices = indices.type == data_type::int32 ? indices : int64_vector(values);
    onnx_indices.shape = indices.shape;
    p.inputs.push_back({"indices", std::move(onnx_indices)});
    return p;
}

/// A gathered index tensor's values as int64, each checked against the size of the axis it
/// indexes (`bound_of(e)`, e the element's C-order number): [-size, size) for INT32 and INT64,
/// [0, size) for UINT32 and UINT64; nothing where one lies outside (dmlref refuses it).
template <class BoundOf>
std::optional<std::vector<std::int64_t>> checked_indices(const npy::array& indices, std::size_t count, BoundOf bound_of) {
    const bool is_signed = indices.type == data_type::int32 || indices.type == data_type::int64;
    std::vector<std::int64_t> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        values[i] = index_at(indices, i);
        const std::int64_t size = bound_of(i);
        if (values[i] >= size || values[i] < (is_signed ? -size : 0)) return std::nullopt;
    }
    return values;
}

/// An index input of `shape`: INT32 indices as they are where the ONNX operator takes int32
/// (`int32_ok`), else int64.
npy::array index_input_of(const npy::array& indices, const std::vector<std::int64_t>& values, std::vector<std::uint64_t> shape,
                          bool int32_ok) {
    npy::array a = int32_ok && indices.type == data_type::int32 ? indices : int64_vector(values);
    a.data.resize(values.size() * element_size(a.type));
    a.shape = std::move(shape);
    return a;
}

std::vector<std::uint64_t> shape_of(const std::vector<std::uint32_t>& sizes, std::size_t from, std::size_t to) {
    return {sizes.begin() + static_cast<std::ptrdiff_t>(from), sizes.begin() + static_cast<std::ptrdiff_t>(to)};
}

/// GATHER as Gather-11, GATHER_ND as GatherND-11, GATHER_ND1 as GatherND-12, SCATTER_ELEMENTS as
/// ScatterElements-11, SCATTER_ND as ScatterND-11 and ONE_HOT as OneHot-11 (see the mapping above),
/// from the logical tensors `gathered` (one per input tensor, C order), or why not.
std::variant<node_plan, std::string> plan_indexed_more(const operator_desc& desc, const std::vector<npy::array>& gathered) {
    if (const auto* g = std::get_if<gather_desc>(&desc)) {
        const auto& in = g->input_tensor.sizes;
        const auto& idx = g->indices_tensor.sizes;
        const std::size_t n = in.size(), k = g->index_dimensions, a = g->axis;
        const auto values = checked_indices(gathered.at(1), element_count(idx), [&](std::size_t) { return std::int64_t{in[a]}; });
        if (!values)
            return std::string("GATHER with an IndicesTensor value outside its Axis (dmlref refuses it; Gather calls it an error)");
        node_plan p = make_plan("Gather", "data", 11);
        p.axis = static_cast<std::int64_t>(a);
        p.inputs.push_back({"indices", index_input_of(gathered.at(1), *values, shape_of(idx, n - k, n), true)});
        std::vector<std::uint64_t> out = shape_of(in, 0, a);
        for (std::size_t e = n - k; e < n; ++e) out.push_back(idx[e]);
        for (std::size_t e = a + 1; e < n; ++e) out.push_back(in[e]);
        p.output_shape = out;
        return p;
    }
    if (std::holds_alternative<gather_nd_desc>(desc) || std::holds_alternative<gather_nd1_desc>(desc) ||
        std::holds_alternative<scatter_nd_desc>(desc)) {
        std::size_t i_count = 0, j_count = 0, b = 0;
        std::visit(
            [&](const auto& d) {
                if constexpr (requires { d.input_dimension_count; }) {
                    i_count = d.input_dimension_count;
                    j_count = d.indices_dimension_count;
                }
                if constexpr (requires { d.batch_dimension_count; }) b = d.batch_dimension_count;
            },
            desc);
        const auto& in = inputs_of(desc)[0].desc().sizes;
        const auto& idx = inputs_of(desc)[1].desc().sizes;
        const std::size_t n = in.size(), t = idx[n - 1];
        const bool scatter = std::holds_alternative<scatter_nd_desc>(desc);
        const char* op = scatter ? "SCATTER_ND" : std::holds_alternative<gather_nd_desc>(desc) ? "GATHER_ND" : "GATHER_ND1";
        const auto values =
            checked_indices(gathered.at(1), element_count(idx), [&](std::size_t e) { return std::int64_t{in[n - i_count + b + e % t]}; });
        if (!values)
            return fmt::format("{} with an IndicesTensor value outside the dimension it indexes (dmlref refuses it; {} calls it "
                               "an error)",
                               op, scatter ? "ScatterND" : "GatherND");
        std::vector<std::uint64_t> out = shape_of(idx, n - j_count, n - 1);
        for (std::size_t e = n - i_count + b + t; e < n; ++e) out.push_back(in[e]);
        node_plan p = make_plan(scatter ? "ScatterND" : "GatherND", "data", 11);
        p.data_shape = shape_of(in, n - i_count, n);
        if (scatter) p.output_shape = p.data_shape; // ScatterND's output has its data's shape
        p.inputs.push_back({"indices", index_input_of(gathered.at(1), *values, shape_of(idx, n - j_count, n), false)});
        if (scatter) {
            // ScatterND's result is defined only where no two tuples name one place (ONNX: "should
            // not have duplicate entries"); DirectML: "no guarantee of which last write wins".
            std::set<std::vector<std::int64_t>> places;
            for (std::size_t q = 0; q < values->size() / std::max<std::size_t>(t, 1); ++q) {
                std::vector<std::int64_t> tuple(values->begin() + static_cast<std::ptrdiff_t>(q * t),
                                                values->begin() + static_cast<std::ptrdiff_t>((q + 1) * t));
                for (std::size_t m = 0; m < t; ++m)
                    if (tuple[m] < 0) tuple[m] += in[n - i_count + m];
                if (!places.insert(tuple).second)
                    return std::string("SCATTER_ND with two IndicesTensor tuples naming one place (DirectML does not say which "
                                       "write wins; ScatterND leaves it undefined)");
            }
            npy::array updates = gathered.at(2);
            updates.shape = out;
            p.inputs.push_back({"updates", std::move(updates)});
        } else {
            p.output_shape = out;
            if (std::holds_alternative<gather_nd1_desc>(desc)) {
                p.opset = 12;
                p.ints = {{"batch_dims", static_cast<std::int64_t>(b)}};
            }
        }
        return p;
    }
    if (const auto* s = std::get_if<scatter_elements_desc>(&desc)) {
        const auto& in = s->input_tensor.sizes;
        const auto& idx = s->indices_tensor.sizes;
        const std::size_t a = s->axis;
        const auto values = checked_indices(gathered.at(1), element_count(idx), [&](std::size_t) { return std::int64_t{in[a]}; });
        if (!values)
            return std::string("SCATTER_ELEMENTS with an IndicesTensor value outside its Axis (dmlref refuses it; "
                               "ScatterElements calls it an error)");
        // Each index's target: its coordinate with the Axis entry replaced; two alike are undefined
        // in both (ScatterElements without reduction; DirectML: no guarantee which write wins).
        std::set<std::uint64_t> targets;
        std::vector<std::uint32_t> c(idx.size(), 0);
        for (std::size_t e = 0; e < values->size(); ++e) {
            std::uint64_t flat = 0;
            for (std::size_t d = 0; d < idx.size(); ++d) {
                const std::int64_t v = (*values)[e];
                const std::uint64_t coord = d == a ? static_cast<std::uint64_t>(v < 0 ? v + in[a] : v) : c[d];
                flat = flat * in[d] + coord;
            }
            if (!targets.insert(flat).second)
                return std::string("SCATTER_ELEMENTS with two IndicesTensor values naming one output element (DirectML does not "
                                   "say which write wins; ScatterElements leaves it undefined)");
            for (std::size_t d = idx.size(); d-- > 0;) {
                if (++c[d] < idx[d]) break;
                c[d] = 0;
            }
        }
        node_plan p = make_plan("ScatterElements", "data", 11);
        p.axis = static_cast<std::int64_t>(a);
        p.inputs.push_back({"indices", index_input_of(gathered.at(1), *values, shape_of(idx, 0, idx.size()), true)});
        p.inputs.push_back({"updates", gathered.at(2)});
        return p;
    }
    const auto& o = std::get<one_hot_desc>(desc);
    const auto& idx = o.indices_tensor.sizes;
    const npy::array& indices = gathered.at(0);
    // Every index goes in as int64 (OneHot takes any numeric type; ONNX Runtime's CPU kernels take
    // int64 with most value types). An unsigned one past 2^63 - 1 would change its meaning.
    std::vector<std::int64_t> values(element_count(idx));
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (indices.type == data_type::uint64) {
            std::uint64_t v;
            std::memcpy(&v, indices.data.data() + 8 * i, 8);
            if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                return std::string("ONE_HOT with a UINT64 index past 2^63 - 1 (an int64 OneHot index would be negative)");
        }
        values[i] = index_at(indices, i);
    }
    std::vector<std::uint64_t> shape;
    for (std::size_t d = 0; d < idx.size(); ++d)
        if (d != o.axis) shape.push_back(idx[d]);
    node_plan p = make_plan("OneHot", "indices", 11);
    p.axis = o.axis;
    if (shape.empty()) {
        // One dimension: OneHot's indices have rank 1 or more, so one index of shape {1} and the
        // output {1, depth} (the same elements).
        shape = {1};
        p.axis = 1;
        p.output_shape = std::vector<std::uint64_t>{1, o.output_tensor.sizes[0]};
    }
    p.data_value = index_input_of(indices, values, shape, false);
    p.inputs.push_back({"depth", int64_vector({std::int64_t{o.output_tensor.sizes[o.axis]}})});
    // [OffValue, OnValue]: ValuesTensor's element 0 and its element at coordinate 1 of its innermost
    // axis of size > 1, which is element 1 in C order (every later axis has size 1).
    const npy::array& v = gathered.at(1);
    const std::size_t w = element_size(v.type);
    npy::array off_on{v.type, {2}, std::vector<std::byte>(v.data.begin(), v.data.begin() + static_cast<std::ptrdiff_t>(2 * w))};
    p.inputs.push_back({"values", std::move(off_on)});
    return p;
}

std::variant<node_plan, std::string> plan_of(const operator_desc& desc, std::span<const std::vector<std::byte>> buffers) {
    if (binds_tensor_arrays(type_of(desc))) return plan_parts(desc);
    if (is_indexed(desc)) {
        const auto ins = inputs_of(desc);
        if (buffers.size() != ins.size())
            throw std::logic_error(fmt::format("the ONNX export of {} was given {} input buffers for {} input tensors",
                                               to_string(type_of(desc)), buffers.size(), ins.size()));
        std::vector<npy::array> gathered;
        for (std::size_t k = 0; k < ins.size(); ++k) {
            const buffer_tensor_desc& t = ins[k].desc();
            gathered.push_back(npy::array{t.data_type, {t.sizes.begin(), t.sizes.end()}, detail::gather(t, buffers[k])});
        }
        return std::holds_alternative<reverse_subsequences_desc>(desc) || std::holds_alternative<gather_elements_desc>(desc)
                   ? plan_indexed(desc, gathered)
                   : plan_indexed_more(desc, gathered);
    }
    if (!binds_one_input_and_output(type_of(desc)))
        return fmt::format("{} (the ONNX export writes nodes of one input and one output, and JOIN's, SPLIT's, "
                           "REVERSE_SUBSEQUENCES's and GATHER_ELEMENTS's, so "
                           "other operators with several inputs or outputs are not exported yet)",
                           to_string(type_of(desc)));
    const buffer_tensor_desc& in = inputs_of(desc).front().desc();
    auto op = std::visit(
        dmlref::single_tensor_only{"the ONNX export", [&](const auto& d) -> std::variant<node_plan, std::string> {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, padding1_desc>) {
                const auto value = dmlref::detail::padding1_value(d.output_tensor.data_type, d.padding_value);
                return plan_padding(d, std::span<const std::byte, 8>(value));
            } else if constexpr (std::is_same_v<D, padding_desc>) {
                const auto value = dmlref::detail::padding_v0_value(d.output_tensor.data_type, d.padding_value);
                return plan_padding(d, std::span<const std::byte, 8>(value));
            } else if constexpr (std::is_same_v<D, slice1_desc>) {
                return plan_slice(d.input_tensor, d.output_tensor, d.input_window_offsets, d.input_window_sizes,
                                  d.input_window_strides);
            } else if constexpr (std::is_same_v<D, element_wise_identity_desc>) {
                if (d.scale_bias) return std::string("ELEMENT_WISE_IDENTITY with a ScaleBias (arithmetic, not data movement)");
                return plan_identity(d.input_tensor);
            } else if constexpr (std::is_same_v<D, slice_grad_desc>) {
                return std::string("SLICE_GRAD (ONNX has no operator for the gradient of Slice)");
            } else if constexpr (std::is_same_v<D, tile_desc>) {
                node_plan p = make_plan("Tile", "input", 6); // Tile-6: repeats is an int64 input, one per axis
                p.inputs.push_back({"repeats", int64_vector({d.repeats.begin(), d.repeats.end()})});
                return p;
            } else if constexpr (std::is_same_v<D, upsample_2d_desc>) {
                if (d.interpolation_mode != interpolation_mode::nearest_neighbor)
                    return std::string("UPSAMPLE_2D LINEAR (arithmetic, not data movement)");
                // Scales of up to 2^24 are exact in float; larger ones are left out.
                if (d.scale_size.height > (1u << 24) || d.scale_size.width > (1u << 24))
                    return std::string("UPSAMPLE_2D with a ScaleSize above 2^24 (Resize's float scales hold it inexactly)");
                node_plan p = make_plan("Resize", "X", 11);
                p.mode = "nearest";
                p.write_mode = true;
                p.strings = {{"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}};
                std::vector<float> scales(d.input_tensor.sizes.size(), 1.0f);
                scales[scales.size() - 2] = static_cast<float>(d.scale_size.height);
                scales[scales.size() - 1] = static_cast<float>(d.scale_size.width);
                p.inputs.push_back({"roi", float_vector({})});
                p.inputs.push_back({"scales", float_vector(scales)});
                return p;
            } else if constexpr (std::is_same_v<D, slice_desc>) {
                std::vector<std::int32_t> strides(d.strides.begin(), d.strides.end());
                std::vector<std::uint32_t> windows(d.sizes.size());
                for (std::size_t k = 0; k < windows.size(); ++k) windows[k] = (d.sizes[k] - 1) * d.strides[k] + 1;
                return plan_slice(d.input_tensor, d.output_tensor, d.offsets, windows, strides);
            } else {
                constexpr bool to_space = std::is_same_v<D, depth_to_space_desc> || std::is_same_v<D, depth_to_space1_desc>;
                depth_space_order order = depth_space_order::depth_column_row;
                if constexpr (std::is_same_v<D, depth_to_space1_desc> || std::is_same_v<D, space_to_depth1_desc>) order = d.order;
                node_plan p = make_plan(to_space ? "DepthToSpace" : "SpaceToDepth", "input", 1);
                p.mode = "DCR";
                p.blocksize = d.block_size;
                if (order == depth_space_order::column_row_depth) {
                    if (!to_space)
                        return std::string("SPACE_TO_DEPTH1 COLUMN_ROW_DEPTH (SpaceToDepth has no mode before opset 28, "
                                           "which no released ONNX has)");
                    p.mode = "CRD";
                    p.write_mode = true;
                    p.opset = 11;
                }
                return p;
            }
        }},
        desc);
    if (std::holds_alternative<std::string>(op) || std::get<node_plan>(op).data_tensor) return op;
    if (is_broadcast(in)) return std::string("broadcast input (a stride of 0: a node test's input is a packed tensor)");
    if (!is_packed(in)) return std::string("strided input (a node test's input is a packed tensor)");
    return op;
}

// ---- protobuf ----------------------------------------------------------------------------------

void fill_tensor(onnx::TensorProto& t, const std::string& name, const npy::array& a) {
    t.set_name(name);
    t.set_data_type(onnx_type_of(a.type));
    for (auto s : a.shape) t.add_dims(static_cast<std::int64_t>(s));
    // raw_data is little-endian, as dmlref's buffers are on every platform it builds for.
    t.set_raw_data(a.data.data(), a.data.size());
}

void add_value_info(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                    const npy::array& a) {
    onnx::ValueInfoProto* v = list->Add();
    v->set_name(name);
    auto* tensor = v->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx_type_of(a.type));
    auto* shape = tensor->mutable_shape();
    for (auto s : a.shape) shape->add_dim()->set_dim_value(static_cast<std::int64_t>(s));
}

void write_message(const fs::path& path, const google::protobuf::MessageLite& m, npy::temporary_observer on_temporary) {
    std::string bytes;
    if (!m.SerializeToString(&bytes)) throw std::runtime_error(fmt::format("{}: the protobuf could not be serialised", path.string()));
    npy::write_file_atomically(path, std::as_bytes(std::span(bytes.data(), bytes.size())), {on_temporary});
}

/// The names of the graph inputs that hold tensor data, in order: Concat's one per part, else the one.
std::vector<std::string> data_names_of(const node_plan& p) { return p.data_names.empty() ? std::vector{p.data_name} : p.data_names; }

std::string model_bytes(const node_plan& p, const std::vector<npy::array>& data, const std::vector<npy::array>& outputs) {
    onnx::ModelProto model;
    model.set_ir_version(detail::ir_version_for(p.opset));
    model.set_producer_name("dmlref");
    model.set_producer_version(DMLREF_VERSION);
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(p.opset);
    auto* graph = model.mutable_graph();
    graph->set_name(fmt::format("dmlref_{}", p.op_type));
    auto* node = graph->add_node();
    node->set_op_type(p.op_type);
    node->set_name(p.op_type);
    const auto names = data_names_of(p);
    for (std::size_t k = 0; k < names.size(); ++k) {
        node->add_input(names[k]);
        add_value_info(graph->mutable_input(), names[k], data[k]);
    }
    for (const auto& t : p.inputs) {
        node->add_input(t.name);
        add_value_info(graph->mutable_input(), t.name, t.value);
    }
    for (std::size_t k = 0; k < p.output_names.size(); ++k) {
        node->add_output(p.output_names[k]);
        add_value_info(graph->mutable_output(), p.output_names[k], outputs[k]);
    }
    if (p.axis) {
        auto* a = node->add_attribute();
        a->set_name("axis");
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(*p.axis);
    }
    for (const auto& [name, value] : p.ints) {
        auto* a = node->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(value);
    }
    if (p.blocksize) {
        auto* a = node->add_attribute();
        a->set_name("blocksize");
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(p.blocksize);
    }
    if (!p.perm.empty()) {
        auto* a = node->add_attribute();
        a->set_name("perm");
        a->set_type(onnx::AttributeProto::INTS);
        for (const std::int64_t v : p.perm) a->add_ints(v);
    }
    auto add_string = [&](const std::string& name, const std::string& value) {
        auto* a = node->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s(value);
    };
    if (p.write_mode) add_string("mode", p.mode);
    for (const auto& [name, value] : p.strings) add_string(name, value);
    std::string bytes;
    if (!model.SerializeToString(&bytes)) throw std::runtime_error("the model could not be serialised");
    return bytes;
}

/// A scalar for case.json: integers as numbers, floats as numbers where finite, else "NaN",
/// "Infinity" or "-Infinity" (JSON has no such numbers).
nlohmann::json json_scalar(const npy::array& a) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, a.data.data(), a.data.size());
    auto sized = [&](auto zero) {
        decltype(zero) v;
        std::memcpy(&v, a.data.data(), sizeof v);
        return v;
    };
    double f = 0;
    switch (a.type) {
    case data_type::float32: f = static_cast<double>(sized(0.0f)); break;
    case data_type::float64: f = sized(0.0); break;
    case data_type::float16: f = double_from_half_bits(static_cast<std::uint16_t>(bits)); break;
    case data_type::uint8: return sized(std::uint8_t{});
    case data_type::uint16: return sized(std::uint16_t{});
    case data_type::uint32: return sized(std::uint32_t{});
    case data_type::uint64: return sized(std::uint64_t{});
    case data_type::int8: return sized(std::int8_t{});
    case data_type::int16: return sized(std::int16_t{});
    case data_type::int32: return sized(std::int32_t{});
    case data_type::int64: return sized(std::int64_t{});
    default: return nullptr;
    }
    if (f != f) return "NaN";
    if (f == std::numeric_limits<double>::infinity()) return "Infinity";
    if (f == -std::numeric_limits<double>::infinity()) return "-Infinity";
    return f;
}

// case.json, a sidecar for classifiers and people. Its fields (names are stable):
//   onnx_op        "Pad" | "Slice" | "DepthToSpace" | "SpaceToDepth" | "Identity" | "Transpose" | "Expand" |
//                  "Tile" | "Resize" | "Concat" | "Split" | "ReverseSequence" | "GatherElements"
//   opset, ir_version  what model.onnx declares
//   dml_op         "DML_OPERATOR_PADDING1", ... (the DirectML operator the case came from)
//   dml_desc       the DirectML desc in one line, DirectML's field names (strides included)
//   data_type      DirectML's name ("FLOAT16"); onnx_type: ONNX's ("float16")
//   input_shape, output_shape   the packed logical shapes of input_0.pb and output_0.pb
//   output_strides the OutputTensor's strides in DirectML (null when packed): memory layout only
//   attributes     the node's meaning: {"mode": ...} for Pad (constant, edge, reflect, wrap) and
//                  DepthToSpace / SpaceToDepth ("DCR", "CRD"; also where the attribute is left at
//                  its DCR default), {"blocksize": B} for the latter two, {"perm": [...]} for
//                  Transpose; Resize {"mode": "nearest", "coordinate_transformation_mode":
//                  "asymmetric", "nearest_mode": "floor"}; {} for Slice, Identity, Expand and Tile
//   inputs         the graph inputs after the data, by name: Pad {"pads": [...], "value": the
//                  constant (CONSTANT only; a number, or "NaN" / "Infinity" / "-Infinity"),
//                  "value_bits": its bits in hex (floating types)}; Slice {"starts", "ends",
//                  "axes", "steps"}; Expand {"shape"}; Tile {"repeats"}; Resize {"roi": [],
//                  "scales": [...]} (numbers)
//   input_names    the graph inputs in order (input_K.pb is the K-th)
//   Concat and Split (JOIN and SPLIT) also have:
//   input_shapes, output_shapes   every data input's and output's shape, in order (input_shape and
//                  output_shape are the first's)
//   input_strides  Concat: each InputTensors entry's strides in DirectML (null when packed): which
//                  buffer elements input_K.pb holds, gathered in C order
//   output_strides Split: a list, each OutputTensors entry's strides (null when packed)
//   output_names   the graph outputs in order (output_K.pb is the K-th)
//   attributes     {"axis": A}; inputs: Split {"split": [...]}
//   ReverseSequence and GatherElements (REVERSE_SUBSEQUENCES and GATHER_ELEMENTS) also have:
//   input_strides  each input tensor's strides in DirectML (null when packed), the index tensor
//                  second: which buffer elements input_K.pb holds, gathered in C order
//   index_type     the DirectML index tensor's DataType ("UINT32", ...; the ONNX input is int64,
//                  or int32 for INT32)
//   attributes     ReverseSequence {"batch_axis": B, "time_axis": T}, GatherElements {"axis": A};
//   inputs         ReverseSequence {"sequence_lens": [...]}, GatherElements {"indices": [...]} (flat, C order)
std::string case_json(const node_plan& p, const operator_desc& desc, const std::vector<npy::array>& datas,
                      const std::vector<npy::array>& outputs) {
    const buffer_tensor_desc& out = outputs_of(desc).front().desc();
    const npy::array& data = datas.front();
    const npy::array& output = outputs.front();
    const auto strides_of = [](const buffer_tensor_desc& t) {
        return t.strides && !is_packed(t) ? nlohmann::ordered_json(*t.strides) : nlohmann::ordered_json(nullptr);
    };
    nlohmann::ordered_json j;
    j["onnx_op"] = p.op_type;
    j["opset"] = p.opset;
    j["ir_version"] = detail::ir_version_for(p.opset);
    j["dml_op"] = fmt::format("DML_OPERATOR_{}", to_string(type_of(desc)));
    j["dml_desc"] = to_string(desc);
    j["data_type"] = std::string(to_string(data.type));
    j["onnx_type"] = std::string(detail::onnx_type_name(data.type));
    j["input_shape"] = data.shape;
    j["output_shape"] = output.shape;
    const bool parts = binds_tensor_arrays(type_of(desc));
    if (parts) {
        nlohmann::ordered_json in_shapes = nlohmann::ordered_json::array(), out_shapes = nlohmann::ordered_json::array(),
                               in_strides = nlohmann::ordered_json::array(), out_strides = nlohmann::ordered_json::array();
        for (const auto& a : datas) in_shapes.push_back(a.shape);
        for (const auto& a : outputs) out_shapes.push_back(a.shape);
        for (const auto& t : inputs_of(desc)) in_strides.push_back(strides_of(t.desc()));
        for (const auto& t : outputs_of(desc)) out_strides.push_back(strides_of(t.desc()));
        j["input_shapes"] = in_shapes;
        j["output_shapes"] = out_shapes;
        j["input_strides"] = in_strides;
        j["output_strides"] = std::holds_alternative<split_desc>(desc) ? out_strides : strides_of(out);
        j["output_names"] = p.output_names;
    } else {
        j["output_strides"] = strides_of(out);
    }
    if (is_indexed(desc)) {
        nlohmann::ordered_json in_strides = nlohmann::ordered_json::array();
        for (const auto& t : inputs_of(desc)) in_strides.push_back(strides_of(t.desc()));
        j["input_strides"] = in_strides;
        j["index_type"] = std::string(to_string(inputs_of(desc)[std::holds_alternative<one_hot_desc>(desc) ? 0 : 1].desc().data_type));
        // OneHot's data input is its indices: the type it moves is the output's.
        j["data_type"] = std::string(to_string(data_type_of(desc)));
        j["onnx_type"] = std::string(detail::onnx_type_name(data_type_of(desc)));
    }
    nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
    if (p.axis) attributes["axis"] = *p.axis;
    if (!p.mode.empty()) attributes["mode"] = p.mode;
    if (p.blocksize) attributes["blocksize"] = p.blocksize;
    if (!p.perm.empty()) attributes["perm"] = p.perm;
    for (const auto& [name, value] : p.ints) attributes[name] = value;
    for (const auto& [name, value] : p.strings) attributes[name] = value;
    j["attributes"] = attributes;
    nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
    std::vector<std::string> names = data_names_of(p);
    if (p.data_value) inputs[p.data_name] = as_int64(*p.data_value); // OneHot's indices (int64)
    for (const auto& t : p.inputs) {
        names.push_back(t.name);
        if (t.name == "constant_value") {
            inputs["value"] = json_scalar(t.value);
            if (t.value.type == data_type::float16 || t.value.type == data_type::float32 || t.value.type == data_type::float64) {
                std::uint64_t bits = 0;
                std::memcpy(&bits, t.value.data.data(), t.value.data.size());
                inputs["value_bits"] = fmt::format("0x{:0{}x}", bits, 2 * t.value.data.size());
            }
        } else if (t.value.type == data_type::float32) { // Resize's roi and scales
            std::vector<float> v(t.value.data.size() / 4);
            if (!v.empty()) std::memcpy(v.data(), t.value.data.data(), t.value.data.size());
            inputs[t.name] = v;
        } else if (t.name == "updates" || t.name == "values") { // ScatterElements's, ScatterND's and OneHot's data
            nlohmann::ordered_json list = nlohmann::ordered_json::array();
            const std::size_t w = element_size(t.value.type);
            for (std::size_t e = 0; e < t.value.data.size() / w; ++e) {
                const auto first = t.value.data.begin() + static_cast<std::ptrdiff_t>(e * w);
                list.push_back(nlohmann::ordered_json(json_scalar(npy::array{t.value.type, {}, std::vector<std::byte>(first, first + static_cast<std::ptrdiff_t>(w))})));
            }
            inputs[t.name] = list;
        } else if (t.value.type == data_type::int32) { // Gather's, GatherElements's and ScatterElements's INT32 indices
            std::vector<std::int32_t> v(t.value.data.size() / 4);
            if (!v.empty()) std::memcpy(v.data(), t.value.data.data(), t.value.data.size());
            inputs[t.name] = v;
        } else {
            inputs[t.name] = as_int64(t.value);
        }
    }
    j["inputs"] = inputs;
    j["input_names"] = names;
    return j.dump(2) + "\n";
}

} // namespace

namespace {

/// The export of a planned case: `desc` run over one buffer per input tensor (DirectML's binding
/// order), each bound at least TotalTensorSizeInBytes long.
void write_case(const fs::path& dir, const node_plan& p, const operator_desc& desc,
                std::span<const std::span<const std::byte>> input_buffers, npy::temporary_observer on_temporary) {
    const auto ins = inputs_of(desc), outs = outputs_of(desc);
    if (input_buffers.size() != ins.size())
        throw std::logic_error(fmt::format("the ONNX export of {} was given {} input buffers for {} input tensors",
                                           to_string(type_of(desc)), input_buffers.size(), ins.size()));
    // The input buffers as a dispatch binds them: at least TotalTensorSizeInBytes (the bytes past
    // their elements are never read); the outputs' the desc's sizes.
    std::vector<std::vector<std::byte>> in_buffers, out_buffers;
    std::vector<std::span<const std::byte>> in_spans;
    std::vector<std::span<std::byte>> out_spans;
    for (std::size_t k = 0; k < ins.size(); ++k) {
        in_buffers.emplace_back(input_buffers[k].begin(), input_buffers[k].end());
        if (in_buffers[k].size() < ins[k].desc().total_tensor_size_in_bytes)
            in_buffers[k].resize(static_cast<std::size_t>(ins[k].desc().total_tensor_size_in_bytes));
    }
    for (const auto& o : outs) out_buffers.emplace_back(static_cast<std::size_t>(o.desc().total_tensor_size_in_bytes));
    for (const auto& b : in_buffers) in_spans.emplace_back(b);
    for (auto& b : out_buffers) out_spans.emplace_back(b);
    // The expected outputs: the desc itself on the reference, each output's elements gathered in C order.
    dmlref::execute(desc, in_spans, out_spans);
    std::vector<npy::array> data, outputs;
    for (std::size_t k = 0; k < ins.size(); ++k) {
        // What the data input holds: the tensor's elements, or (IDENTITY) the buffer's in memory order.
        const buffer_tensor_desc& held = p.data_tensor ? *p.data_tensor : ins[k].desc();
        data.push_back(npy::array{held.data_type, {held.sizes.begin(), held.sizes.end()}, detail::gather(held, in_buffers[k])});
    }
    if (p.data_shape) data.front().shape = *p.data_shape; // the same elements (plan_indexed)
    if (p.data_value) data.front() = *p.data_value;
    for (std::size_t k = 0; k < outs.size(); ++k) {
        const buffer_tensor_desc& o = outs[k].desc();
        outputs.push_back(npy::array{o.data_type, {o.sizes.begin(), o.sizes.end()}, detail::gather(o, out_buffers[k])});
    }
    if (p.output_shape) outputs.front().shape = *p.output_shape; // the same elements (plan_indexed)

    fs::create_directories(dir / "test_data_set_0");
    const std::string model = model_bytes(p, data, outputs);
    npy::write_file_atomically(dir / "model.onnx", std::as_bytes(std::span(model.data(), model.size())), {on_temporary});
    std::size_t k = 0;
    auto write_input = [&](const std::string& name, const npy::array& a) {
        onnx::TensorProto t;
        fill_tensor(t, name, a);
        write_message(dir / "test_data_set_0" / fmt::format("input_{}.pb", k++), t, on_temporary);
    };
    const auto names = data_names_of(p);
    for (std::size_t i = 0; i < names.size(); ++i) write_input(names[i], data[i]);
    for (const auto& t : p.inputs) write_input(t.name, t.value);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        onnx::TensorProto expected;
        fill_tensor(expected, p.output_names[i], outputs[i]);
        write_message(dir / "test_data_set_0" / fmt::format("output_{}.pb", i), expected, on_temporary);
    }
    const std::string json = case_json(p, desc, data, outputs);
    npy::write_file_atomically(dir / "case.json", std::as_bytes(std::span(json.data(), json.size())), {on_temporary});
}

} // namespace

std::optional<std::string> export_case_buffers(const fs::path& dir, const operator_desc& desc,
                                               std::span<const std::span<const std::byte>> input_buffers, export_tally& tally,
                                               npy::temporary_observer on_temporary) {
    // The buffers as a dispatch binds them: at least TotalTensorSizeInBytes (the plan of
    // REVERSE_SUBSEQUENCES and GATHER_ELEMENTS reads the index tensor's values).
    const auto ins = inputs_of(desc);
    std::vector<std::vector<std::byte>> padded;
    for (std::size_t k = 0; k < input_buffers.size(); ++k) {
        padded.emplace_back(input_buffers[k].begin(), input_buffers[k].end());
        if (k < ins.size() && padded[k].size() < ins[k].desc().total_tensor_size_in_bytes)
            padded[k].resize(static_cast<std::size_t>(ins[k].desc().total_tensor_size_in_bytes));
    }
    auto planned = plan_of(desc, padded);
    if (auto* why = std::get_if<std::string>(&planned)) {
        ++tally.left_out[*why];
        return *why;
    }
    const node_plan& p = std::get<node_plan>(planned);
    write_case(dir, p, desc, input_buffers, on_temporary);
    ++tally.exported;
    ++tally.opsets[p.opset];
    if (p.opset > detail::newest_checked_opset) ++tally.beyond_checker;
    return std::nullopt;
}

std::optional<std::string> export_case(const fs::path& dir, const operator_desc& desc, std::span<const std::byte> input_buffer,
                                       export_tally& tally, npy::temporary_observer on_temporary) {
    return export_case_buffers(dir, desc, std::span<const std::span<const std::byte>>(&input_buffer, 1), tally, on_temporary);
}

std::string export_tally::summary() const {
    std::uint32_t total_left = 0;
    std::vector<std::string> reasons;
    for (const auto& [why, n] : left_out) {
        total_left += n;
        reasons.push_back(fmt::format("{}: {}", why, n));
    }
    std::vector<std::string> counts;
    for (const auto& [opset, n] : opsets) counts.push_back(fmt::format("{}: {}", opset, n));
    return fmt::format("onnx: exported {} node tests, left out {}{}\n"
                       "onnx opsets: {} ({} above opset {}, beyond Debian's onnx checker)\n",
                       exported, total_left, reasons.empty() ? "" : fmt::format(" ({})", fmt::join(reasons, "; ")),
                       counts.empty() ? "none" : fmt::format("{}", fmt::join(counts, ", ")), beyond_checker,
                       detail::newest_checked_opset);
}

} // namespace dmlref::node_test
