// The cost function's rules: memoised revisits, the tuning clock, every budget kind, failures, directions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"

namespace ktune {
namespace {

using testing::FakeEvaluator;
constexpr double kInf = std::numeric_limits<double>::infinity();

SearchSpace small_space() {
  // 8 x 8 with a constraint: 36 valid configurations.
  return SearchSpace::build(ProblemBuilder("small")
                                .parameter("x", {1, 2, 3, 4, 5, 6, 7, 8})
                                .parameter("y", {1, 2, 3, 4, 5, 6, 7, 8})
                                .constraint("x <= y")
                                .build());
}

CostFunctionOptions with_budget(const Budget& budget) {
  CostFunctionOptions options;
  options.budget = budget;
  return options;
}

double value_of(std::size_t i) { return 100.0 - static_cast<double>((i * 37) % 101); }
double time_of(std::size_t i) { return 10.0 + static_cast<double>(i % 7); }

TEST(CostFunction, RevisitsAreFreeAndNotCounted) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  CostFunction cost(space, eval, {});
  EXPECT_EQ(cost(3), value_of(3));
  EXPECT_EQ(cost(5), value_of(5));
  EXPECT_EQ(cost(3), value_of(3));
  EXPECT_EQ(cost.evaluations(), 2u);
  EXPECT_EQ(eval.calls, (std::vector<std::size_t>{3, 5}));
  EXPECT_DOUBLE_EQ(cost.clock_ms(), time_of(3) + time_of(5));
  EXPECT_TRUE(cost.known(3));
  EXPECT_FALSE(cost.known(4));
  ASSERT_EQ(cost.trace().size(), 2u);
  EXPECT_EQ(cost.trace()[1].index, 5u);
  EXPECT_DOUBLE_EQ(cost.trace()[1].clock_ms, time_of(3) + time_of(5));
  EXPECT_DOUBLE_EQ(cost.trace()[1].charged_ms, time_of(5));
}

// Every request in order, as a listener hears it: trace positions, revisits marked.
struct RequestLog final : TuningListener {
  std::vector<std::pair<std::size_t, bool>> requests;  // (trace position, revisit)
  void on_evaluation(const CostFunction&, std::size_t position) override { requests.emplace_back(position, false); }
  void on_revisit(const CostFunction&, std::size_t position) override { requests.emplace_back(position, true); }
};

TEST(CostFunction, ListenersHearEveryRevisitWithItsTracePosition) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  RequestLog log;
  CostFunctionOptions options;
  options.listeners = {&log};
  CostFunction cost(space, eval, options);
  cost(3);
  cost(5);
  cost(3);
  cost(3);
  cost(5);
  const std::vector<std::uint32_t> config = space.config_at(5);
  cost(std::span<const std::uint32_t>(config));  // by values: the same configuration
  EXPECT_EQ(log.requests, (std::vector<std::pair<std::size_t, bool>>{
                              {0, false}, {1, false}, {0, true}, {0, true}, {1, true}, {1, true}}));
  EXPECT_EQ(cost.evaluations(), 2u);
}

TEST(CostFunction, MaxEvaluationsStopsExactlyAndLaterCallsThrow) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  Budget budget;
  budget.max_evaluations = 4;
  CostFunction cost(space, eval, with_budget(budget));
  for (std::size_t i = 0; i < 4; ++i) cost(i * 2);
  EXPECT_TRUE(cost.exhausted());
  EXPECT_EQ(cost.stop_reason(), StopReason::max_evaluations);
  EXPECT_THROW(cost(1), BudgetExhausted);
  EXPECT_THROW(cost(0), BudgetExhausted);  // even a revisit: the strategy must stop at once
  EXPECT_EQ(cost.evaluations(), 4u);
  EXPECT_DOUBLE_EQ(cost.budget_spent_fraction(), 1.0);
}

TEST(CostFunction, FractionOfTheSpaceRoundsUp) {
  const auto space = small_space();  // 36
  FakeEvaluator eval(space, value_of, time_of);
  Budget budget;
  budget.max_fraction = 0.1;  // ceil(3.6) = 4
  CostFunction cost(space, eval, with_budget(budget));
  std::size_t done = 0;
  try {
    for (std::size_t i = 0; i < space.size(); ++i, ++done) cost(i);
  } catch (const BudgetExhausted&) {
  }
  EXPECT_EQ(done, 4u);
  EXPECT_EQ(cost.evaluations(), 4u);
}

