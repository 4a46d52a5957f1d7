#include "ktune/solver/brute_force.hpp"

#include <chrono>
#include <stdexcept>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"

namespace ktune {

std::vector<Config> brute_force_configs(const Problem& problem, std::uint64_t max_cartesian) {
  problem.validate();
  const std::uint64_t cartesian = problem.cartesian_size();
  if (cartesian > max_cartesian)
    throw std::invalid_argument("brute force: Cartesian size " + std::to_string(cartesian) + " exceeds the limit of " +
                                std::to_string(max_cartesian));
  const auto sources = problem.all_constraints();
  std::vector<expr::NodePtr> trees;
  for (const auto& s : sources) trees.push_back(expr::parse_expression(s));
  const std::size_t d = problem.parameters.size();
  Config idx(d, 0);
  std::vector<Value> current(d);
  for (std::size_t p = 0; p < d; ++p) current[p] = problem.parameters[p].values[0];
  auto resolve = [&](std::string_view name) -> const Value* {
    for (std::size_t p = 0; p < d; ++p)
      if (problem.parameters[p].name == name) return &current[p];
    auto it = problem.constants.find(name);
    return it == problem.constants.end() ? nullptr : &it->second;
  };
  std::vector<Config> out;
  while (true) {
    bool valid = true;
    for (std::size_t c = 0; c < trees.size() && valid; ++c) {
      try {
        valid = expr::evaluate(*trees[c], resolve, sources[c]).truthy();
      } catch (const expr::EvalError&) {
        valid = false;  // e.g. ZeroDivisionError: the configuration is invalid
      }
    }
    if (valid) out.push_back(idx);
    std::size_t p = d;
    while (p > 0) {
      --p;
      if (++idx[p] < problem.parameters[p].values.size()) {
        current[p] = problem.parameters[p].values[idx[p]];
        break;
      }
      idx[p] = 0;
      current[p] = problem.parameters[p].values[0];
      if (p == 0) return out;
    }
    if (d == 0) return out;
  }
}

BruteForceCheck verify_brute_force(const SearchSpace& space, std::uint64_t max_cartesian) {
  const auto start = std::chrono::steady_clock::now();
  BruteForceCheck check;
  const auto reference = brute_force_configs(space.problem(), max_cartesian);
  check.brute_force_valid = reference.size();
  for (const auto& c : reference)
    if (!space.index_of(c)) ++check.missing;
  // Every space entry that is not in the reference is extra; the space has no duplicates.
  const std::uint64_t present = reference.size() - check.missing;
  check.extra = space.size() - present;
  check.ok = check.missing == 0 && check.extra == 0;
  check.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  check.message = check.ok ? "solver and brute force agree on " + std::to_string(reference.size()) + " configurations"
                           : "MISMATCH: " + std::to_string(check.missing) + " missing, " + std::to_string(check.extra) +
                                 " extra (brute force: " + std::to_string(reference.size()) +
                                 ", solver: " + std::to_string(space.size()) + ")";
  return check;
}

}  // namespace ktune
