#pragma once
// The objective space of a true Pareto front, scaled so that its ideal point is 0 and its nadir 1 in every objective
// (costs: every objective minimised). IGD+ and hypervolume of runs are measured there, so that objectives in
// milliseconds and in watts weigh alike. An objective flat on the front (nadir == ideal) is shifted, not scaled.
// The one place ktune normalises: `pareto`, `compare --objectives a,b`, the figures and igd_plus use it.
#include <cstddef>
#include <span>
#include <vector>

namespace ktune {

// Hypervolume reference point in the normalised space, the same in every objective: a little beyond the nadir, so
// that the front's extreme points contribute.
inline constexpr double kHypervolumeReference = 1.1;

class FrontNormalisation {
 public:
  // From the front's points (row-major, m costs per point); at least one point.
  FrontNormalisation(std::span<const double> front_costs, std::size_t m);
  // From a given ideal and nadir (costs, one per objective; nadir >= ideal).
  FrontNormalisation(std::vector<double> ideal, std::vector<double> nadir);

  double operator()(double cost, std::size_t objective) const {
    const double range = nadir_[objective] - ideal_[objective];
    return (cost - ideal_[objective]) / (range > 0 ? range : 1.0);
  }
  // Row-major points of m costs.
  std::vector<double> operator()(std::span<const double> costs) const;

  std::size_t objectives() const { return ideal_.size(); }
  const std::vector<double>& ideal() const { return ideal_; }
  const std::vector<double>& nadir() const { return nadir_; }
  std::vector<double> hypervolume_reference() const { return std::vector<double>(ideal_.size(), kHypervolumeReference); }

 private:
  std::vector<double> ideal_, nadir_;
};

}  // namespace ktune
