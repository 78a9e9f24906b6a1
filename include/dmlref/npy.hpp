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
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#ifdef _WIN32
#include <fcntl.h>    // _O_* flags
#include <io.h>       // _wopen, _close
#include <sys/stat.h> // _S_IREAD, _S_IWRITE
#endif

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

/// What a .npy file's header says: enough to size, read and decode its data without reading it.
struct header {
    data_type type = data_type::unknown;
    std::string descr; ///< the dtype as the file spells it ('>f4')
    std::vector<std::uint64_t> shape;
    bool fortran_order = false;
    bool big_endian = false;
    std::uint64_t data_offset = 0; ///< where the data starts in the file
    std::uint64_t data_bytes = 0;  ///< the data's size: the shape's element count times the type's size
};

/// The longest header dmlref reads (numpy itself refuses headers over 10,000 bytes by default).
inline constexpr std::uint64_t max_header_bytes = std::uint64_t{1} << 20;

/// How many bytes of a file's start `parse_header` needs: 12 for the fixed part, then (given
/// those 12) the whole header. Callers read this much, no more, before the data.
inline std::uint64_t header_bytes_needed(std::span<const std::byte> start) noexcept {
    if (start.size() < 12) return 12;
    const std::size_t length_bytes = std::to_integer<unsigned>(start[6]) == 1 ? 2 : 4;
    return 8 + length_bytes + detail::read_le(start.data() + 8, length_bytes);
}

/// Parses the header at the start of a .npy file; `start` holds at least the header (the data may
/// follow). `name` appears in error messages.
inline header parse_header(std::span<const std::byte> start, std::string_view name = "<memory>") {
    using detail::fail;
    static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (start.size() < 10 || !std::equal(std::begin(magic), std::end(magic), start.begin(),
                                         [](unsigned char m, std::byte b) { return std::byte{m} == b; }))
        fail(name, "not a .npy file (no \\x93NUMPY magic)");
    const auto major = std::to_integer<unsigned>(start[6]);
    if (major < 1 || major > 3)
        fail(name, "unsupported .npy version " + std::to_string(major) + "." +
                       std::to_string(std::to_integer<unsigned>(start[7])));
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    if (start.size() < 8 + length_bytes) fail(name, "truncated header");
    const std::uint64_t header_length = detail::read_le(start.data() + 8, length_bytes);
    const std::size_t header_start = 8 + length_bytes;
    if (header_length > max_header_bytes)
        fail(name, "header of " + std::to_string(header_length) + " bytes is longer than dmlref reads (1 MiB)");
    if (header_length > start.size() - header_start)
        fail(name, "truncated header (" + std::to_string(header_length) + " bytes announced, " +
                       std::to_string(start.size() - header_start) + " present)");
    const std::string_view text(reinterpret_cast<const char*>(start.data() + header_start), static_cast<std::size_t>(header_length));
    const auto h = detail::header_parser(text, name).parse();

    header out;
    const char order = h.descr.empty() ? '?' : h.descr[0];
    out.type = h.descr.size() == 3 && (order == '<' || order == '>' || order == '|' || order == '=')
                   ? detail::type_of_kind(std::string_view(h.descr).substr(1))
                   : data_type::unknown;
    if (out.type == data_type::unknown)
        fail(name, "unsupported dtype '" + h.descr + "' (dmlref reads f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8)");
    const std::size_t width = element_size(out.type);
    out.big_endian = width > 1 && (order == '>' || (order == '=' && std::endian::native == std::endian::big));
    out.descr = h.descr;
    out.fortran_order = h.fortran_order;
    out.shape = h.shape;
    const auto count = element_count(out.shape);
    if (!count || *count > UINT64_MAX / width) fail(name, "the element count of the shape overflows 64 bits");
    out.data_bytes = *count * width;
    out.data_offset = header_start + header_length;
    return out;
}

