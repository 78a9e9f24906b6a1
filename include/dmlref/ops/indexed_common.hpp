#pragma once
/// \file indexed_common.hpp
/// What the indexed operators (gather.hpp, scatter.hpp, one_hot.hpp) share: the index element
/// types, reading and wrapping one index, the tensor-desc rules of the family per feature level,
/// the check of every index before anything is written, and the one gather loop that GATHER,
/// GATHER_ELEMENTS, GATHER_ND(1), SCATTER_ELEMENTS and SCATTER_ND all run.
///
/// The loop: each of these ops maps a coordinate `o` of its "walked" tensor (the gather's output,
/// the scatter's updates) to an element of its "addressed" tensor (the gather's input, the
/// scatter's output) as
///
///   addressed offset = sum_j o[j] * addressed_step[j] + sum_m wrap(Indices[idx(o) + m * tuple_step]) * axis_stride[m]
///   idx(o)           = sum_j o[j] * index_step[j]
///
/// where each op says which axes of `o` step through the addressed tensor and which through the
/// index tensor (both, for a batch axis of GATHER_ND1), and how many indices make one coordinate
/// tuple (1, or the last index dimension of the ND ops). Trailing axes of `o` that never step
/// through the index tensor form a block copied per index read: whole rows by memcpy where the
/// block is packed in both tensors.
///
/// Negative indices: a signed index (INT32, INT64) below 0 counts from the axis end, i + size
/// (DirectML from feature level 3_0; no signed index type exists below it). An index outside
/// [0, size) after that is refused before the first write (dmlref's rule: DirectML leaves the
/// result undefined, "clamped safely" for GATHER): nothing is read or written outside the tensors,
/// however large the index (64-bit indices past 2^32 and past 2^63 included).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common.hpp"

