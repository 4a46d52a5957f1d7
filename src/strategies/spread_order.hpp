#pragma once
// The order in which an opening sample is evaluated: spread first. A Latin hypercube covers the space as a whole, but
// a run whose budget ends inside its opening (a few dozen evaluations), and the methodology's score, which counts how
// early good configurations are found, see only a prefix of it, and a prefix in the order drawn clumps. Spread first
// takes the sample's first point as drawn, then each time the point farthest from those already taken (the least L1
// distance to them, each parameter's value index scaled to [0, 1]): every prefix covers the space about as well as a
// sample of its size can (farthest-point order, Gonzalez 1985). The set of points is unchanged.
#include <cstddef>
#include <vector>

#include "ktune/search_space.hpp"

namespace ktune::strategies {

// Points beyond this many keep the order they were drawn in (the ordering costs points x kSpreadPrefix distances).
constexpr std::size_t kSpreadPrefix = 128;

// `sample` (configuration indices of `space`) reordered spread first; ties go to the earlier point.
std::vector<std::size_t> spread_first(const SearchSpace& space, std::vector<std::size_t> sample);

}  // namespace ktune::strategies
