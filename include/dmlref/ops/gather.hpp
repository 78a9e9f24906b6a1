#pragma once
/// \file gather.hpp
/// GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 over strided views and over DirectML descs.
///
/// N is the tensors' common DimensionCount; wrap(i) = i + size for a negative signed index.
///
///   GATHER (Axis a, IndexDimensions k): the logical output (p, q, r), p of length a, q of k, r of
///   N - a - 1, is Out[p, q, r] = In[p, wrap(Indices[0..., q]), r]. Its sizes {In.Sizes[0..a),
///   Indices.Sizes[N-k..N), In.Sizes[a+1..N)} are right-aligned into N: leading 1s pad a shorter
///   shape; a longer one keeps its last N entries, and the axes of the dropped ones are read at
///   coordinate 0 whatever their size (measured on DirectML 1.15.4: the page's example 3, logical
///   {3, 1, 2}, has the output {1, 2} of In[0, Indices[0, j]]).
///   GATHER_ELEMENTS (Axis a): Out[o] = In[o with o[a] -> wrap(Indices[o])].
///   GATHER_ND1 (I = InputDimensionCount, J = IndicesDimensionCount, B = BatchDimensionCount,
///   T = Indices.Sizes[N-1], R = I - B - T): the logical output (b, q, r), b of length B, q of
///   J - B - 1, r of R, is Out[b, q, r] = In[0..., b, t_0, ..., t_{T-1}, r] with
///   t_m = wrap(Indices[0..., b, q, m]), right-aligned; a logical shape of more than N entries is
///   refused, whatever they hold (measured on DirectML 1.15.4). GATHER_ND is GATHER_ND1 with B = 0.
///
/// Preconditions (DirectML's pages, operator-facts.md §10-§12, and dmlref's choices marked *):
/// GATHER: Axis < N; IndexDimensions <= N (the page's example 1 has k = N = 1)*; the leading
/// N - k index sizes are 1*; the output sizes as above. GATHER_ELEMENTS: Axis < N; Indices.Sizes =
/// In.Sizes except on Axis; Out.Sizes = Indices.Sizes. GATHER_ND(1): 1 <= I, J <= N; B < I and
/// B < J; 1 <= T <= I - B; the leading N - I input and N - J index sizes are 1*; the B batch sizes
/// of input and indices agree*; the output sizes as above. Every index lies in [-size, size) for
/// signed and [0, size) for unsigned types, where size is the axis it indexes: checked before
/// anything is written, and refused with validation_error naming the index's coordinate and value
/// (DirectML leaves such indices undefined: GATHER's "reads clamped safely").
///
/// Speed: the trailing output axes that the index does not choose (r) are one block copied per
/// index read, by memcpy where packed in both tensors (GATHER on an outer axis, GATHER_ND with whole
/// trailing slices); GATHER_ELEMENTS reads one index per element. Nothing allocates.
///
/// | DirectML              | ONNX                           | numpy                  | PyTorch        | WebNN            |
/// |-----------------------|--------------------------------|------------------------|----------------|------------------|
/// | GATHER                | Gather                         | `np.take`              | `index_select` | `gather`         |
/// | GATHER_ELEMENTS       | GatherElements                 | `np.take_along_axis`   | `torch.gather` | `gatherElements` |
/// | GATHER_ND, GATHER_ND1 | GatherND (`batch_dims` = B)    | (none)                 | (none)         | `gatherND`       |

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "../operator_type.hpp"
#include "indexed_common.hpp"

