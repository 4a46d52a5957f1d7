#include "ktune/multiobjective/front_normalisation.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ktune {

FrontNormalisation::FrontNormalisation(std::span<const double> front_costs, std::size_t m)
    : ideal_(m, std::numeric_limits<double>::infinity()), nadir_(m, -std::numeric_limits<double>::infinity()) {
  if (m == 0 || front_costs.empty() || front_costs.size() % m != 0)
    throw std::invalid_argument("a front needs at least one point of m objectives");
  for (std::size_t i = 0; i < front_costs.size(); ++i) {
    ideal_[i % m] = std::min(ideal_[i % m], front_costs[i]);
    nadir_[i % m] = std::max(nadir_[i % m], front_costs[i]);
  }
}

FrontNormalisation::FrontNormalisation(std::vector<double> ideal, std::vector<double> nadir)
    : ideal_(std::move(ideal)), nadir_(std::move(nadir)) {
  if (ideal_.size() != nadir_.size())
    throw std::invalid_argument("ideal and nadir need one value per objective");
  for (std::size_t j = 0; j < ideal_.size(); ++j)
    if (!(nadir_[j] >= ideal_[j])) throw std::invalid_argument("the nadir is better than the ideal in an objective");
}

std::vector<double> FrontNormalisation::operator()(std::span<const double> costs) const {
  const std::size_t m = ideal_.size();
  std::vector<double> out(costs.size());
  for (std::size_t i = 0; i < costs.size(); ++i) out[i] = (*this)(costs[i], i % m);
  return out;
}

}  // namespace ktune
