// Operator descs in DxDispatch's JSON, read and written (model_descs.hpp). Field names, enum
// spellings and defaults follow DxDispatch's parser (microsoft/DirectML, DxDispatch/src/model) and
// ../shared/spec/DECISIONS.md, "Model files".
#include "model_descs.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace dmlref::model::internal {

std::pair<std::string_view, std::string_view> tensor_names(const operator_desc& desc) {
    if (std::holds_alternative<slice_grad_desc>(desc)) return {"InputGradientTensor", "OutputGradientTensor"};
    return {"InputTensor", "OutputTensor"};
}

namespace {

/// The most tensors a TENSOR_DESC_ARRAY field may list: DirectML documents no bound, and a model
/// file is read with bounded memory.
constexpr std::size_t max_tensor_array = 65536;

/// A TENSOR_DESC_ARRAY field and the count field that DxDispatch requires beside it.
std::vector<buffer_tensor_desc> tensor_array(const json& d, const at& where, std::string_view field, std::string_view count_field) {
    const json& a = require(d, where, field);
    const at wa = where / field;
    if (!a.is_array()) wa.fail("expected an array of tensor descs, got " + shown(a));
    if (a.size() > max_tensor_array) wa.fail(fmt::format("has {} entries; dmlref reads at most {}", a.size(), max_tensor_array));
    std::vector<buffer_tensor_desc> tensors;
    for (std::size_t k = 0; k < a.size(); ++k) tensors.push_back(tensor_desc(a[k], wa[k]));
    const std::uint32_t count = integer<std::uint32_t>(require(d, where, count_field), where / count_field);
    if (count != tensors.size()) (where / count_field).fail(fmt::format("is {}; {} has {} entries", count, field, tensors.size()));
    return tensors;
}

operator_desc operator_desc_field(operator_type type, const json& d, const at& where) {
    auto in = [&] { return tensor_desc(require(d, where, "InputTensor"), where / "InputTensor"); };
    auto out = [&] { return tensor_desc(require(d, where, "OutputTensor"), where / "OutputTensor"); };
    auto u32s = [&](std::string_view name) { return integers<std::uint32_t>(require(d, where, name), where / name); };
    auto u32 = [&](std::string_view name) { return integer<std::uint32_t>(require(d, where, name), where / name); };
    auto indices = [&] { return tensor_desc(require(d, where, "IndicesTensor"), where / "IndicesTensor"); };
    auto block = [&] { return integer<std::uint32_t>(require(d, where, "BlockSize"), where / "BlockSize"); };
    auto order = [&] {
        return enumeration<depth_space_order>(require(d, where, "Order"), where / "Order",
                                              [](std::string_view s) { return parse_depth_space_order(s); },
                                              "DML_DEPTH_SPACE_ORDER", {"DEPTH_COLUMN_ROW", "COLUMN_ROW_DEPTH"});
    };
    auto mode = [&] {
        return enumeration<padding_mode>(require(d, where, "PaddingMode"), where / "PaddingMode",
                                         [](std::string_view s) { return parse_padding_mode(s); }, "DML_PADDING_MODE",
                                         {"CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP"});
    };
    const std::initializer_list<std::string_view> depth_space_keys = {"InputTensor", "OutputTensor", "BlockSize"};
    switch (type) {
    case operator_type::join: { // DxDispatch: InputCount is a required field, not derived
        only_keys(d, where, {"InputCount", "InputTensors", "OutputTensor", "Axis"});
        join_desc j{tensor_array(d, where, "InputTensors", "InputCount"), out(), 0};
        j.axis = integer<std::uint32_t>(require(d, where, "Axis"), where / "Axis");
        return j;
    }
    case operator_type::split: {
        only_keys(d, where, {"InputTensor", "OutputCount", "OutputTensors", "Axis"});
        split_desc s{in(), tensor_array(d, where, "OutputTensors", "OutputCount"), 0};
        s.axis = integer<std::uint32_t>(require(d, where, "Axis"), where / "Axis");
        return s;
    }
    case operator_type::gather: { // DxDispatch: every field required
        only_keys(d, where, {"InputTensor", "IndicesTensor", "OutputTensor", "Axis", "IndexDimensions"});
        gather_desc g{in(), indices(), out(), u32("Axis"), 0};
        g.index_dimensions = u32("IndexDimensions");
        return g;
    }
    case operator_type::gather_elements: {
        only_keys(d, where, {"InputTensor", "IndicesTensor", "OutputTensor", "Axis"});
        gather_elements_desc g{in(), indices(), out(), 0};
        g.axis = u32("Axis");
        return g;
    }
    case operator_type::gather_nd: {
        only_keys(d, where, {"InputTensor", "IndicesTensor", "OutputTensor", "InputDimensionCount", "IndicesDimensionCount"});
        gather_nd_desc g{in(), indices(), out(), u32("InputDimensionCount"), 0};
        g.indices_dimension_count = u32("IndicesDimensionCount");
        return g;
    }
    case operator_type::gather_nd1: {
        only_keys(d, where, {"InputTensor", "IndicesTensor", "OutputTensor", "InputDimensionCount", "IndicesDimensionCount",
                             "BatchDimensionCount"});
        gather_nd1_desc g{in(), indices(), out(), u32("InputDimensionCount"), 0, 0};
        g.indices_dimension_count = u32("IndicesDimensionCount");
        g.batch_dimension_count = u32("BatchDimensionCount");
        return g;
    }
    case operator_type::scatter_elements: { // DxDispatch's DML_OPERATOR_SCATTER: every field required
        only_keys(d, where, {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor", "Axis"});
        scatter_elements_desc s{in(), indices(), tensor_desc(require(d, where, "UpdatesTensor"), where / "UpdatesTensor"), out(), 0};
        s.axis = u32("Axis");
        return s;
    }
    case operator_type::scatter_nd: {
        only_keys(d, where, {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor", "InputDimensionCount",
                             "IndicesDimensionCount"});
        scatter_nd_desc s{in(), indices(), tensor_desc(require(d, where, "UpdatesTensor"), where / "UpdatesTensor"), out(), 0, 0};
        s.input_dimension_count = u32("InputDimensionCount");
        s.indices_dimension_count = u32("IndicesDimensionCount");
        return s;
    }
    case operator_type::one_hot: {
        only_keys(d, where, {"IndicesTensor", "ValuesTensor", "OutputTensor", "Axis"});
        one_hot_desc h{indices(), tensor_desc(require(d, where, "ValuesTensor"), where / "ValuesTensor"), out(), 0};
        h.axis = u32("Axis");
        return h;
    }
    case operator_type::reverse_subsequences: { // DxDispatch: all four fields required
        only_keys(d, where, {"InputTensor", "SequenceLengthsTensor", "OutputTensor", "Axis"});
        reverse_subsequences_desc r{in(), tensor_desc(require(d, where, "SequenceLengthsTensor"), where / "SequenceLengthsTensor"),
                                    out(), 0};
        r.axis = integer<std::uint32_t>(require(d, where, "Axis"), where / "Axis");
        return r;
    }
    case operator_type::depth_to_space:
        only_keys(d, where, depth_space_keys);
        return depth_to_space_desc{in(), out(), block()};
    case operator_type::space_to_depth:
        only_keys(d, where, depth_space_keys);
        return space_to_depth_desc{in(), out(), block()};
    case operator_type::depth_to_space1:
        only_keys(d, where, {"InputTensor", "OutputTensor", "BlockSize", "Order"});
        return depth_to_space1_desc{in(), out(), block(), order()};
    case operator_type::space_to_depth1:
        only_keys(d, where, {"InputTensor", "OutputTensor", "BlockSize", "Order"});
        return space_to_depth1_desc{in(), out(), block(), order()};
    case operator_type::slice: {
        only_keys(d, where, {"InputTensor", "OutputTensor", "DimensionCount", "Offsets", "Sizes", "Strides"});
        slice_desc s{in(), out(), u32s("Offsets"), u32s("Sizes"), u32s("Strides")};
        dimension_count(d, where, s.offsets.size(), "Offsets");
        return s;
    }
    case operator_type::slice1: {
        only_keys(d, where, {"InputTensor", "OutputTensor", "DimensionCount", "InputWindowOffsets", "InputWindowSizes",
                             "InputWindowStrides"});
        slice1_desc s{in(), out(), u32s("InputWindowOffsets"), u32s("InputWindowSizes"),
                      integers<std::int32_t>(require(d, where, "InputWindowStrides"), where / "InputWindowStrides")};
        dimension_count(d, where, s.input_window_offsets.size(), "InputWindowOffsets");
        return s;
    }
    case operator_type::padding: {
        only_keys(d, where, {"InputTensor", "OutputTensor", "PaddingMode", "PaddingValue", "DimensionCount",
                             "StartPadding", "EndPadding"});
        padding_desc p{in(), out(), mode(), 0.0f, u32s("StartPadding"), u32s("EndPadding")};
        if (const json* v = find(d, "PaddingValue")) p.padding_value = static_cast<float>(floating(*v, where / "PaddingValue"));
        dimension_count(d, where, p.start_padding.size(), "StartPadding");
        return p;
    }
    case operator_type::padding1: {
        only_keys(d, where, {"InputTensor", "OutputTensor", "PaddingMode", "PaddingValueDataType", "PaddingValue",
                             "DimensionCount", "StartPadding", "EndPadding"});
        padding1_desc p{in(), out(), mode(), data_type::unknown, {}, u32s("StartPadding"), u32s("EndPadding")};
        p.padding_value_data_type = data_type_field(require(d, where, "PaddingValueDataType"), where / "PaddingValueDataType");
        if (const json* v = find(d, "PaddingValue"))
            p.padding_value = scalar_union_field(p.padding_value_data_type, *v, where / "PaddingValue");
        dimension_count(d, where, p.start_padding.size(), "StartPadding");
        return p;
    }
    case operator_type::element_wise_identity: {
        only_keys(d, where, {"InputTensor", "OutputTensor", "ScaleBias"});
        element_wise_identity_desc e{in(), out(), std::nullopt};
        if (const json* v = find(d, "ScaleBias")) { // DxDispatch: {"Scale": 2, "Bias": 10}, both required
            const at w = where / "ScaleBias";
            object(*v, w);
            only_keys(*v, w, {"Scale", "Bias"});
            e.scale_bias = dmlref::scale_bias{static_cast<float>(floating(require(*v, w, "Scale"), w / "Scale")),
                                      static_cast<float>(floating(require(*v, w, "Bias"), w / "Bias"))};
        }
        return e;
    }
    case operator_type::slice_grad: { // DxDispatch's field names: DirectML's, InputGradientTensor and OutputGradientTensor
        only_keys(d, where, {"InputGradientTensor", "OutputGradientTensor", "DimensionCount", "InputWindowOffsets",
                             "InputWindowSizes", "InputWindowStrides"});
        slice_grad_desc s{tensor_desc(require(d, where, "InputGradientTensor"), where / "InputGradientTensor"),
                          tensor_desc(require(d, where, "OutputGradientTensor"), where / "OutputGradientTensor"),
                          u32s("InputWindowOffsets"), u32s("InputWindowSizes"),
                          integers<std::int32_t>(require(d, where, "InputWindowStrides"), where / "InputWindowStrides")};
        dimension_count(d, where, s.input_window_offsets.size(), "InputWindowOffsets");
        return s;
    }
    case operator_type::tile: { // DxDispatch: RepeatsCount is a required field, not derived
        only_keys(d, where, {"InputTensor", "OutputTensor", "RepeatsCount", "Repeats"});
        tile_desc t{in(), out(), u32s("Repeats")};
        const std::uint32_t count = integer<std::uint32_t>(require(d, where, "RepeatsCount"), where / "RepeatsCount");
        if (count != t.repeats.size())
            (where / "RepeatsCount").fail(fmt::format("is {}; Repeats has {} entries", count, t.repeats.size()));
        return t;
    }
    case operator_type::upsample_2d: { // DxDispatch: ScaleSize {"Width": 2, "Height": 2}, both required
        only_keys(d, where, {"InputTensor", "OutputTensor", "ScaleSize", "InterpolationMode"});
        upsample_2d_desc u{in(), out(), {}, interpolation_mode::nearest_neighbor};
        const at w = where / "ScaleSize";
        const json& scale = require(d, where, "ScaleSize");
        object(scale, w);
        only_keys(scale, w, {"Width", "Height"});
        u.scale_size.width = integer<std::uint32_t>(require(scale, w, "Width"), w / "Width");
        u.scale_size.height = integer<std::uint32_t>(require(scale, w, "Height"), w / "Height");
        u.interpolation_mode = enumeration<interpolation_mode>(
            require(d, where, "InterpolationMode"), where / "InterpolationMode",
            [](std::string_view s) { return parse_interpolation_mode(s); }, "DML_INTERPOLATION_MODE",
            {"NEAREST_NEIGHBOR", "LINEAR"});
        return u;
    }
    }
    where.fail("unknown operator");
}

} // namespace

operator_desc dispatchable_field(const json& value, const at& where) {
    object(value, where);
    only_keys(value, where, {"type", "desc", "executionFlags"});
    const std::string type = string(require(value, where, "type"), where / "type");
    const auto op = parse_operator_type(type);
    if (!op) {
        std::string runs; // every operator_desc alternative, in the variant's order
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((runs += (I == 0 ? "DML_OPERATOR_" : ", ") +
                      std::string(to_string(std::variant_alternative_t<I, operator_desc>::type))),
             ...);
        }(std::make_index_sequence<std::variant_size_v<operator_desc>>{});
        (where / "type").fail(fmt::format("'{}' is not supported by dmlref (it runs {})", type, runs));
    }
    const at wdesc = where / "desc";
    return operator_desc_field(*op, object(require(value, where, "desc"), wdesc), wdesc);
}

} // namespace dmlref::model::internal