namespace dmlref {

/// DML_GATHER_OPERATOR_DESC.
struct gather_desc {
    static constexpr operator_type type = operator_type::gather;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc indices_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t axis = 0;
    std::uint32_t index_dimensions = 0;
};

/// DML_GATHER_ELEMENTS_OPERATOR_DESC.
struct gather_elements_desc {
    static constexpr operator_type type = operator_type::gather_elements;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc indices_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t axis = 0;
};

/// DML_GATHER_ND_OPERATOR_DESC.
struct gather_nd_desc {
    static constexpr operator_type type = operator_type::gather_nd;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc indices_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t input_dimension_count = 0;
    std::uint32_t indices_dimension_count = 0;
};

/// DML_GATHER_ND1_OPERATOR_DESC.
struct gather_nd1_desc {
    static constexpr operator_type type = operator_type::gather_nd1;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc indices_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t input_dimension_count = 0;
    std::uint32_t indices_dimension_count = 0;
    std::uint32_t batch_dimension_count = 0;
};

namespace detail {

using logical_shape = std::array<std::ptrdiff_t, 2 * max_plan_rank>;

/// Where a logical output entry comes from: an input axis, an index axis, or both (a batch axis).
struct logical_source {
    std::ptrdiff_t input_axis = -1, index_axis = -1;
};

/// Fits the logical output into the output's axes, compares the sizes, and fills the walk of
/// `plan` (walked = the output, addressed = the input). `what` names the parameters for messages,
/// `walked_field` the walked tensor (SCATTER_ND's UpdatesTensor). A shorter logical shape gets
/// leading 1s; a longer one keeps its last N entries with `keep_last_entries` (GATHER) and is
/// refused without (GATHER_ND(1), SCATTER_ND: measured on DirectML 1.15.4, docs/directml.md).
DMLREF_FUNC std::optional<std::string> place_output(std::string_view op, const layout& in, const layout& idx,
                                               const layout& out, const logical_shape& logical,
                                               const std::array<logical_source, 2 * max_plan_rank>& from,
                                               std::size_t logical_rank, const std::string& what, gather_plan& plan,
                                               std::string_view walked_field = "OutputTensor",
                                               bool keep_last_entries = false)
#if DMLREF_DEFINE_FUNCS
{
    const std::size_t n = out.rank;
    std::array<std::size_t, 2 * max_plan_rank> axis_of{};
    if (!keep_last_entries && logical_rank > n)
        return detail::message("{}: {}'s logical sizes {} for {} have {} entries, more than the tensors' "
                               "DimensionCount {}; {} drops none of them",
                               op, walked_field, extents_text(std::span(logical).first(logical_rank)), what,
                               logical_rank, n, op);
    fit_last_entries(logical_rank, n, axis_of);
    std::array<std::ptrdiff_t, max_plan_rank> expected{};
    for (std::size_t j = 0; j < n; ++j) expected[j] = 1;
    for (std::size_t l = 0; l < logical_rank; ++l)
        if (axis_of[l] < n) expected[axis_of[l]] = logical[l];
    for (std::size_t j = 0; j < n; ++j)
        if (out.extents[j] != expected[j])
            return logical_rank > n
                       ? detail::message("{}: {}.Sizes {} differ from {}, the last {} of the sizes {} {} gives for {}",
                                         op, walked_field, extents_text(std::span(out.extents).first(n)),
                                         extents_text(std::span(expected).first(n)), n,
                                         extents_text(std::span(logical).first(logical_rank)), op, what)
                       : detail::message("{}: {}.Sizes {} differ from {}, the sizes {} gives for {}", op, walked_field,
                                         extents_text(std::span(out.extents).first(n)),
                                         extents_text(std::span(expected).first(n)), op, what);
    plan.rank = n;
    for (std::size_t j = 0; j < n; ++j) {
        plan.extent[j] = out.extents[j];
        plan.walked_stride[j] = out.strides[j];
        plan.addressed_step[j] = plan.index_step[j] = 0;
    }
    plan.index_axis_dropped = {};
    for (std::size_t l = 0; l < logical_rank; ++l) {
        const std::size_t j = axis_of[l];
        if (j >= n) {
            if (from[l].index_axis >= 0) plan.index_axis_dropped[static_cast<std::size_t>(from[l].index_axis)] = true;
            continue;
        }
        if (from[l].input_axis >= 0) plan.addressed_step[j] = in.strides[static_cast<std::size_t>(from[l].input_axis)];
        if (from[l].index_axis >= 0) plan.index_step[j] = idx.strides[static_cast<std::size_t>(from[l].index_axis)];
    }
    return std::nullopt;
}
#else
;
#endif

/// GATHER's shape rules over layouts of one rank; fills `plan` when they hold.
DMLREF_FUNC std::optional<std::string> check_gather_shapes(std::string_view op, const layout& in, const layout& idx,
                                                      const layout& out, std::ptrdiff_t axis,
                                                      std::ptrdiff_t index_dimensions, gather_plan& plan)
#if DMLREF_DEFINE_FUNCS
{
    const auto n = static_cast<std::ptrdiff_t>(in.rank);
    if (axis < 0 || axis >= n)
        return detail::message("{}: Axis is {}; it must lie in [0, {}) (the tensors' DimensionCount)", op, axis, n);
    if (index_dimensions < 0 || index_dimensions > n)
        return detail::message("{}: IndexDimensions is {}; it must lie in [0, {}] (IndicesTensor's DimensionCount)", op,
                               index_dimensions, n);
    for (std::ptrdiff_t e = 0; e < n - index_dimensions; ++e)
        if (idx.extents[static_cast<std::size_t>(e)] != 1)
            return detail::message("{}: IndicesTensor.Sizes[{}] is {}; the dimensions before the last IndexDimensions = "
                                   "{} must be 1",
                                   op, e, idx.extents[static_cast<std::size_t>(e)], index_dimensions);
    logical_shape logical{};
    std::array<logical_source, 2 * max_plan_rank> from{};
    std::size_t l = 0;
    for (std::ptrdiff_t d = 0; d < axis; ++d, ++l) {
        logical[l] = in.extents[static_cast<std::size_t>(d)];
        from[l].input_axis = d;
    }
    for (std::ptrdiff_t e = n - index_dimensions; e < n; ++e, ++l) {
        logical[l] = idx.extents[static_cast<std::size_t>(e)];
        from[l].index_axis = e;
    }
    for (std::ptrdiff_t d = axis + 1; d < n; ++d, ++l) {
        logical[l] = in.extents[static_cast<std::size_t>(d)];
        from[l].input_axis = d;
    }
    if (auto m = place_output(op, in, idx, out, logical, from, l,
                              detail::message("Axis {} and IndexDimensions {}", axis, index_dimensions), plan,
                              "OutputTensor", true))
        return m;
    plan.tuple = 1;
    plan.tuple_step = 0;
    plan.axis_size[0] = in.extents[static_cast<std::size_t>(axis)];
    plan.axis_stride[0] = in.strides[static_cast<std::size_t>(axis)];
    return std::nullopt;
}
#else
;
#endif

/// GATHER_ELEMENTS' shape rules (SCATTER_ELEMENTS' too, with `out_field` naming the updates and
/// the output's layout as `in`); fills `plan` when they hold.
DMLREF_FUNC std::optional<std::string> check_gather_elements_shapes(std::string_view op, const layout& in, const layout& idx,
                                                               const layout& out, std::ptrdiff_t axis,
                                                               gather_plan& plan,
                                                               std::string_view out_field = "OutputTensor")
#if DMLREF_DEFINE_FUNCS
{
    const auto n = static_cast<std::ptrdiff_t>(in.rank);
    if (axis < 0 || axis >= n)
        return detail::message("{}: Axis is {}; it must lie in [0, {}) (the tensors' DimensionCount)", op, axis, n);
    const auto a = static_cast<std::size_t>(axis);
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (i != a && idx.extents[i] != in.extents[i])
            return detail::message("{}: IndicesTensor.Sizes[{}] = {} differs from InputTensor.Sizes[{}] = {}; they must "
                                   "match on every axis but Axis = {}",
                                   op, i, idx.extents[i], i, in.extents[i], axis);
        if (out.extents[i] != idx.extents[i])
            return detail::message("{}: {}.Sizes[{}] = {} differs from IndicesTensor.Sizes[{}] = {}; they must match", op,
                                   out_field, i, out.extents[i], i, idx.extents[i]);
    }
    plan.rank = in.rank;
    for (std::size_t j = 0; j < in.rank; ++j) {
        plan.extent[j] = out.extents[j];
        plan.walked_stride[j] = out.strides[j];
        plan.addressed_step[j] = j == a ? 0 : in.strides[j];
        plan.index_step[j] = idx.strides[j];
    }
    plan.tuple = 1;
    plan.tuple_step = 0;
    plan.axis_size[0] = in.extents[a];
    plan.axis_stride[0] = in.strides[a];
    return std::nullopt;
}
#else
;
#endif

/// GATHER_ND1's shape rules (GATHER_ND with batch_dims 0; SCATTER_ND's with the output's layout
/// as `in` and `walked_field` naming the updates); fills `plan` when they hold.
DMLREF_FUNC std::optional<std::string> check_gather_nd_shapes(std::string_view op, const layout& in, const layout& idx,
                                                         const layout& out, std::ptrdiff_t input_dims,
                                                         std::ptrdiff_t indices_dims, std::ptrdiff_t batch_dims,
                                                         gather_plan& plan,
                                                         std::string_view walked_field = "OutputTensor")
#if DMLREF_DEFINE_FUNCS
{
    const auto n = static_cast<std::ptrdiff_t>(in.rank);
    if (input_dims < 1 || input_dims > n)
        return detail::message("{}: InputDimensionCount is {}; it must lie in [1, {}] (the tensors' DimensionCount)", op,
                               input_dims, n);
    if (indices_dims < 1 || indices_dims > n)
        return detail::message("{}: IndicesDimensionCount is {}; it must lie in [1, {}] (the tensors' DimensionCount)",
                               op, indices_dims, n);
    if (batch_dims < 0 || batch_dims >= input_dims || batch_dims >= indices_dims)
        return detail::message("{}: BatchDimensionCount is {}; it must be less than InputDimensionCount = {} and "
                               "IndicesDimensionCount = {}",
                               op, batch_dims, input_dims, indices_dims);
    auto at = [](const std::array<std::ptrdiff_t, max_plan_rank>& a, std::ptrdiff_t i) {
        return a[static_cast<std::size_t>(i)];
    };
    const std::ptrdiff_t tuple = at(idx.extents, n - 1);
    if (tuple > input_dims - batch_dims)
        return detail::message("{}: IndicesTensor.Sizes[{}] = {} (the length of an index tuple) exceeds "
                               "InputDimensionCount - BatchDimensionCount = {} - {}",
                               op, n - 1, tuple, input_dims, batch_dims);
    for (std::ptrdiff_t i = 0; i < n - input_dims; ++i)
        if (at(in.extents, i) != 1)
            return detail::message("{}: InputTensor.Sizes[{}] is {}; the dimensions before the last InputDimensionCount "
                                   "= {} must be 1",
                                   op, i, at(in.extents, i), input_dims);
    for (std::ptrdiff_t i = 0; i < n - indices_dims; ++i)
        if (at(idx.extents, i) != 1)
            return detail::message("{}: IndicesTensor.Sizes[{}] is {}; the dimensions before the last "
                                   "IndicesDimensionCount = {} must be 1",
                                   op, i, at(idx.extents, i), indices_dims);
    for (std::ptrdiff_t b = 0; b < batch_dims; ++b)
        if (at(idx.extents, n - indices_dims + b) != at(in.extents, n - input_dims + b))
            return detail::message("{}: IndicesTensor.Sizes[{}] = {} differs from InputTensor.Sizes[{}] = {}; batch "
                                   "dimension {} must match",
                                   op, n - indices_dims + b, at(idx.extents, n - indices_dims + b), n - input_dims + b,
                                   at(in.extents, n - input_dims + b), b);
    const std::ptrdiff_t rest = input_dims - batch_dims - tuple; // R: the input axes after the tuple's
    logical_shape logical{};
    std::array<logical_source, 2 * max_plan_rank> from{};
    std::size_t l = 0;
    for (std::ptrdiff_t e = n - indices_dims; e < n - 1; ++e, ++l) {
        logical[l] = at(idx.extents, e);
        from[l].index_axis = e;
        if (e - (n - indices_dims) < batch_dims) from[l].input_axis = n - input_dims + (e - (n - indices_dims));
    }
    for (std::ptrdiff_t d = n - rest; d < n; ++d, ++l) {
        logical[l] = at(in.extents, d);
        from[l].input_axis = d;
    }
    if (auto m = place_output(op, in, idx, out, logical, from, l,
                              detail::message("InputDimensionCount {}, IndicesDimensionCount {}, BatchDimensionCount {} "
                                              "and an index tuple of {}",
                                              input_dims, indices_dims, batch_dims, tuple),
                              plan, walked_field))
        return m;
    plan.tuple = static_cast<std::size_t>(tuple);
    plan.tuple_step = at(idx.strides, n - 1);
    for (std::ptrdiff_t m = 0; m < tuple; ++m) {
        plan.axis_size[static_cast<std::size_t>(m)] = at(in.extents, n - input_dims + batch_dims + m);
        plan.axis_stride[static_cast<std::size_t>(m)] = at(in.strides, n - input_dims + batch_dims + m);
    }
    return std::nullopt;
}
#else
;
#endif

/// The axis each index addresses, for check_indices: one axis for GATHER and GATHER_ELEMENTS;
/// the tuple entry's axis for the ND ops (first tuple axis + the index's last coordinate).
struct index_axes {
    std::size_t first_axis = 0;
    bool per_tuple_entry = false;
    const layout* addressed = nullptr;
    index_bound operator()(std::ptrdiff_t last) const noexcept {
        const std::size_t axis = first_axis + (per_tuple_entry ? static_cast<std::size_t>(last) : 0);
        return {addressed->extents[axis], axis};
    }
};

/// GATHER_ND1's first tuple axis: N - I + B.
constexpr std::size_t nd_first_axis(std::size_t rank, std::ptrdiff_t input_dims, std::ptrdiff_t batch_dims) noexcept {
    return rank - static_cast<std::size_t>(input_dims - batch_dims);
}

/// Checks every index the plan reads (a dropped axis at coordinate 0 alone) against the axis it
/// addresses; throws validation_error naming the first out of range. The D3D12 backend's host
/// check too.
DMLREF_FUNC void check_gather_indices(std::string_view op, const gather_plan& plan, const layout& idx,
                                 const index_axes& axes, const std::byte* indices, data_type index_type)
#if DMLREF_DEFINE_FUNCS
{
    layout read = idx;
    for (std::size_t k = 0; k < read.rank; ++k)
        if (plan.index_axis_dropped[k]) read.extents[k] = 1;
    throw_if(check_indices(op, "IndicesTensor", indices, read, index_type, "InputTensor", axes));
}
#else
;
#endif

/// Checks every index, then runs the plan: the gather from `input` into `output`.
DMLREF_FUNC void run_gather(std::string_view op, gather_plan plan, const layout& idx, const index_axes& axes,
                       const std::byte* input, const std::byte* indices, data_type index_type, std::byte* output,
                       std::size_t width)
#if DMLREF_DEFINE_FUNCS
{
    check_gather_indices(op, plan, idx, axes, indices, index_type);
    plan.indices = indices;
    plan.index_type = index_type;
    plan.width = width;
    run_gather_plan(plan, nullptr, output, input, nullptr);
}
#else
;
#endif

/// The three views' own checks, and the output apart from both inputs.
template <class T, class I, std::size_t Rank>
void check_gather_views(std::string_view op, const strided_view<const T, Rank>& input,
                        const strided_view<const I, Rank>& indices, const strided_view<T, Rank>& output) {
    throw_if(check_layout(op, "InputTensor", layout_of(input), false));
    throw_if(check_layout(op, "IndicesTensor", layout_of(indices), false));
    throw_if(check_layout(op, "OutputTensor", layout_of(output), true));
    throw_if(check_apart(op, "OutputTensor", output.base() + output.offset(), layout_of(output), sizeof(T),
                         "InputTensor", input.base() + input.offset(), layout_of(input), sizeof(T)));
    throw_if(check_apart(op, "OutputTensor", output.base() + output.offset(), layout_of(output), sizeof(T),
                         "IndicesTensor", indices.base() + indices.offset(), layout_of(indices), sizeof(I)));
}

// ---- the desc rules -----------------------------------------------------------------------------

/// The rules every gather desc shares: the op exists at `level` (it came with `introduced`), and
/// its three tensors' own rules and data types there.
DMLREF_FUNC std::optional<std::string> check_gather_tensors(std::string_view op, feature_level level,
                                                       feature_level introduced, const buffer_tensor_desc& input,
                                                       const buffer_tensor_desc& indices,
                                                       const buffer_tensor_desc& output)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_level(op, level, introduced)) return m;
    return check_indexed_tensors(op, level,
                                 {{"InputTensor", &input, tensor_role::data},
                                  {"IndicesTensor", &indices, tensor_role::index},
                                  {"OutputTensor", &output, tensor_role::data_output}});
}
#else
;
#endif

