#pragma once
/// \file dxbc.hpp
/// A small shader model 5.0 DXBC emitter: the container with its checksum, and the instruction and
/// operand tokens of the compute-shader subset the kernels use. vkd3d 1.2 reads nothing but DXBC,
/// and no Debian 12 package compiles HLSL to DXBC, so the kernels are assembled here; the same
/// bytecode runs on Windows' D3D12. The encodings follow Microsoft's d3d11TokenizedProgramFormat.hpp.
///
///   dxbc::program p;
///   p.dcl_thread_group(64, 1, 1);
///   p.emit(dxbc::op::mov, {dxbc::r(0).x(), dxbc::imm(7)});
///   std::vector<std::uint32_t> blob = dxbc::container(p.tokens());   // what CreateComputePipelineState takes

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <vector>

namespace dmlref::d3d12::dxbc {

/// The checksum DXBC containers carry in bytes 4 to 19: MD5's block transform over bytes [20, end)
/// with DXBC's own final padding (the bit count moves to the front of the last block, and the last
/// word is bits / 4 | 1). Returns the four state words A, B, C, D.
inline std::array<std::uint32_t, 4> checksum(std::span<const std::uint8_t> blob) {
    if (blob.size() < 20) throw std::invalid_argument("dxbc::checksum: a DXBC container has at least 20 bytes");
    const std::span<const std::uint8_t> data = blob.subspan(20);
    std::array<std::uint32_t, 4> s{0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
    static constexpr std::uint32_t k[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
        0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
        0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
        0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
        0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
        0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
        0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
    static constexpr unsigned shift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
    auto transform = [&](const std::uint8_t* block) {
        std::uint32_t m[16];
        for (int i = 0; i < 16; ++i)
            m[i] = std::uint32_t{block[4 * i]} | std::uint32_t{block[4 * i + 1]} << 8 |
                   std::uint32_t{block[4 * i + 2]} << 16 | std::uint32_t{block[4 * i + 3]} << 24;
        std::uint32_t a = s[0], b = s[1], c = s[2], d = s[3];
        for (int i = 0; i < 64; ++i) {
            std::uint32_t f = 0;
            int g = 0;
            switch (i / 16) {
            case 0: f = (b & c) | (~b & d); g = i; break;
            case 1: f = (d & b) | (~d & c); g = (5 * i + 1) % 16; break;
            case 2: f = b ^ c ^ d; g = (3 * i + 5) % 16; break;
            default: f = c ^ (b | ~d); g = (7 * i) % 16; break;
            }
            // Rotated by hand: std::rotl's count is int in libstdc++ but unsigned in libc++ 14, so one
            // of them warns under -Wsign-conversion whichever type the table has (counts are 4 to 23).
            const std::uint32_t x = a + f + k[i] + m[g];
            const unsigned r = shift[i / 16][i % 4];
            const std::uint32_t rotated = (x << r) | (x >> (32 - r));
            a = d;
            d = c;
            c = b;
            b = b + rotated;
        }
        s[0] += a; s[1] += b; s[2] += c; s[3] += d;
    };
    auto put32 = [](std::uint8_t* at, std::uint32_t v) {
        for (int i = 0; i < 4; ++i) at[i] = static_cast<std::uint8_t>(v >> (8 * i));
    };
    const std::size_t full = data.size() / 64 * 64, rest = data.size() - full;
    for (std::size_t at = 0; at < full; at += 64) transform(data.data() + at);
    const auto bits = static_cast<std::uint32_t>(data.size() * 8);
    std::uint8_t block[64] = {};
    if (rest >= 56) {
        std::copy(data.begin() + static_cast<std::ptrdiff_t>(full), data.end(), block);
        block[rest] = 0x80;
        transform(block);
        std::fill(std::begin(block), std::end(block), std::uint8_t{0});
        put32(block, bits);
    } else {
        put32(block, bits);
        std::copy(data.begin() + static_cast<std::ptrdiff_t>(full), data.end(), block + 4);
        block[4 + rest] = 0x80;
    }
    put32(block + 60, (bits >> 2) | 1u);
    transform(block);
    return s;
}

/// The checksum of a container given as words.
inline std::array<std::uint32_t, 4> checksum(std::span<const std::uint32_t> words) {
    std::vector<std::uint8_t> bytes(words.size() * 4);
    for (std::size_t i = 0; i < words.size(); ++i)
        for (std::size_t b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<std::uint8_t>(words[i] >> (8 * b));
    return checksum(std::span<const std::uint8_t>(bytes));
}

/// A DXBC container of a compute shader: empty input and output signatures (ISGN, OSGN) and the
/// SHEX chunk holding `program` (the version token and length are added here), checksum filled in.
inline std::vector<std::uint32_t> container(std::span<const std::uint32_t> program) {
    constexpr std::uint32_t cs_5_0 = 0x00050050;
    const auto shex_dwords = static_cast<std::uint32_t>(program.size() + 2);
    std::vector<std::uint32_t> w = {0x43425844u, 0, 0, 0, 0, 1u, 0 /* total bytes */, 3u, 44u, 60u, 76u,
                                    0x4e475349u, 8u, 0u, 8u,          // 'ISGN', 8 bytes: no elements
                                    0x4e47534fu, 8u, 0u, 8u,          // 'OSGN'
                                    0x58454853u, shex_dwords * 4u, cs_5_0, shex_dwords};
    w.insert(w.end(), program.begin(), program.end());
    w[6] = static_cast<std::uint32_t>(w.size() * 4);
    const auto sum = checksum(std::span<const std::uint32_t>(w));
    std::copy(sum.begin(), sum.end(), w.begin() + 1);
    return w;
}

/// Opcodes (D3D10_SB_OPCODE_TYPE / D3D11_SB_OPCODE_TYPE values).
enum class op : std::uint32_t {
    and_ = 0x01, break_ = 0x02, breakc = 0x03, else_ = 0x12, endif = 0x15, endloop = 0x16, iadd = 0x1e,
    if_ = 0x1f, ieq = 0x20, ige = 0x21, ilt = 0x22, imad = 0x23, imul = 0x26, ine = 0x27, ineg = 0x28,
    ishl = 0x29, loop = 0x30, mov = 0x36, movc = 0x37, or_ = 0x3c, ret = 0x3e, udiv = 0x4e, ult = 0x4f,
    uge = 0x50, ushr = 0x55, ubfe = 0x8a, bfi = 0x8c, ld_raw = 0xa5, store_raw = 0xa6,
    // declarations
    dcl_constant_buffer = 0x59, dcl_input = 0x5f, dcl_temps = 0x68, dcl_global_flags = 0x6a,
    dcl_thread_group = 0x9b, dcl_uav_raw = 0x9d, dcl_resource_raw = 0xa1,
};

/// Operand types (D3D10_SB_OPERAND_TYPE).
enum class operand_type : std::uint32_t {
    temp = 0x00, immediate32 = 0x04, resource = 0x07, constant_buffer = 0x08, uav = 0x1e, thread_id = 0x20,
    thread_group_id = 0x21, thread_id_in_group = 0x22,
};

/// One operand: its token and what follows (indices, immediate values, relative-index operands).
class operand {
public:
    std::span<const std::uint32_t> tokens() const noexcept { return {words_.data(), size_}; }

    /// This register as a destination writing the components in `mask` (bit 0 = x ... bit 3 = w).
    operand mask(std::uint32_t m) const { return with_selection(0, m); }
    /// This register as a source reading one component (0 = x ... 3 = w).
    operand select(std::uint32_t component) const { return with_selection(2, component); }
    /// This register as a source with a four-component swizzle, two bits per component.
    operand swizzle(std::uint32_t s) const { return with_selection(1, s); }
    operand x() const { return select(0); }
    operand y() const { return select(1); }
    operand z() const { return select(2); }
    operand w() const { return select(3); }
    /// The negated source (an extended operand token).
    operand negated() const {
        operand o = *this;
        o.words_[0] |= 0x80000000u;
        for (std::size_t i = o.size_; i > 1; --i) o.words_[i] = o.words_[i - 1];
        o.words_[1] = 0x41u; // D3D10_SB_EXTENDED_OPERAND_MODIFIER, NEG
        ++o.size_;
        return o;
    }

    /// A four-component register of `type` with `indices` immediate indices (r0, u1, cb0[3]).
    static operand reg(operand_type type, std::initializer_list<std::uint32_t> indices) {
        operand o;
        o.words_[0] = 2u | static_cast<std::uint32_t>(type) << 12 | static_cast<std::uint32_t>(indices.size()) << 20;
        for (std::uint32_t i : indices) o.push(i);
        return o;
    }
    /// cb`buffer`[`base` + `relative`]: a constant buffer read at a dynamic index.
    static operand cb_relative(std::uint32_t buffer, std::uint32_t base, const operand& relative) {
        operand o;
        o.words_[0] = 2u | static_cast<std::uint32_t>(operand_type::constant_buffer) << 12 | 2u << 20 | 3u << 25;
        o.push(buffer);
        o.push(base);
        for (std::uint32_t t : relative.tokens()) o.push(t);
        return o;
    }
    /// A 32-bit immediate (l(value)).
    static operand immediate(std::uint32_t value) {
        operand o;
        o.words_[0] = 1u | static_cast<std::uint32_t>(operand_type::immediate32) << 12;
        o.push(value);
        return o;
    }

private:
    operand with_selection(std::uint32_t mode, std::uint32_t bits) const {
        operand o = *this;
        o.words_[0] = (o.words_[0] & ~0xfffu) | 2u | mode << 2 | bits << 4;
        return o;
    }
    void push(std::uint32_t w) {
        if (size_ == words_.size()) throw std::length_error("dxbc::operand: too many tokens");
        words_[size_++] = w;
    }
    std::array<std::uint32_t, 8> words_{};
    std::size_t size_ = 1;
};

/// Temp register rN.
inline operand r(std::uint32_t n) { return operand::reg(operand_type::temp, {n}); }
/// Constant buffer element cb`buffer`[`index`].
inline operand cb(std::uint32_t buffer, std::uint32_t index) {
    return operand::reg(operand_type::constant_buffer, {buffer, index});
}
/// Raw SRV tN, UAV uN.
inline operand t(std::uint32_t n) { return operand::reg(operand_type::resource, {n}); }
inline operand u(std::uint32_t n) { return operand::reg(operand_type::uav, {n}); }
/// vThreadID (SV_DispatchThreadID).
inline operand thread_id() { return operand::reg(operand_type::thread_id, {}); }
/// l(value).
inline operand imm(std::uint32_t value) { return operand::immediate(value); }

/// Component masks for destinations.
inline constexpr std::uint32_t mask_x = 0x1, mask_xy = 0x3;

/// A shader program under construction: declarations and instructions as tokens.
class program {
public:
    /// One instruction: `opcode` with control bits `control` and its operands.
    void emit(op opcode, std::initializer_list<operand> operands, std::uint32_t control = 0) {
        std::size_t length = 1;
        for (const operand& o : operands) length += o.tokens().size();
        tokens_.push_back(static_cast<std::uint32_t>(opcode) | control << 11 | static_cast<std::uint32_t>(length) << 24);
        for (const operand& o : operands) tokens_.insert(tokens_.end(), o.tokens().begin(), o.tokens().end());
    }
    /// An instruction with raw words after the opcode (declarations).
    void emit_raw(op opcode, std::initializer_list<std::uint32_t> words, std::uint32_t control = 0) {
        tokens_.push_back(static_cast<std::uint32_t>(opcode) | control << 11 |
                          static_cast<std::uint32_t>(words.size() + 1) << 24);
        tokens_.insert(tokens_.end(), words.begin(), words.end());
    }

    /// dcl_globalFlags refactoringAllowed.
    void dcl_global_flags() { emit_raw(op::dcl_global_flags, {}, 1); }
    /// dcl_constantbuffer cb`n`[`vec4_count`], dynamically indexed or not.
    void dcl_constant_buffer(std::uint32_t n, std::uint32_t vec4_count, bool dynamic) {
        emit_raw(op::dcl_constant_buffer, {0x00208e46u, n, vec4_count}, dynamic ? 1u : 0u);
    }
    /// dcl_resource_raw tN (a ByteAddressBuffer).
    void dcl_resource_raw(std::uint32_t n) { emit_raw(op::dcl_resource_raw, {0x00107000u, n}); }
    /// dcl_uav_raw uN (a RWByteAddressBuffer).
    void dcl_uav_raw(std::uint32_t n) { emit_raw(op::dcl_uav_raw, {0x0011e000u, n}); }
    /// dcl_input vThreadID.xy.
    void dcl_input_thread_id_xy() { emit_raw(op::dcl_input, {0x00020032u}); }
    /// dcl_temps `count`.
    void dcl_temps(std::uint32_t count) { emit_raw(op::dcl_temps, {count}); }
    /// dcl_thread_group x, y, z.
    void dcl_thread_group(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
        emit_raw(op::dcl_thread_group, {x, y, z});
    }

    /// Control flow: `if` / `breakc` test a register for nonzero (true) or zero (false).
    void if_nonzero(const operand& condition) { emit(op::if_, {condition}, 0x80); }
    void if_zero(const operand& condition) { emit(op::if_, {condition}, 0); }
    void else_() { emit(op::else_, {}); }
    void endif() { emit(op::endif, {}); }
    void loop() { emit(op::loop, {}); }
    void endloop() { emit(op::endloop, {}); }
    void breakc_nonzero(const operand& condition) { emit(op::breakc, {condition}, 0x80); }
    void ret() { emit(op::ret, {}); }

    const std::vector<std::uint32_t>& tokens() const noexcept { return tokens_; }

private:
    std::vector<std::uint32_t> tokens_;
};

} // namespace dmlref::d3d12::dxbc
