#pragma once
/// \file copy_engine.hpp
/// The one copy engine. Every operator describes its output as a plan: per output axis, where
/// each output coordinate reads the input. The engine walks the output and moves element bits.
///
/// Per axis the input mapping is piecewise, with at most three pieces in output order:
///   affine  input offset = start + j * step      (slices, depth/space permutations, padding interior)
///   table   input offset = offsets[j mod period] (folded padding borders: EDGE, REFLECTION, ...)
///   fill    no input; the element is the plan's fill value (CONSTANT padding borders)
/// where j counts coordinates from the piece's first one. Offsets and strides count elements.
///
/// How it is fast (prepare() and execute_rows() below): extent-1 axes vanish, axes are ordered by
/// output stride and merged where contiguous in both tensors, and the innermost one or two axes
/// become a row kernel chosen once per plan: memcpy for contiguous runs, reversed runs, stride-2
/// runs, the interleave of depth to space and the de-interleave of space to depth (B = 2 to 4),
/// 2-D tiles of transposing copies of 1- and 2-byte elements, gathers through padding tables,
/// fills, and a plain strided loop for everything else. The
/// kernels compilers do not vectorize at -O2 use 16-byte vector shuffles (GCC 12+, Clang), and
/// interleaves of 3 or 4 rows SSSE3 byte shuffles or AVX-512 VBMI byte permutes where the processor
/// has them (x86-64; VBMI with GCC). Outputs
/// larger than the caches use streaming stores (x86-64), and rows far apart in inputs larger than
/// the caches are prefetched a few rows ahead. Nothing allocates: scratch is O(rank).

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

// Every compiler extension of the library (GCC and Clang's builtins, attributes, vector types and
// x86 intrinsics) sits behind DMLREF_EXTENSIONS. Defining DMLREF_PORTABLE (the CMake option of the
// same name) turns it off: the library is then plain C++20, the path MSVC and any other compiler
// take, and a GCC or Clang build can test that path.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(DMLREF_PORTABLE)
#define DMLREF_EXTENSIONS 1
#else
#define DMLREF_EXTENSIONS 0
#endif

// GCC 12+ and Clang can shuffle 16-byte vectors in portable code (__builtin_shufflevector). The
// kernels use that for reversed and interleaved runs, which compilers do not vectorize at -O2;
// elsewhere the scalar loops below do the same work.
#if DMLREF_EXTENSIONS && (defined(__clang__) || __GNUC__ >= 12)
#define DMLREF_VECTOR_KERNELS 1
#else
#define DMLREF_VECTOR_KERNELS 0
#endif

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

#if DMLREF_EXTENSIONS
#define DMLREF_PREFETCH(address) __builtin_prefetch(address)
#define DMLREF_NOINLINE __attribute__((noinline))
// Error paths: the functions that build messages are optimised for size and their callers' paths
// to them predicted not taken (the compile probe: 17.37 to 16.88 billion compiler instructions).
#define DMLREF_COLD __attribute__((cold))
#else
#define DMLREF_PREFETCH(address) static_cast<void>(address)
#define DMLREF_NOINLINE
#define DMLREF_COLD
#endif

namespace dmlref::detail {

/// A hint to fetch the line `offset` bytes from `base`. The address may lie outside every buffer (a
/// row beyond the last): it is computed as an integer, never as a pointer, and a prefetch neither
/// faults nor counts as an access.
inline void prefetch(const std::byte* base, std::ptrdiff_t offset) noexcept {
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(offset);
    DMLREF_PREFETCH(reinterpret_cast<const void*>(address));
}

inline constexpr std::size_t max_plan_rank = 8;

/// One run of output coordinates of an axis and how they map to input offsets.
struct piece {
    enum class kind : std::uint8_t { affine, table, fill };
    kind how = kind::affine;
    std::ptrdiff_t count = 0;                ///< output coordinates covered
    std::ptrdiff_t start = 0;                ///< affine: input offset of the first coordinate
    std::ptrdiff_t step = 0;                 ///< affine: input stride between coordinates
    const std::ptrdiff_t* offsets = nullptr; ///< table: `period` input offsets (`count` where period is 0)
    /// table: the entries `offsets` holds; coordinate j reads offsets[j % period]. A folded border
    /// repeats (EDGE with period 1, REFLECTION 2(n - 1), SYMMETRIC 2n, WRAP n), so its table holds
    /// a period or a few, however long the pad. 0, or anything not below `count`: one entry a coordinate.
    std::ptrdiff_t period = 0;
};

/// The entries a table piece holds: its period, or its count where that is shorter (or unset).
constexpr std::ptrdiff_t table_length(const piece& p) noexcept {
    return p.period > 0 && p.period < p.count ? p.period : p.count;
}

/// One output axis: its extent and stride in the output, and its pieces (counts sum to extent).
struct axis_plan {
    std::ptrdiff_t extent = 1;
    std::ptrdiff_t out_stride = 0;
    std::array<piece, 3> pieces{};
    std::size_t piece_count = 0;

    static axis_plan affine(std::ptrdiff_t extent, std::ptrdiff_t out_stride, std::ptrdiff_t in_start,
                            std::ptrdiff_t in_step) noexcept {
        axis_plan axis{extent, out_stride, {}, 1};
        axis.pieces[0] = {piece::kind::affine, extent, in_start, in_step, nullptr, 0};
        return axis;
    }
    void add(const piece& p) noexcept {
        if (p.count > 0) pieces[piece_count++] = p;
    }
    bool single_affine() const noexcept { return piece_count == 1 && pieces[0].how == piece::kind::affine; }
};

/// A whole copy: output axes in loop order (outermost first), the two buffers at their element 0,
/// the element width in bytes (1, 2, 4 or 8), and the fill value's bytes (little-endian, `width` of them used).
struct copy_plan {
    std::size_t rank = 0;
    std::array<axis_plan, max_plan_rank> axes{};
    const std::byte* input = nullptr;
    std::byte* output = nullptr;
    std::size_t width = 0;
    std::array<std::byte, 8> fill{};
};

/// Extents and element strides of a tensor of dynamic rank (1 to 8): what the ops plan with, so
/// that planning is compiled once, whatever the element type and rank of the caller's views.
struct layout {
    std::size_t rank = 0;
    std::array<std::ptrdiff_t, max_plan_rank> extents{};
    std::array<std::ptrdiff_t, max_plan_rank> strides{};
};

template <std::size_t Width> struct word_of;
template <> struct word_of<1> { using type = std::uint8_t; };
template <> struct word_of<2> { using type = std::uint16_t; };
template <> struct word_of<4> { using type = std::uint32_t; };
template <> struct word_of<8> { using type = std::uint64_t; };

/// The bytes of `v` in reverse order (compilers turn this into one byte-swap instruction).
constexpr std::uint64_t byte_reversed(std::uint64_t v) noexcept {
    v = ((v & 0x00ff00ff00ff00ffu) << 8) | ((v >> 8) & 0x00ff00ff00ff00ffu);
    v = ((v & 0x0000ffff0000ffffu) << 16) | ((v >> 16) & 0x0000ffff0000ffffu);
    return (v << 32) | (v >> 32);
}

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

/// The inner kernels for Width-byte elements. Elements move through the same-width unsigned word
/// (memcpy loads and stores: no aliasing questions, and compilers emit single moves). Pointers and
/// steps are in bytes, counts in elements. No kernel touches a byte outside the elements it names.
template <std::size_t Width>
struct mover {
    using word = typename word_of<Width>::type;
    static constexpr auto w = static_cast<std::ptrdiff_t>(Width);

