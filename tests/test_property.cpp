// Property tests: the library (plan + copy engine) against the textbook evaluator
// (<dmlref/textbook.hpp>) on random valid descs, bit for bit, over whole buffers sized exactly TotalTensorSizeInBytes (bytes outside the
// output tensor's elements must keep their sentinel), plus algebraic identities and the feature
// level tables.
#include <catch2/catch.hpp>

#include <dmlref/detail/execute.hpp> // detail::prepare and the kernel levels, which the properties inspect
#include <dmlref/dmlref.hpp>
#include <dmlref/textbook.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "random_cases.hpp"

using namespace dmlref;

namespace {

using namespace dmlref::random_cases;

/// DMLCalcBufferTensorSize as the documentation states it, independently of the library.
std::uint64_t doc_buffer_size(data_type type, const std::vector<std::uint32_t>& sizes,
                              const std::optional<std::vector<std::uint32_t>>& strides) {
    std::uint64_t elements = 1;
    if (strides) {
        std::uint64_t last = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) last += std::uint64_t{sizes[i] - 1} * (*strides)[i];
        elements = last + 1;
    } else {
        for (std::uint32_t s : sizes) elements *= s;
    }
    const std::uint64_t bytes = elements * element_size(type);
    return (bytes + 3) / 4 * 4;
}

// The feature-level tables of directml-facts.md sections 3 to 6, transcribed on their own.
constexpr feature_level all_levels[] = {
    feature_level::fl_1_0, feature_level::fl_2_0, feature_level::fl_2_1, feature_level::fl_3_0,
    feature_level::fl_3_1, feature_level::fl_4_0, feature_level::fl_4_1, feature_level::fl_5_0,
    feature_level::fl_5_1, feature_level::fl_5_2, feature_level::fl_6_0, feature_level::fl_6_1,
    feature_level::fl_6_2, feature_level::fl_6_3, feature_level::fl_6_4};

bool table_accepts(const operator_desc& d, feature_level level) {
    const operator_type op = type_of(d);
    const data_type t = input_of(d).data_type;
    const std::size_t rank = input_of(d).sizes.size();
    const bool wide = t == data_type::float64 || t == data_type::uint64 || t == data_type::int64;
    const bool floaty = t == data_type::float32 || t == data_type::float16;
    const bool eight = t == data_type::uint8 || t == data_type::int8;
    const bool fl2_1 = level >= feature_level::fl_2_1;
    switch (op) {
    case operator_type::depth_to_space:
    case operator_type::space_to_depth:
    case operator_type::depth_to_space1:
    case operator_type::space_to_depth1: {
        const bool v1 = op == operator_type::depth_to_space1 || op == operator_type::space_to_depth1;
        if (v1 && !fl2_1) return false;
        if (wide) return level >= feature_level::fl_5_0;
        return floaty || fl2_1;
    }
    case operator_type::slice:
    case operator_type::slice1: {
        if (op == operator_type::slice1 && !fl2_1) return false;
        if (level < feature_level::fl_3_0 && (rank < 4 || rank > 5)) return false;
        if (wide) return level >= feature_level::fl_4_1;
        return !eight || fl2_1;
    }
    case operator_type::padding:
    case operator_type::padding1: {
        if (op == operator_type::padding1 && level < feature_level::fl_5_0) return false;
        if (level < feature_level::fl_3_1 && (rank < 4 || rank > 5)) return false;
        const padding_mode mode = std::visit(
            [](const auto& x) {
                if constexpr (requires { x.padding_mode; }) return x.padding_mode;
                else return padding_mode::constant;
            },
            d);
        if (mode == padding_mode::symmetric && level < feature_level::fl_3_0) return false;
        if (mode == padding_mode::wrap && level < feature_level::fl_6_4) return false;
        if (wide) return level >= feature_level::fl_5_0;
        return floaty || fl2_1;
    }
    case operator_type::element_wise_identity: {
        if (level < feature_level::fl_3_0 && (rank < 4 || rank > 5)) return false;
        if (wide) return level >= feature_level::fl_4_1;
        return floaty || fl2_1;
    }
    case operator_type::slice_grad: { // docs/operator-facts.md section 7
        if (level < feature_level::fl_3_0) return false;
        if (level < feature_level::fl_3_1 && (rank < 4 || rank > 5)) return false;
        if (wide) return level >= feature_level::fl_4_1;
        return true;
    }
    case operator_type::tile: {
        if (level < feature_level::fl_3_1 && rank != 4) return false;
        if (wide) return level >= feature_level::fl_4_1;
        return floaty || fl2_1;
    }
    case operator_type::upsample_2d: return (rank == 4 || rank == 5) && floaty;
    case operator_type::join: // docs/operator-facts.md sections 5 and 6
        if (level < feature_level::fl_4_1 && (rank < 4 || rank > (level >= feature_level::fl_3_0 ? 5u : 4u))) return false;
        if (wide) return level >= feature_level::fl_4_1;
        return !eight || fl2_1;
    case operator_type::split:
        if (level < feature_level::fl_3_0 && rank != 4) return false;
        if (wide) return level >= feature_level::fl_4_1;
        return !eight || fl2_1;
    case operator_type::gather: // docs/operator-facts.md sections 10 to 15 (the indices' type aside)
    case operator_type::gather_elements:
    case operator_type::gather_nd:
    case operator_type::gather_nd1:
    case operator_type::scatter_elements:
    case operator_type::scatter_nd:
    case operator_type::one_hot:
        if ((op == operator_type::scatter_elements || op == operator_type::one_hot) && level < feature_level::fl_2_0)
            return false;
        if ((op == operator_type::gather_elements || op == operator_type::gather_nd || op == operator_type::scatter_nd) &&
            !fl2_1)
            return false;
        if (op == operator_type::gather_nd1 && level < feature_level::fl_3_0) return false;
        if (level < feature_level::fl_3_0 && rank != 4) return false;
        if (wide) return level >= feature_level::fl_4_1;
        return floaty || fl2_1;
    case operator_type::reverse_subsequences: // docs/operator-facts.md section 8 (the lengths' type aside)
        if (!fl2_1) return false;
        if (level < feature_level::fl_4_0 && (rank < 4 || rank > (level >= feature_level::fl_3_0 ? 5u : 4u))) return false;
        return !wide || level >= feature_level::fl_5_0;
    }
    return false;
}

