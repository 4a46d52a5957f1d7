// The generated optimisers (hybrid_vndx, adaptive_tabu_greywolf) and the ensembles (round_robin, auc_bandit): their
// shared pieces (unevaluated sampler, archive, ask/tell techniques) and what their hyperparameters change.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/tune.hpp"
#include "strategies/technique.hpp"

namespace ktune {
namespace {
namespace generated_test {

using testing::FakeEvaluator;

const SearchSpace& space() {
  static const SearchSpace s = SearchSpace::build(ProblemBuilder("generated")
                                                      .parameter("bx", {1, 2, 4, 8, 16, 32, 64, 128})
                                                      .parameter("by", {1, 2, 4, 8, 16, 32})
                                                      .parameter("tx", {1, 2, 3, 4, 5})
                                                      .parameter("ty", {1, 2, 3, 4})
                                                      .parameter("unroll", {0, 1, 2})
                                                      .constraint("32 <= bx * by <= 1024")
                                                      .constraint("tx * ty <= 12")
                                                      .build());
  return s;
}

// A rugged bowl: a smooth part plus a deterministic pseudo-random part, so local search alone does not suffice.
double landscape(std::size_t index) {
  const auto c = space().config_at(index);
  const double target[] = {5, 1, 2, 2, 1};
  double v = 1.0;
  for (std::size_t p = 0; p < c.size(); ++p) v += 0.5 * (c[p] - target[p]) * (c[p] - target[p]);
  return v + static_cast<double>((index * 2654435761u) % 97) / 100.0;
}

struct Run {
  TuningResult result;
  std::uint64_t invalid_requests = 0;
};

Run run(const std::string& name, std::uint64_t seed, std::uint64_t evaluations,
        std::vector<std::pair<std::string, Value>> hyper = {}) {
  FakeEvaluator eval(space(), landscape, [](std::size_t) { return 1.0; });
  auto strategy = make_strategy(name, hyper);
  struct Counting final : Strategy {
    Strategy& inner;
    std::uint64_t* invalid;
    Counting(Strategy& s, std::uint64_t* i) : inner(s), invalid(i) {}
    void run(const SearchSpace& sp, CostFunction& cost, Rng& rng) override {
      try {
        inner.run(sp, cost, rng);
      } catch (...) {
        *invalid = cost.invalid_requests();
        throw;
      }
      *invalid = cost.invalid_requests();
    }
  };
  std::uint64_t invalid = 0;
  Counting counting(*strategy, &invalid);
  TuningOptions options;
  options.seed = seed;
  options.budget.max_evaluations = evaluations;
  auto result = tune(space(), eval, counting, options);
  return Run{std::move(result), invalid};
}

std::vector<std::uint32_t> indices(const TuningResult& r) {
  std::vector<std::uint32_t> out;
  for (const auto& e : r.trace.entries()) out.push_back(e.index);
  return out;
}

double best_cost(const TuningResult& r) { return r.trace.cost(*r.trace.best()); }

double mean_best(const std::string& name, std::uint64_t evaluations,
                 std::vector<std::pair<std::string, Value>> hyper = {}) {
  double sum = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) sum += best_cost(run(name, seed, evaluations, hyper).result);
  return sum / 12.0;
}

// --- shared pieces ------------------------------------------------------------------------------------------------

TEST(UnevaluatedSampler, DrawsEveryConfigurationOnceThenNothing) {
  FakeEvaluator eval(space(), landscape, [](std::size_t) { return 1.0; });
  CostFunction cost(space(), eval, {});
  strategies::UnevaluatedSampler sampler;
  Rng rng(7);
  std::set<std::size_t> seen;
  for (std::size_t i = 0; i < space().size(); ++i) {
    const auto next = sampler.next(space(), cost, rng);
    ASSERT_TRUE(next.has_value()) << i;
    ASSERT_FALSE(cost.known(*next));
    seen.insert(*next);
    try {
      cost(*next);
    } catch (const BudgetExhausted&) {
    }
  }
  EXPECT_EQ(seen.size(), space().size());
  EXPECT_FALSE(sampler.next(space(), cost, rng).has_value());
}

TEST(Archive, KeepsTheBestDistinctConfigurationsInOrder) {
  strategies::Archive archive;
  archive.capacity = 3;
  archive.add(10, 5.0);
  archive.add(11, 3.0);
  archive.add(11, 3.0);  // a revisit is not a second member
  archive.add(12, 9.0);
  archive.add(13, 1.0);  // pushes out the worst (12)
  ASSERT_EQ(archive.elite.size(), 3u);
  EXPECT_EQ(archive.elite[0].index, 13u);
  EXPECT_EQ(archive.elite[1].index, 11u);
  EXPECT_EQ(archive.elite[2].index, 10u);
  archive.add(14, 20.0);  // worse than all, full: ignored
  EXPECT_EQ(archive.elite.back().index, 10u);
}

std::size_t hamming(const Config& a, const Config& b) {
  std::size_t d = 0;
  for (std::size_t p = 0; p < a.size(); ++p) d += a[p] != b[p];
  return d;
}

TEST(Techniques, ProposeOnlyValidUnevaluatedConfigurations) {
  for (auto& technique : strategies::make_default_techniques()) {
    FakeEvaluator eval(space(), landscape, [](std::size_t) { return 1.0; });
    CostFunction cost(space(), eval, {});
    strategies::Archive archive;
    Rng rng(3);
    for (int i = 0; i < 200; ++i) {
      const auto index = technique->ask(space(), cost, archive, rng);
      ASSERT_TRUE(index.has_value()) << technique->name();
      ASSERT_LT(*index, space().size());
      ASSERT_FALSE(cost.known(*index)) << technique->name() << " proposed a known configuration";
      const double c = cost(*index);
      technique->tell(space(), *index, c, rng);
      archive.add(*index, c);
    }
  }
}

TEST(Techniques, HillClimberExploresTheHammingNeighbourhoodOfItsStart) {
  FakeEvaluator eval(space(), landscape, [](std::size_t) { return 1.0; });
  CostFunction cost(space(), eval, {});
  strategies::Archive archive;
  Rng rng(5);
  auto climber = strategies::make_hill_climber_technique();
  const std::size_t start = *climber->ask(space(), cost, archive, rng);
  climber->tell(space(), start, cost(start), rng);
  const std::size_t next = *climber->ask(space(), cost, archive, rng);
  EXPECT_EQ(hamming(space().config_at(start), space().config_at(next)), 1u);
}

TEST(Techniques, PatternSearchStepsOneParameterFromTheBest) {
  FakeEvaluator eval(space(), landscape, [](std::size_t) { return 1.0; });
  CostFunction cost(space(), eval, {});
  strategies::Archive archive;
  Rng rng(9);
  const std::size_t seed_config = 17;
  archive.add(seed_config, cost(seed_config));
  auto pattern = strategies::make_pattern_technique();
  const std::size_t next = *pattern->ask(space(), cost, archive, rng);
  EXPECT_EQ(hamming(space().config_at(seed_config), space().config_at(next)), 1u);
}

// --- the strategies -------------------------------------------------------------------------------------------------

TEST(GeneratedStrategies, BeatRandomSearchOnARuggedBowl) {
  const double random = mean_best("random_sample", 100);
  for (const char* name : {"hybrid_vndx", "adaptive_tabu_greywolf", "auc_bandit", "round_robin"})
    EXPECT_LT(mean_best(name, 100), random) << name;
}

TEST(GeneratedStrategies, KeepSearchingAfterTheirInternalBudget) {
  // budget = 30 requests per run: the strategies must start fresh runs until the tuning budget ends.
  for (const char* name : {"hybrid_vndx", "adaptive_tabu_greywolf"}) {
    const auto r = run(name, 2, 250, {{"budget", Value(std::int64_t{30})}}).result;
    EXPECT_EQ(r.evaluations, 250u) << name;
    EXPECT_EQ(r.stop_reason, StopReason::max_evaluations) << name;
  }
}

TEST(GeneratedStrategies, ConstraintUnawareVariantsRequestInvalidConfigurations) {
  for (const char* name : {"hybrid_vndx", "adaptive_tabu_greywolf"}) {
    const auto aware = run(name, 4, 200);
    const auto unaware = run(name, 4, 200, {{"constraint_aware", Value(false)}});
    EXPECT_EQ(aware.invalid_requests, 0u) << name;
    EXPECT_GT(unaware.invalid_requests, 0u) << name;
  }
}

TEST(GeneratedStrategies, HyperparametersChangeTheSearch) {
  const std::vector<std::pair<std::string, std::vector<std::pair<std::string, Value>>>> variants = {
      {"hybrid_vndx", {{"k", Value(std::int64_t{1})}}},
      {"hybrid_vndx", {{"cand_pool", Value(std::int64_t{2})}}},
      {"hybrid_vndx", {{"elite_size", Value(std::int64_t{1})}}},
      {"adaptive_tabu_greywolf", {{"pack_size", Value(std::int64_t{4})}}},
      {"adaptive_tabu_greywolf", {{"shake_rate", Value(0.0)}}},
      {"auc_bandit", {{"c", Value(5.0)}}},
      {"auc_bandit", {{"window", Value(std::int64_t{10})}}},
      {"auc_bandit", {{"start_sample", Value(std::int64_t{1})}}},
      {"round_robin", {{"start_sample", Value(std::int64_t{1})}}},
  };
  for (const auto& [name, hyper] : variants) {
    const auto base = indices(run(name, 8, 200).result), changed = indices(run(name, 8, 200, hyper).result);
    EXPECT_NE(base, changed) << name << " " << hyper.front().first;
  }
}

TEST(GeneratedStrategies, EnsemblesEvaluateTheWholeSpaceWhenAllowed) {
  // Their techniques only propose unevaluated configurations, so they end exactly when the space is exhausted.
  for (const char* name : {"round_robin", "auc_bandit"}) {
    const auto r = run(name, 3, space().size()).result;
    EXPECT_EQ(r.evaluations, space().size()) << name;
    EXPECT_EQ(r.stop_reason, StopReason::space_exhausted) << name;
  }
}

}  // namespace generated_test
}  // namespace
}  // namespace ktune