namespace detail {

/// Column-major `from` to row-major `to` (both `count` elements of `width` bytes): one pass over
/// the elements in C order, each step adding one Fortran stride and each carry subtracting a
/// whole axis, so the cost is O(count) whatever the rank (axes of size 1 are dropped first).
inline void fortran_to_c(std::span<const std::uint64_t> full_shape, std::size_t width, const std::byte* from, std::byte* to) {
    std::vector<std::uint64_t> shape;
    for (std::uint64_t s : full_shape)
        if (s != 1) shape.push_back(s);
    const std::size_t rank = shape.size();
    std::uint64_t count = 1;
    std::vector<std::uint64_t> f_stride(rank, 1), index(rank, 0);
    for (std::size_t i = 0; i < rank; ++i) {
        if (i > 0) f_stride[i] = f_stride[i - 1] * shape[i - 1];
        count *= shape[i];
    }
    std::uint64_t f = 0; // the Fortran-order element index of C-order element c
    for (std::uint64_t c = 0; c < count; ++c) {
        std::copy_n(from + f * width, width, to + c * width);
        for (std::size_t i = rank; i-- > 0;) {
            if (++index[i] < shape[i]) {
                f += f_stride[i];
                break;
            }
            index[i] = 0;
            f -= (shape[i] - 1) * f_stride[i];
        }
    }
}

} // namespace detail

/// Turns the data of a file with header `h`, read as it lies in the file, into packed C order,
/// little-endian, in place. Only a Fortran-order array of rank 2 or more takes a copy of its data.
inline void decode(const header& h, std::span<std::byte> data) {
    const std::size_t width = element_size(h.type);
    if (data.size() != h.data_bytes) detail::fail("<memory>", "decode: the data's size does not match the header");
    if (h.big_endian)
        for (std::size_t i = 0; i + width <= data.size(); i += width) std::reverse(data.data() + i, data.data() + i + width);
    if (h.fortran_order && h.shape.size() > 1 && !data.empty()) {
        const std::vector<std::byte> column_major(data.begin(), data.end());
        detail::fortran_to_c(h.shape, width, column_major.data(), data.data());
    }
}

/// Parses the bytes of a .npy file. `name` appears in error messages.
inline array parse(std::span<const std::byte> file, std::string_view name = "<memory>") {
    const header h = parse_header(file, name);
    if (h.data_bytes != file.size() - h.data_offset)
        detail::fail(name, "holds " + std::to_string(file.size() - h.data_offset) + " bytes of data, but shape and dtype '" +
                               h.descr + "' need " + std::to_string(h.data_bytes));
    array a{h.type, h.shape, {file.begin() + static_cast<std::ptrdiff_t>(h.data_offset), file.end()}};
    decode(h, a.data);
    return a;
}

/// Parses a .npy file's bytes, reusing their storage for the data (one copy of the data in memory,
/// not two).
inline array parse(std::vector<std::byte>&& file, std::string_view name = "<memory>") {
    const header h = parse_header(file, name);
    if (h.data_bytes != file.size() - h.data_offset)
        detail::fail(name, "holds " + std::to_string(file.size() - h.data_offset) + " bytes of data, but shape and dtype '" +
                               h.descr + "' need " + std::to_string(h.data_bytes));
    file.erase(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(h.data_offset));
    array a{h.type, h.shape, std::move(file)};
    decode(h, a.data);
    return a;
}

