// DxDispatch model files: parsing, checking and running on the reference. Field names, enum
// spellings and defaults follow DxDispatch's parser (microsoft/DirectML, DxDispatch/src/model) and
// ../shared/spec/DECISIONS.md, "Model files".
#include "model.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <new>
#include <cstdlib>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <dmlref/detail/checked.hpp>
#include <dmlref/format.hpp>
#include <dmlref/npy.hpp>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h> // GlobalMemoryStatusEx
#endif

namespace dmlref::model {
namespace {

using json = nlohmann::json;

/// Where a field is: the file's name and the JSON path ("dispatchables.op.desc.Sizes[2]"). It owns
/// its text: a caller's temporary (a path's string) must not outlive it.
struct at {
    std::string file;
    std::string path;

    at operator/(std::string_view key) const { return {file, path.empty() ? std::string(key) : path + "." + std::string(key)}; }
    at operator[](std::size_t i) const { return {file, path + "[" + std::to_string(i) + "]"}; }

    [[noreturn]] void fail(std::string_view what) const {
        throw model_error(path.empty() ? fmt::format("{}: {}", file, what) : fmt::format("{}: {}: {}", file, path, what));
    }
};

/// Appends a JSON value to `out` until it holds `limit` characters: a message shows the start of
/// a value, and never dumps (and so copies) a whole large array or string.
void show_into(std::string& out, const json& v, std::size_t limit) {
    if (out.size() >= limit) return;
    if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        // Cut at any byte, a string may end inside a UTF-8 sequence: replaced, not thrown.
        out += json(s.substr(0, limit - std::min(limit, out.size()))).dump(-1, ' ', false, json::error_handler_t::replace);
    } else if (v.is_array()) {
        out += '[';
        for (std::size_t i = 0; i < v.size() && out.size() < limit; ++i) {
            if (i) out += ',';
            show_into(out, v[i], limit);
        }
        out += ']';
    } else if (v.is_object()) {
        out += '{';
        bool first = true;
        for (auto it = v.begin(); it != v.end() && out.size() < limit; ++it) {
            if (!first) out += ',';
            first = false;
            out += json(it.key().substr(0, limit - std::min(limit, out.size()))).dump(-1, ' ', false, json::error_handler_t::replace);
            out += ':';
            show_into(out, it.value(), limit);
        }
        out += '}';
    } else {
        out += v.dump();
    }
}

/// A JSON value for messages, shortened.
std::string shown(const json& v) {
    std::string s;
    show_into(s, v, 61);
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

const json& object(const json& v, const at& where) {
    if (!v.is_object()) where.fail("expected an object, got " + shown(v));
    return v;
}

/// Refuses keys outside `known`: a misspelt field must not silently fall back to its default.
void only_keys(const json& obj, const at& where, std::initializer_list<std::string_view> known) {
    for (const auto& [key, value] : obj.items())
        if (std::find(known.begin(), known.end(), key) == known.end()) {
            std::string list;
            for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
            (where / key).fail(fmt::format("unknown field (expected one of {})", list));
        }
}

const json* find(const json& obj, std::string_view key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

const json& require(const json& obj, const at& where, std::string_view key) {
    if (const json* v = find(obj, key)) return *v;
    where.fail(fmt::format("missing field '{}'", key));
}

std::string string(const json& v, const at& where) {
    if (!v.is_string()) where.fail("expected a string, got " + shown(v));
    return v.get<std::string>();
}

template <class T> T integer(const json& v, const at& where) {
    constexpr auto type_name = std::is_signed_v<T> ? "a signed" : "an unsigned";
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
    } else if (v.is_number_integer()) {
        const auto s = v.get<std::int64_t>();
        if (s >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
            (s < 0 || static_cast<std::uint64_t>(s) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
            return static_cast<T>(s);
    }
    where.fail(fmt::format("expected {} {}-bit integer, got {}", type_name, sizeof(T) * 8, shown(v)));
}

/// A JSON number or "NaN", "Inf", "-Inf" (any case).
double floating(const json& v, const at& where) {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
        const std::string s = lower(v.get<std::string>());
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    where.fail("expected a number or 'NaN', 'Inf', '-Inf', got " + shown(v));
}

template <class T> std::vector<T> integers(const json& v, const at& where) {
    if (!v.is_array()) where.fail("expected an array of integers, got " + shown(v));
    if (v.size() > 64) where.fail(fmt::format("has {} entries; DirectML allows at most 8 dimensions", v.size()));
    std::vector<T> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(integer<T>(v[i], where[i]));
    return out;
}

template <class E> E enumeration(const json& v, const at& where, std::optional<E> (*parse)(std::string_view),
                                 std::string_view what, std::initializer_list<std::string_view> choices) {
    const std::string s = string(v, where);
    if (auto e = parse(s)) return *e;
    std::string list;
    for (auto c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
    where.fail(fmt::format("'{}' is not a {} (expected one of {}, with or without the DML prefix)", s, what, list));
}

data_type data_type_field(const json& v, const at& where) {
    const data_type t = enumeration<data_type>(v, where, [](std::string_view s) { return parse_data_type(s); },
                                               "DML_TENSOR_DATA_TYPE",
                                               {"FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16",
                                                "INT8", "FLOAT64", "UINT64", "INT64"});
    if (element_size(t) == 0) where.fail(fmt::format("'{}' is not supported by dmlref's data-movement operators", string(v, where)));
    return t;
}

tensor_flags flags_field(const json& v, const at& where) {
    auto one = [](const json& f, const at& w) {
        const std::string s = string(f, w);
        const std::string_view name = strip_prefix(s, "DML_TENSOR_FLAG_");
        if (name == "NONE") return 0u;
        if (name == "OWNED_BY_DML") return 1u;
        w.fail(fmt::format("'{}' is not a DML_TENSOR_FLAGS value (expected NONE or OWNED_BY_DML)", s));
    };
    std::uint32_t bits = 0;
    if (v.is_array())
        for (std::size_t i = 0; i < v.size(); ++i) bits |= one(v[i], where[i]);
    else
        bits = one(v, where);
    return static_cast<tensor_flags>(bits);
}

/// DML_TENSOR_DESC: a buffer tensor desc, directly or as {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {...}}.
buffer_tensor_desc tensor_desc(const json& v, const at& where_outer) {
    at where = where_outer;
    const json* t = &object(v, where);
    if (const json* wrapped = find(*t, "Desc")) {
        only_keys(*t, where, {"Type", "Desc"});
        if (const json* type = find(*t, "Type"); type && strip_prefix(string(*type, where / "Type"), "DML_TENSOR_TYPE_") != "BUFFER")
            (where / "Type").fail(fmt::format("'{}' is not supported by dmlref (only DML_TENSOR_TYPE_BUFFER)", string(*type, where)));
        where = where / "Desc";
        t = &object(*wrapped, where);
    }
    only_keys(*t, where, {"Type", "DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
                          "GuaranteedBaseOffsetAlignment"});
    buffer_tensor_desc d;
    d.data_type = data_type_field(require(*t, where, "DataType"), where / "DataType");
    d.sizes = integers<std::uint32_t>(require(*t, where, "Sizes"), where / "Sizes");
    if (const json* s = find(*t, "Strides")) {
        d.strides = integers<std::uint32_t>(*s, where / "Strides");
        if (d.strides->size() != d.sizes.size())
            (where / "Strides").fail(fmt::format("has {} entries; Sizes has {}", d.strides->size(), d.sizes.size()));
    }
    if (const json* n = find(*t, "DimensionCount"); n && integer<std::uint32_t>(*n, where / "DimensionCount") != d.sizes.size())
        (where / "DimensionCount").fail(fmt::format("is {}; Sizes has {} entries", shown(*n), d.sizes.size()));
    if (const json* f = find(*t, "Flags")) d.flags = flags_field(*f, where / "Flags");
    if (const json* a = find(*t, "GuaranteedBaseOffsetAlignment"))
        d.guaranteed_base_offset_alignment = integer<std::uint32_t>(*a, where / "GuaranteedBaseOffsetAlignment");
    const json* total = find(*t, "TotalTensorSizeInBytes");
    d.total_tensor_size_in_bytes = total ? integer<std::uint64_t>(*total, where / "TotalTensorSizeInBytes") : 0;
    if (d.total_tensor_size_in_bytes == 0) d.total_tensor_size_in_bytes = calc_buffer_tensor_size(d); // DxDispatch's default
    return d;
}

/// The bytes of `value` converted to `type` (a JSON number, or "NaN"/"Inf"/"-Inf" for floats).
std::array<std::uint8_t, 8> scalar_bytes(data_type type, const json& v, const at& where) {
    std::array<std::uint8_t, 8> bytes{};
    auto put = [&](auto x) { std::memcpy(bytes.data(), &x, sizeof(x)); };
    switch (type) {
    case data_type::float16: put(half_bits_from_double(floating(v, where))); break;
    case data_type::float32: put(static_cast<float>(floating(v, where))); break;
    case data_type::float64: put(floating(v, where)); break;
    case data_type::uint8: put(integer<std::uint8_t>(v, where)); break;
    case data_type::int8: put(integer<std::int8_t>(v, where)); break;
    case data_type::uint16: put(integer<std::uint16_t>(v, where)); break;
    case data_type::int16: put(integer<std::int16_t>(v, where)); break;
    case data_type::uint32: put(integer<std::uint32_t>(v, where)); break;
    case data_type::int32: put(integer<std::int32_t>(v, where)); break;
    case data_type::uint64: put(integer<std::uint64_t>(v, where)); break;
    case data_type::int64: put(integer<std::int64_t>(v, where)); break;
    default: where.fail(fmt::format("data type {} has no scalar form", to_string(type)));
    }
    return bytes;
}

/// The DML_SCALAR_UNION member that holds `type` (FLOAT16 is the UInt16 member: raw half bits).
std::pair<std::string_view, data_type> union_member(data_type type) {
    switch (type) {
    case data_type::float16: return {"UInt16", data_type::uint16};
    case data_type::float32: return {"Float32", type};
    case data_type::float64: return {"Float64", type};
    case data_type::uint8: return {"UInt8", type};
    case data_type::int8: return {"Int8", type};
    case data_type::uint16: return {"UInt16", type};
    case data_type::int16: return {"Int16", type};
    case data_type::uint32: return {"UInt32", type};
    case data_type::int32: return {"Int32", type};
    case data_type::uint64: return {"UInt64", type};
    case data_type::int64: return {"Int64", type};
    default: return {"?", type};
    }
}

/// DML_SCALAR_UNION: a number converted to `type`, {"<Member>": value} or {"Bytes": [b0, ..., b7]}.
scalar_union scalar_union_field(data_type type, const json& v, const at& where) {
    scalar_union u;
    if (!v.is_object()) {
        u.bytes = scalar_bytes(type, v, where);
        return u;
    }
    const auto [member, member_type] = union_member(type);
    if (const json* raw = find(v, "Bytes")) {
        only_keys(v, where, {"Bytes"});
        const auto b = integers<std::uint8_t>(*raw, where / "Bytes");
        if (b.size() > 8) (where / "Bytes").fail(fmt::format("has {} entries; DML_SCALAR_UNION has 8 bytes", b.size()));
        std::copy(b.begin(), b.end(), u.bytes.begin());
        return u;
    }
    if (v.size() != 1 || !v.contains(member))
        where.fail(fmt::format("expected {{\"{}\": ...}} for data type {} (or {{\"Bytes\": [...]}}), got {}", member,
                               to_string(type), shown(v)));
    u.bytes = scalar_bytes(member_type, v.at(std::string(member)), where / member);
    return u;
}

/// The op-level DimensionCount (optional) must match the arrays' lengths.
void dimension_count(const json& desc, const at& where, std::size_t length, std::string_view array_name) {
    if (const json* n = find(desc, "DimensionCount"); n && integer<std::uint32_t>(*n, where / "DimensionCount") != length)
        (where / "DimensionCount").fail(fmt::format("is {}; {} has {} entries", shown(*n), array_name, length));
}

/// The names DirectML (and DxDispatch's desc fields and bindings) give the op's two tensors.
std::pair<std::string_view, std::string_view> tensor_names(const operator_desc& desc) {
    if (std::holds_alternative<slice_grad_desc>(desc)) return {"InputGradientTensor", "OutputGradientTensor"};
    return {"InputTensor", "OutputTensor"};
}

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

/// A dispatchable, {"type": "DML_OPERATOR_...", "desc": {...}}, at `where`; not validated.
operator_desc dispatchable_field(const json& value, const at& where) {
    object(value, where);
    only_keys(value, where, {"type", "desc", "executionFlags"});
    const std::string type = string(require(value, where, "type"), where / "type");
    const auto op = parse_operator_type(type);
    if (!op)
        (where / "type").fail(fmt::format("'{}' is not supported by dmlref (it runs DML_OPERATOR_DEPTH_TO_SPACE, "
                                          "DEPTH_TO_SPACE1, SPACE_TO_DEPTH, SPACE_TO_DEPTH1, SLICE, SLICE1, PADDING, PADDING1, "
                                          "ELEMENT_WISE_IDENTITY, SLICE_GRAD)",
                                          type));
    const at wdesc = where / "desc";
    return operator_desc_field(*op, object(require(value, where, "desc"), wdesc), wdesc);
}

/// A regular file opened for reading, with its size when opened; or why it could not be.
struct opened_file {
    npy::detail::file_handle file;
    std::uint64_t size = 0;
    std::string error; ///< empty when opened
};

/// Opens `path` only if it is a regular file. The type is checked on the opened file itself
/// (POSIX: open without blocking, then fstat), so a FIFO that no one writes, /dev/zero, a folder
/// or a terminal is refused before a byte is read and cannot be swapped in after the check.
opened_file open_regular(const std::filesystem::path& path) {
    opened_file out;
    const std::string name = path.string();
    auto kind_of = [](bool dir, bool chr, bool blk, bool fifo, bool sock) -> std::string_view {
        return dir ? "a folder" : chr ? "a character device" : blk ? "a block device" : fifo ? "a FIFO" : sock ? "a socket" : "not a regular file";
    };
#if defined(__unix__) || defined(__APPLE__)
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        out.error = fmt::format("cannot open '{}': {}", name, std::strerror(errno));
        return out;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        out.error = fmt::format("'{}' is {}, not a regular file; dmlref reads only regular files", name,
                                kind_of(S_ISDIR(st.st_mode), S_ISCHR(st.st_mode), S_ISBLK(st.st_mode), S_ISFIFO(st.st_mode),
                                        S_ISSOCK(st.st_mode)));
        ::close(fd);
        return out;
    }
    out.size = static_cast<std::uint64_t>(st.st_size);
    out.file.reset(::fdopen(fd, "rb"));
    if (!out.file) {
        ::close(fd);
        out.error = fmt::format("cannot open '{}'", name);
    }
#else
    namespace fs = std::filesystem;
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status)) {
        out.error = fmt::format("cannot open '{}': no such file", name);
        return out;
    }
    if (!fs::is_regular_file(status)) {
        out.error = fmt::format("'{}' is {}, not a regular file; dmlref reads only regular files", name,
                                kind_of(fs::is_directory(status), fs::is_character_file(status), fs::is_block_file(status),
                                        fs::is_fifo(status), fs::is_socket(status)));
        return out;
    }
    out.size = fs::file_size(path, error);
    out.file.reset(npy::detail::open_file(path, false));
    if (error || !out.file) out.error = fmt::format("cannot open '{}'", name);
#endif
    return out;
}

/// Reads exactly `into.size()` bytes; false when the file ends first.
bool read_exact(std::FILE* f, std::span<std::byte> into) {
    return into.empty() || std::fread(into.data(), 1, into.size(), f) == into.size();
}

/// True when the file holds nothing more: a file that grew after it was measured is not read on.
bool at_end(std::FILE* f) { return std::fgetc(f) == EOF; }

/// The bytes of a regular file no longer than `max_bytes`, read no further than its size.
std::vector<std::byte> read_regular(const std::filesystem::path& path, std::uint64_t max_bytes, const std::function<void(std::string)>& fail) {
    opened_file f = open_regular(path);
    if (!f.error.empty()) fail(f.error);
    if (f.size > max_bytes)
        fail(fmt::format("'{}' holds {} bytes; dmlref reads at most {} bytes here", path.string(), f.size, max_bytes));
    std::vector<std::byte> bytes(static_cast<std::size_t>(f.size));
    if (!read_exact(f.file.get(), bytes) || !at_end(f.file.get()))
        fail(fmt::format("'{}' changed size while it was read", path.string()));
    return bytes;
}

/// Appends `count` values of `type` made by `next(i)` (a double for floats, an integer otherwise).
template <class Emit> void for_each_type(data_type type, Emit&& emit) {
    switch (type) {
    case data_type::float16: emit(float16{}); break;
    case data_type::float32: emit(float{}); break;
    case data_type::float64: emit(double{}); break;
    case data_type::uint8: emit(std::uint8_t{}); break;
    case data_type::int8: emit(std::int8_t{}); break;
    case data_type::uint16: emit(std::uint16_t{}); break;
    case data_type::int16: emit(std::int16_t{}); break;
    case data_type::uint32: emit(std::uint32_t{}); break;
    case data_type::int32: emit(std::int32_t{}); break;
    case data_type::uint64: emit(std::uint64_t{}); break;
    case data_type::int64: emit(std::int64_t{}); break;
    default: break;
    }
}

/// {"valueCount", "valueStart", "valueDelta"}: value[i + 1] = value[i] + delta, computed in the
/// element type as DxDispatch does (integers wrap; FLOAT16 rounds each sum to nearest even),
/// written straight into the resource.
void fill_sequence(data_type type, std::uint32_t count, const json& g, const at& where, std::byte* out) {
    const std::size_t width = element_size(type);
    const auto start = scalar_bytes(type, require(g, where, "valueStart"), where / "valueStart");
    const auto delta = scalar_bytes(type, require(g, where, "valueDelta"), where / "valueDelta");
    for_each_type(type, [&](auto zero) {
        using T = decltype(zero);
        T value, step;
        std::memcpy(&value, start.data(), sizeof(T));
        std::memcpy(&step, delta.data(), sizeof(T));
        for (std::uint32_t i = 0; i < count; ++i) {
            std::memcpy(out + std::size_t{i} * width, &value, sizeof(T));
            if constexpr (std::is_same_v<T, float16>)
                value = float16::from_double(value.to_double() + step.to_double());
            else if constexpr (std::is_integral_v<T>)
                value = static_cast<T>(static_cast<std::make_unsigned_t<T>>(value) + static_cast<std::make_unsigned_t<T>>(step));
            else
                value = static_cast<T>(value + step);
        }
    });
}

/// Where the model's files may lie: its folder, resolved once (symlinks and "..").
struct path_rule {
    std::filesystem::path folder;      ///< relative paths resolve against this (as written)
    std::filesystem::path canonical;   ///< the folder with links and ".." resolved
    bool allow_outside = false;
};

/// A sourcePath or targetPath: resolved against the model's folder, and refused when, after
/// resolving ".." and symlinks, it leaves that folder (unless allowed): a model file from elsewhere
/// must not read /etc/passwd into a print, nor write over a file of the user's.
std::filesystem::path model_path(const path_rule& rule, const std::string& text, const at& where) {
    if (text.empty()) where.fail("is empty");
    if (text.find('\0') != std::string::npos) where.fail("contains a NUL character");
    const std::filesystem::path path = rule.folder / text;
    if (rule.allow_outside) return path;
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, error), error);
    if (error) where.fail(fmt::format("cannot resolve '{}': {}", text, error.message()));
    const std::filesystem::path relative = resolved.lexically_relative(rule.canonical);
    if (relative.empty() || *relative.begin() == "..")
        where.fail(fmt::format("'{}' resolves to '{}', outside the model's folder '{}' (dmlref run --allow-outside-paths allows it)",
                               text, resolved.string(), rule.canonical.string()));
    return path;
}

