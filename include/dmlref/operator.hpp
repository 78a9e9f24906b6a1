#pragma once
/// \file operator.hpp
/// The desc layer: DirectML's operator descs over raw byte buffers, validated as DirectML does at
/// a chosen feature level, and executed by the ops.
///
///   dmlref::slice1_desc desc{in, out, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}};
///   dmlref::execute(desc, input_bytes, output_bytes);            // throws dmlref::validation_error
///   if (auto why = dmlref::validate(desc, dmlref::feature_level::fl_2_1)) ...  // "would DirectML accept it?"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "data_type.hpp"
#include "error.hpp"
#include "operator_type.hpp"
#include "ops/depth_space.hpp"
#include "ops/gather.hpp"
#include "ops/identity.hpp"
#include "ops/join_split.hpp"
#include "ops/one_hot.hpp"
#include "ops/padding.hpp"
#include "ops/reverse_subsequences.hpp"
#include "ops/scatter.hpp"
#include "ops/slice.hpp"
#include "ops/slice_grad.hpp"
#include "ops/tile.hpp"
#include "ops/upsample.hpp"
#include "tensor_desc.hpp"

namespace dmlref {

/// DML_SCALAR_UNION: eight bytes read as the member that the data type names. dmlref reads the
/// first element-size bytes, little-endian; FLOAT16 is the binary16 bits (the UInt16 member).
struct scalar_union {
    std::array<std::uint8_t, 8> bytes{};

    /// The union holding `value` in its first sizeof(T) bytes (float16 as its bits).
    template <class T>
        requires(std::is_trivially_copyable_v<T> && sizeof(T) <= 8)
    static scalar_union of(T value) noexcept {
        scalar_union u;
        std::memcpy(u.bytes.data(), &value, sizeof(T));
        return u;
    }
    /// The first sizeof(T) bytes as a T.
    template <class T>
        requires(std::is_trivially_copyable_v<T> && sizeof(T) <= 8)
    T as() const noexcept {
        T value;
        std::memcpy(&value, bytes.data(), sizeof(T));
        return value;
    }
    friend bool operator==(const scalar_union&, const scalar_union&) = default;
};

/// DML_DEPTH_TO_SPACE_OPERATOR_DESC (always DEPTH_COLUMN_ROW).
struct depth_to_space_desc {
    static constexpr operator_type type = operator_type::depth_to_space;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t block_size = 0;
};

/// DML_DEPTH_TO_SPACE1_OPERATOR_DESC.
struct depth_to_space1_desc {
    static constexpr operator_type type = operator_type::depth_to_space1;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t block_size = 0;
    depth_space_order order = depth_space_order::depth_column_row;
};

/// DML_SPACE_TO_DEPTH_OPERATOR_DESC (always DEPTH_COLUMN_ROW).
struct space_to_depth_desc {
    static constexpr operator_type type = operator_type::space_to_depth;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t block_size = 0;
};

/// DML_SPACE_TO_DEPTH1_OPERATOR_DESC.
struct space_to_depth1_desc {
    static constexpr operator_type type = operator_type::space_to_depth1;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::uint32_t block_size = 0;
    depth_space_order order = depth_space_order::depth_column_row;
};

/// DML_SLICE_OPERATOR_DESC. DimensionCount is the length of the arrays; `sizes` are the output sizes.
struct slice_desc {
    static constexpr operator_type type = operator_type::slice;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::vector<std::uint32_t> offsets;
    std::vector<std::uint32_t> sizes;
    std::vector<std::uint32_t> strides;
};

/// DML_SLICE1_OPERATOR_DESC. DimensionCount is the length of the arrays.
struct slice1_desc {
    static constexpr operator_type type = operator_type::slice1;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::vector<std::uint32_t> input_window_offsets;
    std::vector<std::uint32_t> input_window_sizes;
    std::vector<std::int32_t> input_window_strides;
};

/// DML_PADDING_OPERATOR_DESC. The FLOAT value converts to the tensor type per DECISIONS 3.
struct padding_desc {
    static constexpr operator_type type = operator_type::padding;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    dmlref::padding_mode padding_mode = dmlref::padding_mode::constant;
    float padding_value = 0.0f;
    std::vector<std::uint32_t> start_padding;
    std::vector<std::uint32_t> end_padding;
};

/// DML_PADDING1_OPERATOR_DESC. `padding_value_data_type` must equal the output's data type.
struct padding1_desc {
    static constexpr operator_type type = operator_type::padding1;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    dmlref::padding_mode padding_mode = dmlref::padding_mode::constant;
    data_type padding_value_data_type = data_type::unknown;
    scalar_union padding_value;
    std::vector<std::uint32_t> start_padding;
    std::vector<std::uint32_t> end_padding;
};

/// DML_SCALE_BIAS: g(x) = x * Scale + Bias.
struct scale_bias {
    float scale = 1.0f;
    float bias = 0.0f;
    friend bool operator==(const scale_bias&, const scale_bias&) = default;
};

/// DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC. dmlref moves data: a desc with a ScaleBias (arithmetic)
/// is refused by validate(); the field exists so that such a desc can be read, shown and sent to
/// DirectML as it is.
struct element_wise_identity_desc {
    static constexpr operator_type type = operator_type::element_wise_identity;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::optional<dmlref::scale_bias> scale_bias;
};

/// DML_SLICE_GRAD_OPERATOR_DESC. DimensionCount is the length of the arrays. DirectML names the
/// tensors InputGradientTensor and OutputGradientTensor (so do the messages, the model files and
/// the text forms); the members keep the names every other desc gives its input and output, which
/// the desc layer, the tools and the tests address through std::visit alike.
struct slice_grad_desc {
    static constexpr operator_type type = operator_type::slice_grad;
    buffer_tensor_desc input_tensor;  ///< InputGradientTensor: the sizes of a SLICE1 output
    buffer_tensor_desc output_tensor; ///< OutputGradientTensor: the sizes of a SLICE1 input
    std::vector<std::uint32_t> input_window_offsets;
    std::vector<std::uint32_t> input_window_sizes;
    std::vector<std::int32_t> input_window_strides;
};

/// DML_TILE_OPERATOR_DESC; RepeatsCount is repeats.size().
struct tile_desc {
    static constexpr operator_type type = operator_type::tile;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    std::vector<std::uint32_t> repeats;
};

/// DML_INTERPOLATION_MODE.
enum class interpolation_mode : std::uint32_t {
    nearest_neighbor = 0,
    linear = 1, ///< computes (weighted averages): validate() refuses it
};

/// DML_SIZE_2D (Width first, as in DirectML's struct).
struct size_2d {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    friend bool operator==(const size_2d&, const size_2d&) = default;
};

/// DML_UPSAMPLE_2D_OPERATOR_DESC. dmlref moves data: LINEAR interpolation (arithmetic) is refused
/// by validate(); the field takes any value so that such a desc can be read, shown and sent to
/// DirectML as it is.
struct upsample_2d_desc {
    static constexpr operator_type type = operator_type::upsample_2d;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc output_tensor;
    size_2d scale_size;
    dmlref::interpolation_mode interpolation_mode = interpolation_mode::nearest_neighbor;
};

/// DML_JOIN_OPERATOR_DESC; InputCount is input_tensors.size().
struct join_desc {
    static constexpr operator_type type = operator_type::join;
    std::vector<buffer_tensor_desc> input_tensors;
    buffer_tensor_desc output_tensor;
    std::uint32_t axis = 0;
};

/// DML_SPLIT_OPERATOR_DESC; OutputCount is output_tensors.size().
struct split_desc {
    static constexpr operator_type type = operator_type::split;
    buffer_tensor_desc input_tensor;
    std::vector<buffer_tensor_desc> output_tensors;
    std::uint32_t axis = 0;
};

/// DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC. SequenceLengthsTensor holds data (one length per
/// sequence, UINT32, or UINT64 from feature level 5_0): validation reads its layout only, and
/// execute() reads the lengths, clamping each to the axis size as DirectML documents.
struct reverse_subsequences_desc {
    static constexpr operator_type type = operator_type::reverse_subsequences;
    buffer_tensor_desc input_tensor;
    buffer_tensor_desc sequence_lengths_tensor; ///< the input's sizes with 1 on Axis
    buffer_tensor_desc output_tensor;
    std::uint32_t axis = 0;
};

/// Any of the operator descs.
using operator_desc = std::variant<depth_to_space_desc, depth_to_space1_desc, space_to_depth_desc,
                                   space_to_depth1_desc, slice_desc, slice1_desc, padding_desc, padding1_desc,
                                   element_wise_identity_desc, slice_grad_desc, tile_desc, upsample_2d_desc, join_desc,
                                   split_desc, reverse_subsequences_desc, gather_desc, gather_elements_desc, gather_nd_desc,
                                   gather_nd1_desc, scatter_elements_desc, scatter_nd_desc, one_hot_desc>;

/// One tensor that a desc binds: its field as DirectML names it ("InputTensor", "InputTensors[2]",
/// "OutputGradientTensor") and its desc, which the operator desc owns.
struct bound_tensor {
    std::string field;
    const buffer_tensor_desc* tensor = nullptr;

