// The descs `dmlref directml-parity` puts to dmlref and to DirectML (tools/parity_cases.hpp):
// each case depends on (seed, index) alone; any 3,000 consecutive boundary cases visit every
// (operator, class) pair; every "valid: ..." class and every valid case is valid under dmlref;
// and every other boundary case is a base that dmlref accepts with exactly the fields its class
// names changed (one; two or three for the few coupled classes), judged by a field comparison
// written here, apart from the generator. The verdicts on the mutated descs are not asserted:
// they are what the comparison with DirectML is for.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/format.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "known_divergences.hpp"
#include "parity_cases.hpp"

using namespace dmlref;

namespace {

/// The bytes of these FLOAT32 values.
std::vector<std::byte> floats(const std::vector<float>& v) {
    std::vector<std::byte> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

template <class V> bool prefix_differs(const V& a, const V& b) {
    const std::size_t n = std::min(a.size(), b.size());
    return !std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin());
}

void tensor_fields(const std::string& name, const buffer_tensor_desc& a, const buffer_tensor_desc& b,
                   std::set<std::string>& fields) {
    if (a.data_type != b.data_type) fields.insert(name + ".DataType");
    if (a.flags != b.flags) fields.insert(name + ".Flags");
    if (a.sizes.size() != b.sizes.size()) fields.insert(name + ".DimensionCount");
    if (prefix_differs(a.sizes, b.sizes)) fields.insert(name + ".Sizes");
    const auto excess = [](const buffer_tensor_desc& t) {
        return static_cast<std::ptrdiff_t>(t.strides->size()) - static_cast<std::ptrdiff_t>(t.sizes.size());
    };
    if (a.strides.has_value() != b.strides.has_value() ||
        (a.strides && (excess(a) != excess(b) || prefix_differs(*a.strides, *b.strides))))
        fields.insert(name + ".Strides");
    if (a.total_tensor_size_in_bytes != b.total_tensor_size_in_bytes) fields.insert(name + ".TotalTensorSizeInBytes");
    if (a.guaranteed_base_offset_alignment != b.guaranteed_base_offset_alignment)
        fields.insert(name + ".GuaranteedBaseOffsetAlignment");
}

/// The length of the op's arrays, as DirectML's one DimensionCount carries it (-1 when they differ).
template <class... V> std::ptrdiff_t common_length(const V&... arrays) {
    const std::size_t lengths[] = {arrays.size()...};
    for (std::size_t n : lengths)
        if (n != lengths[0]) return -1;
    return static_cast<std::ptrdiff_t>(lengths[0]);
}

/// The DirectML fields in which two descs of one operator differ. Sizes, Strides and the op's
/// arrays compare on their common prefix; their lengths are DimensionCount (the tensor's, or the
/// operator's for its arrays when they all keep one length), as DirectML's structs carry them.
std::set<std::string> differing_fields(const operator_desc& a, const operator_desc& b) {
    REQUIRE(a.index() == b.index());
    std::set<std::string> fields;
    if (parity::detail::is_indexed_op(type_of(a))) { // every tensor by its name, then the scalars
        auto x = a, y = b;
        const auto tx = parity::detail::indexed_tensors(x), ty = parity::detail::indexed_tensors(y);
        for (std::size_t k = 0; k < tx.size(); ++k) tensor_fields(tx[k].first, *tx[k].second, *ty[k].second, fields);
        const auto sx = parity::detail::indexed_scalars(x), sy = parity::detail::indexed_scalars(y);
        for (std::size_t k = 0; k < sx.size(); ++k)
            if (*sx[k].second != *sy[k].second) fields.insert(sx[k].first);
        return fields;
    }
    if (binds_tensor_arrays(type_of(a))) {
        // The whole and each part present in both, by DirectML's names; the count; Axis.
        const bool join = type_of(a) == operator_type::join;
        const auto pa = join ? inputs_of(a) : outputs_of(a), pb = join ? inputs_of(b) : outputs_of(b);
        const auto wa = join ? outputs_of(a) : inputs_of(a), wb = join ? outputs_of(b) : inputs_of(b);
        tensor_fields(wa.front().field, wa.front().desc(), wb.front().desc(), fields);
        if (pa.size() != pb.size()) fields.insert(join ? "InputCount" : "OutputCount");
        for (std::size_t k = 0; k < std::min(pa.size(), pb.size()); ++k) tensor_fields(pa[k].field, pa[k].desc(), pb[k].desc(), fields);
        const auto axis = [](const operator_desc& d) {
            return std::visit([](const auto& x) -> std::uint32_t {
                if constexpr (requires { x.axis; }) return x.axis;
                else return 0;
            }, d);
        };
        if (axis(a) != axis(b)) fields.insert("Axis");
        return fields;
    }
    std::visit(single_tensor_only{"differing_fields",
        [&](const auto& x) {
            using D = std::remove_cvref_t<decltype(x)>;
            const D& y = std::get<D>(b);
            tensor_fields("InputTensor", x.input_tensor, y.input_tensor, fields);
            tensor_fields("OutputTensor", x.output_tensor, y.output_tensor, fields);
            if constexpr (requires { x.block_size; })
                if (x.block_size != y.block_size) fields.insert("BlockSize");
            if constexpr (requires { x.order; })
                if (x.order != y.order) fields.insert("Order");
            // All the arrays one length in both, the length changed: DimensionCount. Otherwise an
            // array whose length or common prefix changed is that array's change.
            const auto arrays = [&](std::ptrdiff_t dims_x, std::ptrdiff_t dims_y,
                                    std::initializer_list<std::pair<const char*, bool>> named) {
                const bool uniform = dims_x >= 0 && dims_y >= 0;
                if (uniform && dims_x != dims_y) fields.insert("DimensionCount");
                for (const auto& [name, differs] : named)
                    if (differs) fields.insert(name);
            };
            const auto differs = [&](const auto& u, const auto& v, std::ptrdiff_t dims_x, std::ptrdiff_t dims_y) {
                const bool uniform = dims_x >= 0 && dims_y >= 0;
                return prefix_differs(u, v) || (!uniform && u.size() != v.size());
            };
            if constexpr (std::is_same_v<D, slice_desc>) {
                const auto dx = common_length(x.offsets, x.sizes, x.strides), dy = common_length(y.offsets, y.sizes, y.strides);
                arrays(dx, dy,
                       {{"Offsets", differs(x.offsets, y.offsets, dx, dy)},
                        {"Sizes", differs(x.sizes, y.sizes, dx, dy)},
                        {"Strides", differs(x.strides, y.strides, dx, dy)}});
            } else if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_grad_desc>) {
                const auto dx = common_length(x.input_window_offsets, x.input_window_sizes, x.input_window_strides);
                const auto dy = common_length(y.input_window_offsets, y.input_window_sizes, y.input_window_strides);
                arrays(dx, dy,
                       {{"InputWindowOffsets", differs(x.input_window_offsets, y.input_window_offsets, dx, dy)},
                        {"InputWindowSizes", differs(x.input_window_sizes, y.input_window_sizes, dx, dy)},
                        {"InputWindowStrides", differs(x.input_window_strides, y.input_window_strides, dx, dy)}});
            } else if constexpr (std::is_same_v<D, padding_desc> || std::is_same_v<D, padding1_desc>) {
                if (x.padding_mode != y.padding_mode) fields.insert("PaddingMode");
                const auto dx = common_length(x.start_padding, x.end_padding), dy = common_length(y.start_padding, y.end_padding);
                arrays(dx, dy,
                       {{"StartPadding", differs(x.start_padding, y.start_padding, dx, dy)},
                        {"EndPadding", differs(x.end_padding, y.end_padding, dx, dy)}});
                if constexpr (std::is_same_v<D, padding_desc>) {
                    if (std::bit_cast<std::uint32_t>(x.padding_value) != std::bit_cast<std::uint32_t>(y.padding_value))
                        fields.insert("PaddingValue");
                } else {
                    if (x.padding_value_data_type != y.padding_value_data_type) fields.insert("PaddingValueDataType");
                    if (x.padding_value != y.padding_value) fields.insert("PaddingValue");
                }
            } else if constexpr (std::is_same_v<D, element_wise_identity_desc>) {
                if (x.scale_bias != y.scale_bias) fields.insert("ScaleBias");
            } else if constexpr (std::is_same_v<D, tile_desc>) {
                if (x.repeats.size() != y.repeats.size()) fields.insert("RepeatsCount");
                else if (x.repeats != y.repeats) fields.insert("Repeats");
            } else if constexpr (std::is_same_v<D, upsample_2d_desc>) {
                if (x.scale_size.height != y.scale_size.height) fields.insert("ScaleSize.Height");
                if (x.scale_size.width != y.scale_size.width) fields.insert("ScaleSize.Width");
                if (x.interpolation_mode != y.interpolation_mode) fields.insert("InterpolationMode");
            }
        }},
        a);
    return fields;
}