/// A resource as planned before anything is allocated: where its values come from and how many
/// bytes it and its reading take.
struct resource_plan {
    enum class source { array, constant, sequence, npy_file, raw_file };
    std::string name;
    at where;
    const json* node = nullptr; ///< the resource's JSON object
    source kind = source::array;
    data_type type = data_type::unknown;
    std::filesystem::path file;
    npy::header header;        ///< for npy_file
    std::uint64_t file_size = 0;
    std::uint64_t values = 0;  ///< bytes of initial values
    std::uint64_t offset = 0;
    std::uint64_t size_in_bytes = 0;
    std::uint64_t value_bytes = 0;
    std::uint64_t reading = 0; ///< bytes reading takes besides the resource (a Fortran-order copy)
};

/// Reads a .npy header from an opened file: the bytes it announces and no more.
npy::header read_npy_header(std::FILE* f, std::uint64_t file_size, const std::filesystem::path& path, const at& where) {
    std::vector<std::byte> start(12);
    const std::size_t first = static_cast<std::size_t>(std::min<std::uint64_t>(12, file_size));
    start.resize(first);
    if (!read_exact(f, start)) where.fail(fmt::format("cannot read '{}'", path.string()));
    const std::uint64_t needed = npy::header_bytes_needed(start);
    if (start.size() >= 12 && needed <= std::min(file_size, npy::max_header_bytes + 12)) {
        start.resize(static_cast<std::size_t>(needed));
        if (!read_exact(f, std::span(start).subspan(12))) where.fail(fmt::format("cannot read '{}'", path.string()));
    }
    try {
        return npy::parse_header(start, path.string());
    } catch (const validation_error& e) {
        where.fail(e.what());
    }
}

