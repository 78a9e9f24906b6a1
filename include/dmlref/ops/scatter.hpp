#pragma once
/// \file scatter.hpp
/// SCATTER_ELEMENTS (alias SCATTER) and SCATTER_ND over strided views and over DirectML descs.
///
/// Both copy the input to the output, then overwrite the elements the indices name with the
/// updates (wrap(i) = i + size for a negative signed index):
///
///   SCATTER_ELEMENTS (Axis a): for every coordinate u of Indices and Updates,
///     Out[u with u[a] -> wrap(Indices[u])] = Updates[u].
///   SCATTER_ND (I = InputDimensionCount, J = IndicesDimensionCount, T = Indices.Sizes[N-1],
///   R = I - T): for every update coordinate (q, r), q over Indices.Sizes[N-J..N-1) and r over the
///   input's last R sizes, Out[0..., wrap(Indices[0..., q, 0]), ..., wrap(Indices[0..., q, T-1]), r]
///   = Updates[0..., q, r] (GATHER_ND's equation with input and output exchanged).
///
/// Duplicates: DirectML calls two updates of one output element invalid, with "no guarantee of
/// which last write wins". dmlref's rule: updates are written in row-major order of the updates
/// tensor, so the later one stays (the result DirectML's own SCATTER example 1 shows).
/// detail::scatter_duplicates() lists every output element written more than once, and by which
/// updates, so that a comparison can accept any of them.
///
/// Preconditions (operator-facts.md §13-§14; dmlref's choices marked *): the output has the
/// input's sizes; SCATTER_ELEMENTS: Axis < N, Indices.Sizes = Input.Sizes except on Axis,
/// Updates.Sizes = Indices.Sizes. SCATTER_ND: 1 <= I, J <= N (closed, as GATHER_ND's; the page's
/// half-open ranges refuse its own example)*, 1 <= T <= I, the leading N - I input and N - J index
/// sizes are 1*, and Updates.Sizes are GATHER_ND's output sizes. Every index in range: checked
/// before anything is written (throws validation_error naming the index; DirectML leaves it
/// undefined).
///
/// | DirectML                   | ONNX                       | numpy               | PyTorch                 | WebNN             |
/// |----------------------------|----------------------------|---------------------|-------------------------|-------------------|
/// | SCATTER_ELEMENTS, SCATTER  | ScatterElements, Scatter   | `np.put_along_axis` | `torch.Tensor.scatter_` | `scatterElements` |
/// | SCATTER_ND                 | ScatterND                  | (none)              | (none)                  | `scatterND`       |

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gather.hpp"

namespace dmlref {

/// DML_SCATTER_OPERATOR_DESC, also named DML_SCATTER_ELEMENTS_OPERATOR_DESC.
struct scatter_elements_desc {
    static constexpr operator_type type = operator_type::scatter_elements;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc indices_tensor;
    buffer_tensor_desc updates_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t axis = 0;
};
/// DirectML's older name of the same desc.
using scatter_desc = scatter_elements_desc;

/// DML_SCATTER_ND_OPERATOR_DESC.
struct scatter_nd_desc {
    static constexpr operator_type type = operator_type::scatter_nd;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc indices_tensor;
    buffer_tensor_desc updates_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t input_dimension_count = 0;
    std::uint32_t indices_dimension_count = 0;
};

/// One output element that several updates write, for detail::scatter_duplicates().
struct scatter_duplicate {
    std::vector<std::uint32_t> output_coordinate;
    /// The updates' coordinates in row-major order; dmlref keeps the last one's value.
    std::vector<std::vector<std::uint32_t>> update_coordinates;
    friend bool operator==(const scatter_duplicate&, const scatter_duplicate&) = default;
};

namespace detail {

/// The output has the input's sizes.
DMLREF_FUNC std::optional<std::string> check_same_sizes(std::string_view op, const layout& in, const layout& out)
#if DMLREF_DEFINE_FUNCS
{
    for (std::size_t i = 0; i < in.rank; ++i)
        if (out.extents[i] != in.extents[i])
            return detail::message("{}: OutputTensor.Sizes {} differ from InputTensor.Sizes {}; they must match", op,
                                   extents_text(std::span(out.extents).first(out.rank)),
                                   extents_text(std::span(in.extents).first(in.rank)));
    return std::nullopt;
}
#else
;
#endif

/// SCATTER_ELEMENTS' shape rules; fills `plan` (walked = updates, addressed = output).
DMLREF_FUNC std::optional<std::string> check_scatter_elements_shapes(std::string_view op, const layout& in, const layout& idx,
                                                                const layout& upd, const layout& out,
                                                                std::ptrdiff_t axis, gather_plan& plan)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_same_sizes(op, in, out)) return m;
    return check_gather_elements_shapes(op, out, idx, upd, axis, plan, "UpdatesTensor");
}
#else
;
#endif