/// DML_OPERATOR_GATHER's rules at `level` (operator-facts.md §10; never reads the index data).
DMLREF_FUNC std::optional<std::string> check_gather(std::string_view op, const gather_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_gather_tensors(op, level, feature_level::fl_1_0, d.input_tensor, d.indices_tensor,
                                      d.output_tensor))
        return m;
    gather_plan plan;
    return check_gather_shapes(op, desc_layout(d.input_tensor), desc_layout(d.indices_tensor),
                               desc_layout(d.output_tensor), d.axis, d.index_dimensions, plan);
}
#else
;
#endif

/// DML_OPERATOR_GATHER_ELEMENTS's rules at `level` (operator-facts.md §11).
DMLREF_FUNC std::optional<std::string> check_gather_elements(std::string_view op, const gather_elements_desc& d,
                                                        feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_gather_tensors(op, level, feature_level::fl_2_1, d.input_tensor, d.indices_tensor,
                                      d.output_tensor))
        return m;
    gather_plan plan;
    return check_gather_elements_shapes(op, desc_layout(d.input_tensor), desc_layout(d.indices_tensor),
                                        desc_layout(d.output_tensor), d.axis, plan);
}
#else
;
#endif

/// DML_OPERATOR_GATHER_ND1's rules at `level` (operator-facts.md §12); GATHER_ND's with
/// `introduced` 2_1 and batch_dims 0.
DMLREF_FUNC std::optional<std::string> check_gather_nd_common(std::string_view op, feature_level introduced,
                                                         const buffer_tensor_desc& input,
                                                         const buffer_tensor_desc& indices,
                                                         const buffer_tensor_desc& output, std::uint32_t input_dims,
                                                         std::uint32_t indices_dims, std::uint32_t batch_dims,
                                                         feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_gather_tensors(op, level, introduced, input, indices, output)) return m;
    gather_plan plan;
    return check_gather_nd_shapes(op, desc_layout(input), desc_layout(indices), desc_layout(output), input_dims,
                                  indices_dims, batch_dims, plan);
}
#else
;
#endif

