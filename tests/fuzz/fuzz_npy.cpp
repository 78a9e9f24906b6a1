// Fuzzer: the .npy reader. Any bytes either parse or are refused with validation_error; whatever
// parses writes back (C order, little-endian) to a file that parses to the same array.
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include <dmlref/npy.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto bytes = std::as_bytes(std::span(data, size));
    dmlref::npy::array a;
    try {
        a = dmlref::npy::parse(bytes, "fuzz.npy");
    } catch (const dmlref::validation_error&) {
        return 0;
    }
    std::vector<std::byte> written;
    try {
        written = dmlref::npy::serialize(a);
    } catch (const dmlref::validation_error&) {
        return 0; // a shape too long for a version 1.0 header: refused, by design
    }
    if (dmlref::npy::parse(written, "written.npy") != a) {
        std::fprintf(stderr, "fuzz_npy: the written file reads back differently\n");
        std::abort();
    }
    return 0;
}