resource_plan plan_resource(const std::string& name, const json& r, const at& where, const path_rule& rule) {
    object(r, where);
    only_keys(r, where, {"initialValuesDataType", "initialValues", "sizeInBytes", "initialValuesOffsetInBytes",
                         "graphOptimizationLevel", "loggingLevel"});
    resource_plan p;
    p.name = name;
    p.where = where;
    p.node = &r;
    if (const json* t = find(r, "initialValuesDataType")) p.type = data_type_field(*t, where / "initialValuesDataType");
    const json& init = require(r, where, "initialValues");
    const at wi = where / "initialValues";
    auto need_type = [&] {
        if (p.type == data_type::unknown) where.fail("missing field 'initialValuesDataType'");
    };
    if (init.is_array()) {
        need_type();
        p.kind = resource_plan::source::array;
        p.values = init.size() * element_size(p.type); // the array's size is bounded by the file's
    } else if (init.is_object()) {
        const bool has_value = init.contains("value"), has_start = init.contains("valueStart"),
                   has_path = init.contains("sourcePath");
        if (int(has_value) + int(has_start) + int(has_path) != 1)
            wi.fail("expected exactly one of 'value', 'valueStart' (with 'valueDelta') and 'sourcePath'");
        if (has_path) {
            only_keys(init, wi, {"sourcePath"});
            const at wp = wi / "sourcePath";
            p.file = model_path(rule, string(init["sourcePath"], wp), wp);
            const std::string extension = lower(p.file.extension().string());
            if (extension == ".jpg" || extension == ".png") wp.fail("image files are not supported by dmlref");
            opened_file f = open_regular(p.file);
            if (!f.error.empty()) wp.fail(f.error);
            p.file_size = f.size;
            if (extension == ".npy") {
                p.kind = resource_plan::source::npy_file;
                p.header = read_npy_header(f.file.get(), f.size, p.file, wp);
                if (p.header.data_bytes != f.size - std::min(f.size, p.header.data_offset) || p.header.data_offset > f.size)
                    wp.fail(fmt::format("npy: {}: holds {} bytes of data, but shape and dtype '{}' need {}", p.file.string(),
                                        f.size - std::min(f.size, p.header.data_offset), p.header.descr, p.header.data_bytes));
                if (p.type != data_type::unknown && p.type != p.header.type)
                    wp.fail(fmt::format("'{}' holds {}, but initialValuesDataType is {}", p.file.string(), to_string(p.header.type),
                                        to_string(p.type)));
                p.type = p.header.type;
                p.values = p.header.data_bytes;
                if (p.header.fortran_order && p.header.shape.size() > 1) p.reading = p.values;
            } else {
                need_type();
                p.kind = resource_plan::source::raw_file;
                p.values = f.size;
            }
        } else {
            need_type();
            const auto count = integer<std::uint32_t>(require(init, wi, "valueCount"), wi / "valueCount");
            if (has_value) {
                only_keys(init, wi, {"valueCount", "value"});
                p.kind = resource_plan::source::constant;
            } else {
                only_keys(init, wi, {"valueCount", "valueStart", "valueDelta"});
                p.kind = resource_plan::source::sequence;
            }
            p.values = std::uint64_t{count} * element_size(p.type);
        }
    } else if (init.is_string() && init.get<std::string>() == "deferred") {
        wi.fail("deferred resources are not supported by dmlref");
    } else {
        wi.fail("expected an array of numbers or an object, got " + shown(init));
    }
    if (p.values == 0) wi.fail("must hold at least one value");

    p.offset = find(r, "initialValuesOffsetInBytes")
                   ? integer<std::uint64_t>(r["initialValuesOffsetInBytes"], where / "initialValuesOffsetInBytes")
                   : 0;
    const std::size_t width = element_size(p.type);
    if (const json* s = find(r, "sizeInBytes")) {
        p.size_in_bytes = integer<std::uint64_t>(*s, where / "sizeInBytes");
        p.value_bytes = p.size_in_bytes / width * width;
    } else {
        const auto rounded = detail::checked_add(p.values, std::uint64_t{3}); // DirectML buffers are rounded up to 4 bytes
        if (!rounded) where.fail(fmt::format("{} bytes of initial values overflow 64 bits", p.values));
        p.size_in_bytes = *rounded & ~std::uint64_t{3};
        p.value_bytes = p.values;
    }
    if (p.offset > p.size_in_bytes || p.values > p.size_in_bytes - p.offset)
        where.fail(fmt::format("the buffer ({} bytes) is too small for the initial values ({} bytes) at offset {}", p.size_in_bytes,
                               p.values, p.offset));
    if (p.size_in_bytes >= SIZE_MAX - resource_alignment)
        (where / "sizeInBytes").fail(fmt::format("{} bytes do not fit in this machine's address space", p.size_in_bytes));
    return p;
}

