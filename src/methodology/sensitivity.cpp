#include "ktune/methodology/sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "nan_constant.hpp"

namespace ktune::methodology {
namespace {

// The digamma function for x > 0: the recurrence up to x >= 6, then the asymptotic series (error below 1e-12).
double digamma(double x) {
  double shift = 0;
  for (; x < 6; x += 1) shift -= 1 / x;
  const double inv = 1 / x, inv2 = inv * inv;
  return shift + std::log(x) - 0.5 * inv -
         inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))));
}

// The regularised upper incomplete gamma function Q(a, x): the series of P below x = a + 1, Lentz's continued
// fraction above (both to double precision).
double gamma_q(double a, double x) {
  if (std::isnan(x) || std::isnan(a) || a <= 0) return kNaN;
  if (x <= 0) return 1;
  const double front = std::exp(-x + a * std::log(x) - std::lgamma(a));
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 10000 && std::abs(term) > std::abs(sum) * 1e-16; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    return std::max(0.0, 1 - sum * front);
  }
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1) < 1e-16) break;
  }
  return front * h;
}

}  // namespace

double chi_square_survival(double x, double degrees_of_freedom) { return gamma_q(degrees_of_freedom / 2, x / 2); }

double kruskal_wallis_h(const std::vector<std::vector<double>>& groups) {
  std::vector<std::pair<double, std::size_t>> all;  // (score, group)
  std::size_t non_empty = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    non_empty += !groups[g].empty();
    for (double v : groups[g]) all.push_back({v, g});
  }
  const auto n = static_cast<double>(all.size());
  if (non_empty < 2) return kNaN;
  std::sort(all.begin(), all.end());
  // Average ranks (from 1) over ties, and the tie correction's sum of t^3 - t.
  std::vector<double> rank_sum(groups.size(), 0.0);
  double ties = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2, t = static_cast<double>(j - i);
    for (std::size_t k = i; k < j; ++k) rank_sum[all[k].second] += rank;
    ties += t * t * t - t;
    i = j;
  }
  const double correction = 1 - ties / (n * n * n - n);
  if (!(correction > 0)) return kNaN;  // every score equal
  double h = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (!groups[g].empty()) h += rank_sum[g] * rank_sum[g] / static_cast<double>(groups[g].size());
  h = 12 / (n * (n + 1)) * h - 3 * (n + 1);
  return h / correction;
}

double mutual_information_discrete_continuous(const std::vector<std::size_t>& labels,
                                              const std::vector<double>& values, std::size_t neighbours) {
  if (labels.size() != values.size()) throw std::invalid_argument("one label per value");
  if (neighbours == 0) throw std::invalid_argument("at least one neighbour");
  std::map<std::size_t, std::vector<std::size_t>> by_label;
  for (std::size_t i = 0; i < labels.size(); ++i) by_label[labels[i]].push_back(i);
  // Per point of a label shared with others: its k (neighbours, at most the others of its label), the distance to
  // its k-th nearest of the same label (just below it: the count below is of points strictly closer), and its
  // label's size. A label of one point carries no information about its neighbourhood and is left out.
  std::vector<std::size_t> kept;
  std::vector<double> radius(values.size()), k_of(values.size()), count_of(values.size());
  std::vector<double> distances;
  for (const auto& [label, members] : by_label) {
    if (members.size() < 2) continue;
    const std::size_t k = std::min(neighbours, members.size() - 1);
    for (std::size_t i : members) {
      distances.clear();
      for (std::size_t j : members)
        if (j != i) distances.push_back(std::abs(values[j] - values[i]));
      std::nth_element(distances.begin(), distances.begin() + static_cast<std::ptrdiff_t>(k - 1), distances.end());
      radius[i] = std::nextafter(distances[k - 1], 0.0);
      k_of[i] = static_cast<double>(k);
      count_of[i] = static_cast<double>(members.size());
      kept.push_back(i);
    }
  }
  if (kept.empty()) return 0;
  double mean_k = 0, mean_count = 0, mean_m = 0;
  for (std::size_t i : kept) {
    double m = 0;  // points of any label within the radius, itself included
    for (std::size_t j : kept) m += std::abs(values[j] - values[i]) <= radius[i];
    mean_k += digamma(k_of[i]);
    mean_count += digamma(count_of[i]);
    mean_m += digamma(m);
  }
  const auto n = static_cast<double>(kept.size());
  return std::max(0.0, digamma(n) + (mean_k - mean_count - mean_m) / n);
}

SensitivityAnalysis analyse_sensitivity(const std::vector<ScoredGridSetting>& scored) {
  std::vector<const ScoredGridSetting*> rows;
  for (const auto& s : scored)
    if (std::isfinite(s.score)) rows.push_back(&s);
  if (rows.size() < 2) throw std::invalid_argument("a sensitivity analysis needs at least two scored settings");
  const auto& first = rows.front()->settings;
  for (const ScoredGridSetting* r : rows) {
    bool same = r->settings.size() == first.size();
    for (std::size_t p = 0; same && p < first.size(); ++p) same = r->settings[p].first == first[p].first;
    if (!same)
      throw std::invalid_argument(fmt::format("setting {} does not name the hyperparameters of {}", r->label,
                                              rows.front()->label));
  }
  SensitivityAnalysis out;
  out.settings = rows.size();
  for (const ScoredGridSetting* r : rows) out.mean_score += r->score / static_cast<double>(rows.size());
  const ScoredGridSetting* closest = rows.front();
  for (const ScoredGridSetting* r : rows)
    if (std::abs(r->score - out.mean_score) < std::abs(closest->score - out.mean_score)) closest = r;
  out.closest_to_mean = *closest;
  for (std::size_t p = 0; p < first.size(); ++p) {
    std::map<std::string, std::size_t> label_of;  // a value's text -> its group
    std::vector<std::size_t> labels;
    std::vector<double> scores;
    std::vector<std::vector<double>> groups;
    for (const ScoredGridSetting* r : rows) {
      const auto [it, added] = label_of.try_emplace(r->settings[p].second.str(), groups.size());
      if (added) groups.emplace_back();
      groups[it->second].push_back(r->score);
      labels.push_back(it->second);
      scores.push_back(r->score);
    }
    HyperparameterSensitivity h;
    h.name = first[p].first;
    h.values = groups.size();
    h.kruskal_wallis_h = kruskal_wallis_h(groups);
    h.p_value = std::isnan(h.kruskal_wallis_h) ? kNaN
                                               : chi_square_survival(h.kruskal_wallis_h,
                                                                     static_cast<double>(groups.size() - 1));
    h.mutual_information = mutual_information_discrete_continuous(labels, scores);
    out.hyperparameters.push_back(std::move(h));
  }
  return out;
}

}  // namespace ktune::methodology