DMLREF_FUNC std::optional<std::string> check_gather_nd(std::string_view op, const gather_nd_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    return check_gather_nd_common(op, feature_level::fl_2_1, d.input_tensor, d.indices_tensor, d.output_tensor,
                                  d.input_dimension_count, d.indices_dimension_count, 0, level);
}
#else
;
#endif

DMLREF_FUNC std::optional<std::string> check_gather_nd1(std::string_view op, const gather_nd1_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    return check_gather_nd_common(op, feature_level::fl_3_0, d.input_tensor, d.indices_tensor, d.output_tensor,
                                  d.input_dimension_count, d.indices_dimension_count, d.batch_dimension_count, level);
}
#else
;
#endif

// ---- the byte-level entry points (what the desc layer calls) ------------------------------------

/// A gather over buffers once its desc rules hold: the buffers' rules, `shapes(in, idx, out,
/// plan)` (the op's shape rules, which fill the plan), then every index checked against the input
/// axes from `first_axis` (one per tuple entry for the ND ops) and the gather run.
template <class Shapes>
void execute_gather_checked(std::string_view op, const buffer_tensor_desc& in_desc, const buffer_tensor_desc& idx_desc,
                            const buffer_tensor_desc& out_desc, std::span<const std::byte> input,
                            std::span<const std::byte> indices, std::span<std::byte> output, Shapes shapes,
                            std::size_t first_axis, bool per_tuple_entry) {
    throw_if(check_indexed_buffers(op, {{"InputTensor", &in_desc, input},
                                        {"IndicesTensor", &idx_desc, indices},
                                        {"OutputTensor", &out_desc, output}}));
    const layout in = desc_layout(in_desc), idx = desc_layout(idx_desc), out = desc_layout(out_desc);
    gather_plan plan;
    throw_if(shapes(in, idx, out, plan));
    run_gather(op, plan, idx, {first_axis, per_tuple_entry, &in}, input.data(), indices.data(), idx_desc.data_type,
               output.data(), element_size(in_desc.data_type));
}

