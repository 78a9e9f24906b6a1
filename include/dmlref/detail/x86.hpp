#pragma once
/// \file x86.hpp
/// The one place that knows x86: its intrinsics, the target attributes of the kernels compiled for
/// instructions beyond x86-64's baseline, and the processor checks that choose them at run time.
/// The rest of the engine reaches it through the DMLREF_STREAM_STORES, DMLREF_BYTE_SHUFFLE_KERNELS
/// and DMLREF_WIDE_SHUFFLE_KERNELS switches, defined on every target (0 elsewhere and under
/// DMLREF_PORTABLE), inside which alone it calls the kernels here; and through shuffles_here(),
/// which exists everywhere and answers shuffles::none where no byte-shuffle kernel can run.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "config.hpp"

// Outputs larger than the caches are written with non-temporal (streaming) 16-byte stores where
// the target has them (x86-64: SSE2), as memcpy does for large copies: the store then needs no
// read of the line it overwrites, and DRAM traffic drops from three passes to two.
#if DMLREF_VECTOR_KERNELS && defined(__SSE2__)
#define DMLREF_STREAM_STORES 1
#include <emmintrin.h>
#else
#define DMLREF_STREAM_STORES 0
#endif

// Interleaves of 3 or 4 rows (and their inverses) have no short form in SSE2, but with SSSE3's
// byte shuffle (pshufb) each 16 output bytes take B shuffles and B - 1 ORs, whatever the element
// width. Every x86-64 processor since 2006 has SSSE3, but x86-64's baseline does not: those kernels
// alone are compiled for it (a target attribute) and run where the processor reports it.
#if DMLREF_STREAM_STORES
#define DMLREF_BYTE_SHUFFLE_KERNELS 1
#define DMLREF_TARGET_SSSE3 __attribute__((target("ssse3")))
#include <tmmintrin.h>
#else
#define DMLREF_BYTE_SHUFFLE_KERNELS 0
#endif

// With AVX-512 VBMI's two-table byte permute (vpermt2b), the interleaves of depth to space take 2
// permutes per 64 output bytes (3 for B = 4) instead of 4 times 5 (7) SSSE3 operations, and each
// output line is one store, which can stream at DRAM sizes (row_kernels::interleave). Space to
// depth keeps the SSSE3 kernels: the 64-byte ones measured no faster for it. GCC turns
// __builtin_shuffle with a variable control into vpermt2b; with other compilers the SSSE3 kernels
// stay the widest. Like SSSE3, the kernels are compiled for the instructions (a target attribute)
// and run where the processor reports them.
#if DMLREF_BYTE_SHUFFLE_KERNELS && defined(__GNUC__) && !defined(__clang__)
#define DMLREF_WIDE_SHUFFLE_KERNELS 1
#define DMLREF_TARGET_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#else
#define DMLREF_WIDE_SHUFFLE_KERNELS 0
#endif

