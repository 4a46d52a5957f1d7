// Randomised property test: on random small problems drawn from the whole constraint grammar, the solver's set of
// configurations equals plain brute-force enumeration with the generic evaluator.
#include <gtest/gtest.h>

#include <set>

#include "ktune/expr/errors.hpp"
#include "ktune/search_space.hpp"
#include "ktune/solver/brute_force.hpp"
#include "random_problem.hpp"

namespace {

std::string describe(const ktune::Problem& p) {
  std::string s;
  for (const auto& param : p.parameters) {
    s += param.name + "=[";
    for (const auto& v : param.values) s += v.repr() + ",";
    s += "] ";
  }
  for (const auto& [k, v] : p.constants) s += k + ":=" + v.repr() + " ";
  for (const auto& c : p.constraints) s += "\n  " + c;
  return s;
}

TEST(SolverProperty, SolverEqualsBruteForceOnRandomProblems) {
  ktune::testing::RandomProblemGenerator gen(20261121);
  int checked = 0, static_errors = 0, nonempty = 0;
  for (int round = 0; round < 1500; ++round) {
    const auto problem = gen.next();
    SCOPED_TRACE(describe(problem));
    std::optional<ktune::SearchSpace> space;
    try {
      space.emplace(ktune::SearchSpace::build(problem, {.threads = round % 2 ? 2u : 1u}));
    } catch (const ktune::expr::ExpressionError&) {
      ++static_errors;  // a static type error for every type combination: Python would raise on every config
      continue;
    }
    const auto reference = ktune::brute_force_configs(problem);
    ASSERT_EQ(space->size(), reference.size());
    for (const auto& c : reference) ASSERT_TRUE(space->index_of(c).has_value());
    std::set<ktune::Config> seen;
    for (std::size_t i = 0; i < space->size(); ++i) ASSERT_TRUE(seen.insert(space->config_at(i)).second);
    ++checked;
    nonempty += space->size() > 0;
  }
  // The generator must mostly produce meaningful problems, or this test proves little.
  EXPECT_GT(checked, 1200);
  EXPECT_GT(nonempty, 600);
  std::printf("checked %d random problems (%d non-empty), %d rejected statically\n", checked, nonempty, static_errors);
}

}  // namespace
