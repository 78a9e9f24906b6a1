// .npy reading and writing: round trips of every type, hand-built headers of every version, byte
// order and memory order, and every refusal.
#include <catch2/catch.hpp>

#include <dmlref/npy.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using dmlref::data_type;
namespace npy = dmlref::npy;

std::vector<std::byte> bytes_of(std::string_view text) {
    std::vector<std::byte> out;
    for (char c : text) out.push_back(static_cast<std::byte>(c));
    return out;
}

/// A .npy file of version `major` with `header` (unpadded) and `data`.
std::vector<std::byte> make_file(unsigned major, std::string header, const std::vector<std::byte>& data) {
    header += '\n';
    std::vector<std::byte> out = bytes_of(std::string("\x93NUMPY", 6));
    out.push_back(std::byte(major));
    out.push_back(std::byte{0});
    const std::size_t n = header.size();
    out.push_back(std::byte(n & 0xff));
    out.push_back(std::byte((n >> 8) & 0xff));
    if (major > 1) {
        out.push_back(std::byte{0});
        out.push_back(std::byte{0});
    }
    for (char c : header) out.push_back(static_cast<std::byte>(c));
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

std::vector<std::byte> counting_bytes(std::size_t n) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::byte(i * 7 + 1);
    return v;
}

std::string message_of(const std::vector<std::byte>& file) {
    try {
        (void)npy::parse(file, "f.npy");
    } catch (const dmlref::validation_error& e) {
        return e.what();
    }
    return "<no error>";
}

} // namespace

TEST_CASE("npy: every type round-trips through serialize and parse", "[npy]") {
    for (data_type t : dmlref::movable_data_types) {
        for (std::vector<std::uint64_t> shape : {std::vector<std::uint64_t>{}, {5}, {2, 3}, {1, 2, 1, 3}, {0, 4}}) {
            std::uint64_t count = 1;
            for (auto s : shape) count *= s;
            const npy::array a{t, shape, counting_bytes(count * dmlref::element_size(t))};
            const auto file = npy::serialize(a);
            INFO(dmlref::to_string(t) << " rank " << shape.size());
            CHECK(file.size() % 64 == a.data.size() % 64); // the data starts on a 64-byte boundary
            CHECK(npy::parse(file) == a);
        }
    }
}

