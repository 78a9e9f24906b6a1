// Each boundary of the checks that both evaluation paths share, tested exactly at the boundary and
// one step past it: the checked arithmetic against a 128-bit reference, the .npy reader's shape
// digits and products at 2^64, and the desc rules whose off-by-one the engine-versus-textbook
// tests cannot see (execute and textbook::execute call the same validate()): SLICE1's and SLICE's
// window against InputTensor.Sizes, PADDING1's PaddingValueDataType, the Strides count and
// TotalTensorSizeInBytes against DMLCalcBufferTensorSize.
#include <catch2/catch.hpp>

#include <dmlref/detail/checked.hpp>
#include <dmlref/dmlref.hpp>
#include <dmlref/npy.hpp>

#include <fmt/format.h>

#include "seeded_random.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace dmlref;
using Catch::Contains;

namespace {

// ---------------------------------------------------------------------------------------------
// Checked arithmetic against a 128-bit reference.

constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();

/// The brief's edge values, both signs of each power-of-two boundary, and the square-root
/// boundaries of the products (3037000499^2 fits in 63 bits, 3037000500^2 does not).
constexpr std::int64_t signed_edges[] = {
    i64_min, i64_min + 1, i64_min / 2, -(std::int64_t{1} << 62) - 1, -3037000500, -3037000499,
    -(std::int64_t{1} << 32) - 1, -(std::int64_t{1} << 32), -(std::int64_t{1} << 32) + 1,
    -(std::int64_t{1} << 31) - 1, -(std::int64_t{1} << 31), -3, -2, -1, 0, 1, 2, 3,
    (std::int64_t{1} << 31) - 1, std::int64_t{1} << 31, (std::int64_t{1} << 32) - 1, std::int64_t{1} << 32,
    (std::int64_t{1} << 32) + 1, 3037000499, 3037000500, std::int64_t{1} << 62, i64_max / 2, i64_max - 1,
    i64_max,
};

/// The unsigned analogues: 2^32 +- 1 (whose product is 2^64 - 1), 2^63 and the top of the range.
constexpr std::uint64_t unsigned_edges[] = {
    0, 1, 2, 3, (std::uint64_t{1} << 31) - 1, std::uint64_t{1} << 31, (std::uint64_t{1} << 32) - 1,
    std::uint64_t{1} << 32, (std::uint64_t{1} << 32) + 1, std::uint64_t{1} << 62, (std::uint64_t{1} << 63) - 2,
    (std::uint64_t{1} << 63) - 1, std::uint64_t{1} << 63, (std::uint64_t{1} << 63) + 1, u64_max / 2, u64_max - 2,
    u64_max - 1, u64_max,
};

template <class Int> std::string text_of(const std::optional<Int>& v) {
    return v ? std::to_string(*v) : std::string("nullopt (does not fit)");
}

/// A value of every magnitude and both signs: a random bit length, sometimes an edge nudged by a
/// little, so that the draws cluster where the checks turn.
std::int64_t draw_signed(seeded::generator& rng) {
    if (seeded::chance(rng, 20)) {
        const std::int64_t edge = signed_edges[seeded::below(rng, static_cast<std::uint32_t>(std::size(signed_edges)))];
        const auto nudge = static_cast<std::int64_t>(seeded::pick(rng, 0, 4)) - 2;
        return (nudge > 0 && edge > i64_max - nudge) || (nudge < 0 && edge < i64_min - nudge) ? edge : edge + nudge;
    }
    std::uint64_t bits = rng() >> seeded::pick(rng, 0, 63);
    if (seeded::chance(rng, 50)) bits = 0 - bits; // two's complement negation
    return std::bit_cast<std::int64_t>(bits);
}

std::uint64_t draw_unsigned(seeded::generator& rng) {
    if (seeded::chance(rng, 20)) {
        const std::uint64_t edge = unsigned_edges[seeded::below(rng, static_cast<std::uint32_t>(std::size(unsigned_edges)))];
        return edge + seeded::pick(rng, 0, 4) - 2; // wraps at the ends, which are edges too
    }
    return rng() >> seeded::pick(rng, 0, 63);
}

#if defined(__SIZEOF_INT128__)
#define DMLREF_TEST_INT128 1
using wide = __int128;
using uwide = unsigned __int128;

std::optional<std::int64_t> fitting(wide v) {
    if (v < wide{i64_min} || v > wide{i64_max}) return std::nullopt;
    return static_cast<std::int64_t>(v);
}
std::optional<std::uint64_t> fitting(uwide v) {
    if (v > uwide{u64_max}) return std::nullopt;
    return static_cast<std::uint64_t>(v);
}

/// checked_add, checked_sub and checked_mul on ptrdiff_t against the exact results.
void check_signed_pair(std::int64_t a, std::int64_t b) {
    const auto pa = static_cast<std::ptrdiff_t>(a), pb = static_cast<std::ptrdiff_t>(b);
    INFO("a = " << a << ", b = " << b);
    CHECK(text_of(detail::checked_add(pa, pb)) == text_of(fitting(wide{a} + wide{b})));
    CHECK(text_of(detail::checked_sub(pa, pb)) == text_of(fitting(wide{a} - wide{b})));
    CHECK(text_of(detail::checked_mul(pa, pb)) == text_of(fitting(wide{a} * wide{b})));
}

/// checked_add and checked_mul on uint64_t against the exact results.
void check_unsigned_pair(std::uint64_t a, std::uint64_t b) {
    INFO("a = " << a << ", b = " << b);
    CHECK(text_of(detail::checked_add(a, b)) == text_of(fitting(uwide{a} + uwide{b})));
    CHECK(text_of(detail::checked_mul(a, b)) == text_of(fitting(uwide{a} * uwide{b})));
}
#endif

} // namespace