/// SCATTER_ND's shape rules; fills `plan` (walked = updates, addressed = output).
DMLREF_FUNC std::optional<std::string> check_scatter_nd_shapes(std::string_view op, const layout& in, const layout& idx,
                                                          const layout& upd, const layout& out,
                                                          std::ptrdiff_t input_dims, std::ptrdiff_t indices_dims,
                                                          gather_plan& plan)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_same_sizes(op, in, out)) return m;
    return check_gather_nd_shapes(op, out, idx, upd, input_dims, indices_dims, 0, plan, "UpdatesTensor");
}
#else
;
#endif

/// Checks every index, copies the input to the output with the copy engine, then writes the
/// updates in row-major order.
DMLREF_FUNC void run_scatter(std::string_view op, gather_plan plan, const layout& in, const layout& idx, const layout& out,
                        const index_axes& axes, const std::byte* input, const std::byte* indices, data_type index_type,
                        const std::byte* updates, std::byte* output, std::size_t width)
#if DMLREF_DEFINE_FUNCS
{
    throw_if(check_indices(op, "IndicesTensor", indices, idx, index_type, "OutputTensor", axes));
    copy_plan copy;
    copy.rank = in.rank;
    for (std::size_t i = 0; i < in.rank; ++i)
        copy.axes[i] = axis_plan::affine(out.extents[i], out.strides[i], 0, in.strides[i]);
    copy.input = input;
    copy.output = output;
    copy.width = width;
    execute(copy);
    plan.indices = indices;
    plan.index_type = index_type;
    plan.width = width;
    run_gather_plan(plan, updates, nullptr, nullptr, output);
}
#else
;
#endif

/// The four views' own checks, and the output apart from the three inputs.
template <class T, class I, std::size_t Rank>
void check_scatter_views(std::string_view op, const strided_view<const T, Rank>& input,
                         const strided_view<const I, Rank>& indices, const strided_view<const T, Rank>& updates,
                         const strided_view<T, Rank>& output) {
    throw_if(check_layout(op, "InputTensor", layout_of(input), false));
    throw_if(check_layout(op, "IndicesTensor", layout_of(indices), false));
    throw_if(check_layout(op, "UpdatesTensor", layout_of(updates), false));
    throw_if(check_layout(op, "OutputTensor", layout_of(output), true));
    const void* out = output.base() + output.offset();
    throw_if(check_apart(op, "OutputTensor", out, layout_of(output), sizeof(T), "InputTensor",
                         input.base() + input.offset(), layout_of(input), sizeof(T)));
    throw_if(check_apart(op, "OutputTensor", out, layout_of(output), sizeof(T), "IndicesTensor",
                         indices.base() + indices.offset(), layout_of(indices), sizeof(I)));
    throw_if(check_apart(op, "OutputTensor", out, layout_of(output), sizeof(T), "UpdatesTensor",
                         updates.base() + updates.offset(), layout_of(updates), sizeof(T)));
}

// ---- the desc rules -----------------------------------------------------------------------------

/// The rules both scatter descs share: the op exists at `level` (it came with `introduced`), and
/// its four tensors' own rules and data types there.
template <class Desc>
std::optional<std::string> check_scatter_tensors(std::string_view op, feature_level level, feature_level introduced,
                                                 const Desc& d) {
    if (auto m = check_level(op, level, introduced)) return m;
    return check_indexed_tensors(op, level,
                                 {{"InputTensor", &d.input_tensor, tensor_role::data},
                                  {"IndicesTensor", &d.indices_tensor, tensor_role::index},
                                  {"UpdatesTensor", &d.updates_tensor, tensor_role::data},
                                  {"OutputTensor", &d.output_tensor, tensor_role::data_output}});
}

