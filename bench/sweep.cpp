// dmlref_sweep: random valid cases of 16-64 MiB output, every op, timed against memcpy of the
// same output bytes and against the per-element textbook evaluator (<dmlref/textbook.hpp>).
//
// The operators drawn: DEPTH_TO_SPACE1, SPACE_TO_DEPTH1, SLICE1, PADDING1, ELEMENT_WISE_IDENTITY
// (transposes, broadcasts, strided copies through the layouts), TILE, SLICE_GRAD, UPSAMPLE_2D,
// JOIN and SPLIT, each through the desc-level execute over one buffer per tensor. The summary
// gives min, p10 and median ratio to memcpy per operator.
//
// The benchmark's workloads are the shapes users run most; this sweep looks for the shapes where
// the engine falls off a cliff instead: block sizes 1 to 8 in both orders, packed, permuted,
// padded-pitch, column-major and broadcast inputs, packed, permuted, padded-pitch and column-major
// outputs, every pad mode with pads up to several times their axis, signed slice strides, element
// widths 1, 2, 4 and 8. Each case passes if dmlref runs at least 0.1x memcpy and at least as fast
// per output element as the per-element evaluator; the program exits 1 if any case misses.
//
// Axis 0 of every case is a batch axis the op maps one to one (DEPTH_TO_SPACE's N, a slice's
// whole window with stride 1 or -1, a pad of 0), so that the case with a batch of one is the same
// case on 1/N of the output. The per-element evaluator would take minutes on a full 64 MiB output
// (0.00-0.01x memcpy), so it is timed on that one batch item (at most about two million elements)
// and compared per output element; the item's output is also checked bit for bit against
// dmlref's. Its item is small enough to sit in the caches, which can only flatter it.
//
// With --transposes it draws transposes alone: a random permutation of a rank 2-6 tensor of 1-,
// 2-, 4- or 8-byte elements, 16-64 MiB, packed or padded-pitch on either side (an
// ELEMENT_WISE_IDENTITY over an input whose strides follow the permutation),
// and its summary gives the ratios per element width and how many cases run under 0.1x and 0.3x.
//
// Usage: dmlref_sweep [--cases N] [--seed S] [--repetitions R] [--only K] [--transposes] [--cpu-time]
// (defaults 300, 1, 5; --only times case K of the N alone; --cpu-time times by the thread's CPU
// clock where the platform has one, see now_seconds())

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dmlref/dmlref.hpp>
#include <dmlref/textbook.hpp>

#include "seeded_random.hpp"

using namespace dmlref;

namespace {

using sizes_t = std::vector<std::uint32_t>;
using clock_type = std::chrono::steady_clock;

constexpr std::uint64_t mib = std::uint64_t{1} << 20;
constexpr std::uint64_t max_input_bytes = 192 * mib; // the 2-core VM has 23 GB shared with others

enum class layout_kind { packed, permuted, padded, column_major, broadcast };
constexpr const char* layout_names[] = {"packed", "permuted", "padded", "column-major", "broadcast"};

// Every draw is the project's own (seeded_random.hpp), so a seed names the same cases with every
// standard library.
struct rng_type {
    dmlref::seeded::generator engine;
    std::uint32_t in(std::uint32_t low, std::uint32_t high) { return dmlref::seeded::pick(engine, low, high); }
    bool chance(double p) { return dmlref::seeded::unit(engine) < p; }
    template <class T> const T& pick(const std::vector<T>& from) {
        return from[dmlref::seeded::below(engine, static_cast<std::uint32_t>(from.size()))];
    }
};

std::uint64_t product(const sizes_t& s) {
    return std::accumulate(s.begin(), s.end(), std::uint64_t{1}, [](std::uint64_t a, std::uint32_t b) { return a * b; });
}

/// Element strides of `kind` for `sizes`, or nullopt for packed. The batch axis 0 never broadcasts.
std::optional<sizes_t> strides_of(layout_kind kind, const sizes_t& sizes, rng_type& rng) {
    const std::size_t rank = sizes.size();
    sizes_t strides(rank);
    std::vector<std::size_t> order(rank); // fastest axis first
    for (std::size_t i = 0; i < rank; ++i) order[i] = rank - 1 - i;
    switch (kind) {
    case layout_kind::packed: return std::nullopt;
    case layout_kind::permuted: dmlref::seeded::shuffle(order.begin(), order.end(), rng.engine); break;
    case layout_kind::column_major: std::reverse(order.begin(), order.end()); break;
    default: break;
    }
    std::uint64_t stride = 1;
    for (std::size_t axis : order) {
        strides[axis] = static_cast<std::uint32_t>(stride);
        stride *= sizes[axis];
        if (kind == layout_kind::padded) stride += rng.in(1, 17); // a pitch wider than the rows
    }
    if (kind == layout_kind::broadcast) {
        std::vector<std::size_t> wide;
        for (std::size_t i = 1; i < rank; ++i)
            if (sizes[i] > 1) wide.push_back(i);
        if (!wide.empty()) strides[rng.pick(wide)] = 0;
    }
    return strides;
}

struct sweep_case {
    std::string op;          ///< the operator, for the summary
    std::string what;
    operator_desc desc;      ///< the case
    operator_desc one_batch; ///< the same case with a batch of one
    std::uint64_t elements = 0, batch_elements = 0, bytes = 0;
};

/// Sizes of `rank` axes after the batch axis whose product is about `target` elements, each at
/// least `minimum`; the last axis gets the rest.
sizes_t split_elements(rng_type& rng, std::size_t rank, std::uint64_t target, std::uint32_t minimum) {
    sizes_t s(rank);
    std::uint64_t left = target;
    for (std::size_t i = 0; i + 1 < rank; ++i) {
        const auto cap = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(left / minimum, minimum, 64));
        s[i] = rng.in(minimum, std::max(minimum, std::min<std::uint32_t>(cap, rng.chance(0.3) ? 3 : 64)));
        left = std::max<std::uint64_t>(left / s[i], 1);
    }
    s[rank - 1] = static_cast<std::uint32_t>(std::max<std::uint64_t>(left, minimum));
    return s;
}

