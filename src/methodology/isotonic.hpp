#pragma once
// Weighted isotonic regression as scikit-learn's IsotonicRegression fits and predicts it (out_of_bounds='clip'):
// points sorted by (x, y), equal x merged into their weighted mean, pool-adjacent-violators, clipped to
// [y_min, y_max], predicted by linear interpolation between the fitted points and constant beyond them.
#include <cstddef>
#include <span>
#include <vector>

namespace ktune::methodology {

class IsotonicFit {
 public:
  // Points with weight 0 are ignored; at least one must have a positive weight.
  IsotonicFit(std::span<const double> x, std::span<const double> y, std::span<const double> weights, bool increasing,
              double y_min, double y_max);
  // The same fit of points already in the order of sorted_by_x_then_y (x and y permuted by it, weights too):
  // bagging fits one set of points under many weightings, and sorts and gathers it once.
  struct Presorted {};
  IsotonicFit(Presorted, std::span<const double> x, std::span<const double> y, std::span<const double> weights,
              bool increasing, double y_min, double y_max);
  // Positions of the points ordered by x, then y, then position.
  static std::vector<std::size_t> sorted_by_x_then_y(std::span<const double> x, std::span<const double> y);
  double operator()(double at) const;

 private:
  std::vector<double> x_, y_;
};

}  // namespace ktune::methodology
