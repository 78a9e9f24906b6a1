#pragma once
/// \file data_type.hpp
/// DirectML's tensor data types and feature levels (same names, same numeric values), element
/// sizes, and a storage-only binary16 type.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace dmlref {

/// DML_TENSOR_DATA_TYPE, with DirectML's numeric values.
enum class data_type : std::uint32_t {
    unknown = 0,
    float32 = 1,
    float16 = 2,
    uint32 = 3,
    uint16 = 4,
    uint8 = 5,
    int32 = 6,
    int16 = 7,
    int8 = 8,
    float64 = 9,
    uint64 = 10,
    int64 = 11,
    uint4 = 12, ///< known to the type system; no data-movement operator accepts it
    int4 = 13,  ///< known to the type system; no data-movement operator accepts it
};

/// DML_FEATURE_LEVEL, with DirectML's numeric values. dmlref defaults to the newest, 6_4.
enum class feature_level : std::uint32_t {
    fl_1_0 = 0x1000,
    fl_2_0 = 0x2000,
    fl_2_1 = 0x2100,
    fl_3_0 = 0x3000,
    fl_3_1 = 0x3100,
    fl_4_0 = 0x4000,
    fl_4_1 = 0x4100,
    fl_5_0 = 0x5000,
    fl_5_1 = 0x5100,
    fl_5_2 = 0x5200,
    fl_6_0 = 0x6000,
    fl_6_1 = 0x6100,
    fl_6_2 = 0x6200,
    fl_6_3 = 0x6300,
    fl_6_4 = 0x6400,
};

/// The level every call validates against unless told otherwise.
inline constexpr feature_level newest_feature_level = feature_level::fl_6_4;

/// The eleven types the data-movement operators can move (every type but unknown and the 4-bit ones).
inline constexpr data_type movable_data_types[] = {
    data_type::float32, data_type::float16, data_type::uint32, data_type::uint16,
    data_type::uint8,   data_type::int32,   data_type::int16,  data_type::int8,
    data_type::float64, data_type::uint64,  data_type::int64,
};

/// Size of one element in bits (4 for UINT4/INT4, 0 for UNKNOWN or a value outside the enum).
constexpr std::uint32_t element_bits(data_type type) noexcept {
    switch (type) {
    case data_type::float64: case data_type::uint64: case data_type::int64: return 64;
    case data_type::float32: case data_type::uint32: case data_type::int32: return 32;
    case data_type::float16: case data_type::uint16: case data_type::int16: return 16;
    case data_type::uint8:   case data_type::int8:                          return 8;
    case data_type::uint4:   case data_type::int4:                          return 4;
    case data_type::unknown: break;
    }
    return 0;
}

/// Size of one element in bytes; 0 for the 4-bit types, UNKNOWN and values outside the enum.
constexpr std::size_t element_size(data_type type) noexcept {
    return element_bits(type) >= 8 ? element_bits(type) / 8 : 0;
}

/// DirectML's name without its prefix: "FLOAT32", "UINT4"; "UNKNOWN" for anything else.
constexpr std::string_view to_string(data_type type) noexcept {
    switch (type) {
    case data_type::float32: return "FLOAT32";
    case data_type::float16: return "FLOAT16";
    case data_type::uint32:  return "UINT32";
    case data_type::uint16:  return "UINT16";
    case data_type::uint8:   return "UINT8";
    case data_type::int32:   return "INT32";
    case data_type::int16:   return "INT16";
    case data_type::int8:    return "INT8";
    case data_type::float64: return "FLOAT64";
    case data_type::uint64:  return "UINT64";
    case data_type::int64:   return "INT64";
    case data_type::uint4:   return "UINT4";
    case data_type::int4:    return "INT4";
    case data_type::unknown: break;
    }
    return "UNKNOWN";
}

