// Every fast path of the copy engine and its edges, against the textbook evaluator: contiguous runs,
// runs between fills, reversed runs, stride-2 runs, broadcast runs, strided runs, interleave and
// de-interleave of each block size, padding gathers at the fold edges, fills, rank 8, strided
// inputs and outputs, and the thread split. Lengths cover the vector loops' bodies and tails (0
// to 2 vectors plus 0 to lanes - 1 elements) at every element width. Buffers are exactly
// TotalTensorSizeInBytes, so the sanitizer build catches a kernel that reads or writes one byte
// too far.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/parallel.hpp>
#include <dmlref/textbook.hpp>

using namespace dmlref;
using dmlref::detail::inner_shape;

namespace {

constexpr data_type width_types[] = {data_type::uint8, data_type::float16, data_type::float32, data_type::int64};

/// PADDING1's value set through the member of `type`'s width, the rest of the union zero: the
/// element is `value`'s low bytes. (DirectML clamps an 8- or 16-bit type's first 4 union bytes, so
/// the raw `scalar_union::of(value)` would give those types all ones: DECISIONS 2.)
scalar_union member_value(data_type type, std::uint64_t value) {
    scalar_union u;
    std::memcpy(u.bytes.data(), &value, element_size(type)); // little-endian: the low bytes
    return u;
}

std::vector<std::byte> random_bytes(std::mt19937& rng, std::uint64_t count) {
    std::vector<std::byte> bytes(count);
    for (std::byte& b : bytes) b = static_cast<std::byte>(rng() & 0xff);
    return bytes;
}

/// Runs `desc` through `run(input, output)` and the textbook evaluator on random input and random
/// initial output bytes; both results must be identical (so bytes outside the tensor stay as they were).
template <class Run> void matches_naive_through(const operator_desc& desc, Run run) {
    std::mt19937 rng(12345);
    const auto in_bytes = inputs_of(desc).front().desc().total_tensor_size_in_bytes;
    const auto out_bytes = outputs_of(desc).front().desc().total_tensor_size_in_bytes;
    const std::vector<std::byte> input = random_bytes(rng, in_bytes);
    std::vector<std::byte> output = random_bytes(rng, out_bytes);
    std::vector<std::byte> expected = output;
    textbook::execute(desc, input, expected);
    run(input, output);
    // The first differing byte, not the whole buffers: Catch2 would print every byte of both.
    const auto differs = std::mismatch(output.begin(), output.end(), expected.begin()).first - output.begin();
    CAPTURE(output.size());
    REQUIRE(differs == static_cast<std::ptrdiff_t>(output.size()));
}

/// `desc` through the library, on `threads` threads, whatever the output's size (execute() gives
/// each thread at least 64 KiB: detail::execute_parts splits the rows however few they are).
void matches_naive(const operator_desc& desc, std::size_t threads = 1) {
    matches_naive_through(desc, [&](const auto& input, auto& output) {
        if (threads <= 1) return execute(desc, input, output, execution_options{threads, 1});
        std::vector<std::ptrdiff_t> tables;
        detail::execute_parts(detail::prepare(detail::checked_plan(desc, input, output, newest_feature_level, tables)), threads);
    });
}

/// `desc` through the engine with the switches of outputs larger than the caches forced on:
/// streaming stores (`stream`), and with `runs` contiguous runs streamed too (`stream_runs`). The
/// kernels' DRAM-size paths, on tensors small enough to test at every edge.
void matches_naive_streamed(const operator_desc& desc, bool runs) {
    matches_naive_through(desc, [&](const auto& input, auto& output) {
        std::vector<std::ptrdiff_t> tables;
        detail::prepared_plan p = detail::prepare(detail::checked_plan(desc, input, output, newest_feature_level, tables));
        p.stream = DMLREF_STREAM_STORES == 1;
        p.stream_runs = p.stream && runs;
        detail::execute_part(p, 0, p.rows);
    });
}

/// Runs plan `p` in consecutive row ranges of 1 to `longest` rows, their ends drawn from `cuts`:
/// the ranges a thread may be given, cut anywhere.
void execute_in_random_parts(const detail::prepared_plan& p, std::mt19937& cuts, std::uint32_t longest) {
    for (std::ptrdiff_t first = 0; first < p.rows;) {
        const std::ptrdiff_t last = std::min<std::ptrdiff_t>(p.rows, first + 1 + static_cast<std::ptrdiff_t>(cuts() % longest));
        detail::execute_part(p, first, last);
        first = last;
    }
}

/// `desc` through the library whole and on 2 and 3 threads, and through the engine in random
/// parts of at most `longest` rows.
void matches_naive_whole_threaded_and_cut(const operator_desc& desc, std::mt19937& cuts, std::uint32_t longest) {
    matches_naive(desc);
    for (std::size_t threads : {2u, 3u}) matches_naive(desc, threads);
    matches_naive_through(desc, [&](const auto& input, auto& output) {
        std::vector<std::ptrdiff_t> tables;
        execute_in_random_parts(detail::prepare(detail::checked_plan(desc, input, output, newest_feature_level, tables)),
                                cuts, longest);
    });
}

/// The engine's prepared plan of `desc` (no buffers) with `width`-byte elements, 0 for the desc's
/// own; `tables` keeps the padding tables it points into.
detail::prepared_plan prepared(const operator_desc& desc, std::vector<std::ptrdiff_t>& tables, std::size_t width = 0) {
    detail::copy_plan plan = std::visit(single_tensor_only{"prepared", [&](const auto& d) { return detail::plan_desc(d, tables); }}, desc);
    plan.width = width != 0 ? width : element_size(data_type_of(desc));
    return detail::prepare(plan);
}

/// The inner kernel the engine picks for `desc`.
inner_shape shape_of(const operator_desc& desc) {
    std::vector<std::ptrdiff_t> tables;
    return prepared(desc, tables, 4).shape;
}

buffer_tensor_desc packed(data_type type, std::vector<std::uint32_t> sizes) {
    return make_buffer_tensor_desc(type, std::move(sizes));
}

/// A 2-D slice {rows, n} of a {rows, in_n} input: window [offset, offset + window) with `stride` on the last axis.
slice1_desc row_slice(data_type type, std::uint32_t rows, std::uint32_t in_n, std::uint32_t n, std::uint32_t offset,
                      std::uint32_t window, std::int32_t stride) {
    return {packed(type, {rows, in_n}), packed(type, {rows, n}), {0, offset}, {rows, window}, {1, stride}};
}

/// Holds the engine to one byte-shuffle kernel level for the guard's life.
struct shuffle_level {
    explicit shuffle_level(detail::shuffles level) noexcept { detail::shuffles_allowed() = level; }
    ~shuffle_level() { detail::shuffles_allowed() = detail::shuffles::vbmi; }
    shuffle_level(const shuffle_level&) = delete;
    shuffle_level& operator=(const shuffle_level&) = delete;
};

/// `body()` once per byte-shuffle kernel level this processor has (scalar, SSSE3, AVX-512 VBMI),
/// the engine held to it: a machine with the widest kernels also tests the narrower ones, which
/// are the widest on processors without them. With `narrower_only`, the widest level is left out.
template <class Body> void at_every_shuffle_level(Body body, bool narrower_only = false) {
    const detail::shuffles found = detail::shuffles_here();
    for (const auto level : {detail::shuffles::none, detail::shuffles::ssse3, detail::shuffles::vbmi}) {
        if (level > found || (narrower_only && level == found)) break;
        const shuffle_level held(level);
        CAPTURE(static_cast<int>(level));
        REQUIRE(detail::shuffles_here() == level);
        body();
    }
}

/// `body(type, b, order, w)` for the depth/space cases: every element width, block sizes 1 to 5,
/// both orders, and rows of 1 to 130 elements (the vector steps, the steps after them and the tails).
template <class Body> void for_each_depth_space_case(Body body) {
    for (data_type type : width_types)
        for (std::uint32_t b : {1u, 2u, 3u, 4u, 5u})
            for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth})
                for (std::uint32_t w : {1u, 3u, 4u, 7u, 9u, 17u, 33u, 65u, 83u, 130u}) {
                    CAPTURE(to_string(type), b, static_cast<int>(order), w);
                    body(type, b, order, w);
                }
}

} // namespace

