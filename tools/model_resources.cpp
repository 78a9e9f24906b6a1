// A model's resources: planning, the memory budget, the arena and the initial values
// (model_resources.hpp); the memory this process may take and the byte counts people write.
#include "model_resources.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/ranges.h>

#include <dmlref/detail/checked.hpp>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h> // sysconf
#endif
#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h> // GlobalMemoryStatusEx
#endif

namespace dmlref::model::internal {
namespace {

/// Appends `count` values of `type` made by `next(i)` (a double for floats, an integer otherwise).
template <class Emit> void for_each_type(data_type type, Emit&& emit) {
    switch (type) {
    case data_type::float16: emit(float16{}); break;
    case data_type::float32: emit(float{}); break;
    case data_type::float64: emit(double{}); break;
    case data_type::uint8: emit(std::uint8_t{}); break;
    case data_type::int8: emit(std::int8_t{}); break;
    case data_type::uint16: emit(std::uint16_t{}); break;
    case data_type::int16: emit(std::int16_t{}); break;
    case data_type::uint32: emit(std::uint32_t{}); break;
    case data_type::int32: emit(std::int32_t{}); break;
    case data_type::uint64: emit(std::uint64_t{}); break;
    case data_type::int64: emit(std::int64_t{}); break;
    default: break;
    }
}

/// {"valueCount", "valueStart", "valueDelta"}: value[i + 1] = value[i] + delta, computed in the
/// element type as DxDispatch does (integers wrap; FLOAT16 rounds each sum to nearest even),
/// written straight into the resource.
void fill_sequence(data_type type, std::uint32_t count, const json& g, const at& where, std::byte* out) {
    const std::size_t width = element_size(type);
    const auto start = scalar_bytes(type, require(g, where, "valueStart"), where / "valueStart");
    const auto delta = scalar_bytes(type, require(g, where, "valueDelta"), where / "valueDelta");
    for_each_type(type, [&](auto zero) {
        using T = decltype(zero);
        T value, step;
        std::memcpy(&value, start.data(), sizeof(T));
        std::memcpy(&step, delta.data(), sizeof(T));
        for (std::uint32_t i = 0; i < count; ++i) {
            std::memcpy(out + std::size_t{i} * width, &value, sizeof(T));
            if constexpr (std::is_same_v<T, float16>)
                value = float16::from_double(value.to_double() + step.to_double());
            else if constexpr (std::is_integral_v<T>)
                value = static_cast<T>(static_cast<std::make_unsigned_t<T>>(value) + static_cast<std::make_unsigned_t<T>>(step));
            else
                value = static_cast<T>(value + step);
        }
    });
}

/// A resource as planned before anything is allocated: where its values come from and how many
/// bytes it and its reading take.
struct resource_plan {
    enum class source { array, constant, sequence, npy_file, raw_file };
    std::string name;
    at where;
    const json* node = nullptr; ///< the resource's JSON object
    source kind = source::array;
    data_type type = data_type::unknown;
    std::filesystem::path file;
    npy::header header;        ///< for npy_file
    std::uint64_t file_size = 0;
    std::uint64_t values = 0;  ///< bytes of initial values
    std::uint64_t offset = 0;
    std::uint64_t size_in_bytes = 0;
    std::uint64_t value_bytes = 0;
    std::uint64_t reading = 0; ///< bytes reading takes besides the resource (a Fortran-order copy)
};

resource_plan plan_resource(const std::string& name, const json& r, const at& where, const path_rule& rule) {
    object(r, where);
    only_keys(r, where, {"initialValuesDataType", "initialValues", "sizeInBytes", "initialValuesOffsetInBytes",
                         "graphOptimizationLevel", "loggingLevel"});
    resource_plan p;
    p.name = name;
    p.where = where;
    p.node = &r;
    if (const json* t = find(r, "initialValuesDataType")) p.type = data_type_field(*t, where / "initialValuesDataType");
    const json& init = require(r, where, "initialValues");
    const at wi = where / "initialValues";
    auto need_type = [&] {
        if (p.type == data_type::unknown) where.fail("missing field 'initialValuesDataType'");
    };
    if (init.is_array()) {
        need_type();
        p.kind = resource_plan::source::array;
        p.values = init.size() * element_size(p.type); // the array's size is bounded by the file's
    } else if (init.is_object()) {
        const bool has_value = init.contains("value"), has_start = init.contains("valueStart"),
                   has_path = init.contains("sourcePath");
        if (int(has_value) + int(has_start) + int(has_path) != 1)
            wi.fail("expected exactly one of 'value', 'valueStart' (with 'valueDelta') and 'sourcePath'");
        if (has_path) {
            only_keys(init, wi, {"sourcePath"});
            const at wp = wi / "sourcePath";
            p.file = model_path(rule, string(init["sourcePath"], wp), wp);
            const std::string extension = lower(p.file.extension().string());
            if (extension == ".jpg" || extension == ".png") wp.fail("image files are not supported by dmlref");
            opened_file f = open_regular(p.file);
            if (!f.error.empty()) wp.fail(f.error);
            p.file_size = f.size;
            if (extension == ".npy") {
                p.kind = resource_plan::source::npy_file;
                p.header = read_npy_header(f.file.get(), f.size, p.file, wp);
                if (p.header.data_bytes != f.size - std::min(f.size, p.header.data_offset) || p.header.data_offset > f.size)
                    wp.fail(fmt::format("npy: {}: holds {} bytes of data, but shape and dtype '{}' need {}", p.file.string(),
                                        f.size - std::min(f.size, p.header.data_offset), p.header.descr, p.header.data_bytes));
                if (p.type != data_type::unknown && p.type != p.header.type)
                    wp.fail(fmt::format("'{}' holds {}, but initialValuesDataType is {}", p.file.string(), to_string(p.header.type),
                                        to_string(p.type)));
                p.type = p.header.type;
                p.values = p.header.data_bytes;
                if (p.header.fortran_order && p.header.shape.size() > 1) p.reading = p.values;
            } else {
                need_type();
                p.kind = resource_plan::source::raw_file;
                p.values = f.size;
            }
        } else {
            need_type();
            const auto count = integer<std::uint32_t>(require(init, wi, "valueCount"), wi / "valueCount");
            if (has_value) {
                only_keys(init, wi, {"valueCount", "value"});
                p.kind = resource_plan::source::constant;
            } else {
                only_keys(init, wi, {"valueCount", "valueStart", "valueDelta"});
                p.kind = resource_plan::source::sequence;
            }
            p.values = std::uint64_t{count} * element_size(p.type);
        }
    } else if (init.is_string() && init.get<std::string>() == "deferred") {
        wi.fail("deferred resources are not supported by dmlref");
    } else {
        wi.fail("expected an array of numbers or an object, got " + shown(init));
    }
    if (p.values == 0) wi.fail("must hold at least one value");

    p.offset = find(r, "initialValuesOffsetInBytes")
                   ? integer<std::uint64_t>(r["initialValuesOffsetInBytes"], where / "initialValuesOffsetInBytes")
                   : 0;
    const std::size_t width = element_size(p.type);
    if (const json* s = find(r, "sizeInBytes")) {
        p.size_in_bytes = integer<std::uint64_t>(*s, where / "sizeInBytes");
        p.value_bytes = p.size_in_bytes / width * width;
    } else {
        const auto rounded = detail::checked_add(p.values, std::uint64_t{3}); // DirectML buffers are rounded up to 4 bytes
        if (!rounded) where.fail(fmt::format("{} bytes of initial values overflow 64 bits", p.values));
        p.size_in_bytes = *rounded & ~std::uint64_t{3};
        p.value_bytes = p.values;
    }
    if (p.offset > p.size_in_bytes || p.values > p.size_in_bytes - p.offset)
        where.fail(fmt::format("the buffer ({} bytes) is too small for the initial values ({} bytes) at offset {}", p.size_in_bytes,
                               p.values, p.offset));
    if (p.size_in_bytes >= SIZE_MAX - resource_alignment)
        (where / "sizeInBytes").fail(fmt::format("{} bytes do not fit in this machine's address space", p.size_in_bytes));
    return p;
}

/// One allocation for every resource of a model, each resource on its own 64 KiB boundary.
/// calloc: the allocator hands a large block over as fresh zero pages, so bytes no value fills
/// (a 20 GiB sizeInBytes, the gaps between small resources) cost no time and no memory until a
/// dispatch writes them; a block per resource would touch its 64 KiB of alignment in the heap.
std::shared_ptr<std::byte[]> allocate_arena(std::uint64_t bytes, const at& where) {
    void* const raw = bytes < SIZE_MAX - resource_alignment ? std::calloc(static_cast<std::size_t>(bytes) + resource_alignment, 1) : nullptr;
    if (!raw) where.fail(fmt::format("cannot allocate {} bytes for the resources", bytes));
    const auto address = reinterpret_cast<std::uintptr_t>(raw);
    auto* const aligned = reinterpret_cast<std::byte*>((address + resource_alignment - 1) & ~std::uintptr_t{resource_alignment - 1});
    return std::shared_ptr<std::byte[]>(aligned, [raw](std::byte*) { std::free(raw); });
}

/// Places the planned resource at `storage` (zeroed, part of the arena) and writes its initial
/// values straight into it.
resource fill_resource(const resource_plan& p, std::shared_ptr<std::byte[]> storage) {
    const at& where = p.where;
    resource res;
    res.name = p.name;
    res.type = p.type;
    res.size_in_bytes = p.size_in_bytes;
    res.value_bytes = p.value_bytes;
    res.storage = std::move(storage);
    std::byte* const values = res.storage.get() + p.offset;
    const std::size_t width = element_size(p.type);
    const json& init = (*p.node)["initialValues"];
    const at wi = where / "initialValues";
    switch (p.kind) {
    case resource_plan::source::array:
        for (std::size_t i = 0; i < init.size(); ++i) std::memcpy(values + i * width, scalar_bytes(p.type, init[i], wi[i]).data(), width);
        break;
    case resource_plan::source::constant: {
        const auto one = scalar_bytes(p.type, init["value"], wi / "value");
        for (std::uint64_t i = 0; i < p.values; i += width) std::memcpy(values + i, one.data(), width);
        break;
    }
    case resource_plan::source::sequence:
        fill_sequence(p.type, static_cast<std::uint32_t>(p.values / width), init, wi, values);
        break;
    case resource_plan::source::npy_file:
    case resource_plan::source::raw_file: {
        // Opened again, so no descriptor stays open per resource; it must still be what was planned.
        const at wp = wi / "sourcePath";
        opened_file f = open_regular(p.file);
        if (!f.error.empty()) wp.fail(f.error);
        if (f.size != p.file_size) wp.fail(fmt::format("'{}' changed size since it was first read", p.file.string()));
        std::span<std::byte> data(values, static_cast<std::size_t>(p.values));
        if (p.kind == resource_plan::source::npy_file) {
            const npy::header h = read_npy_header(f.file.get(), f.size, p.file, wp);
            if (h.type != p.header.type || h.shape != p.header.shape || h.data_offset != p.header.data_offset ||
                h.fortran_order != p.header.fortran_order || h.big_endian != p.header.big_endian)
                wp.fail(fmt::format("'{}' changed since it was first read", p.file.string()));
        }
        if (!read_exact(f.file.get(), data) || !at_end(f.file.get()))
            wp.fail(fmt::format("'{}' changed size while it was read", p.file.string()));
        if (p.kind == resource_plan::source::npy_file) npy::decode(p.header, data);
        break;
    }
    }
    return res;
}

} // namespace

std::string memory_budget::exceeded() const {
    return fmt::format("exceeds the memory budget of {} bytes ({})", bytes,
                       from_option ? "set by --max-memory" : "the memory available; dmlref run --max-memory changes it");
}

std::map<std::string, resource, std::less<>> load_resources(const json& resources, const at& where, const path_rule& rule,
                                                            std::uint64_t resident, const memory_budget& budget) {
    std::vector<resource_plan> plans;
    for (const auto& [key, value] : resources.items()) plans.push_back(plan_resource(key, value, where / key, rule));
    for (const resource_plan& p : plans) {
        const auto with = detail::checked_add(resident, p.size_in_bytes + resource_alignment);
        const auto peak = with ? detail::checked_add(*with, p.reading) : std::nullopt;
        if (!peak || *peak > budget.bytes)
            p.where.fail(fmt::format("{} bytes{}, with the JSON and the resources before it ({} bytes in all), {}", p.size_in_bytes,
                                     p.reading ? fmt::format(" (and {} more to read it)", p.reading) : "",
                                     peak ? std::to_string(*peak) : "more than 2^64", budget.exceeded()));
        resident = *with;
    }
    // Sizes fit the budget, so these sums (at most the budget plus an alignment) cannot overflow.
    std::uint64_t arena_bytes = 0;
    for (const resource_plan& p : plans) arena_bytes += (p.size_in_bytes + resource_alignment) & ~std::uint64_t{resource_alignment - 1};
    const auto arena = allocate_arena(arena_bytes, where);
    std::map<std::string, resource, std::less<>> out;
    std::uint64_t place = 0;
    for (const resource_plan& p : plans) {
        out.emplace(p.name, fill_resource(p, std::shared_ptr<std::byte[]>(arena, arena.get() + place)));
        place += (p.size_in_bytes + resource_alignment) & ~std::uint64_t{resource_alignment - 1};
    }
    return out;
}

} // namespace dmlref::model::internal