/// "6_4" for feature_level::fl_6_4 (DirectML writes DML_FEATURE_LEVEL_6_4).
constexpr std::string_view to_string(feature_level level) noexcept {
    switch (level) {
    case feature_level::fl_1_0: return "1_0";
    case feature_level::fl_2_0: return "2_0";
    case feature_level::fl_2_1: return "2_1";
    case feature_level::fl_3_0: return "3_0";
    case feature_level::fl_3_1: return "3_1";
    case feature_level::fl_4_0: return "4_0";
    case feature_level::fl_4_1: return "4_1";
    case feature_level::fl_5_0: return "5_0";
    case feature_level::fl_5_1: return "5_1";
    case feature_level::fl_5_2: return "5_2";
    case feature_level::fl_6_0: return "6_0";
    case feature_level::fl_6_1: return "6_1";
    case feature_level::fl_6_2: return "6_2";
    case feature_level::fl_6_3: return "6_3";
    case feature_level::fl_6_4: return "6_4";
    }
    return "unknown";
}

/// Strips `prefix` from `text` when present ("DML_TENSOR_DATA_TYPE_FLOAT32" -> "FLOAT32").
constexpr std::string_view strip_prefix(std::string_view text, std::string_view prefix) noexcept {
    return text.starts_with(prefix) ? text.substr(prefix.size()) : text;
}

/// Parses "FLOAT32" or "DML_TENSOR_DATA_TYPE_FLOAT32" (UNKNOWN is not a valid choice).
constexpr std::optional<data_type> parse_data_type(std::string_view text) noexcept {
    text = strip_prefix(text, "DML_TENSOR_DATA_TYPE_");
    for (std::uint32_t v = 1; v <= 13; ++v)
        if (to_string(static_cast<data_type>(v)) == text) return static_cast<data_type>(v);
    return std::nullopt;
}

/// Parses "6_4" or "DML_FEATURE_LEVEL_6_4".
constexpr std::optional<feature_level> parse_feature_level(std::string_view text) noexcept {
    text = strip_prefix(text, "DML_FEATURE_LEVEL_");
    constexpr feature_level all[] = {
        feature_level::fl_1_0, feature_level::fl_2_0, feature_level::fl_2_1, feature_level::fl_3_0,
        feature_level::fl_3_1, feature_level::fl_4_0, feature_level::fl_4_1, feature_level::fl_5_0,
        feature_level::fl_5_1, feature_level::fl_5_2, feature_level::fl_6_0, feature_level::fl_6_1,
        feature_level::fl_6_2, feature_level::fl_6_3, feature_level::fl_6_4};
    for (feature_level level : all)
        if (to_string(level) == text) return level;
    return std::nullopt;
}

/// IEEE binary16 bits from a double, rounded to nearest even. Overflow gives infinity; NaN stays
/// NaN with its sign and the top payload bits (quiet bit set if those bits would all be zero).
/// Floats convert exactly to double, so this is also the float -> half conversion (one rounding).
constexpr std::uint16_t half_bits_from_double(double value) noexcept {
    const std::uint64_t x = std::bit_cast<std::uint64_t>(value);
    const auto sign = static_cast<std::uint16_t>((x >> 48) & 0x8000u);
    const auto exponent = static_cast<int>((x >> 52) & 0x7ffu);
    std::uint64_t mantissa = x & ((std::uint64_t{1} << 52) - 1);
    if (exponent == 0x7ff) {
        if (mantissa == 0) return static_cast<std::uint16_t>(sign | 0x7c00u);
        auto payload = static_cast<std::uint16_t>(mantissa >> 42);
        return static_cast<std::uint16_t>(sign | 0x7c00u | (payload != 0 ? payload : 0x200u));
    }
    const int e = exponent - 1023 + 15;
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
    int shift = 42;
    std::uint64_t kept_exponent = static_cast<std::uint64_t>(e) << 10;
    if (e <= 0) { // subnormal half (or zero)
        if (e < -10) return sign;
        mantissa |= std::uint64_t{1} << 52;
        shift = 43 - e;
        kept_exponent = 0;
    }
    std::uint64_t half = kept_exponent | (mantissa >> shift);
    const std::uint64_t rest = mantissa & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t halfway = std::uint64_t{1} << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half; // a carry rounds up to infinity
    return static_cast<std::uint16_t>(sign | half);
}

