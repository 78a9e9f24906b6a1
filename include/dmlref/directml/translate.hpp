#pragma once
/// \file translate.hpp
/// dmlref's operator descs as DirectML's C structs (abi.hpp), field for field: every value passes
/// unchanged, invalid ones included, so that DirectML judges exactly the desc dmlref judged.
///
///   dmlref::directml::translated t(desc);     // owns the structs and arrays
///   device->CreateOperator(&t.op(), ...);      // valid while `t` lives
///
/// Every tensor of the desc is carried in DirectML's binding order (inputs_of, outputs_of), so that
/// tensor arrays (JOIN's InputTensors, SPLIT's OutputTensors) and second and third inputs
/// (REVERSE_SUBSEQUENCES's SequenceLengthsTensor, the gathers' and scatters' IndicesTensor, the
/// scatters' UpdatesTensor, ONE_HOT's ValuesTensor) need nothing of their own here beyond their
/// operator's struct.
///
/// A desc that DirectML's structs cannot carry is refused with not_expressible: a tensor whose
/// Strides has another length than its Sizes (DML_BUFFER_TENSOR_DESC has one DimensionCount for
/// both), and SLICE or PADDING arrays of different lengths (the op has one DimensionCount).

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "../operator.hpp"
#include "abi.hpp"

namespace dmlref::directml {

/// A desc that DirectML's C structs cannot carry (see the file comment).
class not_expressible : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// One operator desc as DirectML's structs. Not copyable or movable: the structs point into it.
/// Every tensor the desc binds is carried, in DirectML's binding order (inputs_of, outputs_of):
/// an operator with tensor arrays (JOIN's InputTensors, SPLIT's OutputTensors) or with more than
/// one input gets one DML_BUFFER_TENSOR_DESC per tensor, and each array of DML_TENSOR_DESCs is
/// contiguous, as the operator descs' array fields require.
class translated {
public:
    explicit translated(const operator_desc& desc) {
        const auto ins = inputs_of(desc), outs = outputs_of(desc);
        inputs_.resize(ins.size());
        outputs_.resize(outs.size());
        for (std::size_t k = 0; k < ins.size(); ++k) tensor(inputs_[k], ins[k].field, ins[k].desc());
        for (std::size_t k = 0; k < outs.size(); ++k) tensor(outputs_[k], outs[k].field, outs[k].desc());
        in_tensors_.resize(ins.size());
        out_tensors_.resize(outs.size());
        for (std::size_t k = 0; k < ins.size(); ++k) in_tensors_[k] = {abi::tensor_type_buffer, &inputs_[k].buffer};
        for (std::size_t k = 0; k < outs.size(); ++k) out_tensors_[k] = {abi::tensor_type_buffer, &outputs_[k].buffer};
        std::visit([&](const auto& d) { fill(d); }, desc);
    }
    translated(const translated&) = delete;
    translated& operator=(const translated&) = delete;

    /// The DML_OPERATOR_DESC.
    const abi::operator_desc& op() const noexcept { return op_; }
    /// How many tensors the desc binds as inputs and as outputs (the bindings a dispatch needs).
    std::size_t input_count() const noexcept { return inputs_.size(); }
    std::size_t output_count() const noexcept { return outputs_.size(); }
    /// The DML_BUFFER_TENSOR_DESC of input (output) tensor `k` in binding order.
    const abi::buffer_tensor_desc& input(std::size_t k = 0) const { return inputs_.at(k).buffer; }
    const abi::buffer_tensor_desc& output(std::size_t k = 0) const { return outputs_.at(k).buffer; }

private:
    /// One tensor's struct and the arrays it points into (owned here, so that the pointers stay
    /// valid whatever the caller does with the desc; the vectors of these are sized once).
    struct buffer {
        abi::buffer_tensor_desc buffer{};
        std::vector<std::uint32_t> sizes, strides;
    };

    static void tensor(buffer& b, std::string_view field, const buffer_tensor_desc& t) {
        if (t.strides && t.strides->size() != t.sizes.size())
            throw not_expressible(std::string(field) + ".Strides has " + std::to_string(t.strides->size()) +
                                  " entries and Sizes " + std::to_string(t.sizes.size()) +
                                  "; DML_BUFFER_TENSOR_DESC has one DimensionCount for both");
        b.sizes = t.sizes;
        b.strides = t.strides ? *t.strides : std::vector<std::uint32_t>{};
        b.buffer.DataType = static_cast<std::uint32_t>(t.data_type);
        b.buffer.Flags = static_cast<std::uint32_t>(t.flags);
        b.buffer.DimensionCount = static_cast<std::uint32_t>(t.sizes.size());
        b.buffer.Sizes = b.sizes.data();
        b.buffer.Strides = t.strides ? b.strides.data() : nullptr;
        b.buffer.TotalTensorSizeInBytes = t.total_tensor_size_in_bytes;
        b.buffer.GuaranteedBaseOffsetAlignment = t.guaranteed_base_offset_alignment;
    }

