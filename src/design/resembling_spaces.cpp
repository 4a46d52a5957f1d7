#include "ktune/design/resembling_spaces.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "ktune/io/results_file.hpp"

namespace ktune::design {
namespace {

double log_cartesian(const Problem& p) {
  double s = 0;
  for (const auto& param : p.parameters) s += std::log10(static_cast<double>(std::max<std::size_t>(1, param.values.size())));
  return s;
}

std::vector<std::size_t> value_counts(const Problem& p) {
  std::vector<std::size_t> counts;
  for (const auto& param : p.parameters) counts.push_back(param.values.size());
  std::sort(counts.rbegin(), counts.rend());
  return counts;
}

}  // namespace

double problem_similarity(const Problem& a, const Problem& b) {
  std::set<std::string> na, nb;
  for (const auto& p : a.parameters) na.insert(p.name);
  for (const auto& p : b.parameters) nb.insert(p.name);
  std::size_t common = 0;
  for (const auto& n : na) common += nb.count(n);
  const std::size_t all = na.size() + nb.size() - common;
  const double names = all ? static_cast<double>(common) / static_cast<double>(all) : 1.0;
  // Value-count profiles, largest first, compared position by position (min/max), padded with ones.
  std::vector<std::size_t> ca = value_counts(a), cb = value_counts(b);
  const std::size_t n = std::max(ca.size(), cb.size());
  ca.resize(n, 1);
  cb.resize(n, 1);
  double profile = n ? 0.0 : 1.0;
  for (std::size_t i = 0; i < n; ++i)
    profile += static_cast<double>(std::min(ca[i], cb[i])) / static_cast<double>(std::max(ca[i], cb[i])) / n;
  // Sizes: 1 for the same, 0 for three orders of magnitude apart or more.
  const double size = std::max(0.0, 1.0 - std::abs(log_cartesian(a) - log_cartesian(b)) / 3.0);
  return (names + profile + size) / 3.0;
}

std::vector<Resemblance> rank_by_resemblance(const Problem& problem, const std::vector<std::string>& candidates) {
  std::vector<Resemblance> ranked;
  for (const auto& path : candidates)
    ranked.push_back({path, problem_similarity(problem, io::read_results_file(path).problem)});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Resemblance& x, const Resemblance& y) { return x.similarity > y.similarity; });
  return ranked;
}

}  // namespace ktune::design
