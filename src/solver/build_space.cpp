// SearchSpace::build: problem -> prepared constraints -> solver -> SearchSpace (materialised or lazy).
#include <algorithm>
#include <chrono>

#include "ktune/search_space.hpp"
#include "solver/constraint_set.hpp"
#include "solver/solver.hpp"
#include "space/product_space.hpp"

namespace ktune {

SearchSpace SearchSpace::build(Problem problem, const BuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  problem.validate();
  const auto constraints = solver::prepare_constraints(problem);
  const std::uint64_t factor_above = options.form == SpaceForm::lazy           ? 0
                                     : options.form == SpaceForm::materialised ? UINT64_MAX
                                                                               : BuildOptions::kLazyAbove;
  auto solved = solver::solve(problem, constraints, options.threads, factor_above);

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
  report.constraint_evaluations = solved.constraint_evaluations;
  auto finish = [&](SearchSpace space) {
    space.report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return space;
  };
  if (!solved.factored()) {
    solved.rows.shrink_to_fit();
    return finish(SearchSpace(std::move(problem), std::move(solved.rows), std::move(report)));
  }
  // The fixed parameters become a group of one row in front (it changes no index: its digit is always 0).
  std::vector<IndexMatrix> groups;
  std::vector<std::vector<std::size_t>> params;
  if (!solved.fixed_params.empty()) {
    std::uint32_t max_index = 0;
    for (auto v : solved.fixed_values) max_index = std::max(max_index, v);
    IndexMatrix fixed(solved.fixed_params.size(), max_index);
    fixed.push_row(solved.fixed_values.data());
    groups.push_back(std::move(fixed));
    params.push_back(solved.fixed_params);
  }
  for (std::size_t c = 0; c < solved.group_rows.size(); ++c) {
    solved.group_rows[c].shrink_to_fit();
    groups.push_back(std::move(solved.group_rows[c]));
    params.push_back(std::move(solved.group_params[c]));
  }
  auto product = std::make_unique<Product>(problem, std::move(groups), std::move(params));
  return finish(SearchSpace(std::move(problem), std::move(product), std::move(report)));
}

}  // namespace ktune
