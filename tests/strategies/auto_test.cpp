// auto, the recommended default: pso when the budget allows fewer than 550 evaluations, hybrid_vndx when it allows
// more; a time budget is converted into evaluations from the median cost of three uniform samples (random_sample's
// first configurations), which the chosen strategy then knows.
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
#include "ktune/uniform_sample_stream.hpp"

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

// What auto does with a time budget, written out: the probe, then the strategy the budget calls for.
class ProbeThen final : public Strategy {
 public:
  explicit ProbeThen(std::string then) : then_(std::move(then)) {}
  void run(const SearchSpace& s, CostFunction& cost, Rng& rng) override {
    UniformSampleStream probe(s.size(), rng);
    for (int i = 0; i < 3; ++i) cost(*probe.next_unevaluated(cost));
    make_strategy(then_)->run(s, cost, rng);
  }

 private:
  std::string then_;
};

TEST(Auto, AnEvaluationBudgetPicksTheStrategyWithoutAProbe) {
  Budget small, large;
  small.max_evaluations = 100;
  large.max_evaluations = 800;
  EXPECT_EQ(trace_of("auto", small), trace_of("pso", small));
  EXPECT_EQ(trace_of("auto", large), trace_of("hybrid_vndx", large));
  EXPECT_NE(trace_of("pso", large), trace_of("hybrid_vndx", large));
}

TEST(Auto, ATimeBudgetIsMeasuredByThreeUniformSamplesFirst) {
  Budget small, large;
  small.time_limit_seconds = 1.0;  // 100 evaluations of 10 ms
  large.time_limit_seconds = 8.0;  // 800
  ProbeThen pso("pso"), hybrid("hybrid_vndx");
  const auto got_small = trace_of("auto", small), got_large = trace_of("auto", large);
  EXPECT_EQ(got_small, trace_of(pso, small));
  EXPECT_EQ(got_large, trace_of(hybrid, large));
  // The probe is random_sample's first configurations.
  const auto random = trace_of("random_sample", small);
  ASSERT_GE(got_small.size(), 3u);
  EXPECT_EQ(std::vector<std::size_t>(got_small.begin(), got_small.begin() + 3),
            std::vector<std::size_t>(random.begin(), random.begin() + 3));
}

}  // namespace
}  // namespace ktune
