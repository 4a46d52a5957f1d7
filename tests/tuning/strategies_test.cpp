// The strategy registry, typed hyperparameters, and the two baseline strategies run through tune().
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {
namespace {
namespace strategies_test {

using testing::FakeEvaluator;

SearchSpace space_with_constraints() {
  // Constraints make the solver choose its own parameter order; brute_force must still use the declared one.
  return SearchSpace::build(ProblemBuilder("s")
                                .parameter("a", {1, 2, 3, 4})
                                .parameter("b", {1, 2, 4, 8, 16, 32})
                                .parameter("c", {0, 1})
                                .parameter("d", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
                                .constraint("b % d == 0")
                                .constraint("a * b <= 64")
                                .build());
}

double value_of(std::size_t i) { return static_cast<double>((i * 7919) % 1009); }
double time_of(std::size_t i) { return 1.0 + static_cast<double>(i % 5); }

TEST(Registry, ListsBruteForceAndRandomSample) {
  std::vector<std::string> names;
  for (const auto& s : strategy_registry()) names.push_back(s.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "brute_force"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "random_sample"), names.end());
  for (const auto& s : strategy_registry()) {
    EXPECT_FALSE(s.description.empty()) << s.name;
    for (const auto& h : s.hyperparameters) EXPECT_FALSE(h.description.empty()) << s.name << "." << h.name;
  }
}

TEST(Registry, UnknownStrategyListsTheKnownOnes) {
  try {
    make_strategy("simulated_anealing");
    FAIL();
  } catch (const HyperparameterError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown strategy 'simulated_anealing'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("random_sample"), std::string::npos) << e.what();
  }
}

TEST(Hyperparameters, UnknownNameListsTheValidOnes) {
  try {
    make_strategy("random_sample", {{"fractoin", Value(0.5)}});
    FAIL();
  } catch (const HyperparameterError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no hyperparameter 'fractoin'"), std::string::npos) << m;
    EXPECT_NE(m.find("fraction (float in (0, 1])"), std::string::npos) << m;
  }
  EXPECT_THROW(make_strategy("brute_force", {{"x", Value(1)}}), HyperparameterError);
}

TEST(Hyperparameters, TypesAndRangesAreChecked) {
  EXPECT_THROW(make_strategy("random_sample", {{"fraction", Value(1.5)}}), HyperparameterError);
  EXPECT_THROW(make_strategy("random_sample", {{"fraction", Value(0.0)}}), HyperparameterError);
  EXPECT_THROW(make_strategy("random_sample", {{"fraction", Value("half")}}), HyperparameterError);
  EXPECT_NO_THROW(make_strategy("random_sample", {{"fraction", Value(1)}}));  // int accepted for float

  const std::vector<HyperparameterSpec> specs{
      {"popsize", HyperparameterType::Int, Value(20), 2.0, 1000.0, {}, "population size"},
      {"method", HyperparameterType::String, Value("best1bin"), {}, {}, {"best1bin", "rand1bin"}, "mutation"},
      {"elitism", HyperparameterType::Bool, Value(true), {}, {}, {}, "keep the best"}};
  const auto h = Hyperparameters::resolve("x", specs, {{"popsize", Value(30.0)}});
  EXPECT_EQ(h.get_int("popsize"), 30);
  EXPECT_EQ(h.get_string("method"), "best1bin");
  EXPECT_TRUE(h.get_bool("elitism"));
  EXPECT_THROW(Hyperparameters::resolve("x", specs, {{"popsize", Value(2.5)}}), HyperparameterError);
  EXPECT_THROW(Hyperparameters::resolve("x", specs, {{"method", Value("best2")}}), HyperparameterError);
  EXPECT_THROW(Hyperparameters::resolve("x", specs, {{"elitism", Value(1)}}), HyperparameterError);

  EXPECT_EQ(parse_hyperparameter_text("x", specs[0], "40").as_int(), 40);
  EXPECT_THROW(parse_hyperparameter_text("x", specs[0], "4O"), HyperparameterError);
  EXPECT_THROW(parse_hyperparameter_text("x", specs[0], "1"), HyperparameterError);  // below the minimum
  EXPECT_EQ(parse_hyperparameter_text("x", specs[1], "rand1bin").as_string(), "rand1bin");
  EXPECT_FALSE(parse_hyperparameter_text("x", specs[2], "false").as_bool());
  EXPECT_THROW(parse_hyperparameter_text("x", specs[2], "maybe"), HyperparameterError);
}

TEST(BruteForce, EvaluatesEveryConfigurationOnceInDeclaredLexicographicOrder) {
  const auto space = space_with_constraints();
  FakeEvaluator eval(space, value_of, time_of);
  auto strategy = make_strategy("brute_force");
  const auto result = tune(space, eval, *strategy, {});
  ASSERT_EQ(eval.calls.size(), space.size());
  EXPECT_EQ(std::set<std::size_t>(eval.calls.begin(), eval.calls.end()).size(), space.size());
  for (std::size_t i = 1; i < eval.calls.size(); ++i)
    EXPECT_LT(space.config_at(eval.calls[i - 1]), space.config_at(eval.calls[i]));
  EXPECT_EQ(result.evaluations, space.size());
  EXPECT_EQ(result.stop_reason, StopReason::space_exhausted);
  // The optimum and the clock.
  std::size_t best = 0;
  double clock = 0;
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (value_of(i) < value_of(best)) best = i;
    clock += time_of(i);
  }
  ASSERT_TRUE(result.trace.best());
  EXPECT_EQ(result.trace[*result.trace.best()].index, best);
  EXPECT_DOUBLE_EQ(result.clock_ms, clock);
}

TEST(BruteForce, RespectsMaxEvaluations) {
  const auto space = space_with_constraints();
  FakeEvaluator eval(space, value_of, time_of);
  auto strategy = make_strategy("brute_force");
  TuningOptions options;
  options.budget.max_evaluations = 10;
  const auto result = tune(space, eval, *strategy, options);
  EXPECT_EQ(result.evaluations, 10u);
  EXPECT_EQ(result.trace.size(), 10u);
  EXPECT_EQ(result.stop_reason, StopReason::max_evaluations);
}

std::vector<std::size_t> random_trace(const SearchSpace& space, std::uint64_t seed, TuningOptions options = {},
                                      std::vector<std::pair<std::string, Value>> hyper = {}) {
  FakeEvaluator eval(space, value_of, time_of);
  auto strategy = make_strategy("random_sample", hyper);
  options.seed = seed;
  const auto result = tune(space, eval, *strategy, options);
  std::vector<std::size_t> indices;
  for (const auto& e : result.trace.entries()) indices.push_back(e.index);
  return indices;
}

TEST(RandomSample, SameSeedSameTraceWithoutRepetition) {
  const auto space = space_with_constraints();
  const auto a = random_trace(space, 42), b = random_trace(space, 42), c = random_trace(space, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a.size(), space.size());  // no budget: the whole space, each once
  EXPECT_EQ(std::set<std::size_t>(a.begin(), a.end()).size(), space.size());
}

TEST(RandomSample, FractionAndBudget) {
  const auto space = space_with_constraints();
  const auto n = space.size();
  EXPECT_EQ(random_trace(space, 1, {}, {{"fraction", Value(0.25)}}).size(),
            static_cast<std::size_t>(std::ceil(0.25 * static_cast<double>(n))));
  TuningOptions options;
  options.budget.max_evaluations = 7;
  const auto limited = random_trace(space, 1, options);
  EXPECT_EQ(limited.size(), 7u);
  // The budget cuts the same sequence short.
  const auto full = random_trace(space, 1);
  EXPECT_TRUE(std::equal(limited.begin(), limited.end(), full.begin()));
}

TEST(RandomSample, IsRoughlyUniform) {
  const auto space = space_with_constraints();
  std::vector<int> first_hits(space.size(), 0);
  const int runs = 4000;
  for (int s = 0; s < runs; ++s) {
    TuningOptions options;
    options.budget.max_evaluations = 1;
    ++first_hits[random_trace(space, static_cast<std::uint64_t>(s), options).front()];
  }
  const double expected = static_cast<double>(runs) / static_cast<double>(space.size());
  double chi2 = 0;
  for (int h : first_hits) chi2 += (h - expected) * (h - expected) / expected;
  // Degrees of freedom = size - 1 (a few dozen); this bound fails only for a grossly non-uniform sampler.
  EXPECT_LT(chi2, 3.0 * static_cast<double>(space.size()));
}

class SwallowingStrategy final : public Strategy {
 public:
  void run(const SearchSpace& space, CostFunction& cost, Rng&) override {
    for (std::size_t i = 0; i < space.size(); ++i) cost(i);
    finished = true;
  }
  bool finished = false;
};

TEST(Tune, BudgetEndStopsAnyStrategyAtOnce) {
  const auto space = space_with_constraints();
  FakeEvaluator eval(space, value_of, time_of);
  SwallowingStrategy strategy;
  TuningOptions options;
  options.budget.time_limit_seconds = 0.010;  // 10 ms: a few evaluations of 1-5 ms
  const auto result = tune(space, eval, strategy, options);
  EXPECT_FALSE(strategy.finished);
  EXPECT_EQ(result.stop_reason, StopReason::time_limit);
  EXPECT_GE(result.clock_ms, 10.0);
  EXPECT_LT(result.clock_ms - result.trace[result.trace.size() - 1].charged_ms, 10.0);
}

}  // namespace strategies_test
}  // namespace
}  // namespace ktune