const buffer_tensor_desc& input(const operator_desc& d) { return random_cases::input_of(d); }
const buffer_tensor_desc& output(const operator_desc& d) { return random_cases::output_of(d); }

/// Every tensor the desc binds, inputs first (JOIN with InputCount 0 has only its output).
std::vector<bound_tensor> tensors_of(const operator_desc& d) {
    std::vector<bound_tensor> all = inputs_of(d);
    for (const bound_tensor& t : outputs_of(d)) all.push_back(t);
    return all;
}

bool expressible_here(const operator_desc& d) {
    for (const bound_tensor& t : tensors_of(d))
        if (t.desc().strides && t.desc().strides->size() != t.desc().sizes.size()) return false;
    return std::visit(
        [](const auto& x) {
            using D = std::remove_cvref_t<decltype(x)>;
            if constexpr (std::is_same_v<D, slice_desc>) return common_length(x.offsets, x.sizes, x.strides) >= 0;
            else if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_grad_desc>)
                return common_length(x.input_window_offsets, x.input_window_sizes, x.input_window_strides) >= 0;
            else if constexpr (std::is_same_v<D, padding_desc> || std::is_same_v<D, padding1_desc>)
                return common_length(x.start_padding, x.end_padding) >= 0;
            else return true;
        },
        d);
}

bool huge_here(const operator_desc& d) {
    constexpr std::uint64_t limit = 64ull << 20;
    for (const bound_tensor& t : tensors_of(d))
        if (t.desc().total_tensor_size_in_bytes > limit || calc_buffer_tensor_size(t.desc()) > limit) return true;
    return false;
}