constexpr std::uint64_t property_seed = 0x5eed'd31f'2026'0001ull;

} // namespace

TEST_CASE("engine == textbook evaluator on 16,008 random valid descs, bytes outside the tensor untouched",
          "[property]") {
    rng_t rng(property_seed);
    INFO("seed " << property_seed);
    std::array<int, operator_count> per_op{};
    std::array<int, 5> per_mode{};
    std::array<int, 16> per_type{};
    std::array<int, 9> per_rank{};
    int negative = 0, broadcast = 0, truncated = 0;
    constexpr std::size_t cases = 1334 * operator_count;
    for (std::size_t k = 0; k < cases; ++k) {
        const operator_desc desc = random_desc(rng, k);
        const auto& in = input_of(desc);
        const auto& out = output_of(desc);
        INFO("case " << k << ": " << describe(desc));
        REQUIRE(validate(desc) == std::nullopt);
        REQUIRE(calc_buffer_tensor_size(in) == doc_buffer_size(in.data_type, in.sizes, in.strides));
        REQUIRE(calc_buffer_tensor_size(out) == doc_buffer_size(out.data_type, out.sizes, out.strides));

        const std::vector<std::byte> input = random_bytes(rng, in.total_tensor_size_in_bytes);
        std::vector<std::byte> output(out.total_tensor_size_in_bytes, static_cast<std::byte>(rng()));
        std::vector<std::byte> expected = output;
        textbook::execute(desc, input, expected);
        execute(desc, input, output);
        REQUIRE(output == expected);

        ++per_op[k % operator_count];
        ++per_type[static_cast<std::size_t>(in.data_type)];
        ++per_rank[in.sizes.size()];
        if (in.strides && std::count(in.strides->begin(), in.strides->end(), 0u) > 0) ++broadcast;
        std::visit(
            [&](const auto& x) {
                if constexpr (requires { x.padding_mode; }) ++per_mode[static_cast<std::size_t>(x.padding_mode)];
                if constexpr (requires { x.input_window_strides; }) {
                    if (std::count_if(x.input_window_strides.begin(), x.input_window_strides.end(),
                                      [](std::int32_t s) { return s < 0; }) >= 2)
                        ++negative;
                    for (std::size_t i = 0; i < x.input_window_sizes.size(); ++i) {
                        const auto m = static_cast<std::uint32_t>(std::abs(x.input_window_strides[i]));
                        if (x.output_tensor.sizes[i] < 1 + (x.input_window_sizes[i] - 1) / m) {
                            ++truncated;
                            break;
                        }
                    }
                }
            },
            desc);
    }
    // The generator really spans what it claims.
    for (int n : per_op) CHECK(n == static_cast<int>(cases / operator_count));
    for (int n : per_mode) CHECK(n > 100);
    for (data_type t : movable_data_types) CHECK(per_type[static_cast<std::size_t>(t)] > 100);
    for (std::size_t r = 1; r <= 8; ++r) CHECK(per_rank[r] > 50);
    CHECK(negative > 200);
    CHECK(broadcast > 200);
    CHECK(truncated > 60); // SLICE1's share, a tenth of the cases
}