    static word load(const std::byte* p) noexcept {
        word v;
        std::memcpy(&v, p, Width);
        return v;
    }
    static void store(std::byte* p, word v) noexcept { std::memcpy(p, &v, Width); }

#if DMLREF_VECTOR_KERNELS
    /// 16 bytes as `lanes` words.
    typedef word vec __attribute__((vector_size(16)));
    static constexpr std::ptrdiff_t lanes = 16 / w;
    static vec load_vec(const std::byte* p) noexcept {
        vec v;
        std::memcpy(&v, p, 16);
        return v;
    }
    /// A 16-byte store; with `stream` a non-temporal one, which needs `p` 16-byte aligned.
    static void store_vec(std::byte* p, vec v, bool stream = false) noexcept {
#if DMLREF_STREAM_STORES
        if (stream) {
            __m128i bits;
            std::memcpy(&bits, &v, 16);
            return _mm_stream_si128(reinterpret_cast<__m128i*>(p), bits);
        }
#else
        (void)stream;
#endif
        std::memcpy(p, &v, 16);
    }
    /// The lanes of `v` in reverse order. 1- and 2-byte lanes go through 4-byte lanes: x86-64's
    /// baseline (SSE2) has no shuffle of smaller lanes, and compilers would move them one by one.
    static vec reversed(vec v) noexcept {
        if constexpr (Width >= 4) {
            return reversed_lanes(v, lane_indices{});
        } else {
            typedef std::uint32_t quad __attribute__((vector_size(16)));
            typedef std::uint16_t pair __attribute__((vector_size(16)));
            quad q = mover<4>::reversed_lanes(__builtin_bit_cast(quad, v), std::make_index_sequence<4>{});
            q = (q << 16) | (q >> 16); // swaps the 2-byte halves of each 4-byte lane
            pair h = __builtin_bit_cast(pair, q);
            if constexpr (Width == 1) h = static_cast<pair>((h << 8) | (h >> 8)); // and the bytes of each half
            return __builtin_bit_cast(vec, h);
        }
    }
    template <std::size_t... I> static vec reversed_lanes(vec v, std::index_sequence<I...>) noexcept {
        return __builtin_shufflevector(v, v, (lanes - 1 - static_cast<std::ptrdiff_t>(I))...);
    }
    /// Lanes `first`, `first` + 2, ... of the pair (a, b): the even or odd elements of 32 bytes.
    template <std::size_t First, std::size_t... I> static vec every_second(vec a, vec b, std::index_sequence<I...>) noexcept {
        return __builtin_shufflevector(a, b, (First + 2 * I)...);
    }
    /// every_second<0> when `b` starts one element early: the even lanes of a, then the odd ones of b.
    template <std::size_t... I> static vec every_second_shifted(vec a, vec b, std::index_sequence<I...>) noexcept {
        return __builtin_shufflevector(a, b, (2 * I + (2 * I >= static_cast<std::size_t>(lanes) ? 1 : 0))...);
    }
    /// a0 b0 a1 b1 ... from lane `first` on: half of the interleave of a and b.
    template <std::size_t First, std::size_t... I> static vec zipped(vec a, vec b, std::index_sequence<I...>) noexcept {
        return __builtin_shufflevector(a, b, (First + I / 2 + (I % 2) * static_cast<std::size_t>(lanes))...);
    }
    using lane_indices = std::make_index_sequence<static_cast<std::size_t>(16 / Width)>;
#endif

    /// With `stream`: how many steps of `step` bytes (at most `count`) take `out` to a `boundary`
    /// (16 or 64 bytes), or -1 when none does within that many steps (then the run uses ordinary stores).
    static std::ptrdiff_t lead_in(bool stream, const std::byte* out, std::ptrdiff_t step, std::ptrdiff_t count,
                                  std::ptrdiff_t boundary = 16) noexcept {
        if (!stream) return 0;
        const auto address = reinterpret_cast<std::uintptr_t>(out);
        for (std::ptrdiff_t k = 0; k < boundary && k <= count; ++k)
            if ((address + static_cast<std::uintptr_t>(k * step)) % static_cast<std::uintptr_t>(boundary) == 0) return k;
        return -1;
    }

    /// Runs a vector loop `body(stream)`: first `one()` per element up to `head`, the 16-byte
    /// boundary lead_in found, then `body` with streaming stores when asked; with no such boundary
    /// (head < 0), `body` with ordinary stores.
    template <class One, class Body>
    static void with_lead_in(std::ptrdiff_t head, bool stream, std::ptrdiff_t& i, One&& one, Body&& body) noexcept {
        for (; i < head; ++i) one();
        body(stream && head >= 0); // one call site: the vector loop is compiled once
    }

    static void fill(std::byte* out, std::ptrdiff_t count, std::ptrdiff_t out_step, word value) noexcept {
        if (out_step == w && (Width == 1 || value == 0) && count * w >= 64) { // a call pays off past a cache line
            std::memset(out, static_cast<int>(value & 0xff), static_cast<std::size_t>(count * w));
            return;
        }
        for (std::ptrdiff_t i = 0; i < count; ++i) store(out + i * out_step, value);
    }

    static void strided(std::byte* out, std::ptrdiff_t out_step, const std::byte* in, std::ptrdiff_t in_step,
                        std::ptrdiff_t count) noexcept {
        for (std::ptrdiff_t i = 0; i < count; ++i) store(out + i * out_step, load(in + i * in_step));
    }

    /// out[i] = in[-i]: `in` is the first element read, the highest address of the run. The output
    /// is walked backwards, so that the input is read in ascending order: hardware prefetchers
    /// follow that, and at DRAM sizes a descending read stream costs twice the time.
    static void reverse(std::byte* out, const std::byte* in, std::ptrdiff_t count, [[maybe_unused]] bool stream = false) noexcept {
        std::ptrdiff_t end = count; // elements [end, count) are done
        auto one = [&] {
            --end;
            store(out + end * w, load(in - end * w));
        };
#if DMLREF_VECTOR_KERNELS
        auto body = [&](bool s) {
            // 64 bytes a step, all loaded before any is stored: a store that precedes a later load
            // 4 KiB apart would stall it (input and output often share their page offsets).
            for (; end >= 4 * lanes; end -= 4 * lanes) {
                const std::byte* from = in - (end - 1) * w;
                const vec a = load_vec(from), b = load_vec(from + 16), c = load_vec(from + 32), d = load_vec(from + 48);
                std::byte* to = out + (end - 4 * lanes) * w;
                store_vec(to + 48, reversed(a), s);
                store_vec(to + 32, reversed(b), s);
                store_vec(to + 16, reversed(c), s);
                store_vec(to, reversed(d), s);
            }
        };
        auto aligned = [&] { return reinterpret_cast<std::uintptr_t>(out + end * w) % 16 == 0; };
        if (stream) // streaming stores need a 16-byte aligned target
            while (end > 0 && count - end < lanes && !aligned()) one();
        body(stream && aligned());
        for (; end >= lanes; end -= lanes)
            store_vec(out + (end - lanes) * w, reversed(load_vec(in - (end - 1) * w)));
#else
        if constexpr (Width == 1) {
            for (; end >= 8; end -= 8) {
                std::uint64_t v;
                std::memcpy(&v, in - (end - 1), 8);
                v = byte_reversed(v);
                std::memcpy(out + end - 8, &v, 8);
            }
        }
#endif
        while (end > 0) one();
    }

    /// out[i] = in[2 * i]: a slice with stride 2.
    static void every_other(std::byte* out, const std::byte* in, std::ptrdiff_t count, [[maybe_unused]] bool stream = false) noexcept {
        std::ptrdiff_t i = 0;
#if DMLREF_VECTOR_KERNELS
        // Each step reads 2 * lanes elements; the last one it may read is in[2 * count - 2]. So the
        // last step, when a whole one is left, reads its second half one element early: a scalar
        // tail after streaming stores would write part of a line they left in flight.
        auto body = [&](bool s) {
            for (; i + lanes < count; i += lanes)
                store_vec(out + i * w,
                          every_second<0>(load_vec(in + 2 * i * w), load_vec(in + (2 * i + lanes) * w), lane_indices{}), s);
            if (i + lanes == count) {
                store_vec(out + i * w,
                          every_second_shifted(load_vec(in + 2 * i * w), load_vec(in + (2 * i + lanes - 1) * w), lane_indices{}), s);
                i = count;
            }
        };
        with_lead_in(lead_in(stream, out, w, count), stream, i, [&] { store(out + i * w, load(in + 2 * i * w)); }, body);
#endif
        for (; i < count; ++i) store(out + i * w, load(in + 2 * i * w));
    }

#if DMLREF_VECTOR_KERNELS
    /// 64 bytes, all loaded before any is stored; with `stream` through streaming stores (`out`
    /// 16-byte aligned).
    static void copy_line(std::byte* out, const std::byte* in, bool stream) noexcept {
        const vec a = load_vec(in), b = load_vec(in + 16), c = load_vec(in + 32), d = load_vec(in + 48);
        store_vec(out, a, stream);
        store_vec(out + 16, b, stream);
        store_vec(out + 32, c, stream);
        store_vec(out + 48, d, stream);
    }
#endif

