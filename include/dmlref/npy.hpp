#pragma once
/// \file npy.hpp
/// NumPy's .npy files: read versions 1 to 3 in either byte order and either memory order, write
/// version 1, little-endian, C order. Data lives in memory packed, C order, little-endian.
///
///   dmlref::npy::array a = dmlref::npy::read("input.npy");   // a.type, a.shape, a.data
///   dmlref::npy::write("output.npy", {dmlref::data_type::float16, {2, 3}, bytes});
///
/// dtypes: the eleven movable types ('<f2' is FLOAT16, '<f4' FLOAT32, '|u1' UINT8, ...). Anything
/// else (bool, complex, strings, structured dtypes) is refused with a validation_error that names
/// the file and the dtype. Nothing is read past the end of the file's bytes.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "data_type.hpp"
#include "error.hpp"

namespace dmlref::npy {

/// An n-dimensional array: its element type, its shape (empty = a 0-d scalar) and its elements,
/// packed in C order, little-endian.
struct array {
    data_type type = data_type::unknown;
    std::vector<std::uint64_t> shape;
    std::vector<std::byte> data;

    friend bool operator==(const array&, const array&) = default;
};

/// The number of elements a shape holds, or nothing when it overflows 64 bits.
inline std::optional<std::uint64_t> element_count(std::span<const std::uint64_t> shape) noexcept {
    std::uint64_t count = 1;
    for (std::uint64_t s : shape) {
        if (s != 0 && count > UINT64_MAX / s) return std::nullopt;
        count *= s;
    }
    return count;
}

/// The numpy dtype string of a type ("<f4", "|u1"); empty for types numpy cannot hold.
constexpr std::string_view dtype_of(data_type type) noexcept {
    switch (type) {
    case data_type::float16: return "<f2";
    case data_type::float32: return "<f4";
    case data_type::float64: return "<f8";
    case data_type::int8: return "|i1";
    case data_type::uint8: return "|u1";
    case data_type::int16: return "<i2";
    case data_type::uint16: return "<u2";
    case data_type::int32: return "<i4";
    case data_type::uint32: return "<u4";
    case data_type::int64: return "<i8";
    case data_type::uint64: return "<u8";
    default: return {};
    }
}

namespace detail {

[[noreturn]] inline void fail(std::string_view name, std::string_view what) {
    throw validation_error("npy: " + std::string(name) + ": " + std::string(what));
}

/// The type of a kind such as "f4" or "u1" (the dtype without its byte-order character).
inline data_type type_of_kind(std::string_view kind) noexcept {
    for (data_type t : movable_data_types)
        if (dtype_of(t).substr(1) == kind) return t;
    return data_type::unknown;
}

/// A reader of the header's Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class header_parser {
public:
    header_parser(std::string_view text, std::string_view name) : text_(text), name_(name) {}

    struct result {
        std::string descr;
        bool fortran_order = false;
        std::vector<std::uint64_t> shape;
    };

    result parse() {
        result r;
        bool has_descr = false, has_order = false, has_shape = false;
        expect('{');
        while (!peek('}')) {
            const std::string key = string();
            expect(':');
            if (key == "descr") {
                r.descr = string();
                has_descr = true;
            } else if (key == "fortran_order") {
                r.fortran_order = boolean();
                has_order = true;
            } else if (key == "shape") {
                r.shape = tuple();
                has_shape = true;
            } else {
                fail(name_, "header has an unknown key '" + key + "'");
            }
            if (!peek(',')) break;
            expect(',');
        }
        expect('}');
        skip_space();
        if (pos_ != text_.size()) fail(name_, "header has text after its dictionary");
        if (!has_descr || !has_order || !has_shape)
            fail(name_, "header lacks one of 'descr', 'fortran_order' and 'shape'");
        return r;
    }

private:
    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
    }
    bool peek(char c) {
        skip_space();
        return pos_ < text_.size() && text_[pos_] == c;
    }
    void expect(char c) {
        if (!peek(c)) fail(name_, std::string("header is not a Python dict literal (expected '") + c + "')");
        ++pos_;
    }
    std::string string() {
        skip_space();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
            fail(name_, "header is not a Python dict literal (expected a string)");
        const char quote = text_[pos_++];
        const std::size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos) fail(name_, "header has an unterminated string");
        std::string s(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return s;
    }
    bool boolean() {
        skip_space();
        for (auto [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
            if (text_.substr(pos_, word.size()) == word) {
                pos_ += word.size();
                return value;
            }
        fail(name_, "header's 'fortran_order' is neither True nor False");
    }
    std::vector<std::uint64_t> tuple() {
        std::vector<std::uint64_t> values;
        expect('(');
        while (!peek(')')) {
            skip_space();
            std::uint64_t v = 0;
            std::size_t digits = 0;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
                const auto d = static_cast<std::uint64_t>(text_[pos_] - '0');
                if (v > (UINT64_MAX - d) / 10) fail(name_, "a dimension of 'shape' overflows 64 bits");
                v = v * 10 + d;
                ++pos_;
                ++digits;
            }
            if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_; // Python 2 longs
            if (digits == 0) fail(name_, "header's 'shape' is not a tuple of non-negative integers");
            values.push_back(v);
            if (!peek(',')) break;
            expect(',');
        }
        expect(')');
        return values;
    }

    std::string_view text_;
    std::string_view name_;
    std::size_t pos_ = 0;
};

inline std::uint64_t read_le(const std::byte* p, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
    return v;
}

} // namespace detail

