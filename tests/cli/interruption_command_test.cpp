// Issue 19 item 1 for the simulated verbs: SIGINT during `tune --simulate`, `compare` and `hypertune` ends the run
// with exit status 130, every requested output written and valid with what was done, and the caches resume.
// (The live run: tests/live/live_interruption_test.cpp.)
#include <signal.h>

#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ktune/io/results_file.hpp"
#include "shared_data.hpp"
#include "spawn_ktune.hpp"

namespace {
namespace interruption_command_test {

using namespace ktune::testing;

std::string space(const std::string& app, const std::string& gpu) {
  return shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + "_T4.json.gz");
}

std::size_t records_in(const std::string& path) {
  try {
    return ktune::io::read_results_file(path).records.size();
  } catch (const std::exception&) {
    return 0;
  }
}

std::string fresh(const std::string& name) {
  const std::string path = (cli_temp_dir() / name).string();
  std::filesystem::remove(path);
  return path;
}

TEST(Interruption, SimulatedTuneWritesItsOutputsAndResumes) {
  const std::string cache = fresh("sim_cache.json"), csv = fresh("sim.csv"), t4 = fresh("sim_t4.json");
  const std::string results = space("dedispersion_milo", "A100");
  // Bayesian optimisation refits its model at every step: slow enough to be interrupted in the middle.
  SpawnedKtune run({"tune", "--simulate", results, "--strategy", "bayes_opt", "--max-fevals", "3000", "--cache", cache,
                    "--csv", csv, "--output", t4, "--json", "--seed", "4"},
                   "sim");
  ASSERT_TRUE(run.started());
  ASSERT_TRUE(wait_until([&] { return records_in(cache) >= 20; })) << run.err_so_far();
  run.signal(SIGINT);
  const KtuneRun done = run.wait();
  ASSERT_EQ(done.exit_code, 130) << done.err;
  const auto j = nlohmann::json::parse(done.out);
  EXPECT_EQ(j.at("stop_reason"), "interrupted");
  const auto measured = j.at("evaluations").get<std::size_t>();
  EXPECT_GE(measured, 20u);
  EXPECT_LT(measured, 3000u);
  EXPECT_EQ(ktune::io::read_results_file(t4).records.size(), measured);
  EXPECT_EQ(records_in(cache), measured);
  EXPECT_TRUE(contains(done.err, "interrupted after " + std::to_string(measured) + " evaluations")) << done.err;

  // Resumed with a smaller budget that the cache already covers: nothing new is evaluated.
  const KtuneRun rerun = run_ktune("tune --simulate " + quoted(results) + " --strategy bayes_opt --max-fevals 10 --cache " +
                                   quoted(cache) + " --json --quiet --seed 4");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(nlohmann::json::parse(rerun.out).at("resumed").get<std::size_t>(), measured);
}

TEST(Interruption, CompareReportsWhatFinished) {
  const std::string report = fresh("compare_report.json");
  SpawnedKtune run({"compare", "--spaces", space("convolution_milo", "A4000"), space("dedispersion_milo", "A4000"),
                    "--strategies", "genetic_algorithm", "random_sample", "--repeats", "2000", "--threads", "1",
                    "--output", report, "--json"},
                   "compare");
  ASSERT_TRUE(run.started());
  // The first progress line (stderr) comes once a run has finished.
  ASSERT_TRUE(wait_until([&] { return contains(run.err_so_far(), " of 8000 runs"); })) << run.err_so_far();
  ASSERT_TRUE(run.running()) << "finished before it could be interrupted";
  run.signal(SIGINT);
  const KtuneRun done = run.wait();
  ASSERT_EQ(done.exit_code, 130) << done.err;
  const auto j = nlohmann::json::parse(done.out);
  const auto& interrupted = j.at("interrupted");
  EXPECT_GT(interrupted.at("runs_finished").get<int>(), 0);
  EXPECT_LT(interrupted.at("runs_finished").get<int>(), interrupted.at("runs_total").get<int>());
  EXPECT_EQ(interrupted.at("runs_total"), 2 * 2 * 2000);
  const auto written = nlohmann::json::parse(read_text(report));
  EXPECT_EQ(written.at("interrupted"), interrupted);
}

TEST(Interruption, HypertuneKeepsItsScoreCacheAndResumes) {
  const std::string cache = fresh("hyper_scores.json");
  const std::string hyperspace = cli_write_temp("interrupt_hyperspace.json", R"({"ConfigurationSpace": {
      "TuningParameters": [{"Name": "popsize", "Type": "int", "Values": "[6, 12, 24, 48]"},
                           {"Name": "method", "Type": "string", "Values": "['uniform', 'two_point']"}],
      "Conditions": []}})");
  const std::vector<std::string> args{"hypertune", "--strategy", "genetic_algorithm", "--repeats", "40",
                                      "--threads", "1", "--hyperspace", hyperspace, "--spaces",
                                      space("convolution_milo", "A4000"), space("dedispersion_milo", "A4000"),
                                      "--output", cache, "--json", "--quiet"};
  SpawnedKtune run(args, "hypertune");
  ASSERT_TRUE(run.started());
  ASSERT_TRUE(wait_until([&] { return records_in(cache) >= 1; })) << run.err_so_far();
  run.signal(SIGINT);
  const KtuneRun done = run.wait();
  ASSERT_EQ(done.exit_code, 130) << done.err;
  const auto j = nlohmann::json::parse(done.out);
  EXPECT_EQ(j.at("interrupted"), true);
  const auto scored = j.at("evaluations").get<std::size_t>();
  EXPECT_GE(scored, 1u);
  EXPECT_LT(scored, 8u);
  EXPECT_EQ(records_in(cache), scored);

  std::string rest;
  for (const auto& a : args) rest += ktune::testing::quoted(a) + " ";
  const KtuneRun rerun = run_ktune(rest);  // the same command again
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  const auto r = nlohmann::json::parse(rerun.out);
  EXPECT_EQ(r.at("resumed").get<std::size_t>(), scored);
  EXPECT_EQ(r.at("evaluations").get<std::size_t>() + scored, 8u);
  EXPECT_EQ(records_in(cache), 8u);
}

}  // namespace interruption_command_test
}  // namespace