    /// A contiguous run of `bytes` bytes. With `stream`, the whole 64-byte output lines inside it
    /// are written with streaming stores and the partial lines at its ends through the cache, so
    /// that no line is written both ways.
    static void copy(std::byte* out, const std::byte* in, std::size_t bytes, bool stream) noexcept {
#if DMLREF_STREAM_STORES
        if (stream && bytes >= 128) {
            const std::size_t head = (64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64;
            std::memcpy(out, in, head);
            std::size_t i = head;
            for (; i + 64 <= bytes; i += 64) copy_line(out + i, in + i, true);
            std::memcpy(out + i, in + i, bytes - i);
            return;
        }
#endif
        (void)stream;
        std::memcpy(out, in, bytes);
    }

    /// Copies a contiguous run with 16-byte moves inline (the last 16 bytes again where the run
    /// ends inside a vector): for rows whose run sits between fills in an output the caches hold,
    /// where a memcpy call's fixed cost is a large share of the row (row_kernels::framed).
    static void copy_inline(std::byte* out, const std::byte* in, std::size_t bytes) noexcept {
#if DMLREF_VECTOR_KERNELS
        if (bytes >= 16) {
            std::size_t i = 0;
            for (; i + 64 <= bytes; i += 64) copy_line(out + i, in + i, false);
            for (; i + 16 <= bytes; i += 16) store_vec(out + i, load_vec(in + i));
            if (i < bytes) store_vec(out + bytes - 16, load_vec(in + bytes - 16));
            return;
        }
#endif
        std::memcpy(out, in, bytes);
    }

    /// Copies a run of an affine piece: count elements, `in_step` and `out_step` bytes apart; a
    /// contiguous one streams with `stream_runs` (copy). Out of line: the general rows call it, and
    /// a copy of every kernel in each would only cost build time.
    DMLREF_NOINLINE static void run(std::byte* out, std::ptrdiff_t out_step, const std::byte* in,
                                    std::ptrdiff_t in_step, std::ptrdiff_t count, bool stream_runs = false) noexcept {
        if (out_step == w) {
            if (in_step == w) return mover<1>::copy(out, in, static_cast<std::size_t>(count * w), stream_runs);
            if (in_step == 0) return fill(out, count, w, load(in));
            if (in_step == -w) return reverse(out, in, count);
            if (in_step == 2 * w) return every_other(out, in, count);
        }
        strided(out, out_step, in, in_step, count);
    }

    static void gather(std::byte* out, std::ptrdiff_t out_step, const std::byte* in, const std::ptrdiff_t* offsets,
                       std::ptrdiff_t count) noexcept {
        for (std::ptrdiff_t i = 0; i < count; ++i) store(out + i * out_step, load(in + offsets[i] * w));
    }

#if DMLREF_BYTE_SHUFFLE_KERNELS
    /// Byte-shuffle controls: entry [j * B + k] gathers into output vector j the bytes it takes
    /// from input vector k (-128 zeroes a byte). With Zip, the outputs are the interleave of the B
    /// inputs: lane i of output j is input (p % B), lane p / B, where p = j * lanes + i. Otherwise
    /// they are its inverse: lane i of output j is element q = i * B + j of the inputs in sequence.
    template <std::size_t B, bool Zip> static constexpr shuffle_controls<B> controls_for() noexcept {
        constexpr auto n = static_cast<std::size_t>(lanes);
        shuffle_controls<B> controls{};
        for (std::size_t j = 0; j < B; ++j)
            for (std::size_t k = 0; k < B; ++k)
                for (std::size_t byte = 0; byte < 16; ++byte) {
                    const std::size_t i = byte / Width, p = j * n + i, q = i * B + j;
                    const std::size_t from = Zip ? p % B : q / n, lane = Zip ? p / B : q % n;
                    controls[j * B + k][byte] = from == k ? static_cast<char>(lane * Width + byte % Width) : char{-128};
                }
        return controls;
    }
#endif

    /// Element x of an interleave of N rows: the scalar step. N is a template argument: with a loop
    /// over a run-time count, the same tails took space to depth with block 3 (CRD, 64 MiB) from
    /// 0.85x memcpy to 0.70x.
    template <std::ptrdiff_t N> static void zip_one(std::byte* out, const std::byte* in, std::ptrdiff_t row_step, std::ptrdiff_t x) noexcept {
        for (std::ptrdiff_t k = 0; k < N; ++k) store(out + (x * N + k) * w, load(in + k * row_step + x * w));
    }

    /// Interleaves B input rows `row_step` bytes apart: out[x * B + k] = in_k[x] (depth to space).
    /// With Pair, B is 2; otherwise B is `block`, 3 or 4 (one instantiation serves both), and
    /// `stream` applies to the 64-byte permute kernel alone.
    template <bool Pair>
    static void interleave(std::byte* out, const std::byte* in, std::ptrdiff_t row_step, std::ptrdiff_t count,
                           std::ptrdiff_t block, [[maybe_unused]] bool stream, shuffles level) noexcept {
        const std::ptrdiff_t B = Pair ? 2 : block;
        std::ptrdiff_t x = 0;
        auto one = [&] { B == 2 ? zip_one<2>(out, in, row_step, x) : B == 3 ? zip_one<3>(out, in, row_step, x) : zip_one<4>(out, in, row_step, x); };
#if DMLREF_VECTOR_KERNELS
        if constexpr (Pair) {
            auto body = [&](bool s) {
                for (; x + lanes <= count; x += lanes) {
                    const vec a = load_vec(in + x * w), b = load_vec(in + row_step + x * w);
                    store_vec(out + 2 * x * w, zipped<0>(a, b, lane_indices{}), s);
                    store_vec(out + (2 * x + lanes) * w, zipped<static_cast<std::size_t>(lanes / 2)>(a, b, lane_indices{}), s);
                }
            };
            with_lead_in(lead_in(stream, out, 2 * w, count), stream, x, one, body);
        }
#endif
#if DMLREF_BYTE_SHUFFLE_KERNELS
        if constexpr (!Pair) {
#if DMLREF_WIDE_SHUFFLE_KERNELS
            if (level == shuffles::vbmi) {
                const std::ptrdiff_t head = stream ? lead_in(true, out, B * w, count, 64) : -1;
                x = permuted(out, in, row_step, count, w, B, permute_controls_for(static_cast<std::size_t>(B), Width), head);
            }
#endif
            static constexpr auto three = controls_for<3, true>();
            static constexpr auto four = controls_for<4, true>();
            if (level != shuffles::none)
                x += B == 3 ? shuffled<3, true>(out + B * x * w, in + x * w, row_step, count - x, w, three)
                            : shuffled<4, true>(out + B * x * w, in + x * w, row_step, count - x, w, four);
        }
#endif
        (void)level;
        for (; x < count; ++x) one();
    }

    /// De-interleaves into B output rows `row_step` bytes apart: out_k[x] = in[x * B + k] (space to depth).
    template <std::ptrdiff_t B>
    static void deinterleave(std::byte* out, std::ptrdiff_t row_step, const std::byte* in, std::ptrdiff_t count,
                             [[maybe_unused]] bool stream, bool shuffle) noexcept {
        std::ptrdiff_t x = 0;
        auto one = [&] {
            for (std::ptrdiff_t k = 0; k < B; ++k) store(out + k * row_step + x * w, load(in + (x * B + k) * w));
        };
#if DMLREF_VECTOR_KERNELS
        if constexpr (B == 2) {
            auto body = [&](bool s) {
                for (; x + lanes <= count; x += lanes) {
                    const vec a = load_vec(in + 2 * x * w), b = load_vec(in + (2 * x + lanes) * w);
                    store_vec(out + x * w, every_second<0>(a, b, lane_indices{}), s);
                    store_vec(out + row_step + x * w, every_second<1>(a, b, lane_indices{}), s);
                }
            };
            // Both rows stream only when they are aligned alike.
            with_lead_in(row_step % 16 == 0 ? lead_in(stream, out, w, count) : -1, stream, x, one, body);
        }
#endif
#if DMLREF_BYTE_SHUFFLE_KERNELS
        if constexpr (B > 2) {
            static constexpr auto controls = controls_for<B, false>();
            if (shuffle) x = shuffled<B, false>(out, in, row_step, count, w, controls);
        }
#endif
        (void)shuffle;
        for (; x < count; ++x) one();
    }

    /// Elements per side of a transposed tile: a 16-byte vector's lanes.
    static constexpr std::ptrdiff_t tile = 16 / w;

#if DMLREF_VECTOR_KERNELS
    /// A tile of `tile` x `tile` elements: `tile` input rows `in_step` bytes apart, each of `tile`
    /// contiguous elements, become `tile` output rows `out_step` bytes apart. Each round zips rows
    /// r and r + tile / 2 (unpack low and high): the (row, lane) index bits of an element rotate
    /// by one, so log2(tile) rounds transpose.
    static void transpose_tile(std::byte* out, std::ptrdiff_t out_step, const std::byte* in, std::ptrdiff_t in_step) noexcept {
        constexpr std::size_t n = static_cast<std::size_t>(tile), half = n / 2;
        vec r[n], t[n];
        for (std::size_t i = 0; i < n; ++i) r[i] = load_vec(in + static_cast<std::ptrdiff_t>(i) * in_step);
        for (std::size_t round = 1; round < n; round *= 2) {
            for (std::size_t i = 0; i < half; ++i) {
                t[2 * i] = zipped<0>(r[i], r[i + half], lane_indices{});
                t[2 * i + 1] = zipped<half>(r[i], r[i + half], lane_indices{});
            }
            for (std::size_t i = 0; i < n; ++i) r[i] = t[i];
        }
        for (std::size_t i = 0; i < n; ++i) store_vec(out + static_cast<std::ptrdiff_t>(i) * out_step, r[i]);
    }
#endif

    /// out[a * out_step + b * w] = in[a * w + b * in_step] for a < rows, b < cols (steps in bytes):
    /// a 2-D block read along a (contiguous in the input) and written along b (contiguous in the
    /// output). Walked in bands of a line's worth of b (64 bytes of each output row) and, inside a
    /// band, in tiles along a, so that the input lines a tile reads are read on by the next tiles
    /// and every output line of a band is written whole before the next band.
    static void transpose(std::byte* out, std::ptrdiff_t out_step, const std::byte* in, std::ptrdiff_t in_step,
                          std::ptrdiff_t rows, std::ptrdiff_t cols) noexcept {
        constexpr std::ptrdiff_t band = 64 / w;
        auto block = [&](std::ptrdiff_t a0, std::ptrdiff_t a1, std::ptrdiff_t b0, std::ptrdiff_t b1) {
            for (std::ptrdiff_t a = a0; a < a1; ++a)
                for (std::ptrdiff_t b = b0; b < b1; ++b) store(out + a * out_step + b * w, load(in + a * w + b * in_step));
        };
        for (std::ptrdiff_t b0 = 0; b0 < cols; b0 += band) {
            const std::ptrdiff_t b1 = cols - b0 < band ? cols : b0 + band;
            std::ptrdiff_t a = 0;
            for (; a + tile <= rows; a += tile) {
                std::ptrdiff_t b = b0;
#if DMLREF_VECTOR_KERNELS
                for (; b + tile <= b1; b += tile) transpose_tile(out + a * out_step + b * w, out_step, in + a * w + b * in_step, in_step);
#endif
                block(a, a + tile, b, b1);
            }
            block(a, rows, b0, b1);
        }
    }
};

/// Input offset of coordinate `c` on `axis`, or false when it falls in a fill piece.
inline bool input_offset(const axis_plan& axis, std::ptrdiff_t c, std::ptrdiff_t& offset) noexcept {
    for (std::size_t k = 0; k < axis.piece_count; ++k) {
        const piece& p = axis.pieces[k];
        if (c < p.count) {
            switch (p.how) {
            case piece::kind::affine: offset = p.start + c * p.step; return true;
            case piece::kind::table: offset = p.offsets[c % table_length(p)]; return true;
            case piece::kind::fill: return false;
            }
        }
        c -= p.count;
    }
    return false; // unreachable for a well-formed plan
}

/// The lowest and highest input offsets `axis` reads (high < low when it reads none).
inline std::pair<std::ptrdiff_t, std::ptrdiff_t> input_range(const axis_plan& axis) noexcept {
    std::ptrdiff_t low = 0, high = -1;
    auto take = [&](std::ptrdiff_t at) {
        if (high < low) low = high = at;
        low = at < low ? at : low;
        high = at > high ? at : high;
    };
    for (std::size_t k = 0; k < axis.piece_count; ++k) {
        const piece& pc = axis.pieces[k];
        if (pc.how == piece::kind::affine) {
            take(pc.start);
            take(pc.start + (pc.count - 1) * pc.step);
        } else if (pc.how == piece::kind::table) {
            for (std::ptrdiff_t j = 0, n = table_length(pc); j < n; ++j) take(pc.offsets[j]);
        }
    }
    return {low, high};
}

/// How the innermost loop of a prepared plan moves elements.
enum class inner_shape : std::uint8_t {
    rows,         ///< the innermost axis, piece by piece
    interleave,   ///< the two innermost axes: B input rows zipped into one output row
    deinterleave, ///< the two innermost axes: one input row dealt into B output rows
    transpose,    ///< the two innermost axes: a 2-D block read along one and written along the other
};

/// A plan made ready to run: simplified, its loops ordered, its inner kernel chosen.
struct prepared_plan {
    copy_plan plan;
    bool all_fill = false;
    inner_shape shape = inner_shape::rows;
    std::ptrdiff_t block = 0;   ///< interleave factor B
    std::size_t outer_rank = 0; ///< axes [0, outer_rank) are walked row by row
    std::ptrdiff_t rows = 1;    ///< product of the outer extents
    std::size_t bytes = 0;      ///< the output's bytes: every extent times the width
    bool stream = false;        ///< write with streaming stores (outputs larger than the caches)
    bool stream_runs = false;   ///< contiguous runs too (outputs of run_stream_threshold and more)
    /// Software prefetch of the input row `ahead` rows on (0: none): its `span` bytes from
    /// `first` bytes off the row's input pointer.
    std::ptrdiff_t ahead = 0, first = 0, span = 0;
};

/// Outputs of at least this many bytes are written with streaming stores where the target has them.
inline constexpr std::size_t stream_threshold = std::size_t{16} << 20;

/// Outputs of at least this many bytes write their contiguous runs with streaming stores too: twice
/// the other kernels' threshold, past the last-level cache a core has (32 MiB on this machine).
/// (Alternating runs, ratio to memcpy: PADDING1 CONSTANT at 64 MiB, 66 MiB out, 4-byte elements
/// 0.94-1.01x through the cache and 1.16-1.17x streamed, CONSTANT and WRAP at every width
/// 0.93-1.07x and 1.03-1.29x; a SLICE1 trimming W by one at 64 MiB 0.93-0.95x and 1.13-1.18x. The
/// centred window's 16 MiB output streamed ran 0.66-0.71x against 0.76-0.82x through the cache.)
inline constexpr std::size_t run_stream_threshold = std::size_t{32} << 20;

/// How far ahead, in input bytes, rows are prefetched.
inline constexpr std::ptrdiff_t prefetch_distance = 4096;

/// The bytes one prefetch fetches (a cache line).
inline constexpr std::ptrdiff_t prefetch_line = 64;

inline constexpr std::ptrdiff_t max_interleave = 4; ///< larger blocks run as strided rows

/// Output rows spread over more bytes than this share a core's cache poorly (its L2: 1 MiB on this
/// machine's cores, 256 KiB to 2 MiB elsewhere). Measured in space to depth: see prepare().
inline constexpr std::ptrdiff_t far_apart = std::ptrdiff_t{512} << 10;

/// Space to depth walked row by row reads its input in B passes; it does so a tile of about this
/// many input bytes at a time, so that a tile's later passes find it in the cache (see prepare()).
inline constexpr std::ptrdiff_t pass_tile = std::ptrdiff_t{1} << 20;

/// A divisor of `extent` in [target / 2, target] (target >= 1), or 0 when none is (found within a
/// bounded search, so that planning stays cheap).
inline std::ptrdiff_t divisor_near(std::ptrdiff_t extent, std::ptrdiff_t target) noexcept {
    for (std::ptrdiff_t t = target, tries = 0; t >= 1 && 2 * t >= target && tries < 4096; --t, ++tries)
        if (extent % t == 0) return t;
    return 0;
}

/// Moves axis `a` of `plan` to just outside its innermost axis, axis `last`; the axes between
/// move out by one, in their order. Returns the moved axis.
inline axis_plan move_beside_inner(copy_plan& plan, std::size_t a, std::size_t last) noexcept {
    const axis_plan moved = plan.axes[a];
    for (std::size_t b = a; b + 1 < last; ++b) plan.axes[b] = plan.axes[b + 1];
    plan.axes[last - 1] = moved;
    return moved;
}

/// Simplifies a plan without changing what it copies:
///  - extent-1 axes go, their offset folded into the input origin (all fill when it is a fill);
///  - single-affine axes start at the origin;
///  - axes are ordered by output stride, largest outermost, so the output is walked in memory order;
///  - neighbouring affine axes contiguous in both tensors merge into one;
///  - an interleave or de-interleave of up to 4 rows becomes the inner kernel, its two axes innermost.
inline prepared_plan prepare(const copy_plan& source) noexcept {
    prepared_plan p;
    p.plan = source;
    copy_plan& plan = p.plan;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        std::ptrdiff_t offset = 0;
        if (plan.axes[a].extent == 1 && !input_offset(plan.axes[a], 0, offset)) p.all_fill = true;
    }
    std::size_t kept = 0;
    std::ptrdiff_t origin = 0;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        axis_plan axis = plan.axes[a];
        if (axis.extent == 1) {
            std::ptrdiff_t offset = 0;
            if (input_offset(axis, 0, offset)) origin += offset;
            continue;
        }
        if (p.all_fill) {
            axis.piece_count = 0;
            axis.add({piece::kind::fill, axis.extent, 0, 0, nullptr, 0});
        } else if (axis.single_affine()) {
            origin += axis.pieces[0].start;
            axis.pieces[0].start = 0;
        }
        plan.axes[kept++] = axis;
    }
    if (!p.all_fill) plan.input += origin * static_cast<std::ptrdiff_t>(plan.width);
    if (kept == 0) { // one element
        plan.axes[0] = axis_plan::affine(1, 0, 0, 0);
        if (p.all_fill) {
            plan.axes[0].piece_count = 0;
            plan.axes[0].add({piece::kind::fill, 1, 0, 0, nullptr, 0});
        }
        kept = 1;
    }
    plan.rank = kept;