/// Parses the bytes of a .npy file. `name` appears in error messages.
inline array parse(std::span<const std::byte> file, std::string_view name = "<memory>") {
    using detail::fail;
    static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (file.size() < 10 || !std::equal(std::begin(magic), std::end(magic), file.begin(),
                                        [](unsigned char m, std::byte b) { return std::byte{m} == b; }))
        fail(name, "not a .npy file (no \\x93NUMPY magic)");
    const auto major = std::to_integer<unsigned>(file[6]);
    if (major < 1 || major > 3)
        fail(name, "unsupported .npy version " + std::to_string(major) + "." +
                       std::to_string(std::to_integer<unsigned>(file[7])));
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    if (file.size() < 8 + length_bytes) fail(name, "truncated header");
    const std::uint64_t header_length = detail::read_le(file.data() + 8, length_bytes);
    const std::size_t header_start = 8 + length_bytes;
    if (header_length > file.size() - header_start)
        fail(name, "truncated header (" + std::to_string(header_length) + " bytes announced, " +
                       std::to_string(file.size() - header_start) + " present)");
    const std::string_view header(reinterpret_cast<const char*>(file.data() + header_start), header_length);
    const auto h = detail::header_parser(header, name).parse();

    array a;
    const char order = h.descr.empty() ? '?' : h.descr[0];
    a.type = h.descr.size() == 3 && (order == '<' || order == '>' || order == '|' || order == '=')
                 ? detail::type_of_kind(std::string_view(h.descr).substr(1))
                 : data_type::unknown;
    if (a.type == data_type::unknown)
        fail(name, "unsupported dtype '" + h.descr + "' (dmlref reads f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8)");
    const std::size_t width = element_size(a.type);
    const bool big_endian = order == '>' || (order == '=' && std::endian::native == std::endian::big);

    a.shape = h.shape;
    const auto count = element_count(a.shape);
    if (!count || *count > UINT64_MAX / width) fail(name, "the element count of the shape overflows 64 bits");
    const std::uint64_t bytes = *count * width;
    const std::size_t data_start = header_start + header_length;
    if (bytes != file.size() - data_start)
        fail(name, "holds " + std::to_string(file.size() - data_start) + " bytes of data, but shape and dtype '" +
                       h.descr + "' need " + std::to_string(bytes));
    a.data.assign(file.begin() + static_cast<std::ptrdiff_t>(data_start), file.end());

    if (big_endian && width > 1)
        for (std::size_t i = 0; i < a.data.size(); i += width) std::reverse(&a.data[i], &a.data[i] + width);

    if (h.fortran_order && a.shape.size() > 1 && bytes > 0) { // column-major to row-major
        std::vector<std::byte> c_order(a.data.size());
        const std::size_t rank = a.shape.size();
        std::vector<std::uint64_t> index(rank, 0), f_stride(rank, 1);
        for (std::size_t i = 1; i < rank; ++i) f_stride[i] = f_stride[i - 1] * a.shape[i - 1];
        for (std::uint64_t c = 0; c < *count; ++c) {
            std::uint64_t f = 0;
            for (std::size_t i = 0; i < rank; ++i) f += index[i] * f_stride[i];
            std::copy_n(&a.data[f * width], width, &c_order[c * width]);
            for (std::size_t i = rank; i-- > 0;) { // next C-order index
                if (++index[i] < a.shape[i]) break;
                index[i] = 0;
            }
        }
        a.data = std::move(c_order);
    }
    return a;
}

/// Reads a .npy file.
inline array read(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) detail::fail(path.string(), "cannot open the file");
    std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) detail::fail(path.string(), "cannot read the file");
    return parse(std::as_bytes(std::span(bytes)), path.string());
}

/// The bytes of a version 1.0, little-endian, C-order .npy file holding `a`.
inline std::vector<std::byte> serialize(const array& a) {
    const std::string_view dtype = dtype_of(a.type);
    if (dtype.empty()) detail::fail("<memory>", "cannot write data type " + std::string(to_string(a.type)));
    const auto count = element_count(a.shape);
    if (!count || *count > UINT64_MAX / element_size(a.type) || *count * element_size(a.type) != a.data.size())
        detail::fail("<memory>", "the data holds " + std::to_string(a.data.size()) +
                                     " bytes, which does not match the shape and the data type");
    std::string header = "{'descr': '" + std::string(dtype) + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < a.shape.size(); ++i) header += std::to_string(a.shape[i]) + (i + 1 < a.shape.size() ? ", " : "");
    header += a.shape.size() == 1 ? ",), }" : "), }";
    // The data starts on a 64-byte boundary, after spaces and a newline, as numpy writes it.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    if (header.size() > 0xffff) detail::fail("<memory>", "the shape is too long for a version 1.0 header");

    std::vector<std::byte> out;
    out.reserve(10 + header.size() + a.data.size());
    for (int c : {0x93, int{'N'}, int{'U'}, int{'M'}, int{'P'}, int{'Y'}, 1, 0}) out.push_back(std::byte(c));
    out.push_back(std::byte(header.size() & 0xff));
    out.push_back(std::byte(header.size() >> 8));
    for (char c : header) out.push_back(static_cast<std::byte>(c));
    out.insert(out.end(), a.data.begin(), a.data.end());
    return out;
}

/// Writes raw bytes to `path` through a temporary file in the same folder and a rename, so that
/// a failed write never leaves a partial file behind.
inline void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
    std::filesystem::path temporary = path;
    temporary += ".tmp-dmlref";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) detail::fail(path.string(), "cannot create the file");
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            detail::fail(path.string(), "cannot write the file");
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::filesystem::remove(temporary, error);
        detail::fail(path.string(), "cannot replace the file");
    }
}

/// Writes `a` as a version 1.0 .npy file (atomically: temporary file, then rename).
inline void write(const std::filesystem::path& path, const array& a) { write_file_atomically(path, serialize(a)); }

} // namespace dmlref::npy
