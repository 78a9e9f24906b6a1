#pragma once
/// \file known_divergences.hpp
/// tests/directml/known-divergences.json as the tool reads it: the classes of descs where dmlref
/// deliberately differs from DirectML (a crash, a 32-bit wrap), each with its reproducer.
/// `directml-parity --known` and `run --backend directml --known` count a disagreement they cover
/// as known instead of failing.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <dmlref/operator.hpp>

namespace dmlref::parity {

/// A known divergence: a class of descs where dmlref deliberately differs from DirectML.
struct known_divergence {
    std::string id, direction, reason;
    std::vector<std::string> classes;   // parity classes it covers (a trailing * matches a prefix); empty: any
    std::vector<std::string> operators; // empty: every operator
    // The reproducer: draw `draw` of boundary class (`reproducer_op`, `reproducer_class`) of `seed`
    // (parity::index_of gives its case index), and its desc as dmlref prints it.
    std::uint64_t seed = 0, draw = 0;
    std::string reproducer_op, reproducer_class;
    std::string desc;
    std::string when;                   // a named condition on the desc (see holds), or "" for none
    std::string differences;            // for an output divergence: the pattern every differing element
                                        // must follow (see difference_pattern), or "" for any

    /// Whether a disagreement `observed` ("output" when the outputs differ, else the verdict:
    /// crash, dmlref-rejects, dmlref-accepts) on desc `d` of operator `op` and parity class `klass`
    /// ("" for a desc from elsewhere, such as a model file) is this divergence. `pattern`: what
    /// difference_pattern says of the two outputs, when they differ.
    bool covers(std::string_view observed, std::string_view op, std::string_view klass, const operator_desc& d,
                std::string_view pattern = {}) const {
        if (observed != direction) return false;
        if (!differences.empty() && pattern != differences) return false;
        if (!operators.empty() && std::find(operators.begin(), operators.end(), op) == operators.end()) return false;
        if (!when.empty() && !holds(when, d)) return false;
        if (classes.empty()) return true;
        return std::any_of(classes.begin(), classes.end(), [&](const std::string& k) {
            return !k.empty() && k.back() == '*' ? klass.starts_with(std::string_view(k).substr(0, k.size() - 1)) : klass == k;
        });
    }

    /// FLOAT16 tensors whose output, ordered by decreasing output stride over the axes of more than
    /// one element the input does not broadcast, has increasing input strides somewhere: the two
    /// tensors order their axes differently (a transpose through strides).
    static bool float16_transposed(const buffer_tensor_desc& input, const buffer_tensor_desc& output) {
        if (input.data_type != data_type::float16) return false;
        const auto strides_of = [](const buffer_tensor_desc& t) { return t.strides ? *t.strides : packed_strides(t.sizes); };
        const auto in = strides_of(input), out = strides_of(output);
        std::vector<std::size_t> axes;
        for (std::size_t i = 0; i < input.sizes.size() && i < in.size() && i < out.size(); ++i)
            if (input.sizes[i] > 1 && in[i] != 0) axes.push_back(i);
        std::stable_sort(axes.begin(), axes.end(), [&](std::size_t a, std::size_t b) { return out[a] > out[b]; });
        for (std::size_t k = 1; k < axes.size(); ++k)
            if (in[axes[k]] > in[axes[k - 1]]) return true;
        return false;
    }

