// NSGA-II and NSGA-III on synthetic two- and three-objective spaces: valid configurations only, exact budgets,
// reproducibility, and that they approach the true front faster than random search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <vector>

#include "ktune/multiobjective/indicators.hpp"
#include "ktune/multiobjective/pareto.hpp"
#include "ktune/multiobjective/trace_front.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"
#include "strategies/nsga.hpp"

namespace ktune {
namespace {

// Every objective a function of the configuration's values (as doubles).
class VectorEvaluator final : public Evaluator {
 public:
  using Function = std::function<std::vector<double>(const std::vector<double>&)>;
  VectorEvaluator(const SearchSpace& space, std::vector<Objective> objectives, Function f)
      : space_(space), objectives_(std::move(objectives)), f_(std::move(f)) {}
  std::set<std::size_t> asked;
  std::size_t calls = 0;

  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return true; }
  EvaluationOutcome evaluate(std::size_t index) override {
    ++calls;
    asked.insert(index);
    buffer_ = f_(numbers(index));
    return {Status::ok, buffer_, 1.0};
  }
  EvaluationRecord record(std::size_t index) const override {
    EvaluationRecord r;
    r.config = space_.values_at(index);
    return r;
  }
  std::vector<double> numbers(std::size_t index) const {
    std::vector<double> x;
    for (const Value& v : space_.values_at(index)) x.push_back(v.to_double());
    return x;
  }

 private:
  const SearchSpace& space_;
  std::vector<Objective> objectives_;
  Function f_;
  std::vector<double> buffer_;
};

// Four parameters of 12 values with a constraint: 12^4 = 20736 combinations, about half valid.
SearchSpace test_space() {
  Problem p;
  p.name = "mo_test";
  std::vector<Value> values;
  for (int i = 0; i < 12; ++i) values.push_back(Value(std::int64_t{i}));
  for (const char* name : {"a", "b", "c", "d"}) p.parameters.push_back({name, values});
  p.constraints.push_back("a + b + c + d <= 24");
  return SearchSpace::build(p);
}

// A discrete, bi-objective problem with a curved front (a ZDT1-like shape): the first objective wants a small,
// the second a large a, and b, c, d add distance from the front.
std::vector<double> zdt_like(const std::vector<double>& x) {
  const double f1 = x[0] / 11.0;
  const double g = 1 + (std::abs(x[1] - 3) + std::abs(x[2] - 7) + std::abs(x[3] - 5)) / 4.0;
  return {f1 + 0.01 * x[1], g * (1 - std::sqrt(f1 / g)) + 0.003 * x[2]};
}

std::vector<double> three_objectives(const std::vector<double>& x) {
  const double s = x[1] + x[2] + x[3];
  return {x[0] + 0.5 * std::abs(x[1] - 6), (11 - x[0]) + 0.3 * std::abs(s - 12), std::abs(x[1] - x[2]) + x[3] / 2.0};
}

// IGD+ of the first `n` evaluations against the true front (normalised by the front's ideal and nadir).
double igd_after(const Trace& trace, std::size_t n, const std::vector<double>& front, const std::vector<double>& ideal,
                 const std::vector<double>& nadir) {
  const std::size_t m = trace.objectives().size();
  std::vector<double> a;
  for (std::size_t p = 0; p < std::min(n, trace.size()); ++p) {
    const auto c = objective_costs(trace, p);
    for (std::size_t j = 0; j < m; ++j) a.push_back((c[j] - ideal[j]) / std::max(nadir[j] - ideal[j], 1e-12));
  }
  std::vector<double> z(front.size());
  for (std::size_t i = 0; i < front.size(); ++i)
    z[i] = (front[i] - ideal[i % m]) / std::max(nadir[i % m] - ideal[i % m], 1e-12);
  return igd_plus(a, z, m);
}

struct TrueFront {
  std::vector<double> front, ideal, nadir;
};

TrueFront true_front(const SearchSpace& space, VectorEvaluator& e) {
  const std::size_t m = e.objectives().size();
  std::vector<double> all;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto out = e.evaluate(i);
    all.insert(all.end(), out.objectives.begin(), out.objectives.end());
  }
  TrueFront t;
  for (std::size_t i : pareto_front(all, m)) t.front.insert(t.front.end(), all.begin() + i * m, all.begin() + i * m + m);
  t.ideal.assign(m, 1e300);
  t.nadir.assign(m, -1e300);
  for (std::size_t i = 0; i < t.front.size(); ++i) {
    t.ideal[i % m] = std::min(t.ideal[i % m], t.front[i]);
    t.nadir[i % m] = std::max(t.nadir[i % m], t.front[i]);
  }
  return t;
}

// The spec "name" or "name:key=value" of a test parameter as a strategy.
std::unique_ptr<Strategy> strategy_of(const std::string& spec) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return make_strategy(spec);
  const auto equals = spec.find('=', colon);
  return make_strategy(spec.substr(0, colon),
                       {{spec.substr(colon + 1, equals - colon - 1), Value(spec.substr(equals + 1))}});
}