/// GATHER from `input` into `output` (each the whole buffer bound to its tensor) after every
/// check; throws validation_error, with nothing written, when one fails (an index out of range
/// included). Writes only the output tensor's elements.
DMLREF_FUNC void execute_gather(const gather_desc& d, std::span<const std::byte> input, std::span<const std::byte> indices,
                           std::span<std::byte> output, feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::string_view op = "GATHER";
    throw_if(check_gather(op, d, level));
    execute_gather_checked(
        op, d.input_tensor, d.indices_tensor, d.output_tensor, input, indices, output,
        [&](const layout& in, const layout& idx, const layout& out, gather_plan& plan) {
            return check_gather_shapes(op, in, idx, out, d.axis, d.index_dimensions, plan);
        },
        d.axis, false);
}
#else
;
#endif

/// GATHER_ELEMENTS over buffers; as execute_gather.
DMLREF_FUNC void execute_gather_elements(const gather_elements_desc& d, std::span<const std::byte> input,
                                    std::span<const std::byte> indices, std::span<std::byte> output,
                                    feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::string_view op = "GATHER_ELEMENTS";
    throw_if(check_gather_elements(op, d, level));
    execute_gather_checked(
        op, d.input_tensor, d.indices_tensor, d.output_tensor, input, indices, output,
        [&](const layout& in, const layout& idx, const layout& out, gather_plan& plan) {
            return check_gather_elements_shapes(op, in, idx, out, d.axis, plan);
        },
        d.axis, false);
}
#else
;
#endif

