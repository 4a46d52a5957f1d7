#include "ktune/repetition.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace ktune {
namespace {

constexpr double kRobustSigma = 1.4826;  // MAD -> standard deviation of a normal distribution
constexpr double kOutlierSigmas = 4.0;
constexpr double kOutlierFloor = 0.02;   // runs within 2% of the median are never outliers (timer resolution)
constexpr std::size_t kOutlierMinRuns = 5;

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// P(Binomial(n, 1/2) <= k).
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double term = std::pow(0.5, static_cast<double>(n)), sum = 0;
  for (std::size_t i = 0; i <= k && i <= n; ++i) {
    sum += term;
    term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return sum;
}

int parse_int(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty())
    throw std::invalid_argument(fmt::format("iterations: {} '{}' is not a whole number", what, text));
  return v;
}

}  // namespace

double t_quantile_95(std::size_t df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return std::numeric_limits<double>::infinity();
  if (df <= 30) return kTable[df - 1];
  return 1.960 + 2.4 / static_cast<double>(df);  // within 0.002 of the exact quantile above 30
}

RunSummary summarize_runs(std::span<const double> runs, Statistic statistic, bool drop_outliers) {
  RunSummary s;
  s.runs = runs.size();
  if (runs.empty()) {
    s.value = s.low = s.high = std::nan("");
    return s;
  }
  std::vector<double> kept(runs.begin(), runs.end());
  std::sort(kept.begin(), kept.end());
  if (drop_outliers && kept.size() >= kOutlierMinRuns) {
    const double med = median_of_sorted(kept);
    std::vector<double> deviation;
    for (double x : kept) deviation.push_back(std::abs(x - med));
    std::sort(deviation.begin(), deviation.end());
    const double limit = med + std::max(kOutlierSigmas * kRobustSigma * median_of_sorted(deviation),
                                        kOutlierFloor * std::abs(med));
    const auto cut = std::upper_bound(kept.begin(), kept.end(), limit);
    const auto dropped = static_cast<std::size_t>(kept.end() - cut);
    // More than a third above the limit is not a few disturbed runs but a slow mode of the configuration: keep all.
    if (dropped * 3 <= kept.size()) {
      kept.erase(cut, kept.end());
      s.outliers = dropped;
    }
  }
  const std::size_t n = kept.size();
  double sum = 0;
  for (double x : kept) sum += x;
  const double mean = sum / static_cast<double>(n);
  double squares = 0;
  for (double x : kept) squares += (x - mean) * (x - mean);
  const double sd = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;
  s.spread = mean != 0 ? sd / std::abs(mean) : 0.0;
  const double half = n > 1 ? t_quantile_95(n - 1) * sd / std::sqrt(static_cast<double>(n)) : 0.0;
  switch (statistic) {
    case Statistic::mean:
      s.value = mean;
      s.low = mean - half;
      s.high = mean + half;
      break;
    case Statistic::median: {
      s.value = median_of_sorted(kept);
      // Distribution-free: [x_(j), x_(n-j+1)] with the largest j that covers 95% (from 6 runs); fewer runs get the
      // mean's half-width around the median.
      std::size_t j = 0;
      while (j + 1 <= n / 2 && 1 - 2 * binomial_half_cdf(n, j) >= 0.95) ++j;
      if (j >= 1) {
        s.low = kept[j - 1];
        s.high = kept[n - j];
      } else {
        s.low = s.value - half;
        s.high = s.value + half;
      }
      break;
    }
    case Statistic::min:
      // The minimum has no simple interval; the runs' scatter (the mean's half-width) says how well it is known.
      s.value = kept.front();
      s.low = s.value - half;
      s.high = s.value + half;
      break;
  }
  return s;
}

const char* to_string(RepetitionDecision decision) {
  switch (decision) {
    case RepetitionDecision::more: return "more";
    case RepetitionDecision::precise: return "precise";
    case RepetitionDecision::rejected: return "rejected";
    case RepetitionDecision::capped: return "capped";
  }
  return "?";
}

