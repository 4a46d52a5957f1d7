// auto, the recommended default: pso with a time budget or an evaluation budget below 550, hybrid_vndx with an
// evaluation budget of 550 or more; it never spends an evaluation on choosing.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {
namespace {

const SearchSpace& space() {
  static const SearchSpace s = SearchSpace::build(ProblemBuilder("auto")
                                                      .parameter("bx", {1, 2, 4, 8, 16, 32, 64, 128})
                                                      .parameter("by", {1, 2, 4, 8, 16, 32})
                                                      .parameter("tx", {1, 2, 3, 4, 5})
                                                      .parameter("ty", {1, 2, 3, 4})
                                                      .parameter("u", {0, 1, 2})
                                                      .constraint("32 <= bx * by <= 1024")
                                                      .build());
  return s;
}

// Every configuration costs 10 ms on the tuning clock.
std::vector<std::size_t> trace_of(Strategy& strategy, const Budget& budget, std::uint64_t seed = 4) {
  testing::FakeEvaluator eval(space(), [](std::size_t i) { return 1.0 + static_cast<double>((i * 2654435761u) % 89); },
                              [](std::size_t) { return 10.0; });
  TuningOptions options;
  options.seed = seed;
  options.budget = budget;
  const TuningResult r = tune(space(), eval, strategy, options);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < r.trace.size(); ++i) out.push_back(r.trace[i].index);
  return out;
}

std::vector<std::size_t> trace_of(const std::string& name, const Budget& budget) {
  auto strategy = make_strategy(name);
  return trace_of(*strategy, budget);
}

TEST(Auto, AnEvaluationBudgetPicksTheStrategyWithoutAProbe) {
  Budget small, large;
  small.max_evaluations = 100;
  large.max_evaluations = 800;
  EXPECT_EQ(trace_of("auto", small), trace_of("pso", small));
  EXPECT_EQ(trace_of("auto", large), trace_of("hybrid_vndx", large));
  EXPECT_NE(trace_of("pso", large), trace_of("hybrid_vndx", large));
}

// No probe: with a time budget, small or large, and at a budget of a few evaluations, auto's every evaluation is
// PSO's (it used to spend three uniform samples first, half of a six-evaluation budget).
TEST(Auto, ATimeBudgetRunsPsoFromTheFirstEvaluation) {
  Budget tiny, small, large;
  tiny.time_limit_seconds = 0.06;  // 6 evaluations of 10 ms
  small.time_limit_seconds = 1.0;  // 100
  large.time_limit_seconds = 8.0;  // 800
  for (const Budget& b : {tiny, small, large}) EXPECT_EQ(trace_of("auto", b), trace_of("pso", b));
  Budget few;
  few.max_evaluations = 5;
  EXPECT_EQ(trace_of("auto", few), trace_of("pso", few));
  EXPECT_EQ(trace_of("auto", few).size(), 5u);
}

}  // namespace
}  // namespace ktune