TEST_CASE("contiguous runs of every length and width are copied", "[engine]") {
    for (data_type type : width_types)
        for (std::uint32_t n = 1; n <= 40; ++n) {
            CAPTURE(to_string(type), n);
            matches_naive(row_slice(type, 3, n + 5, n, 2, n, 1));
        }
}

TEST_CASE("reversed runs: vector body, unrolled body, byte swaps and tails at every width", "[engine]") {
    for (data_type type : width_types)
        for (std::uint32_t n = 1; n <= 40; ++n) {
            CAPTURE(to_string(type), n);
            // The window ends at the last element of each row but one, and at the row's very end.
            matches_naive(row_slice(type, 3, n + 1, n, 0, n, -1));
            matches_naive(row_slice(type, 2, n + 1, n, 1, n, -1));
        }
    CHECK(shape_of(row_slice(data_type::float32, 4, 16, 16, 0, 16, -1)) == inner_shape::rows);
}

TEST_CASE("stride-2 runs read nothing past the last element they copy", "[engine]") {
    for (data_type type : width_types)
        for (std::uint32_t n = 1; n <= 40; ++n) {
            CAPTURE(to_string(type), n);
            // A one-row input that ends exactly at the last element read (2n - 1 elements).
            matches_naive(row_slice(type, 1, 2 * n - 1, n, 0, 2 * n - 1, 2));
            matches_naive(row_slice(type, 2, 2 * n + 3, n, 1, 2 * n, 2));
            matches_naive(row_slice(type, 2, 2 * n + 3, n, 0, 2 * n + 1, -2));
        }
}

TEST_CASE("other strides, and runs that stop short of their window", "[engine]") {
    for (data_type type : width_types)
        for (std::int32_t stride : {3, -3, 5, 9, -9})
            for (std::uint32_t n = 1; n <= 9; ++n) {
                CAPTURE(to_string(type), stride, n);
                const auto magnitude = static_cast<std::uint32_t>(stride < 0 ? -stride : stride);
                const std::uint32_t window = (n - 1) * magnitude + 1;
                matches_naive(row_slice(type, 2, window + 2, n, 1, window, stride));
                if (n > 1) matches_naive(row_slice(type, 2, window + 2, n - 1, 1, window, stride)); // output shorter than the window
            }
}

TEST_CASE("depth to space interleaves B rows for every block size, order, width and odd widths", "[engine]") {
    at_every_shuffle_level([] {
        for_each_depth_space_case([](data_type type, std::uint32_t b, depth_space_order order, std::uint32_t w) {
            const std::vector<std::uint32_t> in{2, 2 * b * b, 3, w}, out{2, 2, 3 * b, w * b};
            const operator_desc d = depth_to_space1_desc{packed(type, in), packed(type, out), b, order};
            matches_naive(d);
            if (b >= 2 && b <= 4 && w > 1) CHECK(shape_of(d) == inner_shape::interleave);
        });
    });
}

TEST_CASE("space to depth de-interleaves into B rows for every block size, order, width and odd widths", "[engine]") {
    at_every_shuffle_level([] {
        for_each_depth_space_case([](data_type type, std::uint32_t b, depth_space_order order, std::uint32_t w) {
            const std::vector<std::uint32_t> in{2, 3, 2 * b, w * b}, out{2, 3 * b * b, 2, w};
            const operator_desc d = space_to_depth1_desc{packed(type, in), packed(type, out), b, order};
            matches_naive(d);
            if (b >= 2 && b <= 4 && w > 1) CHECK(shape_of(d) == inner_shape::deinterleave);
        });
    });
}

TEST_CASE("space to depth writes output rows far apart one row axis at a time", "[engine]") {
    // With B > 2 and the B * B output rows of input order spread over more than far_apart bytes,
    // the lead (pointer-stepped) axis is the output row axis; otherwise input order, with the
    // block-row axis as the lead. An output-row axis over more than pass_tile input bytes splits
    // into tiles walked outside the block-row axis. All must copy the same, split across threads or not.
    struct case_t {
        data_type type;
        std::vector<std::uint32_t> in;
        std::uint32_t b;
        depth_space_order order;
        bool by_output_rows;
        std::size_t outer_axes;
    };
    const auto dcr = depth_space_order::depth_column_row, crd = depth_space_order::column_row_depth;
    const case_t cases[] = {
        // rows 274 KB apart, 2.5 MB in all; the output-row axis (16 channels x 65 rows of 2376
        // bytes) in 4 tiles of 260 rows: batch, tile, block row, output row
        {data_type::float32, {2, 16, 195, 198}, 3, dcr, true, 4},
        {data_type::float32, {1, 2, 390, 393}, 3, crd, true, 3},   // rows 68 KB apart, 613 KB in all, no tiles
        {data_type::uint8, {1, 16, 256, 260}, 4, dcr, true, 3},    // 16 rows 66 KB apart; 2 tiles of 512 rows
        {data_type::float32, {2, 4, 96, 99}, 3, crd, false, 3},    // rows 4 KB apart
        {data_type::float32, {1, 16, 256, 258}, 2, dcr, false, 2}, // block 2: input order at any spread
    };
    for (const case_t& c : cases) {
        const std::uint32_t b = c.b;
        const std::vector<std::uint32_t> out{c.in[0], c.in[1] * b * b, c.in[2] / b, c.in[3] / b};
        const operator_desc d = space_to_depth1_desc{packed(c.type, c.in), packed(c.type, out), b, c.order};
        CAPTURE(to_string(c.type), c.in, b, static_cast<int>(c.order));
        std::vector<std::ptrdiff_t> tables;
        const detail::prepared_plan p = prepared(d, tables);
        REQUIRE(p.shape == inner_shape::deinterleave);
        const std::ptrdiff_t lead_stride = p.plan.axes[p.outer_rank - 1].out_stride;
        CHECK((lead_stride == static_cast<std::ptrdiff_t>(out[3])) == c.by_output_rows);
        CHECK(p.outer_rank == c.outer_axes);
        at_every_shuffle_level([&] {
            for (std::size_t threads : {1u, 3u}) {
                CAPTURE(threads);
                matches_naive(d, threads);
            }
        });
    }
}