static_assert(sizeof(std::ptrdiff_t) == sizeof(std::int64_t), "the edge values assume a 64-bit ptrdiff_t");

TEST_CASE("checked arithmetic: every pair of signed edge values, against 128 bits", "[boundaries][checked]") {
#if DMLREF_TEST_INT128
    for (std::int64_t a : signed_edges)
        for (std::int64_t b : signed_edges) check_signed_pair(a, b);
#else
    WARN("skipped here: no 128-bit integer type for the reference");
#endif
}

TEST_CASE("checked arithmetic: every pair of unsigned edge values, against 128 bits", "[boundaries][checked]") {
#if DMLREF_TEST_INT128
    for (std::uint64_t a : unsigned_edges)
        for (std::uint64_t b : unsigned_edges) check_unsigned_pair(a, b);
#else
    WARN("skipped here: no 128-bit integer type for the reference");
#endif
}

TEST_CASE("checked arithmetic: seeded random pairs of all signs and magnitudes, against 128 bits",
          "[boundaries][checked]") {
#if DMLREF_TEST_INT128
    seeded::generator rng(20240611);
    for (int i = 0; i < 4000; ++i) {
        const std::int64_t a = draw_signed(rng), b = draw_signed(rng);
        check_signed_pair(a, b);
        const std::uint64_t ua = draw_unsigned(rng), ub = draw_unsigned(rng);
        check_unsigned_pair(ua, ub);
    }
#else
    WARN("skipped here: no 128-bit integer type for the reference");
#endif
}

TEST_CASE("checked arithmetic: negation, magnitude, the signed conversion and products at their edges",
          "[boundaries][checked]") {
    for (std::int64_t a : signed_edges) {
        INFO("a = " << a);
        const auto pa = static_cast<std::ptrdiff_t>(a);
        CHECK(text_of(detail::checked_neg(pa)) ==
              (a == i64_min ? text_of(std::optional<std::int64_t>{}) : text_of(std::optional<std::int64_t>{-a})));
        const std::uint64_t magnitude =
            a == i64_min ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(a < 0 ? -a : a);
        CHECK(detail::checked_magnitude(pa) == magnitude);
    }
    for (std::uint64_t v : unsigned_edges) {
        INFO("v = " << v);
        const auto expected = v <= static_cast<std::uint64_t>(i64_max) ? std::optional<std::int64_t>{static_cast<std::int64_t>(v)}
                                                                        : std::nullopt;
        CHECK(text_of(detail::checked_signed(v)) == text_of(expected));
    }
    using list = std::vector<std::uint64_t>;
    const auto product = [](const list& values) { return text_of(detail::checked_product(std::span<const std::uint64_t>(values))); };
    CHECK(product({(std::uint64_t{1} << 32) - 1, (std::uint64_t{1} << 32) + 1}) == std::to_string(u64_max)); // 2^64 - 1
    CHECK(product({std::uint64_t{1} << 32, std::uint64_t{1} << 32}) == text_of(std::optional<std::uint64_t>{}));
    CHECK(product({std::uint64_t{1} << 32, std::uint64_t{1} << 32, 0}) == "0"); // a later zero still makes 0
    CHECK(product({}) == "1");
    const std::vector<std::uint32_t> sizes{65536, 65536};
    CHECK(text_of(detail::checked_bytes(sizes, std::uint64_t{1} << 32)) == text_of(std::optional<std::uint64_t>{}));
    CHECK(text_of(detail::checked_bytes(sizes, (std::uint64_t{1} << 32) - 1)) ==
          std::to_string((std::uint64_t{1} << 32) * ((std::uint64_t{1} << 32) - 1)));
}

// ---------------------------------------------------------------------------------------------
// .npy: a shape's digits and its element count at 2^64.

namespace {

namespace npy = dmlref::npy;

/// A version 1.0 .npy file of dtype `descr` and shape text `shape` ("(2, 3)"), then `data_bytes` bytes.
std::vector<std::byte> npy_file(std::string_view descr, std::string_view shape, std::size_t data_bytes) {
    std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + std::string(shape) + ", }\n";
    std::vector<std::byte> out;
    for (char c : std::string("\x93NUMPY\x01\x00", 8)) out.push_back(static_cast<std::byte>(c));
    out.push_back(static_cast<std::byte>(header.size() & 0xff));
    out.push_back(static_cast<std::byte>(header.size() >> 8));
    for (char c : header) out.push_back(static_cast<std::byte>(c));
    out.insert(out.end(), data_bytes, std::byte{7});
    return out;
}

/// The message parse() refuses `file` with, or "accepted".
std::string npy_verdict(const std::vector<std::byte>& file) {
    try {
        (void)npy::parse(file, "b.npy");
    } catch (const validation_error& e) {
        return e.what();
    }
    return "accepted";
}

constexpr std::string_view digit_overflow = "a dimension of 'shape' overflows 64 bits";
constexpr std::string_view count_overflow = "the element count of the shape overflows 64 bits";

} // namespace