/// One allocation for every resource of a model, each resource on its own 64 KiB boundary.
/// calloc: the allocator hands a large block over as fresh zero pages, so bytes no value fills
/// (a 20 GiB sizeInBytes, the gaps between small resources) cost no time and no memory until a
/// dispatch writes them; a block per resource would touch its 64 KiB of alignment in the heap.
std::shared_ptr<std::byte[]> allocate_arena(std::uint64_t bytes, const at& where) {
    void* const raw = bytes < SIZE_MAX - resource_alignment ? std::calloc(static_cast<std::size_t>(bytes) + resource_alignment, 1) : nullptr;
    if (!raw) where.fail(fmt::format("cannot allocate {} bytes for the resources", bytes));
    const auto address = reinterpret_cast<std::uintptr_t>(raw);
    auto* const aligned = reinterpret_cast<std::byte*>((address + resource_alignment - 1) & ~std::uintptr_t{resource_alignment - 1});
    return std::shared_ptr<std::byte[]>(aligned, [raw](std::byte*) { std::free(raw); });
}

/// Places the planned resource at `storage` (zeroed, part of the arena) and writes its initial
/// values straight into it.
resource fill_resource(const resource_plan& p, std::shared_ptr<std::byte[]> storage) {
    const at& where = p.where;
    resource res;
    res.name = p.name;
    res.type = p.type;
    res.size_in_bytes = p.size_in_bytes;
    res.value_bytes = p.value_bytes;
    res.storage = std::move(storage);
    std::byte* const values = res.storage.get() + p.offset;
    const std::size_t width = element_size(p.type);
    const json& init = (*p.node)["initialValues"];
    const at wi = where / "initialValues";
    switch (p.kind) {
    case resource_plan::source::array:
        for (std::size_t i = 0; i < init.size(); ++i) std::memcpy(values + i * width, scalar_bytes(p.type, init[i], wi[i]).data(), width);
        break;
    case resource_plan::source::constant: {
        const auto one = scalar_bytes(p.type, init["value"], wi / "value");
        for (std::uint64_t i = 0; i < p.values; i += width) std::memcpy(values + i, one.data(), width);
        break;
    }
    case resource_plan::source::sequence:
        fill_sequence(p.type, static_cast<std::uint32_t>(p.values / width), init, wi, values);
        break;
    case resource_plan::source::npy_file:
    case resource_plan::source::raw_file: {
        // Opened again, so no descriptor stays open per resource; it must still be what was planned.
        const at wp = wi / "sourcePath";
        opened_file f = open_regular(p.file);
        if (!f.error.empty()) wp.fail(f.error);
        if (f.size != p.file_size) wp.fail(fmt::format("'{}' changed size since it was first read", p.file.string()));
        std::span<std::byte> data(values, static_cast<std::size_t>(p.values));
        if (p.kind == resource_plan::source::npy_file) {
            const npy::header h = read_npy_header(f.file.get(), f.size, p.file, wp);
            if (h.type != p.header.type || h.shape != p.header.shape || h.data_offset != p.header.data_offset ||
                h.fortran_order != p.header.fortran_order || h.big_endian != p.header.big_endian)
                wp.fail(fmt::format("'{}' changed since it was first read", p.file.string()));
        }
        if (!read_exact(f.file.get(), data) || !at_end(f.file.get()))
            wp.fail(fmt::format("'{}' changed size while it was read", p.file.string()));
        if (p.kind == resource_plan::source::npy_file) npy::decode(p.header, data);
        break;
    }
    }
    return res;
}