TEST_CASE("a desc valid at 6_4 is judged at every older feature level as DirectML's tables say", "[property]") {
    rng_t rng(property_seed + 1);
    INFO("seed " << property_seed + 1);
    int accepted_old = 0, rejected_old = 0;
    for (std::size_t k = 0; k < 2000; ++k) {
        const operator_desc desc = random_desc(rng, k);
        INFO("case " << k << ": " << describe(desc));
        REQUIRE(validate(desc, feature_level::fl_6_4) == std::nullopt);
        for (feature_level level : all_levels) {
            INFO("feature level " << to_string(level));
            const auto message = validate(desc, level);
            CHECK(message.has_value() == !table_accepts(desc, level));
            if (message) {
                CHECK_THAT(*message, Catch::Contains(std::string(to_string(type_of(desc)))));
                ++rejected_old;
            } else if (level < feature_level::fl_6_4) {
                ++accepted_old;
            }
        }
        // Where an older level accepts the desc, it runs to the same bytes.
        if (k % 10 == 0 && table_accepts(desc, feature_level::fl_2_1)) {
            const auto& in = input_of(desc);
            const auto& out = output_of(desc);
            const auto input = random_bytes(rng, in.total_tensor_size_in_bytes);
            std::vector<std::byte> a(out.total_tensor_size_in_bytes, std::byte{0x5a}), b = a;
            execute(desc, input, a, feature_level::fl_2_1);
            execute(desc, input, b);
            CHECK(a == b);
        }
    }
    CHECK(accepted_old > 1000);
    CHECK(rejected_old > 1000);
}

TEST_CASE("space_to_depth(depth_to_space(x)) == x and back, both orders, every block size", "[property]") {
    rng_t rng(property_seed + 2);
    INFO("seed " << property_seed + 2);
    for (std::size_t k = 0; k < 400; ++k) {
        const data_type type = random_type(rng);
        const std::uint32_t b = pick(rng, 1, 4), n = pick(rng, 1, 2), c = pick(rng, 1, 3);
        const std::uint32_t h = pick(rng, 1, 3), w = h % 3 + 1; // H != W
        const auto order = static_cast<depth_space_order>(k % 2);
        const auto depth = make_buffer_tensor_desc(type, {n, c * b * b, h, w});
        const auto space = make_buffer_tensor_desc(type, {n, c, h * b, w * b});
        INFO("case " << k << " B " << b << " order " << to_string(order) << " type " << to_string(type));

        const auto x = random_packed(rng, depth);
        std::vector<std::byte> mid(space.total_tensor_size_in_bytes), back(depth.total_tensor_size_in_bytes);
        execute(depth_to_space1_desc{depth, space, b, order}, x, mid);
        execute(space_to_depth1_desc{space, depth, b, order}, mid, back);
        CHECK(back == x);

        const auto y = random_packed(rng, space);
        std::vector<std::byte> mid2(depth.total_tensor_size_in_bytes), back2(space.total_tensor_size_in_bytes);
        execute(space_to_depth1_desc{space, depth, b, order}, y, mid2);
        execute(depth_to_space1_desc{depth, space, b, order}, mid2, back2);
        CHECK(back2 == y);
    }
}