namespace dmlref::detail {

#if DMLREF_STREAM_STORES
/// A non-temporal (streaming) store of the 16 bytes at `from` to `p`, which must be 16-byte aligned.
inline void stream_store(std::byte* p, const void* from) noexcept {
    __m128i bits;
    std::memcpy(&bits, from, 16);
    _mm_stream_si128(reinterpret_cast<__m128i*>(p), bits);
}

/// Streaming stores are weakly ordered: this publishes the calling thread's before it is done.
inline void stream_fence() noexcept { _mm_sfence(); }
#endif

/// Whether the byte-shuffle kernels can run here (SSSE3).
inline bool has_byte_shuffle() noexcept {
#if DMLREF_BYTE_SHUFFLE_KERNELS
    return __builtin_cpu_supports("ssse3");
#else
    return false;
#endif
}

#if DMLREF_BYTE_SHUFFLE_KERNELS
/// Byte-shuffle controls (one 16-byte control per output vector and input vector).
template <std::size_t B> using shuffle_controls = std::array<std::array<char, 16>, B * B>;

/// The vector part of an interleave of B = 3 or 4 rows (Zip) or of its inverse, for elements of
/// `w` bytes (mover::interleave and mover::deinterleave): whole steps of 16 bytes of each row
/// while they fit in `count` elements; returns how many elements it did. The element width is a
/// parameter rather than a template argument: one function serves all widths. These interleaves
/// write through the cache (see row_kernels::interleave).
template <std::size_t B, bool Zip>
DMLREF_TARGET_SSSE3 std::ptrdiff_t shuffled(std::byte* out, const std::byte* in, std::ptrdiff_t row_step, std::ptrdiff_t count,
                                            std::ptrdiff_t w, const shuffle_controls<B>& controls) noexcept {
    constexpr auto b = static_cast<std::ptrdiff_t>(B);
    const std::ptrdiff_t lanes = 16 / w;
    __m128i control[B * B];
    for (std::size_t c = 0; c < B * B; ++c) control[c] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(controls[c].data()));
    std::ptrdiff_t x = 0;
    for (; x + lanes <= count; x += lanes) {
        __m128i v[B];
        for (std::ptrdiff_t k = 0; k < b; ++k)
            v[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(Zip ? in + k * row_step + x * w : in + b * x * w + k * 16));
        for (std::ptrdiff_t j = 0; j < b; ++j) {
            __m128i part = _mm_shuffle_epi8(v[0], control[j * b]);
            for (std::ptrdiff_t k = 1; k < b; ++k) part = _mm_or_si128(part, _mm_shuffle_epi8(v[k], control[j * b + k]));
            auto* to = reinterpret_cast<__m128i*>(Zip ? out + b * x * w + j * 16 : out + j * row_step + x * w);
            _mm_storeu_si128(to, part);
        }
    }
    return x;
}
#endif


/// Whether the 64-byte permute kernels can run here (AVX-512 VBMI).
inline bool has_wide_shuffle() noexcept {
#if DMLREF_WIDE_SHUFFLE_KERNELS
    return __builtin_cpu_supports("avx512vbmi");
#else
    return false;
#endif
}

/// Byte-shuffle kernel levels, narrowest first: none (scalar loops), SSSE3, AVX-512 VBMI.
enum class shuffles : std::uint8_t { none, ssse3, vbmi };

/// The widest level the engine may choose; all of them unless lowered. Lowering it runs the
/// narrower kernels on a processor that has wider ones, as on processors without them: the tests
/// use it to reach every kernel on any machine. Not synchronised: change it while no copy runs.
inline shuffles& shuffles_allowed() noexcept {
    static shuffles allowed = shuffles::vbmi;
    return allowed;
}

/// The widest byte-shuffle kernels that can run here and are allowed.
inline shuffles shuffles_here() noexcept {
    const shuffles found = has_wide_shuffle() ? shuffles::vbmi : has_byte_shuffle() ? shuffles::ssse3 : shuffles::none;
    return found < shuffles_allowed() ? found : shuffles_allowed();
}

#if DMLREF_WIDE_SHUFFLE_KERNELS
typedef unsigned char bytes64 __attribute__((vector_size(64)));
typedef long long quads64 __attribute__((vector_size(64)));
typedef char chars64 __attribute__((vector_size(64)));

/// Permute controls, three per output vector j: [3j] takes bytes from inputs 0 and 1, [3j + 1]
/// from inputs 2 and 3, [3j + 2] joins the two (for B = 3: the first and input 2 directly).
using permute_controls = std::array<std::array<unsigned char, 64>, 12>;