/// What the parsed document takes in memory, from the first pass's counts: every value a 16-byte
/// node (arrays may hold twice their size while growing), every key a map node with its string.
struct json_counts {
    std::uint64_t values = 0, keys = 0, key_bytes = 0, strings = 0, string_bytes = 0;

    std::uint64_t dom_bytes() const { return values * 32 + keys * 96 + key_bytes + strings * 32 + string_bytes; }
};

/// The first pass over the text, with nlohmann's SAX parser (which keeps its own stack, not the
/// call stack's): nesting deeper than max_json_depth, a key twice in one object (the parsed
/// document would keep the last silently: a second "commands" would drop the first) and a
/// number JSON cannot hold (1e5520) are refused with the JSON path where they occur.
class json_checker {
public:
    explicit json_checker(at root) : root_(std::move(root)) {}

    json_counts counts;

    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(json::number_integer_t) { return value(); }
    bool number_unsigned(json::number_unsigned_t) { return value(); }
    bool number_float(json::number_float_t, const std::string&) { return value(); }
    bool string(std::string& s) {
        ++counts.strings;
        counts.string_bytes += s.size();
        return value();
    }
    bool binary(json::binary_t&) { return value(); }
    bool start_object(std::size_t) {
        value();
        open(false);
        return true;
    }
    bool key(std::string& k) {
        frame& f = frames_.back();
        f.key = k;
        f.has_key = true;
        if (!f.keys.insert(k).second)
            here(false).fail(fmt::format("duplicate key '{}' in one object (JSON readers keep only one of them)", k));
        ++counts.keys;
        counts.key_bytes += k.size();
        return true;
    }
    bool end_object() { return close(); }
    bool start_array(std::size_t) {
        value();
        open(true);
        return true;
    }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        std::string what = e.what();
        if (const auto end = what.find("] "); what.starts_with("[json.exception.") && end != std::string::npos) what.erase(0, end + 2);
        here(true).fail("not valid JSON: " + what);
    }

private:
    struct frame {
        bool array = false;
        std::size_t next = 0; ///< arrays: the index of the next element
        bool has_key = false;
        std::string key;      ///< objects: the last key read
        std::set<std::string, std::less<>> keys;
    };

    bool value() {
        ++counts.values;
        if (!frames_.empty() && frames_.back().array) ++frames_.back().next;
        return true;
    }
    void open(bool array) {
        if (frames_.size() >= max_json_depth)
            here(false).fail(fmt::format("nests deeper than {} levels of arrays and objects (DxDispatch's models nest 6)", max_json_depth));
        frames_.push_back(frame{array, 0, false, {}, {}});
    }
    bool close() {
        frames_.pop_back();
        return true;
    }
    /// The path of the value being read: `pending` when its first token has not been reported yet.
    at here(bool pending) const {
        at where = root_;
        for (std::size_t i = 0; i < frames_.size(); ++i) {
            const frame& f = frames_[i];
            const bool top = i + 1 == frames_.size();
            if (f.array) {
                const std::size_t index = top && pending ? f.next : f.next - (f.next > 0 ? 1 : 0);
                where = where[index];
            } else if (f.has_key) {
                where = where / f.key;
            }
        }
        return where;
    }

    at root_;
    std::vector<frame> frames_;
};

/// A binding: "name", {"name": "..."} or a one-element array of either (one level: an array in an
/// array is refused, so no model can make this recurse).
std::string binding(const json& outer, const at& outer_where) {
    const json* b = &outer;
    at where = outer_where;
    if (b->is_array()) {
        if (b->size() != 1) where.fail(fmt::format("binds {} resources; these operators take one buffer per tensor", b->size()));
        b = &(*b)[0];
        where = where[0];
    }
    if (b->is_string()) return b->get<std::string>();
    if (!b->is_object()) where.fail("expected a resource name or {\"name\": ...}, got " + shown(*b));
    only_keys(*b, where, {"name", "elementOffset"});
    if (const json* offset = find(*b, "elementOffset"); offset && integer<std::uint64_t>(*offset, where / "elementOffset") != 0)
        (where / "elementOffset").fail("a non-zero elementOffset is not supported by dmlref");
    return string(require(*b, where, "name"), where / "name");
}