TEST_CASE("space to depth walked row by row from an input broadcast along its rows", "[engine]") {
    // A zero stride on H gives the output-row axis a zero input step: nothing to tile, and the
    // tile size must not divide by it.
    for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
        CAPTURE(static_cast<int>(order));
        const auto in = make_buffer_tensor_desc(data_type::float32, {1, 16, 195, 198},
                                                std::vector<std::uint32_t>{198, 198, 0, 1});
        const operator_desc d = space_to_depth1_desc{in, packed(data_type::float32, {1, 144, 65, 66}), 3, order};
        std::vector<std::ptrdiff_t> tables;
        const detail::prepared_plan p = prepared(d, tables);
        REQUIRE(p.shape == inner_shape::deinterleave);
        CHECK(p.plan.axes[p.outer_rank - 1].pieces[0].step == 0); // the lead axis: the output rows
        matches_naive(d);
    }
}

TEST_CASE("depth/space with padded-row inputs and outputs and with a permuted output layout", "[engine]") {
    for (data_type type : width_types)
        for (std::uint32_t b : {2u, 3u}) {
            CAPTURE(to_string(type), b);
            const std::uint32_t c = b * b, h = 3, w = 10;
            // Input rows 5 elements longer than they need; output packed.
            const auto in = make_buffer_tensor_desc(type, {1, c, h, w}, std::vector<std::uint32_t>{c * h * (w + 5), h * (w + 5), w + 5, 1});
            matches_naive(depth_to_space1_desc{in, packed(type, {1, 1, h * b, w * b}), b, depth_space_order::column_row_depth});
            // Output channels innermost in memory (NHWC): the engine walks it in its own memory order.
            const std::uint32_t oc = c, oh = h, ow = w / 2 * 2;
            const auto space = packed(type, {1, 1, oh * b, ow * b});
            const auto nhwc = make_buffer_tensor_desc(type, {1, oc, oh, ow}, std::vector<std::uint32_t>{oc * oh * ow, 1, ow * oc, oc});
            matches_naive(space_to_depth1_desc{space, nhwc, b, depth_space_order::depth_column_row});
        }
}

TEST_CASE("broadcast inputs: a zero input stride on the innermost and on outer axes", "[engine]") {
    for (data_type type : width_types)
        for (std::uint32_t n : {1u, 2u, 7u, 33u}) {
            CAPTURE(to_string(type), n);
            const auto in = make_buffer_tensor_desc(type, {3, 4, n}, std::vector<std::uint32_t>{4, 1, 0});
            matches_naive(slice1_desc{in, packed(type, {3, 4, n}), {0, 0, 0}, {3, 4, n}, {1, 1, 1}});
            const auto rows = make_buffer_tensor_desc(type, {3, 4, n}, std::vector<std::uint32_t>{0, n, 1});
            matches_naive(slice1_desc{rows, packed(type, {3, 4, n}), {0, 0, 0}, {3, 4, n}, {1, 1, -1}});
            matches_naive(padding1_desc{in, packed(type, {3, 6, n + 3}), padding_mode::edge, type, {}, {0, 1, 2}, {0, 1, 1}});
        }
}

TEST_CASE("padding gathers at the fold edges: every mode, pads up to three periods, tiny axes", "[engine]") {
    const padding_mode modes[] = {padding_mode::constant, padding_mode::edge, padding_mode::reflection,
                                  padding_mode::symmetric, padding_mode::wrap};
    for (data_type type : width_types)
        for (padding_mode mode : modes)
            for (std::uint32_t n : {1u, 2u, 3u, 5u})
                for (std::uint32_t start : {0u, 1u, n, 2 * n + 1, 3 * n})
                    for (std::uint32_t end : {0u, 1u, n - 1, 3 * n}) {
                        CAPTURE(to_string(type), static_cast<int>(mode), n, start, end);
                        const scalar_union value = member_value(type, 0x8877665544332211u);
                        const std::vector<std::uint32_t> in{2, n, n + 1}, out{2, n + start + end, n + 1 + end + start};
                        matches_naive(padding1_desc{packed(type, in), packed(type, out), mode, type, value, {0, start, end},
                                            {0, end, start}});
                    }
}

TEST_CASE("folded borders much longer than their axis: every mode, both sides, unequal pads", "[engine]") {
    // A folded border's table holds a few periods (detail::min_table_length entries or one period)
    // and is read modulo its length: borders shorter than it, as long, and several times longer,
    // on the inner axis (gathered a table at a time) and on the lead axis (a row an entry), at
    // periods that divide the table's length and periods that do not.
    const padding_mode modes[] = {padding_mode::edge, padding_mode::reflection, padding_mode::symmetric, padding_mode::wrap};
    for (data_type type : {data_type::uint8, data_type::float32, data_type::int64})
        for (padding_mode mode : modes)
            for (std::uint32_t n : {1u, 2u, 3u, 7u, 130u}) { // REFLECTION of n = 1 repeats it (DECISIONS 5)
                for (const auto& [start, end] : {std::pair{700u, 3u}, std::pair{2u, 1029u}, std::pair{255u, 257u}, std::pair{513u, 389u}}) {
                    CAPTURE(to_string(type), static_cast<int>(mode), n, start, end);
                    matches_naive(padding1_desc{packed(type, {2, n}), packed(type, {2, n + start + end}), mode, type, {},
                                                {0, start}, {0, end}});
                    matches_naive(padding1_desc{packed(type, {n, 3}), packed(type, {n + end + start, 3 + 2}), mode, type, {},
                                                {end, 1}, {start, 1}});
                }
            }
}

