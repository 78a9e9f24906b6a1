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
            // ELEMENT_WISE_IDENTITY on FLOAT16 whose output, ordered by decreasing output stride over
            // the axes of more than one element the input does not broadcast, has increasing input
            // strides somewhere: the two tensors order their axes differently.
            const auto* e = std::get_if<element_wise_identity_desc>(&d);
            if (e == nullptr || e->input_tensor.data_type != data_type::float16) return false;
            const auto strides_of = [](const buffer_tensor_desc& t) { return t.strides ? *t.strides : packed_strides(t.sizes); };
            const auto in = strides_of(e->input_tensor), out = strides_of(e->output_tensor);
            std::vector<std::size_t> axes;
            for (std::size_t i = 0; i < e->input_tensor.sizes.size() && i < in.size() && i < out.size(); ++i)
                if (e->input_tensor.sizes[i] > 1 && in[i] != 0) axes.push_back(i);
            std::stable_sort(axes.begin(), axes.end(), [&](std::size_t a, std::size_t b) { return out[a] > out[b]; });
            for (std::size_t k = 1; k < axes.size(); ++k)
                if (in[axes[k]] > in[axes[k - 1]]) return true;
            return false;
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
        if (!k.differences.empty() && k.differences != "float16-signalling-nans-quieted")
            throw std::runtime_error(fmt::format("known divergences: {}: no difference pattern named '{}'", k.id, k.differences));
        if (!k.when.empty()) known_divergence::holds(k.when, operator_desc{}); // an unknown name fails here, not mid-run
        known.push_back(std::move(k));
    }
    return known;
}

} // namespace dmlref::parity
