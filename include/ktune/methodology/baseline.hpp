#pragma once
// The calculated random-search baseline (methodology.md §1.6): the expected best value after M uniform draws
// without replacement, as the reference computes it (its index formula, half-to-even rounding, PCHIP smoothing).
#include <span>
#include <vector>

#include "ktune/methodology/space_statistics.hpp"

namespace ktune::methodology {

// reference: the reference's value at one rank, D[min(N-1, round(M (N+1)/(M+1)))], D worst to best (0-based); the
//   expected rank of the best of M draws is M (N+1)/(M+1) counted from 1, so this is one rank optimistic. On
//   spaces of thousands of configurations that is invisible; on a hyperparameter grid of 81 settings random search
//   itself scores about -0.2 against it.
// exact: the value at the expected rank, M (N+1)/(M+1) from 1, interpolated between neighbouring ranks (the strategy
//   curves are regressions in rank space, so the baseline is a rank too; the expected value of the best would be a
//   different statistic).
enum class BaselineKind { reference, exact };

class RandomSearchBaseline {
 public:
  explicit RandomSearchBaseline(const SpaceStatistics& stats, BaselineKind kind = BaselineKind::reference);

  // The best value expected after `draws` draws (see BaselineKind).
  double after_draws(long draws) const;
  // At integer evaluation counts F, PCHIP-smoothed over the distinct counts and re-sampled on linspace(F0, Fn).
  std::vector<double> over_fevals(std::span<const long> fevals) const;
  // At times T (s): F = round(max(T / mean time per evaluation, 1)), then over_fevals(F).
  std::vector<double> over_time(std::span<const double> times) const;

 private:
  std::vector<double> worst_to_best_;
  double time_per_feval_;
  BaselineKind kind_;
};

}  // namespace ktune::methodology
