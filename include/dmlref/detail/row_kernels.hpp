#pragma once
/// \file row_kernels.hpp
/// The row kernels: the innermost loop or two of a prepared plan, chosen once per plan: memcpy for
/// contiguous runs, reversed runs, stride-2 runs, the interleave of depth to space and the
/// de-interleave of space to depth (B = 2 to 4), cache-line blocks of transposing copies of any
/// width in vector tiles, gathers through padding tables, fills, and a plain strided loop for
/// everything else.
/// The kernels compilers do not vectorize at -O2 use 16-byte vector shuffles (GCC 12+, Clang);
/// the x86 ones (x86.hpp) are called where the processor has them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "plan.hpp"
#include "prepare.hpp"
#include "x86.hpp"

namespace dmlref::detail {

/// A hint to fetch the line `offset` bytes from `base`. The address may lie outside every buffer (a
/// row beyond the last): it is computed as an integer, never as a pointer, and a prefetch neither
/// faults nor counts as an access.
inline void prefetch(const std::byte* base, std::ptrdiff_t offset) noexcept {
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(offset);
    DMLREF_PREFETCH(reinterpret_cast<const void*>(address));
}

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
        if (stream) return stream_store(p, &v);
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

    /// Elements per cache line.
    static constexpr std::ptrdiff_t line = 64 / w;

    /// The shape of a transposing block (prepare(): choose_transpose()): a run of `length_a`
    /// input elements in sequence, over `na` axes, by a run of `length_b` output elements in
    /// sequence, over `nb` axes. Element (i, j) of the two moves from in + i * w + in_offset(j) to
    /// out + out_offset(i) + j * w, where out_offset(i) and in_offset(j) are the element's offsets
    /// (bytes) along the other tensor's axes: axis k of a run (innermost first) has `extent`
    /// coordinates `stride` bytes apart in the other tensor. Either run may have holes (padded
    /// pitches), under a line each. The input's run is indexed by position: its axis k steps
    /// `a_step[k]` elements, at least the span of the axes inside it, and the positions i between
    /// are no element (out_offset(i) is `hole`); its tiles read the holes as the lines hold them.
    /// The output's run is indexed by element: element j lies at position pos(j), its axis k
    /// `b_out[k]` elements on, and the holes between are never written.
    struct block_shape {
        std::size_t na = 0, nb = 0;
        std::array<std::ptrdiff_t, max_plan_rank> a_extent{}, a_out{}, a_step{}; ///< the input's run: output strides
        std::array<std::ptrdiff_t, max_plan_rank> b_extent{}, b_in{}, b_out{};  ///< the output's run: input steps
        std::ptrdiff_t length_a = 1; ///< positions of the input's run (its span)
        std::ptrdiff_t length_b = 1; ///< elements of the output's run
        bool b_holes = false;        ///< the output's run has holes: pos(j) is not j
        std::ptrdiff_t chunk = 1; ///< elements of the input's run a block takes (block_sizes())
        std::ptrdiff_t pitch = 1; ///< elements of the output's run a stage row holds
        const std::byte* in_end = nullptr; ///< the end of the input the plan reads
        bool stream = false;                ///< whole output lines with streaming stores
    };

    /// The offsets of elements [first, first + count) of a run over `axes` axes (innermost first):
    /// `table[k]` for element first + k, the strides' sum at its coordinates.
    static void run_offsets(std::ptrdiff_t* table, std::ptrdiff_t first, std::ptrdiff_t count, std::size_t axes,
                            const std::ptrdiff_t* extent, const std::ptrdiff_t* stride) noexcept {
        std::array<std::ptrdiff_t, max_plan_rank> coord{};
        std::ptrdiff_t offset = 0, rest = first;
        for (std::size_t k = 0; k < axes; ++k) {
            coord[k] = rest % extent[k];
            rest /= extent[k];
            offset += coord[k] * stride[k];
        }
        for (std::ptrdiff_t t = 0; t < count;) {
            // the rest of the innermost axis's coordinates in one loop
            const std::ptrdiff_t along = extent[0] - coord[0] < count - t ? extent[0] - coord[0] : count - t;
            for (std::ptrdiff_t k = 0; k < along; ++k) table[t + k] = offset + k * stride[0];
            t += along;
            coord[0] += along;
            offset += along * stride[0];
            if (coord[0] < extent[0]) break; // count reached
            offset -= extent[0] * stride[0];
            coord[0] = 0;
            for (std::size_t k = 1; k < axes; ++k) {
                if (++coord[k] < extent[k]) {
                    offset += stride[k];
                    break;
                }
                offset -= (extent[k] - 1) * stride[k];
                coord[k] = 0;
            }
        }
    }

