// genetic_algorithm and diff_evo: every variant stays valid when constraint-aware and searches better than random,
// the classic (unaware) mode asks for invalid configurations, hyperparameters change the search, and both keep
// searching (restart / re-seed) until the budget or the space ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

#include "fake_evaluator.hpp"
#include "open_space.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {
namespace {
namespace evolutionary_test {

using testing::FakeEvaluator;
using testing::open_space;
using Settings = std::vector<std::pair<std::string, Value>>;

// 2,922 of 5,760 combinations valid.
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

// A bowl with ruggedness: the optimum is at a valid configuration in the interior.
double bowl(const SearchSpace& space, std::size_t index) {
  const auto c = space.config_at(index);
  const double target[] = {4, 2, 2, 1, 1, 1};
  double v = 1.0;
  for (std::size_t p = 0; p < c.size(); ++p) v += (c[p] - target[p]) * (c[p] - target[p]);
  return v + 0.1 * static_cast<double>((index * 2654435761u) % 7);
}

struct Outcome {
  TuningResult result;
  std::uint64_t invalid_requests = 0;
  double best = 0;
};

Outcome run(const std::string& name, const SearchSpace& space, std::uint64_t seed, std::uint64_t evaluations,
            const Settings& settings = {}) {
  FakeEvaluator eval(space, [&](std::size_t i) { return bowl(space, i); }, [](std::size_t) { return 1.0; });
  auto strategy = make_strategy(name, settings);
  struct Counting final : Strategy {
    Strategy& inner;
    std::uint64_t& invalid;
    Counting(Strategy& s, std::uint64_t& i) : inner(s), invalid(i) {}
    void run(const SearchSpace& sp, CostFunction& cost, Rng& rng) override {
      try {
        inner.run(sp, cost, rng);
      } catch (...) {
        invalid = cost.invalid_requests();
        throw;
      }
      invalid = cost.invalid_requests();
    }
  };
  std::uint64_t invalid = 0;
  Counting counting(*strategy, invalid);
  TuningOptions options;
  options.seed = seed;
  options.budget.max_evaluations = evaluations;
  auto result = tune(space, eval, counting, options);
  const double best = result.trace.best() ? bowl(space, result.trace[*result.trace.best()].index) : 1e300;
  return {std::move(result), invalid, best};
}

// Mean best cost over seeds 1..n.
double mean_best(const std::string& name, std::uint64_t evaluations, const Settings& settings = {}, int n = 12) {
  double sum = 0;
  for (int seed = 1; seed <= n; ++seed)
    sum += run(name, constrained_space(), static_cast<std::uint64_t>(seed), evaluations, settings).best;
  return sum / n;
}

std::vector<std::size_t> trace_indices(const TuningResult& r) {
  std::vector<std::size_t> out;
  for (const auto& e : r.trace.entries()) out.push_back(e.index);
  return out;
}

const std::vector<std::string> kCrossovers = {"single_point", "two_point", "uniform", "disruptive_uniform"};
const std::vector<std::string> kDeMethods = {
    "best1bin", "best1exp", "rand1bin", "rand1exp", "best2bin", "best2exp",
    "rand2bin", "rand2exp", "currenttobest1bin", "currenttobest1exp", "randtobest1bin", "randtobest1exp"};

TEST(GeneticAlgorithm, EveryCrossoverStaysValidUsesTheWholeBudgetAndFindsGoodConfigurations) {
  for (const auto& method : kCrossovers) {
    const auto out = run("genetic_algorithm", constrained_space(), 7, 400, {{"method", Value(method)}});
    EXPECT_EQ(out.invalid_requests, 0u) << method;
    EXPECT_EQ(out.result.evaluations, 400u) << method;
    EXPECT_EQ(out.result.stop_reason, StopReason::max_evaluations) << method;
    EXPECT_LT(out.best, 3.0) << method;  // the optimum is about 1; random search's best of 400 is about 3-4
  }
}

TEST(GeneticAlgorithm, CrossoverMethodsSearchDifferently) {
  std::vector<std::vector<std::size_t>> traces;
  for (const auto& method : kCrossovers)
    traces.push_back(
        trace_indices(run("genetic_algorithm", constrained_space(), 3, 150, {{"method", Value(method)}}).result));
  for (std::size_t a = 0; a < traces.size(); ++a)
    for (std::size_t b = a + 1; b < traces.size(); ++b)
      EXPECT_NE(traces[a], traces[b]) << kCrossovers[a] << " " << kCrossovers[b];
}

TEST(GeneticAlgorithm, MutationElitismAndSamplingChangeTheSearch) {
  const auto base = trace_indices(run("genetic_algorithm", constrained_space(), 3, 200).result);
  for (const Settings& s : {Settings{{"mutation_chance", Value(2)}}, Settings{{"elitism", Value(0)}},
                            Settings{{"sampling", Value("random")}}, Settings{{"popsize", Value(26)}},
                            Settings{{"mutation", Value("Hamming")}},
                            Settings{{"initial_popsize", Value(52)}}})
    EXPECT_NE(trace_indices(run("genetic_algorithm", constrained_space(), 3, 200, s).result), base) << s[0].first;
}

// Distinct values of parameter p among the configurations idx[from, to).
std::size_t distinct_values(const SearchSpace& space, const std::vector<std::size_t>& idx, std::size_t p,
                            std::size_t from, std::size_t to) {
  std::set<std::uint32_t> values;
  for (std::size_t k = from; k < to; ++k) values.insert(space.config_at(idx[k])[p]);
  return values.size();
}

TEST(GeneticAlgorithm, InitialPopsizeMakesTheFirstGenerationOneLargerLatinHypercube) {
  const auto& space = open_space();
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    // One Latin hypercube of 20 puts every one of the ten values of every parameter into the first generation.
    const auto large = trace_indices(
        run("genetic_algorithm", space, seed, 20, {{"popsize", Value(4)}, {"initial_popsize", Value(20)}}).result);
    ASSERT_EQ(large.size(), 20u);
    for (std::size_t p = 0; p < 5; ++p) EXPECT_EQ(distinct_values(space, large, p, 0, 20), 10u) << seed << " " << p;
    // Four individuals and their children recombine four values per parameter (mutation is rare): some are missing.
    const auto small = trace_indices(run("genetic_algorithm", space, seed, 20, {{"popsize", Value(4)}}).result);
    std::size_t least = 10;
    for (std::size_t p = 0; p < 5; ++p) least = std::min(least, distinct_values(space, small, p, 0, 20));
    EXPECT_LT(least, 10u) << seed;
  }
}

TEST(GeneticAlgorithm, AdjacentMutationMovesAGeneOneValueStep) {
  // Every gene of every child mutates (mutation_chance 1) and no parent survives (elitism 0), so each gene of the
  // second generation is a gene of the first, moved by the mutation: one step with Hamming-adjacent, anywhere with
  // Hamming.
  const auto& space = open_space();
  auto one_step_from_first_generation = [&](const std::vector<std::size_t>& idx) {
    for (std::size_t k = 4; k < idx.size(); ++k)
      for (std::size_t p = 0; p < 5; ++p) {
        const auto v = static_cast<int>(space.config_at(idx[k])[p]);
        bool step = false;
        for (std::size_t f = 0; f < 4; ++f) step |= std::abs(static_cast<int>(space.config_at(idx[f])[p]) - v) == 1;
        if (!step) return false;
      }
    return true;
  };
  for (const bool aware : {true, false}) {  // classic: the next value in the list, the space has no constraints
    std::size_t hamming_steps = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      Settings s = {{"popsize", Value(4)}, {"mutation_chance", Value(1)}, {"elitism", Value(0)},
                    {"constraint_aware", Value(aware)}};
      const auto adjacent = trace_indices(run("genetic_algorithm", space, seed, 8, s).result);  // the default
      s.push_back({"mutation", Value("Hamming")});
      const auto hamming = trace_indices(run("genetic_algorithm", space, seed, 8, s).result);
      ASSERT_EQ(adjacent.size(), 8u);
      EXPECT_TRUE(one_step_from_first_generation(adjacent)) << seed << " aware " << aware;
      hamming_steps += one_step_from_first_generation(hamming) ? 1 : 0;
    }
    EXPECT_EQ(hamming_steps, 0u) << aware;  // a random new value is one step away only by chance (20 genes a run)
  }
}