TEST_CASE("npy: the header numpy writes", "[npy]") {
    const auto file = npy::serialize({data_type::float16, {3}, counting_bytes(6)});
    const std::string text(reinterpret_cast<const char*>(file.data()), file.size());
    CHECK(text.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
    CHECK(text.find("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }") == 10);
    CHECK((file.size() - 6) % 64 == 0);
    CHECK(text[file.size() - 7] == '\n'); // the header ends in a newline, then the data
    const auto bytes = npy::serialize({data_type::uint8, {2, 2}, counting_bytes(4)});
    CHECK(std::string(reinterpret_cast<const char*>(bytes.data()) + 10, 55).find("'|u1'") != std::string::npos);
}

TEST_CASE("npy: versions 2 and 3, double quotes, trailing commas and spaces", "[npy]") {
    const auto data = counting_bytes(12);
    for (unsigned major : {1u, 2u, 3u}) {
        const auto a = npy::parse(make_file(major, "{\"descr\":'<i4' ,'shape':(3,) , 'fortran_order':False}   ", data));
        CHECK(a.type == data_type::int32);
        CHECK(a.shape == std::vector<std::uint64_t>{3});
        CHECK(a.data == data);
    }
}

TEST_CASE("npy: big-endian data is swapped to little-endian", "[npy]") {
    const std::vector<std::byte> be{std::byte{0x01}, std::byte{0x02}, std::byte{0x03}, std::byte{0x04},
                                    std::byte{0x05}, std::byte{0x06}, std::byte{0x07}, std::byte{0x08}};
    auto a = npy::parse(make_file(1, "{'descr': '>u2', 'fortran_order': False, 'shape': (4,), }", be));
    CHECK(a.data == std::vector<std::byte>{std::byte{0x02}, std::byte{0x01}, std::byte{0x04}, std::byte{0x03},
                                           std::byte{0x06}, std::byte{0x05}, std::byte{0x08}, std::byte{0x07}});
    a = npy::parse(make_file(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", be));
    CHECK(a.type == data_type::float64);
    CHECK(a.data == std::vector<std::byte>(be.rbegin(), be.rend()));
}

TEST_CASE("npy: Fortran order is transposed to C order", "[npy]") {
    // A 2x3 array [[0,1,2],[3,4,5]] stored column-major: 0 3 1 4 2 5.
    std::vector<std::byte> f;
    for (int v : {0, 3, 1, 4, 2, 5}) {
        f.push_back(std::byte(v & 0xff));
        f.push_back(std::byte(v >> 8));
    }
    const auto a = npy::parse(make_file(1, "{'descr': '<u2', 'fortran_order': True, 'shape': (2, 3), }", f));
    std::vector<std::uint16_t> values(6);
    std::memcpy(values.data(), a.data.data(), 12);
    CHECK(values == std::vector<std::uint16_t>{0, 1, 2, 3, 4, 5});
    // Rank 3, shape (2, 3, 2): element (i, j, k) at Fortran offset i + 2j + 6k holds 100i + 10j + k.
    std::vector<std::byte> g(12);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 2; ++k) g[static_cast<std::size_t>(i + 2 * j + 6 * k)] = std::byte(100 * i + 10 * j + k);
    const auto b = npy::parse(make_file(2, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 2), }", g));
    for (int i = 0, c = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 2; ++k, ++c) CHECK(b.data[static_cast<std::size_t>(c)] == std::byte(100 * i + 10 * j + k));
}

TEST_CASE("npy: every refusal names the file and the problem", "[npy]") {
    const auto data = counting_bytes(8);
    CHECK_THAT(message_of(bytes_of("hello world, not npy")), Catch::Contains("f.npy") && Catch::Contains("magic"));
    CHECK_THAT(message_of(bytes_of("\x93NUMPY")), Catch::Contains("magic"));
    auto v4 = make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data);
    v4[6] = std::byte{4};
    CHECK_THAT(message_of(v4), Catch::Contains("version 4.0"));
    auto truncated = make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data);
    truncated.resize(30);
    CHECK_THAT(message_of(truncated), Catch::Contains("truncated header"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data)),
               Catch::Contains("unsupported dtype '<c8'"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (8,), }", data)),
               Catch::Contains("unsupported dtype '|b1'"));
    CHECK_THAT(message_of(make_file(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", data)),
               Catch::Contains("expected a string"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data)),
               Catch::Contains("holds 8 bytes") && Catch::Contains("need 12"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", data)),
               Catch::Contains("need 4"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data)),
               Catch::Contains("overflows"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data)),
               Catch::Contains("overflows"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'shape': (2,), }", data)), Catch::Contains("lacks"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", data)),
               Catch::Contains("neither True nor False"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data)),
               Catch::Contains("non-negative integers"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data)),
               Catch::Contains("unknown key 'x'"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk", data)),
               Catch::Contains("after its dictionary"));
    CHECK_THAT(message_of(make_file(1, "{'descr': '<f4", data)), Catch::Contains("unterminated"));
}