/// permuted()'s controls for b rows of `width`-byte elements: lane i of output j is input p % b,
/// lane p / b, where p = j * lanes + i (as mover::controls_for() with Zip, in 64 bytes). Computed
/// at run time, once (a constant expression would cost every translation unit its evaluation).
inline permute_controls make_permute_controls(std::size_t b, std::size_t width) noexcept {
    const std::size_t n = 64 / width;
    permute_controls controls{};
    for (std::size_t j = 0; j < b; ++j)
        for (std::size_t byte = 0; byte < 64; ++byte) {
            const std::size_t p = j * n + byte / width, from = p % b, lane = p / b;
            const std::size_t at = lane * width + byte % width;
            controls[3 * j][byte] = static_cast<unsigned char>(from < 2 ? from * 64 + at : 0);
            controls[3 * j + 1][byte] = static_cast<unsigned char>(from >= 2 ? (from - 2) * 64 + at : 0);
            controls[3 * j + 2][byte] = static_cast<unsigned char>(from < 2 ? byte : 64 + (b == 3 ? at : byte));
        }
    return controls;
}

/// The controls for every block (3, 4) and element width (1, 2, 4, 8), computed on first use:
/// entry [b - 3][log2 width].
inline const permute_controls& permute_controls_for(std::size_t b, std::size_t width) noexcept {
    static const auto all = [] {
        std::array<permute_controls, 8> table{};
        for (std::size_t k = 0; k < 2; ++k)
            for (std::size_t e = 0; e < 4; ++e) table[k * 4 + e] = make_permute_controls(k + 3, std::size_t{1} << e);
        return table;
    }();
    const std::size_t e = width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3;
    return all[(b - 3) * 4 + e];
}

/// shuffled<B, true>() with 64-byte steps, for b = 3 or 4 rows `row_step` bytes apart: one
/// function for both blocks and every width `w`. With `head` >= 0, streaming stores from element
/// `head` on, where every output vector starts on a 64-byte boundary (the caller finds it). The
/// elements before it take a step from element 0 whose stores are masked to them: no line is
/// written both through the cache and around it.
DMLREF_TARGET_VBMI inline std::ptrdiff_t permuted(std::byte* out, const std::byte* in, std::ptrdiff_t row_step, std::ptrdiff_t count,
                                                  std::ptrdiff_t w, std::ptrdiff_t b, const permute_controls& controls,
                                                  std::ptrdiff_t head) noexcept {
    const std::ptrdiff_t lanes = 64 / w;
    bytes64 control[12];
    std::memcpy(&control, controls.data(), sizeof control);
    const bool stream = head >= 0;
    bool lead = head > 0;
    std::ptrdiff_t x = 0;
    for (; x + lanes <= count; x = lead ? head : x + lanes, lead = false) {
        bytes64 v0, v1, v2;
        std::memcpy(&v0, in + x * w, 64);
        std::memcpy(&v1, in + row_step + x * w, 64);
        std::memcpy(&v2, in + 2 * row_step + x * w, 64);
        bytes64 v3 = v2;
        if (b == 4) std::memcpy(&v3, in + 3 * row_step + x * w, 64);
        for (std::ptrdiff_t j = 0; j < b; ++j) {
            const bytes64 low = __builtin_shuffle(v0, v1, control[3 * j]);
            const bytes64 part = b == 3 ? __builtin_shuffle(low, v2, control[3 * j + 2])
                                        : __builtin_shuffle(low, __builtin_shuffle(v2, v3, control[3 * j + 1]), control[3 * j + 2]);
            std::byte* to = out + (b * x * w + j * 64);
            if (lead) { // output bytes [0, head * b * w)
                const std::ptrdiff_t keep = head * b * w - j * 64;
                const unsigned long long mask = keep >= 64 ? ~0ull : keep > 0 ? (1ull << keep) - 1 : 0;
                __builtin_ia32_storedquqi512_mask(reinterpret_cast<char*>(to), reinterpret_cast<const chars64&>(part), mask);
            } else if (stream) {
                __builtin_ia32_movntdq512(reinterpret_cast<quads64*>(to), reinterpret_cast<const quads64&>(part));
            } else {
                std::memcpy(to, &part, 64);
            }
        }
    }
    return x;
}
#endif

} // namespace dmlref::detail
