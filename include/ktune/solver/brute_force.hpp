#pragma once
// Plain enumeration of the Cartesian product, checking every constraint string with the generic evaluator.
// Independent of the solver (no splitting, folding, tables or bounds): the reference it is checked against.
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

// Every valid configuration (value indices, problem order) in lexicographic order of the problem's parameters.
// Throws std::invalid_argument if the Cartesian size exceeds max_cartesian.
std::vector<Config> brute_force_configs(const Problem& problem, std::uint64_t max_cartesian = 50'000'000);

struct BruteForceCheck {
  bool ok = false;
  std::uint64_t brute_force_valid = 0;
  std::uint64_t missing = 0;  // valid by brute force, absent from the space
  std::uint64_t extra = 0;    // in the space, invalid by brute force
  double seconds = 0;
  std::string message;
};

// Compares a constructed space with brute_force_configs of its problem.
BruteForceCheck verify_brute_force(const SearchSpace& space, std::uint64_t max_cartesian = 50'000'000);

}  // namespace ktune
