// Strategies in a worker process: the same trace as in process (the worker decides on the caller's answers and a
// budget that follows the caller's), and a strategy that crashes, hangs or throws costs its run, not the caller.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ktune/jobs/comparison_job.hpp"
#include "ktune/jobs/comparison_reports.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/tuning/isolated_strategy.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {

using namespace ktune;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;

const std::string kPluginData = std::string(KTUNE_SOURCE_DIR) + "/tests/data/plugins/";
const std::string kSpace = shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000_T4.json.gz");

const bool kCacheInTemp = [] {
  ::setenv("KTUNE_PLUGIN_CACHE", (temp_dir() / "plugin-cache").c_str(), 1);
  return true;
}();

TuneRequest request(const std::string& strategy, bool isolate) {
  TuneRequest r;
  r.simulate_path = kSpace;
  r.strategy = strategy;
  r.budget.max_evaluations = 120;
  r.seed = 11;
  r.isolate_strategy = isolate;
  return r;
}

struct RunResult {
  std::vector<std::size_t> indices;
  StopReason stop = StopReason::strategy_finished;
  std::string failure;
  double clock_ms = 0;
};

RunResult run(TuneRequest r) {
  TuneJob job(std::move(r));
  const TuneOutcome outcome = job.run();
  RunResult out;
  for (const auto& e : outcome.result.trace.entries()) out.indices.push_back(e.index);
  out.stop = outcome.result.stop_reason;
  out.failure = outcome.result.failure;
  out.clock_ms = outcome.result.clock_ms;
  return out;
}

TEST(IsolatedStrategy, TracesAreTheSameAsInProcess) {
  for (const std::string strategy : {"random_sample", "genetic_algorithm", "simulated_annealing", "pso", "mls",
                                     "dual_annealing", "bayes_opt"}) {
    SCOPED_TRACE(strategy);
    const RunResult in_process = run(request(strategy, false));
    const RunResult isolated = run(request(strategy, true));
    EXPECT_EQ(isolated.indices, in_process.indices);
    EXPECT_EQ(isolated.stop, in_process.stop);
    EXPECT_DOUBLE_EQ(isolated.clock_ms, in_process.clock_ms);
  }
  // A time budget on the simulated clock, which the worker's own clock follows.
  TuneRequest timed = request("simulated_annealing", false);
  timed.budget.max_evaluations.reset();
  timed.budget.time_limit_seconds = 60;
  TuneRequest timed_isolated = timed;
  timed_isolated.isolate_strategy = true;
  const RunResult a = run(timed), b = run(timed_isolated);
  EXPECT_EQ(a.stop, StopReason::time_limit);
  EXPECT_EQ(b.indices, a.indices);
}

TEST(IsolatedStrategy, AResumedCacheIsKnownToTheWorker) {
  const std::string cache = (temp_dir() / "isolated_cache.json").string();
  TuneRequest first = request("genetic_algorithm", false);
  first.cache_path = cache;
  first.budget.max_evaluations = 40;
  (void)run(first);
  TuneRequest in_process = request("genetic_algorithm", false), isolated = request("genetic_algorithm", true);
  // Resumed from copies of the same cache.
  const std::string copy = (temp_dir() / "isolated_cache_copy.json").string();
  std::filesystem::copy_file(cache, copy, std::filesystem::copy_options::overwrite_existing);
  in_process.cache_path = cache;
  isolated.cache_path = copy;
  EXPECT_EQ(run(isolated).indices, run(in_process).indices);
}

TEST(IsolatedStrategy, ACrashCostsTheRunAndKeepsWhatItEvaluated) {
  const RunResult crashed = run(request(kPluginData + "crashing.cpp", true));
  EXPECT_EQ(crashed.stop, StopReason::strategy_failed);
  EXPECT_EQ(crashed.indices.size(), 10u);
  EXPECT_NE(crashed.failure.find("crashed: signal 11"), std::string::npos) << crashed.failure;

  const RunResult threw = run(request(kPluginData + "throwing.cpp", true));
  EXPECT_EQ(threw.stop, StopReason::strategy_failed);
  EXPECT_EQ(threw.indices.size(), 7u);
  EXPECT_NE(threw.failure.find("threw: the plug-in gave up"), std::string::npos) << threw.failure;
}

