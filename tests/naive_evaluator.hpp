#pragma once
/// \file naive_evaluator.hpp
/// The second derivation of every operator: a deliberately naive per-element evaluator written
/// straight from DirectML's documented index formulas (directml-facts.md sections 3 to 5) and
/// dmlref's decisions 3 and 4. It visits every output coordinate, computes the input coordinate
/// the documentation names, and copies the element's bytes. It shares nothing with the library
/// but its value types: no plan, no engine, no padding_source, no op; so a bug in the fast path
/// cannot hide behind the same bug here.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <variant>
#include <vector>

#include <dmlref/operator.hpp>

namespace dmlref_test {

/// A tensor desc reduced to what indexing needs: sizes, element strides (given, or packed
/// row-major computed here), element width in bytes.
struct naive_layout {
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
    std::size_t width = 0;

    std::int64_t count() const {
        std::int64_t n = 1;
        for (std::int64_t s : sizes) n *= s;
        return n;
    }
    /// Element index of a coordinate: sum of coordinate times stride.
    std::int64_t index_of(const std::vector<std::int64_t>& coord) const {
        std::int64_t at = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) at += coord[i] * strides[i];
        return at;
    }
};

inline naive_layout naive_layout_of(const dmlref::buffer_tensor_desc& d) {
    naive_layout l;
    l.width = dmlref::element_size(d.data_type);
    for (std::uint32_t s : d.sizes) l.sizes.push_back(s);
    l.strides.assign(l.sizes.size(), 0);
    if (d.strides) {
        for (std::size_t i = 0; i < l.sizes.size(); ++i) l.strides[i] = (*d.strides)[i];
    } else {
        std::int64_t stride = 1; // "contiguously packed": stride[i] = product of Sizes[j] for j > i
        for (std::size_t i = l.sizes.size(); i-- > 0;) {
            l.strides[i] = stride;
            stride *= l.sizes[i];
        }
    }
    return l;
}

/// Non-negative remainder.
inline std::int64_t naive_mod(std::int64_t a, std::int64_t p) {
    const std::int64_t r = a % p;
    return r < 0 ? r + p : r;
}

/// One padded axis: the input coordinate for relative coordinate t, or nullopt for CONSTANT outside.
inline std::optional<std::int64_t> naive_pad_source(dmlref::padding_mode mode, std::int64_t t, std::int64_t n) {
    if (0 <= t && t < n) return t;
    switch (mode) {
    case dmlref::padding_mode::constant: return std::nullopt;
    case dmlref::padding_mode::edge: return t < 0 ? 0 : n - 1;
    case dmlref::padding_mode::reflection: {
        const std::int64_t p = 2 * (n - 1);
        const std::int64_t m = naive_mod(t, p);
        return m < n ? m : p - m;
    }
    case dmlref::padding_mode::symmetric: {
        const std::int64_t p = 2 * n;
        const std::int64_t m = naive_mod(t, p);
        return m < n ? m : p - 1 - m;
    }
    case dmlref::padding_mode::wrap: return naive_mod(t, n);
    }
    throw std::logic_error("naive_pad_source: unknown mode");
}

/// DECISIONS 3, written out per type: a FLOAT padding value in the tensor's type.
template <class I> std::vector<std::byte> naive_int_bytes(float value) {
    I v{};
    if (!std::isnan(value)) {
        const long double t = std::trunc(static_cast<long double>(value));
        if (t <= static_cast<long double>(std::numeric_limits<I>::lowest())) v = std::numeric_limits<I>::lowest();
        else if (t >= static_cast<long double>(std::numeric_limits<I>::max())) v = std::numeric_limits<I>::max();
        else v = static_cast<I>(t);
    }
    std::vector<std::byte> bytes(sizeof(I));
    std::memcpy(bytes.data(), &v, sizeof(I));
    return bytes;
}

inline std::vector<std::byte> naive_padding_v0_value(dmlref::data_type type, float value) {
    using dmlref::data_type;
    auto bytes_of = [](auto v) {
        std::vector<std::byte> bytes(sizeof(v));
        std::memcpy(bytes.data(), &v, sizeof(v));
        return bytes;
    };
    switch (type) {
    case data_type::float32: return bytes_of(value);
    case data_type::float64: return bytes_of(static_cast<double>(value));
    case data_type::float16: return bytes_of(dmlref::half_bits_from_double(static_cast<double>(value)));
    case data_type::uint8: return naive_int_bytes<std::uint8_t>(value);
    case data_type::int8: return naive_int_bytes<std::int8_t>(value);
    case data_type::uint16: return naive_int_bytes<std::uint16_t>(value);
    case data_type::int16: return naive_int_bytes<std::int16_t>(value);
    case data_type::uint32: return naive_int_bytes<std::uint32_t>(value);
    case data_type::int32: return naive_int_bytes<std::int32_t>(value);
    case data_type::uint64: return naive_int_bytes<std::uint64_t>(value);
    case data_type::int64: return naive_int_bytes<std::int64_t>(value);
    default: throw std::logic_error("naive_padding_v0_value: not a movable type");
    }
}

/// Where output coordinate `o` reads: an input coordinate, or nullopt for the padding value.
using naive_source = std::optional<std::vector<std::int64_t>>;

