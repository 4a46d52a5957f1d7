// Adaptive repetition in the live evaluator (issue 38): how many runs a configuration gets, early rejection against
// the best so far, the records' interval fields, the fixed fallback with launch observers; and its replay on a
// recorded cache (RepetitionReplay).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "fake_backend.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/repetition_replay.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

using live::LiveEvaluator;
using testing::fake_factory;
using testing::fake_specification;

double measured(const EvaluationRecord& r, const std::string& name) {
  const Measurement* m = r.find(name);
  return m ? m->value.to_double() : -1;
}

Problem two_kernels() {
  return ProblemBuilder("fake").parameter("kernel", {Value("correct"), Value("trivial")}).constant("n_elements", 64)
      .build();
}

TEST(AdaptiveRepetition, StableRunsStopAtTheMinimumAndNoisyOnesGetMore) {
  const Problem problem = two_kernels();
  const SearchSpace space = SearchSpace::build(problem);
  testing::FakeBackendOptions o;
  o.durations_of["correct"] = {100, 1.0, 1.0, 1.0};                           // the warm-up, then steady
  o.durations_of["trivial"] = {100, 1.0, 1.3, 0.7, 1.2, 0.8, 1.1, 0.9, 1.0};  // ±30%: more runs
  auto spec = fake_specification();
  spec.repetition = RepetitionPolicy::parse("auto:reject=0");
  for (bool isolate : {true, false}) {
    LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = isolate, .backend_factory = fake_factory(o)});
    ASSERT_EQ(evaluator.evaluate(0).status, Status::ok);
    const EvaluationRecord steady = evaluator.record(0);
    EXPECT_EQ(steady.runtimes_ms.size(), 3u);
    EXPECT_DOUBLE_EQ(measured(steady, "time"), 1.0);
    EXPECT_DOUBLE_EQ(measured(steady, "time_runs"), 3);
    EXPECT_DOUBLE_EQ(measured(steady, "time_ci_low"), 1.0);
    EXPECT_DOUBLE_EQ(measured(steady, "time_rejected"), 0);
    ASSERT_EQ(evaluator.evaluate(1).status, Status::ok);
    const EvaluationRecord noisy = evaluator.record(1);
    EXPECT_GT(noisy.runtimes_ms.size(), 3u);
    EXPECT_LE(noisy.runtimes_ms.size(), 31u);
    EXPECT_DOUBLE_EQ(measured(noisy, "time_runs"), static_cast<double>(noisy.runtimes_ms.size()));
    // Stopped where the interval is within 2%, or at the cap.
    const double half = (measured(noisy, "time_ci_high") - measured(noisy, "time_ci_low")) / 2;
    EXPECT_TRUE(half <= 0.02 * measured(noisy, "time") + 1e-12 || noisy.runtimes_ms.size() == 31u);
  }
}

