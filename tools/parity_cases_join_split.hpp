#pragma once
/// \file parity_cases_join_split.hpp
/// The boundary classes of JOIN and SPLIT for parity_cases.hpp (which includes this after its
/// helpers, before its class table): descs that bind tensor arrays, one buffer per tensor. The
/// whole is JOIN's OutputTensor and SPLIT's InputTensor; the parts are JOIN's InputTensors and
/// SPLIT's OutputTensors. A class's text names them as DirectML does, with `k` for "a part drawn
/// at random" ("InputTensors[k].Sizes: one more on Axis"); a case's changed fields name the part
/// drawn ("InputTensors[2].Sizes").
///
/// Every field of every tensor is probed as the other operators' tensors are (add_tensor_classes),
/// on the whole and on a part; then InputCount / OutputCount at 0, one more and one fewer; Axis at
/// and past the rank and moved to another axis; the parts' sizes off by one on and off the axis;
/// types that differ between the parts; the sums of the parts' Sizes[Axis] and the element counts
/// that wrap 2^32 into what looks valid in 32-bit arithmetic; and, valid, every rank and type, one
/// to 64 parts, strided, permuted and broadcast inputs, strided outputs and the largest tensors
/// DirectML accepts.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <dmlref/operator.hpp>

#include "random_cases.hpp"

namespace dmlref::parity::detail {

/// The operators whose descs bind tensor arrays.
inline constexpr operator_type parts_ops[] = {operator_type::join, operator_type::split};

constexpr bool is_parts_op(operator_type op) noexcept { return op == operator_type::join || op == operator_type::split; }

/// JOIN's and SPLIT's names for the whole, the parts' array and its count.
inline std::string whole_field(operator_type op) { return op == operator_type::join ? "OutputTensor" : "InputTensor"; }
inline std::string parts_field(operator_type op) { return op == operator_type::join ? "InputTensors" : "OutputTensors"; }
inline std::string count_field(operator_type op) { return op == operator_type::join ? "InputCount" : "OutputCount"; }

/// `text` for `op`: "{W}", "{P}" and "{C}" become the whole's, the parts' and the count's names.
inline std::string parts_text(operator_type op, std::string_view text) {
    std::string result;
    for (std::size_t at = 0; at < text.size();) {
        const std::string_view rest = text.substr(at);
        if (rest.starts_with("{W}")) result += whole_field(op);
        else if (rest.starts_with("{P}")) result += parts_field(op);
        else if (rest.starts_with("{C}")) result += count_field(op);
        else {
            result.push_back(text[at++]);
            continue;
        }
        at += 3;
    }
    return result;
}

inline buffer_tensor_desc& whole_ref(operator_desc& d) {
    if (auto* j = std::get_if<join_desc>(&d)) return j->output_tensor;
    return std::get<split_desc>(d).input_tensor;
}
inline std::vector<buffer_tensor_desc>& parts_ref(operator_desc& d) {
    if (auto* j = std::get_if<join_desc>(&d)) return j->input_tensors;
    return std::get<split_desc>(d).output_tensors;
}
inline std::uint32_t& axis_ref(operator_desc& d) {
    if (auto* j = std::get_if<join_desc>(&d)) return j->axis;
    return std::get<split_desc>(d).axis;
}

/// One tensor of a JOIN or SPLIT desc: the whole, or part `part`.
struct slot {
    bool whole = true;
    std::size_t part = 0;
};
inline buffer_tensor_desc& tensor_at(operator_desc& d, slot s) { return s.whole ? whole_ref(d) : parts_ref(d).at(s.part); }
/// "OutputTensor", "InputTensors[2]".
inline std::string slot_name(operator_type op, slot s) {
    return s.whole ? whole_field(op) : fmt::format("{}[{}]", parts_field(op), s.part);
}
/// Whether the tensor is an output of the operator (JOIN's whole, SPLIT's parts).
constexpr bool slot_is_output(operator_type op, slot s) noexcept { return s.whole == (op == operator_type::join); }
/// The whole, or a part of `d` drawn at random.
inline slot pick_slot(rng_t& rng, operator_desc& d, bool whole) {
    if (whole) return slot{true, 0};
    return slot{false, pick_index(rng, parts_ref(d).size())};
}

/// A JOIN or SPLIT: the whole's sizes and each part's Sizes[Axis] (its other sizes the whole's).
/// The whole's Sizes[Axis] is taken as given, so that a recipe may hold a sum that wraps 2^32.
struct parts_recipe {
    operator_type op = operator_type::join;
    data_type type = data_type::float32;
    std::vector<std::uint32_t> whole;
    std::vector<std::uint32_t> lengths;
    std::size_t axis = 0;
};

/// A random valid recipe (random_cases::random_parts): `rank` axes (0: 1 to 8), one to five parts.
inline parts_recipe random_parts_recipe(rng_t& rng, operator_type op, data_type type, std::size_t rank = 0) {
    parts_recipe r;
    r.op = op;
    r.type = type;
    const std::size_t dims = rank ? rank : pick(rng, 1, 8);
    r.whole = random_cases::random_sizes(rng, dims);
    r.axis = pick_index(rng, dims);
    for (const auto& part : random_cases::random_parts(rng, r.whole, r.axis)) r.lengths.push_back(part[r.axis]);
    return r;
}

/// The recipe as a desc with packed tensors and exact TotalTensorSizeInBytes.
inline operator_desc realize_parts(const parts_recipe& r) {
    const buffer_tensor_desc whole = make_buffer_tensor_desc(r.type, r.whole);
    std::vector<buffer_tensor_desc> parts;
    for (const std::uint32_t n : r.lengths) {
        auto sizes = r.whole;
        sizes[r.axis] = n;
        parts.push_back(make_buffer_tensor_desc(r.type, sizes));
    }
    const auto axis = static_cast<std::uint32_t>(r.axis);
    if (r.op == operator_type::join) return join_desc{parts, whole, axis};
    return split_desc{whole, parts, axis};
}

/// The recipe's desc with the whole and every part laid out as given (each part its own draw).
inline operator_desc parts_base(rng_t& rng, const parts_recipe& r, layout whole, layout parts) {
    operator_desc d = realize_parts(r);
    const bool split = r.op == operator_type::split;
    whole_ref(d) = apply_layout(rng, whole_ref(d), whole, split);
    for (auto& p : parts_ref(d)) p = apply_layout(rng, p, parts, !split);
    return d;
}

inline operator_desc random_parts_base(rng_t& rng, operator_type op, data_type type, std::size_t rank = 0) {
    return parts_base(rng, random_parts_recipe(rng, op, type, rank), layout::random, layout::random);
}

/// make_room for one tensor of a JOIN or SPLIT.
inline void make_room_at(operator_desc& base, slot s, std::uint64_t bytes) {
    auto& t = tensor_at(base, s);
    const std::uint64_t most = max_total_tensor_size_in_bytes(element_size(t.data_type));
    t.total_tensor_size_in_bytes = std::max(t.total_tensor_size_in_bytes, std::min(bytes, most));
}

/// The index of a strided tensor's last element, in 64 bits.
inline std::uint64_t last_element_index(const buffer_tensor_desc& t) {
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < t.sizes.size(); ++i) last += std::uint64_t{t.sizes[i] - 1} * (*t.strides)[i];
    return last;
}

