// auto, the recommended default: its first stage for the first `handover` evaluations, then its second stage from the
// best configurations found; it never spends an evaluation on choosing. The tests read the stages from auto's
// declared defaults, so they hold whatever the validation protocol chooses.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/strategy_toolkit.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

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

std::vector<std::size_t> trace_of(const std::string& name, const Budget& budget,
                                   const std::vector<std::pair<std::string, Value>>& settings = {}) {
  auto strategy = make_strategy(name, settings);
  return trace_of(*strategy, budget);
}

const Value& auto_default(const std::string& name) {
  for (const auto& h : find_strategy("auto")->hyperparameters)
    if (h.name == name) return h.default_value;
  throw std::logic_error("auto has no hyperparameter " + name);
}

// The first stage as auto runs it: bayes_opt with the pool and training-set cap it was chosen with (its own defaults
// are smaller since; auto.cpp).
std::vector<std::size_t> first_stage_trace(const std::string& first, const Budget& budget) {
  if (first != "bayes_opt") return trace_of(first, budget);
  return trace_of(first, budget,
                  {{"maxcandidates", Value(std::int64_t{2048})}, {"maxobservations", Value(std::int64_t{200})}});
}

std::vector<std::size_t> prefix(std::vector<std::size_t> v, std::size_t n) {
  v.resize(std::min(v.size(), n));
  return v;
}

// No probe: at every budget, time or evaluations, from 5 evaluations up, auto's first `handover` evaluations are its
// first stage's (it used to spend three uniform samples first, half of a six-evaluation budget).
TEST(Auto, ItsFirstEvaluationsAreItsFirstStagesAtEveryBudget) {
  const std::string first = auto_default("first").as_string();
  const auto handover = static_cast<std::size_t>(auto_default("handover").as_int());
  ASSERT_GT(handover, 0u);
  std::vector<Budget> budgets(6);
  budgets[0].time_limit_seconds = 0.06;  // 6 evaluations of 10 ms
  budgets[1].time_limit_seconds = 1.0;   // 100
  budgets[2].time_limit_seconds = 8.0;   // 800
  budgets[3].max_evaluations = 5;
  budgets[4].max_evaluations = handover;
  budgets[5].max_evaluations = handover + 150;
  for (const Budget& b : budgets) {
    const auto a = trace_of("auto", b), f = first_stage_trace(first, b);
    EXPECT_EQ(prefix(a, handover), prefix(f, handover));
  }
  EXPECT_EQ(trace_of("auto", budgets[3]).size(), 5u);
  EXPECT_EQ(trace_of("auto", budgets[4]), first_stage_trace(first, budgets[4]));
}

// After the handover the second stage spends the rest of the budget, and it is not the first stage going on.
TEST(Auto, TheSecondStageTakesOverAndSpendsTheRest) {
  const std::string first = auto_default("first").as_string();
  const auto handover = static_cast<std::size_t>(auto_default("handover").as_int());
  Budget b;
  b.max_evaluations = handover + 150;
  const auto a = trace_of("auto", b), f = first_stage_trace(first, b);
  ASSERT_EQ(a.size(), handover + 150);
  EXPECT_NE(a, f);
  // Without a second stage, auto is its first stage alone.
  EXPECT_EQ(trace_of("auto", b, {{"then", Value(std::string("none"))}}), f);
  EXPECT_EQ(trace_of("auto", b, {{"handover", Value(std::int64_t{0})}}), f);
  // Each second stage the protocol may choose takes over.
  for (const char* then : {"pso", "hybrid_vndx"}) {
    const auto t = trace_of("auto", b, {{"then", Value(std::string(then))}});
    EXPECT_EQ(t.size(), handover + 150) << then;
    EXPECT_EQ(prefix(t, handover), prefix(f, handover)) << then;
  }
}

// A strategy that takes over starts from the best configurations evaluated so far, best first.
TEST(Auto, TheBestEvaluatedAreWhatTheSecondStageStartsFrom) {
  testing::FakeEvaluator eval(
      space(), [](std::size_t i) { return i == 7 ? kInfinity : 100.0 - static_cast<double>(i % 50); },
      [](std::size_t) { return 10.0; });
  CostFunction cost(space(), eval, {});
  for (std::size_t i : {3, 7, 40, 12, 49, 99}) cost(i);  // costs 97, failed, 60, 88, 51, 51
  EXPECT_EQ(strategies::best_evaluated(cost, 3), (std::vector<std::size_t>{49, 99, 40}));
  EXPECT_EQ(strategies::best_evaluated(cost, 10), (std::vector<std::size_t>{49, 99, 40, 12, 3}));
}

}  // namespace
}  // namespace ktune
