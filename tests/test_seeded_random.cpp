// The project's seeded random numbers (tools/seeded_random.hpp): the generator against the
// published reference outputs, and the draws against values computed by an independent Python
// transcription of the same definitions. Every expected value here is a constant, so a standard
// library, compiler or platform that computed any draw differently fails this file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include "seeded_random.hpp"

using namespace dmlref::seeded;

TEST_CASE("splitmix64 gives the reference outputs for seed 1234567", "[seeded]") {
    std::uint64_t state = 1234567;
    const std::uint64_t expected[] = {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                                      4593380528125082431ull, 16408922859458223821ull};
    for (std::uint64_t x : expected) CHECK(splitmix64_next(state) == x);
}

TEST_CASE("xoshiro256** gives the reference implementation's outputs for the state {1, 2, 3, 4}", "[seeded]") {
    auto g = xoshiro256ss::from_state({1, 2, 3, 4});
    const std::uint64_t expected[] = {11520, 0, 1509978240, 1215971899390074240ull, 1216172134540287360ull,
                                      607988272756665600ull};
    for (std::uint64_t x : expected) CHECK(g() == x);
}

TEST_CASE("a seed fills the state through splitmix64", "[seeded]") {
    generator g(2026);
    CHECK(g() == 0x92e0'1159'2e98'ae15ull);
    CHECK(g() == 0x489f'3794'6d6d'18d8ull);
    CHECK(g() == 0xd000'9e27'9d9c'dedaull);
}

TEST_CASE("pick, below, unit and shuffle give the values the project defines", "[seeded]") {
    SECTION("pick in [0, 99]") {
        generator g(2026);
        const std::uint32_t expected[] = {57, 28, 81, 89, 81, 78, 83, 82, 86, 23, 96, 31};
        for (std::uint32_t x : expected) CHECK(pick(g, 0, 99) == x);
    }
    SECTION("below a bound whose rejection zone is a quarter of the draws (one redraw in these six)") {
        generator g(2026);
        const std::uint32_t expected[] = {1848118530, 2617276061, 2878727549, 2615748762, 2540848442, 2685577018};
        for (std::uint32_t x : expected) CHECK(below(g, 3u << 30) == x);
        generator h(2026);
        for (int i = 0; i < 7; ++i) h();
        CHECK(g() == h()); // exactly seven outputs consumed
    }
    SECTION("unit") {
        generator g(2026);
        CHECK(unit(g) == 0.5737315027932676);
        CHECK(unit(g) == 0.2836794602748579);
    }
    SECTION("shuffle") {
        generator g(2026);
        std::array<int, 10> a{};
        std::iota(a.begin(), a.end(), 0);
        shuffle(a.begin(), a.end(), g);
        CHECK(a == std::array<int, 10>{0, 1, 8, 9, 3, 4, 7, 6, 2, 5});
    }
}

TEST_CASE("pick covers its range, the whole 32-bit range included, and shuffle reaches every order", "[seeded]") {
    generator g(7);
    std::array<int, 5> seen{};
    for (int i = 0; i < 5000; ++i) {
        const std::uint32_t x = pick(g, 3, 7);
        REQUIRE(x >= 3);
        REQUIRE(x <= 7);
        ++seen[x - 3];
    }
    for (int n : seen) CHECK(n > 900); // 1000 expected each
    CHECK(pick(g, 5, 5) == 5);
    bool high = false;
    for (int i = 0; i < 64; ++i) high |= pick(g, 0, 0xffff'ffffu) >= 0x8000'0000u;
    CHECK(high);

    std::map<std::vector<int>, int> orders;
    for (int i = 0; i < 6000; ++i) {
        std::vector<int> v{0, 1, 2};
        shuffle(v.begin(), v.end(), g);
        ++orders[v];
    }
    CHECK(orders.size() == 6);
    for (const auto& [order, n] : orders) CHECK(n > 850); // 1000 expected each
}
