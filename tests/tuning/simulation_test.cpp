// Simulated tuning on the brute-forced benchmark_hub caches: brute_force finds each cache's optimum, the clock is
// the sum of the charged times, random_sample is reproducible, and the Kernel Tuner cache and T4 versions of one
// space give identical runs. Expectations are computed here from the records, independently of the evaluator.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>

#include "ktune/io/results_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/tune.hpp"
#include "shared_data.hpp"

namespace ktune {
namespace {

using testing::shared_path;

std::shared_ptr<const io::ResultsFile> load(const std::string& relative) {
  static std::map<std::string, std::shared_ptr<const io::ResultsFile>> loaded;
  auto& slot = loaded[relative];
  if (!slot) slot = std::make_shared<const io::ResultsFile>(io::read_results_file(shared_path(relative)));
  return slot;
}

// The optimum and the total charged time of a whole file, from the raw record fields.
struct Expected {
  double optimum = std::numeric_limits<double>::infinity();
  double total_ms = 0;
  std::size_t configurations = 0;
};

Expected expected_of(const io::ResultsFile& file, const std::string& objective) {
  Expected e;
  for (const auto& r : file.records) {
    if (r.status == Status::invalid) continue;
    ++e.configurations;
    double t = r.compile_ms + r.framework_ms + r.verification_ms;
    for (double x : r.runtimes_ms) t += x;
    e.total_ms += t;
    if (r.status != Status::ok) continue;
    double v;
    if (const Measurement* m = r.find(objective)) {
      v = m->value.to_double();
    } else {
      double sum = 0;
      for (double x : r.runtimes_ms) sum += x;
      v = sum / static_cast<double>(r.runtimes_ms.size());
    }
    e.optimum = std::min(e.optimum, v);
  }
  return e;
}

TuningResult run(const SearchSpace& space, Evaluator& evaluator, const std::string& strategy, std::uint64_t seed,
                 std::optional<std::uint64_t> max_fevals = std::nullopt) {
  auto s = make_strategy(strategy);
  TuningOptions options;
  options.seed = seed;
  options.budget.max_evaluations = max_fevals;
  return tune(space, evaluator, *s, options);
}

const char* const kCaches[] = {
    "convolution_milo/A100",   "convolution_milo/A4000", "convolution_milo/MI250X", "dedispersion_milo/A100",
    "dedispersion_milo/A4000", "dedispersion_milo/MI250X", "gemm_clblast/RTX_3090", "gemm_clblast/RTX_Titan",
    "pnpoly/RTX_3090",         "pnpoly/RTX_Titan",
};

class EveryCache : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryCache, BruteForceFindsTheOptimumAndChargesEveryRecordedTime) {
  const auto file = load(std::string("data/benchmark_hub/cachefiles/") + GetParam() + ".json.gz");
  const auto space = space_from_results(*file);
  SimulationEvaluator evaluator(space, file, make_objectives({"time"}));
  const Expected expected = expected_of(*file, "time");
  ASSERT_EQ(space.size(), expected.configurations);