const resource& resource_named(const model& m, const std::string& name, const at& where) {
    auto it = m.resources.find(name);
    if (it == m.resources.end()) where.fail(fmt::format("no resource named '{}'", name));
    return it->second;
}

command command_field(const model& m, const json& c, const at& where, const path_rule& rule, feature_level level) {
    object(c, where);
    const std::string type = string(require(c, where, "type"), where / "type");
    if (lower(type) == "dispatch") {
        only_keys(c, where, {"type", "dispatchable", "bindings"});
        dispatch_command d;
        d.dispatchable = string(require(c, where, "dispatchable"), where / "dispatchable");
        auto it = m.dispatchables.find(d.dispatchable);
        if (it == m.dispatchables.end()) (where / "dispatchable").fail(fmt::format("no dispatchable named '{}'", d.dispatchable));
        const at wb = where / "bindings";
        const json& b = object(require(c, where, "bindings"), wb);
        const operator_desc& desc = it->second.desc;
        if (binds_tensor_arrays(type_of(desc))) {
            // One bind point per field: an array field (JOIN's InputTensors, SPLIT's OutputTensors)
            // takes a JSON array with one binding per tensor.
            const bool is_join = type_of(desc) == operator_type::join;
            const std::string_view array_field = is_join ? "InputTensors" : "OutputTensors";
            const std::string_view one_field = is_join ? "OutputTensor" : "InputTensor";
            const std::size_t count = (is_join ? inputs_of(desc) : outputs_of(desc)).size();
            only_keys(b, wb, {array_field, one_field});
            const json& a = require(b, wb, array_field);
            const at wa = wb / array_field;
            if (!a.is_array()) wa.fail("expected an array of bindings, one per tensor, got " + shown(a));
            if (a.size() != count) wa.fail(fmt::format("binds {} resources; {} has {} tensors", a.size(), array_field, count));
            std::vector<std::string> parts;
            for (std::size_t k = 0; k < a.size(); ++k) {
                parts.push_back(binding(a[k], wa[k]));
                resource_named(m, parts.back(), wa[k]);
            }
            const std::string one = binding(require(b, wb, one_field), wb / one_field);
            resource_named(m, one, wb / one_field);
            d.inputs = is_join ? parts : std::vector<std::string>{one};
            d.outputs = is_join ? std::vector<std::string>{one} : parts;
        } else {
            const auto [in_name, out_name] = tensor_names(desc);
            only_keys(b, wb, {in_name, out_name});
            d.inputs = {binding(require(b, wb, in_name), wb / in_name)};
            d.outputs = {binding(require(b, wb, out_name), wb / out_name)};
            resource_named(m, d.inputs[0], wb / in_name);
            resource_named(m, d.outputs[0], wb / out_name);
        }
        std::vector<std::span<const std::byte>> in_spans;
        std::vector<std::span<std::byte>> out_spans;
        for (const auto& name : d.inputs) in_spans.push_back(m.resources.find(name)->second.bytes());
        for (const auto& name : d.outputs) out_spans.push_back(m.resources.find(name)->second.bytes());
        if (auto why = validate(desc, in_spans, out_spans, level)) {
            std::string bound;
            const auto ins = inputs_of(desc), outs = outputs_of(desc);
            for (std::size_t k = 0; k < ins.size(); ++k)
                bound += fmt::format("{}{} '{}' ({} bytes)", bound.empty() ? "" : " and ", ins[k].field, d.inputs[k], in_spans[k].size());
            for (std::size_t k = 0; k < outs.size(); ++k)
                bound += fmt::format(" and {} '{}' ({} bytes)", outs[k].field, d.outputs[k], out_spans[k].size());
            where.fail(fmt::format("dispatch of '{}' with {}: {}", d.dispatchable, bound, *why));
        }
        return d;
    }
    if (lower(type) == "print") {
        only_keys(c, where, {"type", "resource", "verbose"});
        print_command p;
        p.resource = string(require(c, where, "resource"), where / "resource");
        resource_named(m, p.resource, where / "resource");
        if (const json* v = find(c, "verbose")) {
            if (!v->is_boolean()) (where / "verbose").fail("expected true or false, got " + shown(*v));
            p.verbose = v->get<bool>();
        }
        return p;
    }
    if (lower(type) == "writefile") {
        only_keys(c, where, {"type", "resource", "targetPath", "dimensions"});
        write_file_command w;
        w.resource = string(require(c, where, "resource"), where / "resource");
        const resource& r = resource_named(m, w.resource, where / "resource");
        const at wt = where / "targetPath";
        w.target = model_path(rule, string(require(c, where, "targetPath"), wt), wt);
        std::error_code error;
        const auto status = std::filesystem::symlink_status(w.target, error);
        if (std::filesystem::is_symlink(status))
            wt.fail(fmt::format("'{}' is a symbolic link; dmlref does not write through links", w.target.string()));
        if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
            wt.fail(fmt::format("'{}' exists and is not a regular file (a folder, device, FIFO or socket); dmlref replaces only "
                                "regular files",
                                w.target.string()));
        if (const json* dims = find(c, "dimensions")) {
            for (auto d : integers<std::uint32_t>(*dims, where / "dimensions")) w.dimensions.push_back(d);
            const auto count = npy::element_count(w.dimensions);
            const std::uint64_t elements = r.value_bytes / element_size(r.type);
            if (!count || *count != elements)
                (where / "dimensions").fail(fmt::format("hold {} elements; resource '{}' has {}",
                                                        count ? std::to_string(*count) : "too many", w.resource, elements));
        }
        return w;
    }
    (where / "type").fail(fmt::format("'{}' is not a command dmlref runs (expected dispatch, print or writeFile)", type));
}

} // namespace

#if defined(__linux__)
namespace {

/// The first number a small text file holds, if it holds one ("max" does not).
std::optional<std::uint64_t> number_in(const char* path) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) return std::nullopt;
    std::uint64_t v = 0;
    const bool found = std::fscanf(f, "%" SCNu64, &v) == 1;
    std::fclose(f);
    return found ? std::optional(v) : std::nullopt;
}

} // namespace
#endif

std::uint64_t available_memory() {
#if defined(__linux__)
    std::optional<std::uint64_t> available;
    if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        std::uint64_t kib = 0;
        bool found = false;
        while (!found && std::fgets(line, sizeof line, f))
            found = std::sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1;
        std::fclose(f);
        if (found) available = kib * 1024;
    }
    // A container's cgroup (v2) limit binds before the machine's memory does.
    const auto limit = number_in("/sys/fs/cgroup/memory.max"), used = number_in("/sys/fs/cgroup/memory.current");
    if (limit && used) {
        const std::uint64_t left = *limit > *used ? *limit - *used : 0;
        available = available ? std::min(*available, left) : left;
    }
    if (available) return *available;