TEST_CASE("rows cut anywhere inside a folded border of the lead axis", "[engine]") {
    // The rows of a border of the lead axis each read one table entry; a part of the rows (a
    // thread's) may start and end anywhere in it, also past the table's end, where the entries
    // come round again. Every cut [0, a), [a, b), [b, rows) must copy what one call does.
    const padding_mode modes[] = {padding_mode::edge, padding_mode::reflection, padding_mode::symmetric, padding_mode::wrap};
    for (padding_mode mode : modes) {
        CAPTURE(static_cast<int>(mode));
        const operator_desc descs[] = {
            // the lead axis alone outside the rows: 2 + 3 + 5 rows
            padding1_desc{packed(data_type::uint16, {3, 5}), packed(data_type::uint16, {10, 9}), mode, data_type::uint16, {},
                          {2, 1}, {5, 3}},
            // an affine axis outside a padded lead axis: 2 x (4 + 2 + 3) rows
            padding1_desc{packed(data_type::float32, {2, 2, 6}), packed(data_type::float32, {2, 9, 7}), mode,
                          data_type::float32, {}, {0, 4, 1}, {0, 3, 0}},
            // a lead axis whose borders outrun their tables (EDGE's 256 entries) and several periods
            padding1_desc{packed(data_type::uint8, {3, 4}), packed(data_type::uint8, {3 + 300 + 290, 6}), mode,
                          data_type::uint8, {}, {300, 1}, {290, 1}},
        };
        std::mt19937 cuts(11);
        for (const operator_desc& d : descs) {
            std::vector<std::ptrdiff_t> tables;
            const std::ptrdiff_t rows = prepared(d, tables).rows;
            std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> pairs;
            if (rows <= 12) { // every cut
                for (std::ptrdiff_t a = 0; a <= rows; ++a)
                    for (std::ptrdiff_t b = a; b <= rows; ++b) pairs.emplace_back(a, b);
            } else {
                for (int k = 0; k < 60; ++k) {
                    std::ptrdiff_t a = static_cast<std::ptrdiff_t>(cuts() % static_cast<std::uint32_t>(rows + 1));
                    std::ptrdiff_t b = static_cast<std::ptrdiff_t>(cuts() % static_cast<std::uint32_t>(rows + 1));
                    pairs.emplace_back(std::min(a, b), std::max(a, b));
                }
                pairs.emplace_back(256, 300); // the table's end, and the border's
                pairs.emplace_back(1, rows - 1);
            }
            for (const auto& cut : pairs) {
                const std::ptrdiff_t a = cut.first, b = cut.second; // not a structured binding: clang 14's lambdas cannot capture one
                CAPTURE(rows, a, b);
                matches_naive_through(d, [&](const auto& input, auto& output) {
                    std::vector<std::ptrdiff_t> kept;
                    const detail::prepared_plan p =
                        detail::prepare(detail::checked_plan(d, input, output, newest_feature_level, kept));
                    REQUIRE(p.rows == rows);
                    detail::execute_part(p, 0, a);
                    detail::execute_part(p, a, b);
                    detail::execute_part(p, b, p.rows);
                });
            }
            for (std::size_t threads : {2u, 3u, 5u, 7u}) {
                CAPTURE(threads);
                matches_naive(d, threads);
                matches_naive_through(d, [&](const auto& input, auto& output) { // small: one thread
                    execute(d, input, output, execution_options{threads, 0});
                });
            }
        }
    }
}

TEST_CASE("rows of elements a line apart: the dense axes moved inside, short rows, tiles", "[engine]") {
    // A row that reads an element a line (transposing copies: column-major outputs, depth to
    // space with B > 4) has the axes that read the input in sequence moved just outside it, the
    // row cut into rows of 8 to 16 where its extent allows, and the outermost moved axis cut into
    // tiles where its rows' lines outgrow the cache. Each plan runs whole, in parts cut at random,
    // and on several threads.
    auto column_major = [](data_type type, std::vector<std::uint32_t> sizes) {
        std::vector<std::uint32_t> strides(sizes.size());
        std::uint32_t stride = 1;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            strides[i] = stride;
            stride *= sizes[i];
        }
        return make_buffer_tensor_desc(type, std::move(sizes), std::move(strides));
    };
    std::mt19937 cuts(5);
    for (data_type type : width_types) {
        CAPTURE(to_string(type));
        const std::vector<std::vector<std::uint32_t>> shapes = {
            {1, 64, 3, 48},   // rows of 64 cut into rows of 16
            {1, 64, 2, 4096}, // and, for 4- and 8-byte elements, the moved axis into tiles
            {1, 61, 3, 67},   // a prime extent: no cut
            {2, 5, 7, 130},
        };
        std::vector<operator_desc> descs;
        for (const auto& sizes : shapes)
            descs.push_back(slice1_desc{packed(type, sizes), column_major(type, sizes), {0, 0, 0, 0},
                                        {sizes[0], sizes[1], sizes[2], sizes[3]}, {1, -1, 1, 1}});
        for (std::uint32_t b : {5u, 6u, 8u})
            for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
                descs.push_back(depth_to_space1_desc{packed(type, {2, 3 * b * b, 5, 9}), packed(type, {2, 3, 5 * b, 9 * b}), b, order});
                descs.push_back(
                    depth_to_space1_desc{packed(type, {2, 3 * b * b, 5, 9}), column_major(type, {2, 3, 5 * b, 9 * b}), b, order});
                descs.push_back(
                    space_to_depth1_desc{packed(type, {3, 2, 4 * b, 7 * b}), column_major(type, {3, 2 * b * b, 4, 7}), b, order});
            }
        // W read every second element: no axis reads the input in sequence, so no 2-D blocks
        const std::size_t stepped = descs.size();
        for (const auto& sizes : {std::vector<std::uint32_t>{1, 64, 3, 48}, std::vector<std::uint32_t>{1, 64, 2, 4096}})
            descs.push_back(slice1_desc{packed(type, {sizes[0], sizes[1], sizes[2], 2 * sizes[3]}), column_major(type, sizes),
                                        {0, 0, 0, 0}, {sizes[0], sizes[1], sizes[2], 2 * sizes[3]}, {1, -1, 1, 2}});
        for (const operator_desc& d : descs) matches_naive_whole_threaded_and_cut(d, cuts, 50);
        std::vector<std::ptrdiff_t> tables;
        // W, which reads the input in sequence, goes inside with the row: 2-D blocks (below)
        CHECK(prepared(descs[0], tables).shape == inner_shape::transpose);
        CHECK(prepared(descs[1], tables).shape == inner_shape::transpose);
        // the rows of 64 cut into rows of 16, W moved inside them
        CHECK(prepared(descs[stepped], tables).shape == inner_shape::rows);
        CHECK(detail::inner_axis(prepared(descs[stepped], tables)).extent == 16);
        if (element_size(type) >= 4) // H, C cut in 4, W in tiles of W (its rows' lines outgrow the cache), C's rows of 16
            CHECK(prepared(descs[stepped + 1], tables).plan.rank == 5u);
        CHECK(detail::inner_axis(prepared(descs[2], tables)).extent == 61);
    }
}

