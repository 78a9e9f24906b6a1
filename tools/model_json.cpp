// The model reader's JSON field readers (model_json.hpp). Field names, enum spellings and defaults
// follow DxDispatch's parser (microsoft/DirectML, DxDispatch/src/model) and
// ../shared/spec/DECISIONS.md, "Model files".
#include "model_json.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <dmlref/format.hpp>

namespace dmlref::model::internal {
namespace {

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

} // namespace

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

} // namespace dmlref::model::internal