#endif
#if defined(_WIN32)
    // The physical memory free now (a job object's limit, where one binds, is not asked).
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof status;
    if (GlobalMemoryStatusEx(&status) && status.ullAvailPhys > 0) return status.ullAvailPhys;
#endif
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
#endif
    return std::uint64_t{4} << 30; // nothing to ask: a budget that most machines meet
}

std::optional<std::uint64_t> parse_byte_count(std::string_view text) {
    std::uint64_t value = 0;
    std::size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        const auto next = detail::checked_mul(value, std::uint64_t{10});
        if (!next) return std::nullopt;
        const auto sum = detail::checked_add(*next, static_cast<std::uint64_t>(text[i] - '0'));
        if (!sum) return std::nullopt;
        value = *sum;
    }
    if (i == 0) return std::nullopt;
    std::string unit = lower(text.substr(i));
    if (unit.ends_with("ib")) unit.resize(unit.size() - 2);
    else if (unit.ends_with("b")) unit.resize(unit.size() - 1);
    static constexpr std::string_view units = "kmgtp";
    unsigned shift = 0;
    if (unit.size() == 1 && units.find(unit[0]) != std::string_view::npos) shift = 10 * (static_cast<unsigned>(units.find(unit[0])) + 1);
    else if (!unit.empty()) return std::nullopt;
    if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
    return value << shift;
}

std::vector<std::byte> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
    return read_regular(path, max_bytes, [&](std::string what) { throw validation_error(std::move(what)); });
}

model parse(std::string_view json_text, const std::filesystem::path& folder, std::string_view name, const load_options& options) {
    const at root{std::string(name), ""};
    if (json_text.size() > max_model_bytes)
        root.fail(fmt::format("{} bytes of JSON; dmlref reads models of at most {} bytes (64 MiB): keep large values in .npy "
                              "files named by sourcePath",
                              json_text.size(), max_model_bytes));
    const std::uint64_t budget = options.max_memory ? options.max_memory : available_memory();
    auto over_budget = [&] {
        return fmt::format("exceeds the memory budget of {} bytes ({})", budget,
                           options.max_memory ? "set by --max-memory" : "the memory available; dmlref run --max-memory changes it");
    };

    json_checker checker(root);
    json::sax_parse(json_text.begin(), json_text.end(), &checker, json::input_format_t::json, /*strict=*/true,
                    /*ignore_comments=*/true);
    const std::uint64_t dom = json_text.size() + checker.counts.dom_bytes();
    if (dom > budget)
        root.fail(fmt::format("reading the JSON takes about {} bytes ({} values), which {}", dom, checker.counts.values, over_budget()));
    json doc;
    try {
        doc = json::parse(json_text.begin(), json_text.end(), nullptr, true, /*ignore_comments=*/true);
    } catch (const json::exception& e) { // the first pass refused what this would
        root.fail(fmt::format("not valid JSON: {}", e.what()));
    }
    object(doc, root);
    only_keys(doc, root, {"$schema", "resources", "dispatchables", "commands"});
    path_rule rule;
    rule.folder = folder;
    rule.allow_outside = options.allow_outside_paths;
    if (!rule.allow_outside) {
        std::error_code error;
        rule.canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(folder.empty() ? "." : folder, error), error);
        if (error) root.fail(fmt::format("cannot resolve the model's folder '{}': {}", folder.string(), error.message()));
    }
    model m;
    m.file = std::string(name);

    // Every resource planned and the sum checked against the budget before one is allocated.
    const at wr = root / "resources";
    std::vector<resource_plan> plans;
    for (const auto& [key, value] : object(require(doc, root, "resources"), wr).items())
        plans.push_back(plan_resource(key, value, wr / key, rule));
    std::uint64_t resident = dom;
    for (const resource_plan& p : plans) {
        const auto with = detail::checked_add(resident, p.size_in_bytes + resource_alignment);
        const auto peak = with ? detail::checked_add(*with, p.reading) : std::nullopt;
        if (!peak || *peak > budget)
            p.where.fail(fmt::format("{} bytes{}, with the JSON and the resources before it ({} bytes in all), {}", p.size_in_bytes,
                                     p.reading ? fmt::format(" (and {} more to read it)", p.reading) : "",
                                     peak ? std::to_string(*peak) : "more than 2^64", over_budget()));
        resident = *with;
    }
    // Sizes fit the budget, so these sums (at most the budget plus an alignment) cannot overflow.
    std::uint64_t arena_bytes = 0;
    for (const resource_plan& p : plans) arena_bytes += (p.size_in_bytes + resource_alignment) & ~std::uint64_t{resource_alignment - 1};
    const auto arena = allocate_arena(arena_bytes, wr);
    std::uint64_t place = 0;
    for (const resource_plan& p : plans) {
        m.resources.emplace(p.name, fill_resource(p, std::shared_ptr<std::byte[]>(arena, arena.get() + place)));
        place += (p.size_in_bytes + resource_alignment) & ~std::uint64_t{resource_alignment - 1};
    }

    const at wd = root / "dispatchables";
    for (const auto& [key, value] : object(require(doc, root, "dispatchables"), wd).items()) {
        const at w = wd / key;
        operator_desc desc = dispatchable_field(value, w);
        if (auto why = validate(desc, options.level)) (w / "desc").fail(*why);
        m.dispatchables.emplace(key, dispatchable{key, std::move(desc)});
    }
    const at wc = root / "commands";
    const json& commands = require(doc, root, "commands");
    if (!commands.is_array()) wc.fail("expected an array, got " + shown(commands));
    for (std::size_t i = 0; i < commands.size(); ++i) m.commands.push_back(command_field(m, commands[i], wc[i], rule, options.level));
    return m;
}

model parse(std::string_view json_text, const std::filesystem::path& folder, std::string_view name, feature_level level) {
    return parse(json_text, folder, name, load_options{.level = level});
}

operator_desc parse_dispatchable(std::string_view json_text, std::string_view name) {
    const at root{std::string(name), ""};
    if (json_text.size() > max_model_bytes)
        root.fail(fmt::format("{} bytes of JSON; a dispatchable takes at most {} bytes (64 MiB)", json_text.size(), max_model_bytes));
    json_checker checker(root);
    json::sax_parse(json_text.begin(), json_text.end(), &checker, json::input_format_t::json, /*strict=*/true,
                    /*ignore_comments=*/true);
    json doc;
    try {
        doc = json::parse(json_text.begin(), json_text.end(), nullptr, true, /*ignore_comments=*/true);
    } catch (const json::exception& e) { // the first pass refused what this would
        root.fail(fmt::format("not valid JSON: {}", e.what()));
    }
    return dispatchable_field(doc, root);
}