namespace dmlref::model {
using internal::lower;

#if defined(__linux__)
namespace {

/// The first number a small text file holds, if it holds one ("max" does not).
std::optional<std::uint64_t> number_in(const char* path) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) return std::nullopt;
    std::uint64_t v = 0;
    const bool found = std::fscanf(f, "%" SCNu64, &v) == 1;
    std::fclose(f);
    return found ? std::optional(v) : std::nullopt;
}

} // namespace
#endif

std::uint64_t available_memory() {
#if defined(__linux__)
    std::optional<std::uint64_t> available;
    if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        std::uint64_t kib = 0;
        bool found = false;
        while (!found && std::fgets(line, sizeof line, f))
            found = std::sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1;
        std::fclose(f);
        if (found) available = kib * 1024;
    }
    // A container's cgroup (v2) limit binds before the machine's memory does.
    const auto limit = number_in("/sys/fs/cgroup/memory.max"), used = number_in("/sys/fs/cgroup/memory.current");
    if (limit && used) {
        const std::uint64_t left = *limit > *used ? *limit - *used : 0;
        available = available ? std::min(*available, left) : left;
    }
    if (available) return *available;
#endif
#if defined(_WIN32)
    // The physical memory free now (a job object's limit, where one binds, is not asked).
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof status;
    if (GlobalMemoryStatusEx(&status) && status.ullAvailPhys > 0) return status.ullAvailPhys;
