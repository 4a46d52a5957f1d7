#include "brute_force_oracle.hpp"

#include <chrono>
#include <numeric>
#include <string>
#include <vector>

#include "fuzz_entries.hpp"
#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"

namespace ktune::fuzz {

void check_against_brute_force(const SearchSpace& space, double budget_seconds) {
  const auto start = std::chrono::steady_clock::now();
  const Problem& problem = space.problem();
  const std::vector<std::string> sources = problem.all_constraints();
  std::vector<expr::NodePtr> trees;
  for (const std::string& s : sources) trees.push_back(expr::parse_expression(s));

  const std::size_t d = problem.parameters.size();
  const std::uint64_t n = problem.cartesian_size();
  // Visit k = i * stride mod n for i = 0, 1, ...: every configuration once, neighbours in the order far apart.
  std::uint64_t stride = n / 2 + 1;
  while (n > 1 && std::gcd(stride, n) != 1) ++stride;

  Config config(d);
  std::vector<Value> values(d);
  const auto resolve = [&](std::string_view name) -> const Value* {
    for (std::size_t p = 0; p < d; ++p)
      if (problem.parameters[p].name == name) return &values[p];
    const auto it = problem.constants.find(name);
    return it == problem.constants.end() ? nullptr : &it->second;
  };
  std::uint64_t checked = 0, valid = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget_seconds)
      return;  // out of time: the configurations checked so far agree
    std::uint64_t k = (i * stride) % n;  // n is small (the targets keep the product to a few thousand)
    for (std::size_t p = d; p-- > 0;) {
      const std::uint64_t size = problem.parameters[p].values.size();
      config[p] = static_cast<std::uint32_t>(k % size);
      values[p] = problem.parameters[p].values[config[p]];
      k /= size;
    }
    bool by_tree = true;
    std::string why = "all constraints true";
    for (std::size_t c = 0; c < trees.size() && by_tree; ++c) {
      try {
        by_tree = expr::evaluate(*trees[c], resolve, sources[c]).truthy();
        if (!by_tree) why = "'" + sources[c] + "' is false";
      } catch (const expr::EvalError& e) {
        by_tree = false;
        why = "'" + sources[c] + "' raises " + e.what();
      }
    }
    const bool in_space = space.index_of(config).has_value();
    if (by_tree != in_space) {
      std::string shown;
      for (std::size_t p = 0; p < d; ++p)
        shown += (p ? ", " : "") + problem.parameters[p].name + "=" + values[p].repr();
      check(false, "solver and brute force disagree on {" + shown + "}: " + (in_space ? "in" : "not in") +
                       " the space, but by the tree evaluator " + why);
    }
    ++checked;
    valid += by_tree ? 1 : 0;
  }
  check(valid == space.size(), "the space has " + std::to_string(space.size()) + " configurations, brute force " +
                                   std::to_string(valid) + " of " + std::to_string(checked));
}

}  // namespace ktune::fuzz
