#pragma once
// The q-quantile of sorted values by linear interpolation between order statistics (Hyndman and Fan type 7, numpy's
// default), shared by the report's five-number summaries and the multi-objective comparison's quartiles.
// Infinite values (a run that found nothing yet) sort last and make a quantile between them infinite, not NaN.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace ktune::support {

// `sorted` ascending; NaN when empty.
inline double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nan("");
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const double lo = sorted[below], hi = sorted[std::min(below + 1, sorted.size() - 1)];
  const double fraction = at - static_cast<double>(below);
  if (fraction == 0 || lo == hi) return lo;
  if (std::isinf(hi)) return hi;
  return lo + fraction * (hi - lo);
}

}  // namespace ktune::support