namespace dmlref::model {
using namespace internal;
namespace {

json float_json(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
    return v;
}

json tensor_json(const buffer_tensor_desc& t) {
    json j = {{"DataType", to_string(t.data_type)}, {"Sizes", t.sizes}};
    if (t.strides) j["Strides"] = *t.strides;
    if (t.flags != tensor_flags::none) j["Flags"] = to_string(t.flags);
    j["TotalTensorSizeInBytes"] = t.total_tensor_size_in_bytes;
    if (t.guaranteed_base_offset_alignment != 0) j["GuaranteedBaseOffsetAlignment"] = t.guaranteed_base_offset_alignment;
    return j;
}

/// DML_SCALAR_UNION in DxDispatch's member form for the element type.
json scalar_json(data_type type, const scalar_union& u) {
    const std::string member(union_member(type).first);
    switch (type) {
    case data_type::float16: return {{member, u.as<std::uint16_t>()}};
    case data_type::float32: return {{member, float_json(u.as<float>())}};
    case data_type::float64: return {{member, float_json(u.as<double>())}};
    case data_type::uint8: return {{member, u.as<std::uint8_t>()}};
    case data_type::int8: return {{member, u.as<std::int8_t>()}};
    case data_type::uint16: return {{member, u.as<std::uint16_t>()}};
    case data_type::int16: return {{member, u.as<std::int16_t>()}};
    case data_type::uint32: return {{member, u.as<std::uint32_t>()}};
    case data_type::int32: return {{member, u.as<std::int32_t>()}};
    case data_type::uint64: return {{member, u.as<std::uint64_t>()}};
    case data_type::int64: return {{member, u.as<std::int64_t>()}};
    default: return {{"Bytes", u.bytes}};
    }
}

json desc_json(const operator_desc& desc) {
    if (const auto* j = std::get_if<join_desc>(&desc)) {
        json inputs = json::array();
        for (const auto& t : j->input_tensors) inputs.push_back(tensor_json(t));
        return {{"InputCount", j->input_tensors.size()}, {"InputTensors", inputs}, {"OutputTensor", tensor_json(j->output_tensor)},
                {"Axis", j->axis}};
    }
    if (const auto* s = std::get_if<split_desc>(&desc)) {
        json outputs = json::array();
        for (const auto& t : s->output_tensors) outputs.push_back(tensor_json(t));
        return {{"InputTensor", tensor_json(s->input_tensor)}, {"OutputCount", s->output_tensors.size()},
                {"OutputTensors", outputs}, {"Axis", s->axis}};
    }
    if (const auto* r = std::get_if<reverse_subsequences_desc>(&desc))
        return {{"InputTensor", tensor_json(r->input_tensor)}, {"SequenceLengthsTensor", tensor_json(r->sequence_lengths_tensor)},
                {"OutputTensor", tensor_json(r->output_tensor)}, {"Axis", r->axis}};
    if (!binds_one_input_and_output(type_of(desc))) { // the indexed operators: each tensor by its field, then the rest
        json j = json::object();
        for (const auto& t : inputs_of(desc)) j[t.field] = tensor_json(t.desc());
        for (const auto& t : outputs_of(desc)) j[t.field] = tensor_json(t.desc());
        std::visit(
            [&](const auto& g) {
                using D = std::remove_cvref_t<decltype(g)>;
                if constexpr (is_gather_desc_v<D> || is_scatter_desc_v<D> || std::is_same_v<D, one_hot_desc>) {
                    if constexpr (requires { g.axis; }) j["Axis"] = g.axis;
                    if constexpr (std::is_same_v<D, gather_desc>) j["IndexDimensions"] = g.index_dimensions;
                    if constexpr (requires { g.input_dimension_count; }) {
                        j["InputDimensionCount"] = g.input_dimension_count;
                        j["IndicesDimensionCount"] = g.indices_dimension_count;
                    }
                    if constexpr (std::is_same_v<D, gather_nd1_desc>) j["BatchDimensionCount"] = g.batch_dimension_count;
                }
            },
            desc);
        return j;
    }
    return std::visit(
        dmlref::single_tensor_only{"the model writer", [](const auto& d) {
            using D = std::remove_cvref_t<decltype(d)>;
            const auto [in_name, out_name] = tensor_names(operator_desc(d));
            json j = {{in_name, tensor_json(d.input_tensor)}, {out_name, tensor_json(d.output_tensor)}};
            if constexpr (requires { d.block_size; }) j["BlockSize"] = d.block_size;
            if constexpr (requires { d.order; }) j["Order"] = to_string(d.order);
            if constexpr (std::is_same_v<D, slice_desc>) {
                j["DimensionCount"] = d.offsets.size();
                j["Offsets"] = d.offsets;
                j["Sizes"] = d.sizes;
                j["Strides"] = d.strides;
            }
            if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_grad_desc>) {
                j["DimensionCount"] = d.input_window_offsets.size();
                j["InputWindowOffsets"] = d.input_window_offsets;
                j["InputWindowSizes"] = d.input_window_sizes;
                j["InputWindowStrides"] = d.input_window_strides;
            }
            if constexpr (requires { d.padding_mode; }) {
                j["PaddingMode"] = to_string(d.padding_mode);
                if constexpr (std::is_same_v<D, padding_desc>) {
                    j["PaddingValue"] = float_json(d.padding_value);
                } else {
                    j["PaddingValueDataType"] = to_string(d.padding_value_data_type);
                    j["PaddingValue"] = scalar_json(d.padding_value_data_type, d.padding_value);
                }
                j["DimensionCount"] = d.start_padding.size();
                j["StartPadding"] = d.start_padding;
                j["EndPadding"] = d.end_padding;
            }
            if constexpr (std::is_same_v<D, element_wise_identity_desc>)
                if (d.scale_bias)
                    j["ScaleBias"] = {{"Scale", float_json(d.scale_bias->scale)}, {"Bias", float_json(d.scale_bias->bias)}};
            if constexpr (std::is_same_v<D, tile_desc>) {
                j["RepeatsCount"] = d.repeats.size();
                j["Repeats"] = d.repeats;
            }
            if constexpr (std::is_same_v<D, upsample_2d_desc>) {
                j["ScaleSize"] = {{"Width", d.scale_size.width}, {"Height", d.scale_size.height}};
                const auto mode = static_cast<std::uint32_t>(d.interpolation_mode);
                if (mode <= 1) j["InterpolationMode"] = "DML_INTERPOLATION_MODE_" + std::string(to_string(d.interpolation_mode));
                else j["InterpolationMode"] = mode;
            }
            return j;
        }},
        desc);
}

/// {"type": "DML_OPERATOR_...", "desc": {...}}: a model's dispatchable.
json dispatchable_object(const operator_desc& desc) {
    // SCATTER_ELEMENTS under its older name, the only one DxDispatch reads.
    const std::string_view name = type_of(desc) == operator_type::scatter_elements ? "SCATTER" : to_string(type_of(desc));
    return {{"type", "DML_OPERATOR_" + std::string(name)}, {"desc", desc_json(desc)}};
}

} // namespace

