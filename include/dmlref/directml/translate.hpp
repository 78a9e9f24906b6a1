#pragma once
/// \file translate.hpp
/// dmlref's operator descs as DirectML's C structs (abi.hpp), field for field: every value passes
/// unchanged, invalid ones included, so that DirectML judges exactly the desc dmlref judged.
///
///   dmlref::directml::translated t(desc);     // owns the structs and arrays
///   device->CreateOperator(&t.op(), ...);      // valid while `t` lives
///
/// A desc that DirectML's structs cannot carry is refused with not_expressible: a tensor whose
/// Strides has another length than its Sizes (DML_BUFFER_TENSOR_DESC has one DimensionCount for
/// both), and SLICE or PADDING arrays of different lengths (the op has one DimensionCount).

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
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
class translated {
public:
    explicit translated(const operator_desc& desc) { std::visit([&](const auto& d) { fill(d); }, desc); }
    translated(const translated&) = delete;
    translated& operator=(const translated&) = delete;

    /// The DML_OPERATOR_DESC.
    const abi::operator_desc& op() const noexcept { return op_; }
    /// The input and output DML_BUFFER_TENSOR_DESCs.
    const abi::buffer_tensor_desc& input() const noexcept { return buffers_[0]; }
    const abi::buffer_tensor_desc& output() const noexcept { return buffers_[1]; }

private:
    void tensor(std::size_t i, const char* field, const buffer_tensor_desc& t) {
        if (t.strides && t.strides->size() != t.sizes.size())
            throw not_expressible(std::string(field) + ".Strides has " + std::to_string(t.strides->size()) +
                                  " entries and Sizes " + std::to_string(t.sizes.size()) +
                                  "; DML_BUFFER_TENSOR_DESC has one DimensionCount for both");
        abi::buffer_tensor_desc& b = buffers_[i];
        b.DataType = static_cast<std::uint32_t>(t.data_type);
        b.Flags = static_cast<std::uint32_t>(t.flags);
        b.DimensionCount = static_cast<std::uint32_t>(t.sizes.size());
        sizes_[i] = t.sizes; // copies: the pointers stay valid whatever the caller does with the desc
        strides_[i] = t.strides ? *t.strides : std::vector<std::uint32_t>{};
        b.Sizes = sizes_[i].data();
        b.Strides = t.strides ? strides_[i].data() : nullptr;
        b.TotalTensorSizeInBytes = t.total_tensor_size_in_bytes;
        b.GuaranteedBaseOffsetAlignment = t.guaranteed_base_offset_alignment;
        tensors_[i] = {abi::tensor_type_buffer, &b};
    }

    template <class Desc> void tensors(const Desc& d) {
        const bool gradient = std::is_same_v<Desc, slice_grad_desc>;
        tensor(0, gradient ? "InputGradientTensor" : "InputTensor", d.input_tensor);
        tensor(1, gradient ? "OutputGradientTensor" : "OutputTensor", d.output_tensor);
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
        if constexpr (!is_single_tensor_desc_v<Desc>) {
            throw not_expressible(std::string(to_string(Desc::type)) +
                                  ": dmlref's DirectML translation binds one input and one output tensor; it does not "
                                  "translate JOIN or SPLIT (tensor arrays) yet");
        } else {
            fill_single(d);
        }
    }