/// GATHER_ND1 (and GATHER_ND, `op` and batch_dims 0) over buffers; as execute_gather.
DMLREF_FUNC void execute_gather_nd_common(std::string_view op, const buffer_tensor_desc& in_desc,
                                     const buffer_tensor_desc& idx_desc, const buffer_tensor_desc& out_desc,
                                     std::uint32_t input_dims, std::uint32_t indices_dims, std::uint32_t batch_dims,
                                     std::span<const std::byte> input, std::span<const std::byte> indices,
                                     std::span<std::byte> output)
#if DMLREF_DEFINE_FUNCS
{
    execute_gather_checked(
        op, in_desc, idx_desc, out_desc, input, indices, output,
        [&](const layout& in, const layout& idx, const layout& out, gather_plan& plan) {
            return check_gather_nd_shapes(op, in, idx, out, input_dims, indices_dims, batch_dims, plan);
        },
        nd_first_axis(desc_layout(in_desc).rank, input_dims, batch_dims), true);
}
#else
;
#endif

DMLREF_FUNC void execute_gather_nd(const gather_nd_desc& d, std::span<const std::byte> input,
                              std::span<const std::byte> indices, std::span<std::byte> output,
                              feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    throw_if(check_gather_nd("GATHER_ND", d, level));
    execute_gather_nd_common("GATHER_ND", d.input_tensor, d.indices_tensor, d.output_tensor, d.input_dimension_count,
                             d.indices_dimension_count, 0, input, indices, output);
}
#else
;
#endif