const std::vector<data_type> types = {data_type::uint8, data_type::float16, data_type::float32, data_type::int64};

/// The bytes of every buffer the desc binds on one side, in binding order.
std::vector<std::uint64_t> buffer_sizes(const std::vector<bound_tensor>& tensors) {
    std::vector<std::uint64_t> bytes;
    for (const bound_tensor& t : tensors) bytes.push_back(t.desc().total_tensor_size_in_bytes);
    return bytes;
}

std::uint64_t input_bytes(const operator_desc& d) {
    const std::vector<std::uint64_t> sizes = buffer_sizes(inputs_of(d));
    return std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
}

/// One random case, or nullopt when its sizes miss the 16-64 MiB output or the input cap.
std::optional<sweep_case> random_case(rng_type& rng) {
    const data_type type = rng.pick(types);
    const std::uint64_t w = element_size(type);
    const std::uint64_t target_bytes = rng.in(16, 63) * mib + rng.in(0, 1u << 20);
    const std::uint64_t target = target_bytes / w;
    const auto in_kind = static_cast<layout_kind>(rng.in(0, 4));
    const auto out_kind = static_cast<layout_kind>(rng.in(0, 3)); // outputs never broadcast
    // A batch of at least 8, and items of about a million elements or fewer (the evaluator's sample).
    const auto batch = static_cast<std::uint32_t>(std::max<std::uint64_t>(rng.in(8, 64), (target + (1u << 20) - 1) >> 20));
    const std::uint64_t item = target / batch;
    const std::uint32_t op = rng.in(0, 9);

    sizes_t in_sizes, out_sizes;
    std::string what;
    auto make = [&](std::uint32_t n, const sizes_t& in_s, const sizes_t& out_s, const std::optional<sizes_t>& in_strides,
                    const std::optional<sizes_t>& out_strides) {
        sizes_t a = in_s, b = out_s;
        a[0] = b[0] = n;
        return std::pair{make_buffer_tensor_desc(type, a, in_strides), make_buffer_tensor_desc(type, b, out_strides)};
    };
    std::function<operator_desc(std::uint32_t, const std::optional<sizes_t>&, const std::optional<sizes_t>&)> build;
    std::string op_name;

    if (op <= 1) { // depth to space, space to depth: {N, C, H, W}
        const std::uint32_t b = rng.in(1, 8);
        const auto order = rng.chance(0.5) ? depth_space_order::depth_column_row : depth_space_order::column_row_depth;
        const std::uint32_t c = rng.in(1, 12);
        std::uint64_t left = std::max<std::uint64_t>(item / (std::uint64_t{c} * b * b), 1);
        const auto wd = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(rng.in(1, 512), 1, left));
        const auto h = static_cast<std::uint32_t>(std::max<std::uint64_t>(left / wd, 1));
        const sizes_t deep{batch, c * b * b, h, wd}, wide{batch, c, h * b, wd * b};
        const bool to_space = op == 0;
        in_sizes = to_space ? deep : wide;
        out_sizes = to_space ? wide : deep;
        what = fmt::format("{} B={} {}", to_space ? "DEPTH_TO_SPACE1" : "SPACE_TO_DEPTH1", b, to_string(order));
        build = [=, &make](std::uint32_t n, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            const auto [i, o] = make(n, in_sizes, out_sizes, is, os);
            if (to_space) return depth_to_space1_desc{i, o, b, order};
            return space_to_depth1_desc{i, o, b, order};
        };
    } else if (op == 2) { // SLICE1, rank 2 to 5
        const std::size_t rank = rng.in(2, 5);
        const sizes_t inner = split_elements(rng, rank - 1, item, 1);
        out_sizes.push_back(batch);
        out_sizes.insert(out_sizes.end(), inner.begin(), inner.end());
        std::vector<std::uint32_t> offsets(rank, 0), windows(rank);
        std::vector<std::int32_t> strides(rank, 1);
        in_sizes.resize(rank);
        in_sizes[0] = batch;
        windows[0] = batch;
        strides[0] = rng.chance(0.5) ? 1 : -1;
        for (std::size_t i = 1; i < rank; ++i) {
            const std::uint32_t step = rng.chance(0.5) ? 1 : rng.in(1, 4);
            strides[i] = rng.chance(0.4) ? -static_cast<std::int32_t>(step) : static_cast<std::int32_t>(step);
            windows[i] = (out_sizes[i] - 1) * step + 1 + (out_sizes[i] > 1 ? rng.in(0, step - 1) : 0);
            offsets[i] = rng.in(0, 5);
            in_sizes[i] = offsets[i] + windows[i] + rng.in(0, 5);
        }
        what = fmt::format("SLICE1 strides {}", fmt::join(strides, ","));
        build = [=, &make](std::uint32_t n, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            const auto [i, o] = make(n, in_sizes, out_sizes, is, os);
            std::vector<std::uint32_t> win = windows;
            win[0] = n;
            return slice1_desc{i, o, offsets, win, strides};
        };
    } else if (op == 4) { // ELEMENT_WISE_IDENTITY, rank 2 to 6: transposes, broadcasts, strided copies by the layouts
        const std::size_t rank = rng.in(2, 6);
        const sizes_t inner = split_elements(rng, rank - 1, item, 1);
        in_sizes.push_back(batch);
        in_sizes.insert(in_sizes.end(), inner.begin(), inner.end());
        out_sizes = in_sizes;
        what = "ELEMENT_WISE_IDENTITY";
        build = [=, &make](std::uint32_t n, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            const auto [i, o] = make(n, in_sizes, out_sizes, is, os);
            return element_wise_identity_desc{i, o, std::nullopt};
        };
    } else if (op == 5) { // TILE, rank 2 to 5, repeats 1 to 4 past the batch axis
        const std::size_t rank = rng.in(2, 5);
        std::vector<std::uint32_t> repeats(rank, 1);
        std::uint64_t grown = 1;
        for (std::size_t i = 1; i < rank; ++i) {
            repeats[i] = rng.chance(0.5) ? rng.in(1, 4) : 1;
            grown *= repeats[i];
        }
        const sizes_t inner = split_elements(rng, rank - 1, std::max<std::uint64_t>(item / grown, 1), 1);
        in_sizes.push_back(batch);
        in_sizes.insert(in_sizes.end(), inner.begin(), inner.end());
        out_sizes = in_sizes;
        for (std::size_t i = 0; i < rank; ++i) out_sizes[i] *= repeats[i];
        what = fmt::format("TILE repeats {}", fmt::join(repeats, ","));
        build = [=, &make](std::uint32_t n, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            const auto [i, o] = make(n, in_sizes, out_sizes, is, os);
            return tile_desc{i, o, repeats};
        };
    } else if (op == 6) { // SLICE_GRAD, rank 2 to 5: a SLICE1 window scattered into a zeroed output
        const std::size_t rank = rng.in(2, 5);
        const sizes_t inner = split_elements(rng, rank - 1, item, 1);
        out_sizes.push_back(batch); // the output gradient: the tensor the window lies in
        out_sizes.insert(out_sizes.end(), inner.begin(), inner.end());
        in_sizes = out_sizes;       // the input gradient: the window's elements
        std::vector<std::uint32_t> offsets(rank, 0), windows(rank);
        std::vector<std::int32_t> strides(rank, 1);
        windows[0] = batch;
        strides[0] = rng.chance(0.5) ? 1 : -1;
        for (std::size_t i = 1; i < rank; ++i) {
            const std::uint32_t size = out_sizes[i];
            const std::uint32_t step = rng.chance(0.5) ? 1 : rng.in(1, 4);
            offsets[i] = rng.in(0, std::min<std::uint32_t>(5, size - 1));
            std::uint32_t count = (size - offsets[i] - 1) / step + 1;
            if (count > 1 && rng.chance(0.5)) count -= rng.in(1, std::min<std::uint32_t>(count - 1, 3));
            const std::uint32_t span = (count - 1) * step + 1;
            windows[i] = span + rng.in(0, std::min(step - 1, size - offsets[i] - span));
            strides[i] = rng.chance(0.4) ? -static_cast<std::int32_t>(step) : static_cast<std::int32_t>(step);
            in_sizes[i] = count;
        }
        what = fmt::format("SLICE_GRAD offsets {} windows {} strides {}", fmt::join(offsets, ","), fmt::join(windows, ","),
                           fmt::join(strides, ","));
        build = [=, &make](std::uint32_t n, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            const auto [i, o] = make(n, in_sizes, out_sizes, is, os);
            std::vector<std::uint32_t> win = windows;
            win[0] = n;
            return slice_grad_desc{i, o, offsets, win, strides};
        };
    } else if (op == 7) { // UPSAMPLE_2D nearest, {N, C, H, W}, scales 1 to 4 on H and W
        const std::uint32_t sh = rng.in(1, 4), sw = rng.in(1, 4);
        const std::uint32_t c = rng.in(1, 64);
        const std::uint64_t left = std::max<std::uint64_t>(item / (std::uint64_t{c} * sh * sw), 1);
        const auto wd = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(rng.in(1, 512), 1, left));
        const auto h = static_cast<std::uint32_t>(std::max<std::uint64_t>(left / wd, 1));
        in_sizes = {batch, c, h, wd};
        out_sizes = {batch, c, h * sh, wd * sw};
        what = fmt::format("UPSAMPLE_2D scale {}x{}", sh, sw);
        build = [=, &make](std::uint32_t n, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            const auto [i, o] = make(n, in_sizes, out_sizes, is, os);
            return upsample_2d_desc{i, o, size_2d{sw, sh}, interpolation_mode::nearest_neighbor};
        };
    } else if (op == 8 || op == 9) { // JOIN or SPLIT, rank 2 to 5: 1 to 5 parts along an axis past the batch
        const bool join = op == 8;
        const std::size_t rank = rng.in(2, 5);
        const sizes_t inner = split_elements(rng, rank - 1, item, 1);
        in_sizes.push_back(batch);
        in_sizes.insert(in_sizes.end(), inner.begin(), inner.end());
        out_sizes = in_sizes; // the whole, on its side (the other side's layout is the parts')
        const auto axis = static_cast<std::uint32_t>(rng.in(1, static_cast<std::uint32_t>(rank - 1)));
        const std::uint32_t extent = in_sizes[axis];
        const std::uint32_t count = rng.in(1, std::min<std::uint32_t>(5, extent));
        std::vector<std::uint32_t> cuts{0, extent}; // count - 1 distinct cuts inside the axis
        while (cuts.size() < count + 1) {
            const std::uint32_t cut = rng.in(1, extent - 1);
            if (std::find(cuts.begin(), cuts.end(), cut) == cuts.end()) cuts.push_back(cut);
        }
        std::sort(cuts.begin(), cuts.end());
        std::vector<sizes_t> part_sizes;
        std::vector<std::optional<sizes_t>> part_strides;
        std::vector<std::string> part_kinds;
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            sizes_t s = in_sizes;
            s[axis] = cuts[k + 1] - cuts[k];
            const auto kind = static_cast<layout_kind>(rng.in(0, join ? 4 : 3)); // outputs never broadcast
            part_sizes.push_back(s);
            part_strides.push_back(strides_of(kind, s, rng));
            part_kinds.push_back(fmt::format("{}{}", layout_names[static_cast<int>(kind)],
                                             part_strides.back() ? fmt::format(" ({})", fmt::join(*part_strides.back(), ","))
                                                                 : std::string()));
        }
        std::vector<std::uint32_t> extents;
        for (const sizes_t& s : part_sizes) extents.push_back(s[axis]);
        what = fmt::format("{} axis {} parts {} [{}]", join ? "JOIN" : "SPLIT", axis, fmt::join(extents, ","),
                           fmt::join(part_kinds, "; "));
        build = [=](std::uint32_t n, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            sizes_t whole_sizes = in_sizes;
            whole_sizes[0] = n;
            std::vector<buffer_tensor_desc> parts;
            for (std::size_t k = 0; k < part_sizes.size(); ++k) {
                sizes_t s = part_sizes[k];
                s[0] = n;
                parts.push_back(make_buffer_tensor_desc(type, s, part_strides[k]));
            }
            if (join) return join_desc{parts, make_buffer_tensor_desc(type, whole_sizes, os), axis};
            return split_desc{make_buffer_tensor_desc(type, whole_sizes, is), parts, axis};
        };
    } else { // PADDING1, rank 2 to 5, every mode
        const std::size_t rank = rng.in(2, 5);
        const auto mode = static_cast<padding_mode>(rng.in(0, 4));
        std::vector<std::uint32_t> start(rank, 0), end(rank, 0);
        const sizes_t inner = split_elements(rng, rank - 1, item, mode == padding_mode::reflection ? 2 : 1);
        in_sizes.push_back(batch);
        in_sizes.insert(in_sizes.end(), inner.begin(), inner.end());
        out_sizes = in_sizes;
        for (std::size_t i = 1; i < rank; ++i) {
            const std::uint32_t n = in_sizes[i];
            // Mostly small pads; some several times the axis (the folds' periods), on tiny axes.
            const std::uint32_t most = rng.chance(0.25) ? 3 * n + 2 : std::min<std::uint32_t>(8, n + 2);
            start[i] = rng.in(0, most);
            end[i] = rng.in(0, most);
            out_sizes[i] = n + start[i] + end[i];
        }
        // The pads grew the output: shrink the batch back towards the target.
        const std::uint64_t grown = product(out_sizes) / batch;
        const auto n = static_cast<std::uint32_t>(std::max<std::uint64_t>(target / std::max<std::uint64_t>(grown, 1), 1));
        in_sizes[0] = out_sizes[0] = n;
        what = fmt::format("PADDING1 {} start {} end {}", to_string(mode), fmt::join(start, ","), fmt::join(end, ","));
        build = [=, &make](std::uint32_t b0, const std::optional<sizes_t>& is, const std::optional<sizes_t>& os) -> operator_desc {
            const auto [i, o] = make(b0, in_sizes, out_sizes, is, os);
            return padding1_desc{i, o, mode, type, scalar_union::of(std::uint64_t{0x5a5a5a5a5a5a5a5au}), start, end};
        };
    }

    sweep_case c;
    const std::uint32_t n = out_sizes[0];
    const auto in_strides = strides_of(in_kind, in_sizes, rng), out_strides = strides_of(out_kind, out_sizes, rng);
    c.desc = build(n, in_strides, out_strides);
    c.op = std::string(to_string(type_of(c.desc)));
    c.one_batch = build(1, in_strides, out_strides);
    c.elements = product(out_sizes);
    c.batch_elements = c.elements / n;
    c.bytes = c.elements * w;
    const std::uint64_t in_bytes = input_bytes(c.desc);
    if (c.bytes < 16 * mib || c.bytes > 64 * mib || in_bytes > max_input_bytes || n < 2 || c.batch_elements > (2u << 20))
        return std::nullopt;
    // Strides where they are not packed: a case's walk depends on them, and a permuted layout's
    // order is drawn.
    auto strided = [](const std::optional<sizes_t>& strides) {
        return strides ? fmt::format(" (strides {})", fmt::join(*strides, ",")) : std::string();
    };
    if (op == 8)
        c.what = fmt::format("{} {} out {} {}{}", what, to_string(type), fmt::join(out_sizes, "x"),
                             layout_names[static_cast<int>(out_kind)], strided(out_strides));
    else if (op == 9)
        c.what = fmt::format("{} {} in {} {}{}", what, to_string(type), fmt::join(in_sizes, "x"),
                             layout_names[static_cast<int>(in_kind)], strided(in_strides));
    else
        c.what = fmt::format("{} {} in {} {}{} out {} {}{}", what, to_string(type), fmt::join(in_sizes, "x"),
                             layout_names[static_cast<int>(in_kind)], strided(in_strides), fmt::join(out_sizes, "x"),
                             layout_names[static_cast<int>(out_kind)], strided(out_strides));
    if (validate(c.desc, newest_feature_level) || validate(c.one_batch, newest_feature_level)) return std::nullopt;
    return c;
}