    auto magnitude = [](std::ptrdiff_t v) { return v < 0 ? -v : v; };
    for (std::size_t a = 1; a < plan.rank; ++a) // insertion sort, stable, at most 8 axes
        for (std::size_t b = a; b > 0 && magnitude(plan.axes[b].out_stride) > magnitude(plan.axes[b - 1].out_stride); --b)
            std::swap(plan.axes[b], plan.axes[b - 1]);

    kept = 1;
    for (std::size_t a = 1; a < plan.rank; ++a) {
        const axis_plan& axis = plan.axes[a];
        axis_plan& outer = plan.axes[kept - 1];
        if (axis.single_affine() && outer.single_affine() && outer.out_stride == axis.extent * axis.out_stride &&
            outer.pieces[0].step == axis.extent * axis.pieces[0].step) {
            outer.extent *= axis.extent;
            outer.out_stride = axis.out_stride;
            outer.pieces[0] = {piece::kind::affine, outer.extent, 0, axis.pieces[0].step, nullptr, 0};
            continue;
        }
        plan.axes[kept++] = axis;
    }
    plan.rank = kept;

    const std::size_t last = plan.rank - 1;
    const axis_plan& inner = plan.axes[last];
    auto small = [](std::ptrdiff_t b) { return b >= 2 && b <= max_interleave; };
    if (plan.rank >= 2 && inner.single_affine() && inner.out_stride == 1 && small(inner.extent)) {
        const axis_plan& next = plan.axes[last - 1];
        if (next.single_affine() && next.pieces[0].step == 1 && next.out_stride == inner.extent) {
            p.shape = inner_shape::interleave;
            p.block = inner.extent;
        }
    }
    if (p.shape == inner_shape::rows && plan.rank >= 2 && inner.single_affine() && inner.out_stride == 1 &&
        small(inner.pieces[0].step)) {
        for (std::size_t a = 0; a < last; ++a) {
            const axis_plan& k = plan.axes[a];
            if (k.single_affine() && k.extent == inner.pieces[0].step && k.pieces[0].step == 1) {
                const axis_plan moved = move_beside_inner(plan, a, last);
                p.shape = inner_shape::deinterleave;
                p.block = moved.extent;
                // The outer walk goes in input order, so each input row is read once, in
                // sequence, and B * B output rows (B * B * row step bytes apart at most) are
                // written at a time. Where B > 2 and those rows spread beyond a core's cache, the
                // lead axis (the output rows) stays innermost instead: B rows are written at a
                // time, each call continuing the last call's, and the input is read in B passes
                // of every B-th row, prefetched. (Block 3, f32, medians of alternating runs: DCR
                // at 64 MiB 0.64-0.71x memcpy in input order, 0.83-0.85x row by row; at 4 MiB
                // 0.40-0.48x and 0.55-0.62x. CRD at 4 MiB, rows 7 KiB apart: 0.55-0.68x in input
                // order, 0.47x row by row. Block 2 row by row at 64 MiB: 0.63-0.79x against 0.88-1.07x.)
                const std::ptrdiff_t spread = p.block * p.block * magnitude(moved.out_stride) *
                                              static_cast<std::ptrdiff_t>(plan.width);
                const bool by_output_rows = p.block > 2 && spread > far_apart && last >= 2;
                std::size_t walked = by_output_rows ? last - 2 : last - 1;
                // Where the output rows' axis spans the whole input (DCR, whose channels and rows
                // merge into it), the B passes would each cross the whole input. It splits into
                // tiles of about pass_tile input bytes, walked outside the passes, so that a
                // tile's later passes read it from the cache, as CRD's channel axis does. (DCR
                // with block 3 at 64 MiB, medians of alternating runs: 0.42-0.47x memcpy untiled
                // against 0.70-0.84x tiled for 1-byte elements, 0.57-0.59x and 0.82-0.92x for
                // 2-byte, 0.83-0.85x and 0.89-0.95x for 4-byte; 512 KiB and 2 MiB tiles ran
                // alike, 4 MiB ones slower.)
                if (by_output_rows && plan.rank < max_plan_rank && plan.axes[walked].single_affine()) {
                    const axis_plan rows = plan.axes[walked];
                    const std::ptrdiff_t row_bytes = magnitude(rows.pieces[0].step) * static_cast<std::ptrdiff_t>(plan.width);
                    const std::ptrdiff_t target = row_bytes > 0 ? pass_tile / row_bytes : 0; // 0: broadcast rows
                    const std::ptrdiff_t tile = target >= 2 ? divisor_near(rows.extent, target) : 0;
                    if (tile >= 2 && tile < rows.extent) {
                        for (std::size_t b = plan.rank; b > walked; --b) plan.axes[b] = plan.axes[b - 1];
                        ++plan.rank;
                        plan.axes[walked] = axis_plan::affine(rows.extent / tile, tile * rows.out_stride, 0,
                                                              tile * rows.pieces[0].step);
                        plan.axes[walked + 1].extent = tile;
                        plan.axes[walked + 1].pieces[0].count = tile;
                        ++walked;
                    }
                }
                for (std::size_t c = 1; c < walked; ++c)
                    for (std::size_t d = c; d > 0 && magnitude(plan.axes[d].pieces[0].step) >
                                                         magnitude(plan.axes[d - 1].pieces[0].step); --d)
                        std::swap(plan.axes[d], plan.axes[d - 1]);
                break;
            }
        }
    }
    // A transposing copy of narrow elements: the output's row reads the input an element a line
    // apart, and another axis reads it in sequence. Both go innermost, and the transpose kernel
    // moves 2-D tiles of them, read as rows of the input and written as rows of the output, so
    // that both sides move whole vectors and lines (the walk below moves one element at a time).
    if (p.shape == inner_shape::rows && plan.rank >= 2 && plan.width <= 2 && inner.single_affine() &&
        inner.out_stride == 1) {
        const std::ptrdiff_t tile = 16 / static_cast<std::ptrdiff_t>(plan.width);
        const std::ptrdiff_t step = magnitude(inner.pieces[0].step);
        for (std::size_t a = last; step > 1 && inner.extent >= tile && a-- > 0;) {
            const axis_plan& k = plan.axes[a];
            if (k.single_affine() && k.pieces[0].step == 1 && k.extent >= tile) {
                move_beside_inner(plan, a, last);
                p.shape = inner_shape::transpose;
                break;
            }
        }
    }
    // A row whose elements lie a line or more apart in the input (a copy into a transposed or
    // column-major output, depth to space with B > 4) reads a line per element. Walked in output
    // order with the axes that read the input in sequence far outside it, a line is read again
    // only after every axis between has gone round, long out of the cache: a line per element
    // moved. Those axes (steps under a line) go just outside the row instead, the smallest step
    // innermost, so that the rows after a row read the lines it fetched; the outermost of them is
    // cut into tiles where the lines of its rows would not stay in a core's cache. (SLICE1 of
    // {1, 64, 512, 512} float32 into a column-major output, single runs on a loaded host: 1.03 s
    // in output order, 0.28-0.51 s with the axis moved, 0.04 s into a packed output.)
    // Padded axes (fills and tables beside their affine piece) move too, by their affine piece.
    if (p.shape == inner_shape::rows && plan.rank >= 3) {
        const auto w = static_cast<std::ptrdiff_t>(plan.width);
        auto step_of = [&](const axis_plan& k) { // the affine piece's step in bytes, 0 for none
            for (std::size_t n = 0; n < k.piece_count; ++n)
                if (k.pieces[n].how == piece::kind::affine) return magnitude(k.pieces[n].step) * w;
            return std::ptrdiff_t{0};
        };
        auto dense = [&](const axis_plan& k) { return step_of(k) > 0 && step_of(k) < prefetch_line; };
        std::array<axis_plan, max_plan_rank> order{};
        std::size_t placed = 0, moved_count = 0;
        for (std::size_t a = 0; a < last; ++a)
            if (!dense(plan.axes[a])) order[placed++] = plan.axes[a];
        const std::size_t first_moved = placed;
        for (std::size_t a = 0; a < last; ++a)
            if (dense(plan.axes[a])) {
                order[placed++] = plan.axes[a];
                ++moved_count;
            }
        for (std::size_t c = first_moved + 1; c < placed; ++c) // steps descending, stable
            for (std::size_t d = c; d > first_moved && step_of(order[d]) > step_of(order[d - 1]); --d)
                std::swap(order[d], order[d - 1]);
        bool changed = false;
        for (std::size_t a = 0; a < last; ++a)
            changed = changed || order[a].out_stride != plan.axes[a].out_stride || order[a].extent != plan.axes[a].extent;
        if (moved_count > 0 && step_of(inner) >= prefetch_line && changed) {
            for (std::size_t a = 0; a < last; ++a) plan.axes[a] = order[a];
            // The lines a run of the moved axes reads: a line per element of the row for each
            // line of their input (at most).
            const axis_plan outer_moved = plan.axes[first_moved];
            std::ptrdiff_t span = 1;
            for (std::size_t a = first_moved; a < last; ++a)
                span += (plan.axes[a].extent - 1) * step_of(plan.axes[a]);
            const std::ptrdiff_t lines = (span + prefetch_line - 1) / prefetch_line;
            const std::ptrdiff_t inner_lines = span / outer_moved.extent / prefetch_line + 1; // per element of it
            const std::ptrdiff_t target = far_apart / (inner.extent * prefetch_line * inner_lines);
            if (lines * inner.extent * prefetch_line > far_apart && target >= 2 && plan.rank < max_plan_rank &&
                outer_moved.single_affine()) {
                const std::ptrdiff_t tile = divisor_near(outer_moved.extent, target);
                if (tile >= 2 && tile < outer_moved.extent) {
                    for (std::size_t a = plan.rank; a > first_moved; --a) plan.axes[a] = plan.axes[a - 1];
                    ++plan.rank;
                    plan.axes[first_moved] = axis_plan::affine(outer_moved.extent / tile, tile * outer_moved.out_stride, 0,
                                                               tile * outer_moved.pieces[0].step);
                    axis_plan& cut = plan.axes[first_moved + 1];
                    cut.extent = tile;
                    cut.pieces[0].count = tile;
                }
            }
            // The row's elements often lie a power of two apart (planes of a packed input), all
            // in one set of the caches, whose ways they outnumber. Rows of 8 to 16 elements keep
            // those lines few enough to stay while the moved axes walk them (the case above,
            // float32: 0.51 s with whole rows of 64, 0.18-0.23 s with rows of 4 to 16, 0.28 s
            // with rows of 32). The rows' tiles go outside the moved axes.
            const std::size_t in_at = plan.rank - 1;
            const axis_plan row = plan.axes[in_at];
            const std::ptrdiff_t short_row = divisor_near(row.extent, 16);
            if (short_row >= 2 && short_row < row.extent && plan.rank < max_plan_rank && row.single_affine()) {
                for (std::size_t a = in_at; a > first_moved; --a) plan.axes[a] = plan.axes[a - 1];
                plan.axes[first_moved] = axis_plan::affine(row.extent / short_row, short_row * row.out_stride, 0,
                                                           short_row * row.pieces[0].step);
                plan.axes[in_at + 1] = row;
                plan.axes[in_at + 1].extent = short_row;
                plan.axes[in_at + 1].pieces[0].count = short_row;
                ++plan.rank;
            }
        }
    }
    p.outer_rank = p.shape == inner_shape::rows ? plan.rank - 1 : plan.rank - 2;
    p.bytes = plan.width;
    for (std::size_t a = 0; a < plan.rank; ++a) {
        p.bytes *= static_cast<std::size_t>(plan.axes[a].extent);
        if (a < p.outer_rank) p.rows *= plan.axes[a].extent;
    }
    p.stream = DMLREF_STREAM_STORES && p.bytes >= stream_threshold;
    p.stream_runs = DMLREF_STREAM_STORES && p.bytes >= run_stream_threshold;
    // Rows that do not follow one another in an input larger than the caches break the hardware
    // prefetchers' streams; the row kernels then prefetch the row `ahead` rows on. (Interleaves
    // read B streams the hardware follows, and measured no faster with it.)
    if (p.shape != inner_shape::interleave && p.shape != inner_shape::transpose && p.outer_rank > 0) {
        std::ptrdiff_t reach = 1;         // elements from the lowest input offset to the highest, at most
        std::ptrdiff_t low = 0, high = 0; // the input one row reads, from the row's input pointer
        std::ptrdiff_t elements = 1;      // the elements one row moves
        bool reads = true;
        for (std::size_t a = 0; a < plan.rank; ++a) {
            const auto [first, last_offset] = input_range(plan.axes[a]);
            if (last_offset > first) reach += last_offset - first;
            if (a < p.outer_rank) continue;
            reads = reads && last_offset >= first;
            low += first;
            high += last_offset;
            elements *= plan.axes[a].extent;
        }
        const auto w = static_cast<std::ptrdiff_t>(plan.width);
        // Only rows that read most of the lines they span are fetched ahead, so a row never costs
        // more prefetches than it moves elements. A row of elements far apart (depth to space with
        // B > 4, a transposing copy into a column-major output) spans up to the whole input: it
        // took one prefetch per 64 bytes of it, per row, and 43 MB of depth to space with B = 5
        // ran two minutes instead of a fraction of a second. Its elements lie on lines of their
        // own, which the hardware follows from row to row.
        const bool dense = (high - low + 1) <= elements * (prefetch_line / w > 0 ? prefetch_line / w : 1);
        if (reach * w >= static_cast<std::ptrdiff_t>(stream_threshold) && reads && dense) {
            p.first = low * w;
            p.span = (high - low + 1) * w;
            p.ahead = p.span >= prefetch_distance ? 1 : prefetch_distance / p.span;
        }
    }
    return p;
}