  const auto result = run(space, evaluator, "brute_force", 0);
  EXPECT_EQ(result.evaluations, space.size());
  ASSERT_TRUE(result.trace.best());
  EXPECT_EQ(result.trace.values(*result.trace.best())[0], expected.optimum);
  EXPECT_NEAR(result.clock_ms, expected.total_ms, 1e-9 * expected.total_ms);
  // Each step of the clock is what that evaluation was charged.
  double clock = 0;
  for (const auto& e : result.trace.entries()) {
    clock += e.charged_ms;
    EXPECT_EQ(e.clock_ms, clock);
  }
}

TEST_P(EveryCache, RandomSampleIsReproducible) {
  const auto file = load(std::string("data/benchmark_hub/cachefiles/") + GetParam() + ".json.gz");
  const auto space = space_from_results(*file);
  SimulationEvaluator evaluator(space, file, make_objectives({"time"}));
  const auto a = run(space, evaluator, "random_sample", 7, 300), b = run(space, evaluator, "random_sample", 7, 300);
  const auto c = run(space, evaluator, "random_sample", 8, 300);
  ASSERT_EQ(a.trace.size(), 300u);
  ASSERT_EQ(b.trace.size(), 300u);
  bool differs = false;
  for (std::size_t i = 0; i < 300; ++i) {
    EXPECT_EQ(a.trace[i].index, b.trace[i].index);
    EXPECT_EQ(a.trace[i].clock_ms, b.trace[i].clock_ms);
    EXPECT_EQ(a.trace.cost(i), b.trace.cost(i));
    differs = differs || a.trace[i].index != c.trace[i].index;
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(a.clock_ms, b.clock_ms);
}

INSTANTIATE_TEST_SUITE_P(BenchmarkHub, EveryCache, ::testing::ValuesIn(kCaches), [](const auto& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

// Kernel Tuner cache vs T4 of the same space, on the T1 problem (the constrained space) and without it.
class BothFormats : public ::testing::TestWithParam<const char*> {};

TEST_P(BothFormats, GiveIdenticalRuns) {
  const std::string base = std::string("data/benchmark_hub/cachefiles/") + GetParam();
  const std::string app = std::string(GetParam()).substr(0, std::string(GetParam()).find('/'));
  const auto kt = load(base + ".json.gz"), t4 = load(base + "_T4.json.gz");
  const auto space = SearchSpace::build(io::read_t1_file(shared_path("data/benchmark_hub/t1/" + app + ".json")));
  SimulationEvaluator from_kt(space, kt, make_objectives({"time"})), from_t4(space, t4, make_objectives({"time"}));
  EXPECT_EQ(from_kt.configurations_recorded(), space.size());  // the T1 space is exactly the brute-forced one
  EXPECT_EQ(from_t4.configurations_recorded(), space.size());

  for (const char* strategy : {"brute_force", "random_sample"}) {
    const auto a = run(space, from_kt, strategy, 3), b = run(space, from_t4, strategy, 3);
    ASSERT_EQ(a.trace.size(), b.trace.size()) << strategy;
    for (std::size_t i = 0; i < a.trace.size(); ++i) {
      ASSERT_EQ(a.trace[i].index, b.trace[i].index) << strategy << " " << i;
      ASSERT_EQ(a.trace[i].status, b.trace[i].status) << strategy << " " << i;
      ASSERT_EQ(a.trace[i].clock_ms, b.trace[i].clock_ms) << strategy << " " << i;
      ASSERT_EQ(a.trace.cost(i), b.trace.cost(i)) << strategy << " " << i;
    }
    EXPECT_EQ(a.trace.best(), b.trace.best());
    // And the optimum of the T1 space is the optimum of the file.
    EXPECT_EQ(a.trace.values(*a.trace.best())[0], expected_of(*kt, "time").optimum);
  }
  // Without a problem the spaces are the recorded configurations, the same from both files.
  const auto space_kt = space_from_results(*kt), space_t4 = space_from_results(*t4);
  ASSERT_EQ(space_kt.size(), space_t4.size());
  SimulationEvaluator bare_kt(space_kt, kt, make_objectives({"time"})), bare_t4(space_t4, t4, make_objectives({"time"}));
  const auto a = run(space_kt, bare_kt, "random_sample", 11, 500), b = run(space_t4, bare_t4, "random_sample", 11, 500);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < a.trace.size(); ++i) {
    EXPECT_EQ(space_kt.values_at(a.trace[i].index)[0].repr(), space_t4.values_at(b.trace[i].index)[0].repr());
    EXPECT_EQ(a.trace.cost(i), b.trace.cost(i));
    EXPECT_EQ(a.trace[i].clock_ms, b.trace[i].clock_ms);
  }
}

INSTANTIATE_TEST_SUITE_P(BenchmarkHub, BothFormats,
                         ::testing::Values("convolution_milo/A100", "convolution_milo/A4000", "convolution_milo/MI250X",
                                           "dedispersion_milo/A100", "dedispersion_milo/A4000",
                                           "dedispersion_milo/MI250X"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(Simulation, MaximisedObjectiveFromTheCache) {
  const auto file = load("data/benchmark_hub/cachefiles/dedispersion_milo/A4000.json.gz");
  const auto space = space_from_results(*file);
  SimulationEvaluator evaluator(space, file, make_objectives({"GB/s"}));
  const auto result = run(space, evaluator, "brute_force", 0);
  double best = -1;
  for (const auto& r : file->records) best = std::max(best, r.find("GB/s")->value.to_double());
  EXPECT_EQ(result.trace.values(*result.trace.best())[0], best);
}

TEST(Simulation, ErrorsNameWhatDoesNotMatch) {
  const auto file = load("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz");
  const auto dedispersion = SearchSpace::build(io::read_t1_file(shared_path("data/benchmark_hub/t1/dedispersion_milo.json")));
  try {
    SimulationEvaluator(dedispersion, file, make_objectives({"time"}));
    FAIL();
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("do not match"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not recorded: "), std::string::npos) << e.what();
  }
  const auto space = space_from_results(*file);
  try {
    SimulationEvaluator(space, file, make_objectives({"GFLOP/s"}));
    FAIL();
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("objective 'GFLOP/s' is not recorded"), std::string::npos) << e.what();
  }
}

TEST(Simulation, FailuresAreChargedAndConfigurationsMissingFromTheFileAreInvalid) {
  // convolution on A100 has 161 failed configurations; its T1 space without the T1 constraints is larger than the
  // recorded one, so some configurations are missing.
  const auto file = load("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz");
  Problem problem = file->problem;
  const auto space = SearchSpace::build(problem);
  SimulationEvaluator evaluator(space, file, make_objectives({"time"}));
  ASSERT_GT(space.size(), evaluator.configurations_recorded());
  const auto result = run(space, evaluator, "brute_force", 0);
  std::size_t failed = 0, missing = 0;
  for (const auto& e : result.trace.entries()) {
    if (e.status == Status::invalid) {
      ++missing;
      EXPECT_EQ(e.charged_ms, 0.0);
    } else if (e.status != Status::ok) {
      ++failed;
      EXPECT_GT(e.charged_ms, 0.0);
      EXPECT_EQ(result.trace.cost(&e - result.trace.entries().data()), std::numeric_limits<double>::infinity());
    }
  }
  EXPECT_EQ(failed, 161u);
  EXPECT_EQ(missing, space.size() - evaluator.configurations_recorded());
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// Every registered strategy, now and later: the same seed and inputs give the same trace; the budget holds.
TEST(EveryStrategy, SameSeedSameTraceWithinTheBudget) {
  const auto file = load("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz");
  const auto space = SearchSpace::build(io::read_t1_file(shared_path("data/benchmark_hub/t1/convolution_milo.json")));
  SimulationEvaluator evaluator(space, file, make_objectives({"time"}));
  for (const auto& info : strategy_registry()) {
    for (std::uint64_t seed : {1u, 2u}) {
      const auto a = run(space, evaluator, info.name, seed, 150), b = run(space, evaluator, info.name, seed, 150);
      EXPECT_LE(a.evaluations, 150u) << info.name;
      ASSERT_EQ(a.trace.size(), b.trace.size()) << info.name;
      for (std::size_t i = 0; i < a.trace.size(); ++i) {
        ASSERT_EQ(a.trace[i].index, b.trace[i].index) << info.name << " seed " << seed << " step " << i;
        ASSERT_EQ(a.trace[i].clock_ms, b.trace[i].clock_ms) << info.name;
        ASSERT_EQ(a.trace[i].status, b.trace[i].status) << info.name;
      }
      EXPECT_EQ(a.clock_ms, b.clock_ms) << info.name;
    }
  }
}

}  // namespace
}  // namespace ktune