TEST_CASE("npy: a shape entry of 2^64 - 1 is read, 2^64 and above are refused and never wrapped", "[boundaries][npy]") {
    // A digit string that wrapped would read as a small size; each file below holds the data that
    // the wrapped size would need (2^64 -> 0 bytes, 2^64 + 1 -> 1 byte), so only the digit check
    // can refuse it.
    struct overflowing {
        std::string_view digits;
        std::size_t wrapped_bytes; // the digits mod 2^64, where that is small
    };
    for (const overflowing& o : {overflowing{"18446744073709551616", 0},   // 2^64
                                 overflowing{"18446744073709551617", 1},   // 2^64 + 1
                                 overflowing{"18446744073709551619", 3},   // 2^64 + 3
                                 overflowing{"18446744073709551625", 9},   // 2^64 + 9
                                 overflowing{"18446744073709551620", 4},   // 2^64 + 4
                                 overflowing{"36893488147419103232", 0},   // 2^65
                                 overflowing{"100000000000000000000", 0},  // 10^20
                                 overflowing{"99999999999999999999", 0},   // twenty nines
                                 overflowing{"184467440737095516150", 0}}) { // (2^64 - 1) * 10: 21 digits
        for (std::string_view descr : {"|u1", "<f4"}) {
            // (appended, not "(" + ...: GCC 12's -Wrestrict misfires on operator+ of a literal)
            const std::string shape = std::string("(").append(o.digits).append(",)");
            const std::string second = std::string("(1, ").append(o.digits).append(")");
            INFO("dtype " << descr << ", shape " << shape);
            CHECK_THAT(npy_verdict(npy_file(descr, shape, o.wrapped_bytes * (descr == "|u1" ? 1 : 4))),
                       Contains(std::string(digit_overflow)) && Contains("b.npy"));
            CHECK_THROWS_WITH(npy::parse_header(npy_file(descr, shape, 0)), Contains(std::string(digit_overflow)));
            // in a later position, after a valid entry, too
            CHECK_THAT(npy_verdict(npy_file(descr, second, 0)), Contains(std::string(digit_overflow)));
        }
    }

    // 2^64 - 1 itself is a size; what becomes of it is the element count's business.
    CHECK_THAT(npy_verdict(npy_file("|u1", "(18446744073709551615,)", 0)),
               Contains("need 18446744073709551615") && !Contains(std::string(digit_overflow)));
    const auto h = npy::parse_header(npy_file("|u1", "(18446744073709551615,)", 0));
    REQUIRE(h.shape.size() == 1);
    CHECK(h.shape[0] == u64_max);
    CHECK(h.data_bytes == u64_max);
    CHECK_THAT(npy_verdict(npy_file("|u1", "(18446744073709551614,)", 0)), Contains("need 18446744073709551614"));
    CHECK_THAT(npy_verdict(npy_file("<f4", "(18446744073709551615,)", 0)), Contains(std::string(count_overflow)));
    // Twenty digits below 2^64, and leading zeros of any number, are not an overflow.
    CHECK_THAT(npy_verdict(npy_file("|u1", "(10000000000000000000,)", 0)), Contains("need 10000000000000000000"));
    CHECK(npy::parse_header(npy_file("|u1", "(000000000000000000000000000018446744073709551615,)", 0)).shape[0] == u64_max);
    const auto zeros = npy::parse(npy_file("|u1", "(0000000000000000000000000003,)", 3));
    CHECK(zeros.shape == std::vector<std::uint64_t>{3});
    // An entry of 2^64 - 1 times an entry of 0 holds nothing: accepted.
    CHECK(npy::parse(npy_file("<f4", "(18446744073709551615, 0)", 0)).shape == std::vector<std::uint64_t>{u64_max, 0});
    CHECK(npy::parse(npy_file("<f8", "(0, 18446744073709551615)", 0)).shape == std::vector<std::uint64_t>{0, u64_max});
}

TEST_CASE("npy: element counts and byte counts at 2^64", "[boundaries][npy]") {
    // (2^32, 2^32) is 2^64 elements: refused. (2^32 - 1, 2^32 + 1) is 2^64 - 1: a count.
    CHECK_THAT(npy_verdict(npy_file("|u1", "(4294967296, 4294967296)", 0)), Contains(std::string(count_overflow)));
    CHECK_THAT(npy_verdict(npy_file("|u1", "(4294967296, 2, 2147483648)", 0)), Contains(std::string(count_overflow)));
    CHECK_THAT(npy_verdict(npy_file("|u1", "(4294967295, 4294967297)", 0)), Contains("need 18446744073709551615"));
    // 2^63 elements: bytes fit for one-byte types (2^63), not for two-byte ones (2^64).
    CHECK_THAT(npy_verdict(npy_file("|i1", "(4294967296, 2147483648)", 0)), Contains("need 9223372036854775808"));
    CHECK_THAT(npy_verdict(npy_file("<i2", "(4294967296, 2147483648)", 0)), Contains(std::string(count_overflow)));
    // 2^62 elements of 4 bytes are 2^64 bytes; 2^62 - 1 of them are 2^64 - 4.
    CHECK_THAT(npy_verdict(npy_file("<u4", "(4611686018427387904,)", 0)), Contains(std::string(count_overflow)));
    CHECK_THAT(npy_verdict(npy_file("<u4", "(4611686018427387903,)", 0)), Contains("need 18446744073709551612"));
    // 2^61 elements of 8 bytes are 2^64 bytes; (2^64 - 1) / 8 of them fit.
    CHECK_THAT(npy_verdict(npy_file("<f8", "(2305843009213693952,)", 0)), Contains(std::string(count_overflow)));
    CHECK_THAT(npy_verdict(npy_file("<f8", "(2305843009213693951,)", 0)), Contains("need 18446744073709551608"));
}

