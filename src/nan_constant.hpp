#pragma once

#include <limits>

namespace ktune {

// The readers' and the methodology's "no value here" (a missing or failed measurement, an empty cell). One definition
// for the library: the unity build compiles several sources as one translation unit.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace ktune