TEST_CASE("slicing with stride -1 twice is the identity", "[property]") {
    rng_t rng(property_seed + 3);
    INFO("seed " << property_seed + 3);
    for (std::size_t k = 0; k < 400; ++k) {
        const data_type type = random_type(rng);
        const std::size_t rank = pick(rng, 1, 8);
        const auto sizes = random_sizes(rng, rank);
        std::vector<std::int32_t> strides(rank);
        for (auto& s : strides) s = chance(rng, 60) ? -1 : 1;
        const auto t = make_buffer_tensor_desc(type, sizes);
        const slice1_desc flip{t, t, std::vector<std::uint32_t>(rank, 0), sizes, strides};
        const auto x = random_packed(rng, t);
        std::vector<std::byte> once(x.size()), twice(x.size());
        execute(flip, x, once);
        execute(flip, once, twice);
        CHECK(twice == x);
        std::vector<std::byte> flipped(x.size());
        textbook::execute(flip, x, flipped);
        CHECK(once == flipped); // the flip itself
    }
}

TEST_CASE("the interior of a padded tensor is the input, in every mode", "[property]") {
    rng_t rng(property_seed + 4);
    INFO("seed " << property_seed + 4);
    for (std::size_t k = 0; k < 600; ++k) {
        const data_type type = random_type(rng);
        const operator_desc desc = random_padding(rng, true, type);
        const auto& pad = std::get<padding1_desc>(desc);
        INFO("case " << k << ": " << describe(desc));
        const auto x = random_bytes(rng, pad.input_tensor.total_tensor_size_in_bytes);
        std::vector<std::byte> padded(pad.output_tensor.total_tensor_size_in_bytes);
        execute(desc, x, padded);
        // Read the interior back out with SLICE1 into a packed tensor, and the input likewise.
        const auto packed = make_buffer_tensor_desc(type, pad.input_tensor.sizes);
        const std::size_t rank = packed.sizes.size();
        const std::vector<std::int32_t> ones(rank, 1);
        std::vector<std::byte> interior(packed.total_tensor_size_in_bytes), original(interior.size());
        execute(slice1_desc{pad.output_tensor, packed, pad.start_padding, packed.sizes, ones}, padded, interior);
        execute(slice1_desc{pad.input_tensor, packed, std::vector<std::uint32_t>(rank, 0), packed.sizes, ones}, x,
                original);
        CHECK(interior == original);
    }
}

// ---- the typed view API on random views --------------------------------------------------------
// Views reach layouts that descs cannot: negative strides on any axis of input and output, and
// outputs whose axes are permuted in memory. Each case compares the whole output storage with a
// copy written by the textbook's typed overloads (element by element from the documented
// formulas) through a view of the same layout, so stray writes show too.