TEST(CostFunction, TimeLimitOnTheSimulatedClock) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, [](std::size_t) { return 300.0; });  // 0.3 s each
  Budget budget;
  budget.time_limit_seconds = 1.0;
  CostFunction cost(space, eval, with_budget(budget));
  std::size_t done = 0;
  try {
    for (std::size_t i = 0; i < space.size(); ++i, ++done) cost(i);
  } catch (const BudgetExhausted&) {
  }
  // The limit is checked before each evaluation, so the one that crosses it completes: 4 x 0.3 s = 1.2 s.
  EXPECT_EQ(done, 4u);
  EXPECT_EQ(cost.stop_reason(), StopReason::time_limit);
  EXPECT_DOUBLE_EQ(cost.clock_ms(), 1200.0);
}

TEST(CostFunction, TargetStopsAtTheFirstGoodEnoughResult) {
  const auto space = small_space();
  FakeEvaluator eval(space, [](std::size_t i) { return 50.0 - static_cast<double>(i); }, time_of);
  Budget budget;
  budget.target = 45.5;  // reached at index 5 (45)
  CostFunction cost(space, eval, with_budget(budget));
  std::size_t done = 0;
  try {
    for (std::size_t i = 0; i < space.size(); ++i, ++done) cost(i);
  } catch (const BudgetExhausted&) {
  }
  EXPECT_EQ(done, 6u);
  EXPECT_EQ(cost.stop_reason(), StopReason::target_reached);
}

TEST(CostFunction, TargetWhenMaximising) {
  const auto space = small_space();
  FakeEvaluator eval(space, [](std::size_t i) { return static_cast<double>(i); }, time_of, {{"GFLOP/s", true}});
  Budget budget;
  budget.target = 3;
  CostFunction cost(space, eval, with_budget(budget));
  EXPECT_EQ(cost(1), -1.0);  // negated: strategies minimise
  EXPECT_FALSE(cost.exhausted());
  EXPECT_EQ(cost(3), -3.0);
  EXPECT_EQ(cost.stop_reason(), StopReason::target_reached);
  EXPECT_EQ(cost.trace().best(), 1u);
}

TEST(CostFunction, CombinedBudgetsEndAtTheFirstLimit) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, [](std::size_t) { return 100.0; });
  Budget budget;
  budget.max_evaluations = 20;
  budget.time_limit_seconds = 0.5;
  CostFunction cost(space, eval, with_budget(budget));
  std::size_t done = 0;
  try {
    for (std::size_t i = 0; i < space.size(); ++i, ++done) cost(i);
  } catch (const BudgetExhausted&) {
  }
  EXPECT_EQ(done, 5u);
  EXPECT_EQ(cost.stop_reason(), StopReason::time_limit);
}

TEST(CostFunction, FailuresCostInfinityButAreChargedAndCounted) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  eval.failing = {2};
  CostFunction cost(space, eval, {});
  EXPECT_EQ(cost(2), kInf);
  EXPECT_EQ(cost.evaluations(), 1u);
  EXPECT_DOUBLE_EQ(cost.clock_ms(), time_of(2));
  EXPECT_EQ(cost.trace()[0].status, Status::runtime_failed);
  EXPECT_FALSE(cost.trace().best().has_value());
  cost(4);
  EXPECT_EQ(cost.trace().best(), 1u);
}

TEST(CostFunction, BatchStopsMidwayKeepingThePrefix) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  Budget budget;
  budget.max_evaluations = 3;
  CostFunction cost(space, eval, with_budget(budget));
  std::vector<std::size_t> batch{0, 1, 1, 2, 3, 4};
  std::vector<double> costs(batch.size(), -1);
  EXPECT_THROW(cost(batch, costs), BudgetExhausted);
  EXPECT_EQ(cost.evaluations(), 3u);
  EXPECT_EQ(costs[2], value_of(1));  // the revisit inside the batch was free
  EXPECT_EQ(costs[3], value_of(2));
  EXPECT_EQ(costs[4], -1);
}

