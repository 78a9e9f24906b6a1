#pragma once
/// \file fuzz_input.hpp
/// Reads a fuzzer's bytes as a stream of choices. Past the end every read is 0, so any input,
/// however short, describes a case. Most choices come in two forms, picked by one byte: a small
/// value (the shapes a valid case is made of) or a raw 32- or 64-bit one (the hostile values:
/// sizes near 2^32, offsets near PTRDIFF_MAX, strides of PTRDIFF_MIN).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace dmlref_fuzz {

class input {
public:
    explicit input(std::span<const std::uint8_t> bytes) noexcept : bytes_(bytes) {}

    template <class T> T raw() noexcept {
        T value{};
        const std::size_t n = bytes_.size() - at_ < sizeof(T) ? bytes_.size() - at_ : sizeof(T);
        std::memcpy(&value, bytes_.data() + at_, n);
        at_ += n;
        return value;
    }
    std::uint8_t byte() noexcept { return raw<std::uint8_t>(); }

    /// A small unsigned value in [0, small_count), or (one time in sixteen) a raw 32-bit one.
    std::uint32_t u32(std::uint32_t small_count) noexcept {
        const std::uint8_t f = byte();
        return f >= 0xf0 ? raw<std::uint32_t>() : f % small_count;
    }
    /// A small signed value in [-small, small], or (one time in sixteen) a raw 32-bit one.
    std::int32_t i32(std::int32_t small) noexcept {
        const std::uint8_t f = byte();
        return f >= 0xf0 ? raw<std::int32_t>() : static_cast<std::int32_t>(f % (2 * small + 1)) - small;
    }
    /// A small signed value in [-small, small], or (one time in eight) a raw 64-bit one.
    std::ptrdiff_t index(std::ptrdiff_t small) noexcept {
        const std::uint8_t f = byte();
        return f >= 0xe0 ? raw<std::int64_t>() : static_cast<std::ptrdiff_t>(f % (2 * small + 1)) - small;
    }
    std::span<const std::uint8_t> rest() const noexcept { return bytes_.subspan(at_); }

private:
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

} // namespace dmlref_fuzz