TEST(GeneticAlgorithm, BeatsRandomSearchOnAverage) {
  const double ga = mean_best("genetic_algorithm", 250), random = mean_best("random_sample", 250);
  EXPECT_LT(ga, random - 0.5) << "GA " << ga << " random " << random;
}

TEST(GeneticAlgorithm, RestartsUntilTheBudgetEndsAfterMaxiter) {
  // Two generations of four: at most eight configurations before the first restart.
  const auto out =
      run("genetic_algorithm", constrained_space(), 2, 600, {{"popsize", Value(4)}, {"maxiter", Value(2)}});
  EXPECT_EQ(out.result.evaluations, 600u);
  EXPECT_EQ(out.result.stop_reason, StopReason::max_evaluations);
}

TEST(GeneticAlgorithm, ExhaustsTheSpaceWithoutStalling) {
  const auto& space = constrained_space();
  const auto out = run("genetic_algorithm", space, 9, space.size() + 10, {{"elitism", Value(2)}});
  EXPECT_EQ(out.result.evaluations, space.size());
  EXPECT_EQ(out.result.stop_reason, StopReason::space_exhausted);
}

TEST(GeneticAlgorithm, ConstraintUnawareIsTheClassicAlgorithmWithAPenalty) {
  const auto out = run("genetic_algorithm", constrained_space(), 4, 300, {{"constraint_aware", Value(false)}});
  EXPECT_GT(out.invalid_requests, 0u);  // Cartesian start and unrepaired children: about half are invalid
  EXPECT_EQ(out.result.evaluations, 300u);
  EXPECT_LT(out.best, 4.0);
}

