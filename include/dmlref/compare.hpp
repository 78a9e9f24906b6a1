#pragma once
/// \file compare.hpp
/// Bit-exact comparison of two tensors, and a report that says where they differ: the first
/// mismatches (coordinates, both values, both bit patterns), per axis the coordinate ranges that
/// hold mismatches, and, given the operator that produced the tensor, where each listed element
/// comes from (the input coordinate or the padding constant, by textbook::source_of) and the
/// regions of its output (padding borders and interior, block offsets of depth/space, window
/// edges of a slice).
///
///   auto report = dmlref::compare(dmlref::data_type::float32, sizes, expected_bytes, actual_bytes,
///                                 {}, &desc);
///   if (!report.equal()) std::cout << report.to_string();

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data_type.hpp"
#include "error.hpp"
#include "format.hpp"
#include "operator.hpp"
#include "strided_view.hpp"
#include "textbook.hpp"

namespace dmlref {

struct compare_options {
    bool nan_equal = false;      ///< any NaN equals any NaN (else NaNs compare by their bits too)
    std::size_t max_listed = 10; ///< how many mismatches the report lists
};

struct mismatch {
    std::vector<std::uint32_t> coordinates;
    std::uint64_t expected_bits = 0;
    std::uint64_t actual_bits = 0;
    std::optional<textbook::source> source; ///< given the operator: where its output element comes from
};

/// One region of an operator's output and how many of its elements differ.
struct region_count {
    std::string region;
    std::uint64_t mismatches = 0;
    std::uint64_t elements = 0;
};

struct compare_report {
    data_type type = data_type::unknown;
    std::vector<std::uint32_t> sizes;
    std::uint64_t element_count = 0;
    std::uint64_t mismatch_count = 0;
    std::vector<mismatch> first;                                          ///< in row-major order
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> axis_ranges; ///< per axis, [first, last] runs
    std::string op;                                                       ///< operator the regions belong to
    std::vector<region_count> regions;                                    ///< most mismatches first

    /// to_string() lists every region that holds a mismatch, and at most this many clean ones.
    static constexpr std::size_t clean_regions_listed = 3;

