// Eigen 3.4's Tensor module on the workloads it can express, in its fastest form measured:
// depth/space as a 6-D row-major map shuffled into a 6-D map of the output, slices as
// reverse / stride / slice, and constant padding as pad (Eigen has no other padding mode).

#include <array>
#include <string>
#include <utility>

#include <unsupported/Eigen/CXX11/Tensor>

#include "bench_common.hpp"

namespace dmlref_bench {
namespace {

using index = Eigen::Index;
template <int Rank> using in_map = Eigen::TensorMap<const Eigen::Tensor<const float, Rank, Eigen::RowMajor>>;
template <int Rank> using out_map = Eigen::TensorMap<Eigen::Tensor<float, Rank, Eigen::RowMajor>>;

/// The 6-D input and output shapes of a depth/space workload and the shuffle between them.
struct six_d {
    std::array<index, 6> in{}, out{}, shuffle{};
};

six_d depth_space_shape(const workload& w) {
    const index n = w.in_sizes[0], c = w.in_sizes[1], h = w.in_sizes[2], wd = w.in_sizes[3], b = w.block;
    six_d s;
    if (w.kind == family::depth_to_space) {
        const index cs = c / (b * b);
        // Input depth split as (bh, bw, c') for DCR or (c', bh, bw) for CRD; output (n, c', h, bh, w, bw).
        if (w.dcr) {
            s.in = {n, b, b, cs, h, wd};
            s.shuffle = {0, 3, 4, 1, 5, 2};
        } else {
            s.in = {n, cs, b, b, h, wd};
            s.shuffle = {0, 1, 4, 2, 5, 3};
        }
        s.out = {n, cs, h, b, wd, b};
    } else {
        // Input (n, c, h', bh, w', bw); output depth (bh, bw, c) for DCR or (c, bh, bw) for CRD.
        s.in = {n, c, h / b, b, wd / b, b};
        if (w.dcr) {
            s.shuffle = {0, 3, 5, 1, 2, 4};
            s.out = {n, b, b, c, h / b, wd / b};
        } else {
            s.shuffle = {0, 1, 3, 5, 2, 4};
            s.out = {n, c, b, b, h / b, wd / b};
        }
    }
    return s;
}

std::array<index, 4> dims4(const std::vector<std::uint32_t>& sizes) {
    return {sizes[0], sizes[1], sizes[2], sizes[3]};
}

void run(benchmark::State& state, const workload& w) {
    const auto in4 = dims4(w.in_sizes), out4 = dims4(w.out_sizes);
    switch (w.kind) {
    case family::depth_to_space:
    case family::space_to_depth: {
        const six_d s = depth_space_shape(w);
        run_float_peer(state, w, [&](const float* in, float* out) {
            out_map<6>(out, s.out) = in_map<6>(in, s.in).shuffle(s.shuffle);
        });
        break;
    }
    case family::slice_reverse_w:
        run_float_peer(state, w, [&](const float* in, float* out) {
            out_map<4>(out, out4) = in_map<4>(in, in4).reverse(std::array<bool, 4>{false, false, false, true});
        });
        break;
    case family::slice_stride2_hw:
        run_float_peer(state, w, [&](const float* in, float* out) {
            out_map<4>(out, out4) = in_map<4>(in, in4).stride(std::array<index, 4>{1, 1, 2, 2});
        });
        break;
    case family::slice_window: {
        const std::array<index, 4> offsets{0, 0, in4[2] / 4, in4[3] / 4};
        run_float_peer(state, w, [&](const float* in, float* out) {
            out_map<4>(out, out4) = in_map<4>(in, in4).slice(offsets, out4);
        });
        break;
    }
    case family::slice_grad: break; // no peer has the operator: never registered (peers is false)
    case family::pad: {
        const std::array<std::pair<index, index>, 4> pads{{{0, 0}, {0, 0}, {3, 3}, {3, 3}}};
        run_float_peer(state, w, [&](const float* in, float* out) {
            out_map<4>(out, out4) = in_map<4>(in, in4).pad(pads, 0.0f);
        });
        break;
    }
    }
}

} // namespace

void register_eigen(const workload& w) {
    if (w.kind == family::pad && w.mode != dmlref::padding_mode::constant) return;
    benchmark::RegisterBenchmark((w.name + "/eigen").c_str(), run, std::cref(w))->UseManualTime();
}

} // namespace dmlref_bench
