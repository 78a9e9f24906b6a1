// xtensor 0.24 on the workloads it can express: depth/space as a transpose of a 6-D adaptor of
// the input, slices as strided_view, padding as xt::pad (no EDGE mode). Results are assigned
// with noalias into an adaptor of the caller's output buffer.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xpad.hpp>
#include <xtensor/xstrided_view.hpp>

#include "bench_common.hpp"

namespace dmlref_bench {
namespace {

template <std::size_t Rank> auto adapt(const float* data, const std::array<std::size_t, Rank>& shape) {
    std::size_t count = 1;
    for (std::size_t s : shape) count *= s;
    // xtensor adaptors want a mutable pointer; this one is only read.
    return xt::adapt(const_cast<float*>(data), count, xt::no_ownership(), shape);
}
template <std::size_t Rank> auto adapt(float* data, const std::array<std::size_t, Rank>& shape) {
    std::size_t count = 1;
    for (std::size_t s : shape) count *= s;
    return xt::adapt(data, count, xt::no_ownership(), shape);
}

std::array<std::size_t, 4> dims4(const std::vector<std::uint32_t>& sizes) {
    return {sizes[0], sizes[1], sizes[2], sizes[3]};
}

void run(benchmark::State& state, const workload& w) {
    using xt::placeholders::_;
    const auto in4 = dims4(w.in_sizes), out4 = dims4(w.out_sizes);
    const std::size_t n = in4[0], c = in4[1], h = in4[2], wd = in4[3], b = w.block;
    switch (w.kind) {
    case family::depth_to_space: {
        const std::size_t cs = c / (b * b);
        const std::array<std::size_t, 6> in6 = w.dcr ? std::array<std::size_t, 6>{n, b, b, cs, h, wd}
                                                     : std::array<std::size_t, 6>{n, cs, b, b, h, wd};
        const std::array<std::size_t, 6> out6{n, cs, h, b, wd, b};
        const std::array<std::size_t, 6> perm = w.dcr ? std::array<std::size_t, 6>{0, 3, 4, 1, 5, 2}
                                                      : std::array<std::size_t, 6>{0, 1, 4, 2, 5, 3};
        run_float_peer(state, w, [&](const float* in, float* out) {
            auto o = adapt(out, out6);
            xt::noalias(o) = xt::transpose(adapt(in, in6), perm);
        });
        break;
    }
    case family::space_to_depth: {
        const std::array<std::size_t, 6> in6{n, c, h / b, b, wd / b, b};
        const std::array<std::size_t, 6> out6 = w.dcr ? std::array<std::size_t, 6>{n, b, b, c, h / b, wd / b}
                                                      : std::array<std::size_t, 6>{n, c, b, b, h / b, wd / b};
        const std::array<std::size_t, 6> perm = w.dcr ? std::array<std::size_t, 6>{0, 3, 5, 1, 2, 4}
                                                      : std::array<std::size_t, 6>{0, 1, 3, 5, 2, 4};
        run_float_peer(state, w, [&](const float* in, float* out) {
            auto o = adapt(out, out6);
            xt::noalias(o) = xt::transpose(adapt(in, in6), perm);
        });
        break;
    }
    case family::slice_reverse_w:
        run_float_peer(state, w, [&](const float* in, float* out) {
            auto o = adapt(out, out4);
            xt::noalias(o) = xt::strided_view(adapt(in, in4), {xt::all(), xt::all(), xt::all(), xt::range(_, _, -1)});
        });
        break;
    case family::slice_stride2_hw:
        run_float_peer(state, w, [&](const float* in, float* out) {
            auto o = adapt(out, out4);
            xt::noalias(o) =
                xt::strided_view(adapt(in, in4), {xt::all(), xt::all(), xt::range(0, h, 2), xt::range(0, wd, 2)});
        });
        break;
    case family::slice_window:
        run_float_peer(state, w, [&](const float* in, float* out) {
            auto o = adapt(out, out4);
            xt::noalias(o) = xt::strided_view(
                adapt(in, in4), {xt::all(), xt::all(), xt::range(h / 4, h / 4 + h / 2), xt::range(wd / 4, wd / 4 + wd / 2)});
        });
        break;
    case family::slice_grad: break; // no peer has the operator: never registered (peers is false)
    case family::pad: {
        xt::pad_mode mode = xt::pad_mode::constant;
        if (w.mode == dmlref::padding_mode::reflection) mode = xt::pad_mode::reflect;
        if (w.mode == dmlref::padding_mode::symmetric) mode = xt::pad_mode::symmetric;
        if (w.mode == dmlref::padding_mode::wrap) mode = xt::pad_mode::wrap;
        const std::vector<std::vector<std::size_t>> pads{{0, 0}, {0, 0}, {3, 3}, {3, 3}};
        run_float_peer(state, w, [&](const float* in, float* out) {
            auto o = adapt(out, out4);
            xt::noalias(o) = xt::pad(adapt(in, in4), pads, mode, 0.0f);
        });
        break;
    }
    }
}

} // namespace

void register_xtensor(const workload& w) {
    if (w.kind == family::pad && w.mode == dmlref::padding_mode::edge) return; // xtensor has no EDGE mode
    benchmark::RegisterBenchmark((w.name + "/xtensor").c_str(), run, std::cref(w))->UseManualTime();
}

} // namespace dmlref_bench
