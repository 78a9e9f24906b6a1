#pragma once
/// \file one_hot.hpp
/// ONE_HOT over strided views and over a DirectML desc.
///
///   i  = Indices[o with o[Axis] -> 0]
///   i' = i + Out.Sizes[Axis] for a negative signed i, else i
///   Out[o] = (0 <= i' < Out.Sizes[Axis] and o[Axis] == i') ? OnValue : OffValue
///
/// OffValue is ValuesTensor's element 0; OnValue its element at coordinate 1 on its innermost axis
/// of size > 1, 0 elsewhere ("the 1st element along the fastest-changing dimension of size >1").
/// An index outside [-size, size) (signed) or [0, size) (unsigned) is no error: DirectML documents
/// that the whole sequence is then OffValue, and dmlref does the same, for 64-bit indices past
/// 2^32 and 2^63 too.
///
/// Preconditions (operator-facts.md §15): Axis < N; Indices.Sizes = Out.Sizes except on Axis,
/// where it is 1; ValuesTensor holds at least two elements.
///
/// | DirectML | ONNX   | numpy  | PyTorch                       | WebNN  |
/// |----------|--------|--------|-------------------------------|--------|
/// | ONE_HOT  | OneHot | (none) | `torch.nn.functional.one_hot` | (none) |

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "../operator_type.hpp"
#include "indexed_common.hpp"

namespace dmlref {

/// DML_ONE_HOT_OPERATOR_DESC.
struct one_hot_desc {
    static constexpr operator_type type = operator_type::one_hot;
    buffer_tensor_desc indices_tensor;
    buffer_tensor_desc values_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t axis = 0;
};

namespace detail {

/// ONE_HOT's shape rules over layouts of one rank.
DMLREF_FUNC std::optional<std::string> check_one_hot_shapes(std::string_view op, const layout& idx, const layout& values,
                                                       const layout& out, std::ptrdiff_t axis)
#if DMLREF_DEFINE_FUNCS
{
    const auto n = static_cast<std::ptrdiff_t>(out.rank);
    if (axis < 0 || axis >= n)
        return detail::message("{}: Axis is {}; it must lie in [0, {}) (the tensors' DimensionCount)", op, axis, n);
    const auto a = static_cast<std::size_t>(axis);
    for (std::size_t i = 0; i < out.rank; ++i) {
        if (i == a && idx.extents[i] != 1)
            return detail::message("{}: IndicesTensor.Sizes[{}] is {}; on Axis = {} it must be 1", op, i, idx.extents[i],
                                   axis);
        if (i != a && idx.extents[i] != out.extents[i])
            return detail::message("{}: IndicesTensor.Sizes[{}] = {} differs from OutputTensor.Sizes[{}] = {}; they must "
                                   "match on every axis but Axis = {}",
                                   op, i, idx.extents[i], i, out.extents[i], axis);
    }
    std::ptrdiff_t count = 1;
    for (std::size_t i = 0; i < values.rank; ++i) count = values.extents[i] > 1 ? 2 : count;
    if (count < 2)
        return detail::message("{}: ValuesTensor.Sizes {} hold one element; it must hold at least two (OffValue, "
                               "OnValue)",
                               op, extents_text(std::span(values.extents).first(values.rank)));
    return std::nullopt;
}
#else
;
#endif

/// The element offsets of OffValue and OnValue in a values tensor of layout `values`.
DMLREF_FUNC std::pair<std::ptrdiff_t, std::ptrdiff_t> one_hot_values(const layout& values) noexcept
#if DMLREF_DEFINE_FUNCS
{
    for (std::size_t i = values.rank; i-- > 0;)
        if (values.extents[i] > 1) return {0, values.strides[i]};
    return {0, 0};
}
#else
;
#endif

/// run_one_hot for elements of Width bytes: each sequence along the axis filled with OffValue in a
/// loop of fixed-size stores (vectorized where the axis is packed), then OnValue at the index.
template <std::size_t Width>
void run_one_hot_of_width(const layout& idx, const layout& out, std::size_t axis, const std::byte* indices,
                          data_type index_type, const std::byte* off, const std::byte* on, std::byte* output) noexcept {
    constexpr auto w = static_cast<std::ptrdiff_t>(Width);
    const auto iw = static_cast<std::ptrdiff_t>(element_size(index_type));
    std::byte off_value[Width];
    std::memcpy(off_value, off, Width);
    const std::ptrdiff_t size = out.extents[axis], step = out.strides[axis] * w;
    std::array<std::ptrdiff_t, max_plan_rank> c{}; // over the index tensor (1 on the axis)
    for (;;) {
        std::ptrdiff_t at = 0, o = 0;
        for (std::size_t i = 0; i < idx.rank; ++i) {
            at += c[i] * idx.strides[i];
            o += c[i] * out.strides[i];
        }
        std::byte* row = output + o * w;
        if (step == w) {
            for (std::ptrdiff_t k = 0; k < size; ++k) std::memcpy(row + k * w, off_value, Width);
        } else {
            for (std::ptrdiff_t k = 0; k < size; ++k) std::memcpy(row + k * step, off_value, Width);
        }
        if (const auto hot = wrap_index(read_index(indices + at * iw, index_type), size)) std::memcpy(row + *hot * step, on, Width);
        std::size_t i = idx.rank;
        for (;;) {
            if (i == 0) return;
            --i;
            if (++c[i] < idx.extents[i]) break;
            c[i] = 0;
        }
    }
}

/// Runs ONE_HOT: per sequence along the axis, OffValue everywhere and OnValue at the index.
DMLREF_FUNC void run_one_hot(const layout& idx, const layout& values, const layout& out, std::size_t axis,
                        const std::byte* indices, data_type index_type, const std::byte* value_bytes,
                        std::byte* output, std::size_t width) noexcept
#if DMLREF_DEFINE_FUNCS
{
    const auto [off_at, on_at] = one_hot_values(values);
    const auto w = static_cast<std::ptrdiff_t>(width);
    const std::byte* off = value_bytes + off_at * w;
    const std::byte* on = value_bytes + on_at * w;
    switch (width) {
    case 1: return run_one_hot_of_width<1>(idx, out, axis, indices, index_type, off, on, output);
    case 2: return run_one_hot_of_width<2>(idx, out, axis, indices, index_type, off, on, output);
    case 4: return run_one_hot_of_width<4>(idx, out, axis, indices, index_type, off, on, output);
    default: return run_one_hot_of_width<8>(idx, out, axis, indices, index_type, off, on, output);
    }
}
#else
;
#endif

/// DML_OPERATOR_ONE_HOT's rules at `level` (operator-facts.md §15; never reads the index data).
DMLREF_FUNC std::optional<std::string> check_one_hot(std::string_view op, const one_hot_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_level(op, level, feature_level::fl_2_0)) return m;
    if (auto m = check_indexed_tensors(op, level,
                                       {{"IndicesTensor", &d.indices_tensor, tensor_role::index},
                                        {"ValuesTensor", &d.values_tensor, tensor_role::data},
                                        {"OutputTensor", &d.output_tensor, tensor_role::data_output}}))
        return m;
    return check_one_hot_shapes(op, desc_layout(d.indices_tensor), desc_layout(d.values_tensor),
                                desc_layout(d.output_tensor), d.axis);
}
#else
;
#endif

/// ONE_HOT over buffers after every check; throws validation_error, with nothing written, when
/// one fails. Indices out of range are no error (see the file comment).
DMLREF_FUNC void execute_one_hot(const one_hot_desc& d, std::span<const std::byte> indices, std::span<const std::byte> values,
                            std::span<std::byte> output, feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::string_view op = "ONE_HOT";
    throw_if(check_one_hot(op, d, level));
    throw_if(check_indexed_buffers(op, {{"IndicesTensor", &d.indices_tensor, indices},
                                        {"ValuesTensor", &d.values_tensor, values},
                                        {"OutputTensor", &d.output_tensor, output}}));
    run_one_hot(desc_layout(d.indices_tensor), desc_layout(d.values_tensor), desc_layout(d.output_tensor), d.axis,
                indices.data(), d.indices_tensor.data_type, values.data(), output.data(),
                element_size(d.output_tensor.data_type));
}
#else
;
#endif

} // namespace detail