// A variant, aware: it evaluates only valid configurations, uses the whole budget, and searches otherwise than the
// strategy's defaults (another trace with the same seed).
void expect_another_valid_search(const std::string& name, const Settings& variant) {
  const auto aware = run(name, constrained_space(), 7, 400, variant);
  EXPECT_EQ(aware.invalid_requests, 0u) << name;
  EXPECT_EQ(aware.result.evaluations, 400u) << name;
  EXPECT_NE(trace_indices(aware.result), trace_indices(run(name, constrained_space(), 7, 400).result)) << name;
}

// variant=paper, the constraint-aware paper's Algorithm 3 and its blind baseline: another search than ktune's, aware
// it stays valid and beats random search, unaware it asks for invalid configurations (a penalty, no repair).
TEST(GeneticAlgorithm, PaperVariantSearchesOtherwiseAndStaysValidWhenAware) {
  const Settings paper{{"variant", Value("paper")}};
  expect_another_valid_search("genetic_algorithm", paper);
  double paper_best = 0, random_best = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    paper_best += run("genetic_algorithm", constrained_space(), seed, 150, paper).best / 20;
    random_best += run("random_sample", constrained_space(), seed, 150).best / 20;
  }
  EXPECT_LT(paper_best, random_best);
  const auto blind = run("genetic_algorithm", constrained_space(), 4, 300,
                         {{"variant", Value("paper")}, {"constraint_aware", Value(false)}});
  EXPECT_GT(blind.invalid_requests, 0u);
  EXPECT_EQ(blind.result.evaluations, 300u);
  EXPECT_THROW(make_strategy("genetic_algorithm", {{"variant", Value("pyatf")}}), HyperparameterError);
}

// variant=paper, the constraint-aware paper's DE (16 members per tunable parameter, a fresh sample after two
// generations without change): another search than ktune's, valid only when aware. Its blind baseline takes
// Cartesian draws as they come: more invalid requests than ktune's classic DE, which prefers valid draws.
TEST(DifferentialEvolution, PaperVariantSearchesOtherwiseAndStaysValidWhenAware) {
  const Settings paper{{"variant", Value("paper")}};
  expect_another_valid_search("diff_evo", paper);
  // Its first generation is 16 x 6 random members (about random search at 300 evaluations); the generations after
  // it must improve on them.
  double opening = 0, end = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const auto r = run("diff_evo", constrained_space(), seed, 300, paper);
    double first = 1e300;
    for (std::size_t k = 0; k < 96; ++k) first = std::min(first, bowl(constrained_space(), r.result.trace[k].index));
    opening += first / 20;
    end += r.best / 20;
  }
  EXPECT_LT(end, opening);
  std::uint64_t blind_invalid = 0, classic_invalid = 0;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const auto blind = run("diff_evo", constrained_space(), seed, 300,
                           {{"variant", Value("paper")}, {"constraint_aware", Value(false)}});
    EXPECT_EQ(blind.result.evaluations, 300u);
    blind_invalid += blind.invalid_requests;
    const auto classic = run("diff_evo", constrained_space(), seed, 300, {{"constraint_aware", Value(false)}});
    classic_invalid += classic.invalid_requests;
  }
  EXPECT_GT(blind_invalid, classic_invalid);
  EXPECT_THROW(make_strategy("diff_evo", {{"variant", Value("pyatf")}}), HyperparameterError);
}

TEST(GeneticAlgorithm, RejectsBadHyperparameters) {
  EXPECT_THROW(make_strategy("genetic_algorithm", {{"method", Value("three_point")}}), HyperparameterError);
  EXPECT_THROW(make_strategy("genetic_algorithm", {{"popsize", Value(1)}}), HyperparameterError);
  EXPECT_THROW(make_strategy("genetic_algorithm", {{"mutation_chance", Value(0)}}), HyperparameterError);
  EXPECT_THROW(make_strategy("genetic_algorithm", {{"elitism", Value(-1)}}), HyperparameterError);
  EXPECT_THROW(make_strategy("genetic_algorithm", {{"initial_popsize", Value(-1)}}), HyperparameterError);
  EXPECT_THROW(make_strategy("genetic_algorithm", {{"mutation", Value("adjacent")}}), HyperparameterError);
}