/// Where a row loop goes: `sets` sets of `n` rows, rows `out_step` and `in_step` bytes apart, sets
/// `set_out_step` and `set_in_step` bytes apart (the lead axis and the axis outside it).
struct row_walk {
    std::ptrdiff_t n = 0, out_step = 0, in_step = 0;
    std::ptrdiff_t sets = 1, set_out_step = 0, set_in_step = 0;
};

/// A row loop: the rows of `walk`, from `out` and `in`.
using rows_fn = void (*)(const prepared_plan& p, std::byte* out, const std::byte* in, const row_walk& walk) noexcept;

/// The plan's innermost axis: the one a row kernel walks.
inline const axis_plan& inner_axis(const prepared_plan& p) noexcept { return p.plan.axes[p.plan.rank - 1]; }

/// The axis outside it: for interleaves, the axis of the B rows.
inline const axis_plan& second_axis(const prepared_plan& p) noexcept { return p.plan.axes[p.plan.rank - 2]; }

/// `bytes` bytes of copies of the fill value from an element boundary; `pattern` is the value
/// repeated over 8 bytes, so that one loop serves every width.
inline void fill_bytes(std::byte* out, std::size_t bytes, std::uint64_t pattern) noexcept {
    if (bytes >= 64 && pattern == (pattern & 0xff) * 0x0101010101010101u) { // a call pays off past a cache line
        std::memset(out, static_cast<int>(pattern & 0xff), bytes);
        return;
    }
    // Every element boundary starts the pattern again, so the last 8 bytes may overlap the ones
    // before; fills under 8 bytes take the pattern's first 4, 2 and 1 bytes as they need.
    if (bytes >= 8) {
        for (std::size_t i = 0; i + 8 < bytes; i += 8) std::memcpy(out + i, &pattern, 8);
        std::memcpy(out + bytes - 8, &pattern, 8);
        return;
    }
    if (bytes & 4) std::memcpy(out, &pattern, 4);
    if (bytes & 2) std::memcpy(out + (bytes & 4), &pattern, 2);
    if (bytes & 1) std::memcpy(out + (bytes & 6), &pattern, 1);
}

