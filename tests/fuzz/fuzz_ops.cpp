// Fuzzer: operator descs and view-level calls built from the fuzzer's bytes.
//
// Descs: validate -> execute, differential against the textbook evaluator (<dmlref/textbook.hpp>).
// Every desc is validated without buffers and then with them; whatever validation accepts is
// executed (on 1 to 3 threads) into buffers with guard bytes on both sides, and must equal, byte
// for byte and guards included, what textbook::execute writes into the same buffer. Whatever it rejects, execute must reject with
// the same message. Views: the typed API called with hostile parameters (offsets near PTRDIFF_MAX,
// strides of PTRDIFF_MIN, block sizes of 2^32) over small valid tensors: it may only refuse with
// validation_error, or copy what the index equation says.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>
#include <dmlref/parallel.hpp>
#include <dmlref/textbook.hpp>

#include "fuzz_input.hpp"
#include "fuzz_several.hpp"

namespace {

using namespace dmlref;
using dmlref_fuzz::input;

[[noreturn]] void fail(const std::string& what, const operator_desc* desc = nullptr) {
    std::fprintf(stderr, "fuzz_ops: %s\n", what.c_str());
    if (desc) std::fprintf(stderr, "desc: %s\n", dmlref::to_string(*desc).c_str());
    std::abort();
}

constexpr std::size_t max_buffer = std::size_t{64} << 10; // bytes executed; larger descs are only validated
// Elements executed: a broadcast tensor (strides 0) holds up to 2^32 - 1 elements in a few bytes,
// and a scatter of 503 million such updates ran for minutes under ASan (a timeout, not a fault).
constexpr std::uint64_t max_elements = std::uint64_t{1} << 20;
constexpr std::size_t guard = 64;
constexpr std::byte guard_byte{0xa5};

constexpr std::array<feature_level, 15> levels = {
    feature_level::fl_1_0, feature_level::fl_2_0, feature_level::fl_2_1, feature_level::fl_3_0,
    feature_level::fl_3_1, feature_level::fl_4_0, feature_level::fl_4_1, feature_level::fl_5_0,
    feature_level::fl_5_1, feature_level::fl_5_2, feature_level::fl_6_0, feature_level::fl_6_1,
    feature_level::fl_6_2, feature_level::fl_6_3, feature_level::fl_6_4};

/// Strides for `sizes`: none (packed), small random ones, packed over a permutation of the axes,
/// or packed with padded rows.
std::optional<std::vector<std::uint32_t>> strides_for(input& in, const std::vector<std::uint32_t>& sizes) {
    const std::size_t rank = sizes.size();
    std::vector<std::uint32_t> strides(rank);
    switch (in.byte() % 4) {
    case 0: return std::nullopt;
    case 1:
        for (auto& s : strides) s = in.u32(40);
        return strides;
    case 2: {
        std::vector<std::size_t> order(rank);
        for (std::size_t i = 0; i < rank; ++i) order[i] = i;
        for (std::size_t i = rank; i > 1; --i) std::swap(order[i - 1], order[in.byte() % i]);
        std::uint64_t packed = 1;
        for (std::size_t k = rank; k-- > 0;) {
            strides[order[k]] = static_cast<std::uint32_t>(packed);
            packed *= sizes[order[k]];
        }
        return strides;
    }
    default: {
        std::uint64_t packed = 1;
        for (std::size_t i = rank; i-- > 0;) {
            strides[i] = static_cast<std::uint32_t>(packed);
            packed *= std::uint64_t{sizes[i]} + in.byte() % 3;
        }
        return strides;
    }
    }
}

buffer_tensor_desc random_tensor(input& in, data_type type, std::vector<std::uint32_t> sizes) {
    buffer_tensor_desc t;
    t.data_type = type;
    if (in.byte() >= 0xf8) t.flags = static_cast<tensor_flags>(in.raw<std::uint32_t>());
    t.strides = strides_for(in, sizes);
    t.sizes = std::move(sizes);
    const std::uint64_t calc = calc_buffer_tensor_size(t);
    const std::uint8_t f = in.byte();
    t.total_tensor_size_in_bytes = f < 0xc0 ? calc + 4 * (f % 3) : f < 0xf0 ? calc - 1 : in.raw<std::uint64_t>();
    if (in.byte() >= 0xf8) t.guaranteed_base_offset_alignment = in.raw<std::uint32_t>();
    return t;
}

std::vector<std::uint32_t> u32s(input& in, std::size_t n, std::uint32_t small) {
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = in.u32(small);
    return v;
}

/// A desc of every kind, its output sizes derived from its input sizes and parameters most of the
/// time (so that many pass validation), anything at all some of the time.
operator_desc make_desc(input& in) {
    // 8: ELEMENT_WISE_IDENTITY, 9: SLICE_GRAD; from 10 on, fuzz_several.hpp's (TILE to ONE_HOT)
    const std::uint8_t op = in.byte() % (10 + dmlref_fuzz::several_count);
    std::uint8_t f = in.byte();
    const auto type = f < 0xf0 ? static_cast<data_type>(1 + f % 11) : static_cast<data_type>(in.raw<std::uint32_t>());
    f = in.byte();
    const auto out_type = f < 0xf8 ? type : static_cast<data_type>(in.byte() % 14);
    f = in.byte();
    const std::size_t rank = op < 4 ? (f < 0xe0 ? 4 : f % 9) : (f < 0xf0 ? 1 + f % 8 : f % 10);
    const bool derive = in.byte() < 0xe0;
    std::vector<std::uint32_t> sizes = u32s(in, rank, 5);
    auto size_at = [&](std::size_t i) { return i < sizes.size() ? std::uint64_t{sizes[i]} : 1; };
    auto out_sizes = [&](auto&& formula) {
        std::vector<std::uint32_t> out(rank);
        for (std::size_t i = 0; i < rank; ++i) out[i] = derive ? static_cast<std::uint32_t>(formula(i)) : in.u32(9);
        return out;
    };
    if (op < 4) { // depth/space
        const std::uint32_t block = in.u32(6);
        const auto order = static_cast<depth_space_order>(in.u32(3));
        const bool to_space = op < 2;
        const std::uint64_t b = block;
        if (derive && rank == 4) { // shape the input so the block divides it
            if (to_space) sizes[1] = static_cast<std::uint32_t>(size_at(1) * b * b);
            else sizes[2] = static_cast<std::uint32_t>(size_at(2) * b), sizes[3] = static_cast<std::uint32_t>(size_at(3) * b);
        }
        const auto out = out_sizes([&](std::size_t i) -> std::uint64_t {
            if (i == 0 || b == 0) return size_at(i);
            if (to_space) return i == 1 ? size_at(1) / (b * b) : size_at(i) * b;
            return i == 1 ? size_at(1) * b * b : size_at(i) / b;
        });
        buffer_tensor_desc x = random_tensor(in, type, sizes), y = random_tensor(in, out_type, out);
        switch (op) {
        case 0: return depth_to_space_desc{x, y, block};
        case 1: return depth_to_space1_desc{x, y, block, order};
        case 2: return space_to_depth_desc{x, y, block};
        default: return space_to_depth1_desc{x, y, block, order};
        }
    }
    if (op >= 10)
        return dmlref_fuzz::make_several(
            in, static_cast<std::uint8_t>(op - 10), type, out_type, sizes,
            [&](data_type t, std::vector<std::uint32_t> s) { return random_tensor(in, t, std::move(s)); }, out_sizes);
    if (op == 8) { // ELEMENT_WISE_IDENTITY: the output has the input's sizes; a ScaleBias now and then
        element_wise_identity_desc d{random_tensor(in, type, sizes), random_tensor(in, out_type, out_sizes([&](std::size_t i) {
                                                                                      return size_at(i);
                                                                                  })),
                                     std::nullopt};
        if (in.byte() >= 0xf8) d.scale_bias = scale_bias{in.raw<float>(), in.raw<float>()};
        return d;
    }
    f = in.byte();
    const std::size_t n = f < 0xf0 ? rank : f % 10; // the op arrays' length, DimensionCount
    auto at = [](const std::vector<std::uint32_t>& v, std::size_t i) { return i < v.size() ? std::uint64_t{v[i]} : 0; };
    if (op == 4) { // SLICE: output sizes are Sizes
        const auto offsets = u32s(in, n, 4), strides = u32s(in, n, 4);
        std::vector<std::uint32_t> counts(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t room = size_at(i) > at(offsets, i) ? size_at(i) - at(offsets, i) : 1;
            const std::uint64_t step = at(strides, i) ? at(strides, i) : 1;
            counts[i] = derive ? static_cast<std::uint32_t>(1 + (room - 1) / step - in.byte() % 2) : in.u32(9);
        }
        const auto out = out_sizes([&](std::size_t i) { return at(counts, i); });
        return slice_desc{random_tensor(in, type, sizes), random_tensor(in, out_type, out), offsets, counts, strides};
    }
    if (op == 5) { // SLICE1
        const auto offsets = u32s(in, n, 4);
        std::vector<std::uint32_t> window(n);
        std::vector<std::int32_t> strides(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t room = size_at(i) > at(offsets, i) ? size_at(i) - at(offsets, i) : 1;
            window[i] = derive ? static_cast<std::uint32_t>(room - in.byte() % 2) : in.u32(9);
            strides[i] = in.i32(4);
        }
        const auto out = out_sizes([&](std::size_t i) -> std::uint64_t {
            const std::int64_t s = i < n ? strides[i] : 1;
            const std::uint64_t m = s < 0 ? static_cast<std::uint64_t>(-s) : static_cast<std::uint64_t>(s);
            return m == 0 || at(window, i) == 0 ? 1 : 1 + (at(window, i) - 1) / m;
        });
        return slice1_desc{random_tensor(in, type, sizes), random_tensor(in, out_type, out), offsets, window, strides};
    }
    if (op == 9) { // SLICE_GRAD: `sizes` are the output gradient's; the input gradient's count from the offset
        const auto offsets = u32s(in, n, 4);
        std::vector<std::uint32_t> window(n);
        std::vector<std::int32_t> strides(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t room = size_at(i) > at(offsets, i) ? size_at(i) - at(offsets, i) : 1;
            window[i] = derive ? static_cast<std::uint32_t>(room - in.byte() % 2) : in.u32(9);
            strides[i] = in.i32(4);
        }
        const auto grad = out_sizes([&](std::size_t i) -> std::uint64_t {
            const std::int64_t s = i < n ? strides[i] : 1;
            const std::uint64_t m = s < 0 ? static_cast<std::uint64_t>(-s) : static_cast<std::uint64_t>(s);
            const std::uint64_t room = size_at(i) > at(offsets, i) ? size_at(i) - at(offsets, i) : 1;
            return m == 0 ? 1 : 1 + (room - 1) / m - in.byte() % 2;
        });
        return slice_grad_desc{random_tensor(in, type, grad), random_tensor(in, out_type, sizes), offsets, window, strides};
    }
    const auto start = u32s(in, n, 7), end = u32s(in, n, 7);
    const auto mode = static_cast<padding_mode>(in.u32(6));
    const auto out = out_sizes([&](std::size_t i) { return size_at(i) + at(start, i) + at(end, i); });
    if (op == 6) return padding_desc{random_tensor(in, type, sizes), random_tensor(in, out_type, out), mode, in.raw<float>(), start, end};
    f = in.byte();
    const auto value_type = f < 0xf0 ? out_type : static_cast<data_type>(in.byte() % 14);
    scalar_union value;
    value.bytes = in.raw<std::array<std::uint8_t, 8>>();
    return padding1_desc{random_tensor(in, type, sizes), random_tensor(in, out_type, out), mode, value_type, value, start, end};
}

/// A buffer of `size` bytes between two guards.
struct guarded {
    std::vector<std::byte> all;
    explicit guarded(std::size_t size, std::byte fill) : all(size + 2 * guard, guard_byte) {
        std::fill(all.begin() + guard, all.end() - guard, fill);
    }
    std::span<std::byte> inside() { return {all.data() + guard, all.size() - 2 * guard}; }
    bool guards_intact() const {
        return std::all_of(all.begin(), all.begin() + guard, [](std::byte b) { return b == guard_byte; }) &&
               std::all_of(all.end() - guard, all.end(), [](std::byte b) { return b == guard_byte; });
    }
};

void fuzz_desc(input& in) {
    const operator_desc desc = make_desc(in);
    std::uint8_t f = in.byte();
    const feature_level level = f % 16 < 15 ? levels[f % 16] : static_cast<feature_level>(in.raw<std::uint32_t>());
    const std::optional<std::string> rule = validate(desc, level);
    static const bool verbose = std::getenv("DMLREF_FUZZ_VERBOSE") != nullptr; // to read what a saved input is
    if (verbose) std::fprintf(stderr, "desc: %s\nvalidate: %s\n", dmlref::to_string(desc).c_str(), rule ? rule->c_str() : "valid");
    const std::vector<bound_tensor> in_tensors = inputs_of(desc), out_tensors = outputs_of(desc);
    for (const auto* list : {&in_tensors, &out_tensors})
        for (const bound_tensor& t : *list)
            if (t.desc().total_tensor_size_in_bytes > max_buffer || element_count(t.desc().sizes) > max_elements) return;
    // One buffer per tensor, of the desc's size or a little off it (the last input longer, the
    // last output one byte short); inputs hold a pattern, or indices and lengths drawn from the
    // fuzzer's bytes; outputs a fill that shows what was written.
    f = in.byte();
    std::vector<guarded> xs, ys;
    for (std::size_t k = 0; k < in_tensors.size(); ++k) {
        const buffer_tensor_desc& t = in_tensors[k].desc();
        xs.emplace_back(static_cast<std::size_t>(t.total_tensor_size_in_bytes) + (k + 1 == in_tensors.size() && f >= 0xf8 ? f % 8 : 0),
                        std::byte{0});
        const std::span<std::byte> x = xs.back().inside();
        if (dmlref_fuzz::is_index_field(in_tensors[k].field)) dmlref_fuzz::index_bytes(in, t.data_type, x);
        else
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::byte>(i * 131 + 7 + k);
    }
    for (std::size_t k = 0; k < out_tensors.size(); ++k) {
        const std::uint64_t size = out_tensors[k].desc().total_tensor_size_in_bytes;
        ys.emplace_back(static_cast<std::size_t>(size) - (k + 1 == out_tensors.size() && f >= 0xf0 && f < 0xf8 && size > 0 ? 1 : 0),
                        std::byte{0x5a});
    }
    std::vector<std::span<const std::byte>> ins;
    std::vector<std::span<std::byte>> outs;
    for (guarded& x : xs) ins.push_back(x.inside());
    for (guarded& y : ys) outs.push_back(y.inside());
    // A desc of one input and one output goes through the one-buffer overloads, the others
    // through the overloads over one buffer per tensor.
    const bool single = binds_one_input_and_output(type_of(desc));
    const std::optional<std::string> with_buffers =
        single ? validate(desc, ins[0], outs[0], level) : validate(desc, std::span(ins), std::span(outs), level);
    if (rule && !with_buffers) fail("validate accepts with buffers what it rejects without: " + *rule, &desc);

    auto guards_intact = [&] {
        return std::all_of(xs.begin(), xs.end(), [](const guarded& g) { return g.guards_intact(); }) &&
               std::all_of(ys.begin(), ys.end(), [](const guarded& g) { return g.guards_intact(); });
    };
    auto outputs = [&] {
        std::vector<std::vector<std::byte>> v;
        for (const auto& o : outs) v.emplace_back(o.begin(), o.end());
        return v;
    };
    auto outputs_equal = [&](const std::vector<std::vector<std::byte>>& v) {
        for (std::size_t k = 0; k < outs.size(); ++k)
            if (!std::equal(v[k].begin(), v[k].end(), outs[k].begin())) return false;
        return true;
    };
    auto restore = [&](const std::vector<std::vector<std::byte>>& v) {
        for (std::size_t k = 0; k < outs.size(); ++k) std::copy(v[k].begin(), v[k].end(), outs[k].begin());
    };
    const auto before = outputs();
    const std::size_t threads = in.byte() % 4;
    const execution_options options{threads, std::size_t{in.byte() % 2u ? 0u : 64u}};
    std::optional<std::string> refused; // what execute refused, past validation
    try {
        if (single && threads <= 1) execute(desc, ins[0], outs[0], level);
        else if (single) execute(desc, ins[0], outs[0], options, level);
        else if (threads <= 1) execute(desc, std::span(ins), std::span(outs), level);
        else execute(desc, std::span(ins), std::span(outs), options, level);
        if (with_buffers) fail("execute ran what validate rejects: " + *with_buffers, &desc);
    } catch (const validation_error& e) {
        if (with_buffers && *with_buffers != e.what())
            fail("execute and validate disagree: '" + *with_buffers + "' / '" + e.what() + "'", &desc);
        // Past validation, only an index or length the data holds may be refused.
        if (!with_buffers && !has_data_dependent_mapping(type_of(desc)))
            fail(std::string("execute rejected what validate accepts: ") + e.what(), &desc);
        refused = e.what();
    }
    if (!guards_intact()) fail("a guard byte changed", &desc);
    if (with_buffers || refused) {
        if (!outputs_equal(before)) fail("a rejected desc wrote its output", &desc);
        if (with_buffers) return;
    }
    // The evaluator writes into the same buffers, started from the same bytes: a copy elsewhere
    // might miss the desc's GuaranteedBaseOffsetAlignment. It refuses what execute refused, or
    // writes what execute wrote.
    const auto got = outputs();
    restore(before);
    try {
        if (single) textbook::execute(desc, ins[0], outs[0], level);
        else textbook::execute(desc, std::span(ins), std::span(outs), level);
        if (refused) fail("textbook::execute ran what execute refuses: " + *refused, &desc);
    } catch (const validation_error& e) {
        // (An index the data holds out of range: the evaluator checks it on its own, in its own words.)
        if (!refused) fail(std::string("textbook::execute rejected what execute ran: ") + e.what(), &desc);
        // (The evaluator may have written part of the output first, as textbook.hpp says.)
        return;
    }
    if (!guards_intact()) fail("textbook::execute changed a guard byte", &desc);
    if (!outputs_equal(got)) fail("the output differs from the textbook evaluator", &desc);
}

/// The typed API with hostile parameters over small, valid, packed (or reversed) 4-D tensors.
void fuzz_views(input& in) {
    index_array<4> in_extents{}, out_extents{};
    for (auto& e : in_extents) e = 1 + in.byte() % 4;
    tensor<std::uint8_t, 4> x(in_extents);
    for (std::size_t i = 0; i < x.values().size(); ++i) x.values()[i] = static_cast<std::uint8_t>(i * 13 + 1);
    strided_view<const std::uint8_t, 4> source = x.view();
    if (in.byte() % 2) { // the last axis reversed: offset at its end, stride -1
        index_array<4> strides = source.strides();
        strides[3] = -1;
        source = {x.data(), in_extents, strides, in_extents[3] - 1};
    }
    index_array<4> a{}, b{}, c{};
    for (std::size_t i = 0; i < 4; ++i) a[i] = in.index(4), b[i] = in.index(4), c[i] = in.index(3);
    const std::uint8_t op = in.byte() % 5;
    // Output extents: what the parameters imply where that is small, anything small otherwise.
    for (std::size_t i = 0; i < 4; ++i) {
        std::ptrdiff_t want = 0;
        if (op == 0) want = c[i] == 0 || b[i] < 1 || c[i] < -64 || c[i] > 64 ? 0 : 1 + (b[i] - 1) / (c[i] < 0 ? -c[i] : c[i]);
        if (op == 1 && a[i] >= 0 && b[i] >= 0 && a[i] <= 64 && b[i] <= 64) want = in_extents[i] + a[i] + b[i];
        out_extents[i] = want >= 1 && want <= 64 ? want : 1 + in.byte() % 4;
    }
    const std::ptrdiff_t block = in.index(3);
    if (op >= 2 && block >= 1 && block <= 4) {
        const bool to_space = op == 2;
        out_extents = in_extents;
        if (to_space) out_extents = {in_extents[0], std::max<std::ptrdiff_t>(1, in_extents[1] / (block * block)), in_extents[2] * block, in_extents[3] * block};
        else out_extents = {in_extents[0], in_extents[1] * block * block, std::max<std::ptrdiff_t>(1, in_extents[2] / block), std::max<std::ptrdiff_t>(1, in_extents[3] / block)};
    }
    tensor<std::uint8_t, 4> y(out_extents), z(out_extents);
    // The typed op, then the textbook's overload of it with the same arguments: both refuse with
    // the same message, or both write the same output.
    auto both = [&](const char* name, auto&& op_call, auto&& textbook_call) {
        std::optional<std::string> refused, refused_textbook;
        try {
            op_call();
        } catch (const validation_error& e) {
            refused = e.what();
        }
        try {
            textbook_call();
        } catch (const validation_error& e) {
            refused_textbook = e.what();
        }
        if (refused != refused_textbook)
            fail(std::string(name) + ": the op and textbook refuse differently: '" + refused.value_or("(ran)") + "' / '" +
                 refused_textbook.value_or("(ran)") + "'");
        if (!refused && !std::equal(y.values().begin(), y.values().end(), z.values().begin()))
            fail(std::string(name) + ": the output differs from textbook's");
        return !refused;
    };
    switch (op) {
    case 0: {
        const bool ran = both(
            "slice", [&] { slice<std::uint8_t, 4>(source, y.view(), a, b, c); },
            [&] { textbook::slice<std::uint8_t, 4>(source, z.view(), a, b, c); });
        if (!ran) break;
        // It ran: every output element is the element the equation names.
        for (std::ptrdiff_t i0 = 0; i0 < out_extents[0]; ++i0)
            for (std::ptrdiff_t i1 = 0; i1 < out_extents[1]; ++i1)
                for (std::ptrdiff_t i2 = 0; i2 < out_extents[2]; ++i2)
                    for (std::ptrdiff_t i3 = 0; i3 < out_extents[3]; ++i3) {
                        const index_array<4> o{i0, i1, i2, i3};
                        index_array<4> s{};
                        for (std::size_t i = 0; i < 4; ++i) s[i] = a[i] + (c[i] < 0 ? b[i] - 1 : 0) + c[i] * o[i];
                        if (y.view()[o] != source[s]) fail("slice: an element differs from the index equation");
                    }
        try {
            (void)slice_view(source, a, b, c);
        } catch (const validation_error&) {
        }
        break;
    }
    case 1: {
        const auto mode = static_cast<padding_mode>(in.byte() % 6);
        const std::uint8_t value = in.byte();
        both(
            "pad", [&] { pad<std::uint8_t, 4>(source, y.view(), mode, value, a, b); },
            [&] { textbook::pad<std::uint8_t, 4>(source, z.view(), mode, value, a, b); });
        break;
    }
    case 2:
    case 3: {
        const auto order = static_cast<depth_space_order>(in.byte() % 3);
        if (op == 2)
            both(
                "depth_to_space", [&] { depth_to_space<std::uint8_t>(source, y.view(), block, order); },
                [&] { textbook::depth_to_space<std::uint8_t>(source, z.view(), block, order); });
        else
            both(
                "space_to_depth", [&] { space_to_depth<std::uint8_t>(source, y.view(), block, order); },
                [&] { textbook::space_to_depth<std::uint8_t>(source, z.view(), block, order); });
        break;
    }
    default:
        try {
            (void)slice_view(source, a, b, c);
        } catch (const validation_error&) {
        }
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    input in({data, size});
    if (in.byte() % 4 == 0) fuzz_views(in);
    else fuzz_desc(in);
    return 0;
}