inline naive_source naive_depth_space(bool to_space, bool dcr, std::int64_t b, const naive_layout& in,
                                      const naive_layout& out, const std::vector<std::int64_t>& o) {
    if (to_space) {
        // Out[n, c, y, x] = In[n, cd, y / B, x / B], C' = output channels.
        const std::int64_t channels = out.sizes[1];
        const std::int64_t n = o[0], c = o[1], y = o[2], x = o[3];
        const std::int64_t bh = y % b, bw = x % b;
        const std::int64_t cd = dcr ? (bh * b + bw) * channels + c : c * b * b + bh * b + bw;
        return std::vector<std::int64_t>{n, cd, y / b, x / b};
    }
    // Out[n, cd, h, w] = In[n, c, h * B + bh, w * B + bw], C' = input channels.
    const std::int64_t channels = in.sizes[1];
    const std::int64_t n = o[0], cd = o[1], h = o[2], w = o[3];
    std::int64_t c = 0, bh = 0, bw = 0;
    if (dcr) { // cd = (bh * B + bw) * C' + c
        c = cd % channels;
        bw = (cd / channels) % b;
        bh = cd / channels / b;
    } else { // cd = c * B * B + bh * B + bw
        bw = cd % b;
        bh = (cd / b) % b;
        c = cd / (b * b);
    }
    return std::vector<std::int64_t>{n, c, h * b + bh, w * b + bw};
}

/// Runs `desc` naively: returns `output_initial` with every output element written.
/// Assumes a valid desc and buffers of at least TotalTensorSizeInBytes.
inline std::vector<std::byte> naive_execute(const dmlref::operator_desc& desc, std::span<const std::byte> input,
                                            std::span<const std::byte> output_initial) {
    std::vector<std::byte> result(output_initial.begin(), output_initial.end());
    std::visit(
        [&](const auto& d) {
            using desc_t = std::remove_cvref_t<decltype(d)>;
            const naive_layout in = naive_layout_of(d.input_tensor);
            const naive_layout out = naive_layout_of(d.output_tensor);
            const std::size_t rank = out.sizes.size();
            std::vector<std::byte> fill(in.width);
            if constexpr (std::is_same_v<desc_t, dmlref::padding_desc>)
                fill = naive_padding_v0_value(d.output_tensor.data_type, d.padding_value);
            if constexpr (std::is_same_v<desc_t, dmlref::padding1_desc>)
                std::memcpy(fill.data(), d.padding_value.bytes.data(), in.width); // little-endian union bytes

            std::vector<std::int64_t> o(rank);
            for (std::int64_t flat = 0; flat < out.count(); ++flat) {
                std::int64_t rest = flat; // unravel row-major
                for (std::size_t i = rank; i-- > 0;) {
                    o[i] = rest % out.sizes[i];
                    rest /= out.sizes[i];
                }
                naive_source src;
                if constexpr (std::is_same_v<desc_t, dmlref::depth_to_space_desc>) {
                    src = naive_depth_space(true, true, d.block_size, in, out, o);
                } else if constexpr (std::is_same_v<desc_t, dmlref::depth_to_space1_desc>) {
                    src = naive_depth_space(true, d.order == dmlref::depth_space_order::depth_column_row,
                                            d.block_size, in, out, o);
                } else if constexpr (std::is_same_v<desc_t, dmlref::space_to_depth_desc>) {
                    src = naive_depth_space(false, true, d.block_size, in, out, o);
                } else if constexpr (std::is_same_v<desc_t, dmlref::space_to_depth1_desc>) {
                    src = naive_depth_space(false, d.order == dmlref::depth_space_order::depth_column_row,
                                            d.block_size, in, out, o);
                } else if constexpr (std::is_same_v<desc_t, dmlref::slice_desc>) {
                    // OutputTensor[o] = InputTensor[Offsets + Strides * o]
                    std::vector<std::int64_t> c(rank);
                    for (std::size_t i = 0; i < rank; ++i)
                        c[i] = std::int64_t{d.offsets[i]} + std::int64_t{d.strides[i]} * o[i];
                    src = c;
                } else if constexpr (std::is_same_v<desc_t, dmlref::slice1_desc>) {
                    // CopyStart = offsets, moved to the window's end for a negative stride.
                    std::vector<std::int64_t> c(rank);
                    for (std::size_t i = 0; i < rank; ++i) {
                        const std::int64_t stride = d.input_window_strides[i];
                        std::int64_t start = d.input_window_offsets[i];
                        if (stride < 0) start += std::int64_t{d.input_window_sizes[i]} - 1;
                        c[i] = start + stride * o[i];
                    }
                    src = c;
                } else { // PADDING, PADDING1: separable per axis
                    std::vector<std::int64_t> c(rank);
                    bool outside = false;
                    for (std::size_t i = 0; i < rank; ++i) {
                        const auto s = naive_pad_source(d.padding_mode, o[i] - std::int64_t{d.start_padding[i]},
                                                        in.sizes[i]);
                        if (!s) outside = true;
                        else c[i] = *s;
                    }
                    if (!outside) src = c;
                }
                std::byte* to = result.data() + out.index_of(o) * static_cast<std::int64_t>(out.width);
                if (src) {
                    for (std::size_t i = 0; i < rank; ++i)
                        if ((*src)[i] < 0 || (*src)[i] >= in.sizes[i])
                            throw std::logic_error("naive_execute: a source coordinate is outside the input");
                    std::memcpy(to, input.data() + in.index_of(*src) * static_cast<std::int64_t>(in.width), in.width);
                } else {
                    std::memcpy(to, fill.data(), out.width);
                }
            }
        },
        desc);
    return result;
}

} // namespace dmlref_test
