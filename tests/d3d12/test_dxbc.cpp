// The DXBC emitter: the container and its checksum reproduce fxc's output bit for bit, and the
// operand encodings match the tokens fxc writes.
#include <dmlref/d3d12/dxbc.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dxbc = dmlref::d3d12::dxbc;

namespace {

// fxc's compilation of "[numthreads(1, 1, 1)] void main() { }" (cs_5_0), as published with vkd3d's tests.
const std::vector<std::uint32_t> fxc_empty = {
    0x43425844, 0x1acc3ad0, 0x71c7b057, 0xc72c4306, 0xf432cb57, 0x00000001, 0x00000074, 0x00000003,
    0x0000002c, 0x0000003c, 0x0000004c, 0x4e475349, 0x00000008, 0x00000000, 0x00000008, 0x4e47534f,
    0x00000008, 0x00000000, 0x00000008, 0x58454853, 0x00000020, 0x00050050, 0x00000008, 0x0100086a,
    0x0400009b, 0x00000001, 0x00000001, 0x00000001, 0x0100003e};

// fxc's compilation of "RWStructuredBuffer<uint> Buf : register(u0); cbuffer CBuf : register(b0)
// { uint clear_value; }; [numthreads(64, 1, 1)] void main(uint thr : SV_DispatchThreadID)
// { Buf[thr] = clear_value; }" (cs_5_0).
const std::vector<std::uint32_t> fxc_clear = {
    0x43425844, 0x687983cd, 0xe75a9b58, 0xa77e1917, 0x78d96804, 0x00000001, 0x000000c0, 0x00000003,
    0x0000002c, 0x0000003c, 0x0000004c, 0x4e475349, 0x00000008, 0x00000000, 0x00000008, 0x4e47534f,
    0x00000008, 0x00000000, 0x00000008, 0x58454853, 0x0000006c, 0x00050050, 0x0000001b, 0x0100086a,
    0x04000059, 0x00208e46, 0x00000000, 0x00000001, 0x0400009e, 0x0011e000, 0x00000000, 0x00000004,
    0x0200005f, 0x00020012, 0x0400009b, 0x00000040, 0x00000001, 0x00000001, 0x090000a8, 0x0011e012,
    0x00000000, 0x0002000a, 0x00004001, 0x00000000, 0x0020800a, 0x00000000, 0x00000000, 0x0100003e};

std::vector<std::uint32_t> program_of(const std::vector<std::uint32_t>& blob) {
    return {blob.begin() + 23, blob.end()}; // after the header, ISGN, OSGN and the SHEX header
}

} // namespace

TEST_CASE("dxbc: the checksum matches fxc's on its own blobs", "[d3d12][dxbc]") {
    for (const auto* blob : {&fxc_empty, &fxc_clear}) {
        const auto sum = dxbc::checksum(std::span<const std::uint32_t>(*blob));
        CHECK(sum[0] == (*blob)[1]);
        CHECK(sum[1] == (*blob)[2]);
        CHECK(sum[2] == (*blob)[3]);
        CHECK(sum[3] == (*blob)[4]);
    }
}

TEST_CASE("dxbc: the checksum sees every byte after the checksum field", "[d3d12][dxbc]") {
    std::vector<std::uint32_t> blob = fxc_clear;
    const auto before = dxbc::checksum(std::span<const std::uint32_t>(blob));
    blob.back() ^= 0x100u;
    CHECK(dxbc::checksum(std::span<const std::uint32_t>(blob)) != before);
    blob.back() ^= 0x100u;
    blob[1] ^= 1u; // the checksum field itself is not covered
    CHECK(dxbc::checksum(std::span<const std::uint32_t>(blob)) == before);
}

TEST_CASE("dxbc: the checksum pads leftovers of 56 bytes or more with a second block", "[d3d12][dxbc]") {
    // Covered lengths that leave 55, 56 and 63 bytes in the last block must all differ from their
    // neighbours (the padding of a 56+ leftover is the branch fxc's small blobs never take).
    std::vector<std::uint8_t> bytes(20 + 64 + 63, 0x5a);
    std::vector<std::array<std::uint32_t, 4>> sums;
    for (std::size_t covered : {64u + 55u, 64u + 56u, 64u + 57u, 64u + 63u})
        sums.push_back(dxbc::checksum(std::span<const std::uint8_t>(bytes.data(), 20 + covered)));
    for (std::size_t i = 1; i < sums.size(); ++i) CHECK(sums[i] != sums[i - 1]);
    CHECK_THROWS_AS(dxbc::checksum(std::span<const std::uint8_t>(bytes.data(), 19)), std::invalid_argument);
}

TEST_CASE("dxbc: the container around fxc's program is fxc's blob", "[d3d12][dxbc]") {
    for (const auto* blob : {&fxc_empty, &fxc_clear}) {
        const auto program = program_of(*blob);
        CHECK(dxbc::container(program) == *blob);
    }
}

TEST_CASE("dxbc: the emitter writes fxc's tokens", "[d3d12][dxbc]") {
    dxbc::program p;
    p.dcl_global_flags();
    p.dcl_thread_group(1, 1, 1);
    p.ret();
    CHECK(dxbc::container(p.tokens()) == fxc_empty);

    // Operand encodings fxc uses (see the clear blob and the DXBC cheat-sheet of the notes).
    using span = std::span<const std::uint32_t>;
    CHECK(std::ranges::equal(dxbc::r(0).mask(dxbc::mask_x).tokens(), span(std::vector<std::uint32_t>{0x00100012, 0})));
    CHECK(std::ranges::equal(dxbc::r(3).y().tokens(), span(std::vector<std::uint32_t>{0x0010001a, 3})));
    CHECK(std::ranges::equal(dxbc::cb(0, 0).x().tokens(), span(std::vector<std::uint32_t>{0x0020800a, 0, 0})));
    CHECK(std::ranges::equal(dxbc::thread_id().x().tokens(), span(std::vector<std::uint32_t>{0x0002000a})));
    CHECK(std::ranges::equal(dxbc::u(1).swizzle(0).tokens(), span(std::vector<std::uint32_t>{0x0011e006, 1})));
    CHECK(std::ranges::equal(dxbc::imm(7).tokens(), span(std::vector<std::uint32_t>{0x00004001, 7})));
    CHECK(std::ranges::equal(dxbc::operand::cb_relative(0, 1, dxbc::r(1).x()).x().tokens(),
                             span(std::vector<std::uint32_t>{0x0620800a, 0, 1, 0x0010000a, 1})));
    CHECK(std::ranges::equal(dxbc::r(2).x().negated().tokens(),
                             span(std::vector<std::uint32_t>{0x8010000a, 0x41, 2})));
}