    const buffer_tensor_desc& desc() const noexcept { return *tensor; }
};

/// Whether the operator binds tensor arrays (JOIN's InputTensors, SPLIT's OutputTensors): a model
/// file binds such a field to a JSON array of resources.
constexpr bool binds_tensor_arrays(operator_type type) noexcept {
    return type == operator_type::join || type == operator_type::split;
}

/// Whether where an output element comes from depends on an input's values, not on the desc alone:
/// REVERSE_SUBSEQUENCES's lengths, the indexed operators' indices. textbook::source_of needs the
/// input buffers for these.
constexpr bool has_data_dependent_mapping(operator_type type) noexcept {
    switch (type) {
    case operator_type::reverse_subsequences:
    case operator_type::gather:
    case operator_type::gather_elements:
    case operator_type::gather_nd:
    case operator_type::gather_nd1:
    case operator_type::scatter_elements:
    case operator_type::scatter_nd:
    case operator_type::one_hot: return true;
    default: return false;
    }
}

/// Whether the operator binds exactly one input and one output tensor: every operator but JOIN and
/// SPLIT (tensor arrays) and those with a second input (REVERSE_SUBSEQUENCES's lengths, the indexed
/// operators' indices). A consumer written for one input and one output buffer refuses the others
/// (single_tensor_only).
constexpr bool binds_one_input_and_output(operator_type type) noexcept {
    return !binds_tensor_arrays(type) && !has_data_dependent_mapping(type);
}

/// Whether a desc is one of the gathers (GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1).
template <class Desc>
inline constexpr bool is_gather_desc_v = std::is_same_v<Desc, gather_desc> || std::is_same_v<Desc, gather_elements_desc> ||
                                         std::is_same_v<Desc, gather_nd_desc> || std::is_same_v<Desc, gather_nd1_desc>;

/// Whether a desc is one of the scatters (SCATTER_ELEMENTS, SCATTER_ND).
template <class Desc>
inline constexpr bool is_scatter_desc_v = std::is_same_v<Desc, scatter_elements_desc> || std::is_same_v<Desc, scatter_nd_desc>;

/// Whether a desc binds exactly one input and one output (binds_one_input_and_output).
template <class Desc>
inline constexpr bool is_single_tensor_desc_v = requires(const Desc& d) {
    d.input_tensor;
    d.output_tensor;
} && binds_one_input_and_output(Desc::type);

/// The desc's input tensors in DirectML's binding order (the order of the desc's fields, array
/// entries in order): a tool binds one buffer to each.
template <class Desc>
    requires(!std::is_same_v<Desc, operator_desc>)
std::vector<bound_tensor> inputs_of(const Desc& d) {
    if constexpr (std::is_same_v<Desc, join_desc>) {
        std::vector<bound_tensor> tensors;
        for (std::size_t k = 0; k < d.input_tensors.size(); ++k)
            tensors.push_back({detail::part_field("InputTensors", k), &d.input_tensors[k]});
        return tensors;
    } else if constexpr (std::is_same_v<Desc, slice_grad_desc>) {
        return {{"InputGradientTensor", &d.input_tensor}};
    } else if constexpr (std::is_same_v<Desc, reverse_subsequences_desc>) {
        return {{"InputTensor", &d.input_tensor}, {"SequenceLengthsTensor", &d.sequence_lengths_tensor}};
    } else if constexpr (is_gather_desc_v<Desc>) {
        return {{"InputTensor", &d.input_tensor}, {"IndicesTensor", &d.indices_tensor}};
    } else if constexpr (is_scatter_desc_v<Desc>) {
        return {{"InputTensor", &d.input_tensor}, {"IndicesTensor", &d.indices_tensor}, {"UpdatesTensor", &d.updates_tensor}};
    } else if constexpr (std::is_same_v<Desc, one_hot_desc>) {
        return {{"IndicesTensor", &d.indices_tensor}, {"ValuesTensor", &d.values_tensor}};
    } else {
        return {{"InputTensor", &d.input_tensor}};
    }
}

/// The desc's output tensors in DirectML's binding order.
template <class Desc>
    requires(!std::is_same_v<Desc, operator_desc>)
std::vector<bound_tensor> outputs_of(const Desc& d) {
    if constexpr (std::is_same_v<Desc, split_desc>) {
        std::vector<bound_tensor> tensors;
        for (std::size_t k = 0; k < d.output_tensors.size(); ++k)
            tensors.push_back({detail::part_field("OutputTensors", k), &d.output_tensors[k]});
        return tensors;
    } else if constexpr (std::is_same_v<Desc, slice_grad_desc>) {
        return {{"OutputGradientTensor", &d.output_tensor}};
    } else {
        return {{"OutputTensor", &d.output_tensor}};
    }
}

/// inputs_of() of whichever desc `desc` holds.
DMLREF_FUNC std::vector<bound_tensor> inputs_of(const operator_desc& desc)
#if DMLREF_DEFINE_FUNCS
{
    return std::visit([](const auto& d) { return inputs_of(d); }, desc);
}
#else
;
#endif

/// outputs_of() of whichever desc `desc` holds.
DMLREF_FUNC std::vector<bound_tensor> outputs_of(const operator_desc& desc)
#if DMLREF_DEFINE_FUNCS
{
    return std::visit([](const auto& d) { return outputs_of(d); }, desc);
}
#else
;
#endif

constexpr std::string_view to_string(operator_type type) noexcept;

namespace detail {
[[noreturn]] DMLREF_FUNC void refuse_tensor_array(operator_type type, std::string_view consumer)
#if DMLREF_DEFINE_FUNCS
{
    throw validation_error(std::string(to_string(type))
                               .append(": ")
                               .append(consumer)
                               .append(" takes one input and one output tensor; it does not take ")
                               .append(to_string(type))
                               .append(binds_tensor_arrays(type) ? " (a tensor array) yet" : " (several input tensors) yet"));
}
#else
;
#endif
} // namespace detail

/// A visitor for consumers written for one input and one output tensor: calls `f` with the desc, or
/// throws validation_error for the others (JOIN, SPLIT, REVERSE_SUBSEQUENCES, the indexed
/// operators: binds_one_input_and_output) naming the operator and `consumer` ("the ONNX export"),
/// so that no consumer takes a tensor array, or a desc's first input, for its one tensor.
///   std::visit(single_tensor_only("the model writer", [](const auto& d) { ... }), desc);
template <class F> struct single_tensor_only {
    std::string_view consumer;
    F f;

    template <class D>
    using first_like = std::conditional_t<std::is_const_v<std::remove_reference_t<D>>, const depth_to_space_desc&,
                                          depth_to_space_desc&>;

    template <class D> auto operator()(D&& d) const -> std::invoke_result_t<const F&, first_like<D>> {
        using desc_t = std::remove_cvref_t<D>;
        if constexpr (is_single_tensor_desc_v<desc_t>) {
            return f(d);
        } else {
            detail::refuse_tensor_array(desc_t::type, consumer);
        }
    }
};
template <class F> single_tensor_only(std::string_view, F) -> single_tensor_only<F>;

/// The data type that the desc moves: its input's (JOIN's and ONE_HOT's output's; validation holds
/// the data tensors to it). Allocates nothing, as execute() does not.
DMLREF_FUNC data_type data_type_of(const operator_desc& desc) noexcept
#if DMLREF_DEFINE_FUNCS
{
    return std::visit(
        [](const auto& d) {
            using desc_t = std::remove_cvref_t<decltype(d)>;
            if constexpr (std::is_same_v<desc_t, join_desc> || std::is_same_v<desc_t, one_hot_desc>) {
                return d.output_tensor.data_type; // InputCount may be 0; ONE_HOT's input is its indices
            } else {
                return d.input_tensor.data_type;
            }
        },
        desc);
}
#else
;
#endif

/// The DML_OPERATOR_TYPE of a desc.
DMLREF_FUNC operator_type type_of(const operator_desc& desc) noexcept
#if DMLREF_DEFINE_FUNCS
{
    return std::visit([](const auto& d) { return std::remove_cvref_t<decltype(d)>::type; }, desc);
}
#else
;
#endif

/// DirectML's name without its prefix: "SLICE1".
constexpr std::string_view to_string(operator_type type) noexcept {
    switch (type) {
    case operator_type::slice: return "SLICE";
    case operator_type::padding: return "PADDING";
    case operator_type::space_to_depth: return "SPACE_TO_DEPTH";
    case operator_type::depth_to_space: return "DEPTH_TO_SPACE";
    case operator_type::slice1: return "SLICE1";
    case operator_type::depth_to_space1: return "DEPTH_TO_SPACE1";
    case operator_type::space_to_depth1: return "SPACE_TO_DEPTH1";
    case operator_type::padding1: return "PADDING1";
    case operator_type::element_wise_identity: return "ELEMENT_WISE_IDENTITY";
    case operator_type::slice_grad: return "SLICE_GRAD";
    case operator_type::tile: return "TILE";
    case operator_type::upsample_2d: return "UPSAMPLE_2D";
    case operator_type::join: return "JOIN";
    case operator_type::split: return "SPLIT";
    case operator_type::reverse_subsequences: return "REVERSE_SUBSEQUENCES";
    case operator_type::gather: return "GATHER";
    case operator_type::gather_elements: return "GATHER_ELEMENTS";
    case operator_type::gather_nd: return "GATHER_ND";
    case operator_type::gather_nd1: return "GATHER_ND1";
    case operator_type::scatter_elements: return "SCATTER_ELEMENTS";
    case operator_type::scatter_nd: return "SCATTER_ND";
    case operator_type::one_hot: return "ONE_HOT";
    }
    return "UNKNOWN";
}

/// "NEAREST_NEIGHBOR", "LINEAR".
constexpr std::string_view to_string(interpolation_mode mode) noexcept {
    switch (mode) {
    case interpolation_mode::nearest_neighbor: return "NEAREST_NEIGHBOR";
    case interpolation_mode::linear: return "LINEAR";
    }
    return "UNKNOWN";
}

/// "CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP".
constexpr std::string_view to_string(padding_mode mode) noexcept {
    switch (mode) {
    case padding_mode::constant: return "CONSTANT";
    case padding_mode::edge: return "EDGE";
    case padding_mode::reflection: return "REFLECTION";
    case padding_mode::symmetric: return "SYMMETRIC";
    case padding_mode::wrap: return "WRAP";
    }
    return "UNKNOWN";
}

/// "DEPTH_COLUMN_ROW", "COLUMN_ROW_DEPTH".
constexpr std::string_view to_string(depth_space_order order) noexcept {
    switch (order) {
    case depth_space_order::depth_column_row: return "DEPTH_COLUMN_ROW";
    case depth_space_order::column_row_depth: return "COLUMN_ROW_DEPTH";
    }
    return "UNKNOWN";
}

/// "NONE", "OWNED_BY_DML".
constexpr std::string_view to_string(tensor_flags flags) noexcept {
    switch (flags) {
    case tensor_flags::none: return "NONE";
    case tensor_flags::owned_by_dml: return "OWNED_BY_DML";
    }
    return "UNKNOWN";
}

/// Parses "SLICE1" or "DML_OPERATOR_SLICE1"; "SCATTER", DirectML's older name of SCATTER_ELEMENTS
/// (and the only one DxDispatch reads), too.
constexpr std::optional<operator_type> parse_operator_type(std::string_view text) noexcept {
    text = strip_prefix(text, "DML_OPERATOR_");
    if (text == "SCATTER") return operator_type::scatter_elements;
    for (operator_type t : all_operator_types)
        if (to_string(t) == text) return t;
    return std::nullopt;
}

/// Parses "LINEAR" or "DML_INTERPOLATION_MODE_LINEAR".
constexpr std::optional<interpolation_mode> parse_interpolation_mode(std::string_view text) noexcept {
    text = strip_prefix(text, "DML_INTERPOLATION_MODE_");
    for (std::uint32_t v = 0; v <= 1; ++v)
        if (to_string(static_cast<interpolation_mode>(v)) == text) return static_cast<interpolation_mode>(v);
    return std::nullopt;
}

/// Parses "REFLECTION" or "DML_PADDING_MODE_REFLECTION".
constexpr std::optional<padding_mode> parse_padding_mode(std::string_view text) noexcept {
    text = strip_prefix(text, "DML_PADDING_MODE_");
    for (std::uint32_t v = 0; v <= 4; ++v)
        if (to_string(static_cast<padding_mode>(v)) == text) return static_cast<padding_mode>(v);
    return std::nullopt;
}

/// Parses "COLUMN_ROW_DEPTH" or "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH".
constexpr std::optional<depth_space_order> parse_depth_space_order(std::string_view text) noexcept {
    text = strip_prefix(text, "DML_DEPTH_SPACE_ORDER_");
    for (std::uint32_t v = 0; v <= 1; ++v)
        if (to_string(static_cast<depth_space_order>(v)) == text) return static_cast<depth_space_order>(v);
    return std::nullopt;
}

/// The feature level that introduced an operator.
constexpr feature_level introduced_in(operator_type type) noexcept {
    switch (type) {
    case operator_type::slice1:
    case operator_type::depth_to_space1:
    case operator_type::space_to_depth1:
    case operator_type::reverse_subsequences:
    case operator_type::gather_elements:
    case operator_type::gather_nd:
    case operator_type::scatter_nd: return feature_level::fl_2_1;
    case operator_type::gather_nd1: return feature_level::fl_3_0;
    case operator_type::scatter_elements: // the header and the feature-level history; its page says 1_0
    case operator_type::one_hot: return feature_level::fl_2_0;
    case operator_type::padding1: return feature_level::fl_5_0;
    case operator_type::slice_grad: return feature_level::fl_3_0;
    default: return feature_level::fl_1_0;
    }
}

/// Smallest and largest DimensionCount DirectML accepts for the operator at `level`.
constexpr std::pair<std::uint32_t, std::uint32_t> dimension_count_range(operator_type type,
                                                                        feature_level level) noexcept {
    switch (type) {
    case operator_type::slice:
    case operator_type::slice1: return level >= feature_level::fl_3_0 ? std::pair{1u, 8u} : std::pair{4u, 5u};
    case operator_type::padding: return level >= feature_level::fl_3_1 ? std::pair{1u, 8u} : std::pair{4u, 5u};
    case operator_type::padding1: return {1u, 8u};
    case operator_type::element_wise_identity:
        return level >= feature_level::fl_3_0 ? std::pair{1u, 8u} : std::pair{4u, 5u};
    case operator_type::slice_grad: return level >= feature_level::fl_3_1 ? std::pair{1u, 8u} : std::pair{4u, 5u};
    case operator_type::tile: return level >= feature_level::fl_3_1 ? std::pair{1u, 8u} : std::pair{4u, 4u};
    case operator_type::upsample_2d: return {4u, 5u};
    case operator_type::join: // the op page's rows; the feature-level history says 8 at 3_1 (docs/operator-facts.md)
        return level >= feature_level::fl_4_1 ? std::pair{1u, 8u}
               : level >= feature_level::fl_3_0 ? std::pair{4u, 5u}
                                                : std::pair{4u, 4u};
    case operator_type::split: return level >= feature_level::fl_3_0 ? std::pair{1u, 8u} : std::pair{4u, 4u};
    case operator_type::reverse_subsequences:
        return level >= feature_level::fl_4_0 ? std::pair{1u, 8u}
               : level >= feature_level::fl_3_0 ? std::pair{4u, 5u}
                                                : std::pair{4u, 4u};
    case operator_type::gather:
    case operator_type::gather_elements:
    case operator_type::gather_nd:
    case operator_type::gather_nd1:
    case operator_type::scatter_elements:
    case operator_type::scatter_nd:
    case operator_type::one_hot: return level >= feature_level::fl_3_0 ? std::pair{1u, 8u} : std::pair{4u, 4u};
    default: return {4u, 4u}; // the four depth/space operators
    }
}

/// Whether DirectML's tensor-support table lists `type` for the operator at `level`.
constexpr bool supports_data_type(operator_type op, feature_level level, data_type type) noexcept {
    const bool is_64_bit = type == data_type::float64 || type == data_type::uint64 || type == data_type::int64;
    const bool is_float = type == data_type::float32 || type == data_type::float16;
    const bool is_8_bit = type == data_type::uint8 || type == data_type::int8;
    if (element_bits(type) < 8) return false; // UNKNOWN, UINT4, INT4, out of range
    switch (op) {
    case operator_type::slice:
        if (is_64_bit) return level >= feature_level::fl_4_1;
        return !is_8_bit || level >= feature_level::fl_2_1;
    case operator_type::slice1: return !is_64_bit || level >= feature_level::fl_4_1;
    case operator_type::join:
    case operator_type::split:
        if (is_64_bit) return level >= feature_level::fl_4_1;
        return !is_8_bit || level >= feature_level::fl_2_1;
    case operator_type::padding1: return true;
    case operator_type::element_wise_identity:
        if (is_64_bit) return level >= feature_level::fl_4_1;
        return is_float || level >= feature_level::fl_2_1;
    case operator_type::slice_grad: return !is_64_bit || level >= feature_level::fl_4_1; // from 3_0, its first level
    case operator_type::tile: // FLOAT64 too, which the page's 4_1 row omits: DirectML 1.15.4 accepts it
        if (is_64_bit) return level >= feature_level::fl_4_1;
        return is_float || level >= feature_level::fl_2_1;
    case operator_type::upsample_2d: return is_float;
    case operator_type::reverse_subsequences: // from 2_1, its first level, with the 8-bit types
        return !is_64_bit || level >= feature_level::fl_5_0;
    case operator_type::gather:
    case operator_type::gather_elements:
    case operator_type::gather_nd:
    case operator_type::gather_nd1:
    case operator_type::scatter_elements:
    case operator_type::scatter_nd:
    case operator_type::one_hot: return detail::indexed_supports_data_type(level, type);
    default: // PADDING and the depth/space operators
        if (is_64_bit) return level >= feature_level::fl_5_0;
        return is_float || level >= feature_level::fl_2_1;
    }
}

/// Whether DirectML's tensor-support table lists `type` for the operator's index tensor at `level`
/// (REVERSE_SUBSEQUENCES's SequenceLengthsTensor: UINT32, and UINT64 from 5_0; the gathers'
/// IndicesTensor, and the scatters' and ONE_HOT's: UINT32, and INT32, INT64, UINT64 from 3_0). False
/// for an operator without one.
constexpr bool supports_index_data_type(operator_type op, feature_level level, data_type type) noexcept {
    switch (op) {
    case operator_type::reverse_subsequences:
        return type == data_type::uint32 || (type == data_type::uint64 && level >= feature_level::fl_5_0);
    case operator_type::gather:
    case operator_type::gather_elements:
    case operator_type::gather_nd:
    case operator_type::gather_nd1:
    case operator_type::scatter_elements:
    case operator_type::scatter_nd:
    case operator_type::one_hot: return detail::indexed_supports_index_type(level, type);
    default: return false;
    }
}

namespace detail {

/// The index types an operator supports at a level, for messages: "UINT32, UINT64".
DMLREF_COLD DMLREF_FUNC std::string supported_index_types_text(operator_type op, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    std::string text;
    for (data_type t : movable_data_types)
        if (supports_index_data_type(op, level, t)) {
            if (!text.empty()) append_text(text, ", ");
            append_text(text, to_string(t));
        }
    return text;
}
#else
;
#endif

/// The types an operator supports at a level, for messages: "FLOAT32, FLOAT16".
DMLREF_COLD DMLREF_FUNC std::string supported_types_text(operator_type op, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    std::string text;
    for (data_type t : movable_data_types)
        if (supports_data_type(op, level, t)) {
            if (!text.empty()) append_text(text, ", ");
            append_text(text, to_string(t));
        }
    return text;
}
#else
;
#endif

/// A tensor desc's extents and element strides (its own, or packed) as a layout.
DMLREF_FUNC layout layout_of(const buffer_tensor_desc& desc) noexcept
#if DMLREF_DEFINE_FUNCS
{
    layout l;
    l.rank = desc.sizes.size() < max_plan_rank ? desc.sizes.size() : max_plan_rank;
    for (std::size_t i = 0; i < l.rank; ++i) {
        l.extents[i] = static_cast<std::ptrdiff_t>(desc.sizes[i]);
        if (desc.strides) l.strides[i] = i < desc.strides->size() ? static_cast<std::ptrdiff_t>((*desc.strides)[i]) : 0;
    }
    if (!desc.strides) // packed_strides(desc.sizes), without allocating it
        for_each_packed_stride(desc.sizes, [&](std::size_t i, std::uint32_t stride) {
            if (i < l.rank) l.strides[i] = static_cast<std::ptrdiff_t>(stride);
        });
    return l;
}
#else
;
#endif

/// One tensor desc's own rules (DML_BUFFER_TENSOR_DESC, the operator's support table, DECISIONS 6 and 10).
DMLREF_FUNC std::optional<std::string> check_tensor(std::string_view op, operator_type type, feature_level level,
                                               std::string_view field, const buffer_tensor_desc& t, bool is_output)
#if DMLREF_DEFINE_FUNCS
{
    const auto dt = static_cast<std::uint32_t>(t.data_type);
    if (t.data_type == data_type::unknown || element_bits(t.data_type) == 0)
        return detail::message("{}: {}.DataType is {}; it must be a DML_TENSOR_DATA_TYPE other than UNKNOWN (1 to 13)",
                               op, field, dt);
    if (!supports_data_type(type, level, t.data_type))
        return detail::message("{}: {}.DataType {} is not supported at feature level {} (supported: {})", op, field,
                               to_string(t.data_type), to_string(level), supported_types_text(type, level));
    const auto flags = static_cast<std::uint32_t>(t.flags);
    if ((flags & ~1u) != 0)
        return detail::message("{}: {}.Flags is {:#x}; the only flag is OWNED_BY_DML (0x1)", op, field, flags);
    if (is_output && t.flags == tensor_flags::owned_by_dml)
        return detail::message("{}: {}.Flags is OWNED_BY_DML, which only input tensors may use", op, field);
    const auto [low, high] = dimension_count_range(type, level);
    const std::size_t dims = t.sizes.size();
    if (dims < low || dims > high)
        return detail::message("{}: {} has {} dimensions (DimensionCount); {} takes {} at feature level {}", op, field,
                               dims, op,
                               low == high ? detail::message("{}", low) : detail::message("{} to {}", low, high),
                               to_string(level));
    for (std::size_t i = 0; i < dims; ++i)
        if (t.sizes[i] == 0)
            return detail::message("{}: {}.Sizes[{}] is 0; a size of zero is invalid in DirectML", op, field, i);
    if (t.strides && t.strides->size() != dims)
        return detail::message("{}: {}.Strides has {} entries; {}.Sizes has {}", op, field, t.strides->size(), field,
                               dims);
    if (const std::uint64_t count = element_count(t.sizes); count > max_element_count)
        return detail::message("{}: {}.Sizes {} hold {} elements; DirectML allows at most {} (2^32 - 1)", op, field,
                               extents_text(t.sizes),
                               count == UINT64_MAX ? std::string("more than 2^64") : detail::message("{}", count),
                               max_element_count);
    // DMLCalcBufferTensorSize saturates at 2^64 - 1, which a TotalTensorSizeInBytes of 2^64 - 1
    // matched; and the engine addresses bytes in ptrdiff_t. Only explicit strides get this far
    // (packed tensors under the element cap need at most 2^35 bytes).
    if (const std::uint64_t needed = calc_buffer_tensor_size(t);
        needed > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()))
        return detail::message("{}: {}.Strides {} with {}.Sizes {} reach {} bytes (DMLCalcBufferTensorSize); dmlref "
                               "addresses at most {} (2^63 - 1)",
                               op, field, t.strides ? extents_text(*t.strides) : std::string("(packed)"), field,
                               extents_text(t.sizes),
                               needed == std::numeric_limits<std::uint64_t>::max()
                                   ? std::string("2^64 or more (it does not fit in 64 bits)")
                                   : detail::message("{}", needed),
                               std::numeric_limits<std::ptrdiff_t>::max());
    if (const std::uint64_t needed = calc_buffer_tensor_size(t); t.total_tensor_size_in_bytes < needed)
        return detail::message("{}: {}.TotalTensorSizeInBytes = {} is less than DMLCalcBufferTensorSize = {}", op, field,
                               t.total_tensor_size_in_bytes, needed);
    // DirectML 1.15.4 refuses a buffer of more than 2^32 - 1 elements' worth of bytes, whatever
    // the tensor's strides reach (docs/directml.md).
    if (const std::uint64_t most = max_total_tensor_size_in_bytes(element_size(t.data_type));
        t.total_tensor_size_in_bytes > most)
        return detail::message("{}: {}.TotalTensorSizeInBytes = {} is more than (2^32 - 1) elements of {} bytes = {}; "
                               "DirectML refuses larger buffer tensors",
                               op, field, t.total_tensor_size_in_bytes, element_size(t.data_type), most);
    // DirectML 1.15.4 refuses any alignment below DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT (16), though
    // its documentation asks only for the element size: docs/directml.md.
    if (const std::uint32_t a = t.guaranteed_base_offset_alignment;
        a != 0 && (!std::has_single_bit(a) || a < min_guaranteed_base_offset_alignment))
        return detail::message("{}: {}.GuaranteedBaseOffsetAlignment = {} must be 0 or a power of two no smaller than "
                               "{} (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)",
                               op, field, a, min_guaranteed_base_offset_alignment);
    return check_layout(op, field, layout_of(t), is_output);
}
#else
;
#endif

/// Each of the op's arrays, named with its length, must have DimensionCount entries.
DMLREF_FUNC std::optional<std::string> check_lengths(std::string_view op, std::size_t dims,
                                                std::initializer_list<std::pair<std::string_view, std::size_t>> arrays)
#if DMLREF_DEFINE_FUNCS
{
    for (const auto& [field, size] : arrays)
        if (size != dims)
            return detail::message("{}: {} has {} entries; DimensionCount (the tensors' dimension count) is {}", op,
                                   field, size, dims);
    return std::nullopt;
}
#else
;
#endif

template <class Array> std::array<std::ptrdiff_t, max_plan_rank> signed_array(const Array& values) noexcept {
    std::array<std::ptrdiff_t, max_plan_rank> out{};
    for (std::size_t i = 0; i < values.size() && i < max_plan_rank; ++i) out[i] = static_cast<std::ptrdiff_t>(values[i]);
    return out;
}

/// SLICE v0's rules, in its own field names.
DMLREF_FUNC std::optional<std::string> check_slice_v0(const slice_desc& d, const layout& in, const layout& out)
#if DMLREF_DEFINE_FUNCS
{
    for (std::size_t i = 0; i < in.rank; ++i) {
        if (d.strides[i] == 0)
            return detail::message("SLICE: Strides[{}] is 0; dmlref rejects zero strides (DirectML defines none)", i);
        if (d.strides[i] > max_slice_stride)
            return detail::message("SLICE: Strides[{}] = {} is more than {} (2^31 - 1); DirectML refuses larger strides",
                                   i, d.strides[i], max_slice_stride);
        if (d.sizes[i] != static_cast<std::uint64_t>(out.extents[i]))
            return detail::message("SLICE: Sizes[{}] = {} differs from OutputTensor.Sizes[{}] = {}; they must match", i,
                                   d.sizes[i], i, out.extents[i]);
        const std::uint64_t last = saturating_mul_add(d.sizes[i] - 1u, d.strides[i], d.offsets[i]);
        if (last >= static_cast<std::uint64_t>(in.extents[i]))
            return detail::message("SLICE: Offsets[{}] + (Sizes[{}] - 1) * Strides[{}] = {} + ({} - 1) * {} = {} is outside "
                                   "InputTensor.Sizes[{}] = {} (out-of-bounds reads are not permitted)",
                                   i, i, i, d.offsets[i], d.sizes[i], d.strides[i], last, i, in.extents[i]);
    }
    return std::nullopt;
}
#else
;
#endif

/// SLICE v0 as SLICE1: window size (Sizes - 1) * Strides + 1.
DMLREF_FUNC std::array<std::ptrdiff_t, max_plan_rank> slice_v0_window(const slice_desc& d) noexcept
#if DMLREF_DEFINE_FUNCS
{
    std::array<std::ptrdiff_t, max_plan_rank> window{};
    for (std::size_t i = 0; i < d.sizes.size() && i < max_plan_rank; ++i)
        window[i] = (static_cast<std::ptrdiff_t>(d.sizes[i]) - 1) * static_cast<std::ptrdiff_t>(d.strides[i]) + 1;
    return window;
}
#else
;
#endif

template <class Desc> constexpr bool is_depth_space_v =
    std::is_same_v<Desc, depth_to_space_desc> || std::is_same_v<Desc, depth_to_space1_desc> ||
    std::is_same_v<Desc, space_to_depth_desc> || std::is_same_v<Desc, space_to_depth1_desc>;

template <class Desc> constexpr depth_space_direction direction_of() noexcept {
    return std::is_same_v<Desc, depth_to_space_desc> || std::is_same_v<Desc, depth_to_space1_desc>
               ? depth_space_direction::depth_to_space
               : depth_space_direction::space_to_depth;
}

template <class Desc> constexpr depth_space_order order_of(const Desc& d) noexcept {
    if constexpr (requires { d.order; }) return d.order;
    else return depth_space_order::depth_column_row;
}

/// Whether `level` is one of DirectML's DML_FEATURE_LEVEL values: a caller can cast any number to
/// the enum, and 0x10000 would compare above every level.
constexpr bool is_feature_level(feature_level level) noexcept { return to_string(level) != std::string_view("unknown"); }

/// The rules every desc shares: the level is DirectML's, the operator exists at it, each tensor
/// desc is valid, and the two agree on data type and dimension count.
DMLREF_FUNC std::optional<std::string> check_tensors(operator_type type, feature_level level, const buffer_tensor_desc& input,
                                                const buffer_tensor_desc& output,
                                                std::string_view input_field = "InputTensor",
                                                std::string_view output_field = "OutputTensor")
#if DMLREF_DEFINE_FUNCS
{
    const std::string_view op = to_string(type);
    if (!is_feature_level(level))
        return detail::message("{}: feature level {:#x} is not one of DirectML's DML_FEATURE_LEVEL values (1_0 = "
                               "0x1000 to 6_4 = 0x6400)",
                               op, static_cast<std::uint32_t>(level));
    if (level < introduced_in(type))
        return detail::message("{}: not available at feature level {}; it was introduced in feature level {}", op,
                               to_string(level), to_string(introduced_in(type)));
    if (auto m = check_tensor(op, type, level, input_field, input, false)) return m;
    if (auto m = check_tensor(op, type, level, output_field, output, true)) return m;
    if (output.data_type != input.data_type)
        return detail::message("{}: {}.DataType {} differs from {}.DataType {}; they must match", op, output_field,
                               to_string(output.data_type), input_field, to_string(input.data_type));
    if (output.sizes.size() != input.sizes.size())
        return detail::message("{}: {} has {} dimensions; {} has {}; they must match", op, output_field,
                               output.sizes.size(), input_field, input.sizes.size());
    return std::nullopt;
}
#else
;
#endif

/// The four depth/space descs' rules (the older two pass DEPTH_COLUMN_ROW as their order).
DMLREF_FUNC std::optional<std::string> check_depth_space_desc(operator_type type, depth_space_direction direction,
                                                         feature_level level, const buffer_tensor_desc& input,
                                                         const buffer_tensor_desc& output, std::uint32_t block_size,
                                                         depth_space_order order)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(type, level, input, output)) return m;
    return check_depth_space(to_string(type), direction, layout_of(input), layout_of(output), block_size, order);
}
#else
;
#endif

