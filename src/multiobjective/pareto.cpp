#include "ktune/multiobjective/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "multiobjective/point_array.hpp"

namespace ktune {
namespace {

std::span<const double> row(std::span<const double> points, std::size_t m, std::size_t i) {
  return points.subspan(i * m, m);
}

bool has_nan(std::span<const double> p) {
  return std::any_of(p.begin(), p.end(), [](double v) { return std::isnan(v); });
}

// The non-dominated points of `candidates` (indices, sorted lexicographically by their rows), in that order.
// Two objectives: one sweep keeping the smallest second objective seen. More: each point is checked against the
// non-dominated points before it only (a point dominated by anybody is dominated by a non-dominated point before it
// in lexicographic order).
std::vector<std::size_t> first_front(std::span<const double> points, std::size_t m,
                                     const std::vector<std::size_t>& candidates) {
  std::vector<std::size_t> front;
  if (m == 1) {
    for (std::size_t i : candidates)
      if (front.empty() || points[i] == points[front.front()]) front.push_back(i);
    return front;
  }
  if (m == 2) {
    double best0 = 0, best1 = std::numeric_limits<double>::infinity();
    bool any = false;
    for (std::size_t i : candidates) {
      const double f0 = points[i * 2], f1 = points[i * 2 + 1];
      // Earlier points have f0 <= this f0; the one with the least f1 (first such, least f0) decides.
      const bool dominated = any && (best1 < f1 || (best1 == f1 && best0 < f0));
      if (!dominated) front.push_back(i);
      if (!any || f1 < best1) {
        best1 = f1;
        best0 = f0;
        any = true;
      }
    }
    return front;
  }
  for (std::size_t i : candidates) {
    const auto p = row(points, m, i);
    bool dominated = false;
    for (std::size_t k : front)
      if (dominates(row(points, m, k), p)) {
        dominated = true;
        break;
      }
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::vector<std::size_t> lexicographic_order(std::span<const double> points, std::size_t m,
                                             std::vector<std::size_t> indices) {
  std::stable_sort(indices.begin(), indices.end(), [&](std::size_t a, std::size_t b) {
    const auto ra = row(points, m, a), rb = row(points, m, b);
    return std::lexicographical_compare(ra.begin(), ra.end(), rb.begin(), rb.end());
  });
  return indices;
}

}  // namespace

bool dominates(std::span<const double> a, std::span<const double> b) {
  bool better = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] <= b[i])) return false;
    better = better || a[i] < b[i];
  }
  return better;
}

std::vector<std::vector<std::size_t>> non_dominated_sort(std::span<const double> points, std::size_t m,
                                                         std::size_t stop_after) {
  check_point_array(points, m);
  const std::size_t n = points.size() / m;
  std::vector<std::size_t> finite, nan;
  for (std::size_t i = 0; i < n; ++i) (has_nan(row(points, m, i)) ? nan : finite).push_back(i);
  std::vector<std::size_t> remaining = lexicographic_order(points, m, std::move(finite));
  std::vector<std::vector<std::size_t>> fronts;
  std::size_t ranked = 0;
  while (!remaining.empty() && ranked < stop_after) {
    auto front = first_front(points, m, remaining);
    // Remove the front from the (still sorted) remaining points.
    std::vector<std::size_t> rest;
    rest.reserve(remaining.size() - front.size());
    std::size_t f = 0;
    for (std::size_t i : remaining) {
      if (f < front.size() && front[f] == i) {
        ++f;
      } else {
        rest.push_back(i);
      }
    }
    remaining = std::move(rest);
    ranked += front.size();
    std::sort(front.begin(), front.end());
    fronts.push_back(std::move(front));
  }
  if (!nan.empty() && ranked < stop_after && remaining.empty()) fronts.push_back(std::move(nan));
  return fronts;
}

std::vector<std::size_t> pareto_front(std::span<const double> points, std::size_t m) {
  auto fronts = non_dominated_sort(points, m, 1);
  if (fronts.empty()) return {};
  // Only NaN points: they form no front.
  const auto& first = fronts.front();
  if (!first.empty() && has_nan(row(points, m, first.front()))) return {};
  return std::move(fronts.front());
}

std::vector<double> crowding_distance(std::span<const double> points, std::size_t m) {
  check_point_array(points, m);
  const std::size_t n = points.size() / m;
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (n <= 2) return std::vector<double>(n, inf);
  std::vector<double> cd(n, 0.0);
  std::vector<std::size_t> order(n);
  for (std::size_t j = 0; j < m; ++j) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return points[a * m + j] < points[b * m + j]; });
    const double lo = points[order.front() * m + j], hi = points[order.back() * m + j];
    const double norm = hi - lo;
    if (!(norm > 0) || !std::isfinite(norm)) continue;  // pymoo: NaN contributions count 0
    for (std::size_t s = 0; s < n; ++s) {
      const double left = s == 0 ? inf : (points[order[s] * m + j] - points[order[s - 1] * m + j]) / norm;
      const double right = s + 1 == n ? inf : (points[order[s + 1] * m + j] - points[order[s] * m + j]) / norm;
      cd[order[s]] += left + right;
    }
  }
  for (double& v : cd) v /= static_cast<double>(m);
  return cd;
}

std::vector<double> ideal_point(std::span<const double> points, std::size_t m) {
  check_point_array(points, m);
  std::vector<double> ideal(m, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < points.size(); ++i) ideal[i % m] = std::min(ideal[i % m], points[i]);
  return ideal;
}

std::vector<double> nadir_point(std::span<const double> points, std::size_t m) {
  std::vector<double> nadir(m, -std::numeric_limits<double>::infinity());
  for (std::size_t i : pareto_front(points, m))
    for (std::size_t j = 0; j < m; ++j) nadir[j] = std::max(nadir[j], points[i * m + j]);
  return nadir;
}

}  // namespace ktune