/// The double value of IEEE binary16 bits (exact; NaN keeps sign and payload).
constexpr double double_from_half_bits(std::uint16_t bits) noexcept {
    const std::uint64_t sign = static_cast<std::uint64_t>(bits & 0x8000u) << 48;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    std::uint64_t mantissa = bits & 0x3ffu;
    if (exponent == 0x1f)
        return std::bit_cast<double>(sign | (std::uint64_t{0x7ff} << 52) | (mantissa << 42));
    if (exponent == 0) {
        if (mantissa == 0) return std::bit_cast<double>(sign);
        int e = -14; // normalise the subnormal
        while ((mantissa & 0x400u) == 0) { mantissa <<= 1; --e; }
        mantissa &= 0x3ffu;
        return std::bit_cast<double>(sign | (static_cast<std::uint64_t>(e + 1023) << 52) | (mantissa << 42));
    }
    return std::bit_cast<double>(sign | (static_cast<std::uint64_t>(exponent - 15 + 1023) << 52) | (mantissa << 42));
}

/// Storage-only IEEE binary16 (DirectML's FLOAT16): two bytes that dmlref moves and never computes
/// with. Conversions are explicit.
struct float16 {
    std::uint16_t bits = 0;

    /// Rounds to nearest even.
    static constexpr float16 from_double(double value) noexcept { return {half_bits_from_double(value)}; }
    static constexpr float16 from_bits(std::uint16_t raw) noexcept { return {raw}; }
    constexpr double to_double() const noexcept { return double_from_half_bits(bits); }
    constexpr float to_float() const noexcept { return static_cast<float>(to_double()); }
    friend constexpr bool operator==(float16, float16) noexcept = default;
};
static_assert(sizeof(float16) == 2);

/// The C++ element type dmlref uses for each movable data type.
template <data_type Type> struct element_type_of;
template <> struct element_type_of<data_type::float32> { using type = float; };
template <> struct element_type_of<data_type::float16> { using type = float16; };
template <> struct element_type_of<data_type::uint32> { using type = std::uint32_t; };
template <> struct element_type_of<data_type::uint16> { using type = std::uint16_t; };
template <> struct element_type_of<data_type::uint8> { using type = std::uint8_t; };
template <> struct element_type_of<data_type::int32> { using type = std::int32_t; };
template <> struct element_type_of<data_type::int16> { using type = std::int16_t; };
template <> struct element_type_of<data_type::int8> { using type = std::int8_t; };
template <> struct element_type_of<data_type::float64> { using type = double; };
template <> struct element_type_of<data_type::uint64> { using type = std::uint64_t; };
template <> struct element_type_of<data_type::int64> { using type = std::int64_t; };
template <data_type Type> using element_type_t = typename element_type_of<Type>::type;

/// The data type of a C++ element type (float -> FLOAT32, float16 -> FLOAT16, ...).
template <class T> constexpr data_type data_type_of() noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, float>) return data_type::float32;
    else if constexpr (std::is_same_v<U, float16>) return data_type::float16;
    else if constexpr (std::is_same_v<U, double>) return data_type::float64;
    else if constexpr (std::is_same_v<U, std::uint8_t>) return data_type::uint8;
    else if constexpr (std::is_same_v<U, std::int8_t>) return data_type::int8;
    else if constexpr (std::is_same_v<U, std::uint16_t>) return data_type::uint16;
    else if constexpr (std::is_same_v<U, std::int16_t>) return data_type::int16;
    else if constexpr (std::is_same_v<U, std::uint32_t>) return data_type::uint32;
    else if constexpr (std::is_same_v<U, std::int32_t>) return data_type::int32;
    else if constexpr (std::is_same_v<U, std::uint64_t>) return data_type::uint64;
    else if constexpr (std::is_same_v<U, std::int64_t>) return data_type::int64;
    else return data_type::unknown;
}

} // namespace dmlref
