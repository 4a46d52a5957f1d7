// pyATF's own simulated annealing and differential evolution against traces of pyATF's source: the numbers that
// pyATF's techniques drew in tests/data/pyatf/traces.json (written by bench/pyatf/derive_traces.py, which runs
// pyATF's code and its chain-of-trees mapping) are replayed through ktune's versions, and every step's coordinates
// and configuration must be the same. Also: the coordinate mapping against a direct count, on both space forms.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"
#include "strategies/pyatf_technique.hpp"

namespace ktune {
namespace {
namespace pyatf_test {

using strategies::CoordinateMap;
using strategies::PyatfRandom;
using strategies::PyatfTechnique;

const nlohmann::json& traces() {
  static const nlohmann::json doc = [] {
    std::ifstream in(std::string(KTUNE_SOURCE_DIR) + "/tests/data/pyatf/traces.json");
    if (!in) throw std::runtime_error("cannot read tests/data/pyatf/traces.json");
    return nlohmann::json::parse(in);
  }();
  return doc;
}

// The space of derive_traces.py, in pyATF's parameter order: one tree, 40 valid configurations.
SearchSpace trace_space() {
  ProblemBuilder b("pyatf_trace");
  b.parameter("a", {1, 2, 4, 8}).parameter("b", {1, 2, 3, 4, 5}).parameter("c", {0, 1, 2});
  b.constraint("a * b <= 16").constraint("c == 0 or b > 1");
  return SearchSpace::build(b.build());
}

// derive_traces.py's cost; +inf for its failing configurations (pyATF's None).
double trace_cost(const std::vector<Value>& v) {
  const double a = v[0].to_double(), b = v[1].to_double(), c = v[2].to_double();
  if (a == 8 && c == 2) return std::numeric_limits<double>::infinity();
  return 1.0 + (a - 4) * (a - 4) * 0.25 + (b - 3) * (b - 3) * 1.5 + c * 0.7;
}

// Replays recorded draws: random() must meet an "r" draw, below(n) a "b" draw of the same range.
class ScriptedRandom final : public PyatfRandom {
 public:
  explicit ScriptedRandom(const nlohmann::json& draws) : draws_(draws) {}
  double random() override {
    const auto& d = take();
    if (d[0] != "r") throw std::runtime_error("drew random() where pyATF drew an index");
    return d[1].get<double>();
  }
  std::uint64_t below(std::uint64_t n) override {
    const auto& d = take();
    if (d[0] != "b" || d[1].get<std::uint64_t>() != n) throw std::runtime_error("drew an index where pyATF did not");
    return d[2].get<std::uint64_t>();
  }
  std::size_t left() const { return draws_.size() - next_; }

