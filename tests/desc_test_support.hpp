#pragma once
// What the per-operator test files share: element vectors to bytes and back, running a desc
// through the engine (one thread and three) and the textbook evaluator, and checking a refusal.
#include <catch2/catch.hpp>

#include <dmlref/dmlref.hpp>
#include <dmlref/parallel.hpp>
#include <dmlref/textbook.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace dmlref::test_support {

template <class T> std::vector<std::byte> bytes_of(const std::vector<T>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

template <class T> std::vector<T> values_of(std::span<const std::byte> bytes) {
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
}

/// `n` floats counting up from `first`.
inline std::vector<float> iota_from(float first, std::size_t n) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
}

/// Packed tensor descs of one type.
inline buffer_tensor_desc typed(data_type t, std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(t, std::move(sizes)); }
inline buffer_tensor_desc f32(std::vector<std::uint32_t> sizes) { return typed(data_type::float32, std::move(sizes)); }
inline buffer_tensor_desc u32(std::vector<std::uint32_t> sizes) { return typed(data_type::uint32, std::move(sizes)); }
inline buffer_tensor_desc u64(std::vector<std::uint32_t> sizes) { return typed(data_type::uint64, std::move(sizes)); }

/// validate()'s message for `d` at `level`, or "(accepted)".
inline std::string message(const operator_desc& d, feature_level level = newest_feature_level) {
    const auto m = validate(d, level);
    return m ? *m : std::string("(accepted)");
}

/// A tensor desc of `sizes` for the random desc tests: packed, or the axes permuted with gaps
/// between them; an input may broadcast (stride 0) on any axis, an output only on axes of one
/// element (each one time in `broadcast_one_in`); at times a buffer larger than its tensor.
inline buffer_tensor_desc random_tensor(std::mt19937_64& rng, data_type type, const std::vector<std::uint32_t>& sizes,
                                        bool is_output, unsigned broadcast_one_in = 6) {
    const std::size_t rank = sizes.size();
    buffer_tensor_desc desc;
    if (rng() % 3 == 0) {
        desc = make_buffer_tensor_desc(type, sizes);
    } else {
        std::vector<std::size_t> order(rank);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::uint32_t> strides(rank);
        std::uint32_t next = 1;
        for (std::size_t i = rank; i-- > 0;) {
            const std::size_t a = order[i];
            const bool broadcast = (sizes[a] == 1 || !is_output) && rng() % broadcast_one_in == 0;
            strides[a] = broadcast ? 0 : next;
            if (!broadcast) next *= sizes[a] + (rng() % 3 == 0 ? 1 + static_cast<std::uint32_t>(rng() % 2) : 0);
        }
        desc = make_buffer_tensor_desc(type, sizes, strides);
    }
    if (rng() % 4 == 0) desc.total_tensor_size_in_bytes += 4 * (1 + rng() % 8); // a buffer larger than its tensor
    return desc;
}

/// Runs `desc` through the engine (one thread, and three) and the textbook over output buffers of
/// `fill` bytes, the input grown to its TotalTensorSizeInBytes; all must give the same bytes,
/// which it returns.
inline std::vector<std::byte> run_both(const operator_desc& desc, std::vector<std::byte> input, std::byte fill = std::byte{0}) {
    const auto& out = textbook::detail::output_of(desc);
    const auto& in = inputs_of(desc).front().desc();
    input.resize(std::max<std::size_t>(input.size(), in.total_tensor_size_in_bytes));
    std::vector<std::byte> fast(out.total_tensor_size_in_bytes, fill), slow = fast, threaded = fast;
    execute(desc, input, fast);
    execute(desc, input, threaded, execution_options{3, 1});
    textbook::execute(desc, input, slow);
    CHECK(fast == slow);
    CHECK(threaded == slow);
    return fast;
}

/// validate() refuses `desc` at `level` with a message holding every one of `words`, and
/// execute() and the textbook throw that message and leave the output as it was.
inline void expect_rejected(const operator_desc& desc, std::initializer_list<std::string> words,
                            feature_level level = newest_feature_level) {
    const auto message = validate(desc, level);
    REQUIRE(message.has_value());
    INFO("message: " << *message);
    for (const std::string& word : words) CHECK_THAT(*message, Catch::Contains(word));
    const auto& in = inputs_of(desc).front().desc();
    const auto& out = outputs_of(desc).front().desc();
    const std::vector<std::byte> input(std::min<std::uint64_t>(in.total_tensor_size_in_bytes, 4096), std::byte{1});
    std::vector<std::byte> output(std::min<std::uint64_t>(out.total_tensor_size_in_bytes, 4096), std::byte{0xcd});
    CHECK_THROWS_MATCHES(execute(desc, input, output, level), validation_error, Catch::Message(*message));
    CHECK_THROWS_MATCHES(textbook::execute(desc, input, output, level), validation_error, Catch::Message(*message));
    CHECK(std::all_of(output.begin(), output.end(), [](std::byte b) { return b == std::byte{0xcd}; }));
}

/// Every element type, for TEMPLATE_TEST_CASE.
#define DMLREF_ELEMENT_TYPES                                                                                        \
    std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t,              \
        std::int64_t, float, double, dmlref::float16

/// An operator over views, run by the engine (`fast`) and the textbook (`slow`) from the same random
/// input of `extents` (axes reversed in memory, odd axes read backwards) into strided outputs of
/// `out_extents` (the innermost rows one element apart, so spare elements lie between them) that
/// start filled with `fill`: the two outputs must be equal byte for byte, spare elements included.
/// `fast` and `slow` take (strided_view<const T, Rank> input, strided_view<T, Rank> output).
template <class T, std::size_t Rank, class Fast, class Slow>
void check_engine_equals_textbook(std::mt19937_64& rng, const index_array<Rank>& extents, const index_array<Rank>& out_extents,
                                  unsigned char fill, Fast fast, Slow slow) {
    std::ptrdiff_t count = 1;
    for (auto e : extents) count *= e;
    std::vector<T> in_storage(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < in_storage.size() * sizeof(T); ++k)
        reinterpret_cast<unsigned char*>(in_storage.data())[k] = static_cast<unsigned char>(rng());
    index_array<Rank> in_strides{};
    std::ptrdiff_t stride = 1, offset = 0;
    for (std::size_t i = 0; i < Rank; ++i) {
        in_strides[i] = i % 2 ? -stride : stride;
        if (i % 2) offset += (extents[i] - 1) * stride;
        stride *= extents[i];
    }
    const strided_view<const T, Rank> input(in_storage.data(), extents, in_strides, offset);
    index_array<Rank> out_strides{};
    stride = 1;
    for (std::size_t i = Rank; i-- > 0;) {
        out_strides[i] = stride;
        stride *= out_extents[i] + (i == Rank - 1 ? 1 : 0);
    }
    std::vector<T> engine(static_cast<std::size_t>(stride)), textbook(engine.size());
    std::memset(static_cast<void*>(engine.data()), fill, engine.size() * sizeof(T));
    std::memset(static_cast<void*>(textbook.data()), fill, textbook.size() * sizeof(T));
    fast(input, strided_view<T, Rank>(engine.data(), out_extents, out_strides));
    slow(input, strided_view<T, Rank>(textbook.data(), out_extents, out_strides));
    REQUIRE(std::memcmp(engine.data(), textbook.data(), engine.size() * sizeof(T)) == 0);
}

} // namespace dmlref::test_support