namespace dmlref {

/// The index element types DirectML's indexed operators read (INT32, UINT32, INT64, UINT64).
template <class I>
concept index_element = std::is_same_v<std::remove_const_t<I>, std::int32_t> ||
                        std::is_same_v<std::remove_const_t<I>, std::uint32_t> ||
                        std::is_same_v<std::remove_const_t<I>, std::int64_t> ||
                        std::is_same_v<std::remove_const_t<I>, std::uint64_t>;

namespace detail {

/// Whether `type` is one of the four index types.
constexpr bool is_index_type(data_type type) noexcept {
    return type == data_type::int32 || type == data_type::uint32 || type == data_type::int64 ||
           type == data_type::uint64;
}

/// One index as read: a value that fits std::int64_t, or `huge` for a UINT64 of 2^63 or more.
struct index_value {
    std::int64_t value = 0;
    std::uint64_t raw = 0; ///< the unsigned reading, for messages about huge values
    bool huge = false;
};

/// Reads the index of `type` at `at` (unaligned reads are fine: memcpy).
DMLREF_FUNC index_value read_index(const std::byte* at, data_type type) noexcept
#if DMLREF_DEFINE_FUNCS
{
    switch (type) {
    case data_type::int32: {
        std::int32_t v;
        std::memcpy(&v, at, 4);
        return {v, 0, false};
    }
    case data_type::uint32: {
        std::uint32_t v;
        std::memcpy(&v, at, 4);
        return {std::int64_t{v}, v, false};
    }
    case data_type::int64: {
        std::int64_t v;
        std::memcpy(&v, at, 8);
        return {v, 0, false};
    }
    default: {
        std::uint64_t v;
        std::memcpy(&v, at, 8);
        const bool huge = v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        return {huge ? 0 : static_cast<std::int64_t>(v), v, huge};
    }
    }
}
#else
;
#endif

/// The position an index names on an axis of `size` elements (1 to 2^57): signed negatives count
/// from the end; nullopt where it falls outside [0, size) after that.
DMLREF_FUNC std::optional<std::ptrdiff_t> wrap_index(const index_value& v, std::ptrdiff_t size) noexcept
#if DMLREF_DEFINE_FUNCS
{
    if (v.huge) return std::nullopt;
    std::int64_t i = v.value;
    if (i < 0) i += size; // only signed types read negative; size <= 2^57, so no overflow
    if (i < 0 || i >= size) return std::nullopt;
    return static_cast<std::ptrdiff_t>(i);
}
#else
;
#endif

/// "[0, 1, 2]": a coordinate as the messages print it.
template <class Coordinate> DMLREF_COLD std::string coordinate_text(const Coordinate& c, std::size_t rank) {
    std::string text = "[";
    for (std::size_t i = 0; i < rank; ++i) append_text(text, detail::message("{}{}", i ? ", " : "", c[i]));
    append_text(text, "]");
    return text;
}

/// The message of an index outside its axis.
DMLREF_COLD DMLREF_FUNC std::string index_out_of_range(std::string_view op, std::string_view index_field,
                                                  const std::array<std::ptrdiff_t, max_plan_rank>& at,
                                                  std::size_t rank, const index_value& v, data_type type,
                                                  std::string_view sized_field, std::size_t axis,
                                                  std::ptrdiff_t size)
#if DMLREF_DEFINE_FUNCS
{
    const bool is_signed = type == data_type::int32 || type == data_type::int64;
    const std::string value = v.huge || !is_signed ? detail::message("{}", v.huge ? v.raw : static_cast<std::uint64_t>(v.value))
                                                   : detail::message("{}", v.value);
    return detail::message("{}: {}{} is {}; it indexes {}.Sizes[{}] = {}, so it must lie in [{}, {}) ({} index{})",
                           op, index_field, coordinate_text(at, rank), value, sized_field, axis, size,
                           is_signed ? -size : std::ptrdiff_t{0}, size, to_string(type),
                           is_signed ? "; a negative index counts from the end" : "");
}
#else
;
#endif

/// The axis an index of the index tensor addresses: its size and which axis of which tensor.
struct index_bound {
    std::ptrdiff_t size = 1;
    std::size_t axis = 0;
};

/// Whether an index `v` of type I lies in [0, size) after a signed negative counts from the end.
template <class I> constexpr bool index_in_range(I v, std::ptrdiff_t size) noexcept {
    if constexpr (std::is_signed_v<I>) return v >= -static_cast<std::int64_t>(size) && v < static_cast<std::int64_t>(size);
    else return static_cast<std::uint64_t>(v) < static_cast<std::uint64_t>(size);
}

/// The index of type I at `at` (unaligned reads are fine: memcpy), as a position on an axis of
/// `size` elements: a signed negative counts from the end. Only for indices index_in_range accepted.
template <class I> std::ptrdiff_t index_position(const std::byte* at, std::ptrdiff_t size) noexcept {
    I v;
    std::memcpy(&v, at, sizeof v);
    auto i = static_cast<std::ptrdiff_t>(v);
    if constexpr (std::is_signed_v<I>) i += i < 0 ? size : 0;
    return i;
}

/// The coordinate of the first index of type I outside its axis, rows of the innermost axis at a
/// time (the index type read once per call, not once per element), or nullopt.
template <class I, class Bound>
std::optional<std::array<std::ptrdiff_t, max_plan_rank>> first_index_out_of_range(const std::byte* data, const layout& l,
                                                                                  Bound& bound) {
    std::array<std::ptrdiff_t, max_plan_rank> c{};
    const std::size_t inner = l.rank ? l.rank - 1 : 0;
    const std::ptrdiff_t n = l.rank ? l.extents[inner] : 1, step = l.rank ? l.strides[inner] * std::ptrdiff_t{sizeof(I)} : 0;
    for (;;) {
        std::ptrdiff_t at = 0;
        for (std::size_t i = 0; i < inner; ++i) at += c[i] * l.strides[i];
        const std::byte* row = data + at * std::ptrdiff_t{sizeof(I)};
        for (std::ptrdiff_t k = 0; k < n; ++k) {
            I v;
            std::memcpy(&v, row + k * step, sizeof v);
            if (!index_in_range(v, bound(k).size)) {
                if (l.rank) c[inner] = k;
                return c;
            }
        }
        std::size_t i = inner;
        for (;;) {
            if (i == 0) return std::nullopt;
            --i;
            if (++c[i] < l.extents[i]) break;
            c[i] = 0;
        }
    }
}

/// Checks every index of the index tensor (`data` at its element 0, laid out as `l`) before
/// anything is written; `bound(last_coordinate)` names the axis the index at a coordinate whose
/// last entry is `last_coordinate` addresses (the ND ops' tuple entry; the others ignore it).
template <class Bound>
std::optional<std::string> check_indices(std::string_view op, std::string_view index_field, const std::byte* data,
                                         const layout& l, data_type type, std::string_view sized_field, Bound bound) {
    std::optional<std::array<std::ptrdiff_t, max_plan_rank>> bad;
    switch (type) {
    case data_type::int32: bad = first_index_out_of_range<std::int32_t>(data, l, bound); break;
    case data_type::uint32: bad = first_index_out_of_range<std::uint32_t>(data, l, bound); break;
    case data_type::int64: bad = first_index_out_of_range<std::int64_t>(data, l, bound); break;
    default: bad = first_index_out_of_range<std::uint64_t>(data, l, bound); break;
    }
    if (!bad) return std::nullopt;
    const auto& c = *bad;
    std::ptrdiff_t at = 0;
    for (std::size_t i = 0; i < l.rank; ++i) at += c[i] * l.strides[i];
    const index_bound b = bound(l.rank ? c[l.rank - 1] : 0);
    return index_out_of_range(op, index_field, c, l.rank, read_index(data + at * static_cast<std::ptrdiff_t>(element_size(type)), type),
                              type, sized_field, b.axis, b.size);
}

/// How the gather loop walks: see the file comment. Extents of the walked tensor; its strides;
/// per walked axis the step it makes in the addressed tensor and in the index tensor (elements).
struct gather_plan {
    std::size_t rank = 0;
    std::array<std::ptrdiff_t, max_plan_rank> extent{}, walked_stride{}, addressed_step{}, index_step{};
    std::size_t tuple = 1;          ///< indices per coordinate tuple
    std::ptrdiff_t tuple_step = 0;  ///< index-tensor stride between the entries of one tuple
    std::array<std::ptrdiff_t, max_plan_rank> axis_size{}, axis_stride{}; ///< per tuple entry
    /// Index-tensor axes the walk reads at coordinate 0 alone (GATHER's dropped logical entries):
    /// their other indices are never read, so they are not checked.
    std::array<bool, max_plan_rank> index_axis_dropped{};
    const std::byte* indices = nullptr;
    data_type index_type = data_type::uint32;
    std::size_t width = 0;
};

/// The walked and addressed offsets (elements) at coordinate `c` of the plan's first `axes` axes,
/// the addressed one moved by the indices read there; the gather loop and scatter_duplicates()
/// must place every element alike.
struct plan_offsets {
    std::ptrdiff_t walked = 0, addressed = 0;
};
DMLREF_FUNC plan_offsets offsets_at(const gather_plan& p, const std::array<std::ptrdiff_t, max_plan_rank>& c,
                               std::size_t axes) noexcept
#if DMLREF_DEFINE_FUNCS
{
    const auto iw = static_cast<std::ptrdiff_t>(element_size(p.index_type));
    std::ptrdiff_t walked = 0, addressed = 0, index = 0;
    for (std::size_t j = 0; j < axes; ++j) {
        walked += c[j] * p.walked_stride[j];
        addressed += c[j] * p.addressed_step[j];
        index += c[j] * p.index_step[j];
    }
    for (std::size_t m = 0; m < p.tuple; ++m) {
        const index_value v =
            read_index(p.indices + (index + static_cast<std::ptrdiff_t>(m) * p.tuple_step) * iw, p.index_type);
        addressed += wrap_index(v, p.axis_size[m]).value_or(0) * p.axis_stride[m];
    }
    return {walked, addressed};
}
#else
;
#endif

/// run_gather_plan's element-wise walk (one index per element: GATHER_ELEMENTS, SCATTER_ELEMENTS,
/// GATHER on the innermost axis), for indices of type I and elements of Width bytes: the walked
/// tensor's innermost axis of the first `axes` (those after it have extent 1) in a tight loop,
/// each index read and wrapped in place.
template <class I, std::size_t Width>
void run_element_walk(const gather_plan& p, std::size_t axes, const std::byte* walked_in, std::byte* walked_out,
                      const std::byte* addressed_in, std::byte* addressed_out) noexcept {
    constexpr auto w = static_cast<std::ptrdiff_t>(Width), iw = static_cast<std::ptrdiff_t>(sizeof(I));
    const std::size_t inner = axes - 1;
    const std::ptrdiff_t n = p.extent[inner], ws = p.walked_stride[inner] * w, as = p.addressed_step[inner] * w,
                         is = p.index_step[inner] * iw, size = p.axis_size[0], stride = p.axis_stride[0] * w;
    std::array<std::ptrdiff_t, max_plan_rank> c{};
    for (;;) {
        std::ptrdiff_t walked = 0, addressed = 0, index = 0;
        for (std::size_t j = 0; j < inner; ++j) {
            walked += c[j] * p.walked_stride[j];
            addressed += c[j] * p.addressed_step[j];
            index += c[j] * p.index_step[j];
        }
        const std::byte* at = p.indices + index * iw;
        if (walked_out) {
            std::byte* out = walked_out + walked * w;
            const std::byte* in = addressed_in + addressed * w;
            for (std::ptrdiff_t k = 0; k < n; ++k)
                std::memcpy(out + k * ws, in + k * as + index_position<I>(at + k * is, size) * stride, Width);
        } else {
            const std::byte* in = walked_in + walked * w;
            std::byte* out = addressed_out + addressed * w;
            for (std::ptrdiff_t k = 0; k < n; ++k) // in row-major order: of duplicate targets the last stays
                std::memcpy(out + k * as + index_position<I>(at + k * is, size) * stride, in + k * ws, Width);
        }
        std::size_t j = inner;
        for (;;) {
            if (j == 0) return;
            --j;
            if (++c[j] < p.extent[j]) break;
            c[j] = 0;
        }
    }
}

template <class I>
void run_element_walk(const gather_plan& p, std::size_t axes, const std::byte* walked_in, std::byte* walked_out,
                      const std::byte* addressed_in, std::byte* addressed_out) noexcept {
    switch (p.width) {
    case 1: return run_element_walk<I, 1>(p, axes, walked_in, walked_out, addressed_in, addressed_out);
    case 2: return run_element_walk<I, 2>(p, axes, walked_in, walked_out, addressed_in, addressed_out);
    case 4: return run_element_walk<I, 4>(p, axes, walked_in, walked_out, addressed_in, addressed_out);
    default: return run_element_walk<I, 8>(p, axes, walked_in, walked_out, addressed_in, addressed_out);
    }
}

/// The bytes from which run_gather_plan writes packed blocks with streaming stores (x86-64):
/// the copy engine's threshold for contiguous runs (run_stream_threshold), unless lowered. The
/// tests lower it to reach the streaming path on small tensors. Not synchronised: change it while
/// no gather or scatter runs.
DMLREF_FUNC std::size_t& indexed_stream_bytes() noexcept
#if DMLREF_DEFINE_FUNCS
{
    static std::size_t bytes = run_stream_threshold;
    return bytes;
}
#else
;
#endif

#if DMLREF_DEFINE_FUNCS
/// run_gather_plan's walk of whole rows (`row_bytes`, packed in both tensors) past the caches,
/// its own function so that the walk of smaller tensors keeps its code. With `stream`, the rows
/// go through mover::copy's streaming stores: their whole 64-byte output lines skip the cache and
/// need no read of the line first, as a large memcpy's do; the partial lines at a row's ends go
/// through the cache, so no line is written both ways, and one fence ends the walk. With `fetch`
/// (a gather: its rows lie anywhere in an input larger than the caches, and the hardware
/// prefetchers follow a row for a few lines only), the row `ahead` indices on is fetched while
/// this one is copied (choose_prefetch's distance), the indices read there by a second odometer
/// `ahead` steps in front, which stops at the last.
DMLREF_NOINLINE inline void run_far_rows(const gather_plan& p, std::size_t outer, std::size_t row_bytes,
                                         const std::byte* walked_in, std::byte* walked_out, const std::byte* addressed_in,
                                         std::byte* addressed_out, bool stream, bool fetch) noexcept {
    const auto w = static_cast<std::ptrdiff_t>(p.width);
    std::array<std::ptrdiff_t, max_plan_rank> c{}, f{}; // the row copied, the row fetched
    const auto advance = [&](std::array<std::ptrdiff_t, max_plan_rank>& at) { // false past the last
        for (std::size_t j = outer; j-- > 0;) {
            if (++at[j] < p.extent[j]) return true;
            at[j] = 0;
        }
        return false;
    };
    const auto span = static_cast<std::ptrdiff_t>(row_bytes);
    const std::ptrdiff_t ahead = span >= prefetch_distance || span == 0 ? 1 : prefetch_distance / span;
    for (std::ptrdiff_t k = 0; fetch && k < ahead; ++k) fetch = advance(f);
    for (;;) {
        const auto [walked, addressed] = offsets_at(p, c, outer);
        if (fetch) {
            const std::byte* row = addressed_in + offsets_at(p, f, outer).addressed * w;
            for (std::ptrdiff_t at = 0; at < span; at += prefetch_line) prefetch(row, at);
            fetch = advance(f);
        }
        if (walked_out) mover<1>::copy(walked_out + walked * w, addressed_in + addressed * w, row_bytes, stream);
        else mover<1>::copy(addressed_out + addressed * w, walked_in + walked * w, row_bytes, stream);
        if (!advance(c)) break;
    }
#if DMLREF_STREAM_STORES
    if (stream) stream_fence();
#endif
}
#endif

/// Runs a plan whose indices check_indices accepted. `gather`: walked = output, addressed =
/// input (read); otherwise a scatter: walked = updates (read), addressed = output, written in
/// row-major order of the walked tensor, so that of duplicate targets the last update stays.
/// Packed blocks (whole rows) of a walk that writes indexed_stream_bytes() or more, or of a
/// gather from an input larger than the caches, go to run_far_rows.
DMLREF_FUNC void run_gather_plan(const gather_plan& p, const std::byte* walked_in, std::byte* walked_out,
                            const std::byte* addressed_in, std::byte* addressed_out) noexcept
#if DMLREF_DEFINE_FUNCS
{
    const auto w = static_cast<std::ptrdiff_t>(p.width);
    const bool gather = walked_out != nullptr;
    // The block: trailing axes that never step through the index tensor, copied per index read.
    std::size_t outer = p.rank;
    while (outer > 0 && p.index_step[outer - 1] == 0) --outer;
    std::ptrdiff_t block = 1;
    bool packed = true; // the block is one run of elements in both tensors
    for (std::size_t j = p.rank; j-- > outer;) {
        if (p.extent[j] == 1) continue;
        packed = packed && p.walked_stride[j] == block && p.addressed_step[j] == block;
        block *= p.extent[j];
    }
    if (block == 1 && outer > 0 && p.tuple == 1) { // one index per element
        const auto o = outer;
        switch (p.index_type) {
        case data_type::int32: return run_element_walk<std::int32_t>(p, o, walked_in, walked_out, addressed_in, addressed_out);
        case data_type::uint32: return run_element_walk<std::uint32_t>(p, o, walked_in, walked_out, addressed_in, addressed_out);
        case data_type::int64: return run_element_walk<std::int64_t>(p, o, walked_in, walked_out, addressed_in, addressed_out);
        default: return run_element_walk<std::uint64_t>(p, o, walked_in, walked_out, addressed_in, addressed_out);
        }
    }
    std::array<std::ptrdiff_t, max_plan_rank> c{};
    const auto next_coordinate = [&] { // the odometer over the outer axes; false past the last
        for (std::size_t j = outer; j-- > 0;) {
            if (++c[j] < p.extent[j]) return true;
            c[j] = 0;
        }
        return false;
    };
    if (packed) { // whole rows: in walks past the caches, run_far_rows
        const auto row_bytes = static_cast<std::size_t>(block * w);
        bool stream = false; // the walk writes enough rows to pass the caches
#if DMLREF_STREAM_STORES
        std::size_t written = row_bytes;
        for (std::size_t j = 0; j < outer; ++j) written *= static_cast<std::size_t>(p.extent[j]);
        stream = written >= indexed_stream_bytes();
#endif
        bool fetch = false; // a gather from an input past the caches
        if (gather) {
            std::ptrdiff_t reach = block; // input elements the walk can read from, first to last
            for (std::size_t j = 0; j < outer; ++j)
                reach += (p.extent[j] - 1) * (p.addressed_step[j] < 0 ? -p.addressed_step[j] : p.addressed_step[j]);
            for (std::size_t m = 0; m < p.tuple; ++m) reach += (p.axis_size[m] - 1) * p.axis_stride[m];
            fetch = reach * w >= static_cast<std::ptrdiff_t>(stream_threshold);
        }
        if (stream || fetch)
            return run_far_rows(p, outer, row_bytes, walked_in, walked_out, addressed_in, addressed_out, stream, fetch);
    }
    for (;;) {
        const auto [walked, addressed] = offsets_at(p, c, outer);
        if (packed) {
            if (gather) std::memcpy(walked_out + walked * w, addressed_in + addressed * w, static_cast<std::size_t>(block * w));
            else std::memcpy(addressed_out + addressed * w, walked_in + walked * w, static_cast<std::size_t>(block * w));
        } else {
            std::array<std::ptrdiff_t, max_plan_rank> b{};
            for (;;) {
                std::ptrdiff_t wo = walked, ao = addressed;
                for (std::size_t j = outer; j < p.rank; ++j) {
                    wo += b[j] * p.walked_stride[j];
                    ao += b[j] * p.addressed_step[j];
                }
                if (gather) std::memcpy(walked_out + wo * w, addressed_in + ao * w, p.width);
                else std::memcpy(addressed_out + ao * w, walked_in + wo * w, p.width);
                std::size_t j = p.rank;
                for (;;) {
                    if (j == outer) goto block_done;
                    --j;
                    if (++b[j] < p.extent[j]) break;
                    b[j] = 0;
                }
            }
        }
    block_done:
        if (!next_coordinate()) return;
    }
}
#else
;
#endif

// ---- the desc rules of the family ---------------------------------------------------------------

/// The DML_FEATURE_LEVEL values, for "is this one of DirectML's levels".
constexpr bool is_known_level(feature_level level) noexcept { return to_string(level) != std::string_view("unknown"); }

/// Whether the indexed ops' support tables list data type `type` for data tensors at `level`:
/// FLOAT32 and FLOAT16 below 2_1; the eight types of up to 32 bits from 2_1; the 64-bit ones from 4_1.
constexpr bool indexed_supports_data_type(feature_level level, data_type type) noexcept {
    const bool is_64_bit = type == data_type::float64 || type == data_type::uint64 || type == data_type::int64;
    const bool is_float = type == data_type::float32 || type == data_type::float16;
    if (element_bits(type) < 8) return false;
    if (is_64_bit) return level >= feature_level::fl_4_1;
    return is_float || level >= feature_level::fl_2_1;
}

/// Whether the index tensors may be of `type` at `level`: UINT32 below 3_0; from 3_0 also INT32,
/// INT64 and UINT64 (operator-facts.md §1.4).
constexpr bool indexed_supports_index_type(feature_level level, data_type type) noexcept {
    if (type == data_type::uint32) return true;
    return is_index_type(type) && level >= feature_level::fl_3_0;
}

/// The tensors' rank range at `level`: 4 below 3_0, 1 to 8 from 3_0.
constexpr std::pair<std::size_t, std::size_t> indexed_dimension_range(feature_level level) noexcept {
    return level >= feature_level::fl_3_0 ? std::pair<std::size_t, std::size_t>{1, 8}
                                          : std::pair<std::size_t, std::size_t>{4, 4};
}

/// A tensor desc's extents and element strides (its own, or packed) as a layout.
DMLREF_FUNC layout desc_layout(const buffer_tensor_desc& desc) noexcept
#if DMLREF_DEFINE_FUNCS
{
    layout l;
    l.rank = desc.sizes.size() < max_plan_rank ? desc.sizes.size() : max_plan_rank;
    std::ptrdiff_t packed = 1;
    for (std::size_t i = l.rank; i-- > 0;) {
        l.extents[i] = static_cast<std::ptrdiff_t>(desc.sizes[i]);
        l.strides[i] = desc.strides && i < desc.strides->size() ? static_cast<std::ptrdiff_t>((*desc.strides)[i]) : packed;
        packed = checked_mul(packed, l.extents[i]).value_or(0);
    }
    return l;
}
#else
;
#endif

enum class tensor_role { data, index, data_output };

/// One tensor desc's rules for the indexed ops: DML_BUFFER_TENSOR_DESC's (as operator.hpp's
/// check_tensor states them for the first eight operators) with the family's support tables.
DMLREF_FUNC std::optional<std::string> check_indexed_tensor(std::string_view op, feature_level level, std::string_view field,
                                                       const buffer_tensor_desc& t, tensor_role role)
#if DMLREF_DEFINE_FUNCS
{
    const bool is_output = role == tensor_role::data_output;
    if (t.data_type == data_type::unknown || element_bits(t.data_type) == 0)
        return detail::message("{}: {}.DataType is {}; it must be a DML_TENSOR_DATA_TYPE other than UNKNOWN (1 to 13)",
                               op, field, static_cast<std::uint32_t>(t.data_type));
    if (role == tensor_role::index) {
        if (!indexed_supports_index_type(level, t.data_type))
            return detail::message("{}: {}.DataType {} is not supported at feature level {} (supported: {})", op, field,
                                   to_string(t.data_type), to_string(level),
                                   level >= feature_level::fl_3_0 ? "INT64, INT32, UINT64, UINT32" : "UINT32");
    } else if (!indexed_supports_data_type(level, t.data_type)) {
        return detail::message("{}: {}.DataType {} is not supported at feature level {} (supported: {})", op, field,
                               to_string(t.data_type), to_string(level),
                               level >= feature_level::fl_4_1   ? "FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, "
                                                                  "UINT8, FLOAT64, INT64, UINT64"
                               : level >= feature_level::fl_2_1 ? "FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, "
                                                                  "UINT8"
                                                                : "FLOAT32, FLOAT16");
    }
    const auto flags = static_cast<std::uint32_t>(t.flags);
    if ((flags & ~1u) != 0)
        return detail::message("{}: {}.Flags is {:#x}; the only flag is OWNED_BY_DML (0x1)", op, field, flags);
    if (is_output && t.flags == tensor_flags::owned_by_dml)
        return detail::message("{}: {}.Flags is OWNED_BY_DML, which only input tensors may use", op, field);
    const auto [low, high] = indexed_dimension_range(level);
    const std::size_t dims = t.sizes.size();
    if (dims < low || dims > high)
        return detail::message("{}: {} has {} dimensions (DimensionCount); {} takes {} at feature level {}", op, field,
                               dims, op, low == high ? detail::message("{}", low) : detail::message("{} to {}", low, high),
                               to_string(level));
    for (std::size_t i = 0; i < dims; ++i)
        if (t.sizes[i] == 0)
            return detail::message("{}: {}.Sizes[{}] is 0; a size of zero is invalid in DirectML", op, field, i);
    if (t.strides && t.strides->size() != dims)
        return detail::message("{}: {}.Strides has {} entries; {}.Sizes has {}", op, field, t.strides->size(), field,
                               dims);
    if (const std::uint64_t count = element_count(t.sizes); count > max_element_count)
        return detail::message("{}: {}.Sizes {} hold {} elements; DirectML allows at most {} (2^32 - 1)", op, field,
                               extents_text(t.sizes),
                               count == UINT64_MAX ? std::string("more than 2^64") : detail::message("{}", count),
                               max_element_count);
    const std::uint64_t needed = calc_buffer_tensor_size(t);
    if (needed > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()))
        return detail::message("{}: {}.Strides with {}.Sizes {} reach more than {} bytes (DMLCalcBufferTensorSize); "
                               "dmlref addresses at most that",
                               op, field, field, extents_text(t.sizes), std::numeric_limits<std::ptrdiff_t>::max());
    if (t.total_tensor_size_in_bytes < needed)
        return detail::message("{}: {}.TotalTensorSizeInBytes = {} is less than DMLCalcBufferTensorSize = {}", op, field,
                               t.total_tensor_size_in_bytes, needed);
    if (const std::uint64_t most = max_total_tensor_size_in_bytes(element_size(t.data_type));
        t.total_tensor_size_in_bytes > most)
        return detail::message("{}: {}.TotalTensorSizeInBytes = {} is more than (2^32 - 1) elements of {} bytes = {}; "
                               "DirectML refuses larger buffer tensors",
                               op, field, t.total_tensor_size_in_bytes, element_size(t.data_type), most);
    if (const std::uint32_t a = t.guaranteed_base_offset_alignment;
        a != 0 && ((a & (a - 1)) != 0 || a < min_guaranteed_base_offset_alignment))
        return detail::message("{}: {}.GuaranteedBaseOffsetAlignment = {} must be 0 or a power of two no smaller than "
                               "{} (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)",
                               op, field, a, min_guaranteed_base_offset_alignment);
    return check_layout(op, field, desc_layout(t), is_output);
}
#else
;
#endif

/// The level rules every indexed desc starts with: a DirectML level, at which the op exists.
DMLREF_FUNC std::optional<std::string> check_level(std::string_view op, feature_level level, feature_level introduced)
#if DMLREF_DEFINE_FUNCS
{
    if (!is_known_level(level))
        return detail::message("{}: feature level {:#x} is not one of DirectML's DML_FEATURE_LEVEL values (1_0 = "
                               "0x1000 to 6_4 = 0x6400)",
                               op, static_cast<std::uint32_t>(level));
    if (level < introduced)
        return detail::message("{}: not available at feature level {}; it was introduced in feature level {}", op,
                               to_string(level), to_string(introduced));
    return std::nullopt;
}
#else
;
#endif

/// One named tensor of a desc, for the shared rules below.
struct indexed_tensor_ref {
    std::string_view field;
    const buffer_tensor_desc* desc;
    tensor_role role;
};

/// Each tensor's own rules, then: one DimensionCount for all, and the data tensors of one DataType
/// (the first data tensor's).
DMLREF_FUNC std::optional<std::string> check_indexed_tensors(std::string_view op, feature_level level,
                                                        std::initializer_list<indexed_tensor_ref> tensors)
#if DMLREF_DEFINE_FUNCS
{
    for (const indexed_tensor_ref& t : tensors)
        if (auto m = check_indexed_tensor(op, level, t.field, *t.desc, t.role)) return m;
    const indexed_tensor_ref& first = *tensors.begin();
    const indexed_tensor_ref* first_data = nullptr;
    for (const indexed_tensor_ref& t : tensors) {
        if (t.desc->sizes.size() != first.desc->sizes.size())
            return detail::message("{}: {} has {} dimensions; {} has {}; they must match", op, t.field,
                                   t.desc->sizes.size(), first.field, first.desc->sizes.size());
        if (t.role == tensor_role::index) continue;
        if (!first_data) first_data = &t;
        else if (t.desc->data_type != first_data->desc->data_type)
            return detail::message("{}: {}.DataType {} differs from {}.DataType {}; they must match", op, t.field,
                                   to_string(t.desc->data_type), first_data->field, to_string(first_data->desc->data_type));
    }
    return std::nullopt;
}
#else
;
#endif

/// One bound buffer for check_indexed_buffers.
struct bound_buffer {
    std::string_view field;
    const buffer_tensor_desc* desc;
    std::span<const std::byte> bytes;
};

/// Each buffer holds its tensor's TotalTensorSizeInBytes and honours its alignment; the output
/// buffer (the last) overlaps none of the others.
DMLREF_FUNC std::optional<std::string> check_indexed_buffers(std::string_view op, std::initializer_list<bound_buffer> buffers)
#if DMLREF_DEFINE_FUNCS
{
    for (const bound_buffer& b : buffers) {
        if (b.bytes.size() < b.desc->total_tensor_size_in_bytes)
            return detail::message("{}: the buffer bound to {} has {} bytes; {}.TotalTensorSizeInBytes is {}", op, b.field,
                                   b.bytes.size(), b.field, b.desc->total_tensor_size_in_bytes);
        const auto address = reinterpret_cast<std::uintptr_t>(b.bytes.data());
        if (const std::uint32_t a = b.desc->guaranteed_base_offset_alignment; a != 0 && address % a != 0)
            return detail::message("{}: the buffer bound to {} starts at {:#x}, which is not a multiple of "
                                   "{}.GuaranteedBaseOffsetAlignment = {}",
                                   op, b.field, address, b.field, a);
    }
    const bound_buffer& out = *(buffers.end() - 1);
    const auto out_first = reinterpret_cast<std::uintptr_t>(out.bytes.data());
    for (const bound_buffer& b : buffers) {
        if (&b == &out || b.bytes.empty() || out.bytes.empty()) continue;
        const auto first = reinterpret_cast<std::uintptr_t>(b.bytes.data());
        if (first < out_first + out.bytes.size() && out_first < first + b.bytes.size())
            return detail::message("{}: the buffer bound to {} [{:#x}, +{}) and the buffer bound to {} [{:#x}, +{}) "
                                   "overlap; dmlref does not run in place",
                                   op, b.field, first, b.bytes.size(), out.field, out_first, out.bytes.size());
    }
    return std::nullopt;
}
#else
;
#endif

/// Places a logical shape of `logical_rank` entries into `rank` output axes, right-aligned: fewer
/// entries get leading size-1 axes. Sets `axis_of[l]` to the output axis of logical entry l, or
/// rank for a dropped one. Only GATHER drops entries (the ND operators refuse a longer shape).
/// GATHER's fit, measured on DirectML 1.15.4 (docs/directml.md): the output takes the last `rank`
/// entries of the logical shape, right-aligned, and a dropped entry's axis is read at coordinate 0
/// whatever its size (input {2, 4, 4}, Axis 1, indices {1, 2, 1}, IndexDimensions 2: the logical
/// {2, 2, 1, 4} gives an output {2, 1, 4} of In[0, Indices[0, i, 0], j]). The page's example 3
/// (input {3, 2}, indices {1, 2}, Axis 1, IndexDimensions 2) thus has the output {1, 2}, not {3, 2}.
DMLREF_FUNC void fit_last_entries(std::size_t logical_rank, std::size_t rank,
                             std::array<std::size_t, 2 * max_plan_rank>& axis_of) noexcept
#if DMLREF_DEFINE_FUNCS
{
    for (std::size_t l = 0; l < logical_rank; ++l)
        axis_of[l] = l + rank < logical_rank ? rank : rank + l - logical_rank;
}
#else
;
#endif

} // namespace detail
} // namespace dmlref