TEST_CASE("npy: every prefix of a valid file is refused, never read past", "[npy]") {
    const auto file = npy::serialize({data_type::int16, {2, 3}, counting_bytes(12)});
    for (std::size_t n = 0; n < file.size(); ++n) {
        const std::vector<std::byte> prefix(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
        CHECK_THROWS_AS(npy::parse(prefix), dmlref::validation_error);
    }
}

TEST_CASE("npy: write and read files, and a failed write leaves nothing", "[npy]") {
    const auto dir = std::filesystem::temp_directory_path() / "dmlref_test_npy";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const npy::array a{data_type::int64, {2, 2}, counting_bytes(32)};
    npy::write(dir / "a.npy", a);
    CHECK(npy::read(dir / "a.npy") == a);
    CHECK_THROWS_WITH(npy::read(dir / "missing.npy"), Catch::Contains("missing.npy") && Catch::Contains("cannot open"));
    CHECK_THROWS_WITH(npy::write(dir / "no_such_folder" / "b.npy", a), Catch::Contains("cannot create"));
    CHECK_THROWS_WITH(npy::serialize({data_type::int64, {3}, counting_bytes(8)}), Catch::Contains("does not match"));
    CHECK_THROWS_WITH(npy::serialize({data_type::uint4, {2}, {}}), Catch::Contains("UINT4"));
    std::size_t files = 0;
    for ([[maybe_unused]] auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    CHECK(files == 1);
    std::filesystem::remove_all(dir);
}

TEST_CASE("npy: Fortran order costs O(count), whatever the rank", "[npy]") {
    // 20 axes of size 2 and one of 4096: 4 MiB of bytes. The transposition that summed rank
    // products per element took seconds here (76 s for such a file through the tool).
    std::string shape = "(";
    for (int i = 0; i < 20; ++i) shape += "2, ";
    shape += "4)";
    std::vector<std::byte> data(std::size_t{4} << 20);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 13 + 5);
    const auto start = std::chrono::steady_clock::now();
    const auto a = npy::parse(make_file(2, "{'descr': '|u1', 'fortran_order': True, 'shape': " + shape + ", }", data));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds < 2.0);
    // Element (i0, ..., i20) lies at Fortran offset i0 + 2 i1 + ... + 2^20 i20, C offset with the
    // last index fastest: C index c = 4 * (bits of i0..i19, i0 most significant) + i20.
    for (std::size_t c : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{4097}, (std::size_t{4} << 20) - 1}) {
        std::size_t f = 0, rest = c / 4;
        for (int axis = 19; axis >= 0; --axis, rest /= 2) f += (rest % 2) << axis;
        f += (c % 4) << 20;
        CHECK(a.data[c] == data[f]);
    }
    // Axes of size 1 cost nothing: 20,000 of them around 1 MiB.
    std::string ones = "(";
    for (int i = 0; i < 20000; ++i) ones += "1, ";
    ones += "1048576)";
    std::vector<std::byte> mib(std::size_t{1} << 20, std::byte{3});
    const auto start2 = std::chrono::steady_clock::now();
    CHECK(npy::parse(make_file(2, "{'descr': '|u1', 'fortran_order': True, 'shape': " + ones + ", }", mib)).data == mib);
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start2).count() < 2.0);
}

TEST_CASE("npy: parse of an owned file reuses its bytes and gives the same array", "[npy]") {
    for (bool fortran : {false, true}) {
        auto file = make_file(1, std::string("{'descr': '>u2', 'fortran_order': ") + (fortran ? "True" : "False") + ", 'shape': (2, 3), }",
                              counting_bytes(12));
        const auto copy = npy::parse(file);
        CHECK(npy::parse(std::move(file)) == copy);
    }
    // A version 2 header announcing 1 MiB + 1 bytes is refused before it is read.
    auto long_header = bytes_of(std::string("\x93NUMPY\x02\x00\x01\x00\x10\x00{", 13));
    long_header.resize(long_header.size() + (std::size_t{1} << 20), std::byte{' '});
    CHECK_THROWS_WITH(npy::parse(long_header), Catch::Contains("1048577 bytes") && Catch::Contains("longer than dmlref reads"));
}