class Nsga : public ::testing::TestWithParam<const char*> {};

TEST_P(Nsga, EvaluatesOnlyValidConfigurationsWithinTheExactBudget) {
  const SearchSpace space = test_space();
  VectorEvaluator e(space, {{"f1", false}, {"f2", false}}, zdt_like);
  auto strategy = strategy_of(GetParam());
  TuningOptions o;
  o.budget.max_evaluations = 137;
  o.seed = 3;
  const auto result = tune(space, e, *strategy, o);
  EXPECT_EQ(result.evaluations, 137u);
  EXPECT_EQ(e.calls, 137u);          // no configuration evaluated twice
  EXPECT_EQ(e.asked.size(), 137u);
  for (std::size_t i : e.asked) EXPECT_LT(i, space.size());
}

TEST_P(Nsga, SameSeedSameTraceOtherSeedOtherTrace) {
  const SearchSpace space = test_space();
  auto run = [&](std::uint64_t seed) {
    VectorEvaluator e(space, {{"f1", false}, {"f2", false}, {"f3", false}}, three_objectives);
    auto strategy = strategy_of(GetParam());
    TuningOptions o;
    o.budget.max_evaluations = 120;
    o.seed = seed;
    std::vector<std::uint32_t> order;
    const auto result = tune(space, e, *strategy, o);
    for (const auto& entry : result.trace.entries()) order.push_back(entry.index);
    return order;
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

TEST_P(Nsga, BeatsRandomSearchOnIgdPlus) {
  const SearchSpace space = test_space();
  for (const auto& [objectives, f] :
       std::vector<std::pair<std::vector<Objective>, VectorEvaluator::Function>>{
           {{{"f1", false}, {"f2", false}}, zdt_like},
           {{{"f1", false}, {"f2", false}, {"f3", false}}, three_objectives}}) {
    VectorEvaluator reference(space, objectives, f);
    const TrueFront t = true_front(space, reference);
    auto median_igd = [&](const std::string& name) {
      std::vector<double> igd;
      for (std::uint64_t seed = 0; seed < 15; ++seed) {
        VectorEvaluator e(space, objectives, f);
        auto strategy = strategy_of(name);
        TuningOptions o;
        o.budget.max_evaluations = 200;
        o.seed = seed;
        igd.push_back(igd_after(tune(space, e, *strategy, o).trace, 200, t.front, t.ideal, t.nadir));
      }
      std::nth_element(igd.begin(), igd.begin() + 7, igd.end());
      return igd[7];
    };
    const double strategy = median_igd(GetParam()), random = median_igd("random_sample");
    EXPECT_LT(strategy, 0.7 * random) << GetParam() << " with " << objectives.size() << " objectives: IGD+ "
                                      << strategy << " vs random " << random;
  }
}

INSTANTIATE_TEST_SUITE_P(Both, Nsga, ::testing::Values("nsga2", "nsga3"));
INSTANTIATE_TEST_SUITE_P(Crossovers, Nsga,
                         ::testing::Values("nsga2:crossover=single_point", "nsga2:crossover=uniform",
                                           "nsga3:crossover=single_point", "nsga3:crossover=uniform"));

// The three recombinations of the multi-objective thesis, on parents 0...0 and 1...1 (a child's 1s are the genes it
// took from the second parent): one cut with the tail swapped, two cuts with the genes between them swapped, or every
// gene swapped with probability 1/2; the two children are always complements.
TEST(NsgaCrossover, EachKindRecombinesAsPymoosOperatorDoes) {
  const std::size_t d = 6;
  const Config a(d, 0), b(d, 1);
  Rng rng(5);
  for (auto kind : {strategies::NsgaCrossover::SinglePoint, strategies::NsgaCrossover::TwoPoint,
                    strategies::NsgaCrossover::Uniform}) {
    std::set<std::pair<std::size_t, std::size_t>> segments;  // [first 1, end of the 1s) of the first child
    std::vector<int> swapped(d, 0);
    const int draws = 4000;
    for (int i = 0; i < draws; ++i) {
      const auto [x, y] = strategies::crossover(kind, a, b, rng);
      ASSERT_EQ(x.size(), d);
      for (std::size_t p = 0; p < d; ++p) {
        ASSERT_EQ(x[p] + y[p], 1u) << "complements";
        swapped[p] += static_cast<int>(x[p]);
      }
      const auto first = std::find(x.begin(), x.end(), 1u);
      const auto end = std::find(first, x.end(), 0u);
      const bool one_block = std::find(end, x.end(), 1u) == x.end();
      if (kind != strategies::NsgaCrossover::Uniform) {
        ASSERT_TRUE(one_block);
        ASSERT_NE(first, x.begin()) << "the first gene stays";
        ASSERT_NE(first, x.end()) << "a point crossover always swaps";
      }
      if (kind == strategies::NsgaCrossover::SinglePoint) {
        ASSERT_EQ(end, x.end()) << "the whole tail";
      }
      if (one_block)
        segments.insert({static_cast<std::size_t>(first - x.begin()), static_cast<std::size_t>(end - x.begin())});
    }
    // Single point: every cut 1..d-1. Two points: two distinct cuts in 1..d-1, the genes between them swapped
    // (pymoo: the last gene is never in the segment). Uniform: every gene swapped about half the time.
    switch (kind) {
      case strategies::NsgaCrossover::SinglePoint: EXPECT_EQ(segments.size(), d - 1); break;
      case strategies::NsgaCrossover::TwoPoint: EXPECT_EQ(segments.size(), (d - 1) * (d - 2) / 2); break;
      case strategies::NsgaCrossover::Uniform:
        for (std::size_t p = 0; p < d; ++p) EXPECT_NEAR(swapped[p], draws / 2, 150) << "gene " << p;
        break;
    }
  }
}

TEST(Nsga3, AcceptsGivenAndDasDennisDirectionsAndRejectsBadOnes) {
  const SearchSpace space = test_space();
  auto run = [&](const std::string& directions) {
    VectorEvaluator e(space, {{"f1", false}, {"f2", false}}, zdt_like);
    auto strategy = make_strategy("nsga3", {{"reference_directions", Value(directions)}});
    TuningOptions o;
    o.budget.max_evaluations = 60;
    return tune(space, e, *strategy, o).evaluations;
  };
  EXPECT_EQ(run("das_dennis"), 60u);
  EXPECT_EQ(run("[[1, 0], [0.5, 0.5], [0, 1]]"), 60u);
  EXPECT_THROW(run("[[1, 0, 0]]"), HyperparameterError);
  EXPECT_THROW(run("[[1, 0], [0.5"), HyperparameterError);
  EXPECT_THROW(run("uniform"), HyperparameterError);
}

TEST(ParetoFrontOfATrace, KeepsTheNonDominatedSuccessesInTheRightDirections) {
  Trace trace({{"time", false}, {"GFLOP/s", true}});
  const double rows[][2] = {{1.0, 10.0}, {2.0, 20.0}, {2.0, 15.0}, {0.5, 5.0}, {3.0, 20.0}, {1.0, 10.0}};
  for (std::uint32_t i = 0; i < 6; ++i) trace.append({i, Status::ok}, rows[i]);
  trace.append({6, Status::runtime_failed}, std::vector<double>{0.1, 100.0});
  // (2, 15) is dominated by (2, 20); (3, 20) too; the duplicate (1, 10) is kept; the failure never counts.
  EXPECT_EQ(pareto_front_positions(trace), (std::vector<std::size_t>{3, 0, 5, 1}));
}

TEST(Scalarization, WeightedSumAndLexicographicBest) {
  Trace lex({{"time", false}, {"energy", false}});
  lex.append({0, Status::ok}, std::vector<double>{1.0, 5.0});
  lex.append({1, Status::ok}, std::vector<double>{1.0, 3.0});
  lex.append({2, Status::ok}, std::vector<double>{2.0, 0.0});
  EXPECT_EQ(lex.best(), 1u);  // equal time, less energy
  EXPECT_EQ(lex.cost(1), 1.0);

  Trace sum({{"time", false}, {"GFLOP/s", true}}, parse_scalarization("weighted_sum:1,0.5", 2));
  sum.append({0, Status::ok}, std::vector<double>{1.0, 2.0});  // 1 - 1 = 0
  sum.append({1, Status::ok}, std::vector<double>{2.0, 6.0});  // 2 - 3 = -1
  EXPECT_DOUBLE_EQ(sum.cost(0), 0.0);
  EXPECT_DOUBLE_EQ(sum.cost(1), -1.0);
  EXPECT_EQ(sum.best(), 1u);
  EXPECT_THROW(parse_scalarization("weighted_sum:1", 2), std::invalid_argument);
  EXPECT_THROW(parse_scalarization("weighted_sum:1,x", 2), std::invalid_argument);
  EXPECT_THROW(parse_scalarization("pareto", 2), std::invalid_argument);
}

TEST(Objectives, ParsedWithDirections) {
  const auto o = parse_objectives({"time,memory:min", "GFLOP/s", "smem:max"});
  ASSERT_EQ(o.size(), 4u);
  EXPECT_FALSE(o[0].higher_is_better);
  EXPECT_FALSE(o[1].higher_is_better);
  EXPECT_TRUE(o[2].higher_is_better);
  EXPECT_TRUE(o[3].higher_is_better);
  EXPECT_THROW(parse_objectives({"smem"}), std::invalid_argument);  // direction unknown
  EXPECT_THROW(parse_objectives({"time,time"}), std::invalid_argument);
  EXPECT_THROW(parse_objectives({"time:up"}), std::invalid_argument);
  EXPECT_THROW(parse_objectives({"time,,energy"}), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