/// The row kernels that do not depend on the element width, built once for every width: each
/// counts bytes, and moves them with mover<1>.
struct byte_kernels {
    using move = mover<1>;

    /// Rows of one contiguous run between fills (constant padding's rows): the sizes and the fill
    /// value stay in registers, and in outputs the caches hold the run is copied inline. Neither
    /// alone pays: PADDING1 CONSTANT {1,64,128,128} float32, alternating runs, 0.72-0.91x memcpy
    /// through `any`, through this kernel calling memcpy, or through `any` copying inline; 0.92-1.05x
    /// with both (Eigen's pad in the same runs: 0.85-1.09x).
    struct framed {
        static constexpr bool padded = true;
        std::size_t before = 0, after = 0, bytes = 0; ///< bytes of fill before and after, and of the run
        std::ptrdiff_t start = 0;                     ///< the run's input offset in bytes
        std::uint64_t pattern = 0;                    ///< the fill value repeated over 8 bytes
        bool stream, in_cache;
        explicit framed(const prepared_plan& p) noexcept : stream(p.stream_runs), in_cache(!p.stream) {
            const axis_plan& axis = inner_axis(p);
            const auto w = static_cast<std::ptrdiff_t>(p.plan.width);
            bool after_run = false;
            for (std::size_t k = 0; k < axis.piece_count; ++k) {
                const piece& pc = axis.pieces[k];
                if (pc.how == piece::kind::fill) {
                    (after_run ? after : before) += static_cast<std::size_t>(pc.count * w);
                } else {
                    after_run = true;
                    start = pc.start * w;
                    bytes = static_cast<std::size_t>(pc.count * w);
                }
            }
            std::byte repeated[8];
            for (std::size_t k = 0; k < 8; ++k) repeated[k] = p.plan.fill[k % p.plan.width];
            std::memcpy(&pattern, repeated, 8);
        }
        /// Whether a row of `axis` is one contiguous run between fills (at least one fill).
        static bool fits(const axis_plan& axis) noexcept {
            if (axis.out_stride != 1 || axis.piece_count < 2) return false;
            std::size_t runs = 0;
            for (std::size_t k = 0; k < axis.piece_count; ++k) {
                const piece& pc = axis.pieces[k];
                if (pc.how == piece::kind::affine && pc.step == 1) ++runs;
                else if (pc.how != piece::kind::fill) return false;
            }
            return runs == 1;
        }
        void operator()(std::byte* out, const std::byte* in) const noexcept {
            fill_bytes(out, before, pattern);
            out += before;
            if (in_cache) move::copy_inline(out, in + start, bytes);
            else move::copy(out, in + start, bytes, stream);
            fill_bytes(out + bytes, after, pattern);
        }
    };
    struct copy {
        static constexpr bool padded = false;
        std::size_t bytes;
        bool stream;
        explicit copy(const prepared_plan& p) noexcept
            : bytes(static_cast<std::size_t>(inner_axis(p).extent) * p.plan.width), stream(p.stream_runs) {}
        void operator()(std::byte* out, const std::byte* in) const noexcept { move::copy(out, in, bytes, stream); }
    };
};