TEST(CostFunction, ChargingStrategyTimeAddsTheMeasuredTime) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, [](std::size_t) { return 1.0; });
  CostFunctionOptions options;
  options.charge_strategy_time = true;
  CostFunction cost(space, eval, options);
  for (std::size_t i = 0; i < 5; ++i) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    while (std::chrono::steady_clock::now() < until) {
    }
    cost(i);
  }
  double strategy = 0;
  for (const auto& e : cost.trace().entries()) strategy += e.strategy_ms;
  EXPECT_GE(strategy, 10.0);
  EXPECT_DOUBLE_EQ(cost.clock_ms(), 5.0 + strategy);
}

TEST(CostFunction, StrategyTimeIsMeasuredButNotChargedByDefault) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, [](std::size_t) { return 1.0; });
  CostFunction cost(space, eval, {});
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
  while (std::chrono::steady_clock::now() < until) {
  }
  cost(0);
  EXPECT_GE(cost.trace()[0].strategy_ms, 2.0);
  EXPECT_DOUBLE_EQ(cost.clock_ms(), 1.0);
}

TEST(CostFunction, EvaluatingTheWholeSpaceEndsIt) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  CostFunction cost(space, eval, {});
  for (std::size_t i = 0; i < space.size(); ++i) cost(i);
  EXPECT_EQ(cost.stop_reason(), StopReason::space_exhausted);
}

TEST(CostFunction, ResumedResultsAreKnownFreeAndNotCounted) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  CostFunction cost(space, eval, {});
  const double v = 7.5;
  cost.add_resumed(6, Status::ok, std::span<const double>(&v, 1));
  EXPECT_TRUE(cost.known(6));
  EXPECT_EQ(cost(6), 7.5);
  EXPECT_EQ(cost.evaluations(), 0u);
  EXPECT_TRUE(eval.calls.empty());
  EXPECT_EQ(cost.clock_ms(), 0.0);
  EXPECT_TRUE(cost.trace()[0].resumed);
}

TEST(CostFunction, ResumedResultsCountTowardTheEvaluationBudget) {
  const auto space = small_space();
  const double v = 7.5;
  Budget budget;
  budget.max_evaluations = 3;
  {
    FakeEvaluator eval(space, value_of, time_of);
    CostFunction cost(space, eval, with_budget(budget));
    cost.add_resumed(6, Status::ok, std::span<const double>(&v, 1));
    cost.add_resumed(7, Status::ok, std::span<const double>(&v, 1));
    EXPECT_EQ(cost.budget_used(), 2u);
    EXPECT_EQ(cost(1), value_of(1));
    EXPECT_TRUE(cost.exhausted());
    EXPECT_EQ(cost.evaluations(), 1u);
    EXPECT_EQ(cost.stop_reason(), StopReason::max_evaluations);
  }
  {
    // As many resumed as the budget: nothing is measured at all.
    FakeEvaluator eval(space, value_of, time_of);
    CostFunction cost(space, eval, with_budget(budget));
    for (std::size_t i = 0; i < 3; ++i) cost.add_resumed(i, Status::ok, std::span<const double>(&v, 1));
    EXPECT_TRUE(cost.exhausted());
    EXPECT_THROW(cost(10), BudgetExhausted);
    EXPECT_TRUE(eval.calls.empty());
  }
  {
    CostFunctionOptions options = with_budget(budget);
    options.resumed_count_toward_budget = false;
    FakeEvaluator eval(space, value_of, time_of);
    CostFunction cost(space, eval, options);
    for (std::size_t i = 0; i < 3; ++i) cost.add_resumed(i, Status::ok, std::span<const double>(&v, 1));
    EXPECT_FALSE(cost.exhausted());
    for (std::size_t i = 10; i < 13; ++i) cost(i);
    EXPECT_EQ(cost.evaluations(), 3u);
  }
}

TEST(CostFunction, AllObjectivesAsCosts) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of, {{"time", false}, {"GFLOP/s", true}});
  CostFunction cost(space, eval, {});
  const auto c = cost.costs(2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], value_of(2));
  EXPECT_EQ(c[1], -value_of(2));
}

TEST(CostFunction, RejectsABadBudget) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  Budget budget;
  budget.max_fraction = 1.5;
  EXPECT_THROW(CostFunction(space, eval, with_budget(budget)), std::invalid_argument);
  budget = {};
  budget.time_limit_seconds = -1;
  EXPECT_THROW(CostFunction(space, eval, with_budget(budget)), std::invalid_argument);
}