/// Every field of a desc as text, written here (not format.hpp's), for the pinned hash.
std::string fields_text(const operator_desc& d) {
    const auto tensor = [](const buffer_tensor_desc& t) {
        return fmt::format("{}|{}|{}|{}|{}|{}", static_cast<std::uint32_t>(t.data_type), static_cast<std::uint32_t>(t.flags),
                           fmt::join(t.sizes, ","), t.strides ? fmt::format("{}", fmt::join(*t.strides, ",")) : "-",
                           t.total_tensor_size_in_bytes, t.guaranteed_base_offset_alignment);
    };
    if (parity::detail::is_indexed_op(type_of(d))) { // every tensor in binding order, then the scalars
        std::string text = fmt::format("{}", static_cast<std::uint32_t>(type_of(d)));
        for (const bound_tensor& t : tensors_of(d)) text += ";" + tensor(t.desc());
        auto copy = d;
        for (const auto& [name, v] : parity::detail::indexed_scalars(copy)) text += fmt::format(";{}", *v);
        return text;
    }
    if (binds_tensor_arrays(type_of(d))) { // every tensor in binding order, then Axis
        std::string text = fmt::format("{}", static_cast<std::uint32_t>(type_of(d)));
        for (const bound_tensor& t : tensors_of(d)) text += ";" + tensor(t.desc());
        return text + std::visit([](const auto& x) {
            if constexpr (requires { x.axis; }) return fmt::format(";{}", x.axis);
            else return std::string();
        }, d);
    }
    std::string text = fmt::format("{};{};{}", static_cast<std::uint32_t>(type_of(d)), tensor(input(d)), tensor(output(d)));
    std::visit(
        [&](const auto& x) {
            using D = std::remove_cvref_t<decltype(x)>;
            if constexpr (requires { x.block_size; }) text += fmt::format(";{}", x.block_size);
            if constexpr (requires { x.order; }) text += fmt::format(";{}", static_cast<std::uint32_t>(x.order));
            if constexpr (std::is_same_v<D, slice_desc>)
                text += fmt::format(";{};{};{}", fmt::join(x.offsets, ","), fmt::join(x.sizes, ","), fmt::join(x.strides, ","));
            if constexpr (std::is_same_v<D, slice1_desc> || std::is_same_v<D, slice_grad_desc>)
                text += fmt::format(";{};{};{}", fmt::join(x.input_window_offsets, ","), fmt::join(x.input_window_sizes, ","),
                                    fmt::join(x.input_window_strides, ","));
            if constexpr (requires { x.padding_mode; })
                text += fmt::format(";{};{};{}", static_cast<std::uint32_t>(x.padding_mode), fmt::join(x.start_padding, ","),
                                    fmt::join(x.end_padding, ","));
            if constexpr (std::is_same_v<D, padding_desc>) text += fmt::format(";{:#x}", std::bit_cast<std::uint32_t>(x.padding_value));
            if constexpr (std::is_same_v<D, padding1_desc>)
                text += fmt::format(";{};{:02x}", static_cast<std::uint32_t>(x.padding_value_data_type),
                                    fmt::join(x.padding_value.bytes, ""));
            if constexpr (std::is_same_v<D, tile_desc>) text += fmt::format(";{}", fmt::join(x.repeats, ","));
            if constexpr (std::is_same_v<D, upsample_2d_desc>)
                text += fmt::format(";{};{};{}", x.scale_size.width, x.scale_size.height,
                                    static_cast<std::uint32_t>(x.interpolation_mode));
            if constexpr (std::is_same_v<D, element_wise_identity_desc>)
                if (x.scale_bias)
                    text += fmt::format(";{:#x};{:#x}", std::bit_cast<std::uint32_t>(x.scale_bias->scale),
                                        std::bit_cast<std::uint32_t>(x.scale_bias->bias));
        },
        d);
    return text;
}

std::uint64_t fnv1a(std::uint64_t hash, const std::string& text) {
    for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100'0000'01b3ull;
    return hash;
}

std::string case_text(const parity::parity_case& c) {
    return fmt::format("{} | {} | {} | {} | {}", to_string(c.desc), c.klass, c.detail, c.expressible, c.huge);
}

bool is_valid_class(const std::string& klass) { return klass.rfind("valid", 0) == 0; }

/// A tensor's field as the classes name it: a part's index becomes k ("InputTensors[2]" ->
/// "InputTensors[k]").
std::string class_field(const std::string& field) {
    const auto open = field.find('[');
    return open == std::string::npos ? field : field.substr(0, open) + "[k]";
}

} // namespace

TEST_CASE("parity cases depend on (seed, index) alone", "[parity]") {
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{0xdead'beef'0bad'f00d}}) {
        std::vector<std::uint64_t> indices;
        for (std::uint64_t i = 0; i < 400; ++i) indices.push_back(i);
        for (std::uint64_t i : {std::uint64_t{1} << 32, (std::uint64_t{1} << 63) + 5, ~std::uint64_t{0}}) indices.push_back(i);
        std::map<std::uint64_t, std::string> boundary, valid;
        for (std::uint64_t i : indices) {
            boundary[i] = case_text(parity::boundary_case(seed, i));
            valid[i] = case_text(parity::valid_case(seed, i));
        }
        // Again in the opposite order, each index alone: the same cases.
        for (auto it = indices.rbegin(); it != indices.rend(); ++it) {
            CHECK(case_text(parity::boundary_case(seed, *it)) == boundary[*it]);
            CHECK(case_text(parity::valid_case(seed, *it)) == valid[*it]);
            CHECK(case_text(parity::detail::boundary_case_with_base(seed, *it).first) == boundary[*it]);
        }
    }
    // Another seed draws other descs.
    int same = 0;
    for (std::uint64_t i = 0; i < 200; ++i)
        same += to_string(parity::boundary_case(1, i).desc) == to_string(parity::boundary_case(2, i).desc);
    CHECK(same < 20);
}

TEST_CASE("a boundary case is found again by its class and draw", "[parity]") {
    for (std::uint64_t i = 0; i < 4000; ++i) {
        const auto c = parity::boundary_case(1, i);
        const auto index = parity::index_of(type_of(c.desc), c.klass, parity::draw_of(i));
        REQUIRE(index);
        CHECK(*index == i);
    }
    CHECK_FALSE(parity::index_of(operator_type::slice1, "no such class", 0));
    CHECK_FALSE(parity::index_of("NO_SUCH_OPERATOR", "valid", 0));
}

// A reproducer is recorded by its class and draw, so it survives classes added elsewhere; the run
// against DirectML checks that it still diverges, and this that the generator still draws it.
TEST_CASE("every known divergence's reproducer is still drawn as recorded", "[parity]") {
    const auto known = parity::load_known(DMLREF_TEST_DATA_DIR "/../directml/known-divergences.json");
    REQUIRE(known.size() >= 7);
    for (const auto& k : known) {
        INFO(k.id);
        const auto index = parity::index_of(k.reproducer_op, k.reproducer_class, k.draw);
        REQUIRE(index);
        const auto c = parity::boundary_case(k.seed, *index);
        CHECK(to_string(c.desc) == k.desc);
        // The outputs' difference pattern needs DirectML; the parity run checks it on the reproducer.
        CHECK(k.covers(k.direction, k.reproducer_op, c.klass, c.desc, k.differences));
    }
}

