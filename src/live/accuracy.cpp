// Accuracy metrics of an output against its reference (Kernel Tuner's accuracy.py error metrics), computed in
// double whatever the element types, so a half-precision output can be scored against a double reference.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/live/element_values.hpp"
#include "ktune/live/kernel_specification.hpp"

namespace ktune::live {

namespace {

constexpr double kEps = 1e-8;

// Lower case without '_', ' ', '-' and the word "error": "Max_Abs_Error" -> "maxabs".
std::string normalise(std::string_view name) {
  std::string s;
  for (const char c : name)
    if (c != '_' && c != ' ' && c != '-') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t at; (at = s.find("error")) != std::string::npos;) s.erase(at, 5);
  return s;
}

struct Spelling {
  const char* canonical;
  std::initializer_list<const char*> spellings;  // normalised
};

const Spelling kMetrics[] = {
    {"MSE", {"mse", "meansquared", "meansquare"}},
    {"RMSE", {"rmse", "rootmeansquared", "rootmeansquare"}},
    {"NRMSE", {"nrmse", "normalisedrmse", "normalizedrmse"}},
    {"NRMSE-mean", {"nrmsemean", "nrmsebymean"}},  // the multi-objective thesis's normalisation
    {"NRMSE-RMS", {"nrmserms", "nrmsebyrms"}},     // Kernel Tuner's accuracy branch's
    {"MAE", {"mae", "meanabsolute", "absolute", "abs"}},
    {"NMAE", {"nmae", "normalisedmae", "normalizedmae"}},
    {"MRE", {"mre", "meanrelative", "relative", "rel"}},
    {"RMSRE", {"rmsre", "rootmeansquaredrelative"}},
    {"MALE", {"male", "meanabsolutelog", "meanabslog"}},
    {"RMSLE", {"rmsle", "rootmeansquaredlog"}},
    {"max absolute", {"maxabsolute", "maxabs"}},
    {"max relative", {"maxrelative", "maxrel"}},
};

}  // namespace

std::string canonical_accuracy_metric(std::string_view metric) {
  const std::string n = normalise(metric);
  for (const Spelling& s : kMetrics)
    for (const char* spelling : s.spellings)
      if (n == spelling) return s.canonical;
  return "";
}

std::vector<std::string> accuracy_metric_names() {
  std::vector<std::string> names;
  for (const Spelling& s : kMetrics) names.emplace_back(s.canonical);
  return names;
}

double accuracy_error(std::string_view metric, std::span<const double> expected, std::span<const double> actual) {
  const std::string m = canonical_accuracy_metric(metric);
  if (m.empty())
    throw std::invalid_argument(fmt::format("unknown accuracy metric '{}' (known: {})", metric,
                                            fmt::join(accuracy_metric_names(), ", ")));
  if (expected.size() != actual.size())
    throw std::invalid_argument(fmt::format("accuracy metric {}: {} expected elements, {} actual ones", m,
                                            expected.size(), actual.size()));
  const std::size_t n = expected.size();
  if (n == 0) return 0;
  constexpr double inf = std::numeric_limits<double>::infinity();

  // One pass: per-element error terms; a non-finite mismatch makes the whole error infinite.
  double sum = 0, max = 0, sum_abs_expected = 0, sum_expected = 0, sum_squared_expected = 0;
  double lo = inf, hi = -inf;
  const bool relative = m == "MRE" || m == "RMSRE" || m == "max relative";
  const bool logarithmic = m == "MALE" || m == "RMSLE";
  const bool squared = m == "MSE" || m.starts_with("RMS") || m.starts_with("NRMSE");
  for (std::size_t i = 0; i < n; ++i) {
    const double e = expected[i], a = actual[i];
    if (std::isfinite(e)) {
      lo = std::min(lo, e);
      hi = std::max(hi, e);
      sum_abs_expected += std::abs(e);
      sum_expected += e;
      sum_squared_expected += e * e;
    }
    if (a == e || (std::isnan(a) && std::isnan(e))) continue;  // exact, equal infinities, NaN against NaN
    if (!std::isfinite(a) || !std::isfinite(e)) return inf;
    double term = logarithmic ? std::log(std::abs(a) + kEps) - std::log(std::abs(e) + kEps) : a - e;
    term = std::abs(term);
    if (relative) term /= std::max(std::abs(e), kEps);
    max = std::max(max, term);
    sum += squared ? term * term : term;
  }
  const double mean = sum / static_cast<double>(n);
  if (m == "MSE") return mean;
  if (m == "RMSE" || m == "RMSRE" || m == "RMSLE") return std::sqrt(mean);
  if (m == "NRMSE") return std::sqrt(mean) / std::max(hi > lo ? hi - lo : 0.0, kEps);
  const double count = static_cast<double>(n);
  if (m == "NRMSE-mean") return std::sqrt(mean) / std::max(std::abs(sum_expected / count), kEps);
  if (m == "NRMSE-RMS") return std::sqrt(mean) / std::max(std::sqrt(sum_squared_expected / count), kEps);
  if (m == "NMAE") return mean / std::max(sum_abs_expected / static_cast<double>(n), kEps);
  if (m == "max absolute" || m == "max relative") return max;
  return mean;  // MAE, MRE, MALE
}

double accuracy_error(std::string_view metric, const KernelArgument& expected, ElementType actual_type,
                      std::span<const std::byte> actual) {
  const std::vector<double> e = to_doubles(expected.type, expected.bytes);
  const std::vector<double> a = to_doubles(actual_type, actual);
  if (e.size() != a.size())
    throw std::invalid_argument(fmt::format("accuracy of '{}': the reference has {} elements, the output {}",
                                            expected.name, e.size(), a.size()));
  return accuracy_error(metric, e, a);
}

}  // namespace ktune::live
