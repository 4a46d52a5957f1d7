#include "methodology/pchip.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ktune::methodology {
namespace {

double sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

// scipy _edge_case: the one-sided three-point estimate, kept shape-preserving.
double edge_derivative(double h0, double h1, double m0, double m1) {
  double d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
  if (sign(d) != sign(m0)) {
    d = 0;
  } else if (sign(m0) != sign(m1) && std::abs(d) > 3 * std::abs(m0)) {
    d = 3 * m0;
  }
  return d;
}

}  // namespace

Pchip::Pchip(std::vector<double> x, std::vector<double> y) : x_(std::move(x)) {
  const std::size_t n = x_.size();
  if (n < 2 || y.size() != n) throw std::invalid_argument("PCHIP needs at least two points");
  std::vector<double> h(n - 1), m(n - 1), d(n);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    h[k] = x_[k + 1] - x_[k];
    if (!(h[k] > 0)) throw std::invalid_argument("PCHIP needs strictly increasing x");
    m[k] = (y[k + 1] - y[k]) / h[k];
  }
  if (n == 2) {
    d[0] = d[1] = m[0];
  } else {
    for (std::size_t k = 1; k + 1 < n; ++k) {
      const double w1 = 2 * h[k] + h[k - 1], w2 = h[k] + 2 * h[k - 1];
      const bool flat = sign(m[k]) != sign(m[k - 1]) || m[k] == 0 || m[k - 1] == 0;
      if (flat) {
        d[k] = 0;
      } else {
        const double whmean = (w1 / m[k - 1] + w2 / m[k]) / (w1 + w2);
        d[k] = 1.0 / whmean;
      }
    }
    d[0] = edge_derivative(h[0], h[1], m[0], m[1]);
    d[n - 1] = edge_derivative(h[n - 2], h[n - 3], m[n - 2], m[n - 3]);
  }
  // scipy CubicHermiteSpline's polynomial coefficients.
  c0_.resize(n - 1);
  c1_.resize(n - 1);
  c2_.resize(n - 1);
  c3_.resize(n - 1);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const double t = (d[k] + d[k + 1] - 2 * m[k]) / h[k];
    c0_[k] = t / h[k];
    c1_[k] = (m[k] - d[k]) / h[k] - t;
    c2_[k] = d[k];
    c3_[k] = y[k];
  }
}

double Pchip::operator()(double at) const {
  // The interval k with x_k <= at < x_k+1; the last one includes its right end, the ends extrapolate.
  const std::size_t intervals = c0_.size();
  std::size_t k;
  if (at >= x_[intervals]) {
    k = intervals - 1;
  } else if (at < x_[0]) {
    k = 0;
  } else {
    k = static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), at) - x_.begin()) - 1;
  }
  // scipy evaluates c3 + c2 s + c1 s^2 + c0 s^3 with running powers of s, in this order.
  const double s = at - x_[k];
  double result = 0, z = 1;
  result += c3_[k] * z;
  z *= s;
  result += c2_[k] * z;
  z *= s;
  result += c1_[k] * z;
  z *= s;
  result += c0_[k] * z;
  return result;
}

}  // namespace ktune::methodology