TEST_CASE("transposing copies of every width move 2-D blocks", "[engine]") {
    // A copy whose output row reads the input elements apart, while another axis reads it in
    // sequence, moves 2-D blocks of the two: tiles of 16 x 16 bytes in sub-blocks of a line of
    // each side, overlapping tiles where the extents are no multiple of a tile, partial tiles
    // where they are under one. Permuted inputs, strided outputs, windows, negative strides, and
    // padded outer axes (fill and table rows of the whole block); each plan runs whole, in parts
    // cut at random, and on several threads.
    auto with_strides = [](data_type type, std::vector<std::uint32_t> sizes, std::vector<std::uint32_t> strides) {
        return make_buffer_tensor_desc(type, std::move(sizes), std::move(strides));
    };
    std::mt19937 cuts(9);
    for (data_type type : width_types) {
        CAPTURE(to_string(type));
        std::vector<operator_desc> blocks, either, others;
        for (const auto& [n, a, b] : {std::tuple{2u, 16u, 16u}, std::tuple{1u, 37u, 53u}, std::tuple{3u, 70u, 129u},
                                      std::tuple{2u, 8u, 200u}, std::tuple{2u, 133u, 9u}, std::tuple{3u, 3u, 5u},
                                      std::tuple{2u, 2u, 40u}, std::tuple{2u, 40u, 2u}}) {
            CAPTURE(n, a, b);
            // rows of 2 to 4 elements from rows apart (or the inverse) may be interleaves instead
            auto& transposed = a > 4 && b > 4 ? blocks : either;
            // the input's axis 1 fastest: the output's rows (axis 2) read it a elements apart
            const auto permuted_in = with_strides(type, {n, a, b}, {a * b + 3, 1, a});
            transposed.push_back(slice1_desc{permuted_in, packed(type, {n, a, b}), {0, 0, 0}, {n, a, b}, {1, 1, 1}});
            // the rows read backwards, and the batch
            transposed.push_back(slice1_desc{permuted_in, packed(type, {n, a, b}), {0, 0, 0}, {n, a, b}, {-1, 1, -1}});
            // a packed input into an output whose axis 1 is fastest
            transposed.push_back(slice1_desc{packed(type, {n, a, b}), with_strides(type, {n, a, b}, {a * b, 1, a}), {0, 0, 0},
                                             {n, a, b}, {1, 1, 1}});
            // padded batches: fill blocks (CONSTANT) and table blocks (EDGE) through the general row
            for (padding_mode mode : {padding_mode::constant, padding_mode::edge})
                transposed.push_back(padding1_desc{permuted_in, packed(type, {n + 3, a, b}), mode, type,
                                                   member_value(type, 0x1122334455667788u), {2, 0, 0}, {1, 0, 0}});
            // the input's fastest axis read backwards: no blocks, the general walk
            others.push_back(slice1_desc{permuted_in, packed(type, {n, a, b}), {0, 0, 0}, {n, a, b}, {1, -1, 1}});
        }
        std::vector<operator_desc> all = blocks;
        all.insert(all.end(), either.begin(), either.end());
        all.insert(all.end(), others.begin(), others.end());
        // depth to space with B = 5 and 8: the B elements of a row read from planes apart
        for (std::uint32_t block : {5u, 8u})
            all.push_back(depth_to_space1_desc{packed(type, {2, 3 * block * block, 5, 40}),
                                                  packed(type, {2, 3, 5 * block, 40 * block}), block,
                                                  depth_space_order::column_row_depth});
        for (const operator_desc& d : blocks) {
            std::vector<std::ptrdiff_t> tables;
            REQUIRE(prepared(d, tables).shape == inner_shape::transpose);
        }
        for (const operator_desc& d : others) {
            std::vector<std::ptrdiff_t> tables;
            REQUIRE(prepared(d, tables).shape != inner_shape::transpose);
        }
        for (const operator_desc& d : all) matches_naive_whole_threaded_and_cut(d, cuts, 3);
    }
}

namespace {

/// A random transpose of `sizes`: the input's axes in memory in `order` (fastest first), with a
/// pitch `in_pad` wider after each, and an output packed or with pitches `out_pad` wider; the
/// slice's strides `signs` (+1 or -1 per axis: a negative one reads that axis backwards).
slice1_desc transpose_desc(data_type type, const std::vector<std::uint32_t>& sizes, const std::vector<std::size_t>& order,
                           std::uint32_t in_pad, std::uint32_t out_pad, const std::vector<std::int32_t>& signs) {
    const std::size_t rank = sizes.size();
    std::vector<std::uint32_t> in_strides(rank), out_strides(rank);
    std::uint32_t stride = 1;
    for (std::size_t axis : order) {
        in_strides[axis] = stride;
        stride = stride * sizes[axis] + in_pad;
    }
    stride = 1;
    for (std::size_t axis = rank; axis-- > 0;) {
        out_strides[axis] = stride;
        stride = stride * sizes[axis] + out_pad;
    }
    return slice1_desc{make_buffer_tensor_desc(type, sizes, in_strides), make_buffer_tensor_desc(type, sizes, out_strides),
                       std::vector<std::uint32_t>(rank, 0), sizes, signs};
}

} // namespace

TEST_CASE("transposes of ranks 2 to 6: random permutations, odd and tiny extents, pitches, reversed axes", "[engine]") {
    // Random permutations of every width, extents 1 to 70 (most no multiple of a tile, some
    // under one, some at the tile's size), packed and padded pitches on both sides, axes read
    // backwards. Buffers are exactly the tensors' sizes: a tile that reads a vector past the last
    // row the plan names would be caught by the sanitizers' build, and a write past it by the
    // comparison (random initial bytes).
    std::mt19937 rng(35);
    std::mt19937 cuts(36);
    const std::uint32_t extents[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 70};
    std::size_t blocks = 0, input_runs = 0, output_runs = 0;
    for (data_type type : width_types)
        for (std::size_t rank = 2; rank <= 6; ++rank)
            for (int draw = 0; draw < 12; ++draw) {
                std::vector<std::uint32_t> sizes(rank);
                std::uint64_t elements = 1;
                for (std::uint32_t& s : sizes) {
                    s = elements > 4096 ? 1 + static_cast<std::uint32_t>(rng() % 3) : extents[rng() % std::size(extents)];
                    elements *= s;
                }
                std::vector<std::size_t> order(rank);
                for (std::size_t i = 0; i < rank; ++i) order[i] = rank - 1 - i;
                std::shuffle(order.begin(), order.end(), rng);
                std::vector<std::int32_t> signs(rank, 1);
                if (draw % 3 == 2) // some axis other than the input's fastest read backwards
                    signs[order[1 + rng() % (rank - 1)]] = -1;
                const auto in_pad = draw % 2 == 0 ? 0u : 1 + static_cast<std::uint32_t>(rng() % 5);
                const auto out_pad = draw % 4 < 2 ? 0u : 1 + static_cast<std::uint32_t>(rng() % 5);
                const slice1_desc d = transpose_desc(type, sizes, order, in_pad, out_pad, signs);
                CAPTURE(to_string(type), sizes, order, in_pad, out_pad, signs);
                std::vector<std::ptrdiff_t> tables;
                const detail::prepared_plan p = prepared(d, tables);
                blocks += p.shape == inner_shape::transpose ? 1 : 0;
                input_runs += p.shape == inner_shape::transpose && p.in_run > 1 ? 1 : 0;
                output_runs += p.shape == inner_shape::transpose && p.out_run > 1 ? 1 : 0;
                matches_naive_whole_threaded_and_cut(d, cuts, 4);
                matches_naive_streamed(d, false);
            }
    CHECK(blocks > 100);
    // runs of several axes on each side: packed axes, and padded ones with holes in the input's
    CHECK(input_runs > 20);
    CHECK(output_runs > 20);
}

