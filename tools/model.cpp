// DxDispatch model files: parsing, checking and running on the reference. Field names, enum
// spellings and defaults follow DxDispatch's parser (microsoft/DirectML, DxDispatch/src/model) and
// ../shared/spec/DECISIONS.md, "Model files".
#include "model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <dmlref/format.hpp>
#include <dmlref/npy.hpp>

namespace dmlref::model {
namespace {

using json = nlohmann::json;

/// Where a field is: the file's name and the JSON path ("dispatchables.op.desc.Sizes[2]").
struct at {
    std::string_view file;
    std::string path;

    at operator/(std::string_view key) const { return {file, path.empty() ? std::string(key) : path + "." + std::string(key)}; }
    at operator[](std::size_t i) const { return {file, path + "[" + std::to_string(i) + "]"}; }

    [[noreturn]] void fail(std::string_view what) const {
        throw model_error(path.empty() ? fmt::format("{}: {}", file, what) : fmt::format("{}: {}: {}", file, path, what));
    }
};

/// A JSON value for messages, shortened.
std::string shown(const json& v) {
    std::string s = v.dump();
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
    }
    where.fail("unknown operator");
}

std::vector<std::byte> read_file(const std::filesystem::path& path, const at& where) {
    std::ifstream in(path, std::ios::binary);
    if (!in) where.fail(fmt::format("cannot open '{}'", path.string()));
    std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) where.fail(fmt::format("cannot read '{}'", path.string()));
    std::vector<std::byte> out(bytes.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
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
/// element type as DxDispatch does (integers wrap; FLOAT16 rounds each sum to nearest even).
std::vector<std::byte> sequence(data_type type, std::uint32_t count, const json& g, const at& where) {
    const std::size_t width = element_size(type);
    std::vector<std::byte> out(std::size_t{count} * width);
    const auto start = scalar_bytes(type, require(g, where, "valueStart"), where / "valueStart");
    const auto delta = scalar_bytes(type, require(g, where, "valueDelta"), where / "valueDelta");
    for_each_type(type, [&](auto zero) {
        using T = decltype(zero);
        T value, step;
        std::memcpy(&value, start.data(), sizeof(T));
        std::memcpy(&step, delta.data(), sizeof(T));
        for (std::uint32_t i = 0; i < count; ++i) {
            std::memcpy(out.data() + std::size_t{i} * width, &value, sizeof(T));
            if constexpr (std::is_same_v<T, float16>)
                value = float16::from_double(value.to_double() + step.to_double());
            else if constexpr (std::is_integral_v<T>)
                value = static_cast<T>(static_cast<std::make_unsigned_t<T>>(value) + static_cast<std::make_unsigned_t<T>>(step));
            else
                value = static_cast<T>(value + step);
        }
    });
    return out;
}

resource resource_field(const std::string& name, const json& r, const at& where, const std::filesystem::path& folder) {
    object(r, where);
    only_keys(r, where, {"initialValuesDataType", "initialValues", "sizeInBytes", "initialValuesOffsetInBytes",
                         "graphOptimizationLevel", "loggingLevel"});
    resource res;
    res.name = name;
    if (const json* t = find(r, "initialValuesDataType")) res.type = data_type_field(*t, where / "initialValuesDataType");
    const json& init = require(r, where, "initialValues");
    const at wi = where / "initialValues";
    auto need_type = [&] {
        if (res.type == data_type::unknown) where.fail("missing field 'initialValuesDataType'");
    };
    std::vector<std::byte> values;
    if (init.is_array()) {
        need_type();
        const std::size_t width = element_size(res.type);
        values.resize(init.size() * width);
        for (std::size_t i = 0; i < init.size(); ++i)
            std::memcpy(values.data() + i * width, scalar_bytes(res.type, init[i], wi[i]).data(), width);
    } else if (init.is_object()) {
        const bool has_value = init.contains("value"), has_start = init.contains("valueStart"),
                   has_path = init.contains("sourcePath");
        if (int(has_value) + int(has_start) + int(has_path) != 1)
            wi.fail("expected exactly one of 'value', 'valueStart' (with 'valueDelta') and 'sourcePath'");
        if (has_path) {
            only_keys(init, wi, {"sourcePath"});
            const std::filesystem::path path = folder / string(init["sourcePath"], wi / "sourcePath");
            const std::string extension = lower(path.extension().string());
            if (extension == ".npy") {
                std::vector<std::byte> file = read_file(path, wi / "sourcePath");
                npy::array a;
                try {
                    a = npy::parse(file, path.string());
                } catch (const validation_error& e) {
                    (wi / "sourcePath").fail(e.what());
                }
                if (res.type != data_type::unknown && res.type != a.type)
                    (wi / "sourcePath").fail(fmt::format("'{}' holds {}, but initialValuesDataType is {}", path.string(),
                                                         to_string(a.type), to_string(res.type)));
                res.type = a.type;
                values = std::move(a.data);
            } else if (extension == ".jpg" || extension == ".png") {
                (wi / "sourcePath").fail("image files are not supported by dmlref");
            } else {
                need_type();
                values = read_file(path, wi / "sourcePath");
            }
        } else {
            need_type();
            const auto count = integer<std::uint32_t>(require(init, wi, "valueCount"), wi / "valueCount");
            if (has_value) {
                only_keys(init, wi, {"valueCount", "value"});
                const auto one = scalar_bytes(res.type, init["value"], wi / "value");
                const std::size_t width = element_size(res.type);
                values.resize(std::size_t{count} * width);
                for (std::size_t i = 0; i < count; ++i) std::memcpy(values.data() + i * width, one.data(), width);
            } else {
                only_keys(init, wi, {"valueCount", "valueStart", "valueDelta"});
                values = sequence(res.type, count, init, wi);
            }
        }
    } else if (init.is_string() && init.get<std::string>() == "deferred") {
        wi.fail("deferred resources are not supported by dmlref");
    } else {
        wi.fail("expected an array of numbers or an object, got " + shown(init));
    }
    if (values.empty()) wi.fail("must hold at least one value");

    const std::uint64_t offset = find(r, "initialValuesOffsetInBytes")
                                     ? integer<std::uint64_t>(r["initialValuesOffsetInBytes"], where / "initialValuesOffsetInBytes")
                                     : 0;
    const std::size_t width = element_size(res.type);
    if (const json* s = find(r, "sizeInBytes")) {
        res.size_in_bytes = integer<std::uint64_t>(*s, where / "sizeInBytes");
        res.value_bytes = res.size_in_bytes / width * width;
    } else {
        res.size_in_bytes = (values.size() + 3) & ~std::uint64_t{3}; // DirectML buffers are rounded up to 4 bytes
        res.value_bytes = values.size();
    }
    if (offset > res.size_in_bytes || values.size() > res.size_in_bytes - offset)
        where.fail(fmt::format("the buffer ({} bytes) is too small for the initial values ({} bytes) at offset {}",
                               res.size_in_bytes, values.size(), offset));
    constexpr std::uint64_t max_resource_bytes = std::uint64_t{1} << 40;
    if (res.size_in_bytes > max_resource_bytes) (where / "sizeInBytes").fail(fmt::format("{} bytes is more than dmlref allocates (1 TiB)", res.size_in_bytes));
    try {
        auto* raw = static_cast<std::byte*>(::operator new[](static_cast<std::size_t>(res.size_in_bytes) + 1,
                                                             std::align_val_t{resource_alignment}));
        res.storage = std::shared_ptr<std::byte[]>(raw, [](std::byte* p) { ::operator delete[](p, std::align_val_t{resource_alignment}); });
    } catch (const std::bad_alloc&) {
        where.fail(fmt::format("cannot allocate {} bytes", res.size_in_bytes));
    }
    std::memset(res.storage.get(), 0, static_cast<std::size_t>(res.size_in_bytes));
    std::memcpy(res.storage.get() + offset, values.data(), values.size());
    return res;
}

/// A binding: "name", {"name": "..."} or a one-element array of either.
std::string binding(const json& b, const at& where) {
    if (b.is_string()) return b.get<std::string>();
    if (b.is_array()) {
        if (b.size() != 1) where.fail(fmt::format("binds {} resources; these operators take one buffer per tensor", b.size()));
        return binding(b[0], where[0]);
    }
    object(b, where);
    only_keys(b, where, {"name", "elementOffset"});
    if (const json* offset = find(b, "elementOffset"); offset && integer<std::uint64_t>(*offset, where / "elementOffset") != 0)
        (where / "elementOffset").fail("a non-zero elementOffset is not supported by dmlref");
    return string(require(b, where, "name"), where / "name");
}

const resource& resource_named(const model& m, const std::string& name, const at& where) {
    auto it = m.resources.find(name);
    if (it == m.resources.end()) where.fail(fmt::format("no resource named '{}'", name));
    return it->second;
}

command command_field(const model& m, const json& c, const at& where, const std::filesystem::path& folder,
                      feature_level level) {
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
        only_keys(b, wb, {"InputTensor", "OutputTensor"});
        d.input = binding(require(b, wb, "InputTensor"), wb / "InputTensor");
        d.output = binding(require(b, wb, "OutputTensor"), wb / "OutputTensor");
        const resource& in = resource_named(m, d.input, wb / "InputTensor");
        const resource& out = resource_named(m, d.output, wb / "OutputTensor");
        if (auto why = validate(it->second.desc, in.bytes(), out.bytes(), level))
            where.fail(fmt::format("dispatch of '{}' with InputTensor '{}' ({} bytes) and OutputTensor '{}' ({} bytes): {}",
                                   d.dispatchable, d.input, in.size_in_bytes, d.output, out.size_in_bytes, *why));
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
        const std::string target = string(require(c, where, "targetPath"), where / "targetPath");
        if (target.empty()) (where / "targetPath").fail("is empty");
        w.target = folder / target;
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

model parse(std::string_view json_text, const std::filesystem::path& folder, std::string_view name, feature_level level) {
    const at root{name, ""};
    json doc;
    try {
        doc = json::parse(json_text.begin(), json_text.end(), nullptr, true, /*ignore_comments=*/true);
    } catch (const json::parse_error& e) {
        root.fail(fmt::format("not valid JSON: {}", e.what()));
    }
    object(doc, root);
    only_keys(doc, root, {"$schema", "resources", "dispatchables", "commands"});
    model m;
    m.file = std::string(name);
    const at wr = root / "resources";
    for (const auto& [key, value] : object(require(doc, root, "resources"), wr).items())
        m.resources.emplace(key, resource_field(key, value, wr / key, folder));
    const at wd = root / "dispatchables";
    for (const auto& [key, value] : object(require(doc, root, "dispatchables"), wd).items()) {
        const at w = wd / key;
        object(value, w);
        only_keys(value, w, {"type", "desc", "executionFlags"});
        const std::string type = string(require(value, w, "type"), w / "type");
        const auto op = parse_operator_type(type);
        if (!op)
            (w / "type").fail(fmt::format("'{}' is not supported by dmlref (it runs DML_OPERATOR_DEPTH_TO_SPACE, "
                                          "DEPTH_TO_SPACE1, SPACE_TO_DEPTH, SPACE_TO_DEPTH1, SLICE, SLICE1, PADDING, PADDING1)",
                                          type));
        const at wdesc = w / "desc";
        operator_desc desc = operator_desc_field(*op, object(require(value, w, "desc"), wdesc), wdesc);
        if (auto why = validate(desc, level)) wdesc.fail(*why);
        m.dispatchables.emplace(key, dispatchable{key, std::move(desc)});
    }
    const at wc = root / "commands";
    const json& commands = require(doc, root, "commands");
    if (!commands.is_array()) wc.fail("expected an array, got " + shown(commands));
    for (std::size_t i = 0; i < commands.size(); ++i) m.commands.push_back(command_field(m, commands[i], wc[i], folder, level));
    return m;
}

model load(const std::filesystem::path& file, feature_level level) {
    const at where{file.string(), ""};
    if (std::filesystem::is_directory(file)) where.fail("is a folder, not a model file");
    const std::vector<std::byte> bytes = read_file(file, where);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    model m = parse(text, file.parent_path(), file.string(), level);
    m.file = file;
    return m;
}

std::string format_values(const resource& r, bool verbose) {
    const std::size_t width = element_size(r.type);
    const std::uint64_t count = r.value_bytes / width;
    std::string out;
    const std::size_t index_width = std::to_string(count == 0 ? 0 : count - 1).size();
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::byte* p = r.storage.get() + i * width;
        if (verbose) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, p, width);
            out += fmt::format("[{:>{}}] {} (0x{:0{}X})\n", i, index_width, format_element(r.type, p), bits, width * 2);
        } else {
            out += (i ? ", " : "") + format_element(r.type, p);
        }
    }
    return out;
}

