#pragma once
// Pareto dominance on objective vectors, every objective minimised (maximised ones enter as negated costs). Point
// sets are row-major flat arrays of n points with m objectives each, so populations and whole caches are passed
// without copying.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ktune {

// a dominates b: no worse in every objective and better in at least one.
bool dominates(std::span<const double> a, std::span<const double> b);

// Non-dominated sorting (Deb's fronts): fronts[0] is the non-dominated set, fronts[1] the non-dominated set of the
// rest, and so on; identical points share a front; indices ascending within a front. Stops once at least
// `stop_after` points are ranked. Points with a NaN objective come last, in a front of their own. Two objectives:
// O(n log n) per front by a sweep; more: O(m n^2).
std::vector<std::vector<std::size_t>> non_dominated_sort(std::span<const double> points, std::size_t m,
                                                         std::size_t stop_after = SIZE_MAX);

// Indices of the non-dominated points (front 0), ascending. Duplicates of a non-dominated point are all kept.
std::vector<std::size_t> pareto_front(std::span<const double> points, std::size_t m);

// pymoo's crowding distance ("cd"): +inf for every point of a front of at most two and for the extremes of each
// objective; an objective with no range contributes nothing; the sum over objectives divided by m.
std::vector<double> crowding_distance(std::span<const double> points, std::size_t m);

// Component-wise minimum of all points, and maximum over the non-dominated ones.
std::vector<double> ideal_point(std::span<const double> points, std::size_t m);
std::vector<double> nadir_point(std::span<const double> points, std::size_t m);

}  // namespace ktune
