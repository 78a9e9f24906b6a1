// dmlref allocates nothing that grows with the tensor: every operator, through the desc-level
// execute, the threaded execute and the view-level functions, allocates the same on a tensor 4
// times larger. On one thread that is nothing at all, but for the gathering padding modes' one
// block of border tables, an offset per padded coordinate up to a few periods of the fold (so
// O(input extents), never O(pad)). This binary replaces the global operator new and delete to
// count what is allocated while a call runs.

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <dmlref/dmlref.hpp>
#include <dmlref/parallel.hpp>

#if defined(_WIN32)
#include <malloc.h> // _aligned_malloc, _aligned_free: mingw and MSVC have no std::aligned_alloc
#endif

namespace {

// Over-aligned blocks. Windows' C runtime has no std::aligned_alloc (its free() cannot release
// an over-aligned block), so there they come from _aligned_malloc and go back to _aligned_free.
void* aligned_block(std::size_t size, std::size_t alignment) {
#if defined(_WIN32)
    return _aligned_malloc(size, alignment);
#else
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
#endif
}
void free_aligned(void* p) noexcept {
#if defined(_WIN32)
    _aligned_free(p);
#else
    std::free(p);
#endif
}

std::atomic<bool> counting{false};
std::atomic<std::size_t> allocations{0};
std::atomic<std::size_t> allocated_bytes{0};

void* allocate(std::size_t size, std::size_t alignment) {
    if (counting.load(std::memory_order_relaxed)) {
        allocations.fetch_add(1, std::memory_order_relaxed);
        allocated_bytes.fetch_add(size, std::memory_order_relaxed);
    }
    if (size == 0) size = 1;
    void* p = alignment == 0 ? std::malloc(size) : aligned_block(size, alignment);
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

} // namespace

// Every form, so that none falls through to a sanitizer's own operator new (whose blocks the
// free() below would not match).
void* operator new(std::size_t size) { return allocate(size, 0); }
void* operator new[](std::size_t size) { return allocate(size, 0); }
void* operator new(std::size_t size, std::align_val_t alignment) {
    return allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
    return allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    try { return allocate(size, 0); } catch (const std::bad_alloc&) { return nullptr; }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    try { return allocate(size, 0); } catch (const std::bad_alloc&) { return nullptr; }
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    try { return allocate(size, static_cast<std::size_t>(alignment)); } catch (const std::bad_alloc&) { return nullptr; }
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    try { return allocate(size, static_cast<std::size_t>(alignment)); } catch (const std::bad_alloc&) { return nullptr; }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { free_aligned(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free_aligned(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { free_aligned(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { free_aligned(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { free_aligned(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { free_aligned(p); }

using namespace dmlref;

namespace {

struct allocation {
    std::size_t count = 0;
    std::size_t bytes = 0;
    bool operator==(const allocation&) const = default;
};

/// What `call` allocates while it runs (on any thread).
allocation allocated_by(const std::function<void()>& call) {
    allocations = 0;
    allocated_bytes = 0;
    counting = true;
    call();
    counting = false;
    return {allocations.load(), allocated_bytes.load()};
}

/// Input and output buffers of `desc`'s sizes, allocated before anything is counted.
struct buffers {
    std::vector<std::byte> input, output;
    explicit buffers(const operator_desc& desc) {
        input.assign(inputs_of(desc).front().desc().total_tensor_size_in_bytes, std::byte{1});
        output.resize(outputs_of(desc).front().desc().total_tensor_size_in_bytes);
    }
};

// 4 times the elements; both divide by 2, 3 and 4, and every output of the smaller is at least
// 512 KiB, so that two threads split it.
constexpr std::uint32_t small_side = 144, large_side = 288;

buffer_tensor_desc f32(std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::float32, std::move(sizes)); }

/// Each workload of the benchmark on an input {1, 36, side, side}, with pads that do not depend on side.
std::vector<std::pair<std::string, operator_desc>> workloads(std::uint32_t side) {
    std::vector<std::pair<std::string, operator_desc>> all;
    const auto in = f32({1, 36, side, side});
    for (std::uint32_t block : {2u, 3u}) {
        for (auto order : {depth_space_order::depth_column_row, depth_space_order::column_row_depth}) {
            const std::string suffix = fmt::format("block {} {}", block, to_string(order));
            all.emplace_back("depth to space " + suffix,
                             depth_to_space1_desc{in, f32({1, 36 / (block * block), side * block, side * block}), block, order});
            all.emplace_back("space to depth " + suffix,
                             space_to_depth1_desc{in, f32({1, 36 * block * block, side / block, side / block}), block, order});
        }
    }
    all.emplace_back("slice stride -1 on W", slice1_desc{in, in, {0, 0, 0, 0}, {1, 36, side, side}, {1, 1, 1, -1}});
    all.emplace_back("slice stride 2 on H and W",
                     slice1_desc{in, f32({1, 36, side / 2, side / 2}), {0, 0, 0, 0}, {1, 36, side, side}, {1, 1, 2, 2}});
    all.emplace_back("slice centred window", slice1_desc{in, f32({1, 36, side / 2, side / 2}), {0, 0, side / 4, side / 4},
                                                         {1, 36, side / 2, side / 2}, {1, 1, 1, 1}});
    for (auto mode : {padding_mode::constant, padding_mode::edge, padding_mode::reflection, padding_mode::symmetric,
                      padding_mode::wrap}) {
        all.emplace_back(fmt::format("padding {}", to_string(mode)),
                         padding1_desc{in, f32({1, 36, side + 7, side + 9}), mode, data_type::float32,
                                       scalar_union::of(1.5f), {0, 0, 3, 4}, {0, 0, 4, 5}});
    }
    return all;
}

constexpr std::size_t pad_entries = 3 + 4 + 4 + 5; // the pads above, summed over the axes

} // namespace

TEST_CASE("execute allocates nothing that grows with the tensor", "[allocation]") {
    const auto small = workloads(small_side), large = workloads(large_side);
    for (std::size_t i = 0; i < small.size(); ++i) {
        INFO(small[i].first);
        buffers s(small[i].second), l(large[i].second);
        const allocation at_small = allocated_by([&] { execute(small[i].second, s.input, s.output); });
        const allocation at_large = allocated_by([&] { execute(large[i].second, l.input, l.output); });
        CHECK(at_small == at_large);
        const auto* padding = std::get_if<padding1_desc>(&small[i].second);
        if (padding == nullptr || padding->padding_mode == padding_mode::constant) {
            CHECK(at_large == allocation{});
        } else { // the gather tables, an offset per padded coordinate (pads shorter than a period), in one block
            CHECK(at_large == allocation{1, pad_entries * sizeof(std::ptrdiff_t)});
        }
    }
}

TEST_CASE("execute on two threads allocates nothing that grows with the tensor", "[allocation]") {
    // execute() never starts more threads than the machine runs at once: on one, it starts none.
    const bool threads_start = detail::hardware_threads() >= 2;
    if (!threads_start) WARN("the machine runs one thread at once: no second thread starts, so its allocation is not checked");
    const auto small = workloads(small_side), large = workloads(large_side);
    for (std::size_t i = 0; i < small.size(); ++i) {
        INFO(small[i].first);
        buffers s(small[i].second), l(large[i].second);
        // Both outputs are at least 2 x 256 KiB, so both calls start the second thread.
        const execution_options two{2, std::size_t{256} << 10};
        REQUIRE(s.output.size() >= 2 * two.min_bytes_per_thread);
        const allocation at_small = allocated_by([&] { execute(small[i].second, s.input, s.output, two); });
        const allocation at_large = allocated_by([&] { execute(large[i].second, l.input, l.output, two); });
        CHECK(at_small == at_large);
        if (threads_start) CHECK(at_large.count > 0); // the thread was started (its state is allocated)
    }
}

TEST_CASE("outputs under twice min_bytes_per_thread run on the calling thread", "[allocation]") {
    // By default two threads split outputs of 8 MiB and more. These outputs are 0.7-3.2 MiB, so
    // asking for two threads starts none: the call allocates what it does on one thread.
    for (const auto& workload : workloads(small_side)) {
        const auto& name = workload.first;
        const operator_desc& desc = workload.second; // not a structured binding: clang 14's lambdas cannot capture one
        INFO(name);
        buffers b(desc);
        REQUIRE(b.output.size() < 2 * execution_options{}.min_bytes_per_thread);
        const allocation one = allocated_by([&] { execute(desc, b.input, b.output); });
        const allocation two = allocated_by([&] { execute(desc, b.input, b.output, execution_options{2}); });
        CHECK(two == one);
    }
}

TEST_CASE("the view-level functions allocate nothing that grows with the tensor", "[allocation]") {
    for (const std::ptrdiff_t side : {std::ptrdiff_t{small_side}, std::ptrdiff_t{large_side}}) {
        INFO("side " << side);
        tensor<float, 4> in({1, 36, side, side});
        tensor<float, 4> d2s({1, 4, side * 3, side * 3}), s2d({1, 144, side / 2, side / 2});
        tensor<float, 4> sliced({1, 36, side / 2, side / 2}), padded({1, 36, side + 7, side + 9});
        const strided_view<const float, 4> input = in.view();
        const allocation moves = allocated_by([&] {
            depth_to_space(input, d2s.view(), 3, depth_space_order::column_row_depth);
            space_to_depth(input, s2d.view(), 2, depth_space_order::depth_column_row);
            slice(input, sliced.view(), {0, 0, side / 4, side / 4}, {1, 36, side / 2, side / 2}, {1, 1, 1, 1});
            slice(input, sliced.view(), {0, 0, 0, 0}, {1, 36, side, side}, {1, 1, 2, -2});
            pad(input, padded.view(), padding_mode::constant, 0.0f, {0, 0, 3, 4}, {0, 0, 4, 5});
        });
        CHECK(moves == allocation{});
        const allocation gathers = allocated_by(
            [&] { pad(input, padded.view(), padding_mode::reflection, 0.0f, {0, 0, 3, 4}, {0, 0, 4, 5}); });
        CHECK(gathers == allocation{1, pad_entries * sizeof(std::ptrdiff_t)});
    }
}

TEST_CASE("pads far longer than their axis allocate tables of a few periods, not of the pad", "[allocation]") {
    // A folded border repeats with a period of at most 2n, so its table holds at most
    // max(detail::min_table_length + period, period) entries however long the pad: pads of 2^20
    // on an axis of 3 allocate as much as pads of 2^14, and a few KiB.
    const auto u8 = [](std::vector<std::uint32_t> sizes) { return make_buffer_tensor_desc(data_type::uint8, std::move(sizes)); };
    const std::uint32_t n = 3;
    for (auto mode : {padding_mode::constant, padding_mode::edge, padding_mode::reflection, padding_mode::symmetric,
                      padding_mode::wrap}) {
        INFO(to_string(mode));
        allocation at[2];
        for (int k = 0; k < 2; ++k) {
            const std::uint32_t pad = k == 0 ? 1u << 14 : 1u << 20;
            // Both sides, unequal: a rank-1 axis (one row, gathered a table at a time), then the
            // rows' axis of a rank-2 tensor (a table entry a row) with an inner axis padded too.
            const operator_desc one = padding1_desc{u8({n}), u8({n + pad + pad / 2 + 1}), mode, data_type::uint8, {},
                                                    {pad}, {pad / 2 + 1}};
            const operator_desc two = padding1_desc{u8({n, n}), u8({n + pad / 16 + pad / 32, n + 9}), mode,
                                                    data_type::uint8, {}, {pad / 16, 4}, {pad / 32, 5}};
            buffers b1(one), b2(two);
            const allocation a1 = allocated_by([&] { execute(one, b1.input, b1.output); });
            const allocation a2 = allocated_by([&] { execute(two, b2.input, b2.output); });
            at[k] = {a1.count + a2.count, a1.bytes + a2.bytes};
        }
        CHECK(at[0] == at[1]);
        const std::size_t per_border = static_cast<std::size_t>(detail::min_table_length) + 2 * n;
        if (mode == padding_mode::constant) CHECK(at[1] == allocation{});
        else CHECK(at[1].bytes <= 4 * per_border * sizeof(std::ptrdiff_t));
        CHECK(at[1].count <= 2); // a block a call at most
    }
}