namespace {

/// A random view of `extents` over `storage`: axes permuted in memory, spare elements after some
/// axes, negative strides on random axes, and (inputs only) broadcast axes.
template <class T, std::size_t Rank>
strided_view<T, Rank> random_view(rng_t& rng, std::vector<T>& storage, const index_array<Rank>& extents,
                                  bool allow_broadcast) {
    std::array<std::size_t, Rank> order{};
    for (std::size_t i = 0; i < Rank; ++i) order[i] = Rank - 1 - i;
    if (chance(rng, 50)) seeded::shuffle(order.begin(), order.end(), rng);
    index_array<Rank> strides{};
    std::ptrdiff_t stride = 1, offset = 0;
    for (std::size_t axis : order) {
        const bool broadcast = allow_broadcast && chance(rng, 15);
        const bool negative = chance(rng, 40);
        strides[axis] = broadcast ? 0 : negative ? -stride : stride;
        if (negative && !broadcast) offset += (extents[axis] - 1) * stride;
        if (!broadcast) stride *= extents[axis] + static_cast<std::ptrdiff_t>(pick(rng, 0, 1));
    }
    storage.resize(static_cast<std::size_t>(stride));
    for (T& x : storage) x = static_cast<T>(rng());
    return {storage.data(), extents, strides, offset};
}

template <std::size_t Rank> index_array<Rank> random_extents(rng_t& rng) {
    index_array<Rank> e{};
    for (auto& x : e) x = pick(rng, 1, max_extent(Rank));
    return e;
}

/// One random slice or pad (op 0 or 1) over views of T and Rank.
template <class T, std::size_t Rank> void random_view_case(rng_t& rng, int op) {
    const auto extents = random_extents<Rank>(rng);
    std::vector<T> in_storage, out_storage;
    const auto input = random_view<T, Rank>(rng, in_storage, extents, true);
    index_array<Rank> out_extents{}, a{}, b{}, c{};
    const auto mode = static_cast<padding_mode>(pick(rng, 0, 4));
    for (std::size_t i = 0; i < Rank; ++i) {
        const auto n = extents[i];
        if (op == 0) { // a: offsets, b: window sizes, c: strides
            a[i] = pick(rng, 0, static_cast<std::uint32_t>(n - 1));
            b[i] = pick(rng, 1, static_cast<std::uint32_t>(n - a[i]));
            c[i] = static_cast<std::ptrdiff_t>(pick(rng, 1, 3)) * (chance(rng, 50) ? -1 : 1);
            out_extents[i] = 1 + (b[i] - 1) / (c[i] < 0 ? -c[i] : c[i]);
        } else { // a: start, b: end
            // Size-1 axes pad in every mode: REFLECTION repeats the element (DECISIONS 5).
            const auto most = static_cast<std::uint32_t>(Rank <= 2 ? 2 * n + 3 : Rank <= 4 ? n + 1 : 1);
            a[i] = pick(rng, 0, most);
            b[i] = pick(rng, 0, most);
            out_extents[i] = n + a[i] + b[i];
        }
    }
    const auto output = random_view<T, Rank>(rng, out_storage, out_extents, false);
    std::vector<T> expected = out_storage;
    const strided_view<T, Rank> expected_view(expected.data(), output.extents(), output.strides(), output.offset());
    const T value = static_cast<T>(rng());
    if (op == 0) {
        textbook::slice<T, Rank>(input, expected_view, a, b, c);
        slice<T, Rank>(input, output, a, b, c);
    } else {
        textbook::pad<T, Rank>(input, expected_view, mode, value, a, b);
        pad<T, Rank>(input, output, mode, value, a, b);
    }
    REQUIRE(out_storage == expected);
}

/// One random depth_to_space (op 2) or space_to_depth (op 3) over 4-D views of T.
template <class T> void random_depth_space_view_case(rng_t& rng, int op) {
    const std::ptrdiff_t b = pick(rng, 1, 4), n = pick(rng, 1, 2), c = pick(rng, 1, 3), h = pick(rng, 1, 3);
    const std::ptrdiff_t w = h % 3 + 1;
    const auto order = static_cast<depth_space_order>(pick(rng, 0, 1));
    const index_array<4> depth{n, c * b * b, h, w}, space{n, c, h * b, w * b};
    const bool to_space = op == 2;
    std::vector<T> in_storage, out_storage;
    const auto input = random_view<T, 4>(rng, in_storage, to_space ? depth : space, true);
    const auto output = random_view<T, 4>(rng, out_storage, to_space ? space : depth, false);
    std::vector<T> expected = out_storage;
    const strided_view<T, 4> expected_view(expected.data(), output.extents(), output.strides(), output.offset());
    if (to_space) {
        textbook::depth_to_space<T>(input, expected_view, b, order);
        depth_to_space<T>(input, output, b, order);
    } else {
        textbook::space_to_depth<T>(input, expected_view, b, order);
        space_to_depth<T>(input, output, b, order);
    }
    REQUIRE(out_storage == expected);
}

template <class T> void random_view_case_of_rank(rng_t& rng, int op, std::size_t rank) {
    if (op >= 2) return random_depth_space_view_case<T>(rng, op);
    switch (rank) {
    case 1: return random_view_case<T, 1>(rng, op);
    case 2: return random_view_case<T, 2>(rng, op);
    case 3: return random_view_case<T, 3>(rng, op);
    case 4: return random_view_case<T, 4>(rng, op);
    case 5: return random_view_case<T, 5>(rng, op);
    default: return random_view_case<T, 8>(rng, op);
    }
}

} // namespace