#endif
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
#endif
    return std::uint64_t{4} << 30; // nothing to ask: a budget that most machines meet
}

std::optional<std::uint64_t> parse_byte_count(std::string_view text) {
    std::uint64_t value = 0;
    std::size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        const auto next = detail::checked_mul(value, std::uint64_t{10});
        if (!next) return std::nullopt;
        const auto sum = detail::checked_add(*next, static_cast<std::uint64_t>(text[i] - '0'));
        if (!sum) return std::nullopt;
        value = *sum;
    }
    if (i == 0) return std::nullopt;
    std::string unit = lower(text.substr(i));
    if (unit.ends_with("ib")) unit.resize(unit.size() - 2);
    else if (unit.ends_with("b")) unit.resize(unit.size() - 1);
    static constexpr std::string_view units = "kmgtp";
    unsigned shift = 0;
    if (unit.size() == 1 && units.find(unit[0]) != std::string_view::npos) shift = 10 * (static_cast<unsigned>(units.find(unit[0])) + 1);
    else if (!unit.empty()) return std::nullopt;
    if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
    return value << shift;
}

std::optional<std::uint64_t> checked_buffer_elements(const buffer_tensor_desc& t) {
    if (!t.strides) return detail::checked_product(std::span<const std::uint32_t>(t.sizes));
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < t.sizes.size(); ++i) {
        if (t.sizes[i] == 0) return std::uint64_t{0};
        const auto step = detail::checked_mul(std::uint64_t{t.sizes[i] - 1}, std::uint64_t{(*t.strides)[i]});
        const auto sum = step ? detail::checked_add(last, *step) : std::nullopt;
        if (!sum) return std::nullopt;
        last = *sum;
    }
    return detail::checked_add(last, std::uint64_t{1});
}

std::uint64_t buffer_elements(const buffer_tensor_desc& t) {
    if (auto n = checked_buffer_elements(t)) return *n;
    throw validation_error(fmt::format("a buffer for sizes {{{}}} and strides {{{}}} holds more than 2^64 elements", fmt::join(t.sizes, ", "),
                                       fmt::join(t.strides.value_or(std::vector<std::uint32_t>{}), ", ")));
}

} // namespace dmlref::model