/// DML_OPERATOR_SCATTER's rules at `level` (operator-facts.md §13). Introduced at feature level
/// 2_0: the header declares it from DML_TARGET_VERSION 0x2000 and the feature-level history lists
/// it there; only its page's table says 1_0.
DMLREF_FUNC std::optional<std::string> check_scatter_elements(std::string_view op, const scatter_elements_desc& d,
                                                         feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_scatter_tensors(op, level, feature_level::fl_2_0, d)) return m;
    gather_plan plan;
    return check_scatter_elements_shapes(op, desc_layout(d.input_tensor), desc_layout(d.indices_tensor),
                                         desc_layout(d.updates_tensor), desc_layout(d.output_tensor), d.axis, plan);
}
#else
;
#endif

/// DML_OPERATOR_SCATTER_ND's rules at `level` (operator-facts.md §14).
DMLREF_FUNC std::optional<std::string> check_scatter_nd(std::string_view op, const scatter_nd_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_scatter_tensors(op, level, feature_level::fl_2_1, d)) return m;
    gather_plan plan;
    return check_scatter_nd_shapes(op, desc_layout(d.input_tensor), desc_layout(d.indices_tensor),
                                   desc_layout(d.updates_tensor), desc_layout(d.output_tensor), d.input_dimension_count,
                                   d.indices_dimension_count, plan);
}
#else
;
#endif

/// A scatter over buffers once its desc rules hold: the buffers' rules, `shapes(in, idx, upd, out,
/// plan)` (the op's shape rules, which fill the plan), then every index checked against the output
/// axes from `first_axis` (one per tuple entry for SCATTER_ND) and the scatter run.
template <class Desc, class Shapes>
void execute_scatter_checked(std::string_view op, const Desc& d, std::span<const std::byte> input,
                             std::span<const std::byte> indices, std::span<const std::byte> updates,
                             std::span<std::byte> output, Shapes shapes, std::size_t first_axis, bool per_tuple_entry) {
    throw_if(check_indexed_buffers(op, {{"InputTensor", &d.input_tensor, input},
                                        {"IndicesTensor", &d.indices_tensor, indices},
                                        {"UpdatesTensor", &d.updates_tensor, updates},
                                        {"OutputTensor", &d.output_tensor, output}}));
    const layout in = desc_layout(d.input_tensor), idx = desc_layout(d.indices_tensor),
                 upd = desc_layout(d.updates_tensor), out = desc_layout(d.output_tensor);
    gather_plan plan;
    throw_if(shapes(in, idx, upd, out, plan));
    run_scatter(op, plan, in, idx, out, {first_axis, per_tuple_entry, &out}, input.data(), indices.data(),
                d.indices_tensor.data_type, updates.data(), output.data(), element_size(d.input_tensor.data_type));
}

// ---- the byte-level entry points ----------------------------------------------------------------

/// SCATTER_ELEMENTS over buffers after every check; throws validation_error, with nothing
/// written, when one fails (an index out of range included).
DMLREF_FUNC void execute_scatter_elements(const scatter_elements_desc& d, std::span<const std::byte> input,
                                     std::span<const std::byte> indices, std::span<const std::byte> updates,
                                     std::span<std::byte> output, feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::string_view op = "SCATTER_ELEMENTS";
    throw_if(check_scatter_elements(op, d, level));
    execute_scatter_checked(
        op, d, input, indices, updates, output,
        [&](const layout& in, const layout& idx, const layout& upd, const layout& out, gather_plan& plan) {
            return check_scatter_elements_shapes(op, in, idx, upd, out, d.axis, plan);
        },
        d.axis, false);
}
#else
;
#endif

