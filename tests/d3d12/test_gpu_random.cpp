// GPU == CPU, bit for bit, on 2,400 random valid descs (200 per operator) spanning every mode,
// order, block size 1 to 4, data type and rank 1 to 8, with strided, permuted and broadcast
// inputs, outputs with gaps, negative window strides and pads larger than the axis. The output
// buffer starts as random bytes on both sides, so bytes outside the tensor must keep them.
#include <dmlref/d3d12.hpp>

#include "parity_cases.hpp" // parity::detail::random_indexed_base, index_input
#include "random_cases.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <span>
#include <string>
#include <vector>

using namespace dmlref;
using namespace dmlref::random_cases;

namespace {

/// Whether tensor `t` broadcasts: a stride of 0.
bool broadcasts(const buffer_tensor_desc& t) {
    return t.strides && std::count(t.strides->begin(), t.strides->end(), 0u) > 0;
}

/// Whether output `t`'s buffer holds bytes that are no element of it (gaps or padding past its
/// last element), beyond the rounding to a word.
bool has_gaps(const buffer_tensor_desc& t) {
    return t.total_tensor_size_in_bytes > element_count(t.sizes) * element_size(t.data_type) + 3;
}

/// Whether index bytes of `type` hold a negative index (the sign bit of an INT32 or INT64 element).
bool has_negative(std::span<const std::byte> indices, data_type type) {
    if (type != data_type::int32 && type != data_type::int64) return false;
    const std::size_t width = element_size(type);
    for (std::size_t at = 0; at + width <= indices.size(); at += width)
        if ((std::to_integer<unsigned>(indices[at + width - 1]) & 0x80u) != 0) return true;
    return false;
}

struct coverage {
    std::set<data_type> types;
    std::set<operator_type> ops;
    std::set<std::size_t> ranks;
    std::set<std::uint32_t> block_sizes, modes, orders;
    bool negative_stride = false, broadcast = false, gaps = false, pad_beyond_axis = false;

    void add(const operator_desc& any) {
        types.insert(input_of(any).data_type);
        ops.insert(type_of(any));
        ranks.insert(input_of(any).sizes.size());
        const auto& in = input_of(any);
        broadcast |= broadcasts(in);
        gaps |= has_gaps(output_of(any));
        std::visit(
            dmlref::single_tensor_only{"the D3D12 backend", [&](const auto& d) {
                if constexpr (requires { d.block_size; }) block_sizes.insert(d.block_size);
                if constexpr (requires { d.order; }) orders.insert(static_cast<std::uint32_t>(d.order));
                if constexpr (requires { d.input_window_strides; })
                    for (auto s : d.input_window_strides) negative_stride |= s < 0;
                if constexpr (requires { d.padding_mode; }) {
                    modes.insert(static_cast<std::uint32_t>(d.padding_mode));
                    for (std::size_t i = 0; i < d.start_padding.size(); ++i)
                        pad_beyond_axis |= std::max(d.start_padding[i], d.end_padding[i]) > d.input_tensor.sizes[i];
                }
            }},
            any);
    }
};

} // namespace