    /// out_offset(i) of a position of the input's run that holds no element.
    static constexpr std::ptrdiff_t hole = PTRDIFF_MIN;

    /// table[k]: out_offset(first + k) for positions [first, first + count) of the input's run,
    /// `hole` for its holes. Each position's coordinates by division, from the outermost axis in:
    /// a coordinate past its axis's extent is a hole.
    static void input_run_offsets(std::ptrdiff_t* table, std::ptrdiff_t first, std::ptrdiff_t count,
                                  const block_shape& s) noexcept {
        if (s.na == 1) {
            for (std::ptrdiff_t k = 0; k < count; ++k) table[k] = (first + k) * s.a_out[0];
            return;
        }
        for (std::ptrdiff_t k = 0; k < count;) {
            // The positions from here to the next where a coordinate of an outer axis changes (the
            // end of a cell of the axis outside it: a hole after an axis's last coordinate ends
            // with its parent's cell, not with a cell of its own) share their outer coordinates.
            std::ptrdiff_t rest = first + k, offset = 0, along = count - k;
            bool inside = true;
            for (std::size_t axis = s.na; axis-- > 1;) {
                if (axis + 1 < s.na && s.a_step[axis + 1] - rest < along) along = s.a_step[axis + 1] - rest;
                const std::ptrdiff_t c = rest / s.a_step[axis];
                rest -= c * s.a_step[axis];
                inside = inside && c < s.a_extent[axis];
                offset += c * s.a_out[axis];
            }
            // the positions of the innermost axis from here on: its elements, then its holes
            along = s.a_step[1] - rest < along ? s.a_step[1] - rest : along;
            for (std::ptrdiff_t t = 0; t < along; ++t, ++rest)
                table[k + t] = inside && rest < s.a_extent[0] ? offset + rest * s.a_out[0] : hole;
            k += along;
        }
    }

    /// A block's stage holds its tiles: a row per element of its chunk of the input's run, each
    /// `pitch` elements of the output's run. Its size (16 KiB) leaves a core's nearest cache
    /// (32-48 KiB) room for the input lines the block reads.
    static constexpr std::ptrdiff_t stage_bytes = 16384;
    /// A block takes up to a line of each input row: input rows far apart are each read a line
    /// at a time (32 bytes a block measured 1.3 times the time, 16 bytes 1.9 times, 1-byte
    /// elements from rows 100 KB apart).
    static constexpr std::ptrdiff_t max_chunk = line;
    /// The longest stage row: the stage's bytes over a tile's row of 16 bytes.
    static constexpr std::ptrdiff_t max_pitch = stage_bytes / 16;

    /// The chunk of the input's run and the stage rows of a shape's blocks: the stage's bytes
    /// spread over the chunk's rows (whole tiles of them), in whole lines. Streaming, a block
    /// computes a line's elements more than it writes (flush()), so long rows waste less.
    static void block_sizes(block_shape& s) noexcept {
        s.chunk = s.length_a < max_chunk ? s.length_a : max_chunk;
        const std::ptrdiff_t rows = (s.chunk + tile - 1) / tile * tile;
        const std::ptrdiff_t pitch = stage_bytes / (rows * w);
        s.pitch = pitch - pitch % line;
    }

