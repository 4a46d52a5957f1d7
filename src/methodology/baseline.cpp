#include "ktune/methodology/baseline.hpp"

#include <algorithm>
#include <cmath>

#include "methodology/pchip.hpp"

namespace ktune::methodology {

RandomSearchBaseline::RandomSearchBaseline(const SpaceStatistics& stats, BaselineKind kind)
    : worst_to_best_(stats.distribution()), time_per_feval_(stats.mean_time_per_feval()), kind_(kind) {
  if (stats.minimization()) std::reverse(worst_to_best_.begin(), worst_to_best_.end());
}

double RandomSearchBaseline::after_draws(long draws) const {
  if (kind_ == BaselineKind::exact) {
    // The best of M draws without replacement has expected rank M (N+1)/(M+1), counted from 1 (worst) to N (best);
    // the value there, interpolated between the neighbouring ranks. (The strategy curves live in rank space too.)
    const double n = static_cast<double>(worst_to_best_.size());
    const double m = static_cast<double>(std::max(draws, 1L));
    const double index = std::clamp(m * (n + 1) / (m + 1) - 1, 0.0, n - 1);
    const auto lo = static_cast<std::size_t>(index);
    const std::size_t hi = std::min(lo + 1, worst_to_best_.size() - 1);
    const double w = index - static_cast<double>(lo);
    return worst_to_best_[lo] + w * (worst_to_best_[hi] - worst_to_best_[lo]);
  }
  // [reference] M (N+1) / (M+1) is one rank more optimistic than the expected best of M draws; kept for equal scores.
  const double n = static_cast<double>(worst_to_best_.size());
  const double m = static_cast<double>(draws);
  const double index = std::min(n - 1, round_half_even(m * (n + 1) / (m + 1)));
  return worst_to_best_[static_cast<std::size_t>(index)];
}

std::vector<double> RandomSearchBaseline::over_fevals(std::span<const long> fevals) const {
  std::vector<double> draws(fevals.size());
  for (std::size_t i = 0; i < fevals.size(); ++i) draws[i] = after_draws(fevals[i]);
  if (fevals.size() <= 2) return draws;
  // Smooth over the distinct counts (they come sorted from a time axis), re-sampled evenly between the ends.
  std::vector<double> x{static_cast<double>(fevals[0])}, y{draws[0]};
  for (std::size_t j = 1; j < fevals.size(); ++j) {
    if (fevals[j] - fevals[j - 1] > 0) {
      x.push_back(static_cast<double>(fevals[j]));
      y.push_back(draws[j]);
    }
  }
  if (x.size() < 2) return draws;
  const Pchip smooth(std::move(x), std::move(y));
  const auto at = linspace(static_cast<double>(fevals.front()), static_cast<double>(fevals.back()), fevals.size());
  std::vector<double> curve(at.size());
  for (std::size_t i = 0; i < at.size(); ++i) curve[i] = smooth(at[i]);
  return curve;
}

std::vector<double> RandomSearchBaseline::over_time(std::span<const double> times) const {
  std::vector<long> fevals(times.size());
  for (std::size_t i = 0; i < times.size(); ++i)
    fevals[i] = static_cast<long>(round_half_even(std::max(times[i] / time_per_feval_, 1.0)));
  return over_fevals(fevals);
}

}  // namespace ktune::methodology
