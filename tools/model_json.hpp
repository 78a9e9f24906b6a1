#pragma once
/// \file model_json.hpp
/// The model reader's JSON field readers: each reads one kind of field (an integer, an enum, a
/// tensor desc, a DML_SCALAR_UNION) and refuses anything else with the file, the JSON path and the
/// value. Private to the model reader (tools/model*.cpp); model.hpp is its public face.

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model.hpp"

namespace dmlref::model::internal {

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

/// A JSON value for messages, shortened: the start of a large array or string, never all of it.
std::string shown(const json& v);

std::string lower(std::string_view s);

const json& object(const json& v, const at& where);

/// Refuses keys outside `known`: a misspelt field must not silently fall back to its default.
void only_keys(const json& obj, const at& where, std::initializer_list<std::string_view> known);

const json* find(const json& obj, std::string_view key);

const json& require(const json& obj, const at& where, std::string_view key);

std::string string(const json& v, const at& where);

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
double floating(const json& v, const at& where);

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

data_type data_type_field(const json& v, const at& where);

tensor_flags flags_field(const json& v, const at& where);

/// DML_TENSOR_DESC: a buffer tensor desc, directly or as {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {...}}.
buffer_tensor_desc tensor_desc(const json& v, const at& where_outer);

/// The bytes of `value` converted to `type` (a JSON number, or "NaN"/"Inf"/"-Inf" for floats).
std::array<std::uint8_t, 8> scalar_bytes(data_type type, const json& v, const at& where);

/// The DML_SCALAR_UNION member that holds `type` (FLOAT16 is the UInt16 member: raw half bits).
std::pair<std::string_view, data_type> union_member(data_type type);

/// DML_SCALAR_UNION: a number converted to `type`, {"<Member>": value} or {"Bytes": [b0, ..., b7]}.
scalar_union scalar_union_field(data_type type, const json& v, const at& where);

/// The op-level DimensionCount (optional) must match the arrays' lengths.
void dimension_count(const json& desc, const at& where, std::size_t length, std::string_view array_name);

} // namespace dmlref::model::internal