    /// Tile (i0, j0) of the stage: elements [i0, i0 + tile) of the input's run from the `tile`
    /// input rows at `from` + rows[k], to stage rows i0... at column j0, rows `pitch` bytes
    /// apart. `valid` counts the elements left in the input's run from i0: under a tile, a row
    /// whose vector would pass `in_end` loads only those (the lanes past them land in stage rows
    /// nobody writes out).
    static void stage_tile(std::byte* to, std::ptrdiff_t pitch, const std::byte* from, const std::ptrdiff_t* rows,
                           std::ptrdiff_t valid, const std::byte* in_end) noexcept {
#if DMLREF_VECTOR_KERNELS
        constexpr std::size_t n = static_cast<std::size_t>(tile), half = n / 2;
        vec r[n], t[n];
        DMLREF_UNROLL
        for (std::size_t i = 0; i < n; ++i) {
            const std::byte* p = from + rows[i];
            if (valid >= tile || reinterpret_cast<std::uintptr_t>(p) + 16 <= reinterpret_cast<std::uintptr_t>(in_end)) {
                r[i] = load_vec(p);
            } else {
                r[i] = vec{};
                std::memcpy(&r[i], p, static_cast<std::size_t>(valid * w));
            }
        }
        // Each round zips rows r and r + tile / 2 (unpack low and high): the (row, lane) index
        // bits of an element rotate by one, so log2(tile) rounds transpose.
        DMLREF_UNROLL
        for (std::size_t round = 1; round < n; round *= 2) {
            DMLREF_UNROLL
            for (std::size_t i = 0; i < half; ++i) {
                t[2 * i] = zipped<0>(r[i], r[i + half], lane_indices{});
                t[2 * i + 1] = zipped<half>(r[i], r[i + half], lane_indices{});
            }
            DMLREF_UNROLL
            for (std::size_t i = 0; i < n; ++i) r[i] = t[i];
        }
        DMLREF_UNROLL
        for (std::size_t i = 0; i < n; ++i) store_vec(to + static_cast<std::ptrdiff_t>(i) * pitch, r[i]);
#else
        (void)in_end;
        const std::ptrdiff_t count = valid < tile ? valid : tile;
        for (std::ptrdiff_t j = 0; j < tile; ++j)
            for (std::ptrdiff_t i = 0; i < count; ++i) store(to + i * pitch + j * w, load(from + rows[j] + i * w));
#endif
    }

    /// Copies `bytes` bytes (whole elements): up to 128 with moves inline, each size class in
    /// straight-line code that overlaps its first and last moves (16-byte ones where the vector
    /// kernels are, else 8-byte ones, then 4, 2, 1), longer ones with memcpy. A transpose's stage
    /// writes out many runs of a few dozen bytes, each of which a memcpy call costs as much as its
    /// copy; and a copy loop would become one (GCC at -O3 turns it into a call to memmove).
    static void copy_short(std::byte* out, const std::byte* in, std::ptrdiff_t bytes) noexcept {
        if (bytes <= 0) return;
        const auto n = static_cast<std::size_t>(bytes);
#if DMLREF_VECTOR_KERNELS
        if (n >= 16) {
            if (n > 128) return static_cast<void>(std::memcpy(out, in, n));
            const std::size_t half = n > 64 ? 64 : n > 32 ? 32 : 16; // the moves from each end cover n
            const vec a0 = load_vec(in), z0 = load_vec(in + n - 16);
            if (half == 16) {
                store_vec(out, a0);
                store_vec(out + n - 16, z0);
                return;
            }
            const vec a1 = load_vec(in + 16), z1 = load_vec(in + n - 32);
            if (half == 32) {
                store_vec(out, a0);
                store_vec(out + 16, a1);
                store_vec(out + n - 32, z1);
                store_vec(out + n - 16, z0);
                return;
            }
            const vec a2 = load_vec(in + 32), a3 = load_vec(in + 48), z2 = load_vec(in + n - 48), z3 = load_vec(in + n - 64);
            store_vec(out, a0);
            store_vec(out + 16, a1);
            store_vec(out + 32, a2);
            store_vec(out + 48, a3);
            store_vec(out + n - 64, z3);
            store_vec(out + n - 48, z2);
            store_vec(out + n - 32, z1);
            store_vec(out + n - 16, z0);
            return;
        }
#else
        if (n > 16) return static_cast<void>(std::memcpy(out, in, n));
#endif
        if (n >= 8) {
            std::uint64_t a, z;
            std::memcpy(&a, in, 8);
            std::memcpy(&z, in + n - 8, 8);
            std::memcpy(out, &a, 8);
            std::memcpy(out + n - 8, &z, 8);
        } else if (n >= 4) {
            std::uint32_t a, z;
            std::memcpy(&a, in, 4);
            std::memcpy(&z, in + n - 4, 4);
            std::memcpy(out, &a, 4);
            std::memcpy(out + n - 4, &z, 4);
        } else if (n >= 2) {
            std::uint16_t a, z;
            std::memcpy(&a, in, 2);
            std::memcpy(&z, in + n - 2, 2);
            std::memcpy(out, &a, 2);
            std::memcpy(out + n - 2, &z, 2);
        } else if (n == 1) {
            *out = *in;
        }
    }

