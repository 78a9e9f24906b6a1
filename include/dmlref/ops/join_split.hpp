#pragma once
/// \file join_split.hpp
/// JOIN and SPLIT over strided views: concatenation along one axis, and its inverse.
///
///   JOIN:  Output[..., base(k) + i, ...] = Inputs[k][..., i, ...]
///   SPLIT: Outputs[k][..., i, ...]       = Input[..., base(k) + i, ...]
///   base(k) = the sum of Sizes[Axis] over parts 0 to k - 1 (the inputs of JOIN, the outputs of SPLIT)
///
/// Preconditions: every part has the rank of the whole and its sizes on every axis but Axis; the
/// parts' Sizes[Axis] sum to the whole's. Each part is one affine copy: the whole's strides with the
/// part's extents, from element base(k) of the axis. Outputs never map two coordinates to one
/// element, no output overlaps an input, and SPLIT's outputs overlap none of the others.
///
/// | DirectML | ONNX   | numpy                                    | PyTorch                       | WebNN    |
/// |----------|--------|------------------------------------------|-------------------------------|----------|
/// | JOIN     | Concat | `np.concatenate(xs, axis)`               | `torch.cat(xs, dim)`          | `concat` |
/// | SPLIT    | Split  | `np.split(x, np.cumsum(sizes)[:-1], axis)` | `torch.split(x, sizes, dim)` | `split`  |

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace dmlref {
namespace detail {

/// "InputTensors[3]": a part's field name, for messages.
DMLREF_COLD inline std::string part_field(std::string_view parts, std::size_t k) { return detail::message("{}[{}]", parts, k); }

/// The shared rules of JOIN and SPLIT on layouts: at least one part, Axis inside the whole's rank,
/// every part of the whole's rank with its sizes off Axis, the parts' Sizes[Axis] summing to the
/// whole's, and each view's own rules (outputs never self-aliasing). `parts_field` names the parts
/// ("InputTensors" for JOIN, "OutputTensors" for SPLIT).
DMLREF_FUNC std::optional<std::string> check_parts(std::string_view op, std::span<const layout> parts, const layout& whole,
                                                   std::size_t axis, bool parts_are_outputs)
#if DMLREF_DEFINE_FUNCS
{
    const std::string_view parts_field = parts_are_outputs ? "OutputTensors" : "InputTensors";
    const std::string_view whole_field = parts_are_outputs ? "InputTensor" : "OutputTensor";
    const std::string_view count_field = parts_are_outputs ? "OutputCount" : "InputCount";
    if (parts.empty()) return detail::message("{}: {} is 0; it must be at least 1", op, count_field);
    if (auto message = check_layout(op, whole_field, whole, !parts_are_outputs)) return message;
    if (whole.rank == 0) return detail::message("{}: {} has no dimensions; there is no axis to join on", op, whole_field);
    if (axis >= whole.rank)
        return detail::message("{}: Axis = {} is outside [0, {}] ({} has {} dimensions)", op, axis, whole.rank - 1,
                               whole_field, whole.rank);
    std::ptrdiff_t sum = 0; // at most the whole's element count per part, which check_layout bounds
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const layout& part = parts[k];
        if (part.rank != whole.rank)
            return detail::message("{}: {} has {} dimensions; {} has {}; they must match", op, part_field(parts_field, k),
                                   part.rank, whole_field, whole.rank);
        if (auto message = check_layout(op, part_field(parts_field, k), part, parts_are_outputs)) return message;
        for (std::size_t i = 0; i < whole.rank; ++i)
            if (i != axis && part.extents[i] != whole.extents[i])
                return detail::message("{}: {}.Sizes[{}] = {} differs from {}.Sizes[{}] = {}; only Axis ({}) may differ", op,
                                       part_field(parts_field, k), i, part.extents[i], whole_field, i, whole.extents[i], axis);
        sum += part.extents[axis];
        if (sum > whole.extents[axis])
            return detail::message("{}: the {}' Sizes[{}] sum past {}.Sizes[{}] = {} at {} ({} so far)", op, parts_field,
                                   axis, whole_field, axis, whole.extents[axis], part_field(parts_field, k), sum);
    }
    if (sum != whole.extents[axis])
        return detail::message("{}: the {}' Sizes[{}] sum to {}; {}.Sizes[{}] is {}; they must match", op, parts_field, axis,
                               sum, whole_field, axis, whole.extents[axis]);
    return std::nullopt;
}
#else
;
#endif

/// The copy plan of one part: the part's extents over the whole's strides on one side and the
/// part's own on the other (an axis of one element never steps). The caller points the whole's
/// side at element base(k) of Axis.
DMLREF_FUNC copy_plan plan_part(const layout& part, const layout& whole, bool part_is_output)
#if DMLREF_DEFINE_FUNCS
{
    copy_plan plan;
    plan.rank = part.rank;
    for (std::size_t i = 0; i < part.rank; ++i) {
        const std::ptrdiff_t out_stride = part_is_output ? part.strides[i] : whole.strides[i];
        const std::ptrdiff_t in_step = part_is_output ? whole.strides[i] : part.strides[i];
        set_affine(plan.axes[i], part.extents[i], out_stride, 0, part.extents[i] == 1 ? 0 : in_step);
    }
    return plan;
}
#else
;
#endif

/// Runs the parts' copies, part k between `part_at[k]` (its element 0) and the whole at `whole_at`
/// moved to base(k) on Axis: from the parts into the whole for JOIN, the other way for SPLIT. The
/// plans only read their input side, so JOIN's read-only inputs travel as `std::byte*` too.
/// Where Axis is not the whole's outermost axis in memory, one part after the other would walk the
/// whole once per part, writing (or reading) a slice of every row each time; the parts instead
/// take turns over chunks of the whole's outermost axis of about `chunk_bytes`, so that the whole
/// is walked once, in order.
DMLREF_FUNC void run_parts(std::span<const layout> parts, std::span<std::byte* const> part_at, const layout& whole,
                           std::byte* whole_at, std::size_t axis, bool parts_are_outputs, std::size_t width)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::ptrdiff_t chunk_bytes = std::ptrdiff_t{256} << 10;
    const auto w = static_cast<std::ptrdiff_t>(width);
    auto magnitude = [](std::ptrdiff_t v) { return v < 0 ? -v : v; };
    std::size_t outer = axis; // the whole's axis of largest stride, of more than one element
    for (std::size_t i = 0; i < whole.rank; ++i)
        if (whole.extents[i] > 1 && magnitude(whole.strides[i]) > magnitude(whole.strides[outer])) outer = i;
    std::ptrdiff_t per_coordinate = w; // bytes of the whole per coordinate of `outer`
    for (std::size_t i = 0; i < whole.rank; ++i)
        if (i != outer) per_coordinate *= whole.extents[i];
    const std::ptrdiff_t chunk = outer == axis ? whole.extents[outer]
                                 : per_coordinate >= chunk_bytes ? 1
                                                                 : chunk_bytes / per_coordinate;
    for (std::ptrdiff_t first = 0; first < whole.extents[outer]; first += chunk) {
        const std::ptrdiff_t count = first + chunk < whole.extents[outer] ? chunk : whole.extents[outer] - first;
        std::ptrdiff_t base = 0;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            layout part = parts[k];
            std::ptrdiff_t part_offset = 0, whole_offset = base * whole.strides[axis];
            if (outer != axis) {
                part.extents[outer] = count;
                part_offset = first * part.strides[outer];
                whole_offset += first * whole.strides[outer];
            }
            copy_plan plan = plan_part(part, whole, parts_are_outputs);
            std::byte* const part_side = part_at[k] + part_offset * w;
            std::byte* const whole_side = whole_at + whole_offset * w;
            plan.input = parts_are_outputs ? whole_side : part_side;
            plan.output = parts_are_outputs ? part_side : whole_side;
            plan.width = width;
            execute(plan);
            base += parts[k].extents[axis];
        }
    }
}
#else
;
#endif