    bool equal() const noexcept { return mismatch_count == 0; }
    std::string to_string() const;
};

namespace detail {

inline bool is_nan_bits(data_type type, std::uint64_t bits) noexcept {
    switch (type) {
    case data_type::float16: return (bits & 0x7c00u) == 0x7c00u && (bits & 0x03ffu) != 0;
    case data_type::float32: return (bits & 0x7f80'0000u) == 0x7f80'0000u && (bits & 0x007f'ffffu) != 0;
    case data_type::float64:
        return (bits & 0x7ff0'0000'0000'0000u) == 0x7ff0'0000'0000'0000u && (bits & 0x000f'ffff'ffff'ffffu) != 0;
    default: return false;
    }
}

/// Sorts output coordinates into the regions of the operator that wrote them: each border (start
/// or end of an axis; an element in a corner lies in two), the interior, or a block offset. A
/// region is a small id; `name(id)` spells it out.
class region_map {
public:
    explicit region_map(const operator_desc& desc) {
        std::visit([&](const auto& d) { setup(d); }, desc);
    }
    /// Calls `visit(id)` for every region that holds the element at `c`.
    template <class Visit> void regions_of(std::span<const std::uint32_t> c, Visit&& visit) const {
        switch (kind_) {
        case kind::borders: { // id 0: interior; 1 + 2k: start of axis k; 2 + 2k: end of axis k
            bool border = false;
            for (std::uint32_t k = 0; k < c.size(); ++k) {
                if (c[k] < low_[k]) visit(1 + 2 * k), border = true;
                if (c[k] >= high_[k]) visit(2 + 2 * k), border = true;
            }
            if (!border) visit(0u);
            return;
        }
        case kind::spatial_block: return visit((c[2] % block_) * block_ + c[3] % block_);
        case kind::parts: { // id k: part k, whose window on the axis holds the coordinate
            std::uint32_t k = 0;
            while (k + 1 < high_.size() && c[block_] >= high_[k]) ++k;
            return visit(k);
        }
        case kind::channel_block:
            // DEPTH_COLUMN_ROW: channel = (bh * B + bw) * C + c; COLUMN_ROW_DEPTH: channel = c * B * B + bh * B + bw.
            return visit(column_row_depth_ ? c[1] % (block_ * block_) : c[1] / channels_);
        }
    }
    std::string name(std::uint32_t id) const {
        if (kind_ == kind::parts) return fmt::format(fmt::runtime(low_name_), id);
        if (kind_ != kind::borders) return fmt::format("block offset ({}, {})", id / block_, id % block_);
        if (id == 0) return std::string(interior_);
        return fmt::format(fmt::runtime(id % 2 == 1 ? low_name_ : high_name_), (id - 1) / 2);
    }

private:
    enum class kind { borders, spatial_block, channel_block, parts };

    template <class D> void setup(const D& d) {
        if constexpr (std::is_same_v<D, padding_desc> || std::is_same_v<D, padding1_desc>) {
            for (std::size_t k = 0; k < d.start_padding.size(); ++k) {
                low_.push_back(d.start_padding[k]);
                high_.push_back(d.start_padding[k] + d.input_tensor.sizes[k]);
            }
            low_name_ = "start padding of axis {}";
            high_name_ = "end padding of axis {}";
            interior_ = "interior (copied from the input)";
        } else if constexpr (std::is_same_v<D, slice_desc> || std::is_same_v<D, slice1_desc>) {
            // The first and last step of the window along each axis: where off-by-one errors land.
            // An axis of size 1 has no edge to get wrong.
            for (std::uint32_t s : d.output_tensor.sizes) {
                low_.push_back(s > 1 ? 1 : 0);
                high_.push_back(s > 1 ? s - 1 : s);
            }
            low_name_ = "first window step on axis {}";
            high_name_ = "last window step on axis {}";
            interior_ = "window interior";
        } else if constexpr (std::is_same_v<D, element_wise_identity_desc> || is_gather_desc_v<D> || is_scatter_desc_v<D> ||
                             std::is_same_v<D, one_hot_desc>) {
            // The first and last coordinate of each axis: where a wrong stride or extent shows first.
            for (std::uint32_t s : d.output_tensor.sizes) {
                low_.push_back(s > 1 ? 1 : 0);
                high_.push_back(s > 1 ? s - 1 : s);
            }
            low_name_ = "first coordinate of axis {}";
            high_name_ = "last coordinate of axis {}";
            interior_ = "interior";
        } else if constexpr (std::is_same_v<D, slice_grad_desc>) {
            // The window's span on each axis (from its lowest element to its highest) against the
            // zeros before and after it: a wrong CopyStart shows as a mismatch outside the span.
            for (std::size_t k = 0; k < d.input_window_offsets.size(); ++k) {
                const std::int64_t n = d.input_tensor.sizes[k], s = d.input_window_strides[k];
                const std::int64_t step = n == 1 ? 0 : (s < 0 ? -s : s);
                const std::int64_t low = s < 0 ? std::int64_t{d.input_window_offsets[k]} + d.input_window_sizes[k] - 1 - (n - 1) * step
                                               : std::int64_t{d.input_window_offsets[k]};
                low_.push_back(static_cast<std::uint32_t>(low));
                high_.push_back(static_cast<std::uint32_t>(low + (n - 1) * step + 1));
            }
            low_name_ = "zeros before the window on axis {}";
            high_name_ = "zeros after the window on axis {}";
            interior_ = "window span (gradient elements, zeros between them)";
        } else if constexpr (std::is_same_v<D, tile_desc>) {
            // The first tile (the input itself) and, per axis, the copies after it: a wrong period
            // shows in the copies.
            for (std::uint32_t s : d.input_tensor.sizes) {
                low_.push_back(0);
                high_.push_back(s);
            }
            low_name_ = "(none) axis {}";
            high_name_ = "repeated tiles along axis {}";
            interior_ = "first tile";
        } else if constexpr (std::is_same_v<D, join_desc> || std::is_same_v<D, split_desc>) {
            // One region per part: JOIN's output by the input each element came from; SPLIT's
            // outputs laid end to end along Axis (its InputTensor's sizes) by the output.
            kind_ = kind::parts;
            block_ = d.axis; // the axis the parts lie along
            std::uint32_t end = 0;
            if constexpr (std::is_same_v<D, join_desc>) {
                for (const auto& t : d.input_tensors) high_.push_back(end += t.sizes[d.axis]);
                low_name_ = "InputTensors[{}]";
            } else {
                for (const auto& t : d.output_tensors) high_.push_back(end += t.sizes[d.axis]);
                low_name_ = "OutputTensors[{}]";
            }
        } else if constexpr (std::is_same_v<D, reverse_subsequences_desc>) {
            // Along Axis only, whatever the lengths (they are data): the first and last element of
            // each sequence, where a reversed prefix and a wrong length show, and the ones between.
            for (std::size_t k = 0; k < d.output_tensor.sizes.size(); ++k) {
                const std::uint32_t s = d.output_tensor.sizes[k];
                low_.push_back(k == d.axis && s > 1 ? 1 : 0);
                high_.push_back(k == d.axis && s > 1 ? s - 1 : s);
            }
            low_name_ = "first element of each sequence (axis {})";
            high_name_ = "last element of each sequence (axis {})";
            interior_ = "elements between the first and the last of each sequence";
        } else if constexpr (std::is_same_v<D, upsample_2d_desc>) {
            // The first and last coordinate of each axis: a wrong scale or extent shows at the edges.
            for (std::uint32_t s : d.output_tensor.sizes) {
                low_.push_back(s > 1 ? 1 : 0);
                high_.push_back(s > 1 ? s - 1 : s);
            }
            low_name_ = "first coordinate of axis {}";
            high_name_ = "last coordinate of axis {}";
            interior_ = "interior";
        } else {
            kind_ = direction_of<D>() == depth_space_direction::depth_to_space ? kind::spatial_block : kind::channel_block;
            block_ = d.block_size;
            column_row_depth_ = order_of(d) == depth_space_order::column_row_depth;
            channels_ = d.input_tensor.sizes[1];
        }
    }

    kind kind_ = kind::borders;
    std::vector<std::uint32_t> low_, high_;
    std::string_view low_name_, high_name_, interior_;
    std::uint32_t block_ = 1, channels_ = 1;
    bool column_row_depth_ = false;
};

} // namespace detail

/// The sizes of the tensor compare() takes for `op`'s outputs: its OutputTensor's, or for SPLIT its
/// InputTensor's (the outputs laid end to end along Axis).
inline std::vector<std::uint32_t> compared_sizes(const operator_desc& op) {
    if (const auto* split = std::get_if<split_desc>(&op)) return split->input_tensor.sizes;
    return outputs_of(op).front().desc().sizes;
}

/// The tensor compare() takes for `op` from its output tensors, each packed row-major in
/// outputs_of(op) order: the one output as it is, or SPLIT's outputs laid end to end along Axis
/// (output k's elements at its offset on the axis of the InputTensor's sizes). Throws
/// validation_error when the parts do not have the sizes of a valid desc's outputs.
inline std::vector<std::byte> compared_output(const operator_desc& op, std::span<const std::vector<std::byte>> packed) {
    const auto* split = std::get_if<split_desc>(&op);
    if (split == nullptr) {
        if (packed.size() != 1)
            throw validation_error(fmt::format("compared_output: {} binds one output tensor; {} were given",
                                               dmlref::to_string(type_of(op)), packed.size()));
        return packed.front();
    }
    if (auto why = validate(op)) throw validation_error("compared_output: " + *why);
    if (packed.size() != split->output_tensors.size())
        throw validation_error(fmt::format("compared_output: SPLIT has {} output tensors; {} were given",
                                           split->output_tensors.size(), packed.size()));
    const std::size_t width = element_size(split->input_tensor.data_type), axis = split->axis;
    const auto& sizes = split->input_tensor.sizes;
    std::uint64_t outer = 1, inner = width; // elements before the axis; bytes per coordinate of the axis
    for (std::size_t i = 0; i < axis; ++i) outer *= sizes[i];
    for (std::size_t i = axis + 1; i < sizes.size(); ++i) inner *= sizes[i];
    std::vector<std::byte> whole(static_cast<std::size_t>(outer * sizes[axis] * inner));
    std::uint64_t offset = 0; // bytes into a row of the whole where part k starts
    for (std::size_t k = 0; k < packed.size(); ++k) {
        const std::uint64_t row = split->output_tensors[k].sizes[axis] * inner;
        if (packed[k].size() != outer * row)
            throw validation_error(fmt::format("compared_output: OutputTensors[{}] has {} bytes; its sizes need {}", k,
                                               packed[k].size(), outer * row));
        for (std::uint64_t o = 0; o < outer; ++o)
            std::memcpy(whole.data() + o * sizes[axis] * inner + offset, packed[k].data() + o * row, static_cast<std::size_t>(row));
        offset += row;
    }
    return whole;
}

/// Compares two packed row-major tensors of `sizes` bit for bit. `op`, when given, is the
/// operator whose output these are (its OutputTensor.Sizes must equal `sizes`; for SPLIT, its
/// outputs laid end to end along Axis, of its InputTensor's sizes): the report then counts
/// mismatches per region of that output (per part for JOIN and SPLIT). Throws validation_error
/// when a buffer's length does not match `sizes`.
inline compare_report compare(data_type type, std::span<const std::uint32_t> sizes, std::span<const std::byte> expected,
                              std::span<const std::byte> actual, compare_options options = {},
                              const operator_desc* op = nullptr) {
    const std::size_t width = element_size(type);
    if (width == 0) throw validation_error(fmt::format("compare: data type {} has no byte size", to_string(type)));
    const auto needed = detail::checked_bytes(sizes, width);
    if (!needed)
        throw validation_error(fmt::format("compare: the sizes {{{}}} hold more than 2^64 bytes of {}",
                                           fmt::join(sizes, ", "), to_string(type)));
    const std::uint64_t count = *needed / width;
    for (auto [name, buffer] : {std::pair{"expected", expected}, std::pair{"actual", actual}})
        if (buffer.size() != *needed)
            throw validation_error(fmt::format("compare: the {} buffer has {} bytes; {} elements of {} need {}", name,
                                               buffer.size(), count, to_string(type), *needed));
    if (op) {
        // SPLIT's outputs are compared laid end to end along Axis: its InputTensor's sizes.
        const auto* split = std::get_if<split_desc>(op);
        const auto out = split ? split->input_tensor.sizes : outputs_of(*op).front().desc().sizes;
        if (!std::equal(out.begin(), out.end(), sizes.begin(), sizes.end()))
            throw validation_error(fmt::format("compare: the sizes {} differ from {}'s {}.Sizes {}", fmt::join(sizes, ","),
                                               dmlref::to_string(type_of(*op)), split ? "InputTensor" : "OutputTensor",
                                               fmt::join(out, ",")));
        if (auto why = validate(*op)) throw validation_error("compare: " + *why);
    }

    compare_report r;
    r.type = type;
    r.sizes.assign(sizes.begin(), sizes.end());
    r.element_count = count;
    // Per axis, which coordinates hold a mismatch; none can where a size is 0, and then the other
    // sizes may be up to 2^32 - 1 each with no buffer behind them.
    std::vector<std::vector<bool>> hit(sizes.size());
    if (count > 0)
        for (std::size_t k = 0; k < sizes.size(); ++k) hit[k].assign(sizes[k], false);
    std::optional<detail::region_map> regions;
    std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> per_region; // id -> (mismatches, elements)
    if (op) {
        regions.emplace(*op);
        r.op = dmlref::to_string(type_of(*op));
    }

    std::vector<std::uint32_t> c(sizes.size(), 0);
    for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t e = 0, a = 0;
        std::memcpy(&e, expected.data() + i * width, width);
        std::memcpy(&a, actual.data() + i * width, width);
        const bool differs = e != a && !(options.nan_equal && detail::is_nan_bits(type, e) && detail::is_nan_bits(type, a));
        if (differs) {
            ++r.mismatch_count;
            if (r.first.size() < options.max_listed) r.first.push_back({c, e, a, std::nullopt});
            for (std::size_t k = 0; k < c.size(); ++k) hit[k][c[k]] = true;
        }
        if (regions) {
            regions->regions_of(c, [&](std::uint32_t id) {
                auto& [m, n] = per_region[id];
                m += differs;
                ++n;
            });
        }
        for (std::size_t k = c.size(); k-- > 0;) { // next row-major coordinate
            if (++c[k] < sizes[k]) break;
            c[k] = 0;
        }
    }
    for (const auto& axis : hit) {
        auto& ranges = r.axis_ranges.emplace_back();
        for (std::uint32_t j = 0; j < axis.size(); ++j) {
            if (!axis[j]) continue;
            if (!ranges.empty() && ranges.back().second + 1 == j)
                ranges.back().second = j;
            else
                ranges.push_back({j, j});
        }
    }
    if (op && !has_data_dependent_mapping(type_of(*op))) { // REVERSE_SUBSEQUENCES's sources need its lengths
        // SPLIT's outputs are compared laid end to end: a coordinate of the whole is the input's own.
        for (mismatch& m : r.first)
            m.source = std::holds_alternative<split_desc>(*op) ? textbook::source{textbook::source_kind::input, m.coordinates, 0}
                                                               : textbook::source_of(*op, m.coordinates);
    }
    for (const auto& [id, counts] : per_region) r.regions.push_back({regions->name(id), counts.first, counts.second});
    std::stable_sort(r.regions.begin(), r.regions.end(),
                     [](const region_count& x, const region_count& y) { return x.mismatches > y.mismatches; });
    return r;
}

/// Compares two views of the same extents element by element (any strides), bit for bit.
template <class T, std::size_t Rank>
compare_report compare(strided_view<const T, Rank> expected, strided_view<const T, Rank> actual,
                       compare_options options = {}, const operator_desc* op = nullptr) {
    if (expected.extents() != actual.extents())
        throw validation_error(fmt::format("compare: the extents {} and {} differ", fmt::join(expected.extents(), ","),
                                           fmt::join(actual.extents(), ",")));
    const auto sizes = detail::packed_sizes(expected);
    if (!sizes)
        throw validation_error(fmt::format("compare: the extents {} are not DirectML sizes (0 to 4294967295) whose "
                                           "bytes fit in memory's counts",
                                           fmt::join(expected.extents(), ",")));
    return compare(data_type_of<T>(), *sizes, detail::packed_bytes(expected), detail::packed_bytes(actual), options,
                   op);
}

namespace detail {

/// A view or tensor as a read-only view: what the test frameworks' matchers compare.
template <class T, std::size_t Rank> strided_view<const T, Rank> const_view(const tensor<T, Rank>& t) { return t.view(); }
template <class T, std::size_t Rank> strided_view<const T, Rank> const_view(const strided_view<T, Rank>& v) {
    return strided_view<const T, Rank>(v);
}

/// What the matchers of catch2.hpp and gtest.hpp report, so that the two say the same: whether
/// `actual` equals `expected` bit for bit (extents too), and in `report` the comparison report, or
/// the two extents where those differ.
template <class Actual, class Expected>
bool bit_equal_report(const Actual& actual, const Expected& expected, const compare_options& options,
                      const operator_desc* op, std::string& report) {
    const auto e = const_view(expected);
    const auto a = const_view(actual);
    static_assert(std::is_same_v<decltype(e), decltype(a)>,
                  "dmlref's matchers compare tensors of one element type and rank");
    if (e.extents() != a.extents()) {
        report = fmt::format("has extents {{{}}}; the expected tensor has {{{}}}", fmt::join(a.extents(), ", "),
                             fmt::join(e.extents(), ", "));
        return false;
    }
    const compare_report r = compare(e, a, options, op);
    report = r.to_string();
    return r.equal();
}

/// The same for packed row-major bytes of `sizes` elements of `type`; a buffer of the wrong length
/// is a mismatch whose report says why.
inline bool bit_equal_report(data_type type, const std::vector<std::uint32_t>& sizes, std::span<const std::byte> expected,
                             std::span<const std::byte> actual, const compare_options& options, const operator_desc* op,
                             std::string& report) {
    try {
        const compare_report r = compare(type, sizes, expected, actual, options, op);
        report = r.to_string();
        return r.equal();
    } catch (const validation_error& e) {
        report = e.what();
        return false;
    }
}

} // namespace detail

inline std::string compare_report::to_string() const {
    const std::size_t width = element_size(type);
    std::string out = fmt::format("{} tensor of sizes {{{}}}: ", dmlref::to_string(type), fmt::join(sizes, ", "));
    if (equal()) return out + fmt::format("all {} elements are bit-identical", element_count);
    out += fmt::format("{} of {} elements differ\n", mismatch_count, element_count);
    const bool sourced = !first.empty() && first.front().source.has_value();
    out += fmt::format("first {} mismatches, [coordinates] expected (bits) vs actual (bits){}:\n", first.size(),
                       sourced ? "; where the operator takes the element from" : "");
    auto value = [&](std::uint64_t bits) {
        std::byte bytes[8];
        std::memcpy(bytes, &bits, 8);
        return fmt::format("{} (0x{:0{}x})", format_element(type, bytes), bits, width * 2);
    };
    for (const mismatch& m : first)
        out += fmt::format("  [{}] {} vs {}{}\n", fmt::join(m.coordinates, ", "), value(m.expected_bits),
                           value(m.actual_bits), m.source ? "; from " + textbook::to_string(*m.source) : "");
    out += "mismatches lie at, per axis (coordinate ranges):\n";
    for (std::size_t k = 0; k < axis_ranges.size(); ++k) {
        std::vector<std::string> runs;
        for (auto [a, b] : axis_ranges[k]) runs.push_back(a == b ? fmt::format("{}", a) : fmt::format("{}..{}", a, b));
        const bool whole = axis_ranges[k].size() == 1 && axis_ranges[k][0] == std::pair<std::uint32_t, std::uint32_t>{0, sizes[k] - 1};
        out += fmt::format("  axis {} (size {}): {}{}\n", k, sizes[k], fmt::join(runs, ", "), whole ? " (all)" : "");
    }
    if (!regions.empty()) {
        out += fmt::format("by region of the {} output:\n", op);
        std::size_t clean = 0;
        for (const region_count& g : regions) {
            if (g.mismatches == 0 && clean++ >= clean_regions_listed) continue;
            out += fmt::format("  {}: {} of {} elements differ{}\n", g.region, g.mismatches, g.elements,
                               g.mismatches == 0 ? "" : g.mismatches == g.elements ? " (all)" : "");
        }
        if (clean > clean_regions_listed)
            out += fmt::format("  and {} more clean region{} (0 elements differ)\n", clean - clean_regions_listed,
                               clean - clean_regions_listed == 1 ? "" : "s");
    }
    return out;
}

} // namespace dmlref

/// A compare_report prints as its to_string().
template <>
struct fmt::formatter<dmlref::compare_report> : fmt::formatter<fmt::string_view> {
    template <class Context> auto format(const dmlref::compare_report& report, Context& ctx) const {
        const std::string text = report.to_string();
        return fmt::formatter<fmt::string_view>::format(fmt::string_view(text), ctx);
    }
};