// ---------------------------------------------------------------------------------------------
// Desc rules at their boundaries, through validate(desc, level).

namespace {

/// validate()'s message at the newest level, or "accepted".
std::string verdict(const operator_desc& desc, feature_level level = newest_feature_level) {
    return validate(desc, level).value_or("accepted");
}

void expect_accepted(const operator_desc& desc) { CHECK(verdict(desc) == "accepted"); }

/// Rejected, with a message holding each of `words`.
void expect_rejected(const operator_desc& desc, std::initializer_list<std::string> words) {
    const std::string message = verdict(desc);
    INFO("message: " << message);
    CHECK(message != "accepted");
    for (const std::string& word : words) CHECK_THAT(message, Contains(word));
}

std::string at(std::string_view field, std::size_t axis) { return std::string(field) + "[" + std::to_string(axis) + "]"; }

/// SLICE1 copying all of `in_sizes` except along `axis`, where the window is (offset, size,
/// stride) and the output holds `count` elements.
slice1_desc slice1_window(data_type type, const std::vector<std::uint32_t>& in_sizes, std::size_t axis,
                          std::uint32_t offset, std::uint32_t size, std::int32_t stride, std::uint32_t count) {
    std::vector<std::uint32_t> out_sizes = in_sizes, offsets(in_sizes.size(), 0), sizes = in_sizes;
    std::vector<std::int32_t> strides(in_sizes.size(), 1);
    out_sizes[axis] = count;
    offsets[axis] = offset;
    sizes[axis] = size;
    strides[axis] = stride;
    return {make_buffer_tensor_desc(type, in_sizes), make_buffer_tensor_desc(type, out_sizes), offsets, sizes, strides};
}

/// SLICE (v0) copying all of `in_sizes` except along `axis`: `count` elements from `offset`, `stride` apart.
slice_desc slice0_window(data_type type, const std::vector<std::uint32_t>& in_sizes, std::size_t axis,
                         std::uint32_t offset, std::uint32_t count, std::uint32_t stride) {
    std::vector<std::uint32_t> out_sizes = in_sizes, offsets(in_sizes.size(), 0), strides(in_sizes.size(), 1);
    out_sizes[axis] = count;
    offsets[axis] = offset;
    strides[axis] = stride;
    return {make_buffer_tensor_desc(type, in_sizes), make_buffer_tensor_desc(type, out_sizes), offsets, out_sizes, strides};
}

/// An identity SLICE1 (the whole tensor) over these two tensor descs.
slice1_desc slice1_identity(buffer_tensor_desc in, buffer_tensor_desc out) {
    const std::size_t rank = in.sizes.size();
    std::vector<std::uint32_t> sizes = in.sizes;
    return {std::move(in), std::move(out), std::vector<std::uint32_t>(rank, 0), std::move(sizes),
            std::vector<std::int32_t>(rank, 1)};
}

} // namespace

TEST_CASE("SLICE1: a window ending exactly at InputTensor.Sizes is accepted, one further is not, for either stride sign",
          "[boundaries][validation]") {
    // The window is as tight as its reads, (count - 1) * |stride| + 1, so that its last element
    // is the last one read (a positive stride) or the first (a negative one): window end and
    // last read agree, and the test holds whichever of the two the rule is written in.
    const std::vector<std::uint32_t> in_sizes{2, 3, 5, 7};
    int accepted = 0;
    for (std::size_t axis = 0; axis < in_sizes.size(); ++axis)
        for (std::int32_t stride : {1, 2, 3, 6, -1, -2, -3, -6})
            for (std::uint32_t count = 1; count <= 4; ++count) {
                const std::uint32_t window = (count - 1) * static_cast<std::uint32_t>(stride < 0 ? -stride : stride) + 1;
                const std::uint32_t extent = in_sizes[axis];
                if (window > extent) continue;
                INFO("axis " << axis << ", stride " << stride << ", count " << count << ", window " << window);
                expect_accepted(slice1_window(data_type::float32, in_sizes, axis, extent - window, window, stride, count));
                expect_rejected(slice1_window(data_type::float32, in_sizes, axis, extent - window + 1, window, stride, count),
                                {"SLICE1", at("InputWindowOffsets", axis), at("InputTensor.Sizes", axis),
                                 std::to_string(extent)});
                // The window one larger at the same offset, where that adds a read one past the
                // end: a negative stride's first read, or a stride of 1 copying one more.
                if (stride < 0 || stride == 1)
                    expect_rejected(slice1_window(data_type::float32, in_sizes, axis, extent - window, window + 1, stride,
                                                  stride == 1 ? count + 1 : count),
                                    {"SLICE1", at("InputTensor.Sizes", axis), std::to_string(extent)});
                ++accepted;
            }
    CHECK(accepted == 70); // the loop ran over every case it meant to
}