std::string dispatchable_json(const operator_desc& desc) { return dispatchable_object(desc).dump(); }

std::string operator_model(const operator_desc& desc, std::span<const model_tensor> inputs, std::span<const model_tensor> outputs) {
    const auto ins = inputs_of(desc), outs = outputs_of(desc);
    if (inputs.size() != ins.size() || outputs.size() != outs.size())
        throw validation_error(fmt::format("the model writer: {} binds {} input and {} output tensors; {} and {} resources were given",
                                           to_string(type_of(desc)), ins.size(), outs.size(), inputs.size(), outputs.size()));
    json resources = json::object(), bindings = json::object(), commands = json::array();
    // A tensor array's entries ("InputTensors[2]") bind as one JSON array under the field's name.
    const auto bind = [&bindings](const std::string& field, const std::string& resource) {
        const auto open = field.find('[');
        if (open == std::string::npos) {
            bindings[field] = resource;
            return;
        }
        json& array = bindings[field.substr(0, open)];
        if (array.is_null()) array = json::array();
        array.push_back(resource);
    };
    for (std::size_t k = 0; k < ins.size(); ++k) {
        resources[inputs[k].resource] = {{"initialValues", {{"sourcePath", inputs[k].path}}}};
        bind(ins[k].field, inputs[k].resource);
    }
    for (std::size_t k = 0; k < outs.size(); ++k) {
        resources[outputs[k].resource] = {{"initialValuesDataType", to_string(outs[k].desc().data_type)},
                                          {"initialValues", {{"valueCount", outputs[k].values}, {"value", 0}}}};
        bind(outs[k].field, outputs[k].resource);
    }
    commands.push_back({{"type", "dispatch"}, {"dispatchable", "op"}, {"bindings", bindings}});
    for (const model_tensor& o : outputs) commands.push_back({{"type", "writeFile"}, {"targetPath", o.path}, {"resource", o.resource}});
    const json model = {{"resources", resources}, {"dispatchables", {{"op", dispatchable_object(desc)}}}, {"commands", commands}};
    return model.dump(1) + "\n";
}

std::string single_operator_model(const operator_desc& desc, std::uint64_t output_values, std::string_view input_path,
                                  std::string_view output_path) {
    std::visit(dmlref::single_tensor_only{"the model writer", [](const auto&) {}}, desc);
    const model_tensor in{"input", std::string(input_path), 0}, out{"output", std::string(output_path), output_values};
    return operator_model(desc, std::span(&in, 1), std::span(&out, 1));
}

} // namespace dmlref::model