/// SCATTER_ND over buffers; as execute_scatter_elements.
DMLREF_FUNC void execute_scatter_nd(const scatter_nd_desc& d, std::span<const std::byte> input,
                               std::span<const std::byte> indices, std::span<const std::byte> updates,
                               std::span<std::byte> output, feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::string_view op = "SCATTER_ND";
    throw_if(check_scatter_nd(op, d, level));
    execute_scatter_checked(
        op, d, input, indices, updates, output,
        [&](const layout& in, const layout& idx, const layout& upd, const layout& out, gather_plan& plan) {
            return check_scatter_nd_shapes(op, in, idx, upd, out, d.input_dimension_count, d.indices_dimension_count,
                                           plan);
        },
        nd_first_axis(desc_layout(d.input_tensor).rank, d.input_dimension_count, 0), true);
}
#else
;
#endif

// ---- duplicates ---------------------------------------------------------------------------------

/// The coordinate of row-major element `linear` of a tensor of `sizes`.
DMLREF_FUNC std::vector<std::uint32_t> coordinate_of(std::uint64_t linear, const std::vector<std::uint32_t>& sizes)
#if DMLREF_DEFINE_FUNCS
{
    std::vector<std::uint32_t> c(sizes.size());
    for (std::size_t i = sizes.size(); i-- > 0;) {
        c[i] = static_cast<std::uint32_t>(linear % sizes[i]);
        linear /= sizes[i];
    }
    return c;
}
#else
;
#endif

/// The output elements several updates write, from a plan over packed layouts (so that offsets
/// are row-major element numbers) whose indices check_indices accepted.
DMLREF_FUNC std::vector<scatter_duplicate> duplicates_of(const gather_plan& p, const std::vector<std::uint32_t>& out_sizes,
                                                    const std::vector<std::uint32_t>& upd_sizes)
#if DMLREF_DEFINE_FUNCS
{
    std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> writes; // (output element, update element)
    std::array<std::ptrdiff_t, max_plan_rank> c{};
    for (;;) {
        const plan_offsets at = offsets_at(p, c, p.rank);
        writes.emplace_back(at.addressed, at.walked);
        std::size_t j = p.rank;
        for (;;) {
            if (j == 0) goto walked_all;
            --j;
            if (++c[j] < p.extent[j]) break;
            c[j] = 0;
        }
    }
walked_all:
    std::stable_sort(writes.begin(), writes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<scatter_duplicate> found;
    for (std::size_t first = 0; first < writes.size();) {
        std::size_t last = first + 1;
        while (last < writes.size() && writes[last].first == writes[first].first) ++last;
        if (last - first > 1) {
            scatter_duplicate d{coordinate_of(static_cast<std::uint64_t>(writes[first].first), out_sizes), {}};
            for (std::size_t k = first; k < last; ++k)
                d.update_coordinates.push_back(coordinate_of(static_cast<std::uint64_t>(writes[k].second), upd_sizes));
            found.push_back(std::move(d));
        }
        first = last;
    }
    return found;
}
#else
;
#endif

/// Packed layouts of a desc's Sizes, for duplicates_of.
DMLREF_FUNC layout packed_layout(const buffer_tensor_desc& t) noexcept
#if DMLREF_DEFINE_FUNCS
{
    buffer_tensor_desc packed{t.data_type, t.flags, t.sizes, std::nullopt, 0, 0};
    return desc_layout(packed);
}
#else
;
#endif

/// The output elements that a valid SCATTER_ELEMENTS desc with these indices (the buffer bound to
/// IndicesTensor) writes more than once, in row-major order of the output, each with its updates in
/// row-major order (the last is the one dmlref keeps). Throws validation_error where the desc
/// (at `level`), the buffer or an index is invalid. Never reads the input or the updates.
DMLREF_FUNC std::vector<scatter_duplicate> scatter_duplicates(const scatter_elements_desc& d,
                                                         std::span<const std::byte> indices,
                                                         feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::string_view op = "SCATTER_ELEMENTS";
    throw_if(check_scatter_elements(op, d, level));
    throw_if(check_indexed_buffers(op, {{"IndicesTensor", &d.indices_tensor, indices}}));
    const layout idx = desc_layout(d.indices_tensor), out = packed_layout(d.output_tensor),
                 upd = packed_layout(d.updates_tensor);
    gather_plan plan;
    throw_if(check_scatter_elements_shapes(op, out, idx, upd, out, d.axis, plan));
    throw_if(check_indices(op, "IndicesTensor", indices.data(), idx, d.indices_tensor.data_type, "OutputTensor",
                           index_axes{d.axis, false, &out}));
    plan.indices = indices.data();
    plan.index_type = d.indices_tensor.data_type;
    return duplicates_of(plan, d.output_tensor.sizes, d.updates_tensor.sizes);
}
#else
;
#endif

/// As above, for SCATTER_ND.
DMLREF_FUNC std::vector<scatter_duplicate> scatter_duplicates(const scatter_nd_desc& d, std::span<const std::byte> indices,
                                                         feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr std::string_view op = "SCATTER_ND";
    throw_if(check_scatter_nd(op, d, level));
    throw_if(check_indexed_buffers(op, {{"IndicesTensor", &d.indices_tensor, indices}}));
    const layout idx = desc_layout(d.indices_tensor), out = packed_layout(d.output_tensor),
                 upd = packed_layout(d.updates_tensor);
    gather_plan plan;
    throw_if(check_scatter_nd_shapes(op, out, idx, upd, out, d.input_dimension_count, d.indices_dimension_count, plan));
    throw_if(check_indices(op, "IndicesTensor", indices.data(), idx, d.indices_tensor.data_type, "OutputTensor",
                           index_axes{nd_first_axis(out.rank, d.input_dimension_count, 0), true, &out}));
    plan.indices = indices.data();
    plan.index_type = d.indices_tensor.data_type;
    return duplicates_of(plan, d.output_tensor.sizes, d.updates_tensor.sizes);
}
#else
;
#endif

} // namespace detail

