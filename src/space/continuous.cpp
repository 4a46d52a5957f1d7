// The continuous view of the constraint-aware optimisation paper: value index j of any parameter sits at j*epsilon,
// so every parameter shares one step size and the parameter with the most values spans [0, 1].
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/search_space.hpp"

namespace ktune {

double SearchSpace::epsilon() const {
  std::size_t max_values = 1;
  for (const auto& p : problem_.parameters) max_values = std::max(max_values, p.values.size());
  return max_values <= 1 ? 1.0 : 1.0 / static_cast<double>(max_values - 1);
}

double SearchSpace::continuous_upper(std::size_t p) const {
  if (p >= num_params()) throw std::out_of_range(fmt::format("parameter {} >= {} parameters", p, num_params()));
  return static_cast<double>(param_values(p).size() - 1) * epsilon();
}

std::vector<double> SearchSpace::to_continuous(std::span<const std::uint32_t> config) const {
  if (config.size() != num_params())
    throw std::invalid_argument(fmt::format("configuration has {} value indices, expected {}", config.size(),
                                            num_params()));
  const double eps = epsilon();
  std::vector<double> x(config.size());
  for (std::size_t p = 0; p < config.size(); ++p) x[p] = static_cast<double>(config[p]) * eps;
  return x;
}

Config SearchSpace::from_continuous(std::span<const double> x) const {
  if (x.size() != num_params())
    throw std::invalid_argument(fmt::format("point has {} coordinates, expected {}", x.size(), num_params()));
  const double eps = epsilon();
  Config config(x.size());
  for (std::size_t p = 0; p < x.size(); ++p) {
    const double top = static_cast<double>(param_values(p).size() - 1);
    const double j = std::floor(x[p] / eps + 0.5);  // nearest index, ties up
    // NaN fails both comparisons and lands on 0; +-inf and far values clamp.
    config[p] = j >= top ? static_cast<std::uint32_t>(top) : (j > 0 ? static_cast<std::uint32_t>(j) : 0u);
  }
  return config;
}

}  // namespace ktune