    /// Writes stage rows [0, count) out: row r is elements [jb, jb + own) of the output's run that
    /// starts at out + out_rows[r]. With `stream`, each run is cut at 64-byte lines instead: a block
    /// writes the lines that start among its elements (the stage holds line - 1 more, up to the
    /// run's end), whole, with streaming stores, and the run's partial first and last lines through
    /// the cache. So every line is written once and whole, as streaming stores want, whatever the
    /// runs' alignments, and no byte outside the runs is written.
    static void flush(std::byte* out, const std::ptrdiff_t* out_rows, std::ptrdiff_t count, const std::byte* stage,
                      std::ptrdiff_t pitch, std::ptrdiff_t jb, std::ptrdiff_t own, [[maybe_unused]] std::ptrdiff_t length_b,
                      [[maybe_unused]] bool stream) noexcept {
        for (std::ptrdiff_t r = 0; r < count; ++r) {
            if (out_rows[r] == hole) continue;
            const std::byte* from = stage + r * pitch;
            std::byte* run = out + out_rows[r];
#if DMLREF_STREAM_STORES
            if (stream) {
                const auto phase = [&](std::ptrdiff_t j) {
                    return static_cast<std::ptrdiff_t>((reinterpret_cast<std::uintptr_t>(run) + static_cast<std::uintptr_t>(j * w)) % 64);
                };
                std::ptrdiff_t j = jb + (64 - phase(jb)) % 64 / w; // the first line that starts here
                if (jb == 0) { // the run's first, partial line
                    j = j < length_b ? j : length_b;
                    copy_short(run, from, j * w);
                }
                for (; j < jb + own && j + line <= length_b; j += line) copy_line(run + j * w, from + (j - jb) * w, true);
                if (j < jb + own && j < length_b) // the run's last, partial line
                    copy_short(run + j * w, from + (j - jb) * w, (length_b - j) * w);
                continue;
            }
#endif
            copy_short(run + jb * w, from, own * w);
        }
    }

    /// Elements of an output's run with holes at consecutive positions: from stage column
    /// `column`, `count` of them, at `position` (elements from the run's start).
    struct segment {
        std::ptrdiff_t position;
        std::int32_t column, count;
    };

    /// flush() for an output's run with holes: stage column c holds element jb + c of the run,
    /// whose segments `segments` lists. Through the cache, a segment at a time: the segments are
    /// short (prepare(): extend_output_run()) and their lines shared with holes, which no
    /// streaming store may write.
    static void flush_segments(std::byte* out, const std::ptrdiff_t* out_rows, std::ptrdiff_t count, const std::byte* stage,
                               std::ptrdiff_t pitch, const segment* segments, std::ptrdiff_t segment_count) noexcept {
        for (std::ptrdiff_t r = 0; r < count; ++r) {
            if (out_rows[r] == hole) continue;
            const std::byte* from = stage + r * pitch;
            std::byte* run = out + out_rows[r];
            for (std::ptrdiff_t k = 0; k < segment_count; ++k)
                copy_short(run + segments[k].position * w, from + segments[k].column * w, segments[k].count * w);
        }
    }

    /// The input offsets (bytes) of elements jb + c of the output's run for c up to a stage row's,
    /// and whole tiles of them (the last repeated).
    struct output_chunk {
        std::ptrdiff_t in_rows[static_cast<std::size_t>(max_pitch + tile)];
    };

    static void chunk_of(output_chunk& t, const block_shape& s, std::ptrdiff_t jb) noexcept {
        const std::ptrdiff_t count = s.length_b - jb < s.pitch ? s.length_b - jb : s.pitch;
        run_offsets(t.in_rows, jb, count, s.nb, s.b_extent.data(), s.b_in.data());
        for (std::ptrdiff_t k = count; k % tile != 0; ++k) t.in_rows[k] = t.in_rows[count - 1];
    }

    /// The segments of elements [jb, jb + count) of an output's run with holes, into `segments`;
    /// returns how many: the rest of the innermost axis's coordinates from each.
    static std::ptrdiff_t segments_of(segment* segments, const block_shape& s, std::ptrdiff_t jb, std::ptrdiff_t count) noexcept {
        std::ptrdiff_t made = 0;
        for (std::ptrdiff_t c = 0; c < count; ++made) {
            std::ptrdiff_t at = 0;
            run_offsets(&at, jb + c, 1, s.nb, s.b_extent.data(), s.b_out.data());
            const std::ptrdiff_t left = s.b_extent[0] - (jb + c) % s.b_extent[0];
            const std::ptrdiff_t n = left < count - c ? left : count - c;
            segments[made] = {at, static_cast<std::int32_t>(c), static_cast<std::int32_t>(n)};
            c += n;
        }
        return made;
    }

