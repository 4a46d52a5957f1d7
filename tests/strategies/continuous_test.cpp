// The swarm and continuous family (pso, firefly_algorithm, dual_annealing, basinhopping, minimize) and their shared
// continuous view: snapping and repair, the unaware penalty, NLopt local searches that carry BudgetExhausted across
// C code, restarts, and hyperparameters that change the search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"
#include "strategies/continuous_view.hpp"

namespace ktune {
namespace {
namespace continuous_test {

using strategies::ContinuousView;
using strategies::LocalMethod;
using testing::FakeEvaluator;

const SearchSpace& space() {
  static const SearchSpace s = SearchSpace::build(ProblemBuilder("c")
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

double bowl(const SearchSpace& s, std::size_t index) {
  const auto c = s.config_at(index);
  const double target[] = {5, 2, 1, 2, 1};
  double v = 1.0;
  for (std::size_t p = 0; p < c.size(); ++p) v += (c[p] - target[p]) * (c[p] - target[p]);
  return v;
}

struct Fixture {
  FakeEvaluator eval{space(), [](std::size_t i) { return bowl(space(), i); }, [](std::size_t) { return 1.0; }};
  CostFunction cost;
  Rng rng{7};
  explicit Fixture(std::uint64_t max_evaluations = 10000)
      : cost(space(), eval, [&] {
          CostFunctionOptions o;
          o.budget.max_evaluations = max_evaluations;
          return o;
        }()) {}
};

TuningResult run(const std::string& name, std::uint64_t seed, std::uint64_t evaluations,
                 std::vector<std::pair<std::string, Value>> hyper = {}, std::uint64_t* invalid = nullptr) {
  FakeEvaluator eval(space(), [](std::size_t i) { return bowl(space(), i); }, [](std::size_t) { return 1.0; });
  auto inner = make_strategy(name, hyper);
  struct Counting final : Strategy {
    Strategy& s;
    std::uint64_t* invalid;
    Counting(Strategy& st, std::uint64_t* i) : s(st), invalid(i) {}
    void run(const SearchSpace& sp, CostFunction& c, Rng& r) override {
      try {
        s.run(sp, c, r);
      } catch (...) {
        if (invalid) *invalid = c.invalid_requests();
        throw;
      }
    }
  } counting(*inner, invalid);
  TuningOptions options;
  options.seed = seed;
  options.budget.max_evaluations = evaluations;
  return tune(space(), eval, counting, options);
}

std::vector<std::size_t> indices(const TuningResult& r) {
  std::vector<std::size_t> out;
  for (const auto& e : r.trace.entries()) out.push_back(e.index);
  return out;
}

// An invalid Cartesian configuration of the test space whose point we can cost.
std::vector<std::uint32_t> invalid_config() {
  return {0, 4, 1, 1, 1};  // bx*by = 16 < 32; bx = 2 makes it valid
}

// dual_annealing's wrap: exact_fmod must give std::fmod's bits, zero's sign included, for quotients small and near
// 2^52, remainders near 0 and near m (where x / m rounds onto the next integer), and inf / NaN.
TEST(ContinuousView, ExactFmodGivesFmodsBits) {
  auto same = [](double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
  };
  Rng rng(11);
  std::size_t checked = 0, near_integer = 0;
  for (int i = 0; i < 400000; ++i) {
    const double m = std::ldexp(0.5 + rng.uniform01(), static_cast<int>(rng.below(40)) - 20);
    double x;
    switch (rng.below(4)) {
      case 0: x = std::ldexp(rng.uniform01(), static_cast<int>(rng.below(120)) - 40); break;
      case 1: {  // a multiple of m, a few ulps either side: x / m rounds across the integer
        const double q = std::floor(std::ldexp(rng.uniform01(), static_cast<int>(rng.below(60))));
        x = q * m;
        for (auto k = rng.below(5); k > 0; --k) x = std::nextafter(x, rng.below(2) ? 0.0 : 1e300);
        near_integer += std::trunc(x / m) * m > x;
        break;
      }
      case 2: x = m * (1 - std::ldexp(1.0, -static_cast<int>(rng.below(53)))); break;
      default: x = std::ldexp(rng.uniform01(), static_cast<int>(rng.below(1100)) - 60); break;
    }
    if (rng.below(2)) x = -x;
    ASSERT_TRUE(same(strategies::exact_fmod(x, m), std::fmod(x, m))) << std::hexfloat << x << " mod " << m;
    ++checked;
  }
  for (double x : {0.0, -0.0, 3.0, -3.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()})
    for (double m : {1.0, 0.1, 3.0, 1e-300})
      EXPECT_TRUE(same(strategies::exact_fmod(x, m), std::fmod(x, m))) << x << " mod " << m;
  EXPECT_GT(near_integer, 200u);  // quotients rounded onto the next integer were met
}

TEST(ContinuousView, AwareBoxIsTheTrueBoundsAndFixedParametersAreNoCoordinates) {
  const auto s = SearchSpace::build(ProblemBuilder("fixed")
                                        .parameter("a", {1, 2, 3, 4})
                                        .parameter("b", {1, 2})
                                        .parameter("c", {7})
                                        .constraint("a >= 2")
                                        .build());
  const ContinuousView aware(s, true), unaware(s, false);
  ASSERT_EQ(aware.dims(), 2u);  // c never varies
  EXPECT_DOUBLE_EQ(aware.lower()[0], s.epsilon());  // a >= 2: value index 0 is never valid
  EXPECT_DOUBLE_EQ(unaware.lower()[0], 0.0);
  EXPECT_DOUBLE_EQ(aware.upper()[0], 3 * s.epsilon());
}

TEST(ContinuousView, AwareRepairsAnInvalidSnapToTheClosestValidNeighbour) {
  Fixture f;
  ContinuousView view(space(), true);
  const auto config = invalid_config();
  ASSERT_FALSE(space().is_valid(config));
  std::vector<double> full = space().to_continuous(config);
  std::optional<std::size_t> evaluated;
  const auto x = view.point_of(config);
  const double c = view.cost(x, f.cost, f.rng, &evaluated);
  ASSERT_TRUE(evaluated);
  EXPECT_DOUBLE_EQ(c, bowl(space(), *evaluated));
  EXPECT_EQ(f.cost.invalid_requests(), 0u);
  // Closest of the first non-empty neighbour set (strictly adjacent -> adjacent -> Hamming) to the point.
  std::vector<std::size_t> candidates;
  for (auto m : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming}) {
    candidates = space().neighbours(config, m);
    if (!candidates.empty()) break;
  }
  ASSERT_FALSE(candidates.empty());
  auto distance = [&](std::size_t i) {
    const auto y = space().to_continuous(space().config_at(i));
    double d = 0;
    for (std::size_t p = 0; p < y.size(); ++p) d += (y[p] - full[p]) * (y[p] - full[p]);
    return d;
  };
  double best = 1e300;
  for (std::size_t i : candidates) best = std::min(best, distance(i));
  EXPECT_NEAR(distance(*evaluated), best, 1e-12);
}

// Values no configuration uses: around a snap between them the strictly-adjacent box is empty and the adjacent box
// (to the nearest used values) is not, so the repair takes the closest of the adjacent box, as the Alg. 2 does;
// the repair skips the adjacent query only where both boxes hold the same configurations (then it is empty too).
TEST(ContinuousView, AnEmptyStrictBoxIsRepairedFromTheAdjacentBox) {
  std::vector<Value> nine;
  for (int v = 0; v <= 8; ++v) nine.emplace_back(static_cast<std::int64_t>(v));
  Problem problem;
  problem.name = "gaps";
  problem.parameters = {{"a", nine}, {"b", nine}, {"c", {Value(std::int64_t{0}), Value(std::int64_t{1}), Value(std::int64_t{2})}}};
  std::vector<Config> configs;
  for (std::uint32_t a : {0u, 4u, 8u})
    for (std::uint32_t b : {0u, 4u, 8u})
      for (std::uint32_t c : {0u, 1u, 2u}) configs.push_back({a, b, c});
  const SearchSpace gaps = SearchSpace::from_configs(problem, configs);
  ContinuousView view(gaps, true);
  const double eps = gaps.epsilon();
  Rng points(3), rng(4);
  int checked = 0;
  for (int t = 0; t < 200; ++t) {
    // Snapped to the middle of a gap in a and b (index 2 or 6: the strict box 1-3 or 5-7 holds no used value),
    // anywhere in c.
    auto middle = [&] { return (1.5 + 4 * static_cast<double>(points.below(2)) + 0.999 * points.uniform01()) * eps; };
    const std::vector<double> x = {middle(), middle(), 2.0 * points.uniform01() * eps};
    const Config snap = gaps.from_continuous(x);
    if (snap[0] % 4 != 2 || snap[1] % 4 != 2) continue;
    ASSERT_TRUE(gaps.neighbours(snap, NeighbourMethod::StrictlyAdjacent).empty());
    const auto expected = gaps.closest_neighbours(snap, NeighbourMethod::Adjacent, x);
    ASSERT_FALSE(expected.empty());
    const auto repaired = view.resolve(x, rng).index;
    ASSERT_TRUE(repaired);
    EXPECT_TRUE(std::find(expected.begin(), expected.end(), *repaired) != expected.end()) << "t " << t;
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

// The repair against a plain scan of every candidate, on grid points and halfway points (where many candidates tie)
// and random points:
// the same configuration, tie draws included (the view sorts and bounds its scan; the result must not change).
TEST(ContinuousView, RepairEqualsAPlainScanOfEveryCandidateTiesIncluded) {
  ContinuousView view(space(), true);
  ASSERT_EQ(view.dims(), space().num_params());
  const double eps = space().epsilon();
  Rng points(5);
  int repaired = 0, tied = 0;
  for (int t = 0; t < 3000; ++t) {
    std::vector<double> x(view.dims());
    for (std::size_t k = 0; k < x.size(); ++k) {
      const double u = strategies::uniform(points, view.lower()[k], view.upper()[k]);
      // Points on the grid and halfway between grid values too, where candidates changing different numbers of
      // parameters tie.
      x[k] = t % 3 == 0 ? u : t % 3 == 1 ? std::round(u / eps) * eps : std::round(2 * u / eps) * eps / 2;
    }
    const Config config = space().from_continuous(x);
    if (space().is_valid(config)) continue;
    std::vector<std::size_t> candidates;
    for (auto m : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming}) {
      candidates = space().neighbours(config, m);
      if (!candidates.empty()) break;
    }
    if (candidates.empty()) continue;  // the index-distance fallback (tested below)
    std::vector<std::size_t> ties;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i : candidates) {
      double dist = 0;
      for (std::size_t p = 0; p < x.size(); ++p) {
        const double q = space().value_index(i, p) * eps - x[p];
        dist += q * q;
      }
      if (dist < best) best = dist, ties.assign(1, i);
      else if (dist == best) ties.push_back(i);
    }
    Rng a(static_cast<std::uint64_t>(t)), b(static_cast<std::uint64_t>(t));
    const std::size_t expected = ties[ties.size() == 1 ? 0 : static_cast<std::size_t>(b.below(ties.size()))];
    const auto resolved = view.resolve(x, a);
    ASSERT_TRUE(resolved.index) << t;
    ASSERT_EQ(*resolved.index, expected) << "point " << t << ", " << ties.size() << " ties";
    // Again: the same point and seed repair the same way (nothing the first repair left behind changes it).
    Rng again(static_cast<std::uint64_t>(t));
    ASSERT_EQ(view.resolve(x, again).index, resolved.index) << "point " << t << ", second repair";
    ++repaired;
    tied += ties.size() > 1;
  }
  EXPECT_GT(repaired, 500);
  EXPECT_GT(tied, 100);
}

TEST(ContinuousView, AwareFallsBackToIndexDistanceWhenNoNeighbourMethodFindsOne) {
  Fixture f;
  ContinuousView view(space(), true);
  const std::vector<std::uint32_t> config = {0, 0, 4, 3, 1};  // two constraints broken: no single change repairs it
  ASSERT_TRUE(space().neighbours(config, NeighbourMethod::Hamming).empty());
  std::optional<std::size_t> evaluated;
  view.cost(view.point_of(config), f.cost, f.rng, &evaluated);
  ASSERT_TRUE(evaluated);
  EXPECT_EQ(f.cost.invalid_requests(), 0u);
  EXPECT_EQ(f.cost.evaluations(), 1u);
}

TEST(ContinuousView, UnawarePenalisesAnInvalidSnapWithoutEvaluating) {
  Fixture f;
  ContinuousView view(space(), false);
  std::optional<std::size_t> evaluated = 0;
  EXPECT_EQ(view.cost(view.point_of(invalid_config()), f.cost, f.rng, &evaluated), CostFunction::kInvalidCost);
  EXPECT_FALSE(evaluated);
  EXPECT_EQ(f.cost.evaluations(), 0u);
  EXPECT_EQ(f.cost.invalid_requests(), 1u);
}

TEST(ContinuousView, RandomPointsPreferUnevaluatedConfigurations) {
  Fixture f;
  ContinuousView view(space(), true);
  for (std::size_t i = 0; i + 3 < space().size(); ++i) f.cost(i);  // all but the last three
  for (int t = 0; t < 10; ++t) {
    const auto x = view.random_point(f.cost, f.rng);
    std::optional<std::size_t> evaluated;
    Fixture g;  // a fresh cost function just to map the point back to its configuration
    view.cost(x, g.cost, g.rng, &evaluated);
    ASSERT_TRUE(evaluated);
    EXPECT_GE(*evaluated, space().size() - 3);
  }
}

class EveryLocalMethod : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryLocalMethod, ImprovesOnItsStartWithProbesOfOneGridStep) {
  Fixture f;
  ContinuousView view(space(), true);
  const auto method = strategies::parse_local_method(GetParam());
  const auto start = view.point_of(space().config_at(0));
  const double start_cost = bowl(space(), 0);
  const auto r = strategies::local_minimize(view, f.cost, f.rng, method, start, 200, view.epsilon());
  EXPECT_LT(r.cost, start_cost);
  EXPECT_GT(f.cost.evaluations(), 3u);
  EXPECT_EQ(f.cost.invalid_requests(), 0u);
}

TEST_P(EveryLocalMethod, CarriesBudgetExhaustedAcrossNlopt) {
  Fixture f(3);
  ContinuousView view(space(), true);
  const auto method = strategies::parse_local_method(GetParam());
  EXPECT_THROW(strategies::local_minimize(view, f.cost, f.rng, method, view.point_of(space().config_at(5)), 1000,
                                          view.epsilon()),
               BudgetExhausted);
  EXPECT_EQ(f.cost.evaluations(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Methods, EveryLocalMethod,
                         ::testing::Values("COBYLA", "Nelder-Mead", "Powell", "BOBYQA", "Subplex", "L-BFGS-B", "SLSQP",
                                           "BFGS", "CG", "trust-constr"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(ContinuousFamily, UnawareTwinsPenaliseInvalidSnapsInsteadOfRepairing) {
  for (const char* name : {"pso", "firefly_algorithm", "dual_annealing", "basinhopping", "minimize"}) {
    std::uint64_t aware_invalid = 99, unaware_invalid = 0;
    run(name, 1, 150, {}, &aware_invalid);
    run(name, 1, 150, {{"constraint_aware", Value(false)}}, &unaware_invalid);
    EXPECT_EQ(aware_invalid, 0u) << name;
    EXPECT_GT(unaware_invalid, 0u) << name;
  }
}

TEST(ContinuousFamily, RestartsUseTheWholeBudgetWithTinyIterationLimits) {
  const std::vector<std::pair<std::string, std::vector<std::pair<std::string, Value>>>> cases = {
      {"pso", {{"popsize", Value(3)}, {"maxiter", Value(2)}}},
      {"firefly_algorithm", {{"popsize", Value(3)}, {"maxiter", Value(2)}}},
      {"dual_annealing", {{"maxiter", Value(2)}, {"local_maxiter", Value(5)}}},
      {"basinhopping", {{"niter", Value(2)}, {"maxiter", Value(5)}}},
      {"minimize", {{"maxiter", Value(5)}}},
  };
  for (const auto& [name, hyper] : cases) {
    const auto r = run(name, 3, 400, hyper);
    EXPECT_EQ(r.evaluations, 400u) << name;
    EXPECT_EQ(r.stop_reason, StopReason::max_evaluations) << name;
  }
}

TEST(ContinuousFamily, HyperparametersChangeTheSearch) {
  const std::vector<std::pair<std::string, std::pair<std::string, Value>>> cases = {
      {"pso", {"c1", Value(0.5)}},
      {"pso", {"w", Value(0.9)}},
      {"firefly_algorithm", {"alpha", Value(0.6)}},
      {"firefly_algorithm", {"gamma", Value(10.0)}},
      {"dual_annealing", {"method", Value(std::string("COBYLA"))}},
      {"dual_annealing", {"initial_temp", Value(1.0)}},
      {"basinhopping", {"stepsize", Value(4.0)}},
      {"basinhopping", {"method", Value(std::string("Nelder-Mead"))}},
      {"minimize", {"method", Value(std::string("BOBYQA"))}},
      {"minimize", {"maxiter", Value(2)}},
  };
  for (const auto& [name, setting] : cases) {
    const auto a = indices(run(name, 4, 120)), b = indices(run(name, 4, 120, {setting}));
    EXPECT_NE(a, b) << name << " " << setting.first;
  }
}

// variant=paper, the constraint-aware paper's PSO and Firefly: another search than ktune's, valid only when aware,
// improving on its first swarm; unaware, penalised invalid snaps, and Firefly's blind starts (one Cartesian draw each)
// ask for more invalid configurations than ktune's classic starts (redrawn while invalid).
TEST(ContinuousFamily, PaperVariantsSearchOtherwiseAndStayValidWhenAware) {
  const std::vector<std::pair<std::string, Value>> paper = {{"variant", Value("paper")}};
  const std::vector<std::pair<std::string, Value>> blind = {{"variant", Value("paper")},
                                                            {"constraint_aware", Value(false)}};
  for (const char* name : {"pso", "firefly_algorithm"}) {
    std::uint64_t invalid = 99;
    const auto aware = run(name, 4, 150, paper, &invalid);
    EXPECT_EQ(invalid, 0u) << name;
    EXPECT_EQ(aware.evaluations, 150u) << name;
    EXPECT_NE(indices(aware), indices(run(name, 4, 150))) << name;
    // The moves after the first swarm (uniform valid draws) improve on it.
    const std::size_t swarm = std::string(name) == "pso" ? 25 : 60;
    double opening = 0, end = 0;
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      const auto r = run(name, seed, 150, paper);
      double first = 1e300;
      for (std::size_t k = 0; k < swarm; ++k) first = std::min(first, bowl(space(), r.trace[k].index));
      opening += first / 10;
      end += bowl(space(), r.trace[*r.trace.best()].index) / 10;
    }
    EXPECT_LT(end, opening) << name;
    std::uint64_t blind_invalid = 0;
    run(name, 4, 150, blind, &blind_invalid);
    EXPECT_GT(blind_invalid, 0u) << name;
  }
  std::uint64_t blind_invalid = 0, classic_invalid = 0;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    std::uint64_t b = 0, c = 0;
    run("firefly_algorithm", seed, 150, blind, &b);
    run("firefly_algorithm", seed, 150, {{"constraint_aware", Value(false)}}, &c);
    blind_invalid += b;
    classic_invalid += c;
  }
  EXPECT_GT(blind_invalid, classic_invalid);
}

TEST(ContinuousFamily, FindTheBowlMinimumWithAModestBudget) {
  std::size_t optimum = 0;
  for (std::size_t i = 1; i < space().size(); ++i)
    if (bowl(space(), i) < bowl(space(), optimum)) optimum = i;
  for (const char* name : {"pso", "firefly_algorithm", "dual_annealing", "basinhopping", "minimize"}) {
    int found = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const auto r = run(name, seed, space().size() / 3);
      found += r.trace[*r.trace.best()].index == optimum;
    }
    EXPECT_GE(found, 3) << name;
  }
}

}  // namespace continuous_test
}  // namespace
}  // namespace ktune
