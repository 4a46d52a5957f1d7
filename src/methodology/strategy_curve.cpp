#include "ktune/methodology/strategy_curve.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/rng.hpp"
#include "methodology/isotonic.hpp"
#include "nan_constant.hpp"

namespace ktune::methodology {
namespace {

}  // namespace

StrategyCurve strategy_curve_over_time(const std::vector<Run>& runs, const SpaceStatistics& stats,
                                       std::span<const double> time_points, const CurveOptions& options) {
  if (runs.empty()) throw std::invalid_argument(fmt::format("{}: no runs", stats.name()));
  if (time_points.size() < 2) throw std::invalid_argument("at least two time points are needed");
  const bool minimise = stats.minimization();
  const std::size_t n_runs = runs.size();
  std::size_t max_len = 0;
  for (const Run& r : runs) max_len = std::max(max_len, r.size());

  // The reference's (evaluation x run) arrays, NaN-padded: cumulative time and best value so far.
  std::vector<double> cumtime(max_len * n_runs, kNaN), best(max_len * n_runs, kNaN);
  for (std::size_t r = 0; r < n_runs; ++r) {
    double b = kNaN;
    for (std::size_t e = 0; e < runs[r].size(); ++e) {
      const double v = runs[r][e].value;
      if (!std::isnan(v) && (std::isnan(b) || (minimise ? v < b : v > b))) b = v;
      best[e * n_runs + r] = b;
      cumtime[e * n_runs + r] = runs[r][e].time_s;
    }
  }
  // 1. Drop evaluations where no run has found a valid value yet; time counts only where a best exists.
  std::vector<std::size_t> rows;
  for (std::size_t e = 0; e < max_len; ++e) {
    bool any = false;
    for (std::size_t r = 0; r < n_runs; ++r) any = any || !std::isnan(best[e * n_runs + r]);
    if (any) rows.push_back(e);
  }
  if (rows.empty()) throw std::invalid_argument(fmt::format("{}: no run found a valid configuration", stats.name()));
  for (std::size_t e : rows)
    for (std::size_t r = 0; r < n_runs; ++r)
      if (std::isnan(best[e * n_runs + r])) cumtime[e * n_runs + r] = kNaN;

  // 2. Where real runs stop: the first run end strictly after the median run end.
  std::vector<double> ends(n_runs, kNaN);
  for (std::size_t r = 0; r < n_runs; ++r)
    for (std::size_t e : rows) {
      const double t = cumtime[e * n_runs + r];
      if (!std::isnan(t) && (std::isnan(ends[r]) || t > ends[r])) ends[r] = t;
    }
  for (std::size_t r = 0; r < n_runs; ++r)
    if (std::isnan(ends[r]))
      throw std::invalid_argument(fmt::format("{}: run {} found no valid configuration", stats.name(), r + 1));
  std::sort(ends.begin(), ends.end());
  const double median_end = median_of_sorted(ends);
  double t_stop = time_points.back();
  for (double h : ends)
    if (h > median_end) {
      t_stop = h;
      break;
    }

  // 3-4. Pool the points near the time range (row-major, as the reference's masking flattens them).
  const double margin = 0.1 + 0.25 * (static_cast<double>(n_runs) / static_cast<double>(rows.size() * n_runs));
  const double lo = time_points.front() * (1 - margin), hi = time_points.back() * (1 + margin);
  std::vector<double> x, values;
  std::vector<std::size_t> kept(n_runs, 0);
  for (std::size_t e : rows)
    for (std::size_t r = 0; r < n_runs; ++r) {
      const double t = cumtime[e * n_runs + r];
      if (!(t >= lo && t <= hi)) continue;
      x.push_back(t);
      values.push_back(best[e * n_runs + r]);
      ++kept[r];
    }
  for (std::size_t r = 0; r < n_runs; ++r)
    if (kept[r] < 2)
      throw std::invalid_argument(fmt::format(
          "{}: not enough overlap in time range and time values (run {} has {} points in [{:.4g}, {:.4g}] s)",
          stats.name(), r + 1, kept[r], lo, hi));

  // 5. The rank of each best value in the brute-forced distribution (exact members only).
  const auto& dist = stats.distribution();
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto it = std::lower_bound(dist.begin(), dist.end(), values[i]);
    if (it == dist.end() || *it != values[i])
      throw std::invalid_argument(fmt::format("{}: value {} found by a run is not in the brute-forced distribution",
                                              stats.name(), values[i]));
    ranks[i] = static_cast<double>(it - dist.begin());
  }
  const double y_min = *std::min_element(ranks.begin(), ranks.end());
  const double y_max = *std::max_element(ranks.begin(), ranks.end());

