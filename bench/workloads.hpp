#pragma once
/// \file workloads.hpp
/// The benchmark workloads of the performance issue, as DirectML descs plus the few numbers the
/// peer libraries need to express the same copy. Every implementation of a workload writes the
/// same output bytes; memcpy of that many bytes is the yardstick.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <dmlref/operator.hpp>

namespace dmlref_bench {

/// What a workload does, in the terms the peer implementations need.
enum class family { depth_to_space, space_to_depth, slice_reverse_w, slice_stride2_hw, slice_window, pad, slice_grad };

struct workload {
    std::string name;     ///< e.g. "d2s_dcr_b2/64MiB/f32"
    family kind{};
    dmlref::operator_desc desc;
    std::vector<std::uint32_t> in_sizes;  ///< 4-D NCHW for the peers (packed input)
    std::vector<std::uint32_t> out_sizes; ///< 4-D NCHW
    std::uint32_t block = 0;              ///< depth/space block size
    bool dcr = true;                      ///< depth/space order
    dmlref::padding_mode mode = dmlref::padding_mode::constant;
    bool peers = true;                    ///< packed 4-D float32 workload the peers also run
    bool naive = true;                    ///< small enough to time the naive evaluator
    bool packed = true;                   ///< the input has no strides of its own
    std::uint64_t in_bytes = 0, out_bytes = 0;
};

inline std::uint64_t bytes_of(const dmlref::buffer_tensor_desc& t) { return t.total_tensor_size_in_bytes; }

inline dmlref::data_type type_of_width(std::size_t width) {
    switch (width) {
    case 1: return dmlref::data_type::uint8;
    case 2: return dmlref::data_type::uint16;
    case 8: return dmlref::data_type::uint64;
    default: return dmlref::data_type::float32;
    }
}

inline std::string width_name(std::size_t width) {
    switch (width) {
    case 1: return "u8";
    case 2: return "u16";
    case 8: return "u64";
    default: return "f32";
    }
}

/// The input layouts the issue checks beside the packed one.
enum class input_layout { packed, padded_rows, broadcast_c };

inline dmlref::buffer_tensor_desc input_desc(dmlref::data_type type, const std::vector<std::uint32_t>& sizes,
                                             input_layout how) {
    using dmlref::make_buffer_tensor_desc;
    if (how == input_layout::packed || sizes.size() != 4) return make_buffer_tensor_desc(type, sizes);
    const std::uint32_t n = sizes[0], c = sizes[1], h = sizes[2], w = sizes[3];
    if (how == input_layout::padded_rows) { // each row 16 elements longer than it needs
        const std::uint32_t row = w + 16;
        return make_buffer_tensor_desc(type, sizes, std::vector<std::uint32_t>{c * h * row, h * row, row, 1});
    }
    (void)n; // broadcast: every channel reads the same plane
    return make_buffer_tensor_desc(type, sizes, std::vector<std::uint32_t>{h * w, 0, w, 1});
}

inline void finish(workload& w) {
    std::visit(
        dmlref::single_tensor_only{"the benchmark", [&](const auto& d) {
            w.in_bytes = bytes_of(d.input_tensor);
            w.packed = !d.input_tensor.strides.has_value();
            w.out_bytes = bytes_of(d.output_tensor);
        }},
        w.desc);
}

/// The four depth/space workloads and slices and pads on an NCHW input of `sizes`.
inline std::vector<workload> workloads_for(const std::string& size_name, std::vector<std::uint32_t> sizes,
                                           std::size_t width, input_layout how, const std::string& suffix) {
    using namespace dmlref;
    const data_type type = type_of_width(width);
    const bool peers = width == 4 && how == input_layout::packed;
    std::vector<workload> out;
    auto tag = [&](const std::string& op) { return op + "/" + size_name + "/" + width_name(width) + suffix; };

    for (std::uint32_t b : {2u, 3u}) {
        for (bool dcr : {true, false}) {
            const auto order = dcr ? depth_space_order::depth_column_row : depth_space_order::column_row_depth;
            const std::string o = dcr ? "dcr" : "crd";
            { // depth to space: channels rounded down to a multiple of b * b
                std::vector<std::uint32_t> in = sizes;
                in[1] = in[1] / (b * b) * (b * b);
                const std::vector<std::uint32_t> os{in[0], in[1] / (b * b), in[2] * b, in[3] * b};
                workload w{tag("d2s_" + o + "_b" + std::to_string(b)), family::depth_to_space,
                           depth_to_space1_desc{input_desc(type, in, how), make_buffer_tensor_desc(type, os), b, order},
                           in, os, b, dcr};
                w.peers = peers;
                finish(w);
                out.push_back(std::move(w));
            }
            { // space to depth: height and width rounded down to multiples of b
                std::vector<std::uint32_t> in = sizes;
                in[2] = in[2] / b * b;
                in[3] = in[3] / b * b;
                const std::vector<std::uint32_t> os{in[0], in[1] * b * b, in[2] / b, in[3] / b};
                workload w{tag("s2d_" + o + "_b" + std::to_string(b)), family::space_to_depth,
                           space_to_depth1_desc{input_desc(type, in, how), make_buffer_tensor_desc(type, os), b, order},
                           in, os, b, dcr};
                w.peers = peers;
                finish(w);
                out.push_back(std::move(w));
            }
        }
    }
    const std::uint32_t n = sizes[0], c = sizes[1], h = sizes[2], wd = sizes[3];
    auto slice = [&](const std::string& name, family kind, std::vector<std::uint32_t> os,
                     std::vector<std::uint32_t> offsets, std::vector<std::uint32_t> window,
                     std::vector<std::int32_t> strides) {
        workload w{tag(name), kind,
                   slice1_desc{input_desc(type, sizes, how), make_buffer_tensor_desc(type, os), std::move(offsets),
                               std::move(window), std::move(strides)},
                   sizes, os};
        w.peers = peers;
        finish(w);
        out.push_back(std::move(w));
    };
    slice("slice_reverse_w", family::slice_reverse_w, sizes, {0, 0, 0, 0}, sizes, {1, 1, 1, -1});
    slice("slice_stride2_hw", family::slice_stride2_hw, {n, c, h / 2, wd / 2}, {0, 0, 0, 0}, sizes, {1, 1, 2, 2});
    slice("slice_window", family::slice_window, {n, c, h / 2, wd / 2}, {0, 0, h / 4, wd / 4}, {n, c, h / 2, wd / 2},
          {1, 1, 1, 1});
    // SLICE_GRAD, the adjoints of slice_window (one pass: zeros around a copied block) and of
    // slice_stride2_hw (zeros first, then the strided copy): their output is `sizes`, the bytes
    // memcpy moves. No peer has the operator.
    auto slice_grad = [&](const std::string& name, std::vector<std::uint32_t> gs, std::vector<std::uint32_t> offsets,
                          std::vector<std::uint32_t> window, std::vector<std::int32_t> strides) {
        workload w{tag(name), family::slice_grad,
                   slice_grad_desc{input_desc(type, gs, how), make_buffer_tensor_desc(type, sizes), std::move(offsets),
                                   std::move(window), std::move(strides)},
                   gs, sizes};
        w.peers = false;
        finish(w);
        out.push_back(std::move(w));
    };
    slice_grad("slice_grad_window", {n, c, h / 2, wd / 2}, {0, 0, h / 4, wd / 4}, {n, c, h / 2, wd / 2}, {1, 1, 1, 1});
    slice_grad("slice_grad_stride2_hw", {n, c, h / 2, wd / 2}, {0, 0, 0, 0}, sizes, {1, 1, 2, 2});

    const char* mode_names[] = {"constant", "edge", "reflection", "symmetric", "wrap"};
    for (std::uint32_t m = 0; m <= 4; ++m) {
        const auto mode = static_cast<padding_mode>(m);
        const std::vector<std::uint32_t> os{n, c, h + 6, wd + 6};
        workload w{tag(std::string("pad_") + mode_names[m]), family::pad,
                   padding1_desc{input_desc(type, sizes, how), make_buffer_tensor_desc(type, os), mode, type,
                                 scalar_union{}, {0, 0, 3, 3}, {0, 0, 3, 3}},
                   sizes, os};
        w.mode = mode;
        w.peers = peers;
        finish(w);
        out.push_back(std::move(w));
    }
    return out;
}

/// Rank 8: the same bytes as {1, 64, 512, 512} split as {2, 2, 2, 2, 2, 2, 512, 512}.
inline std::vector<workload> rank8_workloads() {
    using namespace dmlref;
    const std::vector<std::uint32_t> sizes{2, 2, 2, 2, 2, 2, 512, 512};
    std::vector<workload> out;
    std::vector<std::uint32_t> zero(8, 0), ones(8, 1);
    std::vector<std::int32_t> reverse(8, 1);
    reverse[7] = -1;
    {
        workload w{"slice_reverse_w/64MiB/f32/rank8", family::slice_reverse_w,
                   slice1_desc{make_buffer_tensor_desc(data_type::float32, sizes),
                               make_buffer_tensor_desc(data_type::float32, sizes), zero, sizes, reverse},
                   sizes, sizes};
        w.peers = w.naive = false;
        finish(w);
        out.push_back(std::move(w));
    }
    {
        std::vector<std::uint32_t> os = sizes, pads = zero;
        os[6] += 6;
        os[7] += 6;
        pads[6] = pads[7] = 3;
        workload w{"pad_reflection/64MiB/f32/rank8", family::pad,
                   padding1_desc{make_buffer_tensor_desc(data_type::float32, sizes),
                                 make_buffer_tensor_desc(data_type::float32, os), padding_mode::reflection,
                                 data_type::float32, scalar_union{}, pads, pads},
                   sizes, os};
        w.mode = padding_mode::reflection;
        w.peers = w.naive = false;
        finish(w);
        out.push_back(std::move(w));
    }
    return out;
}

/// Every workload: float32 at 4 MiB and 64 MiB; 1-, 2- and 8-byte types at 64 MiB; padded-row
/// and broadcast inputs and rank 8 at 64 MiB.
inline std::vector<workload> all_workloads() {
    std::vector<workload> all;
    auto add = [&](std::vector<workload> more, bool naive) {
        for (auto& w : more) {
            w.naive = w.naive && naive;
            all.push_back(std::move(w));
        }
    };
    add(workloads_for("4MiB", {1, 64, 128, 128}, 4, input_layout::packed, ""), true);
    add(workloads_for("64MiB", {1, 64, 512, 512}, 4, input_layout::packed, ""), false);
    add(workloads_for("64MiB", {1, 64, 512, 2048}, 1, input_layout::packed, ""), false);
    add(workloads_for("64MiB", {1, 64, 512, 1024}, 2, input_layout::packed, ""), false);
    add(workloads_for("64MiB", {1, 64, 512, 256}, 8, input_layout::packed, ""), false);
    add(workloads_for("64MiB", {1, 64, 512, 512}, 4, input_layout::padded_rows, "/padded_rows"), false);
    add(workloads_for("64MiB", {1, 64, 512, 512}, 4, input_layout::broadcast_c, "/broadcast_c"), false);
    add(rank8_workloads(), false);
    return all;
}

} // namespace dmlref_bench
