#pragma once
// Monotone piecewise cubic Hermite interpolation (Fritsch-Carlson), computed the way scipy's PchipInterpolator does,
// operation for operation, so the random-search baseline matches the reference to the last bit.
#include <span>
#include <vector>

namespace ktune::methodology {

class Pchip {
 public:
  // x strictly increasing, at least two points.
  Pchip(std::vector<double> x, std::vector<double> y);
  // Outside [x0, xn] the end polynomials extrapolate (scipy's default).
  double operator()(double at) const;

 private:
  std::vector<double> x_;
  std::vector<double> c0_, c1_, c2_, c3_;  // per interval: c0 t^3 + c1 t^2 + c2 t + c3, t = at - x_k
};

}  // namespace ktune::methodology
