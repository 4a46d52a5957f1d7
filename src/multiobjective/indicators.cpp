#include "ktune/multiobjective/indicators.hpp"
#include "ktune/multiobjective/front_normalisation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "ktune/multiobjective/pareto.hpp"
#include "multiobjective/point_array.hpp"

namespace ktune {
namespace {

// Area dominated by 2-D points (flat pairs) below ref: sort by the first objective, sweep the second.
double hv2(std::vector<double>& p, double r0, double r1) {
  const std::size_t n = p.size() / 2;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return p[2 * a] != p[2 * b] ? p[2 * a] < p[2 * b] : p[2 * a + 1] < p[2 * b + 1];
  });
  double hv = 0, prev = r1;
  for (std::size_t i : order) {
    const double x0 = p[2 * i], x1 = p[2 * i + 1];
    if (x1 < prev) {
      hv += (r0 - x0) * (prev - x1);
      prev = x1;
    }
  }
  return hv;
}

// The non-dominated points of a flat set, without duplicates.
std::vector<double> nondominated_unique(const std::vector<double>& p, std::size_t m) {
  std::vector<std::vector<double>> rows;
  for (std::size_t i : pareto_front(p, m))
    rows.emplace_back(p.begin() + static_cast<std::ptrdiff_t>(i * m), p.begin() + static_cast<std::ptrdiff_t>(i * m + m));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  std::vector<double> out;
  out.reserve(rows.size() * m);
  for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

// WFG by slices: with the points sorted worst-first in the last objective, the part of point k's box that no later
// point dominates is a slab of height (r_last - p_k,last) times the (m-1)-dimensional exclusive volume of p_k against
// the projections of max(p_k, p_j), j > k. The projected limit sets are reduced to their non-dominated points.
double wfg(std::vector<double> p, std::size_t m, const std::vector<double>& ref) {
  const std::size_t n = p.size() / m;
  if (n == 0) return 0;
  if (m == 1) {
    double lo = ref[0];
    for (double v : p) lo = std::min(lo, v);
    return ref[0] - lo;
  }
  if (m == 2) return hv2(p, ref[0], ref[1]);
  if (n == 1) {
    double v = 1;
    for (std::size_t j = 0; j < m; ++j) v *= ref[j] - p[j];
    return v;
  }
  const std::size_t last = m - 1;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a * m + last] > p[b * m + last]; });
  std::vector<double> sorted(p.size());
  for (std::size_t k = 0; k < n; ++k)
    std::copy_n(p.begin() + static_cast<std::ptrdiff_t>(order[k] * m), m,
                sorted.begin() + static_cast<std::ptrdiff_t>(k * m));
  const std::vector<double> sub_ref(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(last));
  double total = 0;
  std::vector<double> limit;
  for (std::size_t k = 0; k < n; ++k) {
    const double* pk = &sorted[k * m];
    const double height = ref[last] - pk[last];
    if (height <= 0) continue;
    double box = 1;
    for (std::size_t j = 0; j < last; ++j) box *= sub_ref[j] - pk[j];
    limit.clear();
    for (std::size_t q = k + 1; q < n; ++q) {
      const double* pq = &sorted[q * m];
      for (std::size_t j = 0; j < last; ++j) limit.push_back(std::max(pk[j], pq[j]));
    }
    const double covered = limit.empty() ? 0.0 : wfg(nondominated_unique(limit, last), last, sub_ref);
    total += height * (box - covered);
  }
  return total;
}

// The mean over the points of one set (the reference front if `over_reference`, else the approximation) of the
// distance to the nearest point of the other; d(a, z) between an approximation point a and a reference point z,
// Euclidean or, with `plus`, only where a is worse than z.
double mean_nearest_distance(std::span<const double> approximation, std::span<const double> reference_front,
                             std::size_t m, bool over_reference, bool plus) {
  check_point_array(approximation, m);
  check_point_array(reference_front, m);
  const std::size_t na = approximation.size() / m, nz = reference_front.size() / m;
  if (na == 0 || nz == 0) return 0.0;
  const std::size_t outer = over_reference ? nz : na, inner = over_reference ? na : nz;
  double sum = 0;
  for (std::size_t o = 0; o < outer; ++o) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < inner; ++i) {
      const double* a = &approximation[(over_reference ? i : o) * m];
      const double* z = &reference_front[(over_reference ? o : i) * m];
      double d2 = 0;
      for (std::size_t j = 0; j < m; ++j) {
        const double d = plus ? std::max(a[j] - z[j], 0.0) : a[j] - z[j];
        d2 += d * d;
      }
      best = std::min(best, d2);
    }
    sum += std::sqrt(best);
  }
  return sum / static_cast<double>(outer);
}

}  // namespace

double igd_plus(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m) {
  return mean_nearest_distance(approximation, reference_front, m, true, true);
}

double igd(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m) {
  return mean_nearest_distance(approximation, reference_front, m, true, false);
}

double gd(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m) {
  return mean_nearest_distance(approximation, reference_front, m, false, false);
}

double gd_plus(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m) {
  return mean_nearest_distance(approximation, reference_front, m, false, true);
}

double igd_plus(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m,
                std::span<const double> ideal, std::span<const double> nadir) {
  if (ideal.size() != m || nadir.size() != m)
    throw std::invalid_argument("ideal and nadir need one value per objective");
  const FrontNormalisation normalise({ideal.begin(), ideal.end()}, {nadir.begin(), nadir.end()});
  return igd_plus(normalise(approximation), normalise(reference_front), m);
}

double hypervolume(std::span<const double> points, std::size_t m, std::span<const double> ref) {
  check_point_array(points, m);
  if (ref.size() != m) throw std::invalid_argument("the reference point needs one value per objective");
  std::vector<double> inside;
  for (std::size_t i = 0; i < points.size() / m; ++i) {
    bool strictly = true;
    for (std::size_t j = 0; j < m; ++j) strictly = strictly && points[i * m + j] < ref[j];
    if (strictly) inside.insert(inside.end(), points.begin() + static_cast<std::ptrdiff_t>(i * m),
                                points.begin() + static_cast<std::ptrdiff_t>(i * m + m));
  }
  if (inside.empty()) return 0.0;
  return wfg(nondominated_unique(inside, m), m, std::vector<double>(ref.begin(), ref.end()));
}

}  // namespace ktune