TEST(DiffEvo, EveryVariantStaysValidUsesTheWholeBudgetAndFindsGoodConfigurations) {
  for (const auto& method : kDeMethods) {
    const auto out = run("diff_evo", constrained_space(), 7, 500, {{"method", Value(method)}});
    EXPECT_EQ(out.invalid_requests, 0u) << method;
    EXPECT_EQ(out.result.evaluations, 500u) << method;
    EXPECT_LT(out.best, 3.5) << method;
  }
}

TEST(DiffEvo, VariantsSearchDifferently) {
  // F below 1: at F = 1 currenttobest1 (x + F (best - x) + F d) is best1 (best + F d).
  std::vector<std::vector<std::size_t>> traces;
  for (const auto& method : kDeMethods)
    traces.push_back(trace_indices(
        run("diff_evo", constrained_space(), 3, 250, {{"method", Value(method)}, {"F", Value(0.7)}}).result));
  for (std::size_t a = 0; a < traces.size(); ++a)
    for (std::size_t b = a + 1; b < traces.size(); ++b)
      EXPECT_NE(traces[a], traces[b]) << kDeMethods[a] << " " << kDeMethods[b];
}

TEST(DiffEvo, HyperparametersChangeTheSearch) {
  const auto base = trace_indices(run("diff_evo", constrained_space(), 3, 250).result);
  for (const Settings& s : {Settings{{"F", Value(1.2)}}, Settings{{"CR", Value(0.2)}},
                            Settings{{"popsize", Value(12)}}, Settings{{"popsize_times_dimensions", Value(true)}}})
    EXPECT_NE(trace_indices(run("diff_evo", constrained_space(), 3, 250, s).result), base) << s[0].first;
}

// On a smooth bowl with the classic settings. The tuned defaults (best2bin, F 1.0, CR 0.9, popsize 8) explore
// more: better on the rugged GPU spaces (docs/hyperparameters.md), about random search on this bowl.
TEST(DiffEvo, BeatsRandomSearchOnAverage) {
  const Settings classic{{"method", Value("best1bin")}, {"popsize", Value(16)}, {"F", Value(0.7)}, {"CR", Value(0.6)}};
  const double de = mean_best("diff_evo", 300, classic),
               random = mean_best("random_sample", 300);
  EXPECT_LT(de, random - 0.5) << "DE " << de << " random " << random;
}

TEST(DiffEvo, ReseedsAfterConvergingAndExhaustsTheSpace) {
  // A small population converges quickly; re-seeding (unlike Kernel Tuner's endless LHS) keeps it evaluating.
  const auto& space = constrained_space();
  const auto out = run("diff_evo", space, 5, space.size(), {{"popsize", Value(4)}});
  EXPECT_EQ(out.result.evaluations, space.size());
  EXPECT_EQ(out.result.stop_reason, StopReason::space_exhausted);
}

TEST(DiffEvo, ConstraintUnawareIsTheClassicAlgorithmWithAPenalty) {
  const auto out = run("diff_evo", constrained_space(), 4, 300, {{"constraint_aware", Value(false)}});
  EXPECT_GT(out.invalid_requests, 0u);
  EXPECT_EQ(out.result.evaluations, 300u);
}

TEST(DiffEvo, RejectsBadHyperparameters) {
  EXPECT_THROW(make_strategy("diff_evo", {{"method", Value("best3bin")}}), HyperparameterError);
  EXPECT_THROW(make_strategy("diff_evo", {{"CR", Value(1.5)}}), HyperparameterError);
  EXPECT_THROW(make_strategy("diff_evo", {{"F", Value(-0.1)}}), HyperparameterError);
}

TEST(Evolutionary, TinySpacesEndWhenEveryConfigurationIsEvaluated) {
  const SearchSpace tiny = SearchSpace::build(ProblemBuilder("tiny")
                                                  .parameter("a", {1, 2, 3})
                                                  .parameter("b", {1, 2})
                                                  .constraint("a * b != 4")
                                                  .build());
  for (const std::string name : {"genetic_algorithm", "diff_evo"}) {
    for (bool aware : {true, false}) {
      FakeEvaluator eval(tiny, [](std::size_t i) { return static_cast<double>(i); }, [](std::size_t) { return 1.0; });
      auto strategy = make_strategy(name, {{"constraint_aware", Value(aware)}});
      TuningOptions options;
      options.seed = 1;
      const auto result = tune(tiny, eval, *strategy, options);
      EXPECT_EQ(result.evaluations, tiny.size()) << name << aware;
      EXPECT_EQ(result.stop_reason, StopReason::space_exhausted) << name << aware;
    }
  }
}

}  // namespace evolutionary_test
}  // namespace
}  // namespace ktune