DMLREF_FUNC std::optional<std::string> check_slice1_desc(const slice1_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(slice1_desc::type, level, d.input_tensor, d.output_tensor)) return m;
    const std::string_view op = to_string(slice1_desc::type);
    const std::size_t dims = d.input_tensor.sizes.size();
    if (auto m = check_lengths(op, dims,
                               {{"InputWindowOffsets", d.input_window_offsets.size()},
                                {"InputWindowSizes", d.input_window_sizes.size()},
                                {"InputWindowStrides", d.input_window_strides.size()}}))
        return m;
    const auto offsets = signed_array(d.input_window_offsets), sizes = signed_array(d.input_window_sizes),
               strides = signed_array(d.input_window_strides);
    return check_slice1(op, layout_of(d.input_tensor), layout_of(d.output_tensor), std::span(offsets).first(dims),
                        std::span(sizes).first(dims), std::span(strides).first(dims));
}
#else
;
#endif

DMLREF_FUNC std::optional<std::string> check_slice_desc(const slice_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(slice_desc::type, level, d.input_tensor, d.output_tensor)) return m;
    const std::string_view op = to_string(slice_desc::type);
    const std::size_t dims = d.input_tensor.sizes.size();
    if (auto m = check_lengths(op, dims,
                               {{"Offsets", d.offsets.size()}, {"Sizes", d.sizes.size()}, {"Strides", d.strides.size()}}))
        return m;
    return check_slice_v0(d, layout_of(d.input_tensor), layout_of(d.output_tensor));
}
#else
;
#endif