TEST_CASE("SLICE1: the window's boundary at the largest sizes and strides", "[boundaries][validation]") {
    // The largest axis of one byte DirectML accepts: 2^32 - 4 elements (DMLCalcBufferTensorSize
    // rounds up to 4; TotalTensorSizeInBytes is at most (2^32 - 1) elements' worth, 2^32 - 1 bytes).
    constexpr std::uint32_t n = 0xffff'fffcu, u32_max = 0xffff'ffffu;
    const std::vector<std::uint32_t> in{n};
    REQUIRE(make_buffer_tensor_desc(data_type::uint8, in).total_tensor_size_in_bytes == n);
    for (std::int32_t stride : {1, -1, 2147483647, -2147483647, std::numeric_limits<std::int32_t>::min()}) {
        INFO("stride " << stride);
        // One element at the very end, and at one past it.
        expect_accepted(slice1_window(data_type::uint8, in, 0, n - 1, 1, stride, 1));
        expect_rejected(slice1_window(data_type::uint8, in, 0, n, 1, stride, 1),
                        {"SLICE1", "InputWindowOffsets[0]", "InputTensor.Sizes[0]", std::to_string(n)});
    }
    // Three reads 2^31 - 3 apart span the window of 2^32 - 5 elements: 0, 2^31 - 3, 2^32 - 6 from
    // its start. It fits from offsets 0 and 1 (ending at the axis's end), not from 2, and copies
    // three elements, not four.
    for (std::int32_t stride : {2147483645, -2147483645}) {
        INFO("stride " << stride);
        expect_accepted(slice1_window(data_type::uint8, in, 0, 0, n - 1, stride, 3));
        expect_accepted(slice1_window(data_type::uint8, in, 0, 1, n - 1, stride, 3));
        expect_rejected(slice1_window(data_type::uint8, in, 0, 2, n - 1, stride, 3), {"SLICE1", "InputTensor.Sizes[0]"});
        expect_rejected(slice1_window(data_type::uint8, in, 0, 0, n - 1, stride, 4), {"SLICE1", "OutputTensor.Sizes[0]"});
    }
    // The largest strides over the whole axis: two reads, 2^31 - 1 (or 2^31) apart; a third does not fit.
    for (std::int32_t stride : {2147483647, -2147483647, std::numeric_limits<std::int32_t>::min()}) {
        INFO("stride " << stride);
        expect_accepted(slice1_window(data_type::uint8, in, 0, 0, n, stride, 2));
        expect_rejected(slice1_window(data_type::uint8, in, 0, 1, n, stride, 2), {"SLICE1", "InputTensor.Sizes[0]"});
        expect_rejected(slice1_window(data_type::uint8, in, 0, 0, n, stride, 3), {"SLICE1", "OutputTensor.Sizes[0]"});
    }
    // Two reads 2^31 apart: the window of 2^31 + 1 fits from offset n - 2^31 - 1, not one further.
    constexpr std::int32_t most_negative = std::numeric_limits<std::int32_t>::min();
    constexpr std::uint32_t window = 2147483649u;
    expect_accepted(slice1_window(data_type::uint8, in, 0, n - window, window, most_negative, 2));
    expect_rejected(slice1_window(data_type::uint8, in, 0, n - window + 1, window, most_negative, 2),
                    {"SLICE1", "InputTensor.Sizes[0]"});
    // The largest offset and size: their sum is 2^33 - 2, far past the axis, and never wraps.
    expect_rejected(slice1_window(data_type::uint8, in, 0, u32_max, u32_max, 1, 1), {"SLICE1", "InputTensor.Sizes[0]"});
    // One element more on the axis is refused, by the cap on TotalTensorSizeInBytes.
    CHECK(verdict(slice1_window(data_type::uint8, {n + 1}, 0, n, 1, 1, 1)) ==
          "SLICE1: InputTensor.TotalTensorSizeInBytes = 4294967296 is more than (2^32 - 1) elements of 1 bytes = "
          "4294967295; DirectML refuses larger buffer tensors");

    // Of four bytes the largest axis is the element cap, 2^32 - 1 elements: (2^32 - 1) * 4 bytes,
    // the cap on TotalTensorSizeInBytes exactly.
    const std::vector<std::uint32_t> wide{u32_max};
    REQUIRE(make_buffer_tensor_desc(data_type::float32, wide).total_tensor_size_in_bytes == 0x3'ffff'fffcull);
    for (std::int32_t stride : {1, -1, 2147483647, -2147483647, std::numeric_limits<std::int32_t>::min()}) {
        INFO("stride " << stride);
        expect_accepted(slice1_window(data_type::float32, wide, 0, u32_max - 1, 1, stride, 1));
        expect_rejected(slice1_window(data_type::float32, wide, 0, u32_max, 1, stride, 1),
                        {"SLICE1", "InputWindowOffsets[0]", "InputTensor.Sizes[0]", std::to_string(u32_max)});
    }
    // Three reads 2^31 - 1 apart span the whole axis: 0, 2^31 - 1, 2^32 - 2.
    for (std::int32_t stride : {2147483647, -2147483647}) {
        INFO("stride " << stride);
        expect_accepted(slice1_window(data_type::float32, wide, 0, 0, u32_max, stride, 3));
        expect_rejected(slice1_window(data_type::float32, wide, 0, 1, u32_max, stride, 3), {"SLICE1", "InputTensor.Sizes[0]"});
        expect_rejected(slice1_window(data_type::float32, wide, 0, 0, u32_max, stride, 4), {"SLICE1", "OutputTensor.Sizes[0]"});
    }
    // Two reads 2^31 apart: the window of 2^31 + 1 fits from offset 2^31 - 2, not from 2^31 - 1.
    expect_accepted(slice1_window(data_type::float32, wide, 0, 2147483646u, window, most_negative, 2));
    expect_rejected(slice1_window(data_type::float32, wide, 0, 2147483647u, window, most_negative, 2),
                    {"SLICE1", "InputTensor.Sizes[0]"});
    expect_rejected(slice1_window(data_type::float32, wide, 0, u32_max, u32_max, 1, 1), {"SLICE1", "InputTensor.Sizes[0]"});
    // Of two bytes, 2^32 - 1 elements round up to 2^33 bytes, past (2^32 - 1) * 2.
    CHECK(verdict(slice1_window(data_type::float16, wide, 0, 0, 1, 1, 1)) ==
          "SLICE1: InputTensor.TotalTensorSizeInBytes = 8589934592 is more than (2^32 - 1) elements of 2 bytes = "
          "8589934590; DirectML refuses larger buffer tensors");
}