TEST_CASE("blocked transposes: long runs in stage rows and chunks, holes, lines streamed at every phase", "[engine]") {
    // A transpose {a, c, b} (c = 1: 2-D) from an input whose a, b, c lie in sequence, with
    // pitches in_pad wider (holes in the input's run), into an output packed or with pitches
    // out_pad wider: b and c form the output's run, with holes between c's rows, and the output's
    // runs start at every phase of a line. Runs longer than a block's stage row (several chunks
    // of the output's run) and than a block's chunk of the input's run, and shorter than a tile.
    // Streamed (whole lines with streaming stores, the others through the cache, each line
    // written once) and not; whole, cut into parts and on threads.
    std::mt19937 cuts(38);
    for (data_type type : width_types) {
        const std::size_t w = element_size(type);
        std::size_t several_b = 0, several_a = 0, holes = 0;
        for (std::uint32_t a : {3u, 17u, 70u, 130u})
            for (std::uint32_t b : {5u, 67u, 700u, 1100u})
                for (std::uint32_t c : {1u, 3u})
                for (std::uint32_t in_pad : {0u, 3u})
                    for (std::uint32_t out_pad : {0u, 5u}) {
                        CAPTURE(to_string(type), a, b, c, in_pad, out_pad);
                        const std::vector<std::uint32_t> sizes{a, c, b};
                        const slice1_desc d = transpose_desc(type, sizes, {0, 2, 1}, in_pad, out_pad, {1, 1, 1});
                        std::vector<std::ptrdiff_t> tables;
                        const detail::prepared_plan p = prepared(d, tables);
                        // rows of 2 to 4 elements from rows apart (or the inverse) may be interleaves instead
                        REQUIRE((p.shape == inner_shape::transpose || a <= 4 || b <= 4));
                        std::ptrdiff_t pitch = 0, chunk = 0, length_a = 0, length_b = 0;
                        bool b_holes = false;
                        auto take = [&](const auto& s) {
                            pitch = s.pitch;
                            chunk = s.chunk;
                            length_a = s.length_a;
                            length_b = s.length_b;
                            b_holes = s.b_holes;
                        };
                        if (w == 1) take(detail::row_kernels<1>::transpose::shape_of(p));
                        if (w == 2) take(detail::row_kernels<2>::transpose::shape_of(p));
                        if (w == 4) take(detail::row_kernels<4>::transpose::shape_of(p));
                        if (w == 8) take(detail::row_kernels<8>::transpose::shape_of(p));
                        several_b += length_b > pitch ? 1 : 0;
                        several_a += length_a > chunk ? 1 : 0;
                        holes += b_holes ? 1 : 0;
                        matches_naive_whole_threaded_and_cut(d, cuts, 2);
                        matches_naive_streamed(d, false);
                    }
        CAPTURE(to_string(type));
        CHECK(several_b > 0);
        CHECK(several_a > 0);
        CHECK(holes > 0);
    }
}

TEST_CASE("transposes whose input rows are shorter than a tile read vectors only inside the input", "[engine]") {
    // The fastest input axis of 1 to 15 elements: partial tiles load whole vectors from each
    // row's start, which for the last rows of a packed input would run past its end: those
    // rows load only their elements. The batch, which reads the input next, an element of pitch
    // after the rows, joins one of the runs with holes between. Every width, both signs of the
    // rows' step.
    std::mt19937 cuts(37);
    for (data_type type : width_types)
        for (std::uint32_t a : {1u, 2u, 3u, 5u, 7u, 15u})
            for (std::uint32_t b : {2u, 3u, 17u, 40u})
                for (std::int32_t sign : {1, -1}) {
                    CAPTURE(to_string(type), a, b, sign);
                    // input {c, b, a} packed; output {c, a, b} packed: out[k, i, j] = in[k, j, i]
                    const std::vector<std::uint32_t> sizes{3, a, b};
                    const slice1_desc d = transpose_desc(type, sizes, {1, 2, 0}, 0, 0, {1, 1, sign});
                    matches_naive_whole_threaded_and_cut(d, cuts, 2);
                    // and with the batch (the axis outside the pair) read in sequence after the
                    // rows, an element of pitch between (else the two would merge into one axis)
                    const slice1_desc near = transpose_desc(type, sizes, {1, 0, 2}, 1, 0, {1, 1, sign});
                    matches_naive_whole_threaded_and_cut(near, cuts, 2);
                    std::vector<std::ptrdiff_t> tables;
                    const detail::prepared_plan p = prepared(near, tables);
                    if (a > 1 && b > 4) { // rows of 2 to 4 elements from a rows apart: an interleave
                        REQUIRE(p.shape == inner_shape::transpose);
                        CHECK(p.in_run + p.out_run == 3); // the batch joins a run, with holes
                        matches_naive_streamed(near, false);
                    }
                }
}

TEST_CASE("nonzero constant fills of every width, around interiors of every run length", "[engine]") {
    for (data_type type : width_types)
        for (std::uint32_t n = 1; n <= 20; ++n) {
            CAPTURE(to_string(type), n);
            // The member's value (0x08, 0x0708, ...: bytes that differ), and the whole union, which
            // 8- and 16-bit types clamp to all ones.
            for (const scalar_union value : {member_value(type, 0x0102030405060708u), scalar_union::of(std::uint64_t{0x0102030405060708u})})
                matches_naive(padding1_desc{packed(type, {2, n}), packed(type, {5, n + 4}), padding_mode::constant, type, value,
                                    {1, 3}, {2, 1}});
            matches_naive(padding1_desc{packed(type, {2, n}), packed(type, {5, n + 4}), padding_mode::constant, type, {},
                                {1, 3}, {2, 1}}); // zero: the memset path
        }
}