TEST(AdaptiveRepetition, ClearlySlowerThanTheBestStopsAfterTheMinimum) {
  const Problem problem = two_kernels();
  const SearchSpace space = SearchSpace::build(problem);
  testing::FakeBackendOptions o;
  o.durations_of["correct"] = {100, 1.0, 1.01, 0.99};
  o.durations_of["trivial"] = {100, 2.0, 2.1, 1.9, 2.05, 1.95};
  auto spec = fake_specification();
  spec.repetition = RepetitionPolicy::parse("auto:precision=0.001");  // only rejection can stop it early
  LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = false, .backend_factory = fake_factory(o)});
  ASSERT_EQ(evaluator.evaluate(0).status, Status::ok);
  ASSERT_EQ(evaluator.evaluate(1).status, Status::ok);
  const EvaluationRecord slow = evaluator.record(1);
  EXPECT_EQ(slow.runtimes_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(measured(slow, "time_rejected"), 1);
  EXPECT_NEAR(measured(slow, "time"), 2.0, 1e-12);
  // Without the best first, the same configuration is measured until precise or capped.
  LiveEvaluator alone(problem, space, spec, {.objectives = {}, .isolate = false, .backend_factory = fake_factory(o)});
  ASSERT_EQ(alone.evaluate(1).status, Status::ok);
  EXPECT_GT(alone.record(1).runtimes_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(measured(alone.record(1), "time_rejected"), 0);
}

TEST(AdaptiveRepetition, FixedRunsKeepEveryRunAndSayTheirInterval) {
  const Problem problem = two_kernels();
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();  // fixed: 5 runs
  LiveEvaluator evaluator(problem, space, spec,
                          {.objectives = {}, .isolate = false, .backend_factory = fake_factory(testing::fake_options({100, 1, 9, 1, 1, 1}))});
  ASSERT_EQ(evaluator.evaluate(0).status, Status::ok);
  const EvaluationRecord r = evaluator.record(0);
  EXPECT_EQ(r.runtimes_ms.size(), 5u);
  EXPECT_DOUBLE_EQ(measured(r, "time"), 2.6);  // Kernel Tuner's mean: the outlier counts
  EXPECT_DOUBLE_EQ(measured(r, "time_runs"), 5);
  EXPECT_LT(measured(r, "time_ci_low"), 2.6);
  EXPECT_EQ(r.find("time_outliers"), nullptr);  // only adaptive repetition leaves runs out
  EXPECT_TRUE(evaluator.repetition_note().empty());
}

// A Kernel Tuner cache of three configurations with ten recorded runs each.
std::string write_cache() {
  const std::string path = testing::fresh_temp_path("replay_cache.json");
  std::ofstream out(path);
  out << R"({"device_name": "dev", "kernel_name": "k", "problem_size": [1], "tune_params_keys": ["x"],
"tune_params": {"x": [0, 1, 2]}, "objective": "time", "cache": {
"0": {"x": 0, "time": 1.0, "times": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], "compile_time": 100, "verification_time": 0, "benchmark_time": 10, "framework_time": 0},
"1": {"x": 1, "time": 2.0, "times": [2.0, 2.1, 1.9, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], "compile_time": 100, "verification_time": 0, "benchmark_time": 20, "framework_time": 0},
"2": {"x": 2, "time": 1.05, "times": [1.0, 1.1, 1.0, 1.1, 1.0, 1.1, 1.0, 1.1, 1.0, 1.1], "compile_time": 100, "verification_time": 0, "benchmark_time": 10.5, "framework_time": 0}}})";
  return path;
}

TEST(RepetitionReplay, TakesTheRecordedRunsAsALiveRunWouldAndChargesOnlyThose) {
  const auto results = std::make_shared<const io::ResultsFile>(io::read_results_file(write_cache()));
  const SearchSpace space = space_from_results(*results);
  SimulationEvaluator recorded(space, results, {{"time", false}});
  RepetitionReplay replay(recorded, RepetitionPolicy::parse("auto"));
  const auto index_of = [&](int x) { return *space.index_of(*space.config_of({Value(x)})); };
  // x=0: steady, precise after 3 runs: charged compile + 3 ms.
  EvaluationOutcome a = replay.evaluate(index_of(0));
  EXPECT_DOUBLE_EQ(a.objectives[0], 1.0);
  EXPECT_DOUBLE_EQ(a.charged_ms, recorded.evaluate(index_of(0)).charged_ms - 7.0);
  // x=1: clearly slower than x=0 after 3 runs: rejected.
  EvaluationOutcome b = replay.evaluate(index_of(1));
  EXPECT_NEAR(b.objectives[0], 2.0, 1e-12);
  EXPECT_EQ(replay.rejected(), 1u);
  // x=2: close to the best, noisy: more than 3 runs, at most the 10 recorded.
  const std::uint64_t before = replay.runs_taken();
  EvaluationOutcome c = replay.evaluate(index_of(2));
  EXPECT_GT(replay.runs_taken() - before, 3u);
  EXPECT_LE(replay.runs_taken() - before, 10u);
  EXPECT_NEAR(c.objectives[0], 1.05, 0.05);
  EXPECT_EQ(replay.runs_recorded(), 30u);
  // Fixed repetition is the recording itself.
  RepetitionReplay fixed(recorded, RepetitionPolicy::parse("7"));
  EXPECT_DOUBLE_EQ(fixed.evaluate(index_of(1)).charged_ms, recorded.evaluate(index_of(1)).charged_ms);
}

}  // namespace
}  // namespace ktune
