// What every registered strategy must do, now and later: never ask for an invalid configuration when constraint
// aware, respect every budget exactly, reproduce its trace from a seed, and find the optimum of a small space when
// the budget allows it. A user-defined strategy registered at run time is used like ours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"
#include "packed_rows_from_environment.hpp"

namespace ktune {
namespace {
namespace every_strategy_test {

using testing::FakeEvaluator;

// 6 parameters, 3 constraints: 2,922 of 5,760 combinations valid (counted by brute force in Python).
const SearchSpace& constrained_space() {
  static const SearchSpace space = SearchSpace::build(ProblemBuilder("constrained")
                                                          .parameter("bx", {1, 2, 4, 8, 16, 32, 64, 128})
                                                          .parameter("by", {1, 2, 4, 8, 16, 32})
                                                          .parameter("tx", {1, 2, 3, 4, 5})
                                                          .parameter("ty", {1, 2, 3, 4})
                                                          .parameter("unroll", {0, 1, 2})
                                                          .parameter("sh", {0, 1})
                                                          .constraint("32 <= bx * by <= 1024")
                                                          .constraint("tx * ty <= 12")
                                                          .constraint("sh == 0 or bx * tx <= 256")
                                                          .build());
  return space;
}

// A smooth bowl with a little ruggedness; its minimum is at a valid configuration away from the corners.
double bowl(const SearchSpace& space, std::size_t index) {
  const auto c = space.config_at(index);
  const double target[] = {4, 2, 2, 1, 1, 1};
  double v = 1.0;
  for (std::size_t p = 0; p < c.size(); ++p) v += (c[p] - target[p]) * (c[p] - target[p]);
  return v + 0.1 * static_cast<double>((index * 2654435761u) % 7);
}

std::size_t optimum_index(const SearchSpace& space) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < space.size(); ++i)
    if (bowl(space, i) < bowl(space, best)) best = i;
  return best;
}

TuningResult run(const StrategyInfo& info, const SearchSpace& space, std::uint64_t seed, const Budget& budget,
                 std::vector<std::pair<std::string, Value>> hyper = {}, std::uint64_t* invalid_requests = nullptr) {
  FakeEvaluator eval(space, [&](std::size_t i) { return bowl(space, i); },
                     [](std::size_t i) { return 100.0 + static_cast<double>(i % 13); });
  auto strategy = info.make(Hyperparameters::resolve(info.name, info.hyperparameters, hyper));
  // Count the invalid requests through a listener-free cost function run: tune() does not expose it, so wrap.
  struct Counting final : Strategy {
    Strategy& inner;
    std::uint64_t* invalid;
    Counting(Strategy& s, std::uint64_t* i) : inner(s), invalid(i) {}
    void run(const SearchSpace& sp, CostFunction& cost, Rng& rng) override {
      try {
        inner.run(sp, cost, rng);
      } catch (...) {
        if (invalid) *invalid = cost.invalid_requests();
        throw;
      }
      if (invalid) *invalid = cost.invalid_requests();
    }
  } counting(*strategy, invalid_requests);
  TuningOptions options;
  options.seed = seed;
  options.budget = budget;
  return tune(space, eval, counting, options);
}

bool has_hyperparameter(const StrategyInfo& info, const std::string& name) {
  return std::any_of(info.hyperparameters.begin(), info.hyperparameters.end(),
                     [&](const auto& h) { return h.name == name; });
}

class EveryStrategy : public ::testing::TestWithParam<std::string> {
 protected:
  const StrategyInfo& info() const { return *find_strategy(GetParam()); }
};

TEST_P(EveryStrategy, ConstraintAwareNeverAsksForAnInvalidConfiguration) {
  std::uint64_t invalid = 99;
  Budget budget;
  budget.max_evaluations = 300;
  run(info(), constrained_space(), 1, budget, {}, &invalid);
  EXPECT_EQ(invalid, 0u);
}

TEST_P(EveryStrategy, RespectsEveryBudgetExactly) {
  const auto& space = constrained_space();
  Budget evaluations;
  evaluations.max_evaluations = 123;
  const auto a = run(info(), space, 2, evaluations);
  EXPECT_LE(a.evaluations, 123u);
  if (a.stop_reason != StopReason::max_evaluations) {
    EXPECT_NE(a.stop_reason, StopReason::time_limit);
  } else {
    EXPECT_EQ(a.evaluations, 123u);
  }
  Budget time;
  time.time_limit_seconds = 20.0;  // evaluations cost 0.100-0.112 s: about 190
  const auto b = run(info(), space, 2, time);
  if (b.stop_reason == StopReason::time_limit) {
    EXPECT_GE(b.clock_ms, 20000.0);
    EXPECT_LT(b.clock_ms - b.trace[b.trace.size() - 1].charged_ms, 20000.0);
  }
  EXPECT_LE(b.clock_ms, 20000.0 + 113.0);
  Budget fraction;
  fraction.max_fraction = 0.05;  // ceil(0.05 * 2922) = 147
  ASSERT_EQ(space.size(), 2922u);
  EXPECT_LE(run(info(), space, 2, fraction).evaluations, 147u);
}

TEST_P(EveryStrategy, SameSeedSameTrace) {
  Budget budget;
  budget.max_evaluations = 200;
  for (std::uint64_t seed : {3u, 4u}) {
    const auto a = run(info(), constrained_space(), seed, budget), b = run(info(), constrained_space(), seed, budget);
    ASSERT_EQ(a.trace.size(), b.trace.size());
    for (std::size_t i = 0; i < a.trace.size(); ++i) ASSERT_EQ(a.trace[i].index, b.trace[i].index) << i;
  }
}

// The lazy form indexes configurations as the materialised form does: every strategy, same seed, same trace.
TEST_P(EveryStrategy, SameTraceOnTheLazyForm) {
  static const SearchSpace lazy = [] {
    BuildOptions options;
    options.form = SpaceForm::lazy;
    return SearchSpace::build(constrained_space().problem(), options);
  }();
  ASSERT_TRUE(lazy.is_lazy());  // unroll is a group of its own
  ASSERT_EQ(lazy.size(), constrained_space().size());
  Budget budget;
  budget.max_evaluations = 150;
  const auto a = run(info(), constrained_space(), 3, budget), b = run(info(), lazy, 3, budget);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < a.trace.size(); ++i) ASSERT_EQ(a.trace[i].index, b.trace[i].index) << i;
}