    /// The named conditions a known divergence may require of a desc.
    static bool holds(const std::string& name, const operator_desc& d) {
        if (name == "padding-value-outside-integer-type") {
            // CONSTANT PADDING's FLOAT value, for an integer tensor type, is NaN, infinite, or
            // outside the type's range after truncation toward zero (the other modes never write it).
            const auto* p = std::get_if<padding_desc>(&d);
            if (p == nullptr || p->padding_mode != padding_mode::constant) return false;
            const data_type t = p->output_tensor.data_type;
            const double v = static_cast<double>(p->padding_value);
            if (t == data_type::float32 || t == data_type::float16 || t == data_type::float64) return false;
            if (v != v || v == std::numeric_limits<double>::infinity() || v == -std::numeric_limits<double>::infinity())
                return true;
            const double x = std::trunc(v);
            const unsigned bits = static_cast<unsigned>(element_bits(t));
            const bool is_signed = t == data_type::int8 || t == data_type::int16 || t == data_type::int32 || t == data_type::int64;
            const double low = is_signed ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : 0.0;
            const double high = is_signed ? std::ldexp(1.0, static_cast<int>(bits) - 1) : std::ldexp(1.0, static_cast<int>(bits));
            return x < low || x >= high;
        }
        if (name == "float16-identity-transposed") {
            // ELEMENT_WISE_IDENTITY on FLOAT16 whose input and output order their axes differently.
            const auto* e = std::get_if<element_wise_identity_desc>(&d);
            return e != nullptr && float16_transposed(e->input_tensor, e->output_tensor);
        }
        if (name == "float16-scatter-input-transposed") {
            // SCATTER_ELEMENTS on FLOAT16 whose InputTensor and OutputTensor order their axes
            // differently: the input's elements that no update overwrites are copied as by a transpose.
            const auto* s = std::get_if<scatter_elements_desc>(&d);
            return s != nullptr && float16_transposed(s->input_tensor, s->output_tensor);
        }
        if (name == "slice-grad-before-start") {
            // SLICE_GRAD with a negative stride on an axis whose gradient elements run from CopyStart
            // down past coordinate 0 (dmlref writes nothing outside a tensor; DirectML accepts it).
            const auto* g = std::get_if<slice_grad_desc>(&d);
            if (g == nullptr) return false;
            for (std::size_t i = 0; i < g->input_window_strides.size() && i < g->input_tensor.sizes.size() &&
                                    i < g->input_window_offsets.size() && i < g->input_window_sizes.size();
                 ++i) {
                const std::int64_t s = g->input_window_strides[i];
                if (s >= 0) continue;
                const std::int64_t copy_start = std::int64_t{g->input_window_offsets[i]} + g->input_window_sizes[i] - 1;
                if (copy_start - (std::int64_t{g->input_tensor.sizes[i]} - 1) * -s < 0) return true;
            }
            return false;
        }
        if (name == "float16-upsample") { // UPSAMPLE_2D on FLOAT16, whatever its layout and scales
            const auto* u = std::get_if<upsample_2d_desc>(&d);
            return u != nullptr && u->input_tensor.data_type == data_type::float16;
        }
        if (name == "gather-output-past-8-dimensions") {
            // GATHER whose logical output, N + IndexDimensions - 1 dimensions before its leading 1s
            // drop to the tensors' N, is longer than 8: DirectML overruns its 8-dimension arrays.
            const auto* g = std::get_if<gather_desc>(&d);
            return g != nullptr && g->input_tensor.sizes.size() + g->index_dimensions > 9;
        }
        if (name == "gather-index-sizes-before-index-dimensions") {
            // GATHER with an IndicesTensor size other than 1 before its last IndexDimensions axes.
            const auto* g = std::get_if<gather_desc>(&d);
            if (g == nullptr) return false;
            const std::size_t n = g->indices_tensor.sizes.size(), k = g->index_dimensions;
            for (std::size_t e = 0; e + k < n; ++e)
                if (g->indices_tensor.sizes[e] != 1) return true;
            return false;
        }
        if (name == "gather-output-padding-axes") {
            // GATHER whose logical output is shorter than N (IndexDimensions 0: N - 1 entries), with
            // an output size other than 1 on the leading axes that pad it.
            const auto* g = std::get_if<gather_desc>(&d);
            if (g == nullptr) return false;
            const std::size_t n = g->output_tensor.sizes.size(), logical = n + g->index_dimensions - 1;
            for (std::size_t j = 0; j + logical < n; ++j)
                if (g->output_tensor.sizes[j] != 1) return true;
            return false;
        }
        if (name == "scatter-nd-tuple-longer-than-input-dimensions") {
            // SCATTER_ND whose index tuple, IndicesTensor.Sizes[N-1], is longer than
            // InputDimensionCount: dmlref refuses it; DirectML 1.15.4 fails fast (0xc0000409).
            const auto* s = std::get_if<scatter_nd_desc>(&d);
            return s != nullptr && !s->indices_tensor.sizes.empty() &&
                   s->indices_tensor.sizes.back() > s->input_dimension_count;
        }
        if (name == "gather-nd1-batch-sizes-differ") {
            // GATHER_ND1 whose batch sizes of InputTensor and IndicesTensor differ somewhere.
            const auto* g = std::get_if<gather_nd1_desc>(&d);
            if (g == nullptr) return false;
            const auto& in = g->input_tensor.sizes;
            const auto& idx = g->indices_tensor.sizes;
            for (std::size_t b = 0; b < g->batch_dimension_count; ++b) {
                if (g->input_dimension_count > in.size() || g->indices_dimension_count > idx.size()) return false;
                const std::size_t i = in.size() - g->input_dimension_count + b, e = idx.size() - g->indices_dimension_count + b;
                if (i < in.size() && e < idx.size() && in[i] != idx[e]) return true;
            }
            return false;
        }
        if (name == "scatter-nd-updates-dimension-count-other-same-sizes") {
            // SCATTER_ND whose UpdatesTensor has another DimensionCount than InputTensor and whose
            // sizes, leading 1s left out, are the updates' logical sizes (Indices.Sizes[M-J..M-1),
            // the input's last I - T sizes) with their leading 1s left out.
            const auto* s = std::get_if<scatter_nd_desc>(&d);
            if (s == nullptr) return false;
            const auto& in = s->input_tensor.sizes;
            const auto& idx = s->indices_tensor.sizes;
            const auto& upd = s->updates_tensor.sizes;
            if (upd.size() == in.size() || idx.empty() || s->indices_dimension_count > idx.size() ||
                s->input_dimension_count > in.size() || idx.back() > s->input_dimension_count)
                return false;
            std::vector<std::uint32_t> logical(idx.end() - static_cast<std::ptrdiff_t>(s->indices_dimension_count), idx.end() - 1);
            const std::size_t rest = s->input_dimension_count - idx.back();
            logical.insert(logical.end(), in.end() - static_cast<std::ptrdiff_t>(rest), in.end());
            const auto strip = [](const std::vector<std::uint32_t>& v) {
                auto first = std::find_if(v.begin(), v.end(), [](std::uint32_t x) { return x != 1; });
                return std::vector<std::uint32_t>(first, v.end());
            };
            return strip(upd) == strip(logical);
        }
        throw std::runtime_error("known divergences: no condition named '" + name + "'");
    }
};

/// The pattern every element where `expected` (dmlref's) and `actual` (DirectML's) differ follows,
/// both packed tensors of `type`: "float16-signalling-nans-quieted" when each such FLOAT16 element
/// is a signalling NaN in dmlref's output and the same NaN with its quiet bit set in DirectML's;
/// else "" (no pattern, or no difference).
inline std::string difference_pattern(data_type type, std::span<const std::byte> expected, std::span<const std::byte> actual) {
    if (type != data_type::float16 || expected.size() != actual.size() || expected.size() % 2 != 0) return "";
    bool any = false;
    for (std::size_t i = 0; i < expected.size(); i += 2) {
        const auto bits = [](std::span<const std::byte> b, std::size_t at) {
            return static_cast<std::uint16_t>(std::to_integer<unsigned>(b[at]) | std::to_integer<unsigned>(b[at + 1]) << 8);
        };
        const std::uint16_t e = bits(expected, i), a = bits(actual, i);
        if (e == a) continue;
        const bool signalling_nan = (e & 0x7c00u) == 0x7c00u && (e & 0x03ffu) != 0 && (e & 0x0200u) == 0;
        if (!signalling_nan || a != (e | 0x0200u)) return "";
        any = true;
    }
    return any ? "float16-signalling-nans-quieted" : "";
}

/// SLICE_GRAD as DirectML 1.15.4 and 1.14.1 run it (measured: docs/directml.md, "SLICE_GRAD whose
/// gradient is shorter than a window over a whole axis"): before it places the gradient, DirectML
/// merges each pair of adjacent axes i - 1, i where
///   - the window covers axis i whole: InputWindowOffsets[i] 0, InputWindowStrides[i] 1 and
///     InputWindowSizes[i] = OutputGradientTensor.Sizes[i];
///   - InputWindowStrides[i - 1] is 1;
///   - each tensor is contiguous across the pair: Strides[i - 1] = Strides[i] * Sizes[i] (or one
///     of the two axes has a single element), the input gradient by its own sizes.
/// The merged axis has the product of the sizes, the inner axis's stride, InputWindowOffsets[i - 1]
/// * OutputGradientTensor.Sizes[i] and InputWindowSizes[i - 1] * OutputGradientTensor.Sizes[i].
/// That is the index equation whenever InputGradientTensor.Sizes[i] equals the window's; where it is
/// smaller, the gradient's elements run on along the merged axis instead of starting each row
/// anew. Returns the desc with those axes merged (its tensors' bytes unchanged), or nullopt where
/// no pair merges. Liberal where unmeasured (an axis of one element merges): it only explains.
inline std::optional<slice_grad_desc> slice_grad_merged_as_directml(const slice_grad_desc& d) {
    struct axis {
        std::uint64_t out, out_stride, grad, grad_stride, offset, size;
        std::int64_t stride;
    };
    const std::size_t rank = d.input_tensor.sizes.size();
    if (rank < 2 || d.output_tensor.sizes.size() != rank || d.input_window_offsets.size() != rank ||
        d.input_window_sizes.size() != rank || d.input_window_strides.size() != rank)
        return std::nullopt;
    const auto strides_of = [](const buffer_tensor_desc& t) { return t.strides ? *t.strides : packed_strides(t.sizes); };
    const auto os = strides_of(d.output_tensor), gs = strides_of(d.input_tensor);
    if (os.size() != rank || gs.size() != rank) return std::nullopt;
    std::vector<axis> axes;
    for (std::size_t i = 0; i < rank; ++i)
        axes.push_back({d.output_tensor.sizes[i], os[i], d.input_tensor.sizes[i], gs[i], d.input_window_offsets[i],
                        d.input_window_sizes[i], d.input_window_strides[i]});
    const auto contiguous = [](std::uint64_t outer_size, std::uint64_t outer_stride, std::uint64_t inner_size,
                               std::uint64_t inner_stride) {
        return outer_size == 1 || inner_size == 1 || outer_stride == inner_stride * inner_size;
    };
    bool merged = false;
    for (std::size_t i = axes.size() - 1; i >= 1; --i) {
        const axis& a = axes[i - 1];
        const axis& b = axes[i];
        if (b.offset != 0 || b.stride != 1 || b.size != b.out || a.stride != 1) continue;
        if (!contiguous(a.out, a.out_stride, b.out, b.out_stride) || !contiguous(a.grad, a.grad_stride, b.grad, b.grad_stride))
            continue;
        const axis m{a.out * b.out, b.out == 1 ? a.out_stride : b.out_stride, a.grad * b.grad,
                     b.grad == 1 ? a.grad_stride : b.grad_stride, a.offset * b.out, a.size * b.out, 1};
        axes[i - 1] = m;
        axes.erase(axes.begin() + static_cast<std::ptrdiff_t>(i));
        merged = true;
    }
    if (!merged) return std::nullopt;
    slice_grad_desc m = d;
    const auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
    std::vector<std::uint32_t> out_sizes, out_strides, grad_sizes, grad_strides;
    m.input_window_offsets.clear();
    m.input_window_sizes.clear();
    m.input_window_strides.clear();
    for (const axis& x : axes) {
        if (x.out > UINT32_MAX || x.grad > UINT32_MAX || x.offset > UINT32_MAX || x.size > UINT32_MAX) return std::nullopt;
        out_sizes.push_back(u32(x.out));
        out_strides.push_back(u32(x.out_stride));
        grad_sizes.push_back(u32(x.grad));
        grad_strides.push_back(u32(x.grad_stride));
        m.input_window_offsets.push_back(u32(x.offset));
        m.input_window_sizes.push_back(u32(x.size));
        m.input_window_strides.push_back(static_cast<std::int32_t>(x.stride));
    }
    m.output_tensor.sizes = out_sizes;
    m.output_tensor.strides = out_strides;
    m.input_tensor.sizes = grad_sizes;
    m.input_tensor.strides = grad_strides;
    return m;
}

/// "slice-grad-merged-axes" when `d` is a SLICE_GRAD whose axes DirectML merges
/// (slice_grad_merged_as_directml) and `actual`, DirectML's output buffer whole, is byte for byte
/// what dmlref computes for the merged desc from `input` into a buffer that started as `before`
/// (the sentinel the run started the output as); else "".
inline std::string slice_grad_pattern(const operator_desc& d, std::span<const std::byte> input,
                                      std::span<const std::byte> before, std::span<const std::byte> actual) {
    const auto* g = std::get_if<slice_grad_desc>(&d);
    if (g == nullptr) return "";
    const auto merged = slice_grad_merged_as_directml(*g);
    if (!merged || before.size() != actual.size()) return "";
    std::vector<std::byte> predicted(before.begin(), before.end());
    try {
        execute(*merged, input, predicted);
    } catch (const validation_error&) {
        return "";
    }
    return std::equal(predicted.begin(), predicted.end(), actual.begin(), actual.end()) ? "slice-grad-merged-axes" : "";
}

/// "one-hot-on-value-past-last-axis" when `d` is a ONE_HOT whose ValuesTensor has size 1 on its
/// last axis and `actual`, DirectML's output buffer whole, is byte for byte what dmlref computes
/// from `inputs` into a buffer that started as `before` with OnValue read as DirectML reads it: at
/// coordinate 1 of the last axis (the desc with ValuesTensor's sizes {1, ..., 1, 2} over its own
/// last stride; nothing where that element lies outside the buffer); else "".
inline std::string one_hot_pattern(const operator_desc& d, std::span<const std::span<const std::byte>> inputs,
                                   std::span<const std::byte> before, std::span<const std::byte> actual) {
    const auto* h = std::get_if<one_hot_desc>(&d);
    if (h == nullptr || inputs.size() != 2 || before.size() != actual.size()) return "";
    const buffer_tensor_desc& v = h->values_tensor;
    const std::size_t n = v.sizes.size();
    if (n == 0 || v.sizes[n - 1] != 1) return "";
    const std::vector<std::uint32_t> strides = v.strides ? *v.strides : packed_strides(v.sizes);
    one_hot_desc m = *h;
    m.values_tensor.sizes.assign(n, 1);
    m.values_tensor.sizes[n - 1] = 2;
    m.values_tensor.strides = std::vector<std::uint32_t>(n, 0);
    (*m.values_tensor.strides)[n - 1] = strides[n - 1];
    if (calc_buffer_tensor_size(m.values_tensor) > v.total_tensor_size_in_bytes) return "";
    std::vector<std::byte> predicted(before.begin(), before.end());
    const std::span<std::byte> outs[] = {predicted};
    try {
        execute(operator_desc{m}, inputs, outs);
    } catch (const validation_error&) {
        return "";
    }
    return std::equal(predicted.begin(), predicted.end(), actual.begin(), actual.end()) ? "one-hot-on-value-past-last-axis" : "";
}

/// How DirectML's output differs from dmlref's, in a known divergence's terms: difference_pattern
/// of the compared elements (`expected`, `actual`), else slice_grad_pattern, else one_hot_pattern,
/// on the first output buffer as DirectML wrote it (`actual_buffer`, started as `before`) from
/// `inputs`; "" where none applies.
inline std::string output_difference(const operator_desc& d, std::span<const std::byte> expected, std::span<const std::byte> actual,
                                     std::span<const std::span<const std::byte>> inputs, std::span<const std::byte> before,
                                     std::span<const std::byte> actual_buffer) {
    std::string pattern = difference_pattern(data_type_of(d), expected, actual);
    if (pattern.empty() && !inputs.empty()) pattern = slice_grad_pattern(d, inputs[0], before, actual_buffer);
    if (pattern.empty()) pattern = one_hot_pattern(d, inputs, before, actual_buffer);
    return pattern;
}

/// The divergences of the JSON file at `path` ("" = none).
inline std::vector<known_divergence> load_known(const std::string& path) {
    std::vector<known_divergence> known;
    if (path.empty()) return known;
    std::ifstream in(path);
    if (!in) throw std::runtime_error(fmt::format("--known: cannot read '{}'", path));
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const nlohmann::json& e : doc.at("divergences")) {
        known_divergence k;
        k.id = e.at("id").get<std::string>();
        k.direction = e.at("direction").get<std::string>();
        if (e.contains("classes")) k.classes = e.at("classes").get<std::vector<std::string>>();
        k.reason = e.at("reason").get<std::string>();
        if (e.contains("operators")) k.operators = e.at("operators").get<std::vector<std::string>>();
        const nlohmann::json& r = e.at("reproducer");
        k.seed = r.at("seed").get<std::uint64_t>();
        k.reproducer_op = r.at("operator").get<std::string>();
        k.reproducer_class = r.at("class").get<std::string>();
        k.draw = r.at("draw").get<std::uint64_t>();
        k.desc = r.at("desc").get<std::string>();
        k.when = e.value("when", std::string());
        k.differences = e.value("differences", std::string());
        if (!k.differences.empty() && k.differences != "float16-signalling-nans-quieted" &&
            k.differences != "slice-grad-merged-axes" && k.differences != "one-hot-on-value-past-last-axis")
            throw std::runtime_error(fmt::format("known divergences: {}: no difference pattern named '{}'", k.id, k.differences));
        if (!k.when.empty()) known_divergence::holds(k.when, operator_desc{}); // an unknown name fails here, not mid-run
        known.push_back(std::move(k));
    }
    return known;
}

} // namespace dmlref::parity