 private:
  const nlohmann::json& take() {
    if (next_ >= draws_.size()) throw std::runtime_error("more draws than pyATF made");
    return draws_[next_++];
  }
  const nlohmann::json& draws_;
  std::size_t next_ = 0;
};

void expect_trace(const std::string& technique_name) {
  const SearchSpace space = trace_space();
  ASSERT_EQ(space.size(), traces()["valid_configurations"].get<std::size_t>());
  const CoordinateMap map(space);
  for (const auto& run : traces()[technique_name]) {
    SCOPED_TRACE(technique_name + " seed " + std::to_string(run["seed"].get<int>()));
    ScriptedRandom random(run["draws"]);
    auto technique = technique_name == "simulated_annealing"
                         ? strategies::make_pyatf_simulated_annealing(random)
                         : strategies::make_pyatf_differential_evolution(random, {});
    technique->initialize(space.num_params());
    std::size_t step = 0;
    for (const auto& expected : run["steps"]) {
      SCOPED_TRACE("step " + std::to_string(step++));
      const std::vector<double> x = technique->next();
      ASSERT_EQ(x, expected["coordinates"].get<std::vector<double>>());
      const auto values = space.values_at(map.index(x));
      const auto config = expected["config"].get<std::vector<int>>();
      for (std::size_t p = 0; p < 3; ++p) ASSERT_EQ(values[p].to_double(), config[p]) << "parameter " << p;
      technique->report(x, trace_cost(values));
    }
    EXPECT_EQ(random.left(), 0u);  // and drew nothing pyATF did not
  }
}

TEST(PyatfTechniques, SimulatedAnnealingFollowsPyatfsOwnTrace) { expect_trace("simulated_annealing"); }

TEST(PyatfTechniques, DifferentialEvolutionFollowsPyatfsOwnTrace) { expect_trace("differential_evolution"); }

// The chain-of-trees walk done the slow way: per layer, count the valid configurations below each child.
std::vector<std::uint32_t> walk_by_counting(const SearchSpace& space, const std::vector<double>& x) {
  std::vector<std::size_t> below(space.size());
  for (std::size_t i = 0; i < below.size(); ++i) below[i] = i;
  std::vector<std::uint32_t> chosen;
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    std::map<std::uint32_t, std::size_t> children;  // value -> configurations below it, ascending values
    for (std::size_t i : below) ++children[space.value_index(i, p)];
    const double t = x[p] * static_cast<double>(below.size());
    std::size_t left = 0;
    std::uint32_t value = children.rbegin()->first;
    for (const auto& [v, n] : children) {
      if (static_cast<double>(left) < t && t <= static_cast<double>(left + n)) {
        value = v;
        break;
      }
      left += n;
    }
    chosen.push_back(value);
    std::vector<std::size_t> kept;
    for (std::size_t i : below)
      if (space.value_index(i, p) == value) kept.push_back(i);
    below = std::move(kept);
  }
  return chosen;
}

Problem grouped_problem() {
  // Two independent groups, interleaved in the parameter order: {a, c} and {b, d}.
  ProblemBuilder b("grouped");
  b.parameter("a", {1, 2, 3, 4, 5, 6}).parameter("b", {1, 2, 4, 8, 16}).parameter("c", {0, 1, 2, 3});
  b.parameter("d", {1, 2, 3, 4, 5, 6, 7});
  b.constraint("a + c <= 6").constraint("b * d <= 32");
  return b.build();
}

TEST(PyatfTechniques, CoordinatesMapAsPyatfsTreeCountsInEveryForm) {
  const SearchSpace listed = SearchSpace::build(grouped_problem(), {.threads = 1, .form = SpaceForm::materialised});
  const SearchSpace lazy = SearchSpace::build(grouped_problem(), {.threads = 1, .form = SpaceForm::lazy});
  ASSERT_TRUE(lazy.is_lazy());
  // The same configurations sorted under another parameter order (the map must sort them back).
  std::vector<Config> configs;
  for (std::size_t i = 0; i < listed.size(); ++i) configs.push_back(listed.config_at(i));
  const SearchSpace permuted = SearchSpace::from_configs(grouped_problem(), configs, {3, 1, 0, 2});
  const CoordinateMap on_listed(listed), on_lazy(lazy), on_permuted(permuted);
  Rng rng(5);
  std::set<Config> seen;
  for (int k = 0; k < 20000; ++k) {
    std::vector<double> x(4);
    for (double& c : x) c = 1.0 - rng.uniform01();
    if (k % 7 == 0) x[static_cast<std::size_t>(k) % 4] = 1.0;                                       // the top edge
    if (k % 11 == 0) x[static_cast<std::size_t>(k + 1) % 4] = std::numeric_limits<double>::denorm_min();  // the bottom
    const Config found = listed.config_at(on_listed.index(x));
    if (k < 2000) {
      ASSERT_EQ(found, walk_by_counting(listed, x)) << "sample " << k;
    }
    ASSERT_EQ(lazy.config_at(on_lazy.index(x)), found) << "sample " << k;
    ASSERT_EQ(permuted.config_at(on_permuted.index(x)), found) << "sample " << k;
    seen.insert(found);
  }
  // Uniform coordinates reach every valid configuration with the same probability (1/486 here).
  EXPECT_EQ(seen.size(), listed.size());
}

TEST(PyatfTechniques, StrategiesRunWithinTheBudgetOnValidConfigurations) {
  const SearchSpace space = SearchSpace::build(grouped_problem());
  for (const char* name : {"pyatf_simulated_annealing", "pyatf_differential_evolution"}) {
    SCOPED_TRACE(name);
    testing::FakeEvaluator eval(space, [&](std::size_t i) { return trace_cost(space.values_at(i)) + 1.0 * (i % 5); },
                                [](std::size_t) { return 1.0; });
    TuningOptions options;
    options.budget.max_evaluations = 25;
    options.seed = 3;
    auto strategy = make_strategy(name, {});
    const TuningResult first = tune(space, eval, *strategy, options);
    EXPECT_EQ(first.evaluations, 25u);
    auto again = make_strategy(name, {});
    const TuningResult second = tune(space, eval, *again, options);
    ASSERT_EQ(first.trace.size(), second.trace.size());
    for (std::size_t i = 0; i < first.trace.size(); ++i) EXPECT_EQ(first.trace[i].index, second.trace[i].index);
  }
}

}  // namespace pyatf_test
}  // namespace
}  // namespace ktune