DMLREF_FUNC void execute_gather_nd1(const gather_nd1_desc& d, std::span<const std::byte> input,
                               std::span<const std::byte> indices, std::span<std::byte> output,
                               feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    throw_if(check_gather_nd1("GATHER_ND1", d, level));
    execute_gather_nd_common("GATHER_ND1", d.input_tensor, d.indices_tensor, d.output_tensor, d.input_dimension_count,
                             d.indices_dimension_count, d.batch_dimension_count, input, indices, output);
}
#else
;
#endif

} // namespace detail

// ---- the typed view entry points ----------------------------------------------------------------

/// GATHER from `input` into `output` along `axis`, the last `index_dimensions` axes of `indices`
/// choosing the input positions (see the file comment). Throws validation_error for shapes
/// DirectML rejects, overlapping views, and an index outside its axis (checked before anything
/// is written).
template <class T, index_element I, std::size_t Rank>
void gather(strided_view<const T, Rank> input, strided_view<const I, Rank> indices, strided_view<T, Rank> output,
            std::ptrdiff_t axis, std::ptrdiff_t index_dimensions) {
    constexpr std::string_view op = "gather";
    detail::check_gather_views(op, input, indices, output);
    const detail::layout in = detail::layout_of(input), idx = detail::layout_of(indices);
    detail::gather_plan plan;
    detail::throw_if(detail::check_gather_shapes(op, in, idx, detail::layout_of(output), axis, index_dimensions, plan));
    detail::run_gather(op, plan, idx, {static_cast<std::size_t>(axis), false, &in},
                       detail::bytes_at(input.base(), input.offset()), detail::bytes_at(indices.base(), indices.offset()),
                       data_type_of<I>(), detail::bytes_at(output.base(), output.offset()), sizeof(T));
}