TEST(IsolatedStrategy, AHangIsStoppedAtItsLimit) {
  TuneRequest r = request(kPluginData + "hanging.cpp", true);
  r.isolation_seconds = 1;
  const auto start = std::chrono::steady_clock::now();
  const RunResult hung = run(r);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(hung.stop, StopReason::strategy_failed);
  EXPECT_EQ(hung.indices.size(), 5u);
  EXPECT_NE(hung.failure.find("limit of 1 s"), std::string::npos) << hung.failure;
  EXPECT_LT(seconds, 15);  // the compile of the plug-in included
}

TEST(IsolatedStrategy, ACrashingStrategyInACompareLosesItsRunsAndTheOthersAreScored) {
  CompareRequest r;
  r.spaces = {kSpace};
  r.strategies = {kPluginData + "crashing.cpp", "random_sample"};
  r.options.repeats = 3;
  r.options.threads = 2;
  r.options.isolate = true;
  const ComparisonJob job(std::move(r));
  const auto report = job.run();
  EXPECT_FALSE(report.interrupted);
  ASSERT_EQ(report.failures.size(), 3u);
  EXPECT_EQ(report.failures[0].run, 0u);
  EXPECT_NE(report.failures[0].message.find("signal 11"), std::string::npos);
  EXPECT_TRUE(std::isnan(report.spaces[0].strategies[0].score));
  EXPECT_TRUE(std::isfinite(report.spaces[0].strategies[1].score));
  EXPECT_EQ(comparison_json(report, false).at("strategy_failures").size(), 3u);
}

TEST(IsolatedStrategy, AMultiObjectiveComparisonKeepsWhatAFailedRunEvaluated) {
  CompareRequest r;
  r.spaces = {kSpace};
  r.strategies = {kPluginData + "crashing.cpp"};
  r.objectives = {"time,threads:max"};
  r.derived = {"threads=block_size_x*block_size_y"};
  r.budget = 30;
  r.checkpoints = {30};
  r.options.repeats = 2;
  r.options.isolate = true;
  const ComparisonJob job(std::move(r));
  const auto report = job.run_multiobjective();
  ASSERT_EQ(report.failures.size(), 2u);
  EXPECT_NE(report.failures[1].message.find("signal 11"), std::string::npos);
  EXPECT_EQ(multiobjective_comparison_json(report, false).at("strategy_failures").size(), 2u);
  // Scored as runs that ended after their 10 evaluations: a finite IGD+ at the checkpoint.
  const auto& crashing = report.spaces[0].strategies[0];
  EXPECT_TRUE(std::isfinite(crashing.median_igd[29]));
}

}  // namespace

namespace {

bool mapped_here(const std::string& library) {
  return ktune::testing::read_text("/proc/self/maps").find(library) != std::string::npos;
}

// A .so given with --isolate is loaded only in sandboxes (never in this process) and runs as the same code does in
// process (here: compiled from its .cpp).
TEST(IsolatedStrategy, ASharedLibraryPluginIsLoadedOnlyInItsWorkerAndTracesAsInProcess) {
  const std::string library = KTUNE_EXAMPLE_PLUGIN;
  const RunResult isolated = run(request(library, true));
  EXPECT_FALSE(mapped_here(library));
  const RunResult in_process =
      run(request(std::string(KTUNE_SOURCE_DIR) + "/examples/custom_strategy/steepest_descent.cpp", false));
  EXPECT_EQ(isolated.indices, in_process.indices);
  EXPECT_EQ(isolated.stop, in_process.stop) << isolated.failure;
}

}  // namespace
