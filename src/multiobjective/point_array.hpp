#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>

namespace ktune {

// Points of m objectives held flat (point i is points[i*m, i*m+m)): refuses m = 0 and a ragged array.
inline void check_point_array(std::span<const double> points, std::size_t m) {
  if (m == 0) throw std::invalid_argument("points need at least one objective");
  if (points.size() % m != 0) throw std::invalid_argument("the point array is not a whole number of points");
}

}  // namespace ktune
