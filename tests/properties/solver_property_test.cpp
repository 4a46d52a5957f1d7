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

#include "space_reference.hpp"

namespace {

// On solver-built random spaces: every neighbour method equals its brute-force definition (valid, invalid and
// out-of-space queries), and random / Latin-hypercube samples are valid, unique and reproducible.
TEST(SpaceProperty, NeighboursAndSamplesOnSolverBuiltSpaces) {
  using ktune::NeighbourMethod;
  ktune::testing::RandomProblemGenerator gen(77);
  ktune::Rng rng(5);
  int spaces = 0, queries = 0;
  for (int round = 0; round < 400 && spaces < 150; ++round) {
    const auto problem = gen.next();
    std::optional<ktune::SearchSpace> space;
    try {
      space.emplace(ktune::SearchSpace::build(problem));
    } catch (const ktune::expr::ExpressionError&) {
      continue;
    }
    if (space->size() < 2) continue;
    ++spaces;
    SCOPED_TRACE(describe(problem));
    const std::size_t d = space->num_params();
    for (int q = 0; q < 6; ++q) {
      ktune::Config config(d);
      if (q % 2 == 0) {
        config = space->config_at(rng.below(space->size()));
      } else {
        for (std::size_t p = 0; p < d; ++p) config[p] = static_cast<std::uint32_t>(rng.below(space->param_values(p).size()));
      }
      for (auto m : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming,
                     NeighbourMethod::HammingAdjacent, NeighbourMethod::ClosestParamIndices}) {
        SCOPED_TRACE(ktune::to_string(m));
        const auto expected = ktune::testing::reference_neighbours(*space, config, m);
        ASSERT_EQ(space->neighbours(config, m), expected);
        ASSERT_EQ(space->neighbours(config, m), expected);  // from the cache
        ++queries;
      }
    }
    for (auto sampler : {0, 1}) {
      const std::size_t n = 1 + rng.below(space->size());
      ktune::Rng a(round), b(round);
      const auto s1 = sampler ? space->lhs_sample(n, a) : space->random_sample(n, a);
      const auto s2 = sampler ? space->lhs_sample(n, b) : space->random_sample(n, b);
      ASSERT_EQ(s1, s2);
      ASSERT_EQ(s1.size(), n);
      std::set<std::size_t> unique(s1.begin(), s1.end());
      ASSERT_EQ(unique.size(), n);
      for (auto i : s1) ASSERT_LT(i, space->size());
    }
  }
  EXPECT_GE(spaces, 100);
  std::printf("checked %d neighbour queries on %d solver-built spaces\n", queries, spaces);
}

}  // namespace
