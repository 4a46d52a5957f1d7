#include "ktune/methodology/space_statistics.hpp"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace ktune::methodology {
namespace {

// A time part in seconds, or NaN when the methodology skips it (missing, negative, NaN).
double part_seconds(double ms) { return ms >= 0 ? ms / 1000.0 : std::nan(""); }

// The methodology's time of one evaluation: the "all" time keys in schema order, each converted to seconds, summed
// ignoring NaN; NaN only if every key is NaN (§1.2).
double evaluation_seconds(const EvaluationRecord& r) {
  double runtimes = std::nan("");
  for (double x : r.runtimes_ms) {
    const double s = part_seconds(x);
    if (!std::isnan(s)) runtimes = std::isnan(runtimes) ? s : runtimes + s;
  }
  const double parts[] = {part_seconds(r.compile_ms), runtimes, part_seconds(r.framework_ms),
                          part_seconds(r.strategy_ms), part_seconds(r.verification_ms)};
  double total = std::nan("");
  for (double p : parts)
    if (!std::isnan(p)) total = std::isnan(total) ? p : total + p;
  return total;
}

double mean_of(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

double round_half_even(double x) {
  // nearbyint follows the current rounding mode, which is round-to-nearest-even unless someone changed it.
  const int mode = std::fegetround();
  if (mode != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  const double r = std::nearbyint(x);
  if (mode != FE_TONEAREST) std::fesetround(mode);
  return r;
}

double median_of_sorted(const std::vector<double>& sorted) {
  if (sorted.empty()) return std::nan("");
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

std::vector<double> linspace(double start, double stop, std::size_t num) {
  std::vector<double> v(num);
  if (num == 0) return v;
  if (num == 1) {
    v[0] = start;
    return v;
  }
  const double step = (stop - start) / static_cast<double>(num - 1);
  for (std::size_t i = 0; i < num; ++i) v[i] = static_cast<double>(i) * step + start;
  v[num - 1] = stop;
  return v;
}

SpaceStatistics SpaceStatistics::from_values(std::string name, const std::vector<double>& values,
                                             const std::vector<double>& times_s, bool minimization) {
  if (values.size() != times_s.size()) throw std::invalid_argument("one time per configuration is needed");
  SpaceStatistics s;
  s.name_ = std::move(name);
  s.minimization_ = minimization;
  s.n_all_ = values.size();
  std::vector<double> all_times, valid_times, invalid_times;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool valid = !std::isnan(values[i]);
    if (valid) s.dist_.push_back(values[i]);
    if (std::isnan(times_s[i])) continue;
    all_times.push_back(times_s[i]);
    (valid ? valid_times : invalid_times).push_back(times_s[i]);
  }
  if (s.dist_.size() < 2)
    throw std::invalid_argument(fmt::format("{}: fewer than two valid configurations", s.name_));
  std::sort(s.dist_.begin(), s.dist_.end());
  s.median_ = median_of_sorted(s.dist_);
  std::sort(all_times.begin(), all_times.end());
  s.median_time_ = median_of_sorted(all_times);
  s.mean_time_ = mean_of(all_times);
  // [reference] not a proper expectation (the invalid share is of N_all, the valid mean unweighted); kept as is.
  const std::size_t n_invalid = values.size() - s.dist_.size();
  s.mean_per_feval_ = n_invalid > 0 ? mean_of(valid_times) + static_cast<double>(n_invalid) /
                                                                  static_cast<double>(values.size()) *
                                                                  mean_of(invalid_times)
                                    : s.mean_time_;
  if (!(s.median_time_ > 0) || !(s.mean_per_feval_ > 0))
    throw std::invalid_argument(fmt::format("{}: the recorded evaluations take no time", s.name_));
  return s;
}

SpaceStatistics SpaceStatistics::from_results(std::string name, const io::ResultsFile& results,
                                              const std::string& objective, bool minimization) {
  std::vector<double> values, times;
  values.reserve(results.records.size());
  times.reserve(results.records.size());
  for (const auto& r : results.records) {
    values.push_back(r.objective(objective).value_or(std::nan("")));
    times.push_back(evaluation_seconds(r));
  }
  return from_values(std::move(name), values, times, minimization);
}

SpaceStatistics::Cutoff SpaceStatistics::cutoff_point(double p) const {
  const double opt = optimum();
  const double target = opt + (median_ - opt) * (1 - p);
  const std::size_t n = dist_.size();
  // Worst first: the first value at least as good as the target.
  std::size_t i = 0;
  if (minimization_) {
    while (i < n && !(dist_[n - 1 - i] <= target)) ++i;
  } else {
    while (i < n && !(dist_[i] >= target)) ++i;
  }
  if (i == n) i = n - 1;  // unreachable for p in [0, 1]: the optimum always qualifies
  const double value = minimization_ ? dist_[n - 1 - i] : dist_[i];
  if (p != 1.0 && value == opt) {
    // Only the optimum reaches the target: take the last value before it.
    if (i == 0) throw std::invalid_argument(fmt::format("{}: the cutoff {} is reached by the optimum directly", name_, p));
    --i;
  }
  const double ii = static_cast<double>(i);
  const long fevals = static_cast<long>(std::ceil(ii / (static_cast<double>(n) + 1 - ii)));
  return {minimization_ ? dist_[n - 1 - i] : dist_[i], fevals};
}

CutoffRange SpaceStatistics::cutoff_range(double p_start, double p_end) const {
  long f_s = cutoff_point(p_start).fevals, f_e = cutoff_point(p_end).fevals;
  if (f_e - f_s < 2) {
    // [reference bug fixed] the reference caps with cutoff_point(1.0)[0], the optimum's objective value; we cap
    // with the optimum's expected number of draws, which is what it means.
    const long cap = cutoff_point(1.0).fevals;
    if (f_s == 0) {
      f_e = std::min(cap, f_e + 2);
    } else {
      f_e = std::min(cap, f_e + 1);
      f_s -= 1;
    }
  }
  if (f_e - f_s == 0) throw std::invalid_argument(fmt::format("{}: the cutoff range is empty", name_));
  CutoffRange range;
  range.fevals_start = f_s;
  range.fevals_end = f_e;
  range.time_start = p_start > 0 ? static_cast<double>(f_s) * median_time_ : 0.0;
  range.time_end = static_cast<double>(f_e) * median_time_;
  return range;
}

}  // namespace ktune::methodology