/// PADDING's and PADDING1's rules; `value_type` is PADDING1's PaddingValueDataType (PADDING has none).
DMLREF_FUNC std::optional<std::string> check_padding_desc(operator_type type, feature_level level,
                                                     const buffer_tensor_desc& input, const buffer_tensor_desc& output,
                                                     padding_mode padding_mode, std::optional<data_type> value_type,
                                                     const std::vector<std::uint32_t>& start_padding,
                                                     const std::vector<std::uint32_t>& end_padding)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(type, level, input, output)) return m;
    const std::string_view op = to_string(type);
    const std::size_t dims = input.sizes.size();
    const auto mode = static_cast<std::uint32_t>(padding_mode);
    if (mode > 4)
        return detail::message("{}: PaddingMode is {}; it must be CONSTANT (0), EDGE (1), REFLECTION (2), "
                               "SYMMETRIC (3) or WRAP (4)",
                               op, mode);
    if (padding_mode == padding_mode::symmetric && level < feature_level::fl_3_0)
        return detail::message("{}: PaddingMode SYMMETRIC needs feature level 3_0; this is {}", op, to_string(level));
    if (padding_mode == padding_mode::wrap && level < feature_level::fl_6_4)
        return detail::message("{}: PaddingMode WRAP needs feature level 6_4; this is {}", op, to_string(level));
    if (value_type && *value_type != output.data_type)
        return detail::message("{}: PaddingValueDataType {} differs from OutputTensor.DataType {}; they must match", op,
                               to_string(*value_type), to_string(output.data_type));
    if (auto m = check_lengths(op, dims, {{"StartPadding", start_padding.size()}, {"EndPadding", end_padding.size()}}))
        return m;
    const auto start = signed_array(start_padding), end = signed_array(end_padding);
    return check_padding(op, layout_of(input), layout_of(output), padding_mode, std::span(start).first(dims),
                         std::span(end).first(dims));
}
#else
;
#endif