/// SPLIT's outputs must overlap none of the others: their byte ranges, sorted by start, each begin
/// at or after every earlier one's end. (`ranges` holds [first, end) and the output's index.)
DMLREF_FUNC std::optional<std::string> check_outputs_apart(std::string_view op,
                                                      std::vector<std::pair<std::pair<std::uintptr_t, std::uintptr_t>, std::size_t>> ranges)
#if DMLREF_DEFINE_FUNCS
{
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t n = 1, reaching = 0; n < ranges.size(); ++n) { // `reaching`: the earlier range that ends last
        const auto& [a, k] = ranges[reaching];
        const auto& [b, j] = ranges[n];
        if (b.first < a.second)
            return detail::message("{}: the memory of OutputTensors[{}] [{:#x}, {:#x}) and of OutputTensors[{}] [{:#x}, "
                                   "{:#x}) overlap; each output must have its own",
                                   op, k < j ? k : j, k < j ? a.first : b.first, k < j ? a.second : b.second, k < j ? j : k,
                                   k < j ? b.first : a.first, k < j ? b.second : a.second);
        if (b.second > a.second) reaching = n;
    }
    return std::nullopt;
}
#else
;
#endif

} // namespace detail

/// JOIN: concatenates `inputs` along `axis` into `output`, bit for bit. Inputs may broadcast (zero
/// strides) or be permuted; the output may be strided. Throws validation_error (op "join") when
/// there are no inputs, the axis or a size does not fit, an output stride self-aliases, or an input
/// overlaps the output.
template <class T, std::size_t Rank>
void join(std::span<const strided_view<const T, Rank>> inputs, strided_view<T, Rank> output, std::size_t axis) {
    constexpr std::string_view op = "join";
    std::vector<detail::layout> parts(inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) parts[k] = detail::layout_of(inputs[k]);
    const detail::layout whole = detail::layout_of(output);
    detail::throw_if(detail::check_parts(op, parts, whole, axis, false));
    T* const out = output.base() + output.offset();
    for (std::size_t k = 0; k < inputs.size(); ++k)
        detail::throw_if(detail::check_apart(op, "OutputTensor", out, whole, sizeof(T), detail::part_field("InputTensors", k),
                                             inputs[k].base() + inputs[k].offset(), parts[k], sizeof(T)));
    std::vector<std::byte*> part_at(inputs.size()); // read only (run_parts)
    for (std::size_t k = 0; k < inputs.size(); ++k)
        part_at[k] = const_cast<std::byte*>(reinterpret_cast<const std::byte*>(inputs[k].base() + inputs[k].offset()));
    detail::run_parts(parts, part_at, whole, reinterpret_cast<std::byte*>(out), axis, false, sizeof(T));
}