TEST_CASE("npy: a write's temporary is created exclusively, never opened when something has its name", "[npy]") {
    // Every platform's branch of detail::open_file: on Windows, msvcrt ignores fopen's "x".
    const auto dir = std::filesystem::temp_directory_path() / "dmlref_test_npy_exclusive";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto path = dir / "taken";
    std::FILE* first = npy::detail::open_file(path, true);
    REQUIRE(first != nullptr);
    CHECK(std::fputs("first", first) >= 0);
    std::fclose(first);
    std::FILE* second = npy::detail::open_file(path, true);
    CHECK(second == nullptr);
    if (second) std::fclose(second);
    // The file keeps its bytes, and a write through a temporary replaces it whole.
    CHECK(npy::read_bytes(path) == bytes_of(std::string("first")));
    npy::write_file_atomically(path, std::as_bytes(std::span("new", 3)));
    CHECK(npy::read_bytes(path) == bytes_of(std::string("new")));
    std::vector<std::string> names;
    for (auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    CHECK(names == std::vector<std::string>{"taken"});
    std::filesystem::remove_all(dir);
}

#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct scratch_dir {
    std::filesystem::path path = std::filesystem::temp_directory_path() / ("dmlref_test_npy_" + std::to_string(::getpid()));
    scratch_dir() {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~scratch_dir() { std::filesystem::remove_all(path); }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (auto& e : std::filesystem::directory_iterator(path)) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
};

std::string slurp(const std::filesystem::path& p) {
    const auto bytes = npy::read_bytes(p);
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::vector<std::string> seen_temporaries;
void record(const std::filesystem::path* p) noexcept {
    seen_temporaries.push_back(p ? p->string() + (std::filesystem::exists(*p) ? " exists" : " absent") : "none");
}

} // namespace

TEST_CASE("npy: only regular files are read", "[npy]") {
    scratch_dir d;
    CHECK_THROWS_WITH(npy::read_bytes(d.path), Catch::Contains("not a regular file"));
    CHECK_THROWS_WITH(npy::read_bytes("/dev/zero"), Catch::Contains("/dev/zero") && Catch::Contains("not a regular file"));
    REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
    CHECK_THROWS_WITH(npy::read(d.path / "fifo"), Catch::Contains("fifo") && Catch::Contains("not a regular file"));
    npy::write_file_atomically(d.path / "f.bin", std::as_bytes(std::span("abcdef", 6)));
    CHECK_THROWS_WITH(npy::read_bytes(d.path / "f.bin", 5), Catch::Contains("6 bytes") && Catch::Contains("5 allowed"));
    CHECK(slurp(d.path / "f.bin") == "abcdef");
}

TEST_CASE("npy: writes go through a fresh exclusive temporary, never through a link", "[npy]") {
    scratch_dir d;
    const auto victim = d.path / "victim";
    npy::write_file_atomically(victim, std::as_bytes(std::span("precious", 8)));
    // A link planted where the old fixed temporary name was: the write must not follow it.
    std::filesystem::create_symlink(victim, d.path / "out.bin.tmp-dmlref");
    seen_temporaries.clear();
    npy::write_file_atomically(d.path / "out.bin", std::as_bytes(std::span("new", 3)), {record});
    CHECK(slurp(victim) == "precious");
    CHECK(slurp(d.path / "out.bin") == "new");
    // The observer heard of the temporary just before it was created and after it was renamed.
    REQUIRE(seen_temporaries.size() == 2);
    CHECK_THAT(seen_temporaries[0], Catch::StartsWith((d.path / ".out.bin.").string()) && Catch::EndsWith(".dmlref-tmp absent"));
    CHECK(seen_temporaries[1] == "none");
    CHECK(d.names() == std::vector<std::string>{"out.bin", "out.bin.tmp-dmlref", "victim"});

    // Targets that are not regular files are refused and left as they are.
    std::filesystem::create_symlink(victim, d.path / "link");
    CHECK_THROWS_WITH(npy::write_file_atomically(d.path / "link", std::as_bytes(std::span("x", 1))), Catch::Contains("symbolic link"));
    CHECK(std::filesystem::is_symlink(d.path / "link"));
    CHECK(slurp(victim) == "precious");
    REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
    CHECK_THROWS_WITH(npy::write(d.path / "fifo", {data_type::uint8, {1}, counting_bytes(1)}), Catch::Contains("not a regular file"));
    CHECK(std::filesystem::is_fifo(d.path / "fifo"));
    std::filesystem::create_directory(d.path / "dir");
    CHECK_THROWS_WITH(npy::write(d.path / "dir", {data_type::uint8, {1}, counting_bytes(1)}), Catch::Contains("not a regular file"));
    CHECK(std::filesystem::is_directory(d.path / "dir"));
    CHECK_THROWS_WITH(npy::write_file_atomically("/dev/null", std::as_bytes(std::span("x", 1))), Catch::Contains("not a regular file"));
    CHECK(d.names() == std::vector<std::string>{"dir", "fifo", "link", "out.bin", "out.bin.tmp-dmlref", "victim"});
}

TEST_CASE("npy: write of a type, a shape and a span writes what serialize does", "[npy]") {
    scratch_dir d;
    const npy::array a{data_type::float16, {2, 3}, counting_bytes(12)};
    npy::write(d.path / "a.npy", a.type, a.shape, a.data);
    const auto bytes = npy::read_bytes(d.path / "a.npy");
    CHECK(bytes == npy::serialize(a));
    CHECK_THROWS_WITH(npy::write(d.path / "b.npy", a.type, a.shape, std::span(a.data).first(10)), Catch::Contains("does not match"));
    CHECK(d.names() == std::vector<std::string>{"a.npy"});
}
#endif