TEST_CASE("SLICE: a last read exactly at the last element is accepted, one further is not", "[boundaries][validation]") {
    // SLICE (v0) has unsigned strides only.
    const std::vector<std::uint32_t> in_sizes{2, 3, 5, 7};
    int accepted = 0;
    for (std::size_t axis = 0; axis < in_sizes.size(); ++axis)
        for (std::uint32_t stride : {1u, 2u, 3u, 6u, 1000u})
            for (std::uint32_t count = 1; count <= 4; ++count) {
                const std::uint32_t extent = in_sizes[axis], reach = (count - 1) * stride; // last read = offset + reach
                if (reach >= extent) continue;
                INFO("axis " << axis << ", stride " << stride << ", count " << count);
                expect_accepted(slice0_window(data_type::float32, in_sizes, axis, extent - 1 - reach, count, stride));
                expect_rejected(slice0_window(data_type::float32, in_sizes, axis, extent - reach, count, stride),
                                {"SLICE:", at("Offsets", axis), at("InputTensor.Sizes", axis), std::to_string(extent)});
                ++accepted;
            }
    CHECK(accepted == 39);

    // The largest axis of one byte DirectML accepts: 2^32 - 4 elements (TotalTensorSizeInBytes at
    // most 2^32 - 1 bytes), read with strides up to the largest DirectML accepts, 2^31 - 1.
    constexpr std::uint32_t n = 0xffff'fffcu, u32_max = 0xffff'ffffu, s = 0x7fff'ffffu;
    const std::vector<std::uint32_t> in{n};
    expect_accepted(slice0_window(data_type::uint8, in, 0, n - 1, 1, 1));
    expect_rejected(slice0_window(data_type::uint8, in, 0, n, 1, 1), {"SLICE:", "InputTensor.Sizes[0]"});
    // Two reads 2^31 - 1 apart: the last is at offset + 2^31 - 1, inside up to offset n - 2^31.
    expect_accepted(slice0_window(data_type::uint8, in, 0, 0, 2, s));
    expect_accepted(slice0_window(data_type::uint8, in, 0, n - 0x8000'0000u, 2, s)); // reads 2^31 - 4 and 2^32 - 5
    expect_rejected(slice0_window(data_type::uint8, in, 0, n - 0x8000'0000u + 1, 2, s),
                    {"SLICE: Offsets[0] + (Sizes[0] - 1) * Strides[0] = 2147483645 + (2 - 1) * 2147483647 = 4294967292 "
                     "is outside InputTensor.Sizes[0] = 4294967292"});
    // Three reads: 2 (2^31 - 1) is past the axis, 2 (2^31 - 3) = 2^32 - 6 fits from offsets 0 and 1.
    expect_rejected(slice0_window(data_type::uint8, in, 0, 0, 3, s), {"SLICE:", "= 4294967294 is outside"});
    expect_accepted(slice0_window(data_type::uint8, in, 0, 0, 3, s - 2));
    expect_accepted(slice0_window(data_type::uint8, in, 0, 1, 3, s - 2));
    expect_rejected(slice0_window(data_type::uint8, in, 0, 2, 3, s - 2), {"SLICE:", "InputTensor.Sizes[0]"});
    expect_rejected(slice0_window(data_type::uint8, in, 0, n, 2, 1), {"SLICE:", "InputTensor.Sizes[0]"});
    // The largest offset with the largest stride: the last read, 2^32 - 1 + 2^31 - 1, never wraps.
    expect_rejected(slice0_window(data_type::uint8, in, 0, u32_max, 2, s),
                    {"SLICE:", "= 4294967295 + (2 - 1) * 2147483647 = 6442450942 is outside"});

    // Of four bytes the largest axis is the element cap, 2^32 - 1 elements ((2^32 - 1) * 4 bytes,
    // the cap on TotalTensorSizeInBytes): three reads of the largest stride span it exactly, 0,
    // 2^31 - 1 and 2^32 - 2.
    const std::vector<std::uint32_t> wide{u32_max};
    expect_accepted(slice0_window(data_type::float32, wide, 0, u32_max - 1, 1, 1));
    expect_rejected(slice0_window(data_type::float32, wide, 0, u32_max, 1, 1),
                    {"SLICE: Offsets[0] + (Sizes[0] - 1) * Strides[0] = 4294967295 + (1 - 1) * 1 = 4294967295 is outside "
                     "InputTensor.Sizes[0] = 4294967295"});
    expect_accepted(slice0_window(data_type::float32, wide, 0, 0, 3, s));
    expect_rejected(slice0_window(data_type::float32, wide, 0, 1, 3, s),
                    {"SLICE: Offsets[0] + (Sizes[0] - 1) * Strides[0] = 1 + (3 - 1) * 2147483647 = 4294967295 is outside "
                     "InputTensor.Sizes[0] = 4294967295"});
    expect_accepted(slice0_window(data_type::float32, wide, 0, 0x8000'0000u - 1, 2, s)); // reads 2^31 - 1 and 2^32 - 2
    expect_rejected(slice0_window(data_type::float32, wide, 0, 0x8000'0000u, 2, s), {"SLICE:", "InputTensor.Sizes[0]"});
}

TEST_CASE("SLICE: the stride cap sits exactly at 2^31 - 1, as DirectML 1.15.4 measures", "[boundaries][validation]") {
    constexpr std::uint32_t n = 0xffff'fffcu, s = 0x7fff'ffffu;
    const auto refusal = [](std::size_t axis, std::uint32_t stride) {
        return fmt::format("SLICE: Strides[{}] = {} is more than 2147483647 (2^31 - 1); DirectML refuses larger strides",
                           axis, stride);
    };
    // One read on each axis of a small tensor: 2^31 - 1 is accepted, 2^31 and up are not.
    const std::vector<std::uint32_t> small{2, 3, 5, 7};
    for (std::size_t axis = 0; axis < small.size(); ++axis) {
        INFO("axis " << axis);
        expect_accepted(slice0_window(data_type::float32, small, axis, small[axis] - 1, 1, s));
        for (std::uint32_t stride : {s + 1, s + 2, 0xffff'fffeu, 0xffff'ffffu})
            expect_rejected(slice0_window(data_type::float32, small, axis, 0, 1, stride), {refusal(axis, stride)});
    }
    // On the largest axis, two reads 2^31 apart stay inside (0 and 2^31) and are still refused: the
    // cap is on the stride, not on the reads.
    const std::vector<std::uint32_t> in{n};
    expect_accepted(slice0_window(data_type::uint8, in, 0, 0, 2, s));
    CHECK(verdict(slice0_window(data_type::uint8, in, 0, 0, 2, s + 1)) == refusal(0, s + 1));
    // And a stride past the cap whose reads leave the input is refused for the stride (checked first).
    CHECK(verdict(slice0_window(data_type::uint8, in, 0, n - 1, 2, s + 1)) == refusal(0, s + 1));
    CHECK(verdict(slice0_window(data_type::uint8, in, 0, 0xffff'ffffu, 2, 0xffff'ffffu)) == refusal(0, 0xffff'ffffu));
}

TEST_CASE("PADDING1: PaddingValueDataType must be the tensors' own type, not another of its width",
          "[boundaries][validation]") {
    const data_type others[] = {data_type::unknown, data_type::uint4, data_type::int4};
    for (data_type tensor : movable_data_types) {
        const auto desc = [&](data_type value_type) {
            return padding1_desc{make_buffer_tensor_desc(tensor, {1, 1, 2, 3}),
                                 make_buffer_tensor_desc(tensor, {1, 1, 3, 5}),
                                 padding_mode::constant,
                                 value_type,
                                 scalar_union::of(std::uint64_t{0}),
                                 {0, 0, 1, 1},
                                 {0, 0, 0, 1}};
        };
        INFO("tensors " << to_string(tensor));
        expect_accepted(desc(tensor));
        for (data_type value : movable_data_types) {
            if (value == tensor) continue;
            INFO("PaddingValueDataType " << to_string(value)
                                         << (element_bits(value) == element_bits(tensor) ? " (the same width)" : ""));
            expect_rejected(desc(value), {"PADDING1", "PaddingValueDataType", std::string(to_string(value))});
        }
        for (data_type value : others) expect_rejected(desc(value), {"PADDING1", "PaddingValueDataType"});
    }
    // The same-width groups by name, so that a width-only check fails visibly here.
    const std::vector<std::vector<data_type>> groups{{data_type::float32, data_type::int32, data_type::uint32},
                                                     {data_type::float16, data_type::int16, data_type::uint16},
                                                     {data_type::float64, data_type::int64, data_type::uint64},
                                                     {data_type::int8, data_type::uint8}};
    for (const auto& group : groups)
        for (data_type tensor : group)
            for (data_type value : group) {
                const padding1_desc d{make_buffer_tensor_desc(tensor, {4}), make_buffer_tensor_desc(tensor, {6}),
                                      padding_mode::constant, value, scalar_union::of(std::uint64_t{0}), {1}, {1}};
                INFO(to_string(value) << " on " << to_string(tensor) << " tensors");
                if (value == tensor) expect_accepted(d);
                else expect_rejected(d, {"PaddingValueDataType"});
            }
}

TEST_CASE("tensor Strides: exactly DimensionCount entries, not one more or one fewer", "[boundaries][validation]") {
    for (std::size_t rank = 1; rank <= max_dimension_count; ++rank) {
        const std::vector<std::uint32_t> sizes(rank, 2);
        const std::vector<std::uint32_t> packed = packed_strides(sizes);
        std::vector<std::uint32_t> more = packed, fewer = packed;
        more.push_back(1);
        fewer.pop_back();
        const auto with = [&](const std::vector<std::uint32_t>& strides) { return make_buffer_tensor_desc(data_type::float32, sizes, strides); };
        const auto plain = make_buffer_tensor_desc(data_type::float32, sizes);
        INFO("rank " << rank);
        expect_accepted(slice1_identity(with(packed), with(packed)));
        for (const auto& [strides, what] : {std::pair{&more, "one more"}, std::pair{&fewer, "one fewer"}}) {
            INFO(what);
            const std::initializer_list<std::string> in_words{"SLICE1", "InputTensor.Strides", std::to_string(strides->size()),
                                                              std::to_string(rank)};
            const std::initializer_list<std::string> out_words{"SLICE1", "OutputTensor.Strides", std::to_string(strides->size()),
                                                               std::to_string(rank)};
            expect_rejected(slice1_identity(with(*strides), plain), in_words);
            expect_rejected(slice1_identity(plain, with(*strides)), out_words);
        }
    }
    // The same rule on the other operators' tensors.
    const std::vector<std::uint32_t> sizes{1, 8, 2, 3};
    const std::vector<std::uint32_t> five{48, 6, 3, 1, 1}, three{48, 6, 3}, four{48, 6, 3, 1};
    const auto t = [&](const std::vector<std::uint32_t>& strides) { return make_buffer_tensor_desc(data_type::uint32, sizes, strides); };
    const auto p = [&](std::vector<std::uint32_t> s) { return make_buffer_tensor_desc(data_type::uint32, std::move(s)); };
    expect_accepted(depth_to_space1_desc{t(four), p({1, 2, 4, 6}), 2, depth_space_order::column_row_depth});
    expect_rejected(depth_to_space1_desc{t(five), p({1, 2, 4, 6}), 2, depth_space_order::column_row_depth},
                    {"DEPTH_TO_SPACE1", "InputTensor.Strides", "5", "4"});
    expect_rejected(depth_to_space1_desc{t(three), p({1, 2, 4, 6}), 2, depth_space_order::column_row_depth},
                    {"DEPTH_TO_SPACE1", "InputTensor.Strides", "3", "4"});
    expect_accepted(padding1_desc{t(four), p({1, 8, 4, 5}), padding_mode::edge, data_type::uint32, {}, {0, 0, 1, 1}, {0, 0, 1, 1}});
    expect_rejected(padding1_desc{t(five), p({1, 8, 4, 5}), padding_mode::edge, data_type::uint32, {}, {0, 0, 1, 1}, {0, 0, 1, 1}},
                    {"PADDING1", "InputTensor.Strides", "5", "4"});
    expect_rejected(padding1_desc{p({1, 8, 2, 3}), t(three), padding_mode::edge, data_type::uint32, {}, {0, 0, 0, 0}, {0, 0, 0, 0}},
                    {"PADDING1", "OutputTensor.Strides", "3", "4"});
}

TEST_CASE("TotalTensorSizeInBytes: exactly DMLCalcBufferTensorSize is enough, 1 or 4 fewer bytes are not",
          "[boundaries][validation]") {
    struct tensor {
        data_type type;
        std::vector<std::uint32_t> sizes;
        std::optional<std::vector<std::uint32_t>> strides;
        std::uint64_t bytes; // DMLCalcBufferTensorSize, worked by hand
    };
    const tensor tensors[] = {
        {data_type::uint8, {1}, {}, 4},                  // one byte, rounded up to 4
        {data_type::uint8, {5}, {}, 8},                  // 5 -> 8
        {data_type::float16, {1, 1, 1, 3}, {}, 8},       // 6 -> 8: 7 bytes hold the elements but are not enough
        {data_type::float32, {2, 3}, {}, 24},
        {data_type::float32, {2, 3}, {{4, 1}}, 28},      // last element 1 * 4 + 2 * 1 = 6: 7 elements
        {data_type::float64, {3}, {}, 24},
        {data_type::int16, {2, 2}, {{1, 2}}, 8},         // transposed: last element 3
        {data_type::uint8, {3, 2}, {{0, 1}}, 4},         // broadcast (input only): last element 1
    };
    for (const tensor& t : tensors) {
        buffer_tensor_desc desc = make_buffer_tensor_desc(t.type, t.sizes, t.strides);
        INFO(to_string(t.type) << " tensor of " << t.sizes.size() << " dimensions, " << t.bytes << " bytes");
        REQUIRE(desc.total_tensor_size_in_bytes == t.bytes);
        REQUIRE(calc_buffer_tensor_size(desc) == t.bytes);
        const bool broadcasts = t.strides && std::find(t.strides->begin(), t.strides->end(), 0u) != t.strides->end();
        const buffer_tensor_desc packed_twin = make_buffer_tensor_desc(t.type, t.sizes);
        expect_accepted(slice1_identity(desc, packed_twin));
        if (!broadcasts) expect_accepted(slice1_identity(packed_twin, desc));
        for (std::uint64_t fewer : {std::uint64_t{1}, std::uint64_t{4}}) {
            buffer_tensor_desc short_desc = desc;
            short_desc.total_tensor_size_in_bytes = t.bytes - fewer;
            INFO(fewer << " fewer");
            expect_rejected(slice1_identity(short_desc, packed_twin),
                            {"SLICE1", "InputTensor.TotalTensorSizeInBytes", std::to_string(t.bytes - fewer),
                             std::to_string(t.bytes)});
            if (!broadcasts)
                expect_rejected(slice1_identity(packed_twin, short_desc),
                                {"SLICE1", "OutputTensor.TotalTensorSizeInBytes", std::to_string(t.bytes - fewer),
                                 std::to_string(t.bytes)});
        }
    }
}