    /// The tables every block of a shape starts from, built once per plan: the first chunk of the
    /// output's run and its segments, and the output offsets of the input's run's first chunk.
    struct block_tables {
        output_chunk first;
        segment first_segments[static_cast<std::size_t>(max_pitch)];
        std::ptrdiff_t first_segment_count = 0;
        std::ptrdiff_t out_rows[static_cast<std::size_t>(max_chunk)];
    };

    static void first_tables(block_tables& t, const block_shape& s) noexcept {
        chunk_of(t.first, s, 0);
        if (s.b_holes) t.first_segment_count = segments_of(t.first_segments, s, 0, s.length_b < s.pitch ? s.length_b : s.pitch);
        input_run_offsets(t.out_rows, 0, s.chunk, s);
    }

    /// Moves a transposing block (block_shape) in blocks of `chunk` elements of the input's run by
    /// up to `pitch` of the output's: the tiles of a block fill the stage, which is then written
    /// out as runs of the output. A block reads `chunk` elements (a line at most) of each of its
    /// input rows and writes whole lines of each of its output rows, all while the nearest caches
    /// hold them; the blocks go along the input's run first, so that the next block reads the rest
    /// of the lines this one started. While a block moves, the input lines of the next are fetched,
    /// a tile's rows at a time (the last block's next is the first block of the next row, which
    /// reads `next_row` bytes on): its rows are rows of the input far apart, each a stream of its
    /// own, which hardware prefetchers do not follow in such numbers.
    static void transpose(std::byte* out, const std::byte* in, std::ptrdiff_t next_row, const block_shape& s,
                          const block_tables& first) noexcept {
        alignas(64) std::byte stage[static_cast<std::size_t>(stage_bytes)];
        output_chunk later[2]; // the chunks of the output's run after the first, in turns
        segment segments[static_cast<std::size_t>(max_pitch)]; // those of the chunk a block writes, with holes
        std::ptrdiff_t out_rows[static_cast<std::size_t>(max_chunk)];
        const bool stream = DMLREF_STREAM_STORES && s.stream && !s.b_holes && reinterpret_cast<std::uintptr_t>(out) % Width == 0;
        const std::ptrdiff_t pitch = s.pitch, row_bytes = pitch * w;
        const std::ptrdiff_t own = stream ? pitch - line : pitch; // elements of the output's run a block writes
        auto rows_from = [&](std::ptrdiff_t jb) { return s.length_b - jb < pitch ? s.length_b - jb : pitch; };
        const output_chunk* chunk = &first.first;
        for (std::ptrdiff_t jb = 0, turn = 0; jb < s.length_b; jb += own, turn ^= 1) {
            const std::ptrdiff_t jn = s.length_b - jb < own ? s.length_b - jb : own;
            const std::ptrdiff_t jx = stream ? rows_from(jb) : jn; // the rows this block reads
            const bool more_b = jb + own < s.length_b;
            output_chunk& following = later[turn];
            if (more_b) chunk_of(following, s, jb + own);
            const std::ptrdiff_t* here = chunk->in_rows;
            const std::ptrdiff_t segment_count = s.b_holes && jb > 0 ? segments_of(segments, s, jb, jn) : 0;
            for (std::ptrdiff_t ib = 0; ib < s.length_a; ib += s.chunk) {
                const std::ptrdiff_t an = s.length_a - ib < s.chunk ? s.length_a - ib : s.chunk;
                const std::ptrdiff_t* to_rows = first.out_rows;
                if (ib > 0) {
                    input_run_offsets(out_rows, ib, an, s);
                    to_rows = out_rows;
                }
                // The next block: the rest of these rows, the next chunk's from the run's start, or
                // the next row's first block; its input rows' first and last bytes.
                const bool more_a = ib + s.chunk < s.length_a;
                const std::ptrdiff_t* next = more_a ? here : more_b ? following.in_rows : first.first.in_rows;
                const std::ptrdiff_t next_first = more_a ? (ib + s.chunk) * w : more_b ? 0 : next_row;
                const std::ptrdiff_t left = s.length_a - ib - s.chunk;
                const std::ptrdiff_t next_last = next_first + (more_a && left < s.chunk ? left : s.chunk) * w - 1;
                const std::ptrdiff_t next_count = more_a ? jx : more_b ? rows_from(jb + own) : rows_from(0);
                const std::byte* from = in + ib * w;
                for (std::ptrdiff_t j0 = 0; j0 < jx; j0 += tile) {
                    for (std::ptrdiff_t i0 = 0; i0 < an; i0 += tile)
                        stage_tile(stage + i0 * row_bytes + j0 * w, row_bytes, from + i0 * w, here + j0, s.length_a - ib - i0,
                                   s.in_end);
                    // the next block's rows in proportion: all of them by this block's last tile
                    const std::ptrdiff_t k0 = j0 * next_count / jx, k1 = (j0 + tile < jx ? j0 + tile : jx) * next_count / jx;
                    for (std::ptrdiff_t k = k0; k < k1; ++k) {
                        prefetch(in, next[k] + next_first);
                        prefetch(in, next[k] + next_last);
                    }
                }
                if (s.b_holes) flush_segments(out, to_rows, an, stage, row_bytes, jb == 0 ? first.first_segments : segments,
                                              jb == 0 ? first.first_segment_count : segment_count);
                else flush(out, to_rows, an, stage, row_bytes, jb, jn, s.length_b, stream);
            }
            chunk = &following;
        }
    }
};

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
        // A transpose fetches the next row's first block itself (the last row of a set guesses).
        if constexpr (requires { Kernel::fetches_next; }) kernel(out, in, in_step);
        else kernel(out, in);
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
            } else { // transpose: out[out_offset(i) + j] = in[i + in_offset(j)] over the two runs
                const typename move::block_shape s = transpose::shape_of(p);
                std::ptrdiff_t to = 0, from = 0;
                for (std::ptrdiff_t i = 0; i < s.length_a; ++i) {
                    move::input_run_offsets(&to, i, 1, s);
                    if (to == move::hole) continue;
                    for (std::ptrdiff_t j = 0; j < s.length_b; ++j) {
                        std::ptrdiff_t at = 0;
                        move::run_offsets(&at, j, 1, s.nb, s.b_extent.data(), s.b_out.data());
                        if (row_fill) {
                            move::store(out + to + at * w, fill_value);
                        } else {
                            move::run_offsets(&from, j, 1, s.nb, s.b_extent.data(), s.b_in.data());
                            move::store(out + to + at * w, move::load(in + i * w + from));
                        }
                    }
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

    /// Transposing copies: the input's run by the output's run a row (prepare(): choose_transpose()).
    struct transpose {
        static constexpr bool padded = false;
        static constexpr bool fetches_next = true; ///< takes the next row's distance (set_of_rows)
        typename move::block_shape shape;
        typename move::block_tables tables;
        explicit transpose(const prepared_plan& p) noexcept : shape(shape_of(p)) { move::first_tables(tables, shape); }
        static typename move::block_shape shape_of(const prepared_plan& p) noexcept {
            typename move::block_shape s;
            const copy_plan& plan = p.plan;
            s.nb = p.out_run;
            s.na = p.in_run;
            for (std::size_t k = 0; k < s.nb; ++k) { // innermost first
                const axis_plan& axis = plan.axes[plan.rank - 1 - k];
                s.b_extent[k] = axis.extent;
                s.b_in[k] = axis.pieces[0].step * w;
                s.b_out[k] = axis.out_stride;
                s.b_holes = s.b_holes || axis.out_stride != s.length_b;
                s.length_b *= axis.extent;
            }
            s.length_a = 1; // the span: the last position past the first, plus one
            for (std::size_t k = 0; k < s.na; ++k) {
                const axis_plan& axis = plan.axes[plan.rank - s.nb - 1 - k];
                s.a_extent[k] = axis.extent;
                s.a_out[k] = axis.out_stride * w;
                s.a_step[k] = axis.pieces[0].step;
                s.length_a += (axis.extent - 1) * axis.pieces[0].step;
            }
            s.in_end = plan.input + p.in_reach;
            s.stream = p.stream;
            move::block_sizes(s);
            return s;
        }
        /// `next`: bytes from `in` to where the next row reads (the kernel fetches its first block ahead).
        void operator()(std::byte* out, const std::byte* in, std::ptrdiff_t next) const noexcept {
            move::transpose(out, in, next, shape, tables);
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

} // namespace dmlref::detail