TEST_CASE("views with negative and permuted strides: the ops == the formulas on 4,000 random cases",
          "[property][views]") {
    rng_t rng(property_seed + 5);
    INFO("seed " << property_seed + 5);
    for (std::size_t k = 0; k < 4000; ++k) {
        const int op = static_cast<int>(k % 4);
        const std::size_t rank = pick(rng, 1, 6);
        const std::uint32_t width = pick(rng, 0, 3);
        INFO("case " << k << " op " << op << " rank code " << rank << " width code " << width);
        switch (width) {
        case 0: random_view_case_of_rank<std::uint8_t>(rng, op, rank); break;
        case 1: random_view_case_of_rank<std::uint16_t>(rng, op, rank); break;
        case 2: random_view_case_of_rank<std::uint32_t>(rng, op, rank); break;
        default: random_view_case_of_rank<std::uint64_t>(rng, op, rank); break;
        }
    }
}

TEST_CASE("ELEMENT_WISE_IDENTITY: engine == textbook on 3,000 random descs (transposed, broadcast, strided)",
          "[property][identity]") {
    rng_t rng(property_seed + 6);
    INFO("seed " << property_seed + 6);
    int broadcast = 0, permuted = 0, strided_output = 0;
    for (std::size_t k = 0; k < 3000; ++k) {
        const operator_desc desc = random_identity(rng, random_type(rng));
        const auto& in = input_of(desc);
        const auto& out = output_of(desc);
        INFO("case " << k << ": " << describe(desc));
        REQUIRE(validate(desc) == std::nullopt);
        const std::vector<std::byte> input = random_bytes(rng, in.total_tensor_size_in_bytes);
        std::vector<std::byte> output(out.total_tensor_size_in_bytes, static_cast<std::byte>(rng()));
        std::vector<std::byte> expected = output;
        textbook::execute(desc, input, expected);
        execute(desc, input, output);
        REQUIRE(output == expected);
        if (in.strides) {
            bool zero = false, unsorted = false;
            for (std::size_t i = 0; i < in.sizes.size(); ++i) {
                zero |= in.sizes[i] > 1 && (*in.strides)[i] == 0;
                if (i > 0) unsorted |= (*in.strides)[i] > (*in.strides)[i - 1];
            }
            broadcast += zero;
            permuted += unsorted && !zero;
        }
        if (out.strides && *out.strides != packed_strides(out.sizes)) ++strided_output;
    }
    CHECK(broadcast > 200);
    CHECK(permuted > 200);
    CHECK(strided_output > 200);
}

namespace {
/// Engine == textbook on 2,000 descs from `draw`, bytes outside the output tensor untouched;
/// returns how many had a broadcast input and how many a strided output.
template <class Draw> std::pair<int, int> engine_matches_textbook(rng_t& rng, Draw draw) {
    int broadcast = 0, strided_output = 0;
    for (std::size_t k = 0; k < 2000; ++k) {
        const operator_desc desc = draw(rng);
        const auto& in = input_of(desc);
        const auto& out = output_of(desc);
        INFO("case " << k << ": " << describe(desc));
        REQUIRE(validate(desc) == std::nullopt);
        const std::vector<std::byte> input = random_bytes(rng, in.total_tensor_size_in_bytes);
        std::vector<std::byte> output(out.total_tensor_size_in_bytes, static_cast<std::byte>(rng()));
        std::vector<std::byte> expected = output;
        textbook::execute(desc, input, expected);
        execute(desc, input, output);
        REQUIRE(output == expected);
        if (in.strides && std::count(in.strides->begin(), in.strides->end(), 0u) > 0) ++broadcast;
        if (out.strides && *out.strides != packed_strides(out.sizes)) ++strided_output;
    }
    return {broadcast, strided_output};
}
} // namespace

TEST_CASE("TILE: engine == textbook on 2,000 random descs (every rank, broadcast and strided layouts)",
          "[property][tile]") {
    rng_t rng(property_seed + 8);
    INFO("seed " << property_seed + 8);
    const auto [broadcast, strided_output] =
        engine_matches_textbook(rng, [](rng_t& r) { return random_tile(r, random_type(r)); });
    CHECK(broadcast > 100);
    CHECK(strided_output > 200);
}