  // 6. Monotone regression of rank against time: bagged (bootstrap samples as integer weights) or a single fit.
  std::vector<double> mean_rank(time_points.size(), 0.0);
  if (options.bagging) {
    const std::size_t estimators = std::max<std::size_t>(n_runs, 3);
    const auto samples =
        static_cast<std::size_t>(1.0 / std::sqrt(static_cast<double>(estimators)) * static_cast<double>(x.size()));
    Rng rng(options.seed);
    std::vector<double> weights(x.size());
    std::vector<double> sum(time_points.size(), 0.0);
    // The points sorted once; each bootstrap sample weights them where they sit in that order.
    const std::vector<std::size_t> order = IsotonicFit::sorted_by_x_then_y(x, ranks);
    std::vector<double> sorted_x(x.size()), sorted_ranks(x.size());
    std::vector<std::size_t> position(x.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      sorted_x[i] = x[order[i]];
      sorted_ranks[i] = ranks[order[i]];
      position[order[i]] = i;
    }
    for (std::size_t k = 0; k < estimators; ++k) {
      std::fill(weights.begin(), weights.end(), 0.0);
      for (std::size_t s = 0; s < samples; ++s) weights[position[rng.below(x.size())]] += 1.0;
      if (samples == 0) std::fill(weights.begin(), weights.end(), 1.0);
      const IsotonicFit fit(IsotonicFit::Presorted{}, sorted_x, sorted_ranks, weights, !minimise, y_min, y_max);
      for (std::size_t j = 0; j < time_points.size(); ++j) sum[j] += fit(time_points[j]);
    }
    for (std::size_t j = 0; j < time_points.size(); ++j) mean_rank[j] = sum[j] / static_cast<double>(estimators);
  } else {
    const std::vector<double> ones(x.size(), 1.0);
    const IsotonicFit fit(x, ranks, ones, !minimise, y_min, y_max);
    for (std::size_t j = 0; j < time_points.size(); ++j) mean_rank[j] = fit(time_points[j]);
  }
  StrategyCurve curve;
  curve.pooled_points = x.size();
  curve.values.resize(time_points.size());
  const double last = static_cast<double>(dist.size() - 1);
  for (std::size_t j = 0; j < time_points.size(); ++j)
    curve.values[j] = dist[static_cast<std::size_t>(std::clamp(round_half_even(mean_rank[j]), 0.0, last))];

  // 7. Past the real stopping time the curve is carried forward ("fictional").
  if (t_stop < time_points.back()) {
    if (t_stop <= time_points.front())
      throw std::invalid_argument(fmt::format("{}: the runs stop before the time range starts", stats.name()));
    std::size_t j = 0;
    while (!(time_points[j] > t_stop)) ++j;
    for (std::size_t i = j + 1; i < curve.values.size(); ++i) curve.values[i] = curve.values[j];
    curve.real_stopping_fraction = static_cast<double>(j) / static_cast<double>(time_points.size());
  }
  return curve;
}

void check_baseline_below_optimum(std::span<const double> baseline, double optimum) {
  for (const double b : baseline) {
    const double denominator = optimum - b;
    // The reference raises on an exact zero; the smoothed baseline can land a rounding error away from the optimum
    // (an 8-configuration space reaches it after 3 draws), which would give scores of 1e12.
    if (std::abs(denominator) <= 1e-9 * std::max(std::abs(optimum), std::abs(b)) || denominator == 0)
      throw std::invalid_argument(
          "the random-search baseline reaches the optimum inside the time range (division by zero): the space is too "
          "small for the methodology (leave it out)");
  }
}

std::vector<double> standardised_performance(std::span<const double> curve, std::span<const double> baseline,
                                             double optimum) {
  if (curve.size() != baseline.size()) throw std::invalid_argument("curve and baseline differ in length");
  check_baseline_below_optimum(baseline, optimum);
  std::vector<double> p(curve.size());
  for (std::size_t i = 0; i < curve.size(); ++i) p[i] = (curve[i] - baseline[i]) / (optimum - baseline[i]);
  return p;
}

}  // namespace ktune::methodology