/// GATHER_ELEMENTS: output[o] = input[o with o[axis] -> indices[o]]. Checks as gather().
template <class T, index_element I, std::size_t Rank>
void gather_elements(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                     strided_view<T, Rank> output, std::ptrdiff_t axis) {
    constexpr std::string_view op = "gather_elements";
    detail::check_gather_views(op, input, indices, output);
    const detail::layout in = detail::layout_of(input), idx = detail::layout_of(indices);
    detail::gather_plan plan;
    detail::throw_if(detail::check_gather_elements_shapes(op, in, idx, detail::layout_of(output), axis, plan));
    detail::run_gather(op, plan, idx, {static_cast<std::size_t>(axis), false, &in},
                       detail::bytes_at(input.base(), input.offset()), detail::bytes_at(indices.base(), indices.offset()),
                       data_type_of<I>(), detail::bytes_at(output.base(), output.offset()), sizeof(T));
}

/// GATHER_ND1 (GATHER_ND with batch_dimensions 0): the last axis of `indices` holds coordinate
/// tuples into the input's axes after the batch axes. Checks as gather().
template <class T, index_element I, std::size_t Rank>
void gather_nd(strided_view<const T, Rank> input, strided_view<const I, Rank> indices, strided_view<T, Rank> output,
               std::ptrdiff_t input_dimensions, std::ptrdiff_t indices_dimensions, std::ptrdiff_t batch_dimensions = 0) {
    constexpr std::string_view op = "gather_nd";
    detail::check_gather_views(op, input, indices, output);
    const detail::layout in = detail::layout_of(input), idx = detail::layout_of(indices);
    detail::gather_plan plan;
    detail::throw_if(detail::check_gather_nd_shapes(op, in, idx, detail::layout_of(output), input_dimensions,
                                                    indices_dimensions, batch_dimensions, plan));
    detail::run_gather(op, plan, idx, {detail::nd_first_axis(Rank, input_dimensions, batch_dimensions), true, &in},
                       detail::bytes_at(input.base(), input.offset()), detail::bytes_at(indices.base(), indices.offset()),
                       data_type_of<I>(), detail::bytes_at(output.base(), output.offset()), sizeof(T));
}

} // namespace dmlref