/// One set of `n` rows `out_step` and `in_step` bytes apart, by one kernel.
template <class Kernel>
inline void set_of_rows(const prepared_plan& p, const Kernel& kernel, std::byte* out, const std::byte* in,
                        std::ptrdiff_t n, std::ptrdiff_t out_step, std::ptrdiff_t in_step) noexcept {
    // Rows that do not follow one another in the input break the hardware prefetchers' streams:
    // fetch the row `ahead` rows on while this one is copied. Padded rows (several pieces: `any`
    // and `framed`) are fetched ahead even where they follow one another: PADDING1 at 64 MiB,
    // alternating runs, 0.86-0.92x memcpy without, 0.95-1.08x with, every width; reversed rows
    // measured slower with it (0.88x against 0.97x), and the other kernels no faster.
    const std::ptrdiff_t ahead = p.ahead > 0 && (in_step != p.span || Kernel::padded) ? p.ahead : n;
    const std::ptrdiff_t skip = ahead * in_step + p.first;
    for (; n > 0; --n, out += out_step, in += in_step) {
        if (n > ahead)
            for (std::ptrdiff_t at = 0; at < p.span; at += prefetch_line) prefetch(in, skip + at);
        kernel(out, in);
    }
}

/// The rows of `walk` by one kernel: the only loop instantiated per kernel.
template <class Kernel>
inline void rows(const prepared_plan& p, std::byte* out, const std::byte* in, const row_walk& walk) noexcept {
    const Kernel kernel(p);
    for (std::ptrdiff_t set = 0; set < walk.sets; ++set)
        set_of_rows(p, kernel, out + set * walk.set_out_step, in + set * walk.set_in_step, walk.n, walk.out_step,
                    walk.in_step);
}

/// The row kernels of a prepared plan, for Width-byte elements. Each is built once from the plan
/// (its parameters then live in registers) and called per row with the row's output and input.
template <std::size_t Width> struct row_kernels {
    using move = mover<Width>;
    static constexpr auto w = static_cast<std::ptrdiff_t>(Width);

    /// Any row of any plan, fill rows included. Interleaves take the plain strided loop here:
    /// these rows are the rare ones.
    struct any {
        static constexpr bool padded = true;
        const prepared_plan& p;
        const axis_plan& in_axis;
        // Read once, not per row: a row's stores may alias the plan, so the compiler loads what
        // the row reads from it again after every piece.
        std::size_t pieces;
        std::ptrdiff_t out_step;
        typename move::word fill_value;
        explicit any(const prepared_plan& plan) noexcept
            : p(plan), in_axis(inner_axis(plan)), pieces(in_axis.piece_count), out_step(in_axis.out_stride * w) {
            std::memcpy(&fill_value, p.plan.fill.data(), Width);
        }
        void operator()(std::byte* out, const std::byte* in, bool row_fill = false) const noexcept {
            if (p.shape != inner_shape::rows) return two_axes(out, in, row_fill);
            for (std::size_t k = 0; k < pieces; ++k) {
                const piece& pc = in_axis.pieces[k];
                if (row_fill || pc.how == piece::kind::fill) {
                    move::fill(out, pc.count, out_step, fill_value);
                } else if (pc.how == piece::kind::affine) {
                    move::run(out, out_step, in + pc.start * w, pc.step * w, pc.count, p.stream_runs);
                } else if (table_length(pc) == pc.count) { // a table that covers its border: one gather
                    move::gather(out, out_step, in, pc.offsets, pc.count);
                } else { // a table length at a time: the border repeats it
                    gather_repeated(out, out_step, in, pc);
                }
                out += pc.count * out_step;
            }
        }
        /// The rows of the shapes with two inner axes, with the plain strided loop. Out of line:
        /// inline, each shape's branch cost the padded rows above instructions of their own.
        DMLREF_NOINLINE void two_axes(std::byte* out, const std::byte* in, bool row_fill) const noexcept {
            const std::ptrdiff_t in_step = in_axis.pieces[0].step * w;
            if (p.shape == inner_shape::interleave) { // out[x * B + k] = in[k * S + x]
                const std::ptrdiff_t n = second_axis(p).extent;
                for (std::ptrdiff_t k = 0; k < p.block; ++k) {
                    if (row_fill) move::fill(out + k * w, n, p.block * w, fill_value);
                    else move::strided(out + k * w, p.block * w, in + k * in_step, w, n);
                }
            } else if (p.shape == inner_shape::deinterleave) { // out[k * T + x] = in[x * B + k]
                const std::ptrdiff_t row_step = second_axis(p).out_stride * w, n = in_axis.extent;
                for (std::ptrdiff_t k = 0; k < p.block; ++k) {
                    if (row_fill) move::fill(out + k * row_step, n, w, fill_value);
                    else move::strided(out + k * row_step, w, in + k * w, p.block * w, n);
                }
            } else { // transpose: out[a * T + b] = in[a + b * S]
                const axis_plan& across = second_axis(p);
                for (std::ptrdiff_t a = 0; a < across.extent; ++a) {
                    if (row_fill) move::fill(out + a * across.out_stride * w, in_axis.extent, w, fill_value);
                    else move::strided(out + a * across.out_stride * w, w, in + a * w, in_step, in_axis.extent);
                }
            }
        }
    };
    /// A border longer than its table, a table's length at a time. Out of line, and apart from
    /// the one gather of a border its table covers (every border of min_table_length or fewer
    /// coordinates): inline, this loop's setup, bounds and spilled registers cost each padded row
    /// about 50 instructions, and the gathering pads of the speed table at 4 MiB ran 4-10% slower
    /// (bench/README.md, "The gathering pads' rows").
    DMLREF_NOINLINE static void gather_repeated(std::byte* out, std::ptrdiff_t out_step, const std::byte* in,
                                                const piece& pc) noexcept {
        const std::ptrdiff_t length = table_length(pc);
        for (std::ptrdiff_t j = 0; j < pc.count; j += length)
            move::gather(out + j * out_step, out_step, in, pc.offsets, pc.count - j < length ? pc.count - j : length);
    }
    struct reverse {
        static constexpr bool padded = false;
        std::ptrdiff_t count;
        bool stream;
        explicit reverse(const prepared_plan& p) noexcept : count(inner_axis(p).extent), stream(p.stream) {}
        void operator()(std::byte* out, const std::byte* in) const noexcept { move::reverse(out, in, count, stream); }
    };
    struct every_other {
        static constexpr bool padded = false;
        std::ptrdiff_t count;
        bool stream;
        explicit every_other(const prepared_plan& p) noexcept : count(inner_axis(p).extent), stream(p.stream) {}
        void operator()(std::byte* out, const std::byte* in) const noexcept { move::every_other(out, in, count, stream); }
    };
    /// Broadcast and other strides: the run's own dispatch.
    struct strided {
        static constexpr bool padded = false;
        std::ptrdiff_t out_step, in_step, count;
        explicit strided(const prepared_plan& p) noexcept
            : out_step(inner_axis(p).out_stride * w), in_step(inner_axis(p).pieces[0].step * w),
              count(inner_axis(p).extent) {}
        void operator()(std::byte* out, const std::byte* in) const noexcept { move::run(out, out_step, in, in_step, count); }
    };
    // Interleaves stream at DRAM sizes: those of 2 rows with 16-byte stores (measured 1.0x memcpy
    // rather than 0.85x at 64 MiB), those of 3 and 4 rows with the 64-byte permute kernel's whole
    // line stores alone (block 3 at 64 MiB, every width and order, 4 alternating runs: 0.72-0.81x
    // memcpy with the 16-byte kernel, 0.86-0.95x with it). The 16-byte kernel writes through the cache:
    // streaming its stores measured slower, 0.57-0.69x against 0.74-0.84x.
    template <bool Pair> struct interleave {
        static constexpr bool padded = false;
        std::ptrdiff_t row_step, count, block;
        bool stream;
        shuffles level;
        explicit interleave(const prepared_plan& p) noexcept
            : row_step(inner_axis(p).pieces[0].step * w), count(second_axis(p).extent), block(p.block),
              stream(p.stream), level(Pair ? shuffles::none : shuffles_here()) {}
        void operator()(std::byte* out, const std::byte* in) const noexcept {
            move::template interleave<Pair>(out, in, row_step, count, block, stream, level);
        }
    };
    // Space to depth: one input row dealt into B output rows (prepare orders the walk around it).
    // Only 2 rows stream at DRAM sizes; prefetching the output lines of 3 or 4 rows two rows ahead
    // measured slower in the walk prepare chooses for them (DCR block 3 at 64 MiB: 0.75-0.81x
    // memcpy with it, 0.81-0.84x without).
    template <std::ptrdiff_t B> struct deinterleave {
        static constexpr bool padded = false;
        std::ptrdiff_t row_step, count;
        bool stream, shuffle;
        explicit deinterleave(const prepared_plan& p) noexcept
            : row_step(second_axis(p).out_stride * w), count(inner_axis(p).extent), stream(B == 2 && p.stream),
              shuffle(B > 2 && shuffles_here() != shuffles::none) {}
        void operator()(std::byte* out, const std::byte* in) const noexcept {
            move::template deinterleave<B>(out, row_step, in, count, stream, shuffle);
        }
    };

    /// Transposing copies of narrow elements: one 2-D block a row (prepare() chooses them).
    struct transpose {
        static constexpr bool padded = false;
        std::ptrdiff_t out_step, in_step, rows, cols;
        explicit transpose(const prepared_plan& p) noexcept
            : out_step(second_axis(p).out_stride * w), in_step(inner_axis(p).pieces[0].step * w),
              rows(second_axis(p).extent), cols(inner_axis(p).extent) {}
        void operator()(std::byte* out, const std::byte* in) const noexcept {
            move::transpose(out, out_step, in, in_step, rows, cols);
        }
    };

    /// The row loop for the plan's inner shape.
    static rows_fn choose(const prepared_plan& p) noexcept {
        if (p.shape == inner_shape::interleave)
            return p.block == 2 ? rows<interleave<true>> : rows<interleave<false>>;
        if (p.shape == inner_shape::deinterleave)
            return p.block == 2 ? rows<deinterleave<2>> : p.block == 3 ? rows<deinterleave<3>> : rows<deinterleave<4>>;
        if (p.shape == inner_shape::transpose) return rows<transpose>;
        const axis_plan& in_axis = inner_axis(p);
        if (!in_axis.single_affine()) return byte_kernels::framed::fits(in_axis) ? rows<byte_kernels::framed> : rows<any>;
        const std::ptrdiff_t in_step = in_axis.pieces[0].step;
        if (in_axis.out_stride == 1 && in_step == 1) return rows<byte_kernels::copy>;
        if (in_axis.out_stride == 1 && in_step == -1) return rows<reverse>;
        if (in_axis.out_stride == 1 && in_step == 2) return rows<every_other>;
        return rows<strided>;
    }
};

