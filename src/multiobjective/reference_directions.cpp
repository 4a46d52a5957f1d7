#include "ktune/multiobjective/reference_directions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "ktune/rng.hpp"

namespace ktune {
namespace {

void das_dennis_recursive(Directions& out, std::vector<double>& current, std::size_t m, std::size_t left,
                          std::size_t partitions) {
  const std::size_t depth = current.size();
  if (depth + 1 == m) {
    current.push_back(static_cast<double>(left) / static_cast<double>(partitions));
    out.push_back(current);
    current.pop_back();
    return;
  }
  for (std::size_t i = 0; i <= left; ++i) {
    current.push_back(static_cast<double>(i) / static_cast<double>(partitions));
    das_dennis_recursive(out, current, m, left - i, partitions);
    current.pop_back();
  }
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double d2 = 0;
  for (std::size_t j = 0; j < a.size(); ++j) d2 += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(d2);
}

// Euclidean projection onto the unit simplex (Duchi et al. 2008).
void project_onto_simplex(std::vector<double>& x) {
  std::vector<double> u = x;
  std::sort(u.begin(), u.end(), std::greater<>());
  double cumulative = 0, theta = 0;
  for (std::size_t k = 0; k < u.size(); ++k) {
    cumulative += u[k];
    const double t = (cumulative - 1.0) / static_cast<double>(k + 1);
    if (u[k] - t > 0) theta = t;
  }
  double sum = 0;
  for (double& v : x) sum += v = std::max(v - theta, 0.0);
  for (double& v : x) v /= sum;
}

// Uniform on the simplex: differences of sorted uniforms (Kraemer).
std::vector<double> random_simplex_point(std::size_t m, Rng& rng) {
  std::vector<double> cuts{0.0, 1.0};
  for (std::size_t k = 1; k < m; ++k) cuts.push_back(rng.uniform01());
  std::sort(cuts.begin(), cuts.end());
  std::vector<double> x(m);
  for (std::size_t j = 0; j < m; ++j) x[j] = cuts[j + 1] - cuts[j];
  return x;
}

// Energy and gradient of log(mean over pairs of |x_i - x_j|^-s).
double energy_and_gradient(const Directions& x, double s, Directions* gradient) {
  const std::size_t n = x.size(), m = x.front().size();
  const double floor = std::pow(10.0, -320.0 / (s + 2));  // as pymoo: keep the powers finite
  double sum = 0;
  if (gradient) gradient->assign(n, std::vector<double>(m, 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = i + 1; k < n; ++k) {
      const double d = std::max(distance(x[i], x[k]), floor);
      const double e = std::pow(d, -s);
      sum += e;
      if (gradient) {
        const double g = -s * std::pow(d, -s - 2);
        for (std::size_t j = 0; j < m; ++j) {
          const double diff = x[i][j] - x[k][j];
          (*gradient)[i][j] += g * diff;
          (*gradient)[k][j] -= g * diff;
        }
      }
    }
  if (gradient)
    for (auto& row : *gradient)
      for (double& v : row) v /= sum;
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
  return std::log(sum / pairs);
}

Directions compute_riesz(std::size_t m, std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  // Candidates: the corners first (they stay in the set), then random simplex points.
  Directions candidates;
  for (std::size_t j = 0; j < m; ++j) {
    std::vector<double> corner(m, 0.0);
    corner[j] = 1.0;
    candidates.push_back(corner);
  }
  const std::size_t samples = std::max<std::size_t>(2000, 50 * n);
  for (std::size_t k = 0; k < samples; ++k) candidates.push_back(random_simplex_point(m, rng));
  // Greedy max-min selection.
  Directions x;
  std::vector<double> nearest(candidates.size(), std::numeric_limits<double>::infinity());
  std::vector<bool> used(candidates.size(), false);
  auto take = [&](std::size_t c) {
    used[c] = true;
    x.push_back(candidates[c]);
    for (std::size_t i = 0; i < candidates.size(); ++i) nearest[i] = std::min(nearest[i], distance(candidates[i], candidates[c]));
  };
  for (std::size_t j = 0; j < std::min(m, n); ++j) take(j);
  while (x.size() < n) {
    std::size_t best = 0;
    double far = -1;
    for (std::size_t i = 0; i < candidates.size(); ++i)
      if (!used[i] && nearest[i] > far) {
        far = nearest[i];
        best = i;
      }
    take(best);
  }
  if (n < 2) return x;

  // Projected Adam descent on the energy; restarts from the best set at half the step after 30 idle steps.
  const double s = 2.0 * static_cast<double>(m);
  double alpha = 0.005;
  constexpr double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  Directions best = x, gradient;
  double best_energy = energy_and_gradient(x, s, nullptr);
  Directions mom(n, std::vector<double>(m, 0.0)), vel = mom;
  std::size_t t = 0, idle = 0;
  for (int iteration = 0; iteration < 1000; ++iteration) {
    energy_and_gradient(x, s, &gradient);
    // Within the simplex plane (sum zero), scaled by the largest row norm.
    double largest = 0;
    for (auto& g : gradient) {
      double mean = 0;
      for (double v : g) mean += v;
      mean /= static_cast<double>(m);
      double norm2 = 0;
      for (double& v : g) {
        v -= mean;
        norm2 += v * v;
      }
      largest = std::max(largest, std::sqrt(norm2));
    }
    if (!(largest > 0) || !std::isfinite(largest)) break;
    ++t;
    double change = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> before = x[i];
      for (std::size_t j = 0; j < m; ++j) {
        const double g = gradient[i][j] / largest;
        mom[i][j] = beta1 * mom[i][j] + (1 - beta1) * g;
        vel[i][j] = beta2 * vel[i][j] + (1 - beta2) * g * g;
        const double mh = mom[i][j] / (1 - std::pow(beta1, static_cast<double>(t)));
        const double vh = vel[i][j] / (1 - std::pow(beta2, static_cast<double>(t)));
        x[i][j] -= alpha * mh / (std::sqrt(vh) + eps);
      }
      project_onto_simplex(x[i]);
      for (std::size_t j = 0; j < m; ++j) change += std::abs(x[i][j] - before[j]);
    }
    const double e = energy_and_gradient(x, s, nullptr);
    if (e < best_energy) {
      best_energy = e;
      best = x;
      idle = 0;
    } else if (++idle > 30) {
      x = best;
      alpha /= 2;
      t = 0;
      idle = 0;
      for (auto& r : mom) std::fill(r.begin(), r.end(), 0.0);
      for (auto& r : vel) std::fill(r.begin(), r.end(), 0.0);
    }
    if (change / static_cast<double>(n * m) < 1e-5 && idle == 0 && t > 1) break;
  }
  std::sort(best.begin(), best.end());
  return best;
}

}  // namespace

std::size_t das_dennis_count(std::size_t partitions, std::size_t m) {
  if (m == 0) return 0;
  // C(m + p - 1, p), computed exactly step by step.
  std::size_t c = 1;
  for (std::size_t k = 1; k <= partitions; ++k) c = c * (m - 1 + k) / k;
  return c;
}

Directions das_dennis(std::size_t partitions, std::size_t m) {
  if (m == 0) throw std::invalid_argument("reference directions need at least one objective");
  if (partitions == 0) return {std::vector<double>(m, 1.0 / static_cast<double>(m))};
  Directions out;
  std::vector<double> current;
  das_dennis_recursive(out, current, m, partitions, partitions);
  std::sort(out.begin(), out.end());
  return out;
}

Directions riesz_energy_directions(std::size_t m, std::size_t n, std::uint64_t seed) {
  if (m == 0 || n == 0) throw std::invalid_argument("reference directions need objectives and points");
  if (m == 1) return Directions(n, std::vector<double>{1.0});
  static std::mutex mutex;
  static std::map<std::tuple<std::size_t, std::size_t, std::uint64_t>, Directions> cache;
  {
    std::lock_guard lock(mutex);
    if (const auto it = cache.find({m, n, seed}); it != cache.end()) return it->second;
  }
  Directions d = compute_riesz(m, n, seed);
  std::lock_guard lock(mutex);
  return cache.emplace(std::make_tuple(m, n, seed), std::move(d)).first->second;
}

double riesz_energy(const Directions& directions) {
  if (directions.size() < 2) return 0;
  return energy_and_gradient(directions, 2.0 * static_cast<double>(directions.front().size()), nullptr);
}

}  // namespace ktune
