#pragma once
// Reading and writing single elements of kernel arguments as doubles, whatever their ElementType: fills, scalars,
// verification and accuracy all go through here. Half values are IEEE binary16 (round to nearest even).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ktune/live/element_type.hpp"

namespace ktune::live {

std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);

// Writes `value` as one element of `type` at `out` (element_size(type) bytes, host byte order). Integers are
// rounded toward zero and saturate at the type's limits (NaN gives 0); booleans are value != 0.
void store_element(ElementType type, double value, std::byte* out);
// The element of `type` at `in` as a double (int64 beyond 2^53 rounds).
double load_element(ElementType type, const std::byte* in);
// Every element of `bytes` (a whole number of elements) as doubles.
std::vector<double> to_doubles(ElementType type, std::span<const std::byte> bytes);

}  // namespace ktune::live
