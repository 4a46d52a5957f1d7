// Randomised property test: on random small problems drawn from the whole constraint grammar, the solver's set of
// configurations equals plain brute-force enumeration with the generic evaluator.
#include <gtest/gtest.h>

#include <set>

#include "ktune/expr/errors.hpp"
#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/search_space.hpp"
#include "ktune/solver/brute_force.hpp"
#include "random_problem.hpp"
#include "packed_rows_from_environment.hpp"

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

// One evaluation's outcome: the value, or the kind of error raised.
struct Outcome {
  bool raised = false;
  ktune::expr::EvalErrorKind kind = ktune::expr::EvalErrorKind::Type;
  ktune::Value value;
};

bool same_outcome(const Outcome& a, const Outcome& b) {
  if (a.raised || b.raised) return a.raised == b.raised && a.kind == b.kind;
  return ktune::same_value(a.value, b.value);
}

std::string show(const Outcome& o) {
  return o.raised ? "raises kind " + std::to_string(static_cast<int>(o.kind)) : o.value.repr();
}

// Issue 19 item 3: integers near and beyond 2^53 and 2^63 (parameter values, literals, powers up to 65). The solver
// (numeric program, compiled code, folding, bounds) equals brute force, and the compiled expression gives the tree
// evaluator's result or error on every configuration.
TEST(SolverProperty, HugeIntegersAgreeAcrossSolverBruteForceAndEvaluators) {
  using ktune::expr::CompiledExpression;
  ktune::testing::RandomProblemGenerator gen(19, ktune::testing::RandomProblemGenerator::Numbers::Huge);
  int checked = 0, static_errors = 0, with_errors = 0, evaluations = 0;
  for (int round = 0; round < 700; ++round) {
    const auto problem = gen.next();
    SCOPED_TRACE(describe(problem));
    std::optional<ktune::SearchSpace> space;
    try {
      space.emplace(ktune::SearchSpace::build(problem, {.threads = round % 2 ? 2u : 1u}));
    } catch (const ktune::expr::ExpressionError&) {
      ++static_errors;
      continue;
    }
    const auto reference = ktune::brute_force_configs(problem);
    ASSERT_EQ(space->size(), reference.size());
    for (const auto& c : reference) ASSERT_TRUE(space->index_of(c).has_value());
    ++checked;
    with_errors += space->report().evaluation_errors > 0;

    std::vector<std::string> names;
    std::vector<ktune::expr::TypeSet> types;
    for (const auto& param : problem.parameters) {
      names.push_back(param.name);
      types.push_back(ktune::expr::types_of(param.values));
    }
    if (problem.cartesian_size() > 4000) continue;
    for (const auto& source : problem.constraints) {
      const auto tree = ktune::expr::parse_expression(source);
      const auto compiled = CompiledExpression::compile(*tree, source, names, types, problem.constants);
      ktune::Config index(problem.parameters.size(), 0);
      std::vector<ktune::Value> values(problem.parameters.size());
      for (bool more = true; more;) {
        for (std::size_t p = 0; p < values.size(); ++p) values[p] = problem.parameters[p].values[index[p]];
        Outcome by_tree, by_code;
        try {
          by_tree.value = ktune::expr::evaluate(
              *tree,
              [&](std::string_view name) -> const ktune::Value* {
                for (std::size_t p = 0; p < names.size(); ++p)
                  if (names[p] == name) return &values[p];
                const auto it = problem.constants.find(name);
                return it == problem.constants.end() ? nullptr : &it->second;
              },
              source);
        } catch (const ktune::expr::EvalError& e) {
          by_tree.raised = true;
          by_tree.kind = e.kind();
        }
        try {
          by_code.value = compiled.evaluate(values.data());
        } catch (const ktune::expr::EvalError& e) {
          by_code.raised = true;
          by_code.kind = e.kind();
        }
        std::string config;
        for (const auto& v : values) config += v.repr() + " ";
        ASSERT_TRUE(same_outcome(by_tree, by_code))
            << source << " at " << config << ": tree " << show(by_tree) << ", compiled " << show(by_code);
        ++evaluations;
        std::size_t p = index.size();
        while (p > 0 && ++index[p - 1] == problem.parameters[p - 1].values.size()) index[--p] = 0;
        more = p > 0;
      }
    }
  }
  EXPECT_GT(checked, 400);
  EXPECT_GT(with_errors, 50);  // overflow must really happen, or this proves little
  std::printf("checked %d problems with huge integers (%d with evaluation errors), %d rejected statically, %d "
              "evaluations compared\n",
              checked, with_errors, static_errors, evaluations);
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