/// One random transpose, or nullopt when its sizes miss the 16-64 MiB output or the input cap: the
/// output is the input's axes in another order. Axis 0 is the batch the evaluator samples (any
/// axis of the input's memory order, as the others).
std::optional<sweep_case> random_transpose(rng_type& rng) {
    const data_type type = rng.pick(types);
    const std::uint64_t w = element_size(type);
    const std::uint64_t target = (rng.in(16, 63) * mib + rng.in(0, 1u << 20)) / w;
    const std::size_t rank = rng.in(2, 6);
    const auto batch = static_cast<std::uint32_t>(std::max<std::uint64_t>(rng.in(2, 64), (target + (1u << 20) - 1) >> 20));
    sizes_t sizes{batch};
    if (rank > 1) {
        const sizes_t inner = split_elements(rng, rank - 1, target / batch, 1);
        sizes.insert(sizes.end(), inner.begin(), inner.end());
    }
    // The input's memory order: a permutation other than the output's (axis rank - 1 fastest).
    std::vector<std::size_t> order(rank); // fastest axis first
    for (std::size_t i = 0; i < rank; ++i) order[i] = rank - 1 - i;
    const std::vector<std::size_t> identity = order;
    while (order == identity) dmlref::seeded::shuffle(order.begin(), order.end(), rng.engine);
    const bool in_padded = rng.chance(0.5), out_padded = rng.chance(0.5);
    sizes_t in_strides(rank);
    std::uint64_t stride = 1;
    for (std::size_t axis : order) {
        in_strides[axis] = static_cast<std::uint32_t>(stride);
        stride *= sizes[axis];
        if (in_padded) stride += rng.in(1, 17);
    }
    std::optional<sizes_t> out_strides;
    if (out_padded) {
        out_strides = sizes_t(rank);
        stride = 1;
        for (std::size_t axis = rank; axis-- > 0;) {
            (*out_strides)[axis] = static_cast<std::uint32_t>(stride);
            stride = stride * sizes[axis] + rng.in(1, 17);
        }
    }
    auto build = [&](std::uint32_t n) -> operator_desc {
        sizes_t s = sizes;
        s[0] = n;
        return element_wise_identity_desc{make_buffer_tensor_desc(type, s, in_strides),
                                          make_buffer_tensor_desc(type, s, out_strides), std::nullopt};
    };
    sweep_case c;
    c.op = "ELEMENT_WISE_IDENTITY";
    c.desc = build(batch);
    c.one_batch = build(1);
    c.elements = product(sizes);
    c.batch_elements = c.elements / batch;
    c.bytes = c.elements * w;
    const std::uint64_t in_bytes = input_bytes(c.desc);
    if (c.bytes < 16 * mib || c.bytes > 64 * mib || in_bytes > max_input_bytes || c.batch_elements > (2u << 20))
        return std::nullopt;
    c.what = fmt::format("TRANSPOSE {} {} in {} (strides {}) out {}{}", to_string(type), fmt::join(sizes, "x"),
                         in_padded ? "padded" : "packed", fmt::join(in_strides, ","), out_padded ? "padded" : "packed",
                         out_strides ? fmt::format(" (strides {})", fmt::join(*out_strides, ",")) : std::string());
    if (validate(c.desc, newest_feature_level) || validate(c.one_batch, newest_feature_level)) return std::nullopt;
    return c;
}