void TypicalSpread::add(const RunSummary& summary) {
  if (summary.runs < 2 || !std::isfinite(summary.spread)) return;
  spreads_.insert(std::upper_bound(spreads_.begin(), spreads_.end(), summary.spread), summary.spread);
}

double TypicalSpread::value() const {
  if (spreads_.size() < kConfigurations) return 0.0;
  const std::size_t n = spreads_.size();
  return n % 2 ? spreads_[n / 2] : 0.5 * (spreads_[n / 2 - 1] + spreads_[n / 2]);
}

namespace {

// A summary's 95% interval, at least as wide as `spread` (relative) would make it for its number of runs.
std::pair<double, double> widened(const RunSummary& s, double spread) {
  if (s.runs < 2 || !(spread > s.spread)) return {s.low, s.high};
  const double half =
      t_quantile_95(s.runs - 1) * spread * std::abs(s.value) / std::sqrt(static_cast<double>(s.runs));
  return {std::min(s.low, s.value - half), std::max(s.high, s.value + half)};
}

}  // namespace

RepetitionDecision decide(const RepetitionPolicy& policy, const RunSummary& summary, const RunSummary* best,
                          double typical_spread) {
  const auto runs = static_cast<long>(summary.runs);
  if (!policy.adaptive) return runs < policy.runs ? RepetitionDecision::more : RepetitionDecision::capped;
  if (runs < policy.min_runs) return RepetitionDecision::more;
  const auto [low, high] = widened(summary, typical_spread);
  if (policy.early_rejection && best && low > widened(*best, typical_spread).second)
    return RepetitionDecision::rejected;
  if ((high - low) / 2 <= policy.precision * std::abs(summary.value)) return RepetitionDecision::precise;
  if (runs >= policy.max_runs) return RepetitionDecision::capped;
  return RepetitionDecision::more;
}

int next_runs(const RepetitionPolicy& policy, std::size_t runs_so_far) {
  const auto so_far = static_cast<int>(runs_so_far);
  return std::max(0, std::min(std::max(2, so_far / 2), policy.max_runs - so_far));
}

RepetitionPolicy RepetitionPolicy::parse(const std::string& text) {
  RepetitionPolicy p;
  if (text.rfind("auto", 0) != 0) {
    p.runs = parse_int(text, "the number of runs");
    if (p.runs < 1) throw std::invalid_argument(fmt::format("iterations: {} (expected at least 1, or auto)", p.runs));
    return p;
  }
  p.adaptive = true;
  if (text == "auto") return p;
  if (text[4] != ':') throw std::invalid_argument(fmt::format("iterations: '{}' (expected a number, auto or auto:...)", text));
  std::string rest = text.substr(5);
  for (std::size_t start = 0; start <= rest.size();) {
    const auto comma = rest.find(',', start);
    const std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(fmt::format("iterations: '{}' in '{}' is not name=value", item, text));
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (name == "min") {
      p.min_runs = parse_int(value, "min");
    } else if (name == "max") {
      p.max_runs = parse_int(value, "max");
    } else if (name == "reject") {
      p.early_rejection = parse_int(value, "reject") != 0;
    } else if (name == "precision") {
      char* end = nullptr;
      p.precision = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(p.precision > 0) || !std::isfinite(p.precision))
        throw std::invalid_argument(fmt::format("iterations: precision '{}' is not a positive number", value));
    } else {
      throw std::invalid_argument(
          fmt::format("iterations: unknown setting '{}' in '{}' (min, max, precision, reject)", name, text));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (p.min_runs < 2) throw std::invalid_argument(fmt::format("iterations: min={} (expected at least 2)", p.min_runs));
  if (p.max_runs < p.min_runs)
    throw std::invalid_argument(fmt::format("iterations: max={} is below min={}", p.max_runs, p.min_runs));
  return p;
}

std::string RepetitionPolicy::describe() const {
  if (!adaptive) return std::to_string(runs);
  return fmt::format("auto:min={},max={},precision={:g},reject={}", min_runs, max_runs, precision,
                     early_rejection ? 1 : 0);
}

}  // namespace ktune