TEST_CASE("d3d12: GPU == CPU on 2,400 random descs, bytes outside the output tensor kept", "[d3d12][random]") {
    d3d12::context gpu;
    rng_t rng(20261123);
    coverage seen;
    int failures = 0;
    constexpr std::size_t cases = 2400;
    for (std::size_t k = 0; k < cases; ++k) {
        const operator_desc desc = random_desc(rng, k);
        REQUIRE_FALSE(validate(desc));
        seen.add(desc);
        const auto input = random_bytes(rng, input_of(desc).total_tensor_size_in_bytes);
        const auto initial = random_bytes(rng, output_of(desc).total_tensor_size_in_bytes);
        std::vector<std::byte> expected = initial;
        dmlref::execute(desc, input, expected);
        const std::vector<std::byte> actual = gpu.run(desc, input, std::span<const std::byte>(initial));
        if (actual != expected && ++failures <= 5) {
            INFO("case " << k << ": " << describe(desc));
            INFO(gpu.verify(desc, input).to_string());
            CHECK(actual == expected);
        }
    }
    CHECK(failures == 0);
    CHECK(seen.types.size() == 11);
    CHECK(seen.ops.count(operator_type::upsample_2d) == 1);
    CHECK(seen.ops.count(operator_type::tile) == 1);
    CHECK(seen.ops.count(operator_type::slice_grad) == 1);
    CHECK(seen.ranks == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(seen.block_sizes == std::set<std::uint32_t>{1, 2, 3, 4});
    CHECK(seen.modes == std::set<std::uint32_t>{0, 1, 2, 3, 4});
    CHECK(seen.orders == std::set<std::uint32_t>{0, 1});
    CHECK(seen.negative_stride);
    CHECK(seen.broadcast);
    CHECK(seen.gaps);
    CHECK(seen.pad_beyond_axis);
}

TEST_CASE("d3d12: GPU == CPU on 600 random JOIN and SPLIT descs, a dispatch per part, bytes outside the tensors kept",
          "[d3d12][random]") {
    // random_cases' JOIN and SPLIT draws: 1 to 5 parts (one in eight descs a single part), ranks 1
    // to 8, any Axis, every data type; inputs strided, permuted or broadcast, outputs packed or with
    // gaps. JOIN's parts of 1- and 2-byte elements share output words with each other (a thread's
    // word takes lanes from several dispatches), and every output buffer starts as random bytes.
    d3d12::context gpu;
    rng_t rng(20261129);
    std::set<std::size_t> widths, ranks, part_counts;
    std::set<operator_type> ops;
    bool strided_part = false, shared_word = false, broadcast = false;
    int failures = 0;
    constexpr std::size_t cases = 600;
    for (std::size_t k = 0; k < cases; ++k) {
        const data_type type = random_type(rng);
        const operator_desc desc = k % 2 == 0 ? random_join(rng, type) : random_split(rng, type);
        REQUIRE_FALSE(validate(desc));
        const auto ins = inputs_of(desc), outs = outputs_of(desc);
        ops.insert(type_of(desc));
        widths.insert(element_size(type));
        ranks.insert(ins.front().desc().sizes.size());
        part_counts.insert(std::max(ins.size(), outs.size()));
        for (const auto& tensors : {ins, outs})
            for (const bound_tensor& t : tensors) {
                const auto& strides = t.desc().strides;
                if (strides && *strides != packed_strides(t.desc().sizes)) strided_part = true;
                broadcast |= broadcasts(t.desc());
            }
        if (type_of(desc) == operator_type::join && ins.size() > 1 && element_size(type) < 4) shared_word = true;

        std::vector<std::vector<std::byte>> inputs, initial;
        for (const bound_tensor& t : ins) inputs.push_back(random_bytes(rng, t.desc().total_tensor_size_in_bytes));
        for (const bound_tensor& t : outs) initial.push_back(random_bytes(rng, t.desc().total_tensor_size_in_bytes));
        std::vector<std::vector<std::byte>> expected = initial;
        const std::vector<std::span<const std::byte>> in_spans(inputs.begin(), inputs.end());
        const std::vector<std::span<const std::byte>> initial_spans(initial.begin(), initial.end());
        const std::vector<std::span<std::byte>> expected_spans(expected.begin(), expected.end());
        dmlref::execute(desc, in_spans, expected_spans);
        const auto actual = gpu.run(desc, in_spans, std::span<const std::span<const std::byte>>(initial_spans));
        if (actual != expected && ++failures <= 5) {
            INFO("case " << k << ": " << describe(desc));
            for (std::size_t j = 0; j < outs.size(); ++j) {
                INFO(outs[j].field);
                CHECK(actual[j] == expected[j]);
            }
        }
    }
    CHECK(failures == 0);
    CHECK(ops.size() == 2);
    CHECK(widths == std::set<std::size_t>{1, 2, 4, 8});
    CHECK(ranks == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(part_counts == std::set<std::size_t>{1, 2, 3, 4, 5});
    CHECK(strided_part);
    CHECK(shared_word);
    CHECK(broadcast);
}

namespace {

/// How many of `cases` random GATHER_ELEMENTS descs the GPU gets bit for bit as the CPU (output
/// buffers starting as random bytes on both sides); fills the coverage sets.
struct gather_run {
    int failures = 0;
    std::set<std::size_t> widths, ranks;
    std::set<data_type> index_types;
    bool negative = false, broadcast_indices = false, broadcast_input = false, gaps = false;
};

/// Runs `desc`, one output and inputs `ins` (binding order), on the GPU and the CPU from the same
/// output bytes (random, drawn from `rng`) and counts a difference in `failures`; the first five
/// are reported, as `label` and the desc, when `report`.
void check_inputs(d3d12::context& gpu, rng_t& rng, const operator_desc& desc,
                  const std::vector<std::span<const std::byte>>& ins, const std::string& label, bool report,
                  int& failures) {
    const auto initial = random_bytes(rng, outputs_of(desc).front().desc().total_tensor_size_in_bytes);
    std::vector<std::byte> expected = initial;
    const std::vector<std::span<std::byte>> outs = {expected};
    dmlref::execute(desc, ins, outs);
    const std::vector<std::span<const std::byte>> initial_spans = {initial};
    const auto actual = gpu.run(desc, ins, std::span<const std::span<const std::byte>>(initial_spans));
    if (actual.front() != expected && ++failures <= 5 && report) {
        INFO(label << ": " << describe(desc));
        CHECK(actual.front() == expected);
    }
}

gather_run run_gather_elements(d3d12::context& gpu, std::size_t cases, bool report) {
    rng_t rng(20261130);
    gather_run run;
    for (std::size_t k = 0; k < cases; ++k) {
        const operator_desc desc = random_gather_elements(rng, random_type(rng), 8) /* ranks 1 to 8 */;
        REQUIRE_FALSE(validate(desc));
        const auto& d = std::get<gather_elements_desc>(desc);
        run.widths.insert(element_size(d.input_tensor.data_type));
        run.ranks.insert(d.input_tensor.sizes.size());
        run.index_types.insert(d.indices_tensor.data_type);
        run.broadcast_indices |= broadcasts(d.indices_tensor);
        run.broadcast_input |= broadcasts(d.input_tensor);
        run.gaps |= has_gaps(d.output_tensor);

        const auto input = random_bytes(rng, d.input_tensor.total_tensor_size_in_bytes);
        auto indices = random_bytes(rng, d.indices_tensor.total_tensor_size_in_bytes);
        vectors_index_values(rng, desc, indices);
        run.negative |= has_negative(indices, d.indices_tensor.data_type);
        check_inputs(gpu, rng, desc, {input, indices}, fmt::format("case {}", k), report, run.failures);
    }
    return run;
}

} // namespace

TEST_CASE("d3d12: GPU == CPU on 800 random GATHER_ELEMENTS descs, every width, index type and rank 1 to 8",
          "[d3d12][random]") {
    d3d12::context gpu;
    const gather_run run = run_gather_elements(gpu, 800, true);
    CHECK(run.failures == 0);
    CHECK(run.widths == std::set<std::size_t>{1, 2, 4, 8});
    CHECK(run.ranks == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(run.index_types.size() == 4);
    CHECK(run.negative);
    CHECK(run.broadcast_indices);
    CHECK(run.broadcast_input);
    CHECK(run.gaps);
}

TEST_CASE("d3d12: a GATHER_ELEMENTS kernel that counts negative indices from the start fails the random suite",
          "[d3d12][random]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::gather_negative_from_start});
    const gather_run run = run_gather_elements(wrong, 200, false);
    CHECK(run.failures > 20);
}

namespace {

/// How many of `cases` random REVERSE_SUBSEQUENCES descs (random_cases' draw: ranks 1 to 8, UINT32
/// and UINT64 lengths, some past the axis) the GPU gets bit for bit as the CPU.
struct reverse_run {
    int failures = 0;
    std::set<std::size_t> widths, ranks;
    std::set<data_type> length_types;
    bool past_axis = false;
};

reverse_run run_reverse_subsequences(d3d12::context& gpu, std::size_t cases, bool report) {
    rng_t rng(20261131);
    reverse_run run;
    for (std::size_t k = 0; k < cases; ++k) {
        const operator_desc desc = random_reverse_subsequences(rng, random_type(rng));
        REQUIRE_FALSE(validate(desc));
        const auto& d = std::get<reverse_subsequences_desc>(desc);
        run.widths.insert(element_size(d.input_tensor.data_type));
        run.ranks.insert(d.input_tensor.sizes.size());
        run.length_types.insert(d.sequence_lengths_tensor.data_type);
        const auto input = random_bytes(rng, d.input_tensor.total_tensor_size_in_bytes);
        auto lengths = random_bytes(rng, d.sequence_lengths_tensor.total_tensor_size_in_bytes);
        vectors_index_values(rng, desc, lengths);
        const std::size_t lw = element_size(d.sequence_lengths_tensor.data_type);
        for (std::size_t at = 0; at + lw <= lengths.size(); at += lw) {
            std::uint64_t v = 0;
            std::memcpy(&v, lengths.data() + at, lw);
            run.past_axis |= v > d.input_tensor.sizes[d.axis];
        }
        check_inputs(gpu, rng, desc, {input, lengths}, fmt::format("case {}", k), report, run.failures);
    }
    return run;
}

} // namespace

TEST_CASE("d3d12: GPU == CPU on 800 random REVERSE_SUBSEQUENCES descs, lengths past the axis included",
          "[d3d12][random]") {
    d3d12::context gpu;
    const reverse_run run = run_reverse_subsequences(gpu, 800, true);
    CHECK(run.failures == 0);
    CHECK(run.widths == std::set<std::size_t>{1, 2, 4, 8});
    CHECK(run.ranks == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(run.length_types.size() == 2);
    CHECK(run.past_axis);
}

TEST_CASE("d3d12: a REVERSE_SUBSEQUENCES kernel that clamps lengths to the axis fails the random suite", "[d3d12][random]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::reverse_clamp_to_axis});
    const reverse_run run = run_reverse_subsequences(wrong, 800, false);
    CHECK(run.failures > 5);
}

namespace {

/// How many of `cases` random descs of indexed operator `op` (the DirectML parity run's draw:
/// ranks 1 to 8, every data and index type, strided and broadcast layouts) the GPU gets bit for
/// bit as the CPU, on the parity run's index bytes (negative ones included; ONE_HOT's up to two
/// past the axis). A quarter of ONE_HOT's 64-bit indices get a random high word too (out of range:
/// the sequence stays OffValue).
struct indexed_run {
    int failures = 0;
    std::set<std::size_t> widths, ranks;
    std::set<data_type> index_types;
    bool negative = false, high_word = false;
};

indexed_run run_indexed(d3d12::context& gpu, operator_type op, std::size_t cases, std::uint64_t seed, bool report) {
    rng_t rng(seed);
    indexed_run run;
    for (std::size_t k = 0; k < cases; ++k) {
        const operator_desc desc = parity::detail::random_indexed_base(rng, op);
        REQUIRE_FALSE(validate(desc));
        const auto ins = inputs_of(desc);
        const std::size_t index_at = op == operator_type::one_hot ? 0 : 1;
        const buffer_tensor_desc& idx = ins[index_at].desc();
        const buffer_tensor_desc& data = ins[1 - index_at].desc();
        run.widths.insert(element_size(data.data_type));
        run.ranks.insert(idx.sizes.size());
        run.index_types.insert(idx.data_type);
        auto indices = parity::detail::index_input(desc, rng());
        if (op == operator_type::one_hot && element_size(idx.data_type) == 8)
            for (std::size_t at = 0; at + 8 <= indices.size(); at += 8)
                if (chance(rng, 25)) {
                    const std::uint32_t high = pick(rng, 1, 0xffff'fffeu);
                    std::memcpy(indices.data() + at + 4, &high, 4);
                    run.high_word = true;
                }
        run.negative |= has_negative(indices, idx.data_type);
        const auto values = random_bytes(rng, data.total_tensor_size_in_bytes);
        std::vector<std::span<const std::byte>> ins_bytes = {values, indices};
        if (index_at == 0) std::swap(ins_bytes[0], ins_bytes[1]);
        check_inputs(gpu, rng, desc, ins_bytes, fmt::format("case {}", k), report, run.failures);
    }
    return run;
}

} // namespace

TEST_CASE("d3d12: GPU == CPU on 600 random descs each of GATHER, GATHER_ND, GATHER_ND1 and ONE_HOT, every width, "
          "index type and rank 1 to 8",
          "[d3d12][random]") {
    d3d12::context gpu;
    std::uint64_t seed = 20261201;
    for (operator_type op : {operator_type::gather, operator_type::gather_nd, operator_type::gather_nd1,
                             operator_type::one_hot}) {
        INFO(to_string(op));
        const indexed_run run = run_indexed(gpu, op, 600, seed++, true);
        CHECK(run.failures == 0);
        CHECK(run.widths == std::set<std::size_t>{1, 2, 4, 8});
        CHECK(run.ranks == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
        CHECK(run.index_types.size() == 4);
        CHECK(run.negative);
        if (op == operator_type::one_hot) CHECK(run.high_word);
    }
}

TEST_CASE("d3d12: a gather kernel that reads a tuple's first index for each entry fails the GATHER_ND suite",
          "[d3d12][random]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::gather_tuple_first_entry});
    const indexed_run run = run_indexed(wrong, operator_type::gather_nd, 200, 20261202, false);
    CHECK(run.failures > 10);
}

TEST_CASE("d3d12: a ONE_HOT kernel that ignores a 64-bit index's high word fails the ONE_HOT suite", "[d3d12][random]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::one_hot_low_word_only});
    const indexed_run run = run_indexed(wrong, operator_type::one_hot, 200, 20261204, false);
    CHECK(run.failures > 5);
}

namespace {

/// How many of `cases` random SCATTER_ELEMENTS or SCATTER_ND descs (the parity run's draws,
/// parity::detail::random_indexed: ranks 1 to 8, every data and index type, strided and broadcast
/// inputs and updates, outputs with gaps) the GPU gets bit for bit as the CPU, from output buffers
/// of the same random bytes. Every other case's indices repeat targets (index_input's duplicates):
/// the GPU must keep the last update, as the CPU does.
struct scatter_run {
    int failures = 0;
    std::set<std::size_t> widths, ranks;
    std::set<data_type> index_types;
    std::size_t with_duplicates = 0;
    bool negative = false, broadcast_updates = false, broadcast_input = false, gaps = false;
};

scatter_run run_scatter(d3d12::context& gpu, operator_type op, std::size_t cases, bool report) {
    rng_t rng(op == operator_type::scatter_elements ? 20261201 : 20261202);
    scatter_run run;
    for (std::size_t k = 0; k < cases; ++k) {
        const operator_desc desc = parity::detail::random_indexed_base(rng, op, k % 8 + 1);
        REQUIRE_FALSE(validate(desc));
        const auto ins = inputs_of(desc);
        const buffer_tensor_desc &in = ins[0].desc(), &idx = ins[1].desc(), &upd = ins[2].desc();
        run.widths.insert(element_size(in.data_type));
        run.ranks.insert(in.sizes.size());
        run.index_types.insert(idx.data_type);
        run.broadcast_updates |= broadcasts(upd);
        run.broadcast_input |= broadcasts(in);
        run.gaps |= has_gaps(outputs_of(desc).front().desc());

        const auto input = random_bytes(rng, in.total_tensor_size_in_bytes);
        const auto indices = parity::detail::index_input(desc, rng(), k % 2 == 1);
        const auto updates = random_bytes(rng, upd.total_tensor_size_in_bytes);
        const bool repeats = std::visit(
            [&](const auto& d) {
                if constexpr (is_scatter_desc_v<std::remove_cvref_t<decltype(d)>>)
                    return !dmlref::detail::scatter_duplicates(d, indices).empty();
                else return false;
            },
            desc);
        run.with_duplicates += repeats ? 1 : 0;
        run.negative |= has_negative(indices, idx.data_type);
        check_inputs(gpu, rng, desc, {input, indices, updates},
                     fmt::format("case {}{}", k, repeats ? " (duplicate targets)" : ""), report, run.failures);
    }
    return run;
}

void check_scatter_coverage(const scatter_run& run, std::size_t cases) {
    CHECK(run.failures == 0);
    CHECK(run.widths == std::set<std::size_t>{1, 2, 4, 8});
    CHECK(run.ranks == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(run.index_types.size() == 4);
    CHECK(run.negative);
    CHECK(run.broadcast_updates);
    CHECK(run.broadcast_input);
    CHECK(run.gaps);
    CHECK(run.with_duplicates > cases / 10);
}

} // namespace

TEST_CASE("d3d12: GPU == CPU on 800 random SCATTER_ELEMENTS descs, duplicate targets included (the last update stays)",
          "[d3d12][random]") {
    d3d12::context gpu;
    const scatter_run run = run_scatter(gpu, operator_type::scatter_elements, 800, true);
    check_scatter_coverage(run, 800);
}

TEST_CASE("d3d12: a scatter kernel that keeps the first of duplicate updates fails the SCATTER_ELEMENTS suite",
          "[d3d12][random]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::scatter_first_wins});
    const scatter_run run = run_scatter(wrong, operator_type::scatter_elements, 800, false);
    CHECK(run.failures > 20);
}

TEST_CASE("d3d12: GPU == CPU on 800 random SCATTER_ND descs, duplicate tuples included (the last update stays)",
          "[d3d12][random]") {
    d3d12::context gpu;
    const scatter_run run = run_scatter(gpu, operator_type::scatter_nd, 800, true);
    check_scatter_coverage(run, 800);
}

TEST_CASE("d3d12: a scatter kernel that keeps the first of duplicate updates fails the SCATTER_ND suite",
          "[d3d12][random]") {
    d3d12::context wrong({.fault = d3d12::testing::kernel_fault::scatter_first_wins});
    const scatter_run run = run_scatter(wrong, operator_type::scatter_nd, 800, false);
    CHECK(run.failures > 20);
}