// Packed rows (the layout of large spaces) answer as plain rows do: every strategy, same seed, same trace.
TEST_P(EveryStrategy, SameTraceOnPackedRows) {
  static const SearchSpace packed = [] {
    const Problem& problem = constrained_space().problem();  // built plain first, outside the scope
    const testing::PackedRowsFrom always(0);
    return SearchSpace::build(problem);
  }();
  ASSERT_TRUE(packed.listed() != nullptr && packed.listed()->is_packed());
  ASSERT_FALSE(constrained_space().listed()->is_packed());
  Budget budget;
  budget.max_evaluations = 150;
  const auto a = run(info(), constrained_space(), 3, budget), b = run(info(), packed, 3, budget);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < a.trace.size(); ++i) ASSERT_EQ(a.trace[i].index, b.trace[i].index) << i;
}

TEST_P(EveryStrategy, FindsTheOptimumOfASmallSpaceGivenTheWholeSpaceAsBudget) {
  const auto& space = constrained_space();
  Budget budget;
  budget.max_evaluations = space.size();
  const auto result = run(info(), space, 5, budget);
  ASSERT_TRUE(result.trace.best());
  EXPECT_EQ(result.trace[*result.trace.best()].index, optimum_index(space))
      << "stopped: " << to_string(result.stop_reason) << " after " << result.evaluations << " evaluations";
}

TEST_P(EveryStrategy, ConstraintUnawareStillOnlyEvaluatesValidConfigurations) {
  if (!has_hyperparameter(info(), "constraint_aware")) GTEST_SKIP() << "no constraint_aware switch";
  std::uint64_t invalid = 0;
  Budget budget;
  budget.max_evaluations = 150;
  const auto result = run(info(), constrained_space(), 6, budget, {{"constraint_aware", Value(false)}}, &invalid);
  EXPECT_LE(result.evaluations, 150u);
  for (const auto& e : result.trace.entries()) EXPECT_LT(e.index, constrained_space().size());
}