/// JOIN of a braced list of views: `dmlref::join<float, 4>({a, b, c}, out, 1)`.
template <class T, std::size_t Rank>
void join(std::initializer_list<strided_view<const T, Rank>> inputs, strided_view<T, Rank> output, std::size_t axis) {
    join(std::span<const strided_view<const T, Rank>>(inputs.begin(), inputs.size()), output, axis);
}

/// SPLIT: copies consecutive windows of `input` along `axis` into `outputs`, bit for bit (the
/// windows' lengths are the outputs' sizes on the axis). The input may broadcast or be permuted;
/// outputs may be strided. Throws validation_error (op "split") when there are no outputs, the axis
/// or a size does not fit, an output self-aliases, or an output overlaps the input or another output.
template <class T, std::size_t Rank>
void split(strided_view<const T, Rank> input, std::span<const strided_view<T, Rank>> outputs, std::size_t axis) {
    constexpr std::string_view op = "split";
    std::vector<detail::layout> parts(outputs.size());
    for (std::size_t k = 0; k < outputs.size(); ++k) parts[k] = detail::layout_of(outputs[k]);
    const detail::layout whole = detail::layout_of(input);
    detail::throw_if(detail::check_parts(op, parts, whole, axis, true));
    const T* const in = input.base() + input.offset();
    std::vector<std::pair<std::pair<std::uintptr_t, std::uintptr_t>, std::size_t>> ranges;
    ranges.reserve(outputs.size());
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const T* const at = outputs[k].base() + outputs[k].offset();
        detail::throw_if(detail::check_apart(op, detail::part_field("OutputTensors", k), at, parts[k], sizeof(T),
                                             "InputTensor", in, whole, sizeof(T)));
        ranges.push_back({*detail::view_byte_range(at, parts[k], sizeof(T)), k}); // check_apart found it
    }
    detail::throw_if(detail::check_outputs_apart(op, std::move(ranges)));
    std::vector<std::byte*> part_at(outputs.size());
    for (std::size_t k = 0; k < outputs.size(); ++k) part_at[k] = reinterpret_cast<std::byte*>(outputs[k].base() + outputs[k].offset());
    // The input is only read (run_parts).
    detail::run_parts(parts, part_at, whole, const_cast<std::byte*>(reinterpret_cast<const std::byte*>(in)), axis, true, sizeof(T));
}

/// SPLIT into a braced list of views: `dmlref::split<float, 4>(in, {a, b}, 3)`.
template <class T, std::size_t Rank>
void split(strided_view<const T, Rank> input, std::initializer_list<strided_view<T, Rank>> outputs, std::size_t axis) {
    split(input, std::span<const strided_view<T, Rank>>(outputs.begin(), outputs.size()), axis);
}

} // namespace dmlref