std::vector<std::byte> pattern(std::uint64_t count, std::uint32_t seed) {
    std::vector<std::byte> bytes(count);
    std::uint32_t state = seed;
    for (std::byte& b : bytes) {
        state = state * 1664525u + 1013904223u;
        b = static_cast<std::byte>(state >> 24);
    }
    return bytes;
}

/// With --cpu-time, the calling thread's CPU time (where the platform has it) rather than the wall
/// clock: on a host shared with other work, a call the scheduler interrupts is not charged for
/// the wait, which falls on long calls more often than on short ones (memory bandwidth shared with
/// the other work still is).
bool use_cpu_time = false;

double now_seconds() {
#ifdef CLOCK_THREAD_CPUTIME_ID
    if (use_cpu_time) {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    }
#endif
    return std::chrono::duration<double>(clock_type::now().time_since_epoch()).count();
}

template <class Body> double seconds(Body body) {
    const double t0 = now_seconds();
    body();
    return now_seconds() - t0;
}

double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double at = q * static_cast<double>(v.size() - 1);
    const auto low = static_cast<std::size_t>(at);
    const std::size_t high = std::min(low + 1, v.size() - 1);
    return v[low] + (v[high] - v[low]) * (at - static_cast<double>(low));
}

/// Buffers for every tensor a desc binds, and the spans execute takes over them.
struct buffers {
    std::vector<std::vector<std::byte>> inputs, outputs;
    std::vector<std::span<const std::byte>> in_spans;
    std::vector<std::span<std::byte>> out_spans;
    void bind() {
        in_spans.assign(inputs.begin(), inputs.end());
        out_spans.assign(outputs.begin(), outputs.end());
    }
};

} // namespace