// The same values with every compiler and standard library (the Windows stage runs this too). A
// change of the class list or of a class's draws changes the hash: update it with the change.
TEST_CASE("parity cases of seed 7 are pinned", "[parity]") {
    std::uint64_t hash = 0xcbf2'9ce4'8422'2325ull;
    for (std::uint64_t i = 0; i < 300; ++i) {
        const auto b = parity::boundary_case(7, i);
        hash = fnv1a(hash, fields_text(b.desc) + b.klass);
        hash = fnv1a(hash, fields_text(parity::valid_case(7, i).desc));
    }
    CHECK(fmt::format("{:016x}", hash) == "d9032f78091f235c");
}

// Every class's first draws and a round of valid cases of every operator: a draw that depends on
// the compiler (two draws in one call's arguments, whose order C++ leaves unspecified) changes
// this hash under clang or libc++ and not under GCC, and the known divergences' reproducers with it.
TEST_CASE("every class's first draws are the same with every compiler", "[parity]") {
    std::uint64_t hash = 0xcbf2'9ce4'8422'2325ull;
    for (const auto& [op, klass] : parity::boundary_classes())
        for (std::uint64_t draw = 0; draw < 2; ++draw) {
            const auto c = parity::boundary_case(1, *parity::index_of(op, klass, draw));
            hash = fnv1a(hash, to_string(c.desc) + c.klass + c.detail);
        }
    for (std::uint64_t i = 0; i < 200; ++i) hash = fnv1a(hash, to_string(parity::valid_case(1, i).desc));
    CHECK(fmt::format("{:016x}", hash) == "912b37871b42de5a");
}

