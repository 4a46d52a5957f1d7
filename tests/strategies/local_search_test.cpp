// The local-search family: climbs run to a local optimum (not Kernel Tuner's one-improvement climbs), the variants
// differ as documented, hyperparameters act, failed and invalid configurations are handled, restarts keep exploring.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "fake_evaluator.hpp"
#include "open_space.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {
namespace {
namespace local_search_test {

using testing::FakeEvaluator;
using testing::open_space;

// open_space with a constraint that removes about half the configurations.
const SearchSpace& constrained_space() {
  static const SearchSpace space = [] {
    ProblemBuilder b("constrained");
    for (const char* name : {"a", "b", "c", "d", "e"}) b.parameter(name, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    b.constraint("a + b + c <= 14");
    return SearchSpace::build(b.build());
  }();
  return space;
}

// A separable bowl with its minimum at (3, 6, 2, 7, 4): every Hamming climb reaches it.
double bowl(const SearchSpace& space, std::size_t index) {
  const auto c = space.config_at(index);
  const double target[] = {3, 6, 2, 7, 4};
  double v = 1.0;
  for (std::size_t p = 0; p < c.size(); ++p) v += (c[p] - target[p]) * (c[p] - target[p]);
  return v;
}

struct Run {
  std::optional<TuningResult> result;
  std::uint64_t invalid_requests = 0;
  std::vector<std::size_t> calls;
};

Run run(const SearchSpace& space, const std::string& name, std::uint64_t max_evaluations,
        std::vector<std::pair<std::string, Value>> hyper = {}, std::uint64_t seed = 1,
        const std::set<std::size_t>& failing = {}) {
  FakeEvaluator eval(space, [&](std::size_t i) { return bowl(space, i); }, [](std::size_t) { return 1.0; });
  eval.failing = failing;
  auto inner = make_strategy(name, hyper);
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
  Run out;
  Counting counting(*inner, out.invalid_requests);
  TuningOptions options;
  options.seed = seed;
  options.budget.max_evaluations = max_evaluations;
  out.result.emplace(tune(space, eval, counting, options));
  out.calls = eval.calls;
  return out;
}

double best_cost(const Run& r) { return r.result->trace.cost(*r.result->trace.best()); }

std::vector<std::size_t> trace_indices(const Run& r) {
  std::vector<std::size_t> v;
  for (const auto& e : r.result->trace.entries()) v.push_back(e.index);
  return v;
}

// How many parameters two configurations differ in.
int hamming_distance(const Config& a, const Config& b) {
  int d = 0;
  for (std::size_t p = 0; p < a.size(); ++p) d += a[p] != b[p];
  return d;
}

const char* const kFamily[] = {"greedy_mls",          "mls",           "ordered_greedy_mls", "greedy_ils",
                               "simulated_annealing", "pattern_search", "torczon"};

TEST(LocalSearch, EveryClimberFindsTheBowlsMinimumFastInALargeSpace) {
  // Random search would need ~50,000 evaluations; a climb that runs to its local optimum needs a few hundred.
  for (const char* name : kFamily) {
    const auto r = run(open_space(), name, 600);
    EXPECT_EQ(best_cost(r), 1.0) << name;
  }
}

TEST(LocalSearch, OneGreedyClimbRunsToTheLocalOptimum) {
  // A single climb from the first start reaches the minimum of a separable bowl; Kernel Tuner's greedy_mls stopped
  // after the first improvement and so needed many restarts.
  const auto r = run(open_space(), "greedy_mls", 5000);
  const auto& trace = r.result->trace;
  ASSERT_TRUE(trace.best());
  // Hamming neighbourhood: 45 neighbours; each improving step scans at most 45; at most 5 * 9 improving steps.
  EXPECT_LT(*trace.best(), 45u * 46u);
  EXPECT_EQ(best_cost(r), 1.0);
}

TEST(LocalSearch, BestImprovementEvaluatesTheWholeNeighbourhoodBeforeMoving) {
  // mls (best improvement) from one random start (start_sample 1, Kernel Tuner's opening): its first 1 + 45
  // evaluations are the start and all its Hamming neighbours.
  const std::vector<std::pair<std::string, Value>> one_start{{"start_sample", Value(std::int64_t{1})}};
  const auto r = run(open_space(), "mls", 46, one_start);
  const auto idx = trace_indices(r);
  ASSERT_EQ(idx.size(), 46u);
  const auto start = open_space().config_at(idx[0]);
  for (std::size_t k = 1; k < idx.size(); ++k)
    EXPECT_EQ(hamming_distance(open_space().config_at(idx[k]), start), 1) << k;
  // First improvement moves on earlier, so greedy_mls's trace differs.
  EXPECT_NE(trace_indices(run(open_space(), "greedy_mls", 46, one_start)), idx);
}

TEST(LocalSearch, ClimbsStartFromTheBestOfAUniformSample) {
  // The robust opening: the first start_sample evaluations are distinct random configurations, and the climb
  // begins at the best of them (the next evaluation is one of its neighbours).
  for (const char* name : {"mls", "greedy_mls", "greedy_ils"}) {
    const auto r = run(open_space(), name, 21, {{"start_sample", Value(std::int64_t{20})}});
    const auto idx = trace_indices(r);
    ASSERT_EQ(idx.size(), 21u) << name;
    std::size_t best = 0;
    const auto& trace = r.result->trace;
    for (std::size_t k = 1; k < 20; ++k)
      if (trace.cost(k) < trace.cost(best)) best = k;
    EXPECT_EQ(hamming_distance(open_space().config_at(idx[20]), open_space().config_at(idx[best])), 1) << name;
  }
}

TEST(LocalSearch, OrderedGreedySweepsTheParametersInTheGivenOrder) {
  const auto r = run(open_space(), "ordered_greedy_mls", 5,
                     {{"order", Value(std::string("d, b"))}, {"start_sample", Value(std::int64_t{1})}});
  const auto idx = trace_indices(r);
  ASSERT_GE(idx.size(), 2u);
  const auto start = open_space().config_at(idx[0]), first = open_space().config_at(idx[1]);
  for (std::size_t p = 0; p < start.size(); ++p) EXPECT_EQ(start[p] != first[p], p == 3) << p;
  EXPECT_THROW(run(open_space(), "ordered_greedy_mls", 5, {{"order", Value(std::string("d,zz"))}}),
               HyperparameterError);
}

TEST(LocalSearch, OrderedGreedyTriesTheAdjacentValuesByDefault) {
  // Hamming-adjacent: a sweep in declared order does not start with the far end of the first parameter's list.
  const auto r = run(open_space(), "ordered_greedy_mls", 40, {{"start_sample", Value(std::int64_t{1})}});
  const auto idx = trace_indices(r);
  ASSERT_GE(idx.size(), 2u);
  const auto start = open_space().config_at(idx[0]);
  const auto& trace = r.result->trace;
  for (std::size_t k = 1; k < idx.size(); ++k) {  // neighbours of the start, up to the first improvement
    const auto c = open_space().config_at(idx[k]);
    EXPECT_EQ(hamming_distance(c, start), 1) << k;
    for (std::size_t p = 0; p < c.size(); ++p) EXPECT_LE(c[p] > start[p] ? c[p] - start[p] : start[p] - c[p], 1u) << k;
    if (trace.cost(k) < trace.cost(0)) break;
  }
}

// The first `n` evaluations of an annealing run are its start sample; the next one is a neighbour of the best of them.
void expect_walk_from_best_of_sample(const SearchSpace& space, std::size_t n, std::uint64_t seed) {
  const auto r = run(space, "simulated_annealing", n + 1, {{"start_sample", Value(std::int64_t{20})}}, seed);
  const auto idx = trace_indices(r);
  ASSERT_EQ(idx.size(), n + 1);
  std::size_t best = idx[0];
  for (std::size_t k = 1; k < n; ++k)
    if (bowl(space, idx[k]) < bowl(space, best)) best = idx[k];
  EXPECT_EQ(hamming_distance(space.config_at(idx[n]), space.config_at(best)), 1) << "seed " << seed;
}

TEST(LocalSearch, AnnealingWalksFromTheBestOfItsStartSample) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) expect_walk_from_best_of_sample(open_space(), 20, seed);
  // On 100 configurations the sample is capped at one per 32 configurations: 3.
  ProblemBuilder b("small");
  for (const char* name : {"a", "b"}) b.parameter(name, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const SearchSpace small = SearchSpace::build(b.build());
  for (std::uint64_t seed = 1; seed <= 5; ++seed) expect_walk_from_best_of_sample(small, 3, seed);
}

TEST(LocalSearch, IlsKicksCostAtMostKickBudgetTimesTheStart) {
  // kick_budget 0: kicks may cost nothing, so none is made and greedy_ils is greedy_mls (same starts, same climbs)
  // with the same start sample.
  const std::vector<std::pair<std::string, Value>> no_kicks{{"kick_budget", Value(0.0)}};
  const std::vector<std::pair<std::string, Value>> same_start{{"start_sample", Value(std::int64_t{40})}};
  EXPECT_EQ(trace_indices(run(constrained_space(), "greedy_ils", 300, no_kicks)),
            trace_indices(run(constrained_space(), "greedy_mls", 300, same_start)));
  // With kicks allowed the search differs (it kicks before it restarts).
  EXPECT_NE(trace_indices(run(constrained_space(), "greedy_ils", 300)),
            trace_indices(run(constrained_space(), "greedy_mls", 300)));
}

TEST(LocalSearch, HyperparametersChangeTheSearch) {
  const std::pair<const char*, std::pair<std::string, Value>> cases[] = {
      {"greedy_mls", {"neighbor", Value(std::string("adjacent"))}},
      {"greedy_mls", {"randomize", Value(false)}},
      {"greedy_ils", {"random_walk", Value(0.9)}},
      {"greedy_ils", {"no_improvement", Value(std::int64_t{1})}},
      {"greedy_ils", {"kick_budget", Value(0.0)}},
      {"simulated_annealing", {"T", Value(5.0)}},
      {"simulated_annealing", {"neighbor", Value(std::string("strictly-adjacent"))}},
      {"simulated_annealing", {"start_sample", Value(std::int64_t{1})}},
      {"pattern_search", {"initial_step", Value(0.5)}},
      {"torczon", {"initial_step", Value(0.5)}},
      {"torczon", {"expansion", Value(3.0)}},
  };
  for (const auto& [name, setting] : cases) {
    const auto a = run(constrained_space(), name, 400), b = run(constrained_space(), name, 400, {setting});
    EXPECT_NE(trace_indices(a), trace_indices(b)) << name << " " << setting.first;
  }
}

TEST(LocalSearch, ConstraintUnawareUsesThePenaltyAndAwareNever) {
  for (const char* name : kFamily) {
    const auto aware = run(constrained_space(), name, 300);
    EXPECT_EQ(aware.invalid_requests, 0u) << name;
    const auto unaware = run(constrained_space(), name, 300, {{"constraint_aware", Value(false)}});
    EXPECT_GT(unaware.invalid_requests, 0u) << name;
    EXPECT_EQ(unaware.result->evaluations, 300u) << name;
  }
}

TEST(LocalSearch, FailedConfigurationsDoNotDerailTheSearch) {
  // A third of the space fails (+inf cost): annealing's acceptance must not produce NaN and every climber must still
  // find the minimum.
  std::set<std::size_t> failing;
  const std::size_t optimum = *open_space().index_of(Config{3, 6, 2, 7, 4});
  for (std::size_t i = 0; i < open_space().size(); i += 3)
    if (i != optimum) failing.insert(i);
  for (const char* name : kFamily) {
    const auto r = run(open_space(), name, 3000, {}, 2, failing);
    ASSERT_TRUE(r.result->trace.best()) << name;
    EXPECT_EQ(best_cost(r), 1.0) << name;
  }
}

TEST(LocalSearch, RestartsKeepExploringUntilTheBudgetEnds) {
  // Far more budget than one climb needs: restarts must find new configurations, never stall.
  for (const char* name : kFamily) {
    const auto r = run(open_space(), name, 4000);
    EXPECT_EQ(r.result->evaluations, 4000u) << name;
    EXPECT_EQ(r.result->stop_reason, StopReason::max_evaluations) << name;
  }
}

TEST(LocalSearch, EvaluatesEveryConfigurationOfATinySpaceThenReturns) {
  const SearchSpace tiny = SearchSpace::build(
      ProblemBuilder("tiny").parameter("x", {1, 2, 3, 4}).parameter("y", {1, 2, 3}).constraint("x * y <= 8").build());
  for (const char* name : kFamily) {
    for (bool aware : {true, false}) {
      FakeEvaluator eval(tiny, [](std::size_t i) { return static_cast<double>((i * 7) % 5); },
                         [](std::size_t) { return 1.0; });
      auto s = make_strategy(name, {{"constraint_aware", Value(aware)}});
      TuningOptions options;
      const auto r = tune(tiny, eval, *s, options);
      EXPECT_EQ(r.evaluations, tiny.size()) << name;
      EXPECT_NE(r.stop_reason, StopReason::stalled) << name;
    }
  }
}

}  // namespace local_search_test
}  // namespace
}  // namespace ktune