TEST_CASE("UPSAMPLE_2D: engine == textbook on 2,000 random descs (4-D and 5-D, broadcast and strided layouts)",
          "[property][upsample]") {
    rng_t rng(property_seed + 9);
    INFO("seed " << property_seed + 9);
    const auto [broadcast, strided_output] =
        engine_matches_textbook(rng, [](rng_t& r) { return random_upsample(r, random_type(r)); });
    CHECK(broadcast > 100);
    CHECK(strided_output > 200);
}

namespace {
/// One random identity over views of T and Rank: input broadcast, permuted, negative strides.
template <class T, std::size_t Rank> void random_identity_view_case(rng_t& rng) {
    const auto extents = random_extents<Rank>(rng);
    std::vector<T> in_storage, out_storage;
    const auto input = random_view<T, Rank>(rng, in_storage, extents, true);
    const auto output = random_view<T, Rank>(rng, out_storage, extents, false);
    std::vector<T> expected = out_storage;
    const strided_view<T, Rank> expected_view(expected.data(), output.extents(), output.strides(), output.offset());
    textbook::identity<T, Rank>(input, expected_view);
    identity<T, Rank>(input, output);
    REQUIRE(out_storage == expected);
}
template <class T> void random_identity_view_case_of_rank(rng_t& rng, std::size_t rank) {
    switch (rank) {
    case 1: return random_identity_view_case<T, 1>(rng);
    case 2: return random_identity_view_case<T, 2>(rng);
    case 3: return random_identity_view_case<T, 3>(rng);
    case 4: return random_identity_view_case<T, 4>(rng);
    case 5: return random_identity_view_case<T, 5>(rng);
    case 6: return random_identity_view_case<T, 6>(rng);
    case 7: return random_identity_view_case<T, 7>(rng);
    default: return random_identity_view_case<T, 8>(rng);
    }
}
} // namespace

TEST_CASE("identity over views with negative, permuted and zero strides == the formula on 2,000 cases",
          "[property][views][identity]") {
    rng_t rng(property_seed + 7);
    INFO("seed " << property_seed + 7);
    for (std::size_t k = 0; k < 2000; ++k) {
        const std::size_t rank = pick(rng, 1, 8);
        const std::uint32_t width = pick(rng, 0, 3);
        INFO("case " << k << " rank " << rank << " width code " << width);
        switch (width) {
        case 0: random_identity_view_case_of_rank<std::uint8_t>(rng, rank); break;
        case 1: random_identity_view_case_of_rank<std::uint16_t>(rng, rank); break;
        case 2: random_identity_view_case_of_rank<std::uint32_t>(rng, rank); break;
        default: random_identity_view_case_of_rank<std::uint64_t>(rng, rank); break;
        }
    }
}

#ifdef DMLREF_PORTABLE
// Built as test_property_portable (and in DMLREF_PORTABLE builds): every test above then runs on the
// plain C++ path, which this checks is the one taken.
TEST_CASE("DMLREF_PORTABLE turns every compiler extension off", "[property][portable]") {
    CHECK(DMLREF_VECTOR_KERNELS == 0);
    CHECK(DMLREF_STREAM_STORES == 0);
    CHECK(DMLREF_BYTE_SHUFFLE_KERNELS == 0);
    CHECK(DMLREF_WIDE_SHUFFLE_KERNELS == 0);
    CHECK_FALSE(detail::has_byte_shuffle());
    CHECK(detail::shuffles_here() == detail::shuffles::none);
}
#endif