namespace detail {

/// Opens `path` to read, or creates it to write, failing if anything exists under that name.
inline std::FILE* open_file(const std::filesystem::path& path, bool write_exclusive) noexcept {
#ifdef _WIN32
    if (!write_exclusive) return ::_wfopen(path.c_str(), L"rb");
    // Not fopen's "wbx": msvcrt.dll, the C library of mingw-w64 (and Wine's), ignores the "x" and
    // opens an existing file; only the UCRT honours it. _O_EXCL is honoured by both.
    const int fd = ::_wopen(path.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
    if (fd < 0) return nullptr;
    std::FILE* file = ::_fdopen(fd, "wb");
    if (!file) ::_close(fd);
    return file;
#else
    return std::fopen(path.c_str(), write_exclusive ? "wbx" : "rb");
#endif
}

struct file_closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_handle = std::unique_ptr<std::FILE, file_closer>;

} // namespace detail

/// Reads a whole regular file of at most `max_bytes` bytes. Folders, devices, FIFOs and sockets
/// are refused before a byte is read (/dev/zero never ends, a FIFO may never answer), and a file
/// that grows while read is refused rather than read without bound.
inline std::vector<std::byte> read_bytes(const std::filesystem::path& path, std::uint64_t max_bytes = UINT64_MAX) {
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (error || !std::filesystem::exists(status)) detail::fail(path.string(), "cannot open the file");
    if (!std::filesystem::is_regular_file(status))
        detail::fail(path.string(), "is not a regular file (a folder, device, FIFO or socket); dmlref reads only regular files");
    const std::uint64_t size = std::filesystem::file_size(path, error);
    if (error) detail::fail(path.string(), "cannot read the file's size");
    if (size > max_bytes)
        detail::fail(path.string(), "holds " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) + " allowed");
    if (size > SIZE_MAX) detail::fail(path.string(), "is larger than this machine's address space");
    detail::file_handle in(detail::open_file(path, false));
    if (!in) detail::fail(path.string(), "cannot open the file");
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    if (std::fread(bytes.data(), 1, bytes.size(), in.get()) != bytes.size()) detail::fail(path.string(), "cannot read the file (it shrank?)");
    if (std::fgetc(in.get()) != EOF) detail::fail(path.string(), "grew while it was read");
    return bytes;
}

/// Reads a .npy file (a regular file; its data is held once in memory).
inline array read(const std::filesystem::path& path) { return parse(read_bytes(path), path.string()); }

/// The header of a version 1.0, little-endian, C-order .npy file of `type` and `shape`, padded so
/// that the data starts on a 64-byte boundary, as numpy writes it.
inline std::vector<std::byte> header_of(data_type type, std::span<const std::uint64_t> shape) {
    const std::string_view dtype = dtype_of(type);
    if (dtype.empty()) detail::fail("<memory>", "cannot write data type " + std::string(to_string(type)));
    std::string header = "{'descr': '" + std::string(dtype) + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i) header += std::to_string(shape[i]) + (i + 1 < shape.size() ? ", " : "");
    header += shape.size() == 1 ? ",), }" : "), }";
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    if (header.size() > 0xffff) detail::fail("<memory>", "the shape is too long for a version 1.0 header");
    std::vector<std::byte> out;
    out.reserve(10 + header.size());
    for (int c : {0x93, int{'N'}, int{'U'}, int{'M'}, int{'P'}, int{'Y'}, 1, 0}) out.push_back(std::byte(c));
    out.push_back(std::byte(header.size() & 0xff));
    out.push_back(std::byte(header.size() >> 8));
    for (char c : header) out.push_back(static_cast<std::byte>(c));
    return out;
}

namespace detail {

inline void check_sizes(data_type type, std::span<const std::uint64_t> shape, std::size_t data_bytes) {
    const auto count = element_count(shape);
    if (!count || *count > UINT64_MAX / element_size(type) || *count * element_size(type) != data_bytes)
        fail("<memory>", "the data holds " + std::to_string(data_bytes) + " bytes, which does not match the shape and the data type");
}

} // namespace detail

/// The bytes of a version 1.0, little-endian, C-order .npy file holding `a`.
inline std::vector<std::byte> serialize(const array& a) {
    std::vector<std::byte> out = header_of(a.type, a.shape);
    detail::check_sizes(a.type, a.shape, a.data.size());
    out.insert(out.end(), a.data.begin(), a.data.end());
    return out;
}

/// Told the path of each temporary file while it may exist: called with the path just before the
/// file is created (so that a signal landing while the file is being created still finds it),
/// and with nullptr once it has been renamed or removed, or could not be created. A program that
/// wants no temporary left behind when a signal ends it records the path here and removes it in
/// its handler (the library installs no handler). Called from the writing thread; must not throw.
using temporary_observer = void (*)(const std::filesystem::path* temporary) noexcept;

struct write_options {
    temporary_observer on_temporary = nullptr;
};

