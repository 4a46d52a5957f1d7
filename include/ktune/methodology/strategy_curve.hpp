#pragma once
// From repeated runs of one strategy on one space to its performance curve over time (methodology.md §1.7): a
// bagged isotonic regression of the rank of the best value found against elapsed time, pooled over all runs.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ktune/methodology/space_statistics.hpp"

namespace ktune::methodology {

// One evaluation of a run: the cumulative time (s) once it was done and its objective value (NaN if it failed).
struct RunPoint {
  double time_s = 0;
  double value = 0;
};
using Run = std::vector<RunPoint>;

struct CurveOptions {
  std::uint64_t seed = 0;  // the bagging draws (the reference leaves them unseeded)
  bool bagging = true;     // false: one isotonic regression on all points (deterministic; the reference's check)
};

struct StrategyCurve {
  std::vector<double> values;         // C(T): a value of the distribution per time point
  double real_stopping_fraction = 1;  // the share of T covered by real runs; the rest repeats the last value
  std::size_t pooled_points = 0;
};

// Throws std::invalid_argument when the runs do not overlap the time range enough (fewer than two points of some
// run inside it) or when a best value is not a member of the distribution (runs from another file).
StrategyCurve strategy_curve_over_time(const std::vector<Run>& runs, const SpaceStatistics& stats,
                                       std::span<const double> time_points, const CurveOptions& options = {});

// Throws std::invalid_argument if the baseline reaches the optimum (up to rounding) at some time point: P is then
// undefined, as on spaces of a handful of configurations. A comparison checks this before it runs any strategy.
void check_baseline_below_optimum(std::span<const double> baseline, double optimum);

// P(t) = (C(t) - R(t)) / (optimum - R(t)): 0 is as good as random search, 1 is the optimum (§1.8). Throws
// std::invalid_argument when the baseline equals the optimum at some t (check_baseline_below_optimum).
std::vector<double> standardised_performance(std::span<const double> curve, std::span<const double> baseline,
                                             double optimum);

}  // namespace ktune::methodology