TEST_CASE("SLICE_GRAD: engine == textbook on 3,000 random descs (gaps, negative strides, strided tensors)",
          "[property][slice_grad]") {
    rng_t rng(property_seed + 8);
    INFO("seed " << property_seed + 8);
    int gaps = 0, one_pass = 0, negative = 0, fewer = 0, strided_output = 0;
    for (std::size_t k = 0; k < 3000; ++k) {
        const operator_desc desc = random_slice_grad(rng, random_type(rng));
        const auto& d = std::get<slice_grad_desc>(desc);
        const auto& in = input_of(desc);
        const auto& out = output_of(desc);
        INFO("case " << k << ": " << describe(desc));
        REQUIRE(validate(desc) == std::nullopt);
        const std::vector<std::byte> input = random_bytes(rng, in.total_tensor_size_in_bytes);
        std::vector<std::byte> output(out.total_tensor_size_in_bytes, static_cast<std::byte>(rng() | 1));
        std::vector<std::byte> expected = output;
        textbook::execute(desc, input, expected);
        execute(desc, input, output);
        REQUIRE(output == expected);
        bool gap = false, neg = false, few = false;
        for (std::size_t i = 0; i < in.sizes.size(); ++i) {
            const auto m = static_cast<std::uint32_t>(std::abs(d.input_window_strides[i]));
            gap |= in.sizes[i] > 1 && m > 1;
            neg |= d.input_window_strides[i] < 0 && in.sizes[i] > 1;
            few |= in.sizes[i] < 1 + (d.input_window_sizes[i] - 1) / m;
        }
        gaps += gap;
        one_pass += !gap;
        negative += neg;
        fewer += few;
        if (out.strides && *out.strides != packed_strides(out.sizes)) ++strided_output;
    }
    CHECK(gaps > 500);
    CHECK(one_pass > 500);
    CHECK(negative > 500);
    CHECK(fewer > 200);
    CHECK(strided_output > 300);
}

namespace {
/// One random slice_grad over views of T and Rank: a random SLICE1 window of the output gradient,
/// the input gradient broadcast, permuted or reversed, the output gradient strided.
template <class T, std::size_t Rank> void random_slice_grad_view_case(rng_t& rng) {
    const auto out_extents = random_extents<Rank>(rng);
    index_array<Rank> offsets{}, sizes{}, strides{}, in_extents{};
    for (std::size_t i = 0; i < Rank; ++i) {
        const auto n = static_cast<std::uint32_t>(out_extents[i]);
        offsets[i] = pick(rng, 0, n - 1);
        sizes[i] = pick(rng, 1, n - static_cast<std::uint32_t>(offsets[i]));
        const auto m = static_cast<std::ptrdiff_t>(pick(rng, 1, 3));
        strides[i] = chance(rng, 50) ? -m : m;
        const auto most = static_cast<std::uint32_t>(1 + (sizes[i] - 1) / m);
        in_extents[i] = pick(rng, 1, most);
    }
    std::vector<T> in_storage, out_storage;
    const auto input = random_view<T, Rank>(rng, in_storage, in_extents, true);
    const auto output = random_view<T, Rank>(rng, out_storage, out_extents, false);
    std::vector<T> expected = out_storage;
    const strided_view<T, Rank> expected_view(expected.data(), output.extents(), output.strides(), output.offset());
    textbook::slice_grad<T, Rank>(input, expected_view, offsets, sizes, strides);
    slice_grad<T, Rank>(input, output, offsets, sizes, strides);
    REQUIRE(out_storage == expected);
}
template <class T> void random_slice_grad_view_case_of_rank(rng_t& rng, std::size_t rank) {
    switch (rank) {
    case 1: return random_slice_grad_view_case<T, 1>(rng);
    case 2: return random_slice_grad_view_case<T, 2>(rng);
    case 3: return random_slice_grad_view_case<T, 3>(rng);
    case 4: return random_slice_grad_view_case<T, 4>(rng);
    case 5: return random_slice_grad_view_case<T, 5>(rng);
    case 6: return random_slice_grad_view_case<T, 6>(rng);
    case 7: return random_slice_grad_view_case<T, 7>(rng);
    default: return random_slice_grad_view_case<T, 8>(rng);
    }
}
} // namespace

TEST_CASE("slice_grad over views with negative, permuted and zero strides == the formula on 2,000 cases",
          "[property][views][slice_grad]") {
    rng_t rng(property_seed + 9);
    INFO("seed " << property_seed + 9);
    for (std::size_t k = 0; k < 2000; ++k) {
        const std::size_t rank = pick(rng, 1, 8);
        const std::uint32_t width = pick(rng, 0, 3);
        INFO("case " << k << " rank " << rank << " width code " << width);
        switch (width) {
        case 0: random_slice_grad_view_case_of_rank<std::uint8_t>(rng, rank); break;
        case 1: random_slice_grad_view_case_of_rank<std::uint16_t>(rng, rank); break;
        case 2: random_slice_grad_view_case_of_rank<std::uint32_t>(rng, rank); break;
        default: random_slice_grad_view_case_of_rank<std::uint64_t>(rng, rank); break;
        }
    }
}