/// ELEMENT_WISE_IDENTITY's rules: DirectML's, then dmlref's own refusal of ScaleBias.
DMLREF_FUNC std::optional<std::string> check_identity_desc(const element_wise_identity_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(element_wise_identity_desc::type, level, d.input_tensor, d.output_tensor)) return m;
    const std::string_view op = to_string(element_wise_identity_desc::type);
    if (auto m = check_identity(op, layout_of(d.input_tensor), layout_of(d.output_tensor))) return m;
    if (d.scale_bias)
        return detail::message("{}: ScaleBias is set (Out = In * Scale + Bias); dmlref moves data and does not compute "
                               "scale/bias: pass no ScaleBias (DirectML would accept this desc)",
                               op);
    return std::nullopt;
}
#else
;
#endif

/// SLICE_GRAD's rules: DirectML's tensor rules under its tensor names, then SLICE1's window rules
/// with the output gradient as the tensor the window lies in.
DMLREF_FUNC std::optional<std::string> check_slice_grad_desc(const slice_grad_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(slice_grad_desc::type, level, d.input_tensor, d.output_tensor, "InputGradientTensor",
                               "OutputGradientTensor"))
        return m;
    const std::string_view op = to_string(slice_grad_desc::type);
    const std::size_t dims = d.input_tensor.sizes.size();
    if (auto m = check_lengths(op, dims,
                               {{"InputWindowOffsets", d.input_window_offsets.size()},
                                {"InputWindowSizes", d.input_window_sizes.size()},
                                {"InputWindowStrides", d.input_window_strides.size()}}))
        return m;
    const auto offsets = signed_array(d.input_window_offsets), sizes = signed_array(d.input_window_sizes),
               strides = signed_array(d.input_window_strides);
    return check_slice_grad(op, layout_of(d.input_tensor), layout_of(d.output_tensor), std::span(offsets).first(dims),
                            std::span(sizes).first(dims), std::span(strides).first(dims));
}
#else
;
#endif

/// TILE's rules: DirectML's (RepeatsCount is the tensors' DimensionCount), then the layouts'.
DMLREF_FUNC std::optional<std::string> check_tile_desc(const tile_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(tile_desc::type, level, d.input_tensor, d.output_tensor)) return m;
    const std::string_view op = to_string(tile_desc::type);
    const std::size_t dims = d.input_tensor.sizes.size();
    if (d.repeats.size() != dims)
        return detail::message("{}: RepeatsCount is {}; it must equal InputTensor's DimensionCount {}", op,
                               d.repeats.size(), dims);
    const auto repeats = signed_array(d.repeats);
    return check_tile(op, layout_of(d.input_tensor), layout_of(d.output_tensor), std::span(repeats).first(dims));
}
#else
;
#endif

/// UPSAMPLE_2D's rules: DirectML's, then dmlref's own refusal of LINEAR interpolation.
DMLREF_FUNC std::optional<std::string> check_upsample_desc(const upsample_2d_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = check_tensors(upsample_2d_desc::type, level, d.input_tensor, d.output_tensor)) return m;
    const std::string_view op = to_string(upsample_2d_desc::type);
    const auto mode = static_cast<std::uint32_t>(d.interpolation_mode);
    if (mode > static_cast<std::uint32_t>(interpolation_mode::linear))
        return detail::message("{}: InterpolationMode is {}; it must be NEAREST_NEIGHBOR (0) or LINEAR (1)", op, mode);
    if (auto m = check_upsample(op, layout_of(d.input_tensor), layout_of(d.output_tensor), d.scale_size.height,
                                d.scale_size.width))
        return m;
    if (d.interpolation_mode == interpolation_mode::linear)
        return detail::message("{}: InterpolationMode is LINEAR (bilinear weighted averages); dmlref moves data and does "
                               "not interpolate: use NEAREST_NEIGHBOR (DirectML would accept this desc)",
                               op);
    return std::nullopt;
}
#else
;
#endif

/// The most elements DirectML's JOIN takes in one input tensor (measured, docs/directml.md).
inline constexpr std::uint64_t max_join_input_elements = 0x7fff'ffffu;

