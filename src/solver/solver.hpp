#pragma once
// The all-solutions solver: enumerates every configuration that satisfies all prepared constraints.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "ktune/index_matrix.hpp"
#include "ktune/problem.hpp"
#include "solver/constraint_set.hpp"

namespace ktune::solver {

struct SolveResult {
  IndexMatrix rows;                // sorted lexicographically under `order`, no duplicates
  std::vector<std::size_t> order;  // permutation of parameter indices
  std::size_t independent_groups = 0;
  std::uint64_t evaluation_errors = 0;
  std::vector<std::string> evaluation_error_messages;
};

// Enumerates the valid configurations of `problem` under `constraints` (from prepare_constraints).
// Throws ProblemError if the result cannot be held (more than 2^32-1 configurations).
SolveResult solve(const Problem& problem, const std::vector<PreparedConstraint>& constraints, unsigned threads);

}  // namespace ktune::solver