    static std::uint32_t same_length(const char* op, std::initializer_list<std::pair<const char*, std::size_t>> arrays) {
        const std::size_t n = arrays.begin()->second;
        for (const auto& [name, size] : arrays)
            if (size != n)
                throw not_expressible(std::string(op) + ": " + name + " has " + std::to_string(size) + " entries and " +
                                      arrays.begin()->first + " " + std::to_string(n) +
                                      "; the DirectML desc has one DimensionCount for all of them");
        return static_cast<std::uint32_t>(n);
    }

    template <class Desc> void fill(const Desc& d) {
        op_.Type = static_cast<std::uint32_t>(Desc::type);
        // The first input and output tensor, for the operators that bind one of each.
        const abi::tensor_desc* const in = in_tensors_.empty() ? nullptr : &in_tensors_[0];
        const abi::tensor_desc* const out = out_tensors_.empty() ? nullptr : &out_tensors_[0];
        if constexpr (std::is_same_v<Desc, join_desc>) {
            body_ = abi::join_operator_desc{static_cast<std::uint32_t>(in_tensors_.size()),
                                            in_tensors_.empty() ? nullptr : in_tensors_.data(), out, d.axis};
        } else if constexpr (std::is_same_v<Desc, split_desc>) {
            body_ = abi::split_operator_desc{in, static_cast<std::uint32_t>(out_tensors_.size()),
                                             out_tensors_.empty() ? nullptr : out_tensors_.data(), d.axis};
        } else if constexpr (std::is_same_v<Desc, depth_to_space_desc> || std::is_same_v<Desc, space_to_depth_desc>) {
            body_ = abi::depth_space_operator_desc{in, out, d.block_size};
        } else if constexpr (std::is_same_v<Desc, depth_to_space1_desc> || std::is_same_v<Desc, space_to_depth1_desc>) {
            body_ = abi::depth_space1_operator_desc{in, out, d.block_size,
                                                    static_cast<std::uint32_t>(d.order)};
        } else if constexpr (std::is_same_v<Desc, slice_desc>) {
            const std::uint32_t n =
                same_length("SLICE", {{"Offsets", d.offsets.size()}, {"Sizes", d.sizes.size()}, {"Strides", d.strides.size()}});
            arrays_ = {d.offsets, d.sizes, d.strides};
            body_ = abi::slice_operator_desc{in, out, n, arrays_[0].data(), arrays_[1].data(),
                                             arrays_[2].data()};
        } else if constexpr (std::is_same_v<Desc, slice1_desc>) {
            const std::uint32_t n = same_length("SLICE1", {{"InputWindowOffsets", d.input_window_offsets.size()},
                                                           {"InputWindowSizes", d.input_window_sizes.size()},
                                                           {"InputWindowStrides", d.input_window_strides.size()}});
            arrays_ = {d.input_window_offsets, d.input_window_sizes, {}};
            signed_ = d.input_window_strides;
            body_ = abi::slice1_operator_desc{in, out, n, arrays_[0].data(), arrays_[1].data(),
                                              signed_.data()};
        } else if constexpr (std::is_same_v<Desc, padding_desc>) {
            const std::uint32_t n = same_length("PADDING", {{"StartPadding", d.start_padding.size()},
                                                            {"EndPadding", d.end_padding.size()}});
            arrays_ = {d.start_padding, d.end_padding, {}};
            body_ = abi::padding_operator_desc{in, out, static_cast<std::uint32_t>(d.padding_mode),
                                               d.padding_value, n, arrays_[0].data(), arrays_[1].data()};
        } else if constexpr (std::is_same_v<Desc, element_wise_identity_desc>) {
            if (d.scale_bias) scale_bias_ = {d.scale_bias->scale, d.scale_bias->bias};
            body_ = abi::element_wise_identity_operator_desc{in, out,
                                                             d.scale_bias ? &scale_bias_ : nullptr};
        } else if constexpr (std::is_same_v<Desc, slice_grad_desc>) {
            const std::uint32_t n = same_length("SLICE_GRAD", {{"InputWindowOffsets", d.input_window_offsets.size()},
                                                               {"InputWindowSizes", d.input_window_sizes.size()},
                                                               {"InputWindowStrides", d.input_window_strides.size()}});
            arrays_ = {d.input_window_offsets, d.input_window_sizes, {}};
            signed_ = d.input_window_strides;
            body_ = abi::slice_grad_operator_desc{in, out, n, arrays_[0].data(), arrays_[1].data(),
                                                  signed_.data()};
        } else if constexpr (std::is_same_v<Desc, tile_desc>) {
            arrays_ = {d.repeats, {}, {}};
            body_ = abi::tile_operator_desc{in, out, static_cast<std::uint32_t>(d.repeats.size()),
                                            arrays_[0].data()};
        } else if constexpr (std::is_same_v<Desc, upsample_2d_desc>) {
            body_ = abi::upsample_2d_operator_desc{in, out, {d.scale_size.width, d.scale_size.height},
                                                   static_cast<std::uint32_t>(d.interpolation_mode)};
        } else if constexpr (std::is_same_v<Desc, padding1_desc>) {
            const std::uint32_t n = same_length("PADDING1", {{"StartPadding", d.start_padding.size()},
                                                             {"EndPadding", d.end_padding.size()}});
            arrays_ = {d.start_padding, d.end_padding, {}};
            abi::scalar_union value{};
            std::memcpy(value.Bytes, d.padding_value.bytes.data(), 8);
            body_ = abi::padding1_operator_desc{in,
                                                out,
                                                static_cast<std::uint32_t>(d.padding_mode),
                                                static_cast<std::uint32_t>(d.padding_value_data_type),
                                                value,
                                                n,
                                                arrays_[0].data(),
                                                arrays_[1].data()};
        } else if constexpr (std::is_same_v<Desc, reverse_subsequences_desc>) {
            body_ = abi::reverse_subsequences_operator_desc{in, &in_tensors_[1], out, d.axis};
        } else if constexpr (std::is_same_v<Desc, gather_desc>) {
            body_ = abi::gather_operator_desc{in, &in_tensors_[1], out, d.axis, d.index_dimensions};
        } else if constexpr (std::is_same_v<Desc, gather_elements_desc>) {
            body_ = abi::gather_elements_operator_desc{in, &in_tensors_[1], out, d.axis};
        } else if constexpr (std::is_same_v<Desc, gather_nd_desc>) {
            body_ = abi::gather_nd_operator_desc{in, &in_tensors_[1], out, d.input_dimension_count, d.indices_dimension_count};
        } else if constexpr (std::is_same_v<Desc, gather_nd1_desc>) {
            body_ = abi::gather_nd1_operator_desc{in, &in_tensors_[1], out, d.input_dimension_count, d.indices_dimension_count,
                                                  d.batch_dimension_count};
        } else if constexpr (std::is_same_v<Desc, scatter_elements_desc>) {
            body_ = abi::scatter_operator_desc{in, &in_tensors_[1], &in_tensors_[2], out, d.axis};
        } else if constexpr (std::is_same_v<Desc, scatter_nd_desc>) {
            body_ = abi::scatter_nd_operator_desc{in, &in_tensors_[1], &in_tensors_[2], out, d.input_dimension_count,
                                                  d.indices_dimension_count};
        } else if constexpr (std::is_same_v<Desc, one_hot_desc>) {
            body_ = abi::one_hot_operator_desc{in, &in_tensors_[1], out, d.axis};
        } else {
            static_assert(sizeof(Desc) == 0, "an operator desc with no DirectML struct");
        }
        op_.Desc = std::visit([](const auto& b) -> const void* { return &b; }, body_);
    }

    std::vector<buffer> inputs_, outputs_;
    std::vector<abi::tensor_desc> in_tensors_, out_tensors_; // each contiguous: an array field points at it
    std::array<std::vector<std::uint32_t>, 3> arrays_;
    std::vector<std::int32_t> signed_;
    abi::scale_bias scale_bias_{};
    std::variant<abi::depth_space_operator_desc, abi::depth_space1_operator_desc, abi::slice_operator_desc,
                 abi::slice1_operator_desc, abi::padding_operator_desc, abi::padding1_operator_desc,
                 abi::element_wise_identity_operator_desc, abi::slice_grad_operator_desc, abi::tile_operator_desc,
                 abi::upsample_2d_operator_desc, abi::join_operator_desc, abi::split_operator_desc,
                 abi::reverse_subsequences_operator_desc, abi::gather_operator_desc, abi::gather_elements_operator_desc,
                 abi::gather_nd_operator_desc, abi::gather_nd1_operator_desc, abi::scatter_operator_desc,
                 abi::scatter_nd_operator_desc, abi::one_hot_operator_desc>
        body_;
    abi::operator_desc op_{};
};

} // namespace dmlref::directml