TEST_CASE("rows of one run between fills: inline, through memcpy and streamed", "[engine]") {
    // Run lengths cover the 64-byte steps, the 16-byte steps and the overlapping last vector of
    // the inline copy at every width, and runs under 16 bytes; fills on one side or on both.
    const std::uint32_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 31, 32, 33, 63, 64, 65, 79, 80, 81, 130};
    // Fills of every byte count up to 8 past a multiple of 8, and of 64 bytes and more, where a
    // value of one repeated byte goes to memset.
    const std::pair<std::uint32_t, std::uint32_t> sides[] = {{3, 3}, {0, 2}, {5, 0}, {1, 17}, {7, 70}};
    const std::uint64_t values[] = {0xa1b2c3d4e5f60718u, 0, 0x7f7f7f7f7f7f7f7fu};
    for (data_type type : width_types)
        for (std::uint32_t n : lengths)
            for (const auto& [before, after] : sides)
                for (std::uint64_t value : values) {
                    CAPTURE(to_string(type), n, before, after, value);
                    const padding1_desc d{packed(type, {3, n}), packed(type, {5, before + n + after}), padding_mode::constant,
                                          type, member_value(type, value), {1, before}, {1, after}};
                    matches_naive(d);
                    matches_naive_streamed(d, false);
                    matches_naive_streamed(d, true);
                }
    // The kernel is the one the rows reach; a row of one run alone is the plain copy's. Both are
    // built once for every width (byte_kernels).
    std::vector<std::ptrdiff_t> tables;
    using kernels = detail::row_kernels<4>;
    const auto kernel = [&](const padding1_desc& d) { return kernels::choose(prepared(d, tables)); };
    const auto f32 = data_type::float32;
    CHECK(kernel({packed(f32, {4, 8}), packed(f32, {6, 11}), padding_mode::constant, f32, {}, {1, 1}, {1, 2}}) ==
          &detail::rows<detail::byte_kernels::framed>);
    CHECK(kernel({packed(f32, {4, 8}), packed(f32, {6, 8}), padding_mode::constant, f32, {}, {1, 0}, {1, 0}}) ==
          &detail::rows<detail::byte_kernels::copy>);
    CHECK(kernel({packed(f32, {4, 8}), packed(f32, {6, 11}), padding_mode::edge, f32, {}, {1, 1}, {1, 2}}) ==
          &detail::rows<kernels::any>);
}

TEST_CASE("rank 8: slices, pads and reversed axes everywhere", "[engine]") {
    const std::vector<std::uint32_t> sizes{2, 1, 3, 2, 1, 2, 3, 5};
    for (data_type type : width_types) {
        CAPTURE(to_string(type));
        const std::vector<std::uint32_t> zero(8, 0);
        std::vector<std::int32_t> strides{-1, 1, -1, 1, 1, -1, 2, -1};
        std::vector<std::uint32_t> out = sizes;
        out[6] = 2;
        matches_naive(slice1_desc{packed(type, sizes), packed(type, out), zero, sizes, strides});
        std::vector<std::uint32_t> start{1, 0, 2, 0, 1, 0, 1, 3}, end{0, 1, 0, 2, 0, 1, 4, 2}, padded = sizes;
        for (std::size_t i = 0; i < 8; ++i) padded[i] += start[i] + end[i];
        matches_naive(padding1_desc{packed(type, sizes), packed(type, padded), padding_mode::symmetric, type, {}, start, end});
        matches_naive(padding1_desc{packed(type, sizes), packed(type, padded), padding_mode::constant, type,
                            member_value(type, 0x7f7f7f7f7f7f7f7fu), start, end});
    }
}

TEST_CASE("a thread count splits the rows and changes nothing", "[engine]") {
    // Outputs of 256 KiB to 1.1 MB, 512 to 2,800 rows, split however small the parts
    // (matches_naive): 64 threads get 8 to 44 rows each.
    const operator_desc descs[] = {
        depth_to_space1_desc{packed(data_type::float32, {1, 16, 64, 64}), packed(data_type::float32, {1, 4, 128, 128}),
                             2, depth_space_order::depth_column_row},
        space_to_depth1_desc{packed(data_type::float32, {1, 4, 129, 129}), packed(data_type::float32, {1, 36, 43, 43}), 3,
                             depth_space_order::column_row_depth},
        padding1_desc{packed(data_type::uint16, {3, 250, 250}), packed(data_type::uint16, {5, 258, 254}),
                      padding_mode::reflection, data_type::uint16, {}, {1, 3, 2}, {1, 5, 2}},
        slice1_desc{packed(data_type::uint8, {7, 400, 400}), packed(data_type::uint8, {7, 400, 400}), {0, 0, 0},
                    {7, 400, 400}, {-1, 1, -1}},
    };
    for (const operator_desc& d : descs)
        for (std::size_t threads : {0u, 2u, 3u, 4u, 64u}) {
            CAPTURE(threads);
            matches_naive(d, threads);
        }
}

TEST_CASE("rows run in sets of the lead axis, from any first row to any last row", "[engine]") {
    // Where the lead axis and the axis outside it are both affine, whole runs of the lead axis go
    // to the row loop in one call; a part of the rows (a thread's) may start and end inside a run.
    // The rows are run here in parts cut at random: together they must copy what one call does.
    const operator_desc descs[] = {
        // lead axis: the 3 block rows of each output row (CRD walks its input in order)
        space_to_depth1_desc{packed(data_type::float32, {2, 3, 30, 33}), packed(data_type::float32, {2, 27, 10, 11}), 3,
                             depth_space_order::column_row_depth},
        // lead axis: 2 block rows
        space_to_depth1_desc{packed(data_type::uint8, {1, 5, 14, 20}), packed(data_type::uint8, {1, 20, 7, 10}), 2,
                             depth_space_order::column_row_depth},
        // a centred window: rows along channels
        slice1_desc{packed(data_type::uint16, {2, 7, 9, 40}), packed(data_type::uint16, {2, 5, 3, 20}), {0, 1, 3, 10},
                    {2, 5, 3, 20}, {1, 1, 1, 1}},
        // pads: the padded outer axes have table pieces, so each run of the lead axis goes alone
        padding1_desc{packed(data_type::int64, {3, 4, 6, 5}), packed(data_type::int64, {3, 6, 8, 9}),
                      padding_mode::reflection, data_type::int64, {}, {0, 1, 1, 2}, {0, 1, 1, 2}},
    };
    std::mt19937 cuts(7);
    for (const operator_desc& d : descs)
        for (int round = 0; round < 20; ++round) {
            CAPTURE(round);
            matches_naive_through(d, [&](const auto& input, auto& output) {
                std::vector<std::ptrdiff_t> tables;
                const detail::prepared_plan p =
                    detail::prepare(detail::checked_plan(d, input, output, newest_feature_level, tables));
                REQUIRE(p.outer_rank >= 2);
                execute_in_random_parts(p, cuts, 40);
            });
        }
}

