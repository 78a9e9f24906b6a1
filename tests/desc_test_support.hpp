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
#include <string>
#include <vector>

namespace dmlref::test_support {

template <class T> std::vector<std::byte> bytes_of(const std::vector<T>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

template <class T> std::vector<T> values_of(const std::vector<std::byte>& bytes) {
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
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

} // namespace dmlref::test_support
