#pragma once
/// \file parity_cases_indexed.hpp
/// The boundary classes of REVERSE_SUBSEQUENCES and the indexed operators (GATHER,
/// GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND, ONE_HOT) for
/// parity_cases.hpp (which includes this after its helpers, before its class table), their valid
/// descs for output parity, and the index bytes both sides run them on.
///
/// A class's text names the tensors as DirectML does ("IndicesTensor.Sizes: one more on an axis").
/// Every tensor of every operator is probed (Sizes one more and one fewer on an axis, one more
/// dimension, another DataType, TotalTensorSizeInBytes one short, GuaranteedBaseOffsetAlignment
/// 8); the index tensor with every type that is not an index type; Axis at and past the rank;
/// IndexDimensions, InputDimensionCount, IndicesDimensionCount and BatchDimensionCount one more,
/// one fewer and at their ends; and, valid, every rank, data type, index type and layout.
///
/// Index bytes (index_input): every index inside the axis it addresses, negative ones (the signed
/// types) counting from the end as DirectML documents from 3_0, so that dmlref, which refuses an
/// index outside its axis at execute, runs every valid case. A scatter's indices never name one
/// output element twice (DirectML: "no guarantee of which last write wins"), so that its output
/// is defined and compared bit for bit; its index tensor is never broadcast. ONE_HOT's indices may
/// lie past the axis (documented: the whole sequence is OffValue); REVERSE_SUBSEQUENCES's lengths
/// run to twice the axis size (DirectML's read of a longer one, which dmlref follows).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <dmlref/operator.hpp>

#include "random_cases.hpp"
#include "seeded_random.hpp"