TEST_CASE("outputs of 16 MiB and more use streaming stores, from any alignment", "[engine]") {
    const auto f32 = data_type::float32;
    // Odd row lengths put every row at a different 16-byte phase; the reversed and stride-2
    // slices and the padding also start their rows off the boundary.
    const operator_desc descs[] = {
        depth_to_space1_desc{packed(f32, {1, 4, 1031, 1023}), packed(f32, {1, 1, 2062, 2046}), 2,
                             depth_space_order::depth_column_row},
        space_to_depth1_desc{packed(f32, {1, 1, 2062, 2046}), packed(f32, {1, 4, 1031, 1023}), 2,
                             depth_space_order::column_row_depth},
        // Space to depth with rows that share their 16-byte phase, differ in their 64-byte
        // phase and end inside a cache line (block size 2 streams, 3 writes through the cache).
        space_to_depth1_desc{packed(f32, {1, 1, 1380, 3063}), packed(f32, {1, 9, 460, 1021}), 3,
                             depth_space_order::depth_column_row},
        // Depth to space with block size 3 through the 64-byte permute kernel, where the processor
        // has it: each output row streams from its first 64-byte boundary, rows at every phase.
        // Space to depth with block size 3 and rows that share their 64-byte phase (plane
        // 1894976 bytes): its 16-byte kernel writes through the cache at this size.
        depth_to_space1_desc{packed(f32, {1, 9, 500, 1001}), packed(f32, {1, 1, 1500, 3003}), 3,
                             depth_space_order::depth_column_row},
        depth_to_space1_desc{packed(data_type::uint8, {1, 9, 1000, 2001}), packed(data_type::uint8, {1, 1, 3000, 6003}), 3,
                             depth_space_order::column_row_depth},
        space_to_depth1_desc{packed(f32, {1, 1, 1392, 3063}), packed(f32, {1, 9, 464, 1021}), 3,
                             depth_space_order::depth_column_row},
        space_to_depth1_desc{packed(data_type::uint8, {1, 1, 4128, 4082}), packed(data_type::uint8, {1, 4, 2064, 2041}), 2,
                             depth_space_order::column_row_depth},
        slice1_desc{packed(f32, {4200, 1025}), packed(f32, {4200, 1023}), {0, 1}, {4200, 1023}, {1, -1}},
        slice1_desc{packed(f32, {2050, 4099}), packed(f32, {2050, 2049}), {0, 1}, {2050, 4098}, {1, 2}},
        slice1_desc{packed(data_type::uint16, {2, 4100, 2053}), packed(data_type::uint16, {2, 4100, 2051}), {0, 0, 1},
                    {2, 4100, 2051}, {1, 1, 1}},
        padding1_desc{packed(f32, {1, 4097, 1021}), packed(f32, {1, 4103, 1027}), padding_mode::reflection, f32, {},
                      {0, 3, 3}, {0, 3, 3}},
        // Outputs of 32 MiB and more also stream their contiguous runs, whole 64-byte lines only:
        // a constant pad whose 11628-byte rows start at every 4-byte phase of a line, and the
        // 2-byte window above (33.6 MB), rows through the plain copy kernel.
        padding1_desc{packed(f32, {1, 2900, 2901}), packed(f32, {1, 2906, 2907}), padding_mode::constant, f32,
                      scalar_union::of(-2.5f), {0, 2, 5}, {0, 4, 1}},
    };
    for (const operator_desc& d : descs) {
        std::vector<std::ptrdiff_t> tables;
        const detail::prepared_plan p = prepared(d, tables);
        CHECK(p.stream == (DMLREF_STREAM_STORES == 1));
        const std::uint64_t bytes = outputs_of(d).front().desc().total_tensor_size_in_bytes;
        CHECK(p.stream_runs == (DMLREF_STREAM_STORES == 1 && bytes >= detail::run_stream_threshold));
        matches_naive(d);
    }
    // The depth-to-space cases at block size 3 again with each narrower kernel level: SSSE3 (whole
    // rows of 16-byte steps, through the cache, where VBMI would stream) and the scalar loops.
    at_every_shuffle_level(
        [&] {
            for (const operator_desc& d : descs)
                if (const auto* d2s = std::get_if<depth_to_space1_desc>(&d); d2s && d2s->block_size == 3) matches_naive(d);
        },
        true);
}

TEST_CASE("plans the ops never make: an all-fill plan, fill rows around interleaves", "[engine]") {
    using namespace dmlref::detail;
    std::vector<std::uint32_t> in(64);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint32_t>(i + 1);
    const std::uint32_t fill = 0xabcdef01u;
    auto make = [&](std::vector<std::uint32_t>& out) {
        copy_plan plan;
        plan.input = reinterpret_cast<const std::byte*>(in.data());
        plan.output = reinterpret_cast<std::byte*>(out.data());
        plan.width = 4;
        std::memcpy(plan.fill.data(), &fill, 4);
        return plan;
    };
    // An outer axis of 3: one fill coordinate, then two rows 8 input elements apart.
    auto fill_then_rows = [](std::ptrdiff_t out_stride) {
        axis_plan axis{3, out_stride, {}, 0};
        axis.add({piece::kind::fill, 1, 0, 0, nullptr, 0});
        axis.add({piece::kind::affine, 2, 0, 8, nullptr, 0});
        return axis;
    };

    SECTION("an extent-1 fill axis makes every element fill; nothing else is written") {
        std::vector<std::uint32_t> out(12, 0);
        copy_plan plan = make(out);
        plan.rank = 3;
        plan.axes[0] = axis_plan{1, 6, {}, 0};
        plan.axes[0].add({piece::kind::fill, 1, 0, 0, nullptr, 0});
        plan.axes[1] = axis_plan::affine(3, 2, 0, 4);
        plan.axes[2] = axis_plan::affine(2, 1, 0, 1);
        execute(plan);
        for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == (i < 6 ? fill : 0u));
    }
    SECTION("interleave: out[r, x, k] = in[8 (r - 1) + 32 k + x], row 0 fill") {
        std::vector<std::uint32_t> out(24, 0);
        copy_plan plan = make(out);
        plan.rank = 3;
        plan.axes[0] = fill_then_rows(8);
        plan.axes[1] = axis_plan::affine(4, 2, 0, 1);
        plan.axes[2] = axis_plan::affine(2, 1, 0, 32);
        REQUIRE(prepare(plan).shape == inner_shape::interleave);
        execute(plan);
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t x = 0; x < 4; ++x)
                for (std::size_t k = 0; k < 2; ++k)
                    CHECK(out[r * 8 + x * 2 + k] == (r == 0 ? fill : in[8 * (r - 1) + 32 * k + x]));
    }
    SECTION("de-interleave: out[r, k, x] = in[8 (r - 1) + 2 x + k], row 0 fill") {
        std::vector<std::uint32_t> out(24, 0);
        copy_plan plan = make(out);
        plan.rank = 3;
        plan.axes[0] = fill_then_rows(4);
        plan.axes[1] = axis_plan::affine(2, 12, 0, 1);
        plan.axes[2] = axis_plan::affine(4, 1, 0, 2);
        REQUIRE(prepare(plan).shape == inner_shape::deinterleave);
        execute(plan);
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t k = 0; k < 2; ++k)
                for (std::size_t x = 0; x < 4; ++x)
                    CHECK(out[r * 4 + k * 12 + x] == (r == 0 ? fill : in[8 * (r - 1) + 2 * x + k]));
    }
}
