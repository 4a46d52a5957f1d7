#pragma once
// The all-solutions solver: enumerates every configuration that satisfies all prepared constraints.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/index_matrix.hpp"
#include "ktune/problem.hpp"
#include "solver/constraint_set.hpp"

namespace ktune::solver {

struct SolveResult {
  IndexMatrix rows;                // sorted lexicographically under `order`, no duplicates (empty when factored)
  std::vector<std::size_t> order;  // permutation of parameter indices
  // The factored form (set instead of `rows` when asked for): the valid configurations are the Cartesian product of
  // the groups' rows, first group slowest, with the fixed parameters at their only values. Group c's rows are sorted
  // lexicographically with column j holding parameter group_params[c][j]; `order` is fixed parameters, then each
  // group's columns, so the product's order is the lexicographic order under `order`, as the merged rows would be.
  std::vector<IndexMatrix> group_rows;
  std::vector<std::vector<std::size_t>> group_params;
  std::vector<std::size_t> fixed_params;
  std::vector<std::uint32_t> fixed_values;  // per entry of fixed_params
  bool factored() const { return !group_rows.empty(); }
  std::size_t independent_groups = 0;
  std::uint64_t evaluation_errors = 0;
  std::vector<std::string> evaluation_error_messages;
  // Checks of one constraint on one (partial) assignment: full evaluations and bounds checks. The same for the same
  // problem and thread count (bounds checks that rarely prune are switched off per part of the work).
  std::uint64_t constraint_evaluations = 0;
};

// One part of a component's enumeration for the threads: some consecutive values of its first variable and, when
// set, only the second variable's values in [second->first, second->second).
struct SolvePart {
  std::vector<std::uint32_t> first;
  std::optional<std::pair<std::uint32_t, std::uint32_t>> second;
};
inline constexpr std::size_t kSolvePartsPerThread = 32;

// The parts of a component whose first variable has the candidate values `first` and whose second variable (if any)
// the allowed values `second_values`, both ascending: at most kSolvePartsPerThread * threads parts (each costs a pass
// over its variables' bitsets, so one part per value would make a long value list quadratic), in enumeration order.
std::vector<SolvePart> plan_parts(const std::vector<std::uint32_t>& first, const std::vector<std::uint32_t>& second_values,
                                  unsigned threads);

// Enumerates the valid configurations of `problem` under `constraints` (from prepare_constraints). With at least two
// independent groups and more than `factor_above` valid configurations, the groups are returned factored instead of
// merged (their product is never listed). Throws ProblemError if merged rows cannot be held (more than 2^32-2).
SolveResult solve(const Problem& problem, const std::vector<PreparedConstraint>& constraints, unsigned threads,
                  std::uint64_t factor_above = UINT64_MAX);

}  // namespace ktune::solver