/// JOIN's and SPLIT's rules: the level, each tensor's own rules, one DataType throughout, JOIN's
/// inputs of at most max_join_input_elements, then check_parts on the layouts (at least one
/// part, Axis, the sizes). `parts` are JOIN's inputs or SPLIT's outputs, `whole` the other side.
DMLREF_FUNC std::optional<std::string> check_parts_desc(operator_type type, feature_level level,
                                                   std::span<const buffer_tensor_desc> parts,
                                                   const buffer_tensor_desc& whole, std::uint32_t axis,
                                                   bool parts_are_outputs)
#if DMLREF_DEFINE_FUNCS
{
    const std::string_view op = to_string(type);
    const std::string_view parts_field = parts_are_outputs ? "OutputTensors" : "InputTensors";
    const std::string_view whole_field = parts_are_outputs ? "InputTensor" : "OutputTensor";
    const std::string_view count_field = parts_are_outputs ? "OutputCount" : "InputCount";
    if (!is_feature_level(level))
        return detail::message("{}: feature level {:#x} is not one of DirectML's DML_FEATURE_LEVEL values (1_0 = "
                               "0x1000 to 6_4 = 0x6400)",
                               op, static_cast<std::uint32_t>(level));
    if (parts.empty()) return detail::message("{}: {} is 0; it must be at least 1", op, count_field);
    if (auto m = check_tensor(op, type, level, whole_field, whole, !parts_are_outputs)) return m;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const std::string field = part_field(parts_field, k);
        if (auto m = check_tensor(op, type, level, field, parts[k], parts_are_outputs)) return m;
        if (parts[k].data_type != whole.data_type)
            return detail::message("{}: {}.DataType {} differs from {}.DataType {}; they must match", op, field,
                                   to_string(parts[k].data_type), whole_field, to_string(whole.data_type));
        // Measured (docs/directml.md): DirectML 1.15.4 and 1.14.1 refuse a JOIN input of 2^31
        // elements or more, whatever its strides (broadcast ones too) and type; the output may
        // hold up to 2^32 - 1, and SPLIT's tensors too.
        if (const std::uint64_t count = element_count(parts[k].sizes); !parts_are_outputs && count > max_join_input_elements)
            return detail::message("{}: {}.Sizes {} hold {} elements; DirectML's JOIN takes at most {} (2^31 - 1) in each "
                                   "input",
                                   op, field, extents_text(parts[k].sizes), count, max_join_input_elements);
    }
    std::vector<layout> layouts(parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k) layouts[k] = layout_of(parts[k]);
    return check_parts(op, layouts, layout_of(whole), axis, parts_are_outputs);
}
#else
;
#endif

/// The rules of a desc's index tensor (`field`): its DataType one of the operator's index types at
/// `level`, then a tensor desc's own rules. Its values are data: nothing here reads them.
DMLREF_FUNC std::optional<std::string> check_index_tensor(std::string_view op, operator_type type, feature_level level,
                                                     std::string_view field, const buffer_tensor_desc& t)
#if DMLREF_DEFINE_FUNCS
{
    if (t.data_type == data_type::unknown || element_bits(t.data_type) == 0)
        return detail::message("{}: {}.DataType is {}; it must be a DML_TENSOR_DATA_TYPE other than UNKNOWN (1 to 13)",
                               op, field, static_cast<std::uint32_t>(t.data_type));
    if (!supports_index_data_type(type, level, t.data_type))
        return detail::message("{}: {}.DataType {} is not supported at feature level {} (supported: {})", op, field,
                               to_string(t.data_type), to_string(level), supported_index_types_text(type, level));
    return check_tensor(op, type, level, field, t, false);
}
#else
;
#endif

/// REVERSE_SUBSEQUENCES's rules: the level, each tensor's own rules (SequenceLengthsTensor with the
/// lengths' types), the output's DataType the input's, then check_reverse_subsequences on the
/// layouts (Axis, dimension counts, the lengths' sizes and the output's).
DMLREF_FUNC std::optional<std::string> check_reverse_subsequences_desc(const reverse_subsequences_desc& d, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    constexpr operator_type type = reverse_subsequences_desc::type;
    const std::string_view op = to_string(type);
    if (auto m = check_tensors(type, level, d.input_tensor, d.output_tensor)) return m;
    if (auto m = check_index_tensor(op, type, level, "SequenceLengthsTensor", d.sequence_lengths_tensor)) return m;
    return check_reverse_subsequences(op, layout_of(d.input_tensor), layout_of(d.sequence_lengths_tensor),
                                      layout_of(d.output_tensor), d.axis);
}
#else
;
#endif

/// Every rule of one desc at one level, without buffers. The rules live in the functions above,
/// which are not templates, so that the desc types share their code.
template <class Desc> std::optional<std::string> check_desc(const Desc& d, feature_level level) {
    if constexpr (is_depth_space_v<Desc>) {
        return check_depth_space_desc(Desc::type, direction_of<Desc>(), level, d.input_tensor, d.output_tensor,
                                      d.block_size, order_of(d));
    } else if constexpr (std::is_same_v<Desc, slice1_desc>) {
        return check_slice1_desc(d, level);
    } else if constexpr (std::is_same_v<Desc, slice_desc>) {
        return check_slice_desc(d, level);
    } else if constexpr (std::is_same_v<Desc, element_wise_identity_desc>) {
        return check_identity_desc(d, level);
    } else if constexpr (std::is_same_v<Desc, slice_grad_desc>) {
        return check_slice_grad_desc(d, level);
    } else if constexpr (std::is_same_v<Desc, tile_desc>) {
        return check_tile_desc(d, level);
    } else if constexpr (std::is_same_v<Desc, upsample_2d_desc>) {
        return check_upsample_desc(d, level);
    } else if constexpr (std::is_same_v<Desc, join_desc>) {
        return check_parts_desc(Desc::type, level, d.input_tensors, d.output_tensor, d.axis, false);
    } else if constexpr (std::is_same_v<Desc, split_desc>) {
        return check_parts_desc(Desc::type, level, d.output_tensors, d.input_tensor, d.axis, true);
    } else if constexpr (std::is_same_v<Desc, reverse_subsequences_desc>) {
        return check_reverse_subsequences_desc(d, level);
    } else if constexpr (std::is_same_v<Desc, gather_desc>) { // ops/gather.hpp's rules: never read the indices
        return check_gather(to_string(Desc::type), d, level);
    } else if constexpr (std::is_same_v<Desc, gather_elements_desc>) {
        return check_gather_elements(to_string(Desc::type), d, level);
    } else if constexpr (std::is_same_v<Desc, gather_nd_desc>) {
        return check_gather_nd(to_string(Desc::type), d, level);
    } else if constexpr (std::is_same_v<Desc, gather_nd1_desc>) {
        return check_gather_nd1(to_string(Desc::type), d, level);
    } else if constexpr (std::is_same_v<Desc, scatter_elements_desc>) { // ops/scatter.hpp's and ops/one_hot.hpp's rules
        return check_scatter_elements(to_string(Desc::type), d, level);
    } else if constexpr (std::is_same_v<Desc, scatter_nd_desc>) {
        return check_scatter_nd(to_string(Desc::type), d, level);
    } else if constexpr (std::is_same_v<Desc, one_hot_desc>) {
        return check_one_hot(to_string(Desc::type), d, level);
    } else if constexpr (std::is_same_v<Desc, padding1_desc>) {
        return check_padding_desc(Desc::type, level, d.input_tensor, d.output_tensor, d.padding_mode,
                                  d.padding_value_data_type, d.start_padding, d.end_padding);
    } else {
        return check_padding_desc(Desc::type, level, d.input_tensor, d.output_tensor, d.padding_mode, std::nullopt,
                                  d.start_padding, d.end_padding);
    }
}

/// PADDING1's value in the tensor's type, as DirectML 1.15.4 reads DML_SCALAR_UNION: 32- and 64-bit
/// types take the union's first 4 or 8 bytes; 8- and 16-bit types (FLOAT16's bits included) take
/// its first 4 bytes as an unsigned 32-bit number and clamp it to the type's width (all ones when
/// it does not fit), so bytes past the member count. A union set through its member, the rest
/// zero, gives the member's value (DECISIONS 2; docs/directml.md).
DMLREF_FUNC std::array<std::byte, 8> padding1_value(data_type type, const scalar_union& value) noexcept
#if DMLREF_DEFINE_FUNCS
{
    std::array<std::byte, 8> bytes{};
    const std::size_t width = element_size(type);
    if (width >= 4) {
        std::memcpy(bytes.data(), value.bytes.data(), 8);
        return bytes;
    }
    const std::uint32_t word = value.as<std::uint32_t>(), most = width == 1 ? 0xffu : 0xffffu;
    const std::uint32_t clamped = word < most ? word : most;
    std::memcpy(bytes.data(), &clamped, 4); // little-endian: the low `width` bytes are the element
    return bytes;
}
#else
;
#endif