/// The per-width entry points of the row walk: the row loop chosen for the plan, and the general
/// row (fill rows, gathers and the rows of axes with several pieces).
struct width_kernels {
    using any_fn = void (*)(const prepared_plan&, std::byte*, const std::byte*, bool) noexcept;
    rows_fn rows = nullptr;
    any_fn any = nullptr;
};

template <std::size_t Width> width_kernels kernels_for(const prepared_plan& p) noexcept {
    using kernels = row_kernels<Width>;
    return {kernels::choose(p), [](const prepared_plan& plan, std::byte* out, const std::byte* in, bool fill) noexcept {
                return typename kernels::any(plan)(out, in, fill);
            }};
}

/// Runs rows [first_row, last_row) of a prepared plan. A row is one call of the inner kernel. The
/// fastest outer axis is walked by pointer steps in a loop chosen once per plan; the other outer
/// axes by an odometer. The walk is the same for every width (one copy of it, not four).
inline void execute_rows(const prepared_plan& p, std::ptrdiff_t first_row, std::ptrdiff_t last_row) noexcept {
    const copy_plan& plan = p.plan;
    const auto w = static_cast<std::ptrdiff_t>(plan.width);
    const width_kernels k = plan.width == 1 ? kernels_for<1>(p)
                            : plan.width == 2 ? kernels_for<2>(p)
                            : plan.width == 4 ? kernels_for<4>(p)
                                              : kernels_for<8>(p);
    auto any_row = [&](std::byte* out, const std::byte* in, bool fill) { k.any(p, out, in, fill); };
    if (p.outer_rank == 0) return any_row(plan.output, plan.input, p.all_fill);
    const rows_fn rows = k.rows;

    // Axes [0, lead) move by odometer; their cumulative input/output offsets and fill state at
    // the current coordinate are kept per axis. Axis `lead` is the tight loop. Where it and the
    // axis outside it are both affine, whole runs of it go to the row loop together: a short lead
    // axis then costs no odometer step per run. (Depth to space and space to depth walk B block
    // rows a run where they go in input order. Benchmark runs alternating, f32 at 4 MiB, ratio to
    // memcpy: space to depth CRD block 3 0.49-0.53x run by run, 0.49-0.58x (6 of 7 runs 0.54 or
    // more) in sets; block 2 0.62-0.72x and 0.73-0.90x; depth to space block 2 0.78-0.83x and
    // 0.88-0.95x. At 64 MiB no change.)
    const std::size_t lead = p.outer_rank - 1;
    const axis_plan& lead_axis = plan.axes[lead];
    const bool paired = lead > 0 && lead_axis.single_affine() && plan.axes[lead - 1].single_affine();
    std::array<std::ptrdiff_t, max_plan_rank> coord{}, in_at{}, out_at{};
    std::array<bool, max_plan_rank> fill_at{};
    auto settle = [&](std::size_t from) {
        for (std::size_t a = from; a < lead; ++a) {
            std::ptrdiff_t offset = 0;
            const bool inside = input_offset(plan.axes[a], coord[a], offset);
            in_at[a] = (a > 0 ? in_at[a - 1] : 0) + offset;
            out_at[a] = (a > 0 ? out_at[a - 1] : 0) + coord[a] * plan.axes[a].out_stride;
            fill_at[a] = (a > 0 && fill_at[a - 1]) || !inside;
        }
    };
    std::ptrdiff_t rest = first_row;
    for (std::size_t a = p.outer_rank; a-- > 0;) {
        coord[a] = rest % plan.axes[a].extent;
        rest /= plan.axes[a].extent;
    }
    settle(0);

    for (std::ptrdiff_t done = first_row; done < last_row;) {
        const std::ptrdiff_t in_base = lead > 0 ? in_at[lead - 1] : 0;
        const std::ptrdiff_t out_base = lead > 0 ? out_at[lead - 1] : 0;
        const bool base_fill = p.all_fill || (lead > 0 && fill_at[lead - 1]);
        const std::ptrdiff_t first = coord[lead];
        const std::ptrdiff_t end = last_row - done < lead_axis.extent - first ? first + (last_row - done) : lead_axis.extent;
        std::ptrdiff_t sets = 1; // whole runs of the lead axis, along the axis outside it, for one call
        if (paired && first == 0 && !base_fill) {
            const std::ptrdiff_t whole = (last_row - done) / lead_axis.extent, left = plan.axes[lead - 1].extent - coord[lead - 1];
            sets = whole < left ? whole : left;
        }
        if (sets > 1) {
            const axis_plan& outer = plan.axes[lead - 1];
            rows(p, plan.output + out_base * w, plan.input + (in_base + lead_axis.pieces[0].start) * w,
                 {lead_axis.extent, lead_axis.out_stride * w, lead_axis.pieces[0].step * w, sets, outer.out_stride * w,
                  outer.pieces[0].step * w});
            coord[lead - 1] += sets - 1; // the odometer below takes it to the next set
        } else if (!base_fill) {
            // Rows [first, end) piece by piece: the affine pieces (the whole axis, or the rows
            // between pads) through the plan's row loop, fill and table rows one by one.
            const std::ptrdiff_t out_step = lead_axis.out_stride * w;
            std::ptrdiff_t j = first, piece_first = 0;
            for (std::size_t n = 0; n < lead_axis.piece_count && j < end; ++n) {
                const piece& pc = lead_axis.pieces[n];
                const std::ptrdiff_t stop = piece_first + pc.count < end ? piece_first + pc.count : end;
                if (j < stop && pc.how == piece::kind::affine) {
                    rows(p, plan.output + out_base * w + j * out_step,
                         plan.input + (in_base + pc.start + (j - piece_first) * pc.step) * w,
                         {stop - j, out_step, pc.step * w});
                } else {
                    const bool fill = pc.how == piece::kind::fill;
                    const std::ptrdiff_t period = fill ? 1 : table_length(pc);
                    for (std::ptrdiff_t r = j, at = (j - piece_first) % period; r < stop; ++r) {
                        const std::ptrdiff_t offset = fill ? 0 : pc.offsets[at];
                        any_row(plan.output + out_base * w + r * out_step, plan.input + (in_base + offset) * w, fill);
                        at = at + 1 == period ? 0 : at + 1;
                    }
                }
                j = stop > j ? stop : j;
                piece_first += pc.count;
            }
        } else {
            for (std::ptrdiff_t j = first; j < end; ++j)
                any_row(plan.output + (out_base + j * lead_axis.out_stride) * w, plan.input + in_base * w, true);
        }
        done += sets > 1 ? sets * lead_axis.extent : end - first;
        coord[lead] = 0;

        std::size_t a = lead; // odometer over axes [0, lead)
        while (a > 0) {
            --a;
            if (++coord[a] < plan.axes[a].extent) break;
            coord[a] = 0;
        }
        settle(a);
    }
}

inline void execute_part(const prepared_plan& p, std::ptrdiff_t first_row, std::ptrdiff_t last_row) noexcept {
    execute_rows(p, first_row, last_row);
#if DMLREF_STREAM_STORES
    if (p.stream) _mm_sfence(); // streaming stores are weakly ordered: publish them before this thread is done
#endif
}

/// Runs a plan on the calling thread. Every input offset the plan names must lie inside the input
/// buffer and every output offset inside the output buffer; the callers guarantee it.
inline void execute(const copy_plan& plan) noexcept {
    const prepared_plan p = prepare(plan);
    execute_part(p, 0, p.rows);
}

} // namespace dmlref::detail