int main(int argc, char** argv) {
    std::uint64_t cases = 300, seed = 1, only = ~std::uint64_t{0};
    int repetitions = 5;
    bool transposes = false;
    for (int i = 1; i < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--transposes" || flag == "--cpu-time") {
            (flag == "--transposes" ? transposes : use_cpu_time) = true;
            --i;
        } else if (i + 1 == argc) {
            std::fprintf(stderr, "usage: dmlref_sweep [--cases N] [--seed S] [--repetitions R] [--only K] [--transposes] [--cpu-time]\n");
            return 2;
        } else if (flag == "--cases") cases = std::stoull(argv[i + 1]);
        else if (flag == "--seed") seed = std::stoull(argv[i + 1]);
        else if (flag == "--repetitions") repetitions = std::max(1, std::stoi(argv[i + 1]));
        else if (flag == "--only") only = std::stoull(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: dmlref_sweep [--cases N] [--seed S] [--repetitions R] [--only K] [--transposes] [--cpu-time]\n");
            return 2;
        }
    }
    rng_type rng{dmlref::seeded::generator(seed)};
    std::printf("dmlref_sweep: %llu %scases, seed %llu, %d repetitions; x_memcpy: memcpy's best time for the "
                "output's bytes over dmlref's (desc-level execute, one thread), the two alternating; "
                "x_naive: the per-element evaluator's time per output element, timed on one batch item, over "
                "dmlref's on the whole case\n",
                static_cast<unsigned long long>(cases), transposes ? "transpose " : "", static_cast<unsigned long long>(seed),
                repetitions);
    std::vector<double> to_memcpy, to_naive;
    std::vector<std::vector<double>> by_width(9); // x_memcpy per element width
    std::map<std::string, std::vector<double>> by_op; // x_memcpy per operator
    std::uint64_t misses = 0, skipped = 0;
    std::vector<std::byte> copy_from, copy_to;
    for (std::uint64_t k = 0; k < cases;) {
        const std::optional<sweep_case> c = transposes ? random_transpose(rng) : random_case(rng);
        if (!c) {
            ++skipped;
            continue;
        }
        if (only != ~std::uint64_t{0} && k != only) { // the same draws, case K alone timed
            ++k;
            continue;
        }
        buffers whole;
        for (std::uint64_t bytes : buffer_sizes(inputs_of(c->desc)))
            whole.inputs.push_back(pattern(bytes, static_cast<std::uint32_t>(k + 1 + whole.inputs.size())));
        for (std::uint64_t bytes : buffer_sizes(outputs_of(c->desc))) whole.outputs.emplace_back(bytes);
        whole.bind();
        copy_from = pattern(c->bytes, 7);
        copy_to.assign(c->bytes, std::byte{0});
        execute(c->desc, whole.in_spans, whole.out_spans); // untimed: the first touch of the output's pages
        // memcpy and dmlref alternate; each keeps its best time. On this shared 2-core host a
        // slow moment can hit one call of a pair and not the other (paired medians of 3 moved
        // 0.13-0.85 between runs of one case); the best of several is steadier.
        double memcpy_best = 1e30, dml_best = 1e30;
        for (int r = 0; r < repetitions; ++r) {
            memcpy_best = std::min(memcpy_best, seconds([&] { std::memcpy(copy_to.data(), copy_from.data(), c->bytes); }));
            dml_best = std::min(dml_best, seconds([&] { execute(c->desc, whole.in_spans, whole.out_spans); }));
        }
        const double x_memcpy = memcpy_best / dml_best;

        // The evaluator on one batch item, and dmlref's output of the same item against it.
        // Batch item 0 lies at the same offsets in the one-item tensors, whose buffers are a
        // prefix of the whole's.
        buffers expected, got;
        const std::vector<std::uint64_t> item_in = buffer_sizes(inputs_of(c->one_batch));
        for (std::size_t b = 0; b < item_in.size(); ++b)
            expected.inputs.emplace_back(whole.inputs[b].begin(), whole.inputs[b].begin() + static_cast<std::ptrdiff_t>(item_in[b]));
        for (std::uint64_t bytes : buffer_sizes(outputs_of(c->one_batch))) expected.outputs.push_back(pattern(bytes, 3));
        got = expected;
        expected.bind();
        got.bind();
        const double naive = seconds([&] { textbook::execute(c->one_batch, expected.in_spans, expected.out_spans); });
        execute(c->one_batch, got.in_spans, got.out_spans);
        const bool exact = got.outputs == expected.outputs;
        const double x_naive = (naive / static_cast<double>(c->batch_elements)) / (dml_best / static_cast<double>(c->elements));

        const bool miss = x_memcpy < 0.1 || x_naive < 1.0 || !exact;
        misses += miss ? 1 : 0;
        to_memcpy.push_back(x_memcpy);
        to_naive.push_back(x_naive);
        by_width[c->bytes / c->elements].push_back(x_memcpy);
        by_op[c->op].push_back(x_memcpy);
        std::printf("%3llu %s  %.1f MiB  x_memcpy %.2f  x_naive %.1f%s%s\n", static_cast<unsigned long long>(k),
                    c->what.c_str(), static_cast<double>(c->bytes) / static_cast<double>(mib), x_memcpy, x_naive,
                    exact ? "" : "  MISMATCH", miss ? "  MISS" : "");
        std::fflush(stdout);
        ++k;
    }
    std::printf("\nsummary: %zu cases (%llu drawn cases outside the size limits redrawn); x_memcpy min %.2f, p10 %.2f, "
                "median %.2f; x_naive min %.1f; %llu below 0.1x memcpy or the evaluator or not bit-exact\n",
                to_memcpy.size(), static_cast<unsigned long long>(skipped), quantile(to_memcpy, 0.0),
                quantile(to_memcpy, 0.1), quantile(to_memcpy, 0.5), quantile(to_naive, 0.0),
                static_cast<unsigned long long>(misses));
    auto below = [](const std::vector<double>& v, double limit) { return std::count_if(v.begin(), v.end(), [&](double x) { return x < limit; }); };
    if (!to_memcpy.empty()) {
        std::printf("x_memcpy by operator (cases, min, p10, median, under 0.1x, under 0.3x):\n");
        for (const auto& [name, ratios] : by_op)
            std::printf("  %-22s %3zu  %.2f  %.2f  %.2f  %3td  %3td\n", name.c_str(), ratios.size(), quantile(ratios, 0.0),
                        quantile(ratios, 0.1), quantile(ratios, 0.5), below(ratios, 0.1), below(ratios, 0.3));
    }
    if (transposes && !to_memcpy.empty()) {
        std::printf("x_memcpy by element width (cases, min, p10, median, under 0.1x, under 0.3x):\n");
        for (std::size_t width : {1u, 2u, 4u, 8u})
            if (!by_width[width].empty())
                std::printf("  %zu-byte  %3zu  %.2f  %.2f  %.2f  %3td  %3td\n", width, by_width[width].size(),
                            quantile(by_width[width], 0.0), quantile(by_width[width], 0.1), quantile(by_width[width], 0.5),
                            below(by_width[width], 0.1), below(by_width[width], 0.3));
        std::printf("  all     %3zu  %.2f  %.2f  %.2f  %3td  %3td\n", to_memcpy.size(), quantile(to_memcpy, 0.0),
                    quantile(to_memcpy, 0.1), quantile(to_memcpy, 0.5), below(to_memcpy, 0.1), below(to_memcpy, 0.3));
    }
    return misses == 0 ? 0 : 1;
}
