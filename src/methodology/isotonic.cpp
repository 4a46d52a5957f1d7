#include "methodology/isotonic.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ktune::methodology {
namespace {

// sklearn's _inplace_contiguous_isotonic_regression: non-decreasing fit of y with weights w, in place.
void pool_adjacent_violators(std::vector<double>& y, std::vector<double>& w) {
  const std::size_t n = y.size();
  std::vector<std::size_t> target(n);
  std::iota(target.begin(), target.end(), std::size_t{0});
  std::size_t i = 0;
  while (i < n) {
    std::size_t k = target[i] + 1;
    if (k == n) break;
    if (y[i] < y[k]) {
      i = k;
      continue;
    }
    double sum_wy = w[i] * y[i], sum_w = w[i];
    for (;;) {
      // Within a decreasing run: absorb the next block.
      const double prev_y = y[k];
      sum_wy += w[k] * y[k];
      sum_w += w[k];
      k = target[k] + 1;
      if (k == n || prev_y < y[k]) {
        y[i] = sum_wy / sum_w;
        w[i] = sum_w;
        target[i] = k - 1;
        target[k - 1] = i;
        if (i > 0) i = target[i - 1];  // backtrack: keeps the algorithm single-pass
        break;
      }
    }
  }
  for (i = 0; i < n;) {
    const std::size_t k = target[i] + 1;
    for (std::size_t j = i + 1; j < k; ++j) y[j] = y[i];
    i = k;
  }
}

}  // namespace

std::vector<std::size_t> IsotonicFit::sorted_by_x_then_y(std::span<const double> x, std::span<const double> y) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]);
  });
  return order;
}

IsotonicFit::IsotonicFit(std::span<const double> x, std::span<const double> y, std::span<const double> weights,
                         bool increasing, double y_min, double y_max) {
  const std::vector<std::size_t> order = sorted_by_x_then_y(x, y);
  std::vector<double> sx(order.size()), sy(order.size()), sw(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) sx[i] = x[order[i]], sy[i] = y[order[i]], sw[i] = weights[order[i]];
  *this = IsotonicFit(Presorted{}, sx, sy, sw, increasing, y_min, y_max);
}

IsotonicFit::IsotonicFit(Presorted, std::span<const double> x, std::span<const double> y,
                         std::span<const double> weights, bool increasing, double y_min, double y_max) {
  // The weighted points, in order (a stable sort of them alone gives the same order).
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (weights[i] > 0) order.push_back(i);
  if (order.empty()) throw std::invalid_argument("isotonic regression of no points");

  // Merge (nearly) equal x into their weighted mean y, as sklearn's _make_unique does.
  constexpr double kResolution = 1e-15;  // numpy.finfo(float64).resolution
  std::vector<double> ux, uy, uw;
  double current_x = x[order[0]], current_y = 0, current_w = 0;
  for (std::size_t j : order) {
    if (x[j] - current_x >= kResolution) {
      ux.push_back(current_x);
      uw.push_back(current_w);
      uy.push_back(current_y / current_w);
      current_x = x[j];
      current_w = weights[j];
      current_y = y[j] * weights[j];
    } else {
      current_w += weights[j];
      current_y += y[j] * weights[j];
    }
  }
  ux.push_back(current_x);
  uw.push_back(current_w);
  uy.push_back(current_y / current_w);

  if (!increasing) {
    std::reverse(uy.begin(), uy.end());
    std::reverse(uw.begin(), uw.end());
  }
  pool_adjacent_violators(uy, uw);
  for (double& v : uy) v = std::clamp(v, y_min, y_max);
  if (!increasing) std::reverse(uy.begin(), uy.end());

  // Keep the ends and every point where the fit changes (sklearn's trim_duplicates).
  const std::size_t n = uy.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || i + 1 == n || uy[i] != uy[i - 1] || uy[i] != uy[i + 1]) {
      x_.push_back(ux[i]);
      y_.push_back(uy[i]);
    }
  }
}

double IsotonicFit::operator()(double at) const {
  if (y_.size() == 1) return y_[0];
  at = std::clamp(at, x_.front(), x_.back());
  // scipy interp1d(kind='linear'): the interval from searchsorted(side='left'), clipped to [1, n-1].
  std::size_t hi = static_cast<std::size_t>(std::lower_bound(x_.begin(), x_.end(), at) - x_.begin());
  hi = std::clamp<std::size_t>(hi, 1, x_.size() - 1);
  const std::size_t lo = hi - 1;
  const double slope = (y_[hi] - y_[lo]) / (x_[hi] - x_[lo]);
  return slope * (at - x_[lo]) + y_[lo];
}

}  // namespace ktune::methodology
