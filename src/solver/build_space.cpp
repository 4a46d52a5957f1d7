// SearchSpace::build: problem -> prepared constraints -> solver -> SearchSpace.
#include <chrono>

#include "ktune/search_space.hpp"
#include "solver/constraint_set.hpp"
#include "solver/solver.hpp"

namespace ktune {

SearchSpace SearchSpace::build(Problem problem, const BuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  problem.validate();
  const auto constraints = solver::prepare_constraints(problem);
  auto solved = solver::solve(problem, constraints, options.threads);

  ConstructionReport report;
  report.cartesian_size = problem.cartesian_size();
  report.implicit_constraint = problem.implicit_constraint();
  for (const auto& c : constraints) {
    report.constraints.push_back(c.text);
    report.constraint_kinds.push_back(solver::to_string(c.kind));
  }
  report.order = std::move(solved.order);
  report.independent_groups = solved.independent_groups;
  report.evaluation_errors = solved.evaluation_errors;
  report.evaluation_error_messages = std::move(solved.evaluation_error_messages);
  solved.rows.shrink_to_fit();
  SearchSpace space(std::move(problem), std::move(solved.rows), std::move(report));
  space.report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return space;
}

}  // namespace ktune