namespace dmlref::parity::detail {

inline constexpr operator_type indexed_ops[] = {
    operator_type::reverse_subsequences, operator_type::gather,           operator_type::gather_elements,
    operator_type::gather_nd,            operator_type::gather_nd1,       operator_type::scatter_elements,
    operator_type::scatter_nd,           operator_type::one_hot};

constexpr bool is_indexed_op(operator_type op) noexcept {
    for (operator_type o : indexed_ops)
        if (o == op) return true;
    return false;
}
constexpr bool is_scatter_op(operator_type op) noexcept {
    return op == operator_type::scatter_elements || op == operator_type::scatter_nd;
}
constexpr bool is_nd_op(operator_type op) noexcept {
    return op == operator_type::gather_nd || op == operator_type::gather_nd1 || op == operator_type::scatter_nd;
}
constexpr bool has_axis(operator_type op) noexcept { return !is_nd_op(op); }

/// The index types at 6_4 (REVERSE_SUBSEQUENCES: UINT32 and UINT64).
inline std::vector<data_type> index_types_of(operator_type op) {
    if (op == operator_type::reverse_subsequences) return {data_type::uint32, data_type::uint64};
    return {data_type::uint32, data_type::int32, data_type::uint64, data_type::int64};
}

/// The name of the tensor that holds the indices.
inline std::string index_field(operator_type op) {
    return op == operator_type::reverse_subsequences ? "SequenceLengthsTensor" : "IndicesTensor";
}

/// Every tensor of an indexed desc in binding order, by DirectML's name, to change in place.
inline std::vector<std::pair<std::string, buffer_tensor_desc*>> indexed_tensors(operator_desc& d) {
    std::vector<std::pair<std::string, buffer_tensor_desc*>> list;
    std::visit(
        [&](auto& x) {
            using D = std::remove_cvref_t<decltype(x)>;
            if constexpr (std::is_same_v<D, reverse_subsequences_desc>) {
                list = {{"InputTensor", &x.input_tensor}, {"SequenceLengthsTensor", &x.sequence_lengths_tensor}};
            } else if constexpr (is_gather_desc_v<D>) {
                list = {{"InputTensor", &x.input_tensor}, {"IndicesTensor", &x.indices_tensor}};
            } else if constexpr (is_scatter_desc_v<D>) {
                list = {{"InputTensor", &x.input_tensor}, {"IndicesTensor", &x.indices_tensor}, {"UpdatesTensor", &x.updates_tensor}};
            } else if constexpr (std::is_same_v<D, one_hot_desc>) {
                list = {{"IndicesTensor", &x.indices_tensor}, {"ValuesTensor", &x.values_tensor}};
            }
            if constexpr (requires { x.output_tensor; }) list.emplace_back("OutputTensor", &x.output_tensor);
        },
        d);
    return list;
}

inline buffer_tensor_desc& indexed_tensor(operator_desc& d, std::string_view field) {
    for (auto& [name, t] : indexed_tensors(d))
        if (name == field) return *t;
    throw std::logic_error("parity_cases: no tensor " + std::string(field));
}

/// The operator's scalar fields, by DirectML's name.
inline std::vector<std::pair<std::string, std::uint32_t*>> indexed_scalars(operator_desc& d) {
    std::vector<std::pair<std::string, std::uint32_t*>> list;
    std::visit(
        [&](auto& x) {
            if constexpr (requires { x.axis; }) list.emplace_back("Axis", &x.axis);
            if constexpr (requires { x.index_dimensions; }) list.emplace_back("IndexDimensions", &x.index_dimensions);
            if constexpr (requires { x.input_dimension_count; }) list.emplace_back("InputDimensionCount", &x.input_dimension_count);
            if constexpr (requires { x.indices_dimension_count; })
                list.emplace_back("IndicesDimensionCount", &x.indices_dimension_count);
            if constexpr (requires { x.batch_dimension_count; }) list.emplace_back("BatchDimensionCount", &x.batch_dimension_count);
        },
        d);
    return list;
}

inline std::uint32_t& indexed_scalar(operator_desc& d, std::string_view field) {
    for (auto& [name, v] : indexed_scalars(d))
        if (name == field) return *v;
    throw std::logic_error("parity_cases: no field " + std::string(field));
}

/// A logical shape fitted into `n` axes: leading 1s for a shorter shape; from a longer one (GATHER
/// alone: the ND operators refuse it) its leading entries dropped where they are all 1, nothing
/// otherwise (GATHER keeps any last n entries, fit_last_entries in ops/indexed_common.hpp; its draws
/// keep to this narrower rule).
inline std::optional<std::vector<std::uint32_t>> fitted_shape(const std::vector<std::uint32_t>& logical, std::size_t n) {
    std::vector<std::uint32_t> out;
    if (logical.size() <= n) {
        out.assign(n - logical.size(), 1);
        out.insert(out.end(), logical.begin(), logical.end());
        return out;
    }
    std::size_t drop = logical.size() - n;
    for (std::uint32_t s : logical) {
        if (drop > 0 && out.empty() && s == 1) --drop;
        else out.push_back(s);
    }
    if (drop > 0) return std::nullopt;
    return out;
}

/// How a desc's tensors are laid out: packed, or as random_tensor draws them (an index tensor of a
/// scatter never broadcast).
enum class indexed_layout { packed, random };

inline buffer_tensor_desc indexed_layout_of(rng_t& rng, data_type type, const std::vector<std::uint32_t>& sizes, bool is_input,
                                            bool no_broadcast, indexed_layout kind) {
    if (kind == indexed_layout::packed) return make_buffer_tensor_desc(type, sizes);
    if (no_broadcast) {
        buffer_tensor_desc t = make_buffer_tensor_desc(type, sizes);
        const std::uint32_t k = pick(rng, 0, 3);
        if (k > 0) {
            t.strides = random_cases::layout_strides(rng, sizes, k);
            t.total_tensor_size_in_bytes = calc_buffer_tensor_size(t);
        }
        return t;
    }
    return random_cases::random_tensor(rng, type, sizes, is_input);
}

/// A random valid desc of indexed operator `op` of `rank` axes (0: 1 to 8), data type `type`,
/// index type `index`: small sizes with many 1s.
inline operator_desc random_indexed(rng_t& rng, operator_type op, data_type type, data_type index, std::size_t rank = 0,
                                    indexed_layout kind = indexed_layout::random) {
    const auto n = static_cast<std::uint32_t>(rank ? rank : pick(rng, 1, 8));
    const std::uint32_t most = std::min<std::uint32_t>(4, random_cases::max_extent(n));
    const auto size = [&] { return chance(rng, 33) ? 1u : pick(rng, 1, most); };
    const auto tensor = [&](data_type t, const std::vector<std::uint32_t>& sizes, bool is_input, bool no_broadcast = false) {
        return indexed_layout_of(rng, t, sizes, is_input, no_broadcast, kind);
    };
    for (;;) {
        std::vector<std::uint32_t> in(n);
        for (auto& s : in) s = size();
        const std::uint32_t a = pick(rng, 0, n - 1);
        switch (op) {
        case operator_type::reverse_subsequences: {
            std::vector<std::uint32_t> lengths = in;
            lengths[a] = 1;
            return reverse_subsequences_desc{tensor(type, in, true), tensor(index, lengths, true), tensor(type, in, false), a};
        }
        case operator_type::gather: {
            const std::uint32_t k = pick(rng, 0, n);
            std::vector<std::uint32_t> idx(n, 1), logical;
            for (std::uint32_t e = n - k; e < n; ++e) idx[e] = size();
            for (std::uint32_t i = 0; i < a; ++i) logical.push_back(in[i]);
            for (std::uint32_t e = n - k; e < n; ++e) logical.push_back(idx[e]);
            for (std::uint32_t i = a + 1; i < n; ++i) logical.push_back(in[i]);
            const auto out = fitted_shape(logical, n);
            if (!out) continue;
            return gather_desc{tensor(type, in, true), tensor(index, idx, true), tensor(type, *out, false), a, k};
        }
        case operator_type::gather_elements: {
            std::vector<std::uint32_t> idx = in;
            idx[a] = pick(rng, 1, 4);
            return gather_elements_desc{tensor(type, in, true), tensor(index, idx, true), tensor(type, idx, false), a};
        }
        case operator_type::scatter_elements: {
            // At most as many indices along Axis as the axis has elements: no target twice.
            std::vector<std::uint32_t> idx = in;
            idx[a] = pick(rng, 1, in[a]);
            return scatter_elements_desc{tensor(type, in, true), tensor(index, idx, true, true), tensor(type, idx, true),
                                         tensor(type, in, false), a};
        }
        case operator_type::one_hot: {
            // The two values on the last axis: DirectML reads OnValue at coordinate 1 of the last
            // axis whatever its size (measured; known divergence one-hot-on-value-past-last-axis).
            std::vector<std::uint32_t> idx = in, values(n, 1);
            idx[a] = 1;
            values[n - 1] = 2;
            return one_hot_desc{tensor(index, idx, true), tensor(type, values, true), tensor(type, in, false), a};
        }
        default: break;
        }
        // The ND ops: I and J meaningful trailing dimensions, B batch dimensions, tuples of T.
        const std::uint32_t ni = pick(rng, 1, n), nj = pick(rng, 1, n);
        const std::uint32_t b = op == operator_type::gather_nd1 ? pick(rng, 0, std::min(ni, nj) - 1) : 0;
        if (ni - b < 1 || (nj == 1 && b > 0)) continue;
        const std::uint32_t t = pick(rng, 1, ni - b), r = ni - b - t;
        for (std::uint32_t i = 0; i < n - ni; ++i) in[i] = 1;
        std::vector<std::uint32_t> idx(n, 1);
        for (std::uint32_t e = n - nj; e + 1 < n; ++e) idx[e] = size();
        for (std::uint32_t e = 0; e < b; ++e) idx[n - nj + e] = in[n - ni + e];
        idx[n - 1] = t;
        std::vector<std::uint32_t> logical(idx.begin() + (n - nj), idx.end() - 1);
        for (std::uint32_t i = n - r; i < n; ++i) logical.push_back(in[i]);
        if (logical.size() > n) continue; // DirectML drops no entry of the ND operators' logical shape
        const auto out = fitted_shape(logical, n);
        if (op == operator_type::scatter_nd) {
            // No tuple twice: no more tuples than the tuple axes have places.
            std::uint64_t tuples = 1, places = 1;
            for (std::uint32_t e = n - nj; e + 1 < n; ++e) tuples *= idx[e];
            for (std::uint32_t m = 0; m < t; ++m) places *= in[n - ni + m];
            if (tuples > places) continue;
            return scatter_nd_desc{tensor(type, in, true), tensor(index, idx, true, true), tensor(type, *out, true),
                                   tensor(type, in, false), ni, nj};
        }
        if (op == operator_type::gather_nd)
            return gather_nd_desc{tensor(type, in, true), tensor(index, idx, true), tensor(type, *out, false), ni, nj};
        return gather_nd1_desc{tensor(type, in, true), tensor(index, idx, true), tensor(type, *out, false), ni, nj, b};
    }
}

inline data_type random_index_type(rng_t& rng, operator_type op) {
    const auto types = index_types_of(op);
    return types[pick_index(rng, types.size())];
}

inline operator_desc random_indexed_base(rng_t& rng, operator_type op, std::size_t rank = 0) {
    const data_type type = random_type(rng);
    const data_type index = random_index_type(rng, op);
    return random_indexed(rng, op, type, index, rank);
}

// ---- index bytes ----------------------------------------------------------------------------------

/// The index of input `k` of `d` in binding order, if it is the index tensor.
inline bool is_index_input(const operator_desc& d, std::size_t k) {
    const operator_type op = type_of(d);
    if (!is_indexed_op(op)) return false;
    return k == (op == operator_type::one_hot ? 0u : 1u);
}

/// Bytes for the index tensor of `d` (is_index_input): random bytes, then every element the
/// tensor's sizes reach set to an index inside the axis it addresses (see the file comment). A
/// scatter's targets are distinct unless `duplicates`: then each is drawn on its own, so that
/// several updates may name one output element (DirectML leaves which one stays unspecified).
inline std::vector<std::byte> index_input(const operator_desc& d, std::uint64_t seed, bool duplicates = false) {
    rng_t rng(seed);
    const operator_type op = type_of(d);
    const auto ins = inputs_of(d);
    const buffer_tensor_desc& idx = ins[op == operator_type::one_hot ? 0 : 1].desc();
    std::vector<std::byte> bytes = random_cases::random_bytes(rng, idx.total_tensor_size_in_bytes);
    const std::size_t n = idx.sizes.size(), width = element_size(idx.data_type);
    const bool is_signed = idx.data_type == data_type::int32 || idx.data_type == data_type::int64;
    const std::vector<std::uint32_t> strides = idx.strides ? *idx.strides : packed_strides(idx.sizes);
    // Every coordinate of the index tensor, row-major, with its element offset.
    std::vector<std::vector<std::uint32_t>> coords;
    std::vector<std::uint64_t> offsets;
    {
        std::vector<std::uint32_t> c(n, 0);
        const std::uint64_t count = element_count(idx.sizes);
        for (std::uint64_t e = 0; e < count; ++e) {
            std::uint64_t off = 0;
            for (std::size_t i = 0; i < n; ++i) off += std::uint64_t{c[i]} * strides[i];
            coords.push_back(c);
            offsets.push_back(off);
            for (std::size_t i = n; i-- > 0;) {
                if (++c[i] < idx.sizes[i]) break;
                c[i] = 0;
            }
        }
    }
    const auto write = [&](std::uint64_t element, std::int64_t value) {
        const std::uint64_t at = element * width;
        if (at + width > bytes.size()) return;
        if (width == 4) {
            const auto v = static_cast<std::uint32_t>(value);
            std::memcpy(bytes.data() + at, &v, 4);
        } else {
            const auto v = static_cast<std::uint64_t>(value);
            std::memcpy(bytes.data() + at, &v, 8);
        }
    };
    // Negative for half of the signed ones: value - bound counts from the end.
    const auto signed_form = [&](std::int64_t value, std::int64_t bound) {
        return is_signed && value < bound && chance(rng, 50) ? value - bound : value;
    };
    const buffer_tensor_desc* input = op == operator_type::one_hot ? nullptr : &ins[0].desc();
    if (op == operator_type::scatter_elements) {
        // Per line along Axis, distinct places: a shuffled prefix of [0, size); with duplicates,
        // each place drawn on its own from the first half of the line, which repeats some.
        const std::uint32_t axis = std::get<scatter_elements_desc>(d).axis;
        const std::uint32_t bound = input->sizes[axis];
        if (duplicates) {
            for (std::size_t e = 0; e < coords.size(); ++e)
                write(offsets[e], signed_form(pick(rng, 0, (bound - 1) / 2), bound));
            return bytes;
        }
        std::map<std::vector<std::uint32_t>, std::vector<std::uint32_t>> lines;
        for (std::size_t e = 0; e < coords.size(); ++e) {
            auto key = coords[e];
            key[axis] = 0;
            auto& line = lines[key];
            if (line.empty()) {
                for (std::uint32_t v = 0; v < bound; ++v) line.push_back(v);
                seeded::shuffle(line.begin(), line.end(), rng);
            }
            write(offsets[e], signed_form(line[coords[e][axis]], bound));
        }
        return bytes;
    }
    if (op == operator_type::scatter_nd) {
        // Distinct tuples: a shuffled prefix of every place of the tuple axes.
        const auto& s = std::get<scatter_nd_desc>(d);
        const std::size_t in_rank = input->sizes.size(), t = idx.sizes[n - 1];
        std::vector<std::uint32_t> bounds;
        for (std::size_t m = 0; m < t; ++m) bounds.push_back(input->sizes[in_rank - s.input_dimension_count + m]);
        std::uint64_t places = 1;
        for (std::uint32_t b : bounds) places *= b;
        std::vector<std::uint64_t> order(static_cast<std::size_t>(places));
        for (std::size_t q = 0; q < order.size(); ++q) order[q] = q;
        seeded::shuffle(order.begin(), order.end(), rng);
        // With duplicates, each tuple a place of the first half of the shuffle, drawn on its own.
        if (duplicates)
            for (std::size_t q = 0; q < order.size(); ++q) order[q] = order[pick_index(rng, (order.size() + 1) / 2)];
        for (std::size_t e = 0; e < coords.size(); ++e) {
            const std::size_t tuple = e / t, m = coords[e][n - 1];
            std::uint64_t place = order[tuple % order.size()];
            for (std::size_t j = t; j-- > m + 1;) place /= bounds[j];
            write(offsets[e], signed_form(static_cast<std::int64_t>(place % bounds[m]), bounds[m]));
        }
        return bytes;
    }
    // The others: per element the smallest bound of the coordinates that share it (a broadcast
    // index tensor), then a value below it.
    std::map<std::uint64_t, std::int64_t> bound_of;
    for (std::size_t e = 0; e < coords.size(); ++e) {
        std::int64_t bound = 0;
        std::visit(
            [&](const auto& x) {
                using D = std::remove_cvref_t<decltype(x)>;
                if constexpr (std::is_same_v<D, gather_desc> || std::is_same_v<D, gather_elements_desc>) {
                    bound = x.input_tensor.sizes[x.axis];
                } else if constexpr (std::is_same_v<D, gather_nd_desc> || std::is_same_v<D, gather_nd1_desc>) {
                    std::uint32_t batch = 0;
                    if constexpr (std::is_same_v<D, gather_nd1_desc>) batch = x.batch_dimension_count;
                    const std::size_t in_rank = x.input_tensor.sizes.size();
                    bound = x.input_tensor.sizes[in_rank - x.input_dimension_count + batch + coords[e][n - 1]];
                } else if constexpr (std::is_same_v<D, one_hot_desc>) {
                    bound = x.output_tensor.sizes[x.axis];
                } else if constexpr (std::is_same_v<D, reverse_subsequences_desc>) {
                    bound = x.input_tensor.sizes[x.axis];
                }
            },
            d);
        const auto [it, fresh] = bound_of.emplace(offsets[e], bound);
        if (!fresh) it->second = std::min(it->second, bound);
    }
    for (const auto& [element, bound] : bound_of) {
        if (op == operator_type::reverse_subsequences) {
            // Lengths 0 to twice the axis size: past the axis DirectML holds the read coordinate
            // at the last element rather than clamp the length as its page says, and dmlref follows
            // it (docs/directml.md); from 2n - 1 on every element reads the last.
            const auto v = static_cast<std::int64_t>(pick(rng, 0, static_cast<std::uint32_t>(2 * bound)));
            write(element, v);
        } else if (op == operator_type::one_hot) {
            // Indices up to two past the axis: the whole sequence is OffValue, on both sides.
            const auto v = static_cast<std::int64_t>(pick(rng, 0, static_cast<std::uint32_t>(bound + 2)));
            write(element, signed_form(v, bound));
        } else {
            const auto v = static_cast<std::int64_t>(pick(rng, 0, static_cast<std::uint32_t>(bound - 1)));
            write(element, signed_form(v, bound));
        }
    }
    return bytes;
}

// ---- classes --------------------------------------------------------------------------------------

/// A class for each indexed operator `applies` accepts.
template <class Applies = bool (*)(operator_type)>
void add_indexed(std::vector<class_entry>& list, const std::string& text, const build_fn& build,
                 Applies applies = [](operator_type) { return true; }) {
    for (operator_type op : indexed_ops)
        if (applies(op)) list.push_back({op, text, build});
}

/// The tensor names of `op` in binding order, the output last.
inline std::vector<std::string> indexed_tensor_names(operator_type op) {
    switch (op) {
    case operator_type::reverse_subsequences: return {"InputTensor", "SequenceLengthsTensor", "OutputTensor"};
    case operator_type::scatter_elements:
    case operator_type::scatter_nd: return {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"};
    case operator_type::one_hot: return {"IndicesTensor", "ValuesTensor", "OutputTensor"};
    default: return {"InputTensor", "IndicesTensor", "OutputTensor"};
    }
}

/// Gives tensor `field` of `base` room for `bytes` (its TotalTensorSizeInBytes at least that, the
/// cap allowing), so that a change of its sizes or type is the one thing wrong.
inline void make_room_in(operator_desc& base, std::string_view field, std::uint64_t bytes) {
    auto& t = indexed_tensor(base, field);
    const std::uint64_t most = max_total_tensor_size_in_bytes(element_size(t.data_type));
    t.total_tensor_size_in_bytes = std::max(t.total_tensor_size_in_bytes, std::min(bytes, most));
}

inline void add_indexed_tensor_classes(class_table& t) {
    for (const operator_type op : indexed_ops) {
        for (const std::string& field : indexed_tensor_names(op)) {
            const auto one = [&](std::string text, build_fn build) { t.invalid.push_back({op, field + "." + text, std::move(build)}); };
            one("Sizes: one more on an axis", [field](rng_t& rng, operator_type o) {
                operator_desc base = random_indexed_base(rng, o);
                buffer_tensor_desc grown = indexed_tensor(base, field);
                const std::size_t k = pick_index(rng, grown.sizes.size());
                ++grown.sizes[k];
                make_room_in(base, field, calc_buffer_tensor_size(grown));
                built b = change(base, field + ".Sizes");
                indexed_tensor(b.desc, field).sizes = grown.sizes;
                b.detail = fmt::format("axis {}", k);
                return b;
            });
            one("Sizes: one fewer on an axis of 2 or more", [field](rng_t& rng, operator_type o) {
                built b = redraw(rng, [&](rng_t& g) -> std::optional<built> {
                    operator_desc base = random_indexed_base(g, o);
                    auto sizes = indexed_tensor(base, field).sizes;
                    const auto k = random_axis(g, sizes.size(), [&](std::size_t i) { return sizes[i] >= 2; });
                    if (!k) return std::nullopt;
                    --sizes[*k];
                    built c = change(base, field + ".Sizes");
                    indexed_tensor(c.desc, field).sizes = sizes;
                    c.detail = fmt::format("axis {}", *k);
                    return c;
                });
                return b;
            });
            one("DimensionCount: one more (a trailing 1)", [field](rng_t& rng, operator_type o) {
                operator_desc base = random_indexed_base(rng, o);
                built b = change(base, field + ".DimensionCount");
                auto& x = indexed_tensor(b.desc, field);
                x.sizes.push_back(1);
                if (x.strides) x.strides->push_back(1); // the same Strides, one entry longer with Sizes
                b.detail = fmt::format("{} dimensions", x.sizes.size());
                return b;
            });
            one("TotalTensorSizeInBytes: one less than DMLCalcBufferTensorSize", [field](rng_t& rng, operator_type o) {
                operator_desc base = random_indexed_base(rng, o);
                built b = change(base, field + ".TotalTensorSizeInBytes");
                auto& x = indexed_tensor(b.desc, field);
                x.total_tensor_size_in_bytes = calc_buffer_tensor_size(x) - 1;
                return b;
            });
            one("GuaranteedBaseOffsetAlignment: 8", [field](rng_t& rng, operator_type o) {
                operator_desc base = random_indexed_base(rng, o);
                built b = change(base, field + ".GuaranteedBaseOffsetAlignment");
                indexed_tensor(b.desc, field).guaranteed_base_offset_alignment = 8;
                return b;
            });
            const bool is_index = field == index_field(op);
            if (!is_index) {
                one("DataType: another data type", [field](rng_t& rng, operator_type o) {
                    operator_desc base = random_indexed_base(rng, o);
                    const data_type from = indexed_tensor(base, field).data_type;
                    const data_type to = other_type(rng, from, chance(rng, 50));
                    buffer_tensor_desc wide = indexed_tensor(base, field);
                    wide.data_type = to;
                    make_room_in(base, field, calc_buffer_tensor_size(wide));
                    built b = change(base, field + ".DataType");
                    indexed_tensor(b.desc, field).data_type = to;
                    b.detail = fmt::format("{} -> {}", to_string(from), to_string(to));
                    return b;
                });
            }
        }
        // The index tensor's type: each type that is not one of the op's index types.
        for (const data_type type : movable_data_types) {
            const auto allowed = index_types_of(op);
            if (std::find(allowed.begin(), allowed.end(), type) != allowed.end()) continue;
            const std::string field = index_field(op);
            t.invalid.push_back({op, fmt::format("{}.DataType: {}", field, to_string(type)), [field, type](rng_t& rng, operator_type o) {
                                     const data_type index_type = random_index_type(rng, o), value_type = random_type(rng);
                                     operator_desc base = random_indexed(rng, o, value_type, index_type);
                                     auto& bt = indexed_tensor(base, field);
                                     buffer_tensor_desc wide = bt;
                                     wide.data_type = type;
                                     make_room_in(base, field, calc_buffer_tensor_size(wide));
                                     built b = change(base, field + ".DataType");
                                     indexed_tensor(b.desc, field).data_type = type;
                                     return b;
                                 }});
        }
        for (const data_type type : index_types_of(op))
            t.valid.push_back({op, fmt::format("valid: {}.DataType {}", index_field(op), to_string(type)), [type](rng_t& rng, operator_type o) {
                                   return valid(random_indexed(rng, o, random_type(rng), type));
                               }});
    }
}

inline void add_indexed_operator_classes(class_table& t) {
    // Axis at the rank and far past it.
    add_indexed(
        t.invalid, "Axis: DimensionCount",
        [](rng_t& rng, operator_type op) {
            operator_desc base = random_indexed_base(rng, op);
            built b = change(base, "Axis");
            indexed_scalar(b.desc, "Axis") = static_cast<std::uint32_t>(inputs_of(base).front().desc().sizes.size());
            return b;
        },
        has_axis);
    add_indexed(
        t.invalid, "Axis: 0xFFFFFFFF",
        [](rng_t& rng, operator_type op) {
            operator_desc base = random_indexed_base(rng, op);
            built b = change(base, "Axis");
            indexed_scalar(b.desc, "Axis") = u32_max;
            return b;
        },
        has_axis);
    // Axis moved to another axis (sizes as they were).
    add_indexed(
        t.invalid, "Axis: another axis",
        [](rng_t& rng, operator_type op) {
            operator_desc base = random_indexed_base(rng, op, pick(rng, 2, 8));
            built b = change(base, "Axis");
            auto& axis = indexed_scalar(b.desc, "Axis");
            const std::uint32_t n = static_cast<std::uint32_t>(inputs_of(base).front().desc().sizes.size());
            axis = (axis + pick(rng, 1, n - 1)) % n;
            return b;
        },
        has_axis);
    // The counts of GATHER and the ND ops: one more, one fewer, 0, the rank plus one.
    for (const char* field : {"IndexDimensions", "InputDimensionCount", "IndicesDimensionCount", "BatchDimensionCount"}) {
        const std::string f = field;
        const auto applies = [f](operator_type op) {
            if (f == "IndexDimensions") return op == operator_type::gather;
            if (f == "BatchDimensionCount") return op == operator_type::gather_nd1;
            return is_nd_op(op);
        };
        add_indexed(t.invalid, f + ": one more", [f](rng_t& rng, operator_type op) {
            operator_desc base = random_indexed_base(rng, op);
            built b = change(base, f);
            ++indexed_scalar(b.desc, f);
            return b;
        }, applies);
        add_indexed(t.invalid, f + ": one fewer", [f](rng_t& rng, operator_type op) {
            return redraw(rng, [&](rng_t& g) -> std::optional<built> {
                operator_desc base = random_indexed_base(g, op);
                if (indexed_scalar(base, f) == 0) return std::nullopt;
                built b = change(base, f);
                --indexed_scalar(b.desc, f);
                return b;
            });
        }, applies);
        add_indexed(t.invalid, f + ": DimensionCount + 1", [f](rng_t& rng, operator_type op) {
            operator_desc base = random_indexed_base(rng, op);
            built b = change(base, f);
            indexed_scalar(b.desc, f) = static_cast<std::uint32_t>(inputs_of(base).front().desc().sizes.size()) + 1;
            return b;
        }, applies);
        add_indexed(t.invalid, f + ": 0xFFFFFFFF", [f](rng_t& rng, operator_type op) {
            operator_desc base = random_indexed_base(rng, op);
            built b = change(base, f);
            indexed_scalar(b.desc, f) = u32_max;
            return b;
        }, applies);
    }
    // Nine dimensions on every tensor (the most is 8): every tensor one trailing 1 (coupled).
    add_indexed(t.invalid, "every tensor's DimensionCount 9", [](rng_t& rng, operator_type op) {
        const data_type index_type = random_index_type(rng, op), value_type = random_type(rng);
        operator_desc base = random_indexed(rng, op, value_type, index_type, 8, indexed_layout::packed);
        built b = change(base, "");
        b.fields.clear();
        for (auto& [name, x] : indexed_tensors(b.desc)) {
            x->sizes.push_back(1);
            b.fields.push_back(name + ".DimensionCount");
        }
        b.coupled = true;
        return b;
    });
}

inline void add_indexed_valid_classes(class_table& t) {
    for (std::uint32_t rank = 1; rank <= 8; ++rank)
        add_indexed(t.valid, fmt::format("valid: DimensionCount {} on every tensor", rank),
                    [=](rng_t& rng, operator_type op) { return valid(random_indexed_base(rng, op, rank)); });
    for (const data_type type : movable_data_types)
        add_indexed(t.valid, fmt::format("valid: DataType {}", to_string(type)), [=](rng_t& rng, operator_type op) {
            return valid(random_indexed(rng, op, type, random_index_type(rng, op)));
        });
    add_indexed(t.valid, "valid: every tensor packed", [](rng_t& rng, operator_type op) {
        const data_type index_type = random_index_type(rng, op), value_type = random_type(rng);
        return valid(random_indexed(rng, op, value_type, index_type, 0, indexed_layout::packed));
    });
    add_indexed(t.valid, "valid: Axis 0", [](rng_t& rng, operator_type op) {
        return valid(redraw(rng, [&](rng_t& g) -> std::optional<operator_desc> {
            operator_desc d = random_indexed_base(g, op);
            if (indexed_scalar(d, "Axis") != 0) return std::nullopt;
            return d;
        }));
    }, has_axis);
    add_indexed(t.valid, "valid: Axis DimensionCount - 1", [](rng_t& rng, operator_type op) {
        return valid(redraw(rng, [&](rng_t& g) -> std::optional<operator_desc> {
            operator_desc d = random_indexed_base(g, op);
            if (indexed_scalar(d, "Axis") + 1 != outputs_of(d).front().desc().sizes.size()) return std::nullopt;
            return d;
        }));
    }, has_axis);
    // Known divergence one-hot-on-value-past-last-axis: the two values on an axis before the last,
    // whose stride differs from the last axis's. DirectML reads OnValue at coordinate 1 of the
    // last axis (size 1: past the tensor, here inside the buffer), dmlref at coordinate 1 of the
    // innermost axis of size 2, as the page says.
    add_indexed(t.valid, "valid: ValuesTensor's two values on an axis before the last, which has stride 1 and size 1",
                [](rng_t& rng, operator_type op) {
                    const std::size_t rank = pick(rng, 2, 8);
                    const data_type index_type = random_index_type(rng, op), value_type = random_type(rng);
                    operator_desc d = random_indexed(rng, op, value_type, index_type, rank);
                    auto& values = std::get<one_hot_desc>(d).values_tensor;
                    const std::size_t n = values.sizes.size(), k = pick_index(rng, n - 1);
                    values.sizes.assign(n, 1);
                    values.sizes[k] = 2;
                    values.strides = std::vector<std::uint32_t>(n, 2);
                    (*values.strides)[n - 1] = 1;
                    values.total_tensor_size_in_bytes = calc_buffer_tensor_size(values);
                    return valid(d);
                },
                [](operator_type op) { return op == operator_type::one_hot; });
    for (const std::uint32_t alignment : {16u, 256u})
        add_indexed(t.valid, fmt::format("valid: GuaranteedBaseOffsetAlignment = {} on every tensor", alignment),
                    [=](rng_t& rng, operator_type op) {
                        operator_desc d = random_indexed_base(rng, op);
                        for (auto& [name, x] : indexed_tensors(d)) x->guaranteed_base_offset_alignment = alignment;
                        return valid(d);
                    });
}

inline void add_indexed_classes(class_table& t) {
    add_indexed_tensor_classes(t);
    add_indexed_operator_classes(t);
    add_indexed_valid_classes(t);
}

// ---- judging a scatter's duplicates -----------------------------------------------------------------

/// A scatter's elements that several updates write: DirectML leaves which update stays
/// unspecified, so where DirectML's output element (in `actual`, the output buffer) holds the bytes
/// of one of that element's updates, it is set to dmlref's (`expected`, the same buffer as dmlref
/// wrote it). `indices` and `updates` are the buffers bound to IndicesTensor and UpdatesTensor.
/// Returns the count of duplicated elements and of those where DirectML had kept another update
/// than dmlref's (the last in row-major order of the updates). An element holding anything else
/// is left as it is, to differ.
inline std::pair<std::size_t, std::size_t> accept_any_duplicate(const operator_desc& d, std::span<const std::byte> indices,
                                                                 std::span<const std::byte> updates,
                                                                 std::span<const std::byte> expected, std::span<std::byte> actual) {
    std::vector<scatter_duplicate> found;
    const buffer_tensor_desc *upd = nullptr, *out = nullptr;
    if (const auto* se = std::get_if<scatter_elements_desc>(&d)) {
        found = dmlref::detail::scatter_duplicates(*se, indices);
        upd = &se->updates_tensor;
        out = &se->output_tensor;
    } else if (const auto* sn = std::get_if<scatter_nd_desc>(&d)) {
        found = dmlref::detail::scatter_duplicates(*sn, indices);
        upd = &sn->updates_tensor;
        out = &sn->output_tensor;
    } else {
        return {0, 0};
    }
    const std::size_t width = element_size(out->data_type);
    const auto offset_of = [&](const buffer_tensor_desc& t, const std::vector<std::uint32_t>& c) {
        const std::vector<std::uint32_t> strides = t.strides ? *t.strides : packed_strides(t.sizes);
        std::uint64_t e = 0;
        for (std::size_t i = 0; i < c.size(); ++i) e += std::uint64_t{c[i]} * strides[i];
        return static_cast<std::size_t>(e) * width;
    };
    std::size_t other = 0;
    for (const scatter_duplicate& dup : found) {
        const std::size_t at = offset_of(*out, dup.output_coordinate);
        if (at + width > actual.size() || at + width > expected.size()) continue;
        std::byte* mine = actual.data() + at;
        const bool is_expected = std::memcmp(mine, expected.data() + at, width) == 0;
        const bool is_an_update = std::any_of(dup.update_coordinates.begin(), dup.update_coordinates.end(), [&](const auto& u) {
            const std::size_t from = offset_of(*upd, u);
            return from + width <= updates.size() && std::memcmp(updates.data() + from, mine, width) == 0;
        });
        if (!is_expected && is_an_update) {
            std::memcpy(mine, expected.data() + at, width);
            ++other;
        }
    }
    return {found.size(), other};
}

} // namespace dmlref::parity::detail