// ---- the typed view entry points ----------------------------------------------------------------

/// SCATTER_ELEMENTS: output = input, then output[u with u[axis] -> indices[u]] = updates[u] in
/// row-major order of u (the later of duplicate targets stays). Throws validation_error for shapes
/// DirectML rejects, overlapping views, and an index outside its axis (checked before anything is
/// written).
template <class T, index_element I, std::size_t Rank>
void scatter_elements(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                      strided_view<const T, Rank> updates, strided_view<T, Rank> output, std::ptrdiff_t axis) {
    constexpr std::string_view op = "scatter_elements";
    detail::check_scatter_views(op, input, indices, updates, output);
    const detail::layout in = detail::layout_of(input), idx = detail::layout_of(indices), out = detail::layout_of(output);
    detail::gather_plan plan;
    detail::throw_if(detail::check_scatter_elements_shapes(op, in, idx, detail::layout_of(updates), out, axis, plan));
    detail::run_scatter(op, plan, in, idx, out, {static_cast<std::size_t>(axis), false, &out},
                        detail::bytes_at(input.base(), input.offset()), detail::bytes_at(indices.base(), indices.offset()),
                        data_type_of<I>(), detail::bytes_at(updates.base(), updates.offset()),
                        detail::bytes_at(output.base(), output.offset()), sizeof(T));
}

/// SCATTER_ND: output = input, then each update slice goes where its index tuple points, in
/// row-major order of the updates. Checks as scatter_elements().
template <class T, index_element I, std::size_t Rank>
void scatter_nd(strided_view<const T, Rank> input, strided_view<const I, Rank> indices,
                strided_view<const T, Rank> updates, strided_view<T, Rank> output, std::ptrdiff_t input_dimensions,
                std::ptrdiff_t indices_dimensions) {
    constexpr std::string_view op = "scatter_nd";
    detail::check_scatter_views(op, input, indices, updates, output);
    const detail::layout in = detail::layout_of(input), idx = detail::layout_of(indices), out = detail::layout_of(output);
    detail::gather_plan plan;
    detail::throw_if(detail::check_scatter_nd_shapes(op, in, idx, detail::layout_of(updates), out, input_dimensions,
                                                     indices_dimensions, plan));
    detail::run_scatter(op, plan, in, idx, out, {detail::nd_first_axis(Rank, input_dimensions, 0), true, &out},
                        detail::bytes_at(input.base(), input.offset()), detail::bytes_at(indices.base(), indices.offset()),
                        data_type_of<I>(), detail::bytes_at(updates.base(), updates.offset()),
                        detail::bytes_at(output.base(), output.offset()), sizeof(T));
}

} // namespace dmlref
