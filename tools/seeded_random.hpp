#pragma once
/// \file seeded_random.hpp
/// The project's own seeded random numbers: a generator, an unbiased bounded integer draw, a
/// percentage, a real in [0, 1) and a shuffle, each written out here. The standard specifies its
/// engines' output but not what `std::uniform_int_distribution`, `std::shuffle` or
/// `std::uniform_real_distribution` make of it, and libstdc++, libc++ and MSVC's STL differ, so a
/// seed shared between users (`dmlref vectors --seed S`, the property tests' fixed seeds, the
/// bench sweep's cases) names the same cases only if every draw is defined by the project.
///
/// The generator is xoshiro256** 1.0 (D. Blackman and S. Vigna, "Scrambled linear pseudorandom
/// number generators", 2021; prng.di.unimi.it), its state filled from the seed by splitmix64, as
/// the authors advise. Both are checked against the published reference outputs in
/// tests/test_seeded_random.cpp. Only fixed-width unsigned arithmetic is used (wrapping, shifts,
/// rotations), so every conforming compiler and library computes the same sequence.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

namespace dmlref::seeded {

/// One step of splitmix64 (Steele, Lea and Flood; Vigna's splitmix64.c): advances `state` and
/// returns its next output.
constexpr std::uint64_t splitmix64_next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e37'79b9'7f4a'7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebull;
    return z ^ (z >> 31);
}

/// xoshiro256** 1.0: 256 bits of state, 64-bit outputs. A UniformRandomBitGenerator, but feed it
/// only to the draws below: the standard's distributions would make its output library-dependent.
class xoshiro256ss {
public:
    using result_type = std::uint64_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

    /// The state is four outputs of splitmix64 started at `seed` (never all zero).
    explicit constexpr xoshiro256ss(std::uint64_t seed) {
        for (std::uint64_t& word : s_) word = splitmix64_next(seed);
    }
    /// A given state, as the reference implementation takes it (for its test vectors).
    static constexpr xoshiro256ss from_state(const std::array<std::uint64_t, 4>& state) {
        xoshiro256ss g(0);
        g.s_ = state;
        return g;
    }

    constexpr result_type operator()() {
        const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = std::rotl(s_[3], 45);
        return result;
    }

private:
    std::array<std::uint64_t, 4> s_{};
};

using generator = xoshiro256ss;

/// A uniform integer in [0, bound), bound > 0, without bias: Lemire's multiply-and-shift on the
/// output's upper 32 bits ("Fast random integer generation in an interval", 2019), redrawing the
/// few products whose low half falls below 2^32 mod bound.
constexpr std::uint32_t below(generator& rng, std::uint32_t bound) {
    std::uint64_t product = (rng() >> 32) * bound;
    auto low = static_cast<std::uint32_t>(product);
    if (low < bound) {
        const std::uint32_t threshold = static_cast<std::uint32_t>(0u - bound) % bound; // 2^32 mod bound
        while (low < threshold) {
            product = (rng() >> 32) * bound;
            low = static_cast<std::uint32_t>(product);
        }
    }
    return static_cast<std::uint32_t>(product >> 32);
}

/// A uniform integer in [low, high] (low <= high), the whole 32-bit range included.
constexpr std::uint32_t pick(generator& rng, std::uint32_t low, std::uint32_t high) {
    const std::uint32_t span = high - low + 1; // 0: all 2^32 values
    return span == 0 ? static_cast<std::uint32_t>(rng() >> 32) : low + below(rng, span);
}

/// True with probability `percent`/100.
constexpr bool chance(generator& rng, int percent) { return pick(rng, 0, 99) < static_cast<std::uint32_t>(percent); }

/// A uniform double in [0, 1): the output's upper 53 bits over 2^53.
constexpr double unit(generator& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// Fisher-Yates (Durstenfeld's form): each position from the last down swaps with a uniform one at
/// or before it, so every permutation is equally likely. At most 2^32 elements.
template <std::random_access_iterator It> constexpr void shuffle(It first, It last, generator& rng) {
    for (auto i = static_cast<std::uint32_t>(last - first); i > 1; --i)
        std::iter_swap(first + static_cast<std::iter_difference_t<It>>(i - 1),
                       first + static_cast<std::iter_difference_t<It>>(below(rng, i)));
}

} // namespace dmlref::seeded