model load(const std::filesystem::path& file, const load_options& options) {
    const at where{file.string(), ""};
    opened_file f = open_regular(file);
    if (!f.error.empty()) where.fail(f.error);
    if (f.size > max_model_bytes)
        where.fail(fmt::format("{} bytes; dmlref reads models of at most {} bytes (64 MiB): keep large values in .npy files named "
                               "by sourcePath",
                               f.size, max_model_bytes));
    std::vector<std::byte> bytes(static_cast<std::size_t>(f.size));
    if (!read_exact(f.file.get(), bytes) || !at_end(f.file.get())) where.fail("changed size while it was read");
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    model m = parse(text, file.parent_path(), file.string(), options);
    m.file = file;
    return m;
}

model load(const std::filesystem::path& file, feature_level level) { return load(file, load_options{.level = level}); }

namespace {

/// Writes the text of print for `r` through `emit(text)` in pieces of at most about 64 KiB.
template <class Emit> void emit_values(const resource& r, bool verbose, Emit&& emit) {
    const std::size_t width = element_size(r.type);
    const std::uint64_t count = r.value_bytes / width;
    fmt::memory_buffer out;
    const std::size_t index_width = std::to_string(count == 0 ? 0 : count - 1).size();
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::byte* p = r.storage.get() + i * width;
        if (verbose) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, p, width);
            fmt::format_to(std::back_inserter(out), "[{:>{}}] {} (0x{:0{}X})\n", i, index_width, format_element(r.type, p), bits, width * 2);
        } else {
            fmt::format_to(std::back_inserter(out), "{}{}", i ? ", " : "", format_element(r.type, p));
        }
        if (out.size() >= 65536) {
            emit(std::string_view(out.data(), out.size()));
            out.clear();
        }
    }
    emit(std::string_view(out.data(), out.size()));
}

} // namespace

std::string format_values(const resource& r, bool verbose) {
    std::string out;
    emit_values(r, verbose, [&](std::string_view text) { out += text; });
    return out;
}

void print_values(std::ostream& out, const resource& r, bool verbose) {
    emit_values(r, verbose, [&](std::string_view text) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void run(model& m, const run_options& options) {
    const executor execute = options.execute ? options.execute
                                             : executor([level = options.level](const operator_desc& d, std::span<const std::byte> in,
                                                                                 std::span<std::byte> out) { dmlref::execute(d, in, out, level); });
    const npy::write_options write_options{options.on_temporary};
    for (std::size_t i = 0; i < m.commands.size(); ++i) {
        const command& c = m.commands[i];
        if (const auto* d = std::get_if<dispatch_command>(&c)) {
            const operator_desc& desc = m.dispatchables.at(d->dispatchable).desc;
            if (options.execute_tensors) {
                std::vector<std::span<const std::byte>> ins;
                std::vector<std::span<std::byte>> outs;
                for (const auto& name : d->inputs) ins.push_back(m.resources.at(name).bytes());
                for (const auto& name : d->outputs) outs.push_back(m.resources.at(name).bytes());
                options.execute_tensors(desc, ins, outs);
            } else if (binds_tensor_arrays(type_of(desc))) {
                // The executor takes one input and one output buffer: tensor arrays run on the reference.
                if (options.execute)
                    throw model_error(fmt::format("{}: the dispatch of '{}' binds tensor arrays; the chosen executor takes one "
                                                  "input and one output buffer (only the CPU reference runs {})",
                                                  m.file.string(), d->dispatchable, to_string(type_of(desc))));
                std::vector<std::span<const std::byte>> ins;
                std::vector<std::span<std::byte>> outs;
                for (const auto& name : d->inputs) ins.push_back(m.resources.at(name).bytes());
                for (const auto& name : d->outputs) outs.push_back(m.resources.at(name).bytes());
                dmlref::execute(desc, ins, outs, options.level);
            } else {
                execute(desc, m.resources.at(d->inputs[0]).bytes(), m.resources.at(d->outputs[0]).bytes());
            }
        } else if (const auto* p = std::get_if<print_command>(&c)) {
            if (options.log) {
                *options.log << "Resource '" << p->resource << "':" << (p->verbose ? "\n" : " ");
                print_values(*options.log, m.resources.at(p->resource), p->verbose);
                if (!p->verbose) *options.log << "\n";
            }
        } else if (const auto* w = std::get_if<write_file_command>(&c)) {
            // A write that fails here (the disk, a target changed since the model was checked)
            // is reported as the model's other errors are: the file and the command's path.
            const at where = at{m.file.string(), ""} / "commands";
            const at wt = where[i] / "targetPath";
            const resource& r = m.resources.at(w->resource);
            const auto bytes = std::span<const std::byte>(r.bytes().first(static_cast<std::size_t>(r.value_bytes)));
            const std::string extension = lower(w->target.extension().string());
            std::error_code error;
            if (w->target.has_parent_path()) std::filesystem::create_directories(w->target.parent_path(), error);
            if (error)
                wt.fail(fmt::format("writeFile of '{}': cannot create the folder '{}': {}", w->resource,
                                    w->target.parent_path().string(), error.message()));
            try {
                if (extension == ".npy") {
                    std::vector<std::uint64_t> shape = w->dimensions;
                    if (shape.empty()) shape = {r.value_bytes / element_size(r.type)};
                    npy::write(w->target, r.type, shape, bytes, write_options);
                } else {
                    npy::write_file_atomically(w->target, bytes, write_options);
                }
            } catch (const model_error&) {
                throw;
            } catch (const validation_error& e) {
                wt.fail(fmt::format("writeFile of '{}': {}", w->resource, e.what()));
            }
            if (options.log) *options.log << fmt::format("Resource '{}' written to '{}'\n", w->resource, w->target.string());
        }
    }
}

} // namespace dmlref::model

namespace dmlref::model {
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
    return {{"type", "DML_OPERATOR_" + std::string(to_string(type_of(desc)))}, {"desc", desc_json(desc)}};
}

} // namespace

std::optional<std::uint64_t> checked_buffer_elements(const buffer_tensor_desc& t) {
    if (!t.strides) return detail::checked_product(std::span<const std::uint32_t>(t.sizes));
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < t.sizes.size(); ++i) {
        if (t.sizes[i] == 0) return std::uint64_t{0};
        const auto step = detail::checked_mul(std::uint64_t{t.sizes[i] - 1}, std::uint64_t{(*t.strides)[i]});
        const auto sum = step ? detail::checked_add(last, *step) : std::nullopt;
        if (!sum) return std::nullopt;
        last = *sum;
    }
    return detail::checked_add(last, std::uint64_t{1});
}

std::uint64_t buffer_elements(const buffer_tensor_desc& t) {
    if (auto n = checked_buffer_elements(t)) return *n;
    throw validation_error(fmt::format("a buffer for sizes {{{}}} and strides {{{}}} holds more than 2^64 elements", fmt::join(t.sizes, ", "),
                                       fmt::join(t.strides.value_or(std::vector<std::uint32_t>{}), ", ")));
}

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