TEST(Objectives, DirectionsAreInferredLikeKernelTuner) {
  EXPECT_EQ(infer_higher_is_better("time"), false);
  EXPECT_EQ(infer_higher_is_better("energy"), false);
  EXPECT_EQ(infer_higher_is_better("kernel_time"), false);
  EXPECT_EQ(infer_higher_is_better("GFLOP/s"), true);
  EXPECT_EQ(infer_higher_is_better("GB/s"), true);
  EXPECT_EQ(infer_higher_is_better("score"), true);
  EXPECT_EQ(infer_higher_is_better("GFLOPS/W"), true);
  EXPECT_EQ(infer_higher_is_better("temperature"), std::nullopt);
  EXPECT_EQ(infer_higher_is_better("error"), false);
  EXPECT_EQ(infer_higher_is_better("RMSE"), false);
  EXPECT_EQ(infer_higher_is_better("max_relative_error"), false);
  EXPECT_EQ(infer_higher_is_better("powercap_energy"), false);
  EXPECT_THROW(make_objectives({"temperature"}), std::invalid_argument);
  EXPECT_TRUE(make_objectives({"temperature"}, {true}).front().higher_is_better);
  EXPECT_FALSE(make_objectives({"GB/s"}, {false}).front().higher_is_better);
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

TEST(CostFunction, InvalidConfigurationsCostThePenaltyWithoutEvaluation) {
  const auto space = small_space();  // x <= y
  testing::FakeEvaluator eval(space, value_of, time_of);
  CostFunction cost(space, eval, {});
  const std::vector<std::uint32_t> invalid{5, 2}, valid{2, 5};
  EXPECT_EQ(cost(invalid), CostFunction::kInvalidCost);
  EXPECT_EQ(cost.invalid_requests(), 1u);
  EXPECT_EQ(cost.evaluations(), 0u);
  EXPECT_TRUE(eval.calls.empty());
  const double c = cost(valid);
  EXPECT_EQ(c, value_of(*space.index_of(valid)));
  EXPECT_EQ(cost.evaluations(), 1u);
}

TEST(CostFunction, AStrategyThatNeverProgressesIsStopped) {
  const auto space = small_space();
  testing::FakeEvaluator eval(space, value_of, time_of);
  CostFunction cost(space, eval, {});
  cost(0);
  EXPECT_THROW(
      for (;;) cost(0), BudgetExhausted);
  EXPECT_EQ(cost.stop_reason(), StopReason::stalled);
}

// A stage (auto's first strategy) ends after its new evaluations: the next new one throws StageEnded, a revisit is
// still answered, and once the stage is lifted the run goes on to its own budget.
TEST(CostFunction, AStageEndsAfterItsNewEvaluationsAndTheRunGoesOn) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  Budget budget;
  budget.max_evaluations = 5;
  CostFunction cost(space, eval, with_budget(budget));
  cost(0);
  cost.begin_stage(2);
  cost(1);
  cost(2);
  EXPECT_THROW(cost(3), StageEnded);
  EXPECT_EQ(cost(1), value_of(1));
  EXPECT_FALSE(cost.exhausted());
  EXPECT_EQ(cost.evaluations(), 3u);
  cost.end_stage();
  cost(3);
  cost(4);
  EXPECT_TRUE(cost.exhausted());
  try {
    cost(5);
    FAIL() << "the run's budget is spent";
  } catch (const StageEnded&) {
    FAIL() << "the run's end is not a stage's";
  } catch (const BudgetExhausted&) {
  }
  EXPECT_EQ(eval.calls, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

// A run whose budget ends inside a stage ends as a run (BudgetExhausted, not StageEnded): auto does not hand over.
TEST(CostFunction, TheRunsBudgetEndsAStageAsTheRun) {
  const auto space = small_space();
  FakeEvaluator eval(space, value_of, time_of);
  Budget budget;
  budget.max_evaluations = 2;
  CostFunction cost(space, eval, with_budget(budget));
  cost.begin_stage(10);
  cost(0);
  cost(1);
  bool stage_ended = false;
  try {
    cost(2);
  } catch (const StageEnded&) {
    stage_ended = true;
  } catch (const BudgetExhausted&) {
  }
  EXPECT_FALSE(stage_ended);
  EXPECT_EQ(cost.stop_reason(), StopReason::max_evaluations);
}

}  // namespace
}  // namespace ktune