/// ONE_HOT from `indices` and `values` into `output` along `axis` (see the file comment). Throws
/// validation_error for shapes DirectML rejects and overlapping views; never for an index.
template <class T, index_element I, std::size_t Rank>
void one_hot(strided_view<const I, Rank> indices, strided_view<const T, Rank> values, strided_view<T, Rank> output,
             std::ptrdiff_t axis) {
    constexpr std::string_view op = "one_hot";
    namespace d = detail;
    const d::layout idx = d::layout_of(indices), val = d::layout_of(values), out = d::layout_of(output);
    d::throw_if(d::check_layout(op, "IndicesTensor", idx, false));
    d::throw_if(d::check_layout(op, "ValuesTensor", val, false));
    d::throw_if(d::check_layout(op, "OutputTensor", out, true));
    const void* o = output.base() + output.offset();
    d::throw_if(d::check_apart(op, "OutputTensor", o, out, sizeof(T), "IndicesTensor", indices.base() + indices.offset(),
                               idx, sizeof(I)));
    d::throw_if(d::check_apart(op, "OutputTensor", o, out, sizeof(T), "ValuesTensor", values.base() + values.offset(),
                               val, sizeof(T)));
    d::throw_if(d::check_one_hot_shapes(op, idx, val, out, axis));
    d::run_one_hot(idx, val, out, static_cast<std::size_t>(axis), d::bytes_at(indices.base(), indices.offset()),
                   data_type_of<I>(), d::bytes_at(values.base(), values.offset()),
                   d::bytes_at(output.base(), output.offset()), sizeof(T));
}

} // namespace dmlref
