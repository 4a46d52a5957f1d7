#include "strategies/spread_order.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune::strategies {

std::vector<std::size_t> spread_first(const SearchSpace& space, std::vector<std::size_t> sample) {
  const std::size_t n = sample.size(), d = space.num_params();
  if (n < 3 || d == 0) return sample;
  std::vector<double> scale(d);
  for (std::size_t p = 0; p < d; ++p) {
    const std::size_t values = space.param_values(p).size();
    scale[p] = values > 1 ? 1.0 / static_cast<double>(values - 1) : 0.0;
  }
  std::vector<double> x(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t p = 0; p < d; ++p) x[i * d + p] = static_cast<double>(space.value_index(sample[i], p)) * scale[p];
  // nearest[i]: the least distance of point i to the points taken; taken points are swapped to the front.
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  std::vector<std::size_t> slot(n);
  for (std::size_t i = 0; i < n; ++i) slot[i] = i;
  const std::size_t ordered = std::min(n, kSpreadPrefix);
  for (std::size_t k = 0; k < ordered; ++k) {
    if (k > 0) {
      std::size_t far = k;  // the remaining point farthest from the taken ones; of equal ones the earlier drawn
      for (std::size_t j = k + 1; j < n; ++j)
        if (nearest[slot[j]] > nearest[slot[far]] || (nearest[slot[j]] == nearest[slot[far]] && slot[j] < slot[far]))
          far = j;
      std::swap(slot[k], slot[far]);
    }
    const double* taken = &x[slot[k] * d];
    for (std::size_t j = k + 1; j < n; ++j) {
      const double* y = &x[slot[j] * d];
      double distance = 0;
      for (std::size_t p = 0; p < d; ++p) distance += std::abs(y[p] - taken[p]);
      nearest[slot[j]] = std::min(nearest[slot[j]], distance);
    }
  }
  // The rest in the order drawn.
  std::sort(slot.begin() + static_cast<std::ptrdiff_t>(ordered), slot.end());
  std::vector<std::size_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = sample[slot[i]];
  return out;
}

}  // namespace ktune::strategies
