// .npy reading and writing: round trips of every type, hand-built headers of every version, byte
// order and memory order, and every refusal.
#include <catch2/catch.hpp>

#include <dmlref/npy.hpp>

#include <cstring>
#include <filesystem>
#include <string>

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