    template <class Desc> void fill_single(const Desc& d) {
        tensors(d);
        op_.Type = static_cast<std::uint32_t>(Desc::type);
        if constexpr (std::is_same_v<Desc, depth_to_space_desc> || std::is_same_v<Desc, space_to_depth_desc>) {
            body_ = abi::depth_space_operator_desc{&tensors_[0], &tensors_[1], d.block_size};
        } else if constexpr (std::is_same_v<Desc, depth_to_space1_desc> || std::is_same_v<Desc, space_to_depth1_desc>) {
            body_ = abi::depth_space1_operator_desc{&tensors_[0], &tensors_[1], d.block_size,
                                                    static_cast<std::uint32_t>(d.order)};
        } else if constexpr (std::is_same_v<Desc, slice_desc>) {
            const std::uint32_t n =
                same_length("SLICE", {{"Offsets", d.offsets.size()}, {"Sizes", d.sizes.size()}, {"Strides", d.strides.size()}});
            arrays_ = {d.offsets, d.sizes, d.strides};
            body_ = abi::slice_operator_desc{&tensors_[0], &tensors_[1], n, arrays_[0].data(), arrays_[1].data(),
                                             arrays_[2].data()};
        } else if constexpr (std::is_same_v<Desc, slice1_desc>) {
            const std::uint32_t n = same_length("SLICE1", {{"InputWindowOffsets", d.input_window_offsets.size()},
                                                           {"InputWindowSizes", d.input_window_sizes.size()},
                                                           {"InputWindowStrides", d.input_window_strides.size()}});
            arrays_ = {d.input_window_offsets, d.input_window_sizes, {}};
            signed_ = d.input_window_strides;
            body_ = abi::slice1_operator_desc{&tensors_[0], &tensors_[1], n, arrays_[0].data(), arrays_[1].data(),
                                              signed_.data()};
        } else if constexpr (std::is_same_v<Desc, padding_desc>) {
            const std::uint32_t n = same_length("PADDING", {{"StartPadding", d.start_padding.size()},
                                                            {"EndPadding", d.end_padding.size()}});
            arrays_ = {d.start_padding, d.end_padding, {}};
            body_ = abi::padding_operator_desc{&tensors_[0], &tensors_[1], static_cast<std::uint32_t>(d.padding_mode),
                                               d.padding_value, n, arrays_[0].data(), arrays_[1].data()};
        } else if constexpr (std::is_same_v<Desc, element_wise_identity_desc>) {
            if (d.scale_bias) scale_bias_ = {d.scale_bias->scale, d.scale_bias->bias};
            body_ = abi::element_wise_identity_operator_desc{&tensors_[0], &tensors_[1],
                                                             d.scale_bias ? &scale_bias_ : nullptr};
        } else if constexpr (std::is_same_v<Desc, slice_grad_desc>) {
            const std::uint32_t n = same_length("SLICE_GRAD", {{"InputWindowOffsets", d.input_window_offsets.size()},
                                                               {"InputWindowSizes", d.input_window_sizes.size()},
                                                               {"InputWindowStrides", d.input_window_strides.size()}});
            arrays_ = {d.input_window_offsets, d.input_window_sizes, {}};
            signed_ = d.input_window_strides;
            body_ = abi::slice_grad_operator_desc{&tensors_[0], &tensors_[1], n, arrays_[0].data(), arrays_[1].data(),
                                                  signed_.data()};
        } else if constexpr (std::is_same_v<Desc, tile_desc>) {
            arrays_ = {d.repeats, {}, {}};
            body_ = abi::tile_operator_desc{&tensors_[0], &tensors_[1], static_cast<std::uint32_t>(d.repeats.size()),
                                            arrays_[0].data()};
        } else if constexpr (std::is_same_v<Desc, upsample_2d_desc>) {
            body_ = abi::upsample_2d_operator_desc{&tensors_[0], &tensors_[1], {d.scale_size.width, d.scale_size.height},
                                                   static_cast<std::uint32_t>(d.interpolation_mode)};
        } else {
            static_assert(std::is_same_v<Desc, padding1_desc>);
            const std::uint32_t n = same_length("PADDING1", {{"StartPadding", d.start_padding.size()},
                                                             {"EndPadding", d.end_padding.size()}});
            arrays_ = {d.start_padding, d.end_padding, {}};
            abi::scalar_union value{};
            std::memcpy(value.Bytes, d.padding_value.bytes.data(), 8);
            body_ = abi::padding1_operator_desc{&tensors_[0],
                                                &tensors_[1],
                                                static_cast<std::uint32_t>(d.padding_mode),
                                                static_cast<std::uint32_t>(d.padding_value_data_type),
                                                value,
                                                n,
                                                arrays_[0].data(),
                                                arrays_[1].data()};
        }
        op_.Desc = std::visit([](const auto& b) -> const void* { return &b; }, body_);
    }

    std::array<std::vector<std::uint32_t>, 2> sizes_, strides_;
    std::array<abi::buffer_tensor_desc, 2> buffers_{};
    std::array<abi::tensor_desc, 2> tensors_{};
    std::array<std::vector<std::uint32_t>, 3> arrays_;
    std::vector<std::int32_t> signed_;
    abi::scale_bias scale_bias_{};
    std::variant<abi::depth_space_operator_desc, abi::depth_space1_operator_desc, abi::slice_operator_desc,
                 abi::slice1_operator_desc, abi::padding_operator_desc, abi::padding1_operator_desc,
                 abi::element_wise_identity_operator_desc, abi::slice_grad_operator_desc, abi::tile_operator_desc,
                 abi::upsample_2d_operator_desc>
        body_;
    abi::operator_desc op_{};
};

} // namespace dmlref::directml