namespace detail {

/// A name for the temporary no other writer picks: random, and created exclusively anyway.
inline std::filesystem::path temporary_name(const std::filesystem::path& path, unsigned attempt) {
    std::uint64_t bits = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    try {
        std::random_device random;
        bits ^= (std::uint64_t{random()} << 32) ^ random();
    } catch (...) { // no entropy source: the clock and the attempt still differ
    }
    bits ^= std::uint64_t{attempt} * 0x9E3779B97F4A7C15u;
    static constexpr char hex[] = "0123456789abcdef";
    std::string suffix(16, '0');
    for (std::size_t i = 0; i < 16; ++i) suffix[i] = hex[(bits >> (4 * i)) & 15];
    std::string file = ".";
    file += path.filename().string();
    file += '.';
    file += suffix;
    file += ".dmlref-tmp";
    return path.parent_path() / file;
}

/// The target must be absent or a regular file: writing replaces it, and replacing a device, a
/// FIFO, a folder or a link (rather than what it points to) is never what a model means.
inline void check_target(const std::filesystem::path& path) {
    std::error_code error;
    const auto status = std::filesystem::symlink_status(path, error);
    if (status.type() == std::filesystem::file_type::not_found) return;
    if (error) fail(path.string(), "cannot inspect the file: " + error.message());
    if (std::filesystem::is_symlink(status)) fail(path.string(), "is a symbolic link; dmlref does not write through links");
    if (!std::filesystem::is_regular_file(status))
        fail(path.string(), "exists and is not a regular file (a folder, device, FIFO or socket); dmlref replaces only regular files");
}

} // namespace detail

/// Writes `parts`, one after the other, to `path` through a new temporary file in the same folder
/// (created exclusively, so nothing planted under its name is written through) and a rename: a
/// failed write leaves neither a partial file nor the temporary behind. An existing target that is
/// not a regular file (a link, folder, device or FIFO) is refused.
inline void write_file_atomically(const std::filesystem::path& path, std::span<const std::span<const std::byte>> parts,
                                  const write_options& options = {}) {
    detail::check_target(path);
    std::filesystem::path temporary;
    detail::file_handle out;
    for (unsigned attempt = 0; attempt < 16 && !out; ++attempt) {
        temporary = detail::temporary_name(path, attempt);
        if (options.on_temporary) options.on_temporary(&temporary);
        errno = 0;
        out.reset(detail::open_file(temporary, true));
        const int error = errno;
        if (!out && options.on_temporary) options.on_temporary(nullptr); // not ours: never to be removed
        if (!out && error != EEXIST) break;
    }
    if (!out) detail::fail(path.string(), "cannot create the file");
    auto discard = [&](std::string_view why) {
        out.reset();
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        if (options.on_temporary) options.on_temporary(nullptr);
        detail::fail(path.string(), why);
    };
    for (const auto& part : parts)
        if (!part.empty() && std::fwrite(part.data(), 1, part.size(), out.get()) != part.size()) discard("cannot write the file");
    if (std::fflush(out.get()) != 0) discard("cannot write the file");
    if (std::fclose(out.release()) != 0) discard("cannot write the file");
    std::error_code error;
    const auto status = std::filesystem::symlink_status(path, error);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) // appeared while writing
        discard("became a link or a non-regular file while it was written; left as it is");
    std::filesystem::rename(temporary, path, error);
    if (error) discard("cannot replace the file");
    if (options.on_temporary) options.on_temporary(nullptr);
}

/// Writes raw bytes to `path` atomically (see above).
inline void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes,
                                  const write_options& options = {}) {
    const std::span<const std::byte> parts[] = {bytes};
    write_file_atomically(path, parts, options);
}

/// Writes a version 1.0 .npy file of `type`, `shape` and packed `data` atomically, without
/// copying the data.
inline void write(const std::filesystem::path& path, data_type type, std::span<const std::uint64_t> shape,
                  std::span<const std::byte> data, const write_options& options = {}) {
    const std::vector<std::byte> header = header_of(type, shape);
    detail::check_sizes(type, shape, data.size());
    const std::span<const std::byte> parts[] = {header, data};
    write_file_atomically(path, parts, options);
}

/// Writes `a` as a version 1.0 .npy file (atomically: temporary file, then rename).
inline void write(const std::filesystem::path& path, const array& a, const write_options& options = {}) {
    write(path, a.type, a.shape, a.data, options);
}

} // namespace dmlref::npy