void run(model& m, const run_options& options) {
    const executor execute = options.execute ? options.execute
                                             : executor([level = options.level](const operator_desc& d, std::span<const std::byte> in,
                                                                                 std::span<std::byte> out) { dmlref::execute(d, in, out, level); });
    for (const command& c : m.commands) {
        if (const auto* d = std::get_if<dispatch_command>(&c)) {
            execute(m.dispatchables.at(d->dispatchable).desc, m.resources.at(d->input).bytes(), m.resources.at(d->output).bytes());
        } else if (const auto* p = std::get_if<print_command>(&c)) {
            if (options.log)
                *options.log << "Resource '" << p->resource << "':" << (p->verbose ? "\n" : " ")
                             << format_values(m.resources.at(p->resource), p->verbose) << (p->verbose ? "" : "\n");
        } else if (const auto* w = std::get_if<write_file_command>(&c)) {
            const resource& r = m.resources.at(w->resource);
            const auto bytes = r.bytes().first(static_cast<std::size_t>(r.value_bytes));
            const std::string extension = lower(w->target.extension().string());
            if (w->target.has_parent_path()) std::filesystem::create_directories(w->target.parent_path());
            if (extension == ".npy") {
                npy::array a{r.type, w->dimensions, std::vector<std::byte>(bytes.begin(), bytes.end())};
                if (a.shape.empty()) a.shape = {r.value_bytes / element_size(r.type)};
                npy::write(w->target, a);
            } else {
                npy::write_file_atomically(w->target, bytes);
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
    return std::visit(
        [](const auto& d) {
            using D = std::remove_cvref_t<decltype(d)>;
            json j = {{"InputTensor", tensor_json(d.input_tensor)}, {"OutputTensor", tensor_json(d.output_tensor)}};
            if constexpr (requires { d.block_size; }) j["BlockSize"] = d.block_size;
            if constexpr (requires { d.order; }) j["Order"] = to_string(d.order);
            if constexpr (std::is_same_v<D, slice_desc>) {
                j["DimensionCount"] = d.offsets.size();
                j["Offsets"] = d.offsets;
                j["Sizes"] = d.sizes;
                j["Strides"] = d.strides;
            }
            if constexpr (std::is_same_v<D, slice1_desc>) {
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
            return j;
        },
        desc);
}

} // namespace

std::uint64_t buffer_elements(const buffer_tensor_desc& t) {
    if (!t.strides) return element_count(t.sizes);
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < t.sizes.size(); ++i) {
        if (t.sizes[i] == 0) return 0;
        last += std::uint64_t{t.sizes[i] - 1} * (*t.strides)[i];
    }
    return last + 1;
}

std::string single_operator_model(const operator_desc& desc, std::uint64_t output_values, std::string_view input_path,
                                  std::string_view output_path) {
    const data_type out_type = std::visit([](const auto& d) { return d.output_tensor.data_type; }, desc);
    const json model = {
        {"resources",
         {{"input", {{"initialValues", {{"sourcePath", input_path}}}}},
          {"output",
           {{"initialValuesDataType", to_string(out_type)}, {"initialValues", {{"valueCount", output_values}, {"value", 0}}}}}}},
        {"dispatchables", {{"op", {{"type", "DML_OPERATOR_" + std::string(to_string(type_of(desc)))}, {"desc", desc_json(desc)}}}}},
        {"commands",
         json::array({{{"type", "dispatch"}, {"dispatchable", "op"}, {"bindings", {{"InputTensor", "input"}, {"OutputTensor", "output"}}}},
                      {{"type", "writeFile"}, {"targetPath", output_path}, {"resource", "output"}}})}};
    return model.dump(1) + "\n";
}

} // namespace dmlref::model
