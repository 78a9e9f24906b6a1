#pragma once
/// \file error.hpp
/// The one exception type of the CPU library.

#include <stdexcept>
#include <string>

namespace dmlref {

/// Thrown for every rejected argument: a desc DirectML would refuse, a view whose shape does not fit
/// the operator, a buffer too small for its tensor. The message names the operator, the field, the
/// axis and the values, e.g. `SLICE1: InputWindowOffsets[2] + InputWindowSizes[2] = 6 exceeds
/// InputTensor.Sizes[2] = 4`.
class validation_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

} // namespace dmlref