// DirectML 1.15.4 caps TotalTensorSizeInBytes at (2^32 - 1) elements' worth of bytes: the classes
// that probe it put the value exactly at the cap of the tensor's own type and one byte past it
// (every width drawn), and the largest tensors of the "valid: ..." classes hold exactly the most
// elements a packed tensor of their type may: one more would need more than the cap (or pass the
// element cap). Values only: the verdicts are the comparison's business.
TEST_CASE("the TotalTensorSizeInBytes classes and the largest tensors sit exactly at DirectML's cap", "[parity]") {
    const auto cap = [](data_type t) { return 0xffff'ffffull * element_size(t); };
    std::map<std::string, std::set<std::size_t>> widths; // class -> element sizes seen
    const auto list = parity::boundary_classes();
    // Each class's first draws of four seeds, and 48 more of the classes of one operator's parts
    // (JOIN's InputTensors[k], SPLIT's OutputTensors[k]), which no other operator shares.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> cases; // (seed, index)
    for (const std::uint64_t seed : {std::uint64_t{5}, std::uint64_t{6}, std::uint64_t{7}, std::uint64_t{8}})
        for (std::uint64_t i = 0; i < (list.size() + 100) / 4 * 4 * 3; ++i) cases.emplace_back(seed, i);
    for (const auto& [op, klass] : list)
        if (klass.find("Tensors[k].TotalTensorSizeInBytes: ") != std::string::npos)
            for (std::uint64_t draw = 0; draw < 48; ++draw) cases.emplace_back(5, *parity::index_of(op, klass, draw));
    {
        for (const auto& [seed, i] : cases) {
            const auto c = parity::boundary_case(seed, i);
            const std::string& k = c.klass;
            INFO(i << " " << to_string(type_of(c.desc)) << " / " << k << " (" << c.detail << ")");
            for (const bound_tensor& bound : tensors_of(c.desc)) {
                const buffer_tensor_desc& t = bound.desc();
                const std::string x = class_field(bound.field); // "InputTensors[2]" as its class names it, "InputTensors[k]"
                const std::uint64_t total = t.total_tensor_size_in_bytes, most = cap(t.data_type);
                if (bound.field != x && c.detail.rfind(bound.field + ":", 0) != 0) continue; // another part than the one probed
                if (k == x + ".TotalTensorSizeInBytes: (2^32 - 1) * element size") {
                    CHECK(total == most);
                } else if (k == x + ".TotalTensorSizeInBytes: (2^32 - 1) * element size + 1") {
                    CHECK(total == most + 1);
                } else if (k == x + ".TotalTensorSizeInBytes: 2^32") {
                    CHECK(total == std::uint64_t{1} << 32);
                } else {
                    continue;
                }
                widths[k].insert(element_size(t.data_type));
            }
            if (k.rfind("valid: ", 0) == 0 && k.find("the largest DirectML accepts") != std::string::npos) {
                // The tensor named (JOIN's OutputTensor and SPLIT's InputTensor are their wholes).
                const bool out = k.rfind("valid: OutputTensor", 0) == 0;
                const buffer_tensor_desc& t = out ? outputs_of(c.desc).front().desc() : inputs_of(c.desc).front().desc();
                if (binds_tensor_arrays(type_of(c.desc)))
                    REQUIRE(&t == &(type_of(c.desc) == operator_type::join ? std::get<join_desc>(c.desc).output_tensor
                                                                           : std::get<split_desc>(c.desc).input_tensor));
                const std::uint64_t n = element_count(t.sizes), w = element_size(t.data_type);
                CHECK_FALSE(t.strides.has_value());
                CHECK(n == parity::detail::largest_packed_count(w));
                CHECK(t.total_tensor_size_in_bytes <= cap(t.data_type));
                if (n < 0xffff'ffffu) CHECK(((n + 1) * w + 3) / 4 * 4 > cap(t.data_type)); // else the element cap
                widths[k].insert(w);
            }
        }
    }
    const std::set<std::size_t> all{1, 2, 4, 8};
    for (const std::string x : {"InputTensor", "OutputTensor", "InputTensors[k]", "OutputTensors[k]"})
        for (const std::string v : {"(2^32 - 1) * element size", "(2^32 - 1) * element size + 1", "2^32"}) {
            INFO(x << " " << v);
            CHECK(widths[x + ".TotalTensorSizeInBytes: " + v] == all);
        }
    CHECK(widths["valid: InputTensor of 2^32 - 1 elements (four or eight bytes each, the largest DirectML accepts)"] ==
          std::set<std::size_t>{4, 8});
    CHECK(widths["valid: InputTensor of 2^32 - 2 elements (two bytes each, the largest DirectML accepts)"] ==
          std::set<std::size_t>{2});
    CHECK(widths["valid: OutputTensor of 2^32 - 4 elements (one byte each, the largest DirectML accepts)"] ==
          std::set<std::size_t>{1});
    // The counts themselves, against DMLCalcBufferTensorSize of the packed tensor.
    for (const data_type t : movable_data_types) {
        const std::uint64_t n = parity::detail::largest_packed_count(element_size(t));
        INFO(to_string(t));
        CHECK(calc_buffer_tensor_size(make_buffer_tensor_desc(t, {static_cast<std::uint32_t>(n)})) <= cap(t));
        if (n < 0xffff'ffffu)
            CHECK(calc_buffer_tensor_size(make_buffer_tensor_desc(t, {static_cast<std::uint32_t>(n + 1)})) > cap(t));
        CHECK(n == (element_size(t) >= 4 ? 0xffff'ffffu : element_size(t) == 2 ? 0xffff'fffeu : 0xffff'fffcu));
    }
}

TEST_CASE("any 3,000 consecutive boundary cases cover every (operator, class) pair", "[parity]") {
    const auto list = parity::boundary_classes();
    const std::set<std::pair<operator_type, std::string>> all(list.begin(), list.end());
    CHECK(all.size() == list.size()); // no pair twice
    for (operator_type op : parity::detail::all_ops)
        CHECK(std::count_if(list.begin(), list.end(), [&](const auto& p) { return p.first == op; }) >= 50);

    seeded::generator rng(20261201);
    for (int run = 0; run < 3; ++run) {
        const std::uint64_t start = run == 0 ? 0 : rng() >> 20;
        const std::uint64_t seed = rng();
        std::set<std::pair<operator_type, std::string>> seen;
        for (std::uint64_t i = start; i < start + 3000; ++i) {
            const auto c = parity::boundary_case(seed, i);
            const std::pair<operator_type, std::string> pair{type_of(c.desc), c.klass};
            INFO("index " << i << ": " << to_string(pair.first) << " / " << pair.second);
            REQUIRE(all.count(pair) == 1);
            seen.insert(pair);
        }
        INFO("start " << start);
        CHECK(seen.size() == all.size());
    }
}

TEST_CASE("valid cases are valid and cover every operator, order, mode, type, rank and layout", "[parity]") {
    std::set<operator_type> ops;
    std::set<std::pair<operator_type, depth_space_order>> orders;
    std::set<padding_mode> modes;
    std::set<data_type> types;
    std::set<std::size_t> ranks;
    bool strided_input = false, broadcast_input = false, strided_output = false, pads_beyond = false;
    std::map<operator_type, std::set<std::size_t>> part_counts, part_ranks;
    std::map<operator_type, std::set<data_type>> part_types;
    std::map<operator_type, bool> broadcast_parts, strided_parts;
    for (std::uint64_t i = 0; i < 4000; ++i) {
        const auto c = parity::valid_case(99, i);
        INFO(i << ": " << to_string(c.desc));
        REQUIRE(validate(c.desc, feature_level::fl_6_4) == std::nullopt);
        CHECK(c.klass == "valid");
        CHECK(c.expressible);
        CHECK_FALSE(c.huge);
        const auto& in = input(c.desc);
        const auto& out = output(c.desc);
        ops.insert(type_of(c.desc));
        types.insert(in.data_type);
        ranks.insert(in.sizes.size());
        if (binds_tensor_arrays(type_of(c.desc))) {
            const bool join = type_of(c.desc) == operator_type::join;
            const std::size_t parts = (join ? inputs_of(c.desc) : outputs_of(c.desc)).size();
            part_counts[type_of(c.desc)].insert(parts);
            part_ranks[type_of(c.desc)].insert(in.sizes.size());
            for (const bound_tensor& t : tensors_of(c.desc)) part_types[type_of(c.desc)].insert(t.desc().data_type);
            for (const bound_tensor& t : inputs_of(c.desc))
                if (t.desc().strides)
                    for (std::size_t k = 0; k < t.desc().sizes.size(); ++k)
                        broadcast_parts[type_of(c.desc)] |= t.desc().sizes[k] > 1 && (*t.desc().strides)[k] == 0;
            for (const bound_tensor& t : outputs_of(c.desc))
                strided_parts[type_of(c.desc)] |= t.desc().strides && *t.desc().strides != packed_strides(t.desc().sizes);
        }
        std::visit(
            [&](const auto& x) {
                if constexpr (requires { x.order; }) orders.insert({type_of(c.desc), x.order});
                if constexpr (requires { x.padding_mode; }) {
                    modes.insert(x.padding_mode);
                    for (std::size_t k = 0; k < x.start_padding.size(); ++k)
                        pads_beyond |= x.start_padding[k] > in.sizes[k] || x.end_padding[k] > in.sizes[k];
                }
            },
            c.desc);
        if (in.strides) {
            strided_input |= *in.strides != packed_strides(in.sizes);
            for (std::size_t k = 0; k < in.sizes.size(); ++k) broadcast_input |= in.sizes[k] > 1 && (*in.strides)[k] == 0;
        }
        if (out.strides) strided_output |= *out.strides != packed_strides(out.sizes);
    }
    CHECK(ops.size() == std::size(parity::detail::all_ops));
    CHECK(ops.count(operator_type::element_wise_identity) == 1);
    CHECK(ops.count(operator_type::slice_grad) == 1);
    for (const operator_type op : {operator_type::join, operator_type::split}) { // their inputs broadcast, their outputs strided
        INFO(to_string(op));
        CHECK(part_counts[op] == std::set<std::size_t>{1, 2, 3, 4, 5});
        CHECK(part_ranks[op] == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
        CHECK(part_types[op].size() == 11);
        CHECK(broadcast_parts[op]);
        CHECK(strided_parts[op]);
    }
    CHECK(orders.size() == 4);
    CHECK(modes.size() == 5);
    CHECK(types.size() == 11);
    CHECK(ranks == std::set<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(strided_input);
    CHECK(broadcast_input);
    CHECK(strided_output);
    CHECK(pads_beyond);
}

TEST_CASE("every boundary case is a valid base with exactly its class's fields changed", "[parity]") {
    const auto list = parity::boundary_classes();
    std::size_t valid_cases = 0, total = 0;
    std::set<std::string> coupled;
    for (const std::uint64_t seed : {std::uint64_t{3}, std::uint64_t{4}}) {
        for (std::uint64_t i = 0; i < (2 * list.size() + 400) / 4 * 4; ++i) {
            const auto [c, b] = parity::detail::boundary_case_with_base(seed, i);
            INFO(i << " " << to_string(type_of(c.desc)) << " / " << c.klass << " (" << c.detail << ")\nbase: "
                   << to_string(b.base) << "\ndesc: " << to_string(c.desc));
            ++total;
            const auto base_verdict = validate(b.base, feature_level::fl_6_4);
            INFO("base rejected: " << base_verdict.value_or("-"));
            REQUIRE_FALSE(base_verdict.has_value());
            CHECK(c.expressible == expressible_here(c.desc));
            CHECK(c.huge == huge_here(c.desc));
            if (!c.huge) // small enough to execute when both sides accept it
                for (const bound_tensor& t : tensors_of(c.desc)) CHECK(element_count(t.desc().sizes) <= 20000);
            const auto changed = differing_fields(b.base, c.desc);
            if (c.klass.rfind("valid: ", 0) == 0) {
                ++valid_cases;
                CHECK(b.fields.empty());
                CHECK(changed.empty());
                CHECK(c.expressible);
                const auto verdict = validate(c.desc, feature_level::fl_6_4);
                INFO("rejected: " << verdict.value_or("-"));
                CHECK_FALSE(verdict.has_value());
            } else {
                CHECK_FALSE(is_valid_class(c.klass));
                CHECK(changed == std::set<std::string>(b.fields.begin(), b.fields.end()));
                if (b.coupled) {
                    coupled.insert(c.klass);
                    CHECK(b.fields.size() >= 2);
                    // A JOIN's or SPLIT's 9 dimensions are on every tensor at once.
                    // The indexed operators' 9 dimensions too (three or four tensors).
                    CHECK(b.fields.size() <= (binds_tensor_arrays(type_of(c.desc)) ? 1 + tensors_of(c.desc).size()
                                              : parity::detail::is_indexed_op(type_of(c.desc)) ? tensors_of(c.desc).size()
                                                                                               : 3));
                } else {
                    CHECK(b.fields.size() == 1);
                }
            }
        }
    }
    CHECK(valid_cases * 4 == total);
    // The coupled classes: one DirectML quantity that spans two or three fields (10 of them are
    // UPSAMPLE_2D's types and ranks outside its table, set on both tensors at once; 12 are JOIN's
    // and SPLIT's: a part's size with the whole's or another part's, a part's strides with its
    // TotalTensorSizeInBytes, and 9 dimensions on every tensor; 8 are the indexed operators' 9
    // dimensions on every tensor).
    CHECK(coupled.size() <= 47);
}

TEST_CASE("an output divergence with a difference pattern covers only differences of that pattern", "[parity]") {
    const auto bytes = [](std::initializer_list<std::uint16_t> values) {
        std::vector<std::byte> b;
        for (std::uint16_t v : values) {
            b.push_back(static_cast<std::byte>(v & 0xff));
            b.push_back(static_cast<std::byte>(v >> 8));
        }
        return b;
    };
    const std::string quieted = "float16-signalling-nans-quieted";
    using dmlref::data_type;
    // 0x7d01 and 0xfdd6 are signalling NaNs; DirectML set their quiet bit (0x0200).
    CHECK(parity::difference_pattern(data_type::float16, bytes({0x3c00, 0x7d01, 0xfdd6}), bytes({0x3c00, 0x7f01, 0xffd6})) == quieted);
    // Any other difference, beside quieted ones or alone, follows no pattern.
    CHECK(parity::difference_pattern(data_type::float16, bytes({0x3c00, 0x7d01}), bytes({0x3c01, 0x7f01})).empty());
    CHECK(parity::difference_pattern(data_type::float16, bytes({0x7d01}), bytes({0x7e01})).empty()); // other bits changed
    CHECK(parity::difference_pattern(data_type::float16, bytes({0x7f01}), bytes({0x7d01})).empty()); // a quiet NaN made signalling
    CHECK(parity::difference_pattern(data_type::float16, bytes({0x7c00}), bytes({0x7e00})).empty()); // infinity is no NaN
    CHECK(parity::difference_pattern(data_type::float16, bytes({0x7d01}), bytes({0x7d01})).empty()); // no difference
    CHECK(parity::difference_pattern(data_type::uint16, bytes({0x7d01}), bytes({0x7f01})).empty());  // not a float type

    parity::known_divergence k;
    k.direction = "output";
    k.differences = quieted;
    const dmlref::operator_desc d = dmlref::upsample_2d_desc{};
    CHECK(k.covers("output", "UPSAMPLE_2D", "", d, quieted));
    CHECK_FALSE(k.covers("output", "UPSAMPLE_2D", "", d, ""));
}

// ONE_HOT's OnValue as DirectML 1.15.4 reads it (test_directml's probe measured these outputs):
// only DirectML's exact bytes are the pattern.
TEST_CASE("one_hot_pattern recognises DirectML's OnValue read at coordinate 1 of the last axis", "[parity]") {
    using namespace dmlref;
    std::vector<std::byte> indices(12);
    const std::uint32_t idx[] = {0, 1, 2};
    std::memcpy(indices.data(), idx, 12);
    const auto values = floats({10, 20, 30, 40});
    const std::span<const std::byte> ins[] = {indices, values};
    const std::vector<std::byte> sentinel(36, std::byte{0xA5});
    const auto desc = [](std::vector<std::uint32_t> sizes, std::vector<std::uint32_t> strides) {
        buffer_tensor_desc v = make_buffer_tensor_desc(data_type::float32, sizes, strides);
        v.total_tensor_size_in_bytes = 16;
        return operator_desc{one_hot_desc{make_buffer_tensor_desc(data_type::uint32, {3, 1}), v,
                                          make_buffer_tensor_desc(data_type::float32, {3, 3}), 1}};
    };
    const std::string name = "one-hot-on-value-past-last-axis";
    // Values {2, 1}, Strides {2, 1}: the page's OnValue is 30, DirectML's 20; Strides {1, 3}: 20 and 40.
    CHECK(parity::one_hot_pattern(desc({2, 1}, {2, 1}), ins, sentinel, floats({20, 10, 10, 10, 20, 10, 10, 10, 20})) == name);
    CHECK(parity::one_hot_pattern(desc({2, 1}, {1, 3}), ins, sentinel, floats({40, 10, 10, 10, 40, 10, 10, 10, 40})) == name);
    CHECK(parity::one_hot_pattern(desc({2, 1}, {2, 1}), ins, sentinel, floats({30, 10, 10, 10, 30, 10, 10, 10, 30})).empty());
    CHECK(parity::one_hot_pattern(desc({2, 1}, {2, 1}), ins, sentinel, floats({20, 10, 10, 10, 20, 10, 10, 10, 21})).empty());
    // The two values on the last axis: nothing to explain.
    CHECK(parity::one_hot_pattern(desc({1, 2}, {1, 2}), ins, sentinel, floats({20, 10, 10, 10, 20, 10, 10, 10, 20})).empty());
}

TEST_CASE("slice-grad-merged-axes: DirectML's merge of a whole-axis window predicts its measured outputs, and nothing else", "[parity]") {
    // INT32 SLICE_GRADs with the gradient 1, 2, 3, ...; the outputs DirectML 1.15.4 and 1.14.1
    // wrote under Wine (docs/directml.md), A5A5A5A5 where no element lies.
    using dmlref::data_type;
    using v = std::vector<std::uint32_t>;
    struct probe {
        dmlref::slice_grad_desc desc;
        std::vector<std::int32_t> directml; ///< what DirectML wrote
        bool merged;                        ///< whether DirectML's output differs from the index equation
    };
    const auto t = [](v sizes, std::optional<v> strides = std::nullopt) {
        return strides ? dmlref::make_buffer_tensor_desc(data_type::int32, sizes, *strides)
                       : dmlref::make_buffer_tensor_desc(data_type::int32, sizes);
    };
    const std::int32_t s = static_cast<std::int32_t>(0xA5A5A5A5u);
    const std::vector<probe> probes = {
        {{t({3, 1}), t({3, 2}), {0, 0}, {3, 2}, {1, 1}}, {1, 2, 3, 0, 0, 0}, true},
        {{t({2, 2}), t({3, 3}), {1, 0}, {2, 3}, {1, 1}}, {0, 0, 0, 1, 2, 3, 4, 0, 0}, true},
        {{t({3, 1}, v{2, 1}), t({3, 2}), {0, 0}, {3, 2}, {1, 1}}, {1, 3, 5, 0, 0, 0}, true},
        {{t({2, 2, 1}), t({2, 3, 2}), {0, 0, 0}, {2, 3, 1}, {1, 1, 1}}, {1, 0, 2, 0, 3, 0, 4, 0, 0, 0, 0, 0}, true},
        {{t({2, 1, 2}), t({3, 2, 3}), {1, 0, 0}, {2, 2, 3}, {1, 1, 1}}, {0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}, true},
        {{t({2, 2, 2}), t({2, 3, 3}, v{20, 3, 1}), {0, 0, 0}, {2, 3, 3}, {1, 1, 1}},
         {1, 2, 3, 4, 0, 0, 0, 0, 0, s, s, s, s, s, s, s, s, s, s, s, 5, 6, 7, 8, 0, 0, 0, 0, 0}, true},
        {{t({3, 2, 2}), t({3, 2, 3}), {0, 0, 0}, {3, 2, 3}, {-1, 1, 1}}, {9, 10, 11, 12, 0, 0, 5, 6, 7, 8, 0, 0, 1, 2, 3, 4, 0, 0}, true},
        // The same logical descs DirectML does not merge: rows with a gap, a gradient not contiguous,
        // a window stride other than 1 on either axis.
        {{t({3, 1}), t({3, 2}, v{3, 1}), {0, 0}, {3, 2}, {1, 1}}, {1, 0, s, 2, 0, s, 3, 0}, false},
        {{t({2, 2}, v{3, 1}), t({2, 3}), {0, 0}, {2, 3}, {1, 1}}, {1, 2, 0, 4, 5, 0}, false},
        {{t({2, 2}), t({3, 3}), {0, 0}, {2, 3}, {-1, 1}}, {3, 4, 0, 1, 2, 0, 0, 0, 0}, false},
        {{t({2, 2}), t({5, 3}), {0, 0}, {3, 3}, {2, 1}}, {1, 2, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0}, false},
        {{t({2, 2}), t({2, 3}), {0, 0}, {2, 3}, {1, -1}}, {0, 2, 1, 0, 4, 3}, false},
        {{t({3, 2, 2}), t({3, 2, 3}), {0, 0, 0}, {3, 2, 3}, {1, -1, 1}}, {3, 4, 0, 1, 2, 0, 7, 8, 0, 5, 6, 0, 11, 12, 0, 9, 10, 0}, false},
    };
    for (const probe& p : probes) {
        const dmlref::operator_desc d = p.desc;
        INFO(dmlref::to_string(d));
        REQUIRE_FALSE(dmlref::validate(d).has_value());
        std::vector<std::int32_t> gradient(static_cast<std::size_t>(p.desc.input_tensor.total_tensor_size_in_bytes / 4));
        for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] = static_cast<std::int32_t>(i + 1);
        std::vector<std::byte> input(gradient.size() * 4), sentinel(p.directml.size() * 4, std::byte{0xA5}),
            actual(p.directml.size() * 4);
        std::memcpy(input.data(), gradient.data(), input.size());
        std::memcpy(actual.data(), p.directml.data(), actual.size());
        std::vector<std::byte> expected = sentinel;
        dmlref::execute(d, input, expected);
        CHECK((expected != actual) == p.merged); // dmlref keeps the index equation
        CHECK(parity::slice_grad_pattern(d, input, sentinel, actual) == (p.merged ? "slice-grad-merged-axes" : ""));
        if (p.merged) { // one element more or less is no longer the pattern
            actual[0] ^= std::byte{1};
            CHECK(parity::slice_grad_pattern(d, input, sentinel, actual).empty());
        }
    }
    // The pattern names SLICE_GRAD alone.
    const dmlref::operator_desc other = dmlref::upsample_2d_desc{};
    CHECK(parity::slice_grad_pattern(other, {}, {}, {}).empty());
}

TEST_CASE("accept_any_duplicate takes any of a duplicated element's updates from DirectML, and nothing else", "[parity]") {
    using namespace dmlref;
    // Output element 1 is written by updates 0 and 1 (10 and 20); dmlref keeps the last, 20.
    const operator_desc d = scatter_elements_desc{make_buffer_tensor_desc(data_type::float32, {4}),
                                                  make_buffer_tensor_desc(data_type::int32, {3}),
                                                  make_buffer_tensor_desc(data_type::float32, {3}),
                                                  make_buffer_tensor_desc(data_type::float32, {4}), 0};
    std::vector<std::byte> indices(12);
    const std::int32_t idx[] = {1, -3, 2};
    std::memcpy(indices.data(), idx, 12);
    const auto updates = floats({10, 20, 30}), expected = floats({1, 20, 30, 4});
    const auto judged = [&](std::vector<float> dml) {
        auto actual = floats(dml);
        const auto counts = parity::detail::accept_any_duplicate(d, indices, updates, expected, actual);
        return std::tuple{counts.first, counts.second, actual == expected};
    };
    CHECK(judged({1, 20, 30, 4}) == std::tuple{std::size_t{1}, std::size_t{0}, true});
    CHECK(judged({1, 10, 30, 4}) == std::tuple{std::size_t{1}, std::size_t{1}, true});  // the other update: right
    CHECK(judged({1, 30, 30, 4}) == std::tuple{std::size_t{1}, std::size_t{0}, false}); // an update of another element
    CHECK(judged({1, 4, 30, 4}) == std::tuple{std::size_t{1}, std::size_t{0}, false});  // the input's value
    CHECK(judged({1, 10, 10, 4}) == std::tuple{std::size_t{1}, std::size_t{1}, false}); // 10 where no duplicate is
    // Other operators have no duplicates to judge.
    auto same = expected;
    CHECK(parity::detail::accept_any_duplicate(operator_desc{element_wise_identity_desc{}}, indices, updates, expected, same) ==
          std::pair<std::size_t, std::size_t>{0, 0});
}

TEST_CASE("the parity run's scatter indices repeat targets only when asked", "[parity]") {
    using namespace dmlref;
    for (const operator_type op : {operator_type::scatter_elements, operator_type::scatter_nd}) {
        std::size_t with = 0, without = 0, drawn = 0;
        for (std::uint64_t seed = 0; seed < 400; ++seed) {
            parity::detail::rng_t rng(seed);
            operator_desc d = parity::detail::random_indexed_base(rng, op);
            for (auto& [name, t] : parity::detail::indexed_tensors(d)) t->total_tensor_size_in_bytes = calc_buffer_tensor_size(*t);
            if (validate(d)) continue;
            ++drawn;
            const auto count = [&](bool duplicates) {
                const auto drawn_bytes = parity::detail::index_input(d, seed * 7 + 1, duplicates);
                std::vector<std::byte> storage(drawn_bytes.size() + 4096); // at any GuaranteedBaseOffsetAlignment drawn
                const auto skip = (4096 - reinterpret_cast<std::uintptr_t>(storage.data()) % 4096) % 4096;
                const std::span<std::byte> bytes(storage.data() + skip, drawn_bytes.size());
                std::copy(drawn_bytes.begin(), drawn_bytes.end(), bytes.begin());
                return std::visit(
                    [&](const auto& x) -> std::size_t {
                        using D = std::remove_cvref_t<decltype(x)>;
                        if constexpr (std::is_same_v<D, scatter_elements_desc> || std::is_same_v<D, scatter_nd_desc>)
                            return detail::scatter_duplicates(x, bytes).size();
                        else
                            return 0;
                    },
                    d);
            };
            with += count(true) > 0;
            without += count(false) > 0;
        }
        INFO(to_string(op) << ": " << drawn << " valid descs drawn");
        CHECK(drawn > 100);
        CHECK(without == 0);
        CHECK(with > drawn / 10);
    }
}