/// The stride of axis k (Sizes[k] >= 2) that takes the last element's index to `target` or past it.
inline std::uint32_t stride_reaching(const buffer_tensor_desc& t, std::size_t k, std::uint64_t target) {
    std::uint64_t rest = 0;
    for (std::size_t i = 0; i < t.sizes.size(); ++i)
        if (i != k) rest += std::uint64_t{t.sizes[i] - 1} * (*t.strides)[i];
    const std::uint64_t m = t.sizes[k] - 1u;
    const std::uint64_t need = target > rest ? target - rest : 1;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>((need + m - 1) / m, u32_max));
}

/// A class for JOIN and for SPLIT (those `applies` accepts), its text through parts_text.
template <class Applies = bool (*)(operator_type)>
void add_parts(std::vector<class_entry>& list, std::string_view text, const build_fn& build,
               Applies applies = [](operator_type) { return true; }) {
    for (operator_type op : parts_ops)
        if (applies(op)) list.push_back({op, parts_text(op, text), build});
}

/// change() naming the slot's field ("InputTensors[2].Sizes").
inline built change_at(const operator_desc& base, operator_type op, slot s, std::string_view field) {
    return change(base, slot_name(op, s) + "." + std::string(field));
}

// The classes of every tensor, on the whole (`whole`) or on a part drawn at random.
inline void add_parts_tensor_classes(class_table& t) {
    for (const bool whole : {true, false}) {
        const std::string x = whole ? "{W}" : "{P}[k]";
        const auto text = [x](std::string_view what) { return x + "." + std::string(what); };
        // A base and the slot probed in it, the base's tensors laid out as `layouts` says.
        const auto base_and_slot = [whole](rng_t& rng, operator_type op, data_type type, std::size_t rank, layout probed,
                                           layout others) {
            parts_recipe r = random_parts_recipe(rng, op, type, rank);
            operator_desc d = parts_base(rng, r, whole ? probed : others, whole ? others : probed);
            const slot s = pick_slot(rng, d, whole);
            return std::pair{d, s};
        };

        // DataType
        struct named_value {
            std::string name;
            std::uint64_t value;
        };
        for (const named_value& v : std::vector<named_value>{
                 {"UNKNOWN", 0}, {"UINT4", 12}, {"INT4", 13}, {"14", 14}, {"0xFFFFFFFF", u32_max}})
            add_parts(t.invalid, text("DataType: ") + v.name, [=](rng_t& rng, operator_type op) {
                auto [base, s] = base_and_slot(rng, op, random_type(rng), 0, layout::random, layout::random);
                built b = change_at(base, op, s, "DataType");
                auto& tensor = tensor_at(b.desc, s);
                b.detail = fmt::format("{}: {} -> {}", slot_name(op, s), to_string(tensor.data_type), v.value);
                tensor.data_type = static_cast<data_type>(v.value);
                return b;
            });
        for (const bool same : {true, false})
            add_parts(t.invalid,
                      text(same ? "DataType: another type of the same width (this tensor only)"
                                : "DataType: a narrower type (this tensor only)"),
                      [=](rng_t& rng, operator_type op) {
                          const data_type type = same ? random_type(rng) : random_type_of_at_least(rng, 2);
                          auto [base, s] = base_and_slot(rng, op, type, 0, layout::random, layout::random);
                          built b = change_at(base, op, s, "DataType");
                          auto& tensor = tensor_at(b.desc, s);
                          const data_type other = other_type(rng, tensor.data_type, same, !same);
                          b.detail = fmt::format("{}: {} -> {}", slot_name(op, s), to_string(tensor.data_type), to_string(other));
                          tensor.data_type = other;
                          return b;
                      });

        // Flags
        for (const named_value& v : std::vector<named_value>{{"OWNED_BY_DML (0x1)", 1}, {"0x2", 2}, {"0x80000000", 0x8000'0000u}})
            add_parts(t.invalid, text("Flags: ") + v.name, [=](rng_t& rng, operator_type op) {
                auto [base, s] = base_and_slot(rng, op, random_type(rng), 0, layout::random, layout::random);
                built b = change_at(base, op, s, "Flags");
                tensor_at(b.desc, s).flags = static_cast<tensor_flags>(v.value);
                b.detail = fmt::format("{}: 0 -> {:#x}", slot_name(op, s), v.value);
                return b;
            });

        // DimensionCount (the probed tensor packed, so that Sizes alone carries it)
        struct rank_change {
            std::string name;
            std::uint32_t low, high; // the base's rank
            int to;                  // -1: one less, 1: one more, 0 or 9: that many
        };
        for (const rank_change& v : std::vector<rank_change>{{"DimensionCount: 0", 1, 8, 0},
                                                            {"DimensionCount: one more (a trailing size 1)", 1, 7, 1},
                                                            {"DimensionCount: one less (the last axis dropped)", 2, 8, -1},
                                                            {"DimensionCount: 9 (trailing sizes 1)", 1, 8, 9}})
            add_parts(t.invalid, text(v.name), [=](rng_t& rng, operator_type op) {
                const std::size_t rank = pick(rng, v.low, v.high);
                auto [base, s] = base_and_slot(rng, op, random_type(rng), rank, layout::packed, layout::random);
                built b = change_at(base, op, s, "DimensionCount");
                auto& tensor = tensor_at(b.desc, s);
                const std::size_t to = v.to == 1 ? rank + 1 : v.to == -1 ? rank - 1 : static_cast<std::size_t>(v.to);
                b.detail = fmt::format("{}: {} -> {} (Sizes {})", slot_name(op, s), rank, to, sizes_text(tensor.sizes));
                tensor.sizes.resize(to, 1);
                return b;
            });

        // Sizes, on Axis and off it (the probed tensor packed; TotalTensorSizeInBytes made room for more)
        add_parts(t.invalid, text("Sizes: 0 on one axis"), [=](rng_t& rng, operator_type op) {
            auto [base, s] = base_and_slot(rng, op, random_type(rng), 0, layout::random, layout::random);
            built b = change_at(base, op, s, "Sizes");
            auto& tensor = tensor_at(b.desc, s);
            const std::size_t k = pick_index(rng, tensor.sizes.size());
            b.detail = fmt::format("{} axis {} (Axis {}): {} -> 0", slot_name(op, s), k, axis_ref(b.desc), tensor.sizes[k]);
            tensor.sizes[k] = 0;
            return b;
        });
        for (const bool on_axis : {true, false})
            for (const int delta : {1, -1})
                add_parts(t.invalid,
                          text(fmt::format("Sizes: one {} {}", delta > 0 ? "more" : "less",
                                           on_axis ? "on Axis (the parts' sum off by one)" : "on another axis than Axis")),
                          [=](rng_t& rng, operator_type op) {
                              auto [base, s, k] =
                                  redraw(rng, [&](rng_t& g) -> std::optional<std::tuple<operator_desc, slot, std::size_t>> {
                                      auto [d, sl] = base_and_slot(g, op, random_type(g), 0, layout::packed, layout::random);
                                      const auto& sizes = tensor_at(d, sl).sizes;
                                      const std::size_t axis = axis_ref(d);
                                      const auto found = random_axis(g, sizes.size(), [&](std::size_t i) {
                                          return (i == axis) == on_axis && (delta > 0 || sizes[i] >= 2);
                                      });
                                      if (!found) return std::nullopt;
                                      return std::tuple{d, sl, *found};
                                  });
                              auto& tensor = tensor_at(base, s);
                              auto sizes = tensor.sizes;
                              sizes[k] = delta > 0 ? sizes[k] + 1 : sizes[k] - 1;
                              make_room_at(base, s, calc_buffer_tensor_size(tensor.data_type, sizes));
                              built b = change_at(base, op, s, "Sizes");
                              b.detail = fmt::format("{} axis {} (Axis {}): {} -> {}", slot_name(op, s), k, axis_ref(base),
                                                     tensor.sizes[k], sizes[k]);
                              tensor_at(b.desc, s).sizes = sizes;
                              return b;
                          });

        // Strides (the probed tensor with explicit strides)
        for (const bool more : {true, false})
            add_parts(t.invalid, text(more ? "Strides: one entry more than Sizes" : "Strides: one entry fewer than Sizes"),
                      [=](rng_t& rng, operator_type op) {
                          auto [base, s] = base_and_slot(rng, op, random_type(rng), 0, layout::strided, layout::random);
                          built b = change_at(base, op, s, "Strides");
                          auto& strides = *tensor_at(b.desc, s).strides;
                          b.detail = fmt::format("{}: {} -> {} entries", slot_name(op, s), strides.size(),
                                                 more ? strides.size() + 1 : strides.size() - 1);
                          if (more) strides.push_back(1);
                          else strides.pop_back();
                          return b;
                      });
        // A base whose probed tensor has explicit strides and an axis of `min_size` elements or more.
        const auto strided_axis_base = [=](rng_t& rng, operator_type op, data_type type, std::uint32_t min_size) {
            return redraw(rng, [&](rng_t& g) -> std::optional<std::tuple<operator_desc, slot, std::size_t>> {
                auto [d, s] = base_and_slot(g, op, type, 0, layout::strided, layout::random);
                const auto& sizes = tensor_at(d, s).sizes;
                const auto k = random_axis(g, sizes.size(), [&](std::size_t i) { return sizes[i] >= min_size; });
                if (!k) return std::nullopt;
                return std::tuple{d, s, *k};
            });
        };
        // The outputs only (JOIN's whole, SPLIT's parts): an input may broadcast.
        add_parts(t.invalid, text("Strides: 0 on an axis of 2 or more elements (broadcast output)"),
                  [=](rng_t& rng, operator_type op) {
                      auto [base, s, k] = strided_axis_base(rng, op, random_type(rng), 2);
                      built b = change_at(base, op, s, "Strides");
                      auto& strides = *tensor_at(b.desc, s).strides;
                      b.detail = fmt::format("{} axis {} (size {}): stride {} -> 0", slot_name(op, s), k,
                                             tensor_at(b.desc, s).sizes[k], strides[k]);
                      strides[k] = 0;
                      return b;
                  },
                  [whole](operator_type op) { return slot_is_output(op, slot{whole, 0}); });
        add_parts(t.invalid, text("Strides: two axes with the same stride (overlapping elements)"), [=](rng_t& rng, operator_type op) {
            auto [base, s, a, c] =
                redraw(rng, [&](rng_t& g) -> std::optional<std::tuple<operator_desc, slot, std::size_t, std::size_t>> {
                    const std::size_t rank = pick(g, 2, 8);
                    auto [d, sl] = base_and_slot(g, op, random_type(g), rank, layout::strided, layout::random);
                    const auto& sizes = tensor_at(d, sl).sizes;
                    std::vector<std::size_t> axes;
                    for (std::size_t i = 0; i < sizes.size(); ++i)
                        if (sizes[i] >= 2) axes.push_back(i);
                    if (axes.size() < 2) return std::nullopt;
                    const auto [i, j] = two_axes(g, axes.size());
                    return std::tuple{d, sl, axes[i], axes[j]};
                });
            auto& tensor = tensor_at(base, s);
            auto strides = *tensor.strides;
            strides[a] = strides[c];
            make_room_at(base, s, calc_buffer_tensor_size(tensor.data_type, tensor.sizes, strides));
            built b = change_at(base, op, s, "Strides");
            b.detail = fmt::format("{} axis {}: stride {} -> {} (the stride of axis {})", slot_name(op, s), a, (*tensor.strides)[a],
                                   strides[a], c);
            tensor_at(b.desc, s).strides = strides;
            return b;
        });
        add_parts(t.invalid, text("Strides: UINT32_MAX on an axis of size 1"), [=](rng_t& rng, operator_type op) {
            auto [base, s, k] = redraw(rng, [&](rng_t& g) -> std::optional<std::tuple<operator_desc, slot, std::size_t>> {
                auto [d, sl] = base_and_slot(g, op, random_type(g), 0, layout::strided, layout::random);
                const auto& sizes = tensor_at(d, sl).sizes;
                const auto found = random_axis(g, sizes.size(), [&](std::size_t i) { return sizes[i] == 1; });
                if (!found) return std::nullopt;
                return std::tuple{d, sl, *found};
            });
            built b = change_at(base, op, s, "Strides");
            auto& strides = *tensor_at(b.desc, s).strides;
            b.detail = fmt::format("{} axis {}: stride {} -> 4294967295", slot_name(op, s), k, strides[k]);
            strides[k] = u32_max;
            return b;
        });
        // wraps: TotalTensorSizeInBytes as 32-bit arithmetic gives it (the base made that large); at
        // 2^32: the 64-bit size, past DirectML's cap, so Strides and TotalTensorSizeInBytes change
        // together (coupled).
        for (const bool wraps : {true, false})
            add_parts(t.invalid,
                      text(wraps ? "Strides: last element's index wraps 2^32 (TotalTensorSizeInBytes as in 32 bits)"
                                 : "Strides: last element's index 2^32 or more (TotalTensorSizeInBytes = DMLCalcBufferTensorSize)"),
                      [=](rng_t& rng, operator_type op) {
                          auto [base, s, k] = strided_axis_base(rng, op, random_type(rng), 3);
                          auto& tensor = tensor_at(base, s);
                          auto mutated = tensor;
                          (*mutated.strides)[k] = stride_reaching(tensor, k, two_32);
                          if (wraps) make_room_at(base, s, wrapped_size(mutated));
                          else mutated.total_tensor_size_in_bytes = calc_buffer_tensor_size(mutated);
                          built b = change_at(base, op, s, "Strides");
                          if (!wraps) {
                              b.fields.push_back(slot_name(op, s) + ".TotalTensorSizeInBytes");
                              b.coupled = true;
                          }
                          b.detail = fmt::format("{} axis {} (size {}): stride {} -> {}; last index {} (mod 2^32: {}); "
                                                 "TotalTensorSizeInBytes {}{}",
                                                 slot_name(op, s), k, tensor.sizes[k], (*tensor.strides)[k], (*mutated.strides)[k],
                                                 last_element_index(mutated), last_element_index(mutated) % two_32,
                                                 tensor.total_tensor_size_in_bytes,
                                                 wraps ? "" : fmt::format(" -> {}", mutated.total_tensor_size_in_bytes));
                          tensor_at(b.desc, s).strides = mutated.strides;
                          if (!wraps) tensor_at(b.desc, s).total_tensor_size_in_bytes = mutated.total_tensor_size_in_bytes;
                          return b;
                      });
        // One big axis (every other size 1; the parts split it when it is Axis), packed strides
        // given, then UINT32_MAX on it; TotalTensorSizeInBytes the cap (make_room).
        add_parts(t.invalid,
                  text("Strides: UINT32_MAX on an axis of 2^31 / element size + 2 elements (DMLCalcBufferTensorSize past 2^63 bytes)"),
                  [=](rng_t& rng, operator_type op) {
                      const std::size_t rank = pick(rng, 1, 4);
                      // A JOIN input of one-byte elements would pass its 2^31 - 1 elements.
                      const bool join_input = op == operator_type::join && !whole;
                      const data_type type = join_input ? random_type_of_at_least(rng, 2) : random_type(rng);
                      parts_recipe r;
                      r.op = op;
                      r.type = type;
                      r.whole.assign(rank, 1);
                      r.axis = pick_index(rng, rank);
                      const std::uint32_t n = static_cast<std::uint32_t>(0x8000'0000u / element_size(type) + 2);
                      // The probed tensor has the n elements on Axis: the whole split in halves, or a
                      // part beside one of a single element.
                      const bool first = chance(rng, 50);
                      r.lengths = whole ? std::vector<std::uint32_t>{n / 2, n - n / 2}
                                        : first ? std::vector<std::uint32_t>{n, 1} : std::vector<std::uint32_t>{1, n};
                      r.whole[r.axis] = whole ? n : n + 1;
                      operator_desc base = realize_parts(r);
                      const slot s = whole ? slot{true, 0} : slot{false, first ? 0u : 1u};
                      auto& tensor = tensor_at(base, s);
                      tensor.strides = packed_strides(tensor.sizes);
                      auto mutated = tensor;
                      (*mutated.strides)[r.axis] = u32_max;
                      make_room_at(base, s, calc_buffer_tensor_size(mutated));
                      built b = change_at(base, op, s, "Strides");
                      b.detail = fmt::format("{} axis {} of {}: stride {} -> 4294967295; TotalTensorSizeInBytes {}", slot_name(op, s),
                                             r.axis, sizes_text(tensor.sizes), (*tensor.strides)[r.axis],
                                             tensor.total_tensor_size_in_bytes);
                      tensor_at(b.desc, s).strides = mutated.strides;
                      return b;
                  });

        // TotalTensorSizeInBytes
        struct total_value {
            std::string name;
            std::int64_t from_calc;
            std::optional<std::uint64_t> absolute;
            std::optional<std::uint64_t> past_cap;
        };
        for (const total_value& v : std::vector<total_value>{{"DMLCalcBufferTensorSize - 1", -1, {}, {}},
                                                             {"DMLCalcBufferTensorSize - 4", -4, {}, {}},
                                                             {"DMLCalcBufferTensorSize + 1 (not a multiple of 4)", 1, {}, {}},
                                                             {"0", 0, 0, {}},
                                                             {"(2^32 - 1) * element size", 0, {}, 0},
                                                             {"(2^32 - 1) * element size + 1", 0, {}, 1},
                                                             {"2^32", 0, two_32, {}},
                                                             {"UINT64_MAX", 0, std::numeric_limits<std::uint64_t>::max(), {}}})
            add_parts(t.invalid, text("TotalTensorSizeInBytes: ") + v.name, [=](rng_t& rng, operator_type op) {
                auto [base, s] = base_and_slot(rng, op, random_type(rng), 0, layout::random, layout::random);
                built b = change_at(base, op, s, "TotalTensorSizeInBytes");
                auto& tensor = tensor_at(b.desc, s);
                const std::uint64_t calc = calc_buffer_tensor_size(tensor);
                const std::uint64_t value = v.absolute ? *v.absolute
                                            : v.past_cap ? max_total_tensor_size_in_bytes(element_size(tensor.data_type)) + *v.past_cap
                                                         : calc + static_cast<std::uint64_t>(v.from_calc);
                b.detail = fmt::format("{}: {} -> {} (DMLCalcBufferTensorSize {}, {})", slot_name(op, s),
                                       tensor.total_tensor_size_in_bytes, value, calc, to_string(tensor.data_type));
                tensor.total_tensor_size_in_bytes = value;
                return b;
            });

        // GuaranteedBaseOffsetAlignment: 0 or a power of two of at least 16 (docs/directml.md).
        for (const std::string name : {"1", "3", "element size / 2", "element size", "8"})
            add_parts(t.invalid, text("GuaranteedBaseOffsetAlignment: ") + name, [=](rng_t& rng, operator_type op) {
                const data_type type = name == "element size / 2" ? random_type_of_at_least(rng, 2) : random_type(rng);
                auto [base, s] = base_and_slot(rng, op, type, 0, layout::random, layout::random);
                built b = change_at(base, op, s, "GuaranteedBaseOffsetAlignment");
                const auto size = static_cast<std::uint32_t>(element_size(type));
                const std::uint32_t value = name == "1" ? 1 : name == "3" ? 3 : name == "element size / 2" ? size / 2 : name == "element size" ? size : 8;
                tensor_at(b.desc, s).guaranteed_base_offset_alignment = value;
                b.detail = fmt::format("{}: 0 -> {} ({})", slot_name(op, s), value, to_string(type));
                return b;
            });
    }

    // 9 dimensions on every tensor at once (one rank for all, but past DirectML's 8).
    add_parts(t.invalid, "DimensionCount: 9 on every tensor (trailing sizes 1)", [](rng_t& rng, operator_type op) {
        operator_desc base = parts_base(rng, random_parts_recipe(rng, op, random_type(rng)), layout::packed, layout::packed);
        built b = change(base, whole_field(op) + ".DimensionCount");
        for (std::size_t k = 0; k < parts_ref(base).size(); ++k) b.fields.push_back(slot_name(op, slot{false, k}) + ".DimensionCount");
        b.coupled = true;
        b.detail = fmt::format("{} -> 9", whole_ref(b.desc).sizes.size());
        whole_ref(b.desc).sizes.resize(9, 1);
        for (auto& p : parts_ref(b.desc)) p.sizes.resize(9, 1);
        return b;
    });
}

// InputCount / OutputCount, Axis, and the sums along Axis.
inline void add_parts_operator_classes(class_table& t) {
    add_parts(t.invalid, "{C}: 0 (no {P})", [](rng_t& rng, operator_type op) {
        built b = change(random_parts_base(rng, op, random_type(rng)), count_field(op));
        b.detail = fmt::format("{} -> 0", parts_ref(b.desc).size());
        parts_ref(b.desc).clear();
        return b;
    });
    add_parts(t.invalid, "{C}: one more (a part of one element on Axis past {W}.Sizes[Axis])", [](rng_t& rng, operator_type op) {
        built b = change(random_parts_base(rng, op, random_type(rng)), count_field(op));
        auto& parts = parts_ref(b.desc);
        auto extra = make_buffer_tensor_desc(parts.front().data_type, parts.front().sizes);
        extra.sizes[axis_ref(b.desc)] = 1;
        extra.total_tensor_size_in_bytes = calc_buffer_tensor_size(extra);
        b.detail = fmt::format("{} -> {}", parts.size(), parts.size() + 1);
        parts.push_back(extra);
        return b;
    });
    add_parts(t.invalid, "{C}: one fewer (the last part dropped, the sum short of {W}.Sizes[Axis])", [](rng_t& rng, operator_type op) {
        operator_desc base = redraw(rng, [&](rng_t& g) -> std::optional<operator_desc> {
            operator_desc d = random_parts_base(g, op, random_type(g));
            if (parts_ref(d).size() < 2) return std::nullopt;
            return d;
        });
        built b = change(base, count_field(op));
        b.detail = fmt::format("{} -> {}", parts_ref(b.desc).size(), parts_ref(b.desc).size() - 1);
        parts_ref(b.desc).pop_back();
        return b;
    });

    struct axis_value {
        std::string name;
        std::optional<std::uint32_t> absolute; // else DimensionCount + offset
        std::uint32_t offset;
    };
    for (const axis_value& v : std::vector<axis_value>{{"Axis: DimensionCount (one past the last axis)", {}, 0},
                                                       {"Axis: DimensionCount + 1", {}, 1},
                                                       {"Axis: UINT32_MAX", u32_max, 0}})
        add_parts(t.invalid, v.name, [=](rng_t& rng, operator_type op) {
            built b = change(random_parts_base(rng, op, random_type(rng)), "Axis");
            const auto rank = static_cast<std::uint32_t>(whole_ref(b.desc).sizes.size());
            const std::uint32_t value = v.absolute ? *v.absolute : rank + v.offset;
            b.detail = fmt::format("{} -> {} ({} dimensions)", axis_ref(b.desc), value, rank);
            axis_ref(b.desc) = value;
            return b;
        });
    // On another axis every part has the whole's size, so the parts' sum there is the count times it.
    add_parts(t.invalid, "Axis: another axis (the parts' sum along it {C} times {W}'s)", [](rng_t& rng, operator_type op) {
        operator_desc base = redraw(rng, [&](rng_t& g) -> std::optional<operator_desc> {
            const std::size_t rank = pick(g, 2, 8);
            operator_desc d = random_parts_base(g, op, random_type(g), rank);
            if (parts_ref(d).size() < 2) return std::nullopt;
            return d;
        });
        built b = change(base, "Axis");
        const std::size_t rank = whole_ref(b.desc).sizes.size();
        std::size_t to = pick_index(rng, rank - 1);
        if (to >= axis_ref(b.desc)) ++to;
        b.detail = fmt::format("{} -> {}", axis_ref(b.desc), to);
        axis_ref(b.desc) = static_cast<std::uint32_t>(to);
        return b;
    });

    // The parts' Sizes[Axis] summing to the whole's plus 2^32, every other size 1: two parts of
    // about 2^31 elements each take the place of two small ones (coupled: the two parts' Sizes),
    // so that a sum kept in 32 bits equals the whole's. Their TotalTensorSizeInBytes is made room
    // for in the base, within DirectML's cap.
    add_parts(t.invalid, "{P}[k].Sizes[Axis]: two parts' sizes raised so that the sum wraps 2^32 to {W}.Sizes[Axis]",
              [](rng_t& rng, operator_type op) {
                  parts_recipe r;
                  r.op = op;
                  r.type = random_type(rng);
                  const std::size_t rank = pick(rng, 1, 8);
                  r.whole.assign(rank, 1);
                  r.axis = pick_index(rng, rank);
                  const std::size_t count = pick(rng, 2, 4);
                  r.whole[r.axis] = 0;
                  for (std::size_t k = 0; k < count; ++k) {
                      r.lengths.push_back(pick(rng, 1, 3));
                      r.whole[r.axis] += r.lengths.back();
                  }
                  operator_desc base = realize_parts(r);
                  const auto [a, c] = two_axes(rng, count);
                  // a becomes 2^31 + x and c 2^31 - x + (both old lengths): the sum grows by 2^32.
                  const std::uint32_t x = pick(rng, 0, 1000), la = r.lengths[a], lc = r.lengths[c];
                  const std::uint32_t na = 0x8000'0000u + x, nc = 0x8000'0000u - x + la + lc;
                  auto sa = parts_ref(base)[a].sizes, sc = parts_ref(base)[c].sizes;
                  sa[r.axis] = na;
                  sc[r.axis] = nc;
                  make_room_at(base, slot{false, a}, calc_buffer_tensor_size(r.type, sa));
                  make_room_at(base, slot{false, c}, calc_buffer_tensor_size(r.type, sc));
                  built b = change(base, slot_name(op, slot{false, a}) + ".Sizes");
                  b.fields.push_back(slot_name(op, slot{false, c}) + ".Sizes");
                  b.coupled = true;
                  parts_ref(b.desc)[a].sizes = sa;
                  parts_ref(b.desc)[c].sizes = sc;
                  std::uint64_t sum = 0;
                  for (const auto& p : parts_ref(b.desc)) sum += p.sizes[r.axis];
                  b.detail = fmt::format("Axis {}: parts {} and {} of {}: {} -> {}, {} -> {}; the sum {} (mod 2^32: {}); "
                                         "{}.Sizes[Axis] {}",
                                         r.axis, a, c, count, la, na, lc, nc, sum, sum % two_32, whole_field(op), r.whole[r.axis]);
                  return b;
              });
    // One part's Sizes[Axis] of 2^32 - 1 (the most a size may be; four- and eight-byte elements,
    // whose packed size stays within DirectML's cap), and the whole's Sizes[Axis] the new sum
    // modulo 2^32, which is the old one less the part's old length and one (coupled: the part and
    // the whole).
    add_parts(t.invalid, "{P}[k].Sizes[Axis]: UINT32_MAX, {W}.Sizes[Axis] the parts' sum modulo 2^32",
              [](rng_t& rng, operator_type op) {
                  parts_recipe r;
                  r.op = op;
                  r.type = random_type_of_width(rng, {4, 8});
                  const std::size_t rank = pick(rng, 1, 8);
                  r.whole.assign(rank, 1);
                  r.axis = pick_index(rng, rank);
                  const std::size_t count = pick(rng, 2, 4);
                  r.whole[r.axis] = 0;
                  for (std::size_t k = 0; k < count; ++k) { // 2 or more each: the whole keeps 1 or more
                      r.lengths.push_back(pick(rng, 2, 4));
                      r.whole[r.axis] += r.lengths.back();
                  }
                  operator_desc base = realize_parts(r);
                  const std::size_t a = pick_index(rng, count);
                  const std::uint32_t la = r.lengths[a];
                  auto sa = parts_ref(base)[a].sizes, sw = whole_ref(base).sizes;
                  sa[r.axis] = u32_max;
                  sw[r.axis] = r.whole[r.axis] - la - 1; // (sum - la + 2^32 - 1) mod 2^32
                  make_room_at(base, slot{false, a}, calc_buffer_tensor_size(r.type, sa));
                  built b = change(base, slot_name(op, slot{false, a}) + ".Sizes");
                  b.fields.push_back(whole_field(op) + ".Sizes");
                  b.coupled = true;
                  parts_ref(b.desc)[a].sizes = sa;
                  whole_ref(b.desc).sizes = sw;
                  std::uint64_t sum = 0;
                  for (const auto& p : parts_ref(b.desc)) sum += p.sizes[r.axis];
                  b.detail = fmt::format("Axis {}: part {} of {}: {} -> 4294967295; the sum {} (mod 2^32: {}); {}.Sizes[Axis] {} -> {}",
                                         r.axis, a, count, la, sum, sum % two_32, whole_field(op), r.whole[r.axis], sw[r.axis]);
                  return b;
              });
    // The whole's element count at 2^32 and wrapping it, grown along Axis by one part (coupled:
    // that part and the whole): a base of 65535 x 65536 elements in two axes, the parts splitting
    // the first, Axis, in thirds (each below JOIN's 2^31 elements), one of which takes one element
    // more (2^32 elements); or 65534 x 65537 (2^32 - 65538, valid for every type) grown by two
    // (2^32 + 65536: 65536 modulo 2^32).
    for (const bool wraps : {false, true})
        add_parts(t.invalid,
                  wraps ? "{P}[k].Sizes and {W}.Sizes: {W}'s element count wraps 2^32 (TotalTensorSizeInBytes as in 32 bits)"
                        : "{P}[k].Sizes and {W}.Sizes: {W} of 2^32 elements",
                  [=](rng_t& rng, operator_type op) {
                      parts_recipe r;
                      r.op = op;
                      r.type = random_type(rng);
                      const std::size_t rank = pick(rng, 2, 8);
                      r.whole.assign(rank, 1);
                      const auto [i, j] = two_axes(rng, rank);
                      r.axis = i;
                      r.whole[i] = wraps ? 65534 : 65535;
                      r.whole[j] = wraps ? 65537 : 65536;
                      r.lengths = {r.whole[i] / 3, r.whole[i] / 3, r.whole[i] - 2 * (r.whole[i] / 3)};
                      operator_desc base = realize_parts(r);
                      const std::size_t a = pick_index(rng, 3);
                      const std::uint32_t grow = wraps ? 2 : 1;
                      auto sa = parts_ref(base)[a].sizes, sw = whole_ref(base).sizes;
                      sa[i] += grow;
                      sw[i] += grow;
                      const auto grown = make_buffer_tensor_desc(r.type, sw);
                      make_room_at(base, slot{true, 0}, wraps ? wrapped_size(grown) : calc_buffer_tensor_size(grown));
                      make_room_at(base, slot{false, a}, calc_buffer_tensor_size(r.type, sa));
                      built b = change(base, slot_name(op, slot{false, a}) + ".Sizes");
                      b.fields.push_back(whole_field(op) + ".Sizes");
                      b.coupled = true;
                      parts_ref(b.desc)[a].sizes = sa;
                      whole_ref(b.desc).sizes = sw;
                      b.detail = fmt::format("{}.Sizes {} -> {} ({} elements), part {} grown by {}", whole_field(op),
                                             sizes_text(r.whole), sizes_text(sw), element_count(sw), a, grow);
                      return b;
                  });
}

// The valid ones.
inline void add_parts_valid_classes(class_table& t) {
    const auto layouts = [](rng_t& rng, const parts_recipe& r) { return parts_base(rng, r, layout::random, layout::random); };
    add_parts(t.valid, "valid: {C} 1 (a copy)", [=](rng_t& rng, operator_type op) {
        parts_recipe r = random_parts_recipe(rng, op, random_type(rng));
        r.lengths = {r.whole[r.axis]};
        return valid(layouts(rng, r));
    });
    add_parts(t.valid, "valid: {C} 2 to 5, the parts of unequal sizes along Axis", [=](rng_t& rng, operator_type op) {
        parts_recipe r = random_parts_recipe(rng, op, random_type(rng));
        const std::size_t count = pick(rng, 2, 5);
        r.lengths.clear();
        r.whole[r.axis] = 0;
        for (std::size_t k = 0; k < count; ++k) {
            r.lengths.push_back(pick(rng, 1, 6));
            r.whole[r.axis] += r.lengths.back();
        }
        return valid(layouts(rng, r), fmt::format("lengths {}", sizes_text(r.lengths)));
    });
    for (const std::uint32_t count : {8u, 64u})
        add_parts(t.valid, fmt::format("valid: {{C}} {} (one or two elements each along Axis)", count), [=](rng_t& rng, operator_type op) {
            const std::size_t rank = pick(rng, 1, 3);
            parts_recipe r = random_parts_recipe(rng, op, random_type(rng), rank);
            r.lengths.clear();
            r.whole[r.axis] = 0;
            for (std::uint32_t k = 0; k < count; ++k) {
                r.lengths.push_back(pick(rng, 1, 2));
                r.whole[r.axis] += r.lengths.back();
            }
            return valid(layouts(rng, r));
        });
    for (const bool first : {true, false})
        add_parts(t.valid, first ? "valid: Axis 0" : "valid: Axis DimensionCount - 1", [=](rng_t& rng, operator_type op) {
            parts_recipe r = random_parts_recipe(rng, op, random_type(rng));
            const std::size_t to = first ? 0 : r.whole.size() - 1;
            // The parts move to the new axis: the whole's size there becomes their sum.
            std::swap(r.whole[to], r.whole[r.axis]);
            r.axis = to;
            return valid(layouts(rng, r));
        });
    for (std::uint32_t rank = 1; rank <= 8; ++rank)
        add_parts(t.valid, fmt::format("valid: DimensionCount {} on every tensor", rank), [=](rng_t& rng, operator_type op) {
            return valid(random_parts_base(rng, op, random_type(rng), rank));
        });
    for (const data_type type : movable_data_types)
        add_parts(t.valid, fmt::format("valid: DataType {}", to_string(type)),
                  [=](rng_t& rng, operator_type op) { return valid(random_parts_base(rng, op, type)); });
    add_parts(t.valid, "valid: TotalTensorSizeInBytes = DMLCalcBufferTensorSize on every tensor", [](rng_t& rng, operator_type op) {
        operator_desc d = random_parts_base(rng, op, random_type(rng));
        whole_ref(d).total_tensor_size_in_bytes = calc_buffer_tensor_size(whole_ref(d));
        for (auto& p : parts_ref(d)) p.total_tensor_size_in_bytes = calc_buffer_tensor_size(p);
        return valid(d);
    });
    for (const std::uint32_t alignment : {16u, 256u, 0x8000'0000u})
        add_parts(t.valid, fmt::format("valid: GuaranteedBaseOffsetAlignment = {} on every tensor", alignment),
                  [=](rng_t& rng, operator_type op) {
                      operator_desc d = random_parts_base(rng, op, random_type(rng));
                      whole_ref(d).guaranteed_base_offset_alignment = alignment;
                      for (auto& p : parts_ref(d)) p.guaranteed_base_offset_alignment = alignment;
                      return valid(d);
                  });
    // The inputs (JOIN's parts, SPLIT's whole) broadcast: a zero stride on an axis of 2 or more
    // elements of each, or every stride zero.
    for (const bool all : {false, true})
        add_parts(t.valid,
                  all ? "valid: every input's Strides all 0 (one element broadcast)"
                      : "valid: every input's Strides 0 on an axis of 2 or more elements (broadcast)",
                  [=](rng_t& rng, operator_type op) {
                      const bool split = op == operator_type::split;
                      operator_desc d = redraw(rng, [&](rng_t& g) -> std::optional<operator_desc> {
                          parts_recipe r = random_parts_recipe(g, op, random_type(g));
                          operator_desc base = parts_base(g, r, split ? layout::strided : layout::random,
                                                          split ? layout::random : layout::strided);
                          std::vector<buffer_tensor_desc*> inputs;
                          if (split) inputs.push_back(&whole_ref(base));
                          else
                              for (auto& p : parts_ref(base)) inputs.push_back(&p);
                          for (buffer_tensor_desc* in : inputs) {
                              if (all) {
                                  in->strides = std::vector<std::uint32_t>(in->sizes.size(), 0);
                                  in->total_tensor_size_in_bytes = calc_buffer_tensor_size(*in);
                                  continue;
                              }
                              const auto k = random_axis(g, in->sizes.size(), [&](std::size_t i) { return in->sizes[i] >= 2; });
                              if (!k) return std::nullopt;
                              (*in->strides)[*k] = 0;
                          }
                          return base;
                      });
                      return valid(d);
                  });
    add_parts(t.valid, "valid: every output's Strides larger than packed (strided outputs)", [](rng_t& rng, operator_type op) {
        const bool split = op == operator_type::split;
        operator_desc d = parts_base(rng, random_parts_recipe(rng, op, random_type(rng)), split ? layout::random : layout::packed,
                                     split ? layout::packed : layout::random);
        if (split)
            for (auto& p : parts_ref(d)) p = with_strides(rng, p, pick(rng, 2, 3), true);
        else
            whole_ref(d) = with_strides(rng, whole_ref(d), pick(rng, 2, 3), true);
        return valid(d);
    });
    add_parts(t.valid, "valid: every tensor with permuted strides (transposed, each its own way)", [](rng_t& rng, operator_type op) {
        const std::size_t rank = pick(rng, 2, 8);
        operator_desc d = realize_parts(random_parts_recipe(rng, op, random_type(rng), rank));
        whole_ref(d) = with_strides(rng, whole_ref(d), 3);
        for (auto& p : parts_ref(d)) p = with_strides(rng, p, 3);
        return valid(d);
    });
    // The largest packed whole DirectML accepts (largest_groups), its Axis split in parts of at most
    // 2^31 - 1 elements each (DirectML's JOIN takes no larger input; SPLIT's outputs may be larger:
    // the classes below), the first part's length drawn, the others as long as they may be.
    for (const largest_group& g : largest_groups())
        add_parts(t.valid,
                  fmt::format("valid: {{W}} of {} elements ({}, the largest DirectML accepts), Axis split in parts of at most "
                              "2^31 - 1 elements",
                              g.count, g.each),
                  [=](rng_t& rng, operator_type op) {
                      const std::size_t rank = pick(rng, 2, 8);
                      const auto [i, j] = two_axes(rng, rank);
                      parts_recipe r;
                      r.op = op;
                      r.type = random_type_of_width(rng, g.widths);
                      r.whole.assign(rank, 1);
                      r.whole[i] = g.a;
                      r.whole[j] = g.b;
                      r.axis = chance(rng, 50) ? i : j;
                      const std::uint32_t n = r.whole[r.axis], inner = r.axis == i ? g.b : g.a;
                      const auto most = static_cast<std::uint32_t>(std::min<std::uint64_t>(dmlref::detail::max_join_input_elements / inner, n - 1));
                      r.lengths = {pick(rng, 1, most)};
                      for (std::uint32_t left = n - r.lengths[0]; left > 0; left -= r.lengths.back())
                          r.lengths.push_back(std::min(left, most));
                      return valid(realize_parts(r), fmt::format("lengths {}", sizes_text(r.lengths)));
                  });
    // JOIN's inputs of 2^31 - 1 elements (the most it takes) and SPLIT's outputs of 2^31 and more,
    // beside one to three parts of one to three elements, every other size 1.
    const auto big_part = [](rng_t& rng, operator_type op, std::uint32_t length) {
        parts_recipe r;
        r.op = op;
        r.type = random_type(rng);
        const std::size_t rank = pick(rng, 1, 8);
        r.whole.assign(rank, 1);
        r.axis = pick_index(rng, rank);
        const std::size_t count = pick(rng, 2, 4), a = pick_index(rng, count);
        r.whole[r.axis] = 0;
        for (std::size_t k = 0; k < count; ++k) {
            r.lengths.push_back(k == a ? length : pick(rng, 1, 3));
            r.whole[r.axis] += r.lengths.back();
        }
        return std::pair{r, a};
    };
    add_parts(t.valid, "valid: {P}[k] of 2^31 - 1 elements (the most a JOIN input may hold)", [=](rng_t& rng, operator_type op) {
        const auto [r, a] = big_part(rng, op, static_cast<std::uint32_t>(dmlref::detail::max_join_input_elements));
        return valid(realize_parts(r), fmt::format("part {} of {}", a, r.lengths.size()));
    });
    add_parts(
        t.valid, "valid: {P}[k] of 2^31 to 2^32 - 16 elements (SPLIT's outputs are not held to JOIN's inputs' 2^31 - 1)",
        [=](rng_t& rng, operator_type op) {
            const auto [r, a] = big_part(rng, op, pick(rng, 0x8000'0000u, 0xffff'fff0u));
            return valid(realize_parts(r), fmt::format("part {} of {}: {} elements", a, r.lengths.size(), r.lengths[a]));
        },
        [](operator_type op) { return op == operator_type::split; });
    // One past JOIN's limit: the part and the whole one element longer (coupled).
    add_parts(
        t.invalid, "{P}[k].Sizes and {W}.Sizes: {P}[k] of 2^31 elements (one more than DirectML's JOIN takes)",
        [=](rng_t& rng, operator_type op) {
            const auto [r, a] = big_part(rng, op, static_cast<std::uint32_t>(dmlref::detail::max_join_input_elements));
            operator_desc base = realize_parts(r);
            auto sa = parts_ref(base)[a].sizes, sw = whole_ref(base).sizes;
            ++sa[r.axis];
            ++sw[r.axis];
            make_room_at(base, slot{false, a}, calc_buffer_tensor_size(r.type, sa));
            make_room_at(base, slot{true, 0}, calc_buffer_tensor_size(r.type, sw));
            built b = change(base, slot_name(op, slot{false, a}) + ".Sizes");
            b.fields.push_back(whole_field(op) + ".Sizes");
            b.coupled = true;
            parts_ref(b.desc)[a].sizes = sa;
            whole_ref(b.desc).sizes = sw;
            b.detail = fmt::format("part {} of {}: 2147483647 -> 2147483648 elements", a, r.lengths.size());
            return b;
        },
        [](operator_type op) { return op == operator_type::join; });
}

inline void add_join_split_classes(class_table& t) {
    add_parts_tensor_classes(t);
    add_parts_operator_classes(t);
    add_parts_valid_classes(t);
}

} // namespace dmlref::parity::detail
