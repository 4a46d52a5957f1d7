// Learned failure avoidance (issue 38): the failure model's two views, and the cost function deferring a predicted
// failure a few times before it measures it; a failing region is then evaluated less.
#include <gtest/gtest.h>

#include <cmath>

#include "fake_evaluator.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/failure_model.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {
namespace {

Problem grid(int n) {
  std::vector<Value> values;
  for (int i = 0; i < n; ++i) values.emplace_back(i);
  return ProblemBuilder("grid").parameter("a", values).parameter("b", values).parameter("c", values).build();
}

// Configurations with a >= 6 fail: a hidden limit on one parameter.
bool over_the_limit(const SearchSpace& space, std::size_t index) { return space.value_index(index, 0) >= 6; }

TEST(FailureModel, LearnsAFailingRegionFromTheFailuresSeen) {
  const SearchSpace space = SearchSpace::build(grid(10));
  testing::FakeEvaluator evaluator(space, [](std::size_t i) { return 1.0 + static_cast<double>(i % 7); },
                                   [](std::size_t) { return 1.0; });
  for (std::size_t i = 0; i < space.size(); ++i)
    if (over_the_limit(space, i)) evaluator.failing.insert(i);
  CostFunction cost(space, evaluator, {});
  FailureModel model(space);
  Rng rng(3);
  // Before any failure nothing is predicted.
  model.update(cost.trace());
  EXPECT_FALSE(model.predicts_failure(space.size() - 1));
  for (int k = 0; k < 40; ++k) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
  model.update(cost.trace());
  ASSERT_GE(model.failures(), FailureModel::kMinFailures);
  std::size_t right = 0, wrongly_deferred = 0, total_failing = 0;
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (cost.known(i)) continue;
    const bool predicted = model.predicts_failure(i);
    if (over_the_limit(space, i)) {
      ++total_failing;
      right += predicted;
    } else {
      wrongly_deferred += predicted;
    }
  }
  EXPECT_GT(right * 10, total_failing * 8) << right << " of " << total_failing;   // most of the region
  EXPECT_LT(wrongly_deferred * 20, space.size()) << wrongly_deferred;             // few of the rest
}

TEST(FailureAvoidance, APredictedFailureIsDeferredThenMeasuredWhenAskedAgain) {
  const SearchSpace space = SearchSpace::build(grid(10));
  testing::FakeEvaluator evaluator(space, [](std::size_t) { return 1.0; }, [](std::size_t) { return 1.0; });
  for (std::size_t i = 0; i < space.size(); ++i)
    if (over_the_limit(space, i)) evaluator.failing.insert(i);
  CostFunctionOptions options;
  options.avoid_failures = true;
  CostFunction cost(space, evaluator, options);
  // Teach it: failures at a = 9, successes at a = 0.
  for (std::size_t b = 0; b < 10; ++b) {
    (void)cost(*space.index_of(std::vector<std::uint32_t>{9, static_cast<std::uint32_t>(b), 0}));
    (void)cost(*space.index_of(std::vector<std::uint32_t>{0, static_cast<std::uint32_t>(b), 0}));
  }
  // Once it has seen kMinFailures failures at a = 9, the rest of a = 9 is deferred already while it learns.
  const std::uint64_t measured = cost.evaluations(), deferred = cost.deferrals();
  EXPECT_GT(deferred, 0u);
  EXPECT_LT(measured, 20u);
  const std::size_t doomed = *space.index_of(std::vector<std::uint32_t>{9, 5, 5});
  for (unsigned k = 0; k < FailureModel::kDeferrals; ++k) {
    EXPECT_TRUE(std::isinf(cost(doomed)));
    EXPECT_EQ(cost.evaluations(), measured);  // answered, not measured
    EXPECT_FALSE(cost.known(doomed));
  }
  EXPECT_EQ(cost.deferrals(), deferred + FailureModel::kDeferrals);
  EXPECT_TRUE(std::isinf(cost(doomed)));  // asked once more: measured (and it does fail)
  EXPECT_EQ(cost.evaluations(), measured + 1);
  EXPECT_TRUE(cost.known(doomed));
  // A configuration the model does not doubt is measured at once.
  EXPECT_FALSE(std::isinf(cost(*space.index_of(std::vector<std::uint32_t>{1, 5, 5}))));
  EXPECT_EQ(cost.evaluations(), measured + 2);
}

TEST(FailureAvoidance, SearchesEvaluateFewerFailuresAndItIsOffByDefault) {
  const SearchSpace space = SearchSpace::build(grid(10));
  const auto value = [&](std::size_t i) {
    return 1.0 + std::abs(static_cast<double>(space.value_index(i, 0)) - 5.5) + 0.1 * space.value_index(i, 1);
  };
  std::uint64_t failed_off = 0, failed_on = 0, deferred = 0;
  for (const char* name : {"random_sample", "simulated_annealing", "pso"}) {
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      for (bool avoid : {false, true}) {
        testing::FakeEvaluator evaluator(space, value, [](std::size_t) { return 1.0; });
        for (std::size_t i = 0; i < space.size(); ++i)
          if (over_the_limit(space, i)) evaluator.failing.insert(i);
        auto strategy = make_strategy(name, {});
        TuningOptions options;
        options.budget.max_evaluations = 100;
        options.seed = seed;
        options.avoid_failures = avoid;
        const TuningResult result = tune(space, evaluator, *strategy, options);
        std::uint64_t failed = 0;
        for (const auto& e : result.trace.entries()) failed += e.status != Status::ok;
        (avoid ? failed_on : failed_off) += failed;
        if (avoid) deferred += result.deferred;
        else EXPECT_EQ(result.deferred, 0u);
      }
    }
  }
  EXPECT_GT(deferred, 0u);
  EXPECT_LT(failed_on * 10, failed_off * 8) << failed_on << " against " << failed_off;  // at least 20% fewer
}

}  // namespace
}  // namespace ktune