/// DECISIONS 3: PADDING's FLOAT value in the tensor's type. Integers truncate toward zero and
/// saturate, NaN becomes 0; FLOAT16 rounds to nearest even; FLOAT32 keeps its bits; FLOAT64 is exact.
DMLREF_FUNC std::array<std::byte, 8> padding_v0_value(data_type type, float value) noexcept
#if DMLREF_DEFINE_FUNCS
{
    std::array<std::byte, 8> bytes{};
    auto put = [&](auto v) { std::memcpy(bytes.data(), &v, sizeof(v)); };
    auto to_int = [&](auto zero) {
        using I = decltype(zero);
        if (value != value) return I{0}; // NaN
        // Past a bound truncation cannot bring it back inside, and inside the cast truncates.
        const auto t = static_cast<double>(value);
        if (t <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
        if (t >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
        return static_cast<I>(t);
    };
    switch (type) {
    case data_type::float32: put(value); break;
    case data_type::float16: put(half_bits_from_double(static_cast<double>(value))); break;
    case data_type::float64: put(static_cast<double>(value)); break;
    case data_type::uint8: put(to_int(std::uint8_t{})); break;
    case data_type::int8: put(to_int(std::int8_t{})); break;
    case data_type::uint16: put(to_int(std::uint16_t{})); break;
    case data_type::int16: put(to_int(std::int16_t{})); break;
    case data_type::uint32: put(to_int(std::uint32_t{})); break;
    case data_type::int32: put(to_int(std::int32_t{})); break;
    case data_type::uint64: put(to_int(std::uint64_t{})); break;
    case data_type::int64: put(to_int(std::int64_t{})); break;
    default: break;
    }
    return bytes;
}
#else
;
#endif

/// The copy plan of a valid desc whose two tensors lie as `in` and `out` say (the desc's own
/// layouts, or those of arrays of its Sizes laid out otherwise: the Python module's numpy arrays);
/// pointers and width are left for the caller, the fill value set.
template <class Desc>
    requires is_single_tensor_desc_v<Desc>
copy_plan plan_desc(const Desc& d, const layout& in, const layout& out, std::vector<std::ptrdiff_t>& tables) {
    const std::size_t dims = in.rank;
    if constexpr (is_depth_space_v<Desc>) {
        return plan_depth_space(direction_of<Desc>(), in, out, d.block_size, order_of(d));
    } else if constexpr (std::is_same_v<Desc, slice1_desc>) {
        const auto offsets = signed_array(d.input_window_offsets), sizes = signed_array(d.input_window_sizes),
                   strides = signed_array(d.input_window_strides);
        return plan_slice1(in, out, std::span(offsets).first(dims), std::span(sizes).first(dims),
                           std::span(strides).first(dims));
    } else if constexpr (std::is_same_v<Desc, element_wise_identity_desc>) {
        (void)dims;
        (void)tables;
        return plan_identity(in, out);
    } else if constexpr (std::is_same_v<Desc, slice_grad_desc>) {
        (void)tables;
        const auto offsets = signed_array(d.input_window_offsets), sizes = signed_array(d.input_window_sizes),
                   strides = signed_array(d.input_window_strides);
        return plan_slice_grad(in, out, std::span(offsets).first(dims), std::span(sizes).first(dims),
                               std::span(strides).first(dims)); // fill: 0, all bits clear
    } else if constexpr (std::is_same_v<Desc, tile_desc>) {
        (void)dims;
        return plan_tile(in, out, tables);
    } else if constexpr (std::is_same_v<Desc, upsample_2d_desc>) {
        (void)dims;
        (void)tables;
        return plan_upsample(in, out);
    } else if constexpr (std::is_same_v<Desc, slice_desc>) {
        const auto offsets = signed_array(d.offsets), window = slice_v0_window(d), strides = signed_array(d.strides);
        return plan_slice1(in, out, std::span(offsets).first(dims), std::span(window).first(dims),
                           std::span(strides).first(dims));
    } else {
        const auto start = signed_array(d.start_padding), end = signed_array(d.end_padding);
        copy_plan plan = plan_padding(in, out, d.padding_mode, std::span(start).first(dims),
                                      std::span(end).first(dims), tables);
        if constexpr (std::is_same_v<Desc, padding_desc>) {
            plan.fill = padding_v0_value(d.output_tensor.data_type, d.padding_value);
        } else {
            plan.fill = padding1_value(d.output_tensor.data_type, d.padding_value);
        }
        return plan;
    }
}

/// The copy plan of a valid desc over its own layouts (JOIN and SPLIT have one plan per part: run_parts).
template <class Desc>
    requires is_single_tensor_desc_v<Desc>
copy_plan plan_desc(const Desc& d, std::vector<std::ptrdiff_t>& tables) {
    return plan_desc(d, layout_of(d.input_tensor), layout_of(d.output_tensor), tables);
}

/// The buffer rules: each buffer holds its TotalTensorSizeInBytes, honours the guaranteed
/// alignment, and the two do not overlap (DECISIONS 7).
DMLREF_FUNC std::optional<std::string> check_buffers(std::string_view op, const buffer_tensor_desc& in_desc,
                                                const buffer_tensor_desc& out_desc, std::span<const std::byte> input,
                                                std::span<const std::byte> output,
                                                std::string_view input_field = "InputTensor",
                                                std::string_view output_field = "OutputTensor")
#if DMLREF_DEFINE_FUNCS
{
    const std::pair<std::string_view, std::pair<const buffer_tensor_desc*, std::span<const std::byte>>> bound[] = {
        {input_field, {&in_desc, input}}, {output_field, {&out_desc, output}}};
    for (const auto& [field, binding] : bound) {
        const auto& [desc, buffer] = binding;
        if (buffer.size() < desc->total_tensor_size_in_bytes)
            return detail::message("{}: the buffer bound to {} has {} bytes; {}.TotalTensorSizeInBytes is {}", op, field,
                                   buffer.size(), field, desc->total_tensor_size_in_bytes);
        const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
        if (const std::uint32_t a = desc->guaranteed_base_offset_alignment; a != 0 && address % a != 0)
            return detail::message("{}: the buffer bound to {} starts at {:#x}, which is not a multiple of "
                                   "{}.GuaranteedBaseOffsetAlignment = {}",
                                   op, field, address, field, a);
    }
    const auto in_first = reinterpret_cast<std::uintptr_t>(input.data());
    const auto out_first = reinterpret_cast<std::uintptr_t>(output.data());
    if (!input.empty() && !output.empty() && in_first < out_first + output.size() && out_first < in_first + input.size())
        return detail::message("{}: the input buffer [{:#x}, +{}) and the output buffer [{:#x}, +{}) overlap; dmlref does "
                               "not run in place",
                               op, in_first, input.size(), out_first, output.size());
    return std::nullopt;
}
#else
;
#endif

/// The buffer rules over every binding of a desc: one buffer per tensor, each holding its
/// TotalTensorSizeInBytes at the guaranteed alignment; no output buffer overlaps an input buffer or
/// another output buffer (input buffers may share memory: they are only read).
DMLREF_FUNC std::optional<std::string> check_bindings(std::string_view op, const std::vector<bound_tensor>& in_tensors,
                                                 const std::vector<bound_tensor>& out_tensors,
                                                 std::span<const std::span<const std::byte>> inputs,
                                                 std::span<const std::span<std::byte>> outputs)
#if DMLREF_DEFINE_FUNCS
{
    if (inputs.size() != in_tensors.size())
        return detail::message("{}: {} input buffers for {} input tensors; bind one buffer to each", op, inputs.size(),
                               in_tensors.size());
    if (outputs.size() != out_tensors.size())
        return detail::message("{}: {} output buffers for {} output tensors; bind one buffer to each", op,
                               outputs.size(), out_tensors.size());
    std::vector<std::pair<const bound_tensor*, std::span<const std::byte>>> bound;
    for (std::size_t k = 0; k < inputs.size(); ++k) bound.push_back({&in_tensors[k], inputs[k]});
    for (std::size_t k = 0; k < outputs.size(); ++k) bound.push_back({&out_tensors[k], outputs[k]});
    for (const auto& [t, buffer] : bound) {
        const std::string& field = t->field;
        if (buffer.size() < t->desc().total_tensor_size_in_bytes)
            return detail::message("{}: the buffer bound to {} has {} bytes; {}.TotalTensorSizeInBytes is {}", op, field,
                                   buffer.size(), field, t->desc().total_tensor_size_in_bytes);
        const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
        if (const std::uint32_t a = t->desc().guaranteed_base_offset_alignment; a != 0 && address % a != 0)
            return detail::message("{}: the buffer bound to {} starts at {:#x}, which is not a multiple of "
                                   "{}.GuaranteedBaseOffsetAlignment = {}",
                                   op, field, address, field, a);
    }
    for (std::size_t o = inputs.size(); o < bound.size(); ++o) // each output against everything before it
        for (std::size_t k = 0; k < o; ++k) {
            const auto a = bound[k].second, b = bound[o].second;
            const auto a_first = reinterpret_cast<std::uintptr_t>(a.data()), b_first = reinterpret_cast<std::uintptr_t>(b.data());
            if (!a.empty() && !b.empty() && a_first < b_first + b.size() && b_first < a_first + a.size())
                return detail::message("{}: the buffer bound to {} [{:#x}, +{}) and the buffer bound to {} [{:#x}, +{}) "
                                       "overlap; dmlref does not run in place",
                                       op, bound[k].first->field, a_first, a.size(), bound[o].first->field, b_first,
                                       b.size());
        }
    return std::nullopt;
}
#else
;
#endif

} // namespace detail

/// Whether DirectML at `level` accepts `desc`: nullopt when it does, else the reason (the message
/// execute() would throw). Never reads tensor data.
DMLREF_FUNC std::optional<std::string> validate(const operator_desc& desc, feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    return std::visit([&](const auto& d) { return detail::check_desc(d, level); }, desc);
}
#else
;
#endif

/// validate() plus the rules on the buffers that would be bound: sizes, alignment, no overlap.
DMLREF_FUNC std::optional<std::string> validate(const operator_desc& desc, std::span<const std::byte> input,
                                                std::span<const std::byte> output,
                                                feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    return std::visit(
        [&](const auto& d) -> std::optional<std::string> {
            if (auto m = detail::check_desc(d, level)) return m;
            using desc_t = std::remove_cvref_t<decltype(d)>;
            if constexpr (!is_single_tensor_desc_v<desc_t>) {
                const std::span<std::byte> out(const_cast<std::byte*>(output.data()), output.size()); // only compared
                return detail::check_bindings(to_string(d.type), inputs_of(d), outputs_of(d),
                                              std::span<const std::span<const std::byte>>(&input, 1),
                                              std::span<const std::span<std::byte>>(&out, 1));
            } else if constexpr (std::is_same_v<desc_t, slice_grad_desc>) { // names without allocating (test_allocation)
                return detail::check_buffers(to_string(d.type), d.input_tensor, d.output_tensor, input, output,
                                             "InputGradientTensor", "OutputGradientTensor");
            } else {
                return detail::check_buffers(to_string(d.type), d.input_tensor, d.output_tensor, input, output);
            }
        },
        desc);
}
#else
;
#endif

/// validate() plus the buffer rules over one buffer per tensor, in DirectML's binding order
/// (inputs_of(desc), outputs_of(desc)): counts, sizes, alignment, no output overlapping another buffer.
DMLREF_FUNC std::optional<std::string> validate(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                                                std::span<const std::span<std::byte>> outputs,
                                                feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    if (auto m = validate(desc, level)) return m;
    return detail::check_bindings(to_string(type_of(desc)), inputs_of(desc), outputs_of(desc), inputs, outputs);
}
#else
;
#endif

/// Throws validation_error with validate()'s message when DirectML at `level` would reject `desc`.
DMLREF_FUNC void check(const operator_desc& desc, feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    detail::throw_if(validate(desc, level));
}
#else
;
#endif

namespace detail {
/// The copy plan of `desc` over the two buffers after every check (throws validation_error);
/// `tables` keeps the padding tables it points into.
DMLREF_FUNC copy_plan checked_plan(const operator_desc& desc, std::span<const std::byte> input, std::span<std::byte> output,
                              feature_level level, std::vector<std::ptrdiff_t>& tables)
#if DMLREF_DEFINE_FUNCS
{
    throw_if(validate(desc, input, output, level));
    copy_plan plan = std::visit(
        [&](const auto& d) -> copy_plan {
            if constexpr (is_single_tensor_desc_v<std::remove_cvref_t<decltype(d)>>) {
                return plan_desc(d, tables);
            } else {
                throw std::logic_error("checked_plan: only descs with one input and one output have one plan");
            }
        },
        desc);
    plan.input = input.data();
    plan.output = output.data();
    plan.width = element_size(data_type_of(desc));
    return plan;
}
#else
;
#endif

/// JOIN and SPLIT over their buffers after every check: one copy per part (run_parts).
DMLREF_FUNC void execute_parts(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                          std::span<const std::span<std::byte>> outputs, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    throw_if(validate(desc, inputs, outputs, level));
    std::visit(
        [&](const auto& d) {
            using desc_t = std::remove_cvref_t<decltype(d)>;
            if constexpr (std::is_same_v<desc_t, join_desc> || std::is_same_v<desc_t, split_desc>) {
                constexpr bool is_split = std::is_same_v<desc_t, split_desc>;
                const auto& parts = [&]() -> const std::vector<buffer_tensor_desc>& {
                    if constexpr (is_split) return d.output_tensors; else return d.input_tensors;
                }();
                const buffer_tensor_desc& whole = [&]() -> const buffer_tensor_desc& {
        if constexpr (is_split) return d.input_tensor; else return d.output_tensor;
    }();
                std::vector<layout> layouts(parts.size());
                std::vector<std::byte*> part_at(parts.size()); // JOIN's inputs are only read (run_parts)
                for (std::size_t k = 0; k < parts.size(); ++k) {
                    layouts[k] = layout_of(parts[k]);
                    part_at[k] = is_split ? outputs[k].data() : const_cast<std::byte*>(inputs[k].data());
                }
                std::byte* const whole_at = is_split ? const_cast<std::byte*>(inputs[0].data()) : outputs[0].data();
                run_parts(layouts, part_at, layout_of(whole), whole_at, d.axis, is_split, element_size(whole.data_type));
            } else {
                throw std::logic_error("execute_parts: only JOIN and SPLIT bind tensor arrays");
            }
        },
        desc);
}
#else
;
#endif

/// REVERSE_SUBSEQUENCES over its three buffers after every check: the engine's
/// run_reverse_subsequences over the descs' layouts, reading the lengths from their buffer.
DMLREF_FUNC void execute_reverse_subsequences(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                                         std::span<const std::span<std::byte>> outputs, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    throw_if(validate(desc, inputs, outputs, level));
    if (inputs.size() != 2 || outputs.size() != 1) // validate() said so; the compiler does not know it
        throw std::logic_error("execute_reverse_subsequences: validate() accepted the wrong number of buffers");
    const auto& d = std::get<reverse_subsequences_desc>(desc);
    run_reverse_subsequences(layout_of(d.input_tensor), inputs[0].data(), layout_of(d.sequence_lengths_tensor),
                             inputs[1].data(), element_size(d.sequence_lengths_tensor.data_type), layout_of(d.output_tensor),
                             outputs[0].data(), d.axis, element_size(d.input_tensor.data_type));
}
#else
;
#endif

/// The indexed operators over their buffers after every check: the byte-level forms of
/// ops/gather.hpp, ops/scatter.hpp and ops/one_hot.hpp. The gathers and scatters check every index
/// before the first write (one outside its axis throws validation_error naming its coordinate and
/// value, and nothing is written); ONE_HOT's out-of-range indices give OffValue, as documented.
DMLREF_FUNC void execute_indexed(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                            std::span<const std::span<std::byte>> outputs, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    throw_if(validate(desc, inputs, outputs, level));
    if (inputs.size() < 2 || outputs.size() != 1) // validate() said so; the compiler does not know it
        throw std::logic_error("execute_indexed: validate() accepted the wrong number of buffers");
    std::visit(
        [&](const auto& d) {
            using desc_t = std::remove_cvref_t<decltype(d)>;
            if constexpr (std::is_same_v<desc_t, gather_desc>) execute_gather(d, inputs[0], inputs[1], outputs[0], level);
            else if constexpr (std::is_same_v<desc_t, gather_elements_desc>)
                execute_gather_elements(d, inputs[0], inputs[1], outputs[0], level);
            else if constexpr (std::is_same_v<desc_t, gather_nd_desc>) execute_gather_nd(d, inputs[0], inputs[1], outputs[0], level);
            else if constexpr (std::is_same_v<desc_t, gather_nd1_desc>)
                execute_gather_nd1(d, inputs[0], inputs[1], outputs[0], level);
            else if constexpr (std::is_same_v<desc_t, one_hot_desc>) execute_one_hot(d, inputs[0], inputs[1], outputs[0], level);
            else if constexpr (is_scatter_desc_v<desc_t>) {
                if (inputs.size() != 3) throw std::logic_error("execute_indexed: validate() accepted the wrong number of buffers");
                if constexpr (std::is_same_v<desc_t, scatter_elements_desc>)
                    execute_scatter_elements(d, inputs[0], inputs[1], inputs[2], outputs[0], level);
                else execute_scatter_nd(d, inputs[0], inputs[1], inputs[2], outputs[0], level);
            } else throw std::logic_error("execute_indexed: not an indexed operator");
        },
        desc);
}
#else
;
#endif

/// The descs that bind more than one input and one output tensor (binds_one_input_and_output is
/// false), over one buffer per tensor after every check.
DMLREF_FUNC void execute_several(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                            std::span<const std::span<std::byte>> outputs, feature_level level)
#if DMLREF_DEFINE_FUNCS
{
    if (binds_tensor_arrays(type_of(desc))) return execute_parts(desc, inputs, outputs, level);
    if (std::holds_alternative<reverse_subsequences_desc>(desc)) return execute_reverse_subsequences(desc, inputs, outputs, level);
    return execute_indexed(desc, inputs, outputs, level);
}
#else
;
#endif
} // namespace detail

/// Runs the operator from `input` into `output` (each the whole buffer bound to the tensor) after
/// every check; throws validation_error and writes nothing when one fails. Writes only the output
/// tensor's elements: other bytes of the output buffer keep their values. (dmlref/parallel.hpp
/// adds an overload that splits the work over threads.)
DMLREF_FUNC void execute(const operator_desc& desc, std::span<const std::byte> input, std::span<std::byte> output,
                         feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    if (!binds_one_input_and_output(type_of(desc))) { // JOIN and SPLIT with one part; REVERSE_SUBSEQUENCES is refused
        const std::span<std::byte> out = output;
        return detail::execute_several(desc, std::span<const std::span<const std::byte>>(&input, 1),
                                       std::span<const std::span<std::byte>>(&out, 1), level);
    }
    std::vector<std::ptrdiff_t> tables;
    detail::execute(detail::checked_plan(desc, input, output, level, tables));
}
#else
;
#endif

/// Runs the operator over one buffer per tensor, in DirectML's binding order (inputs_of(desc),
/// outputs_of(desc)): JOIN's InputTensors, SPLIT's OutputTensors, REVERSE_SUBSEQUENCES's
/// InputTensor then SequenceLengthsTensor. The same checks and guarantees as the one-buffer form,
/// which is this with one buffer on each side.
DMLREF_FUNC void execute(const operator_desc& desc, std::span<const std::span<const std::byte>> inputs,
                         std::span<const std::span<std::byte>> outputs, feature_level level = newest_feature_level)
#if DMLREF_DEFINE_FUNCS
{
    if (!binds_one_input_and_output(type_of(desc))) return detail::execute_several(desc, inputs, outputs, level);
    detail::throw_if(validate(desc, inputs, outputs, level));
    std::vector<std::ptrdiff_t> tables;
    detail::execute(detail::checked_plan(desc, inputs[0], outputs[0], level, tables));
}
#else
;
#endif

} // namespace dmlref
