#pragma once
// Quality indicators of an approximation set against a reference (true) Pareto front, every objective minimised;
// point sets as row-major flat arrays with m objectives per point.
#include <cstddef>
#include <span>
#include <vector>

namespace ktune {

// IGD+ (Ishibuchi et al. 2015), as pymoo/moocore: the mean over reference points z of the distance to the nearest
// approximation point a, counting only how much a is worse: sqrt(sum_i max(a_i - z_i, 0)^2). 0 for an empty
// approximation (pymoo's convention).
double igd_plus(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m);
// The same after normalising both sets by `ideal` and `nadir` (FrontNormalisation: 0 at the ideal, 1 at the nadir).
double igd_plus(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m,
                std::span<const double> ideal, std::span<const double> nadir);

// The other distance indicators, as pymoo defines them (Euclidean distances; "+": only how much an approximation
// point a is worse than a reference point z counts, sqrt(sum_i max(a_i - z_i, 0)^2)). 0 for an empty set.
//   GD   mean over approximation points of the distance to the nearest reference point (convergence only);
//   GD+  the same with the "+" distance;
//   IGD  mean over reference points of the distance to the nearest approximation point (convergence and spread).
double gd(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m);
double gd_plus(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m);
double igd(std::span<const double> approximation, std::span<const double> reference_front, std::size_t m);

// Exact hypervolume dominated by the points and bounded by `ref`; only points strictly better than ref in every
// objective count. Two objectives: a sweep; more: WFG (While, Bradstreet, Barone 2012) with the sweep as base case.
double hypervolume(std::span<const double> points, std::size_t m, std::span<const double> ref);

}  // namespace ktune
