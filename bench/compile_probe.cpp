// The translation unit whose build time bench/compile_time.sh measures: the umbrella header and
// one call of the desc-level execute, which instantiates the engine for every element width.

#include <cstddef>
#include <span>

#include <dmlref/dmlref.hpp>

void run_operator(const dmlref::operator_desc& desc, std::span<const std::byte> input, std::span<std::byte> output) {
    dmlref::execute(desc, input, output);
}
