#pragma once
// The calculated random-search baseline (methodology.md §1.6): the expected best value after M uniform draws
// without replacement, as the reference computes it (its index formula, half-to-even rounding, PCHIP smoothing).
#include <span>
#include <vector>

#include "ktune/methodology/space_statistics.hpp"

namespace ktune::methodology {

class RandomSearchBaseline {
 public:
  explicit RandomSearchBaseline(const SpaceStatistics& stats);

  // The expected best value after `draws` draws: D[min(N-1, round(M (N+1)/(M+1)))], D worst to best.
  double after_draws(long draws) const;
  // At integer evaluation counts F, PCHIP-smoothed over the distinct counts and re-sampled on linspace(F0, Fn).
  std::vector<double> over_fevals(std::span<const long> fevals) const;
  // At times T (s): F = round(max(T / mean time per evaluation, 1)), then over_fevals(F).
  std::vector<double> over_time(std::span<const double> times) const;

 private:
  std::vector<double> worst_to_best_;
  double time_per_feval_;
};

}  // namespace ktune::methodology
