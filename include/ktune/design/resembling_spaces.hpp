#pragma once
// Which brute-forced spaces resemble a problem, for designing a strategy for that problem (`ktune design --for`):
// a strategy is scored on spaces like the one it will tune. Resemblance is in what a strategy sees: the parameters
// (by name and by how many values each has) and the size of the space.
#include <cstddef>
#include <string>
#include <vector>

#include "ktune/problem.hpp"

namespace ktune::design {

struct Resemblance {
  std::string path;
  double similarity = 0;  // higher is closer; 1 = the same parameters with the same value counts and size
};

// `candidates` (results files, read for their problems) ranked by similarity to `problem`, closest first; ties keep
// the given order. Throws io::InputError for an unreadable file.
std::vector<Resemblance> rank_by_resemblance(const Problem& problem, const std::vector<std::string>& candidates);

// The similarity of two problems in [0, 1]: the mean of the Jaccard overlap of their parameter names, the overlap
// of their value-count profiles (sorted counts), and the closeness of their Cartesian sizes on a log scale.
double problem_similarity(const Problem& a, const Problem& b);

}  // namespace ktune::design