// Spaces smaller than any default population (the dual_annealing hyperparameter space has 8 settings): every
// strategy, in both modes, runs with its defaults within a budget of the whole space and ends with a best.
TEST_P(EveryStrategy, RunsOnASpaceSmallerThanItsPopulation) {
  const SearchSpace tiny = SearchSpace::build(
      ProblemBuilder("tiny").parameter("a", {1, 2, 3, 4}).parameter("b", {1, 2, 3}).constraint("a + b <= 6").build());
  ASSERT_EQ(tiny.size(), 11u);
  std::vector<std::vector<std::pair<std::string, Value>>> modes = {{}};
  if (has_hyperparameter(info(), "constraint_aware")) modes.push_back({{"constraint_aware", Value(false)}});
  for (const auto& hyper : modes) {
    for (std::uint64_t seed : {1u, 2u}) {
      Budget budget;
      budget.max_evaluations = tiny.size();
      const auto result = run(info(), tiny, seed, budget, hyper);
      EXPECT_LE(result.evaluations, tiny.size());
      ASSERT_TRUE(result.trace.best()) << "seed " << seed;
    }
  }
}

// On a small space a population sized for GPU spaces is mostly a random sample: the population strategies use at most
// one member per 32 configurations (strategies/toolkit.hpp, population_size). So on 114 configurations two sizes
// above that both shrink to the strategy's minimum and search identically, while on 2,922 they differ.
TEST(PopulationStrategies, ShrinkTheirPopulationOnSmallSpaces) {
  const SearchSpace small = SearchSpace::build(ProblemBuilder("small")
                                                   .parameter("a", {1, 2, 3, 4, 5, 6, 7, 8})
                                                   .parameter("b", {1, 2, 3, 4, 5, 6})
                                                   .parameter("c", {1, 2, 3})
                                                   .constraint("a * b <= 24")
                                                   .build());
  ASSERT_EQ(small.size(), 114u);
  Budget budget;
  budget.max_evaluations = 40;
  auto indices = [](const TuningResult& r) {
    std::vector<std::size_t> out;
    for (const auto& e : r.trace.entries()) out.push_back(e.index);
    return out;
  };
  for (const char* name : {"genetic_algorithm", "diff_evo", "pso", "firefly_algorithm", "bayes_opt"}) {
    SCOPED_TRACE(name);
    const auto& info = *find_strategy(name);
    std::int64_t popsize = 0;
    for (const auto& h : info.hyperparameters)
      if (h.name == "popsize") popsize = h.default_value.as_int();
    // Two requested sizes above the cap of the small space (114 configurations: at most 3-5 members): the same run
    // there, different runs on a large space.
    ASSERT_GT(popsize, 0);
    const std::vector<std::pair<std::string, Value>> some = {{"popsize", Value(std::int64_t{12})}},
                                                      more = {{"popsize", Value(std::int64_t{24})}};
    EXPECT_EQ(indices(run(info, small, 7, budget, some)), indices(run(info, small, 7, budget, more)));
    EXPECT_NE(indices(run(info, constrained_space(), 7, budget, some)),
              indices(run(info, constrained_space(), 7, budget, more)));
  }
}

std::vector<std::string> registered() {
  std::vector<std::string> names;
  for (const auto& s : strategy_registry()) names.push_back(s.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryStrategy, ::testing::ValuesIn(registered()),
                         [](const auto& info) { return info.param; });

// The "OptAlg" use case: a strategy written by a user, registered at run time, run like ours.
class CoordinateDescent final : public Strategy {
 public:
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    for (;;) {
      std::size_t current = static_cast<std::size_t>(rng.below(space.size()));
      for (bool improved = true; improved;) {
        improved = false;
        for (std::size_t n : space.neighbours(current, NeighbourMethod::Hamming))
          if (cost(n) < cost(current)) {
            current = n;
            improved = true;
          }
      }
    }
  }
};

TEST(UserStrategy, RegisteredAtRunTimeAndRunLikeOurs) {
  register_strategy({"my_descent", "coordinate descent from random starts", {},
                     [](const Hyperparameters&) { return std::make_unique<CoordinateDescent>(); }});
  EXPECT_THROW(register_strategy({"my_descent", "again", {}, [](const Hyperparameters&) {
                                    return std::make_unique<CoordinateDescent>();
                                  }}),
               std::invalid_argument);
  ASSERT_NE(find_strategy("my_descent"), nullptr);
  Budget budget;
  budget.max_evaluations = 500;
  const auto result = run(*find_strategy("my_descent"), constrained_space(), 1, budget);
  EXPECT_EQ(result.evaluations, 500u);
  EXPECT_EQ(result.stop_reason, StopReason::max_evaluations);
}

}  // namespace every_strategy_test
}  // namespace
}  // namespace ktune
