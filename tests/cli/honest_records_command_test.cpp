// Issue 19, items 5, 6, 9 and 10 end to end: numeric options are range-checked with a short message in every verb;
// the same strategy settings spelled three ways score the same; an objective a file does not record is named as such;
// `space` and `tune --simulate` count a cache's space the same way; `tune` has --max-threads and
// --no-implicit-block-constraint.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {
namespace honest_records_command_test {

using namespace ktune::testing;

std::string space(const std::string& app, const std::string& gpu, const std::string& suffix = "_T4") {
  return quoted(shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + suffix + ".json.gz"));
}
const std::string kSpace = space("convolution_milo", "A4000");

struct BadOption {
  std::string args;
  std::string says;  // part of the one-line message
};

TEST(NumericOptions, OutOfRangeValuesAreUsageErrorsWithAShortMessage) {
  const std::string hyperspace = cli_write_temp("numeric_hyperspace.json", R"({"ConfigurationSpace": {
      "TuningParameters": [{"Name": "popsize", "Type": "int", "Values": "[6, 12]"}], "Conditions": []}})");
  const std::string hyper = "hypertune --strategy genetic_algorithm --hyperspace " + quoted(hyperspace) + " --spaces " +
                            kSpace + " ";
  const BadOption cases[] = {
      {"tune --simulate " + kSpace + " --max-fevals -5", "--max-fevals"},
      {"tune --simulate " + kSpace + " --max-fevals 0", "--max-fevals"},
      {"tune --simulate " + kSpace + " --seed -1", "--seed: -1 is below 0"},  // not 18446744073709551615
      {"tune --simulate " + kSpace + " --fraction 1.5", "--fraction"},
      {"tune --simulate " + kSpace + " --time-limit -2", "--time-limit"},
      {"tune --simulate " + kSpace + " --max-threads 0", "--max-threads"},
      {"tune --simulate " + kSpace + " --max-fevals 99999999999999999999999", "--max-fevals"},
      {hyper + "--budget -3", "--budget"},
      {hyper + "--repeats 0", "--repeats"},
      {hyper + "--threads -1", "--threads"},
      {"compare --spaces " + kSpace + " --strategies random_sample --repeats -2", "--repeats"},
      {"compare --spaces " + kSpace + " --strategies random_sample --seed -7", "--seed: -7 is below 0"},
      {"compare --spaces " + kSpace + " --strategies random_sample --threads 100000", "--threads"},
      {"space " + kSpace + " --threads -4", "--threads"},
  };
  for (const BadOption& c : cases) {
    SCOPED_TRACE(c.args);
    const KtuneRun run = run_ktune(c.args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_TRUE(contains(run.err, c.says)) << run.err;
    EXPECT_LT(run.err.size(), 200u) << run.err;  // not CLI11's range text nor an allocation error
    EXPECT_FALSE(contains(run.err, "bad_alloc")) << run.err;
    EXPECT_FALSE(contains(run.err, "max_size")) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
  }
}

TEST(NumericOptions, ThreadsZeroMeansEveryCoreInEveryVerb) {
  for (const std::string& args :
       {"space " + space("convolution_milo", "A4000", "") + " --threads 0 --json",
        "compare --spaces " + kSpace + " --strategies random_sample --repeats 2 --threads 0 --json --quiet"}) {
    SCOPED_TRACE(args);
    const KtuneRun run = run_ktune(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
  }
}

TEST(StrategySeeds, TheSameSettingsScoreTheSameHoweverTheyAreSpelled) {
  // The full label of simulated annealing's defaults, from `ktune strategies --json`.
  const KtuneRun list = run_ktune("strategies --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::string full = "simulated_annealing:", t_default;
  bool first = true;
  const auto listed = nlohmann::json::parse(list.out);
  for (const auto& s : listed.at("strategies"))
    if (s.at("name") == "simulated_annealing")
      for (const auto& h : s.at("hyperparameters")) {
        // Strings as the label syntax writes them: bare (name:neighbor=Hamming).
        const auto& d = h.at("default");
        full += (first ? "" : ",") + h.at("name").get<std::string>() + "=" +
                (d.is_string() ? d.get<std::string>() : d.dump());
        if (h.at("name") == "T") t_default = h.at("default").dump();
        first = false;
      }
  ASSERT_FALSE(t_default.empty()) << list.out;
  const std::string with_t = "simulated_annealing:T=" + t_default;
  const KtuneRun run = run_ktune("compare --json --quiet --repeats 4 --seed 5 --spaces " + kSpace +
                                 " --strategies simulated_annealing " + ktune::testing::quoted(with_t) + " " +
                                 ktune::testing::quoted(full));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  const auto& scores = report.at("spaces").at(0).at("scores");
  const double plain = scores.at("simulated_annealing").get<double>();
  EXPECT_EQ(scores.at(with_t).get<double>(), plain);
  EXPECT_EQ(scores.at(full).get<double>(), plain);
}

TEST(Objectives, AnObjectiveTheFileDoesNotRecordIsNamedInEveryVerb) {
  for (const std::string& args :
       {"compare --spaces " + kSpace + " --strategies random_sample --objective energy --repeats 2 --quiet",
        "tune --simulate " + kSpace + " --objective energy --quiet"}) {
    SCOPED_TRACE(args);
    const KtuneRun run = run_ktune(args);
    EXPECT_NE(run.exit_code, 0);
    EXPECT_TRUE(contains(run.err, "objective 'energy' is not recorded")) << run.err;
    EXPECT_TRUE(contains(run.err, "time")) << run.err;  // what is recorded instead
    EXPECT_FALSE(contains(run.err, "fewer than two valid")) << run.err;
  }
}

TEST(CacheSpace, SpaceAndSimulatedTuneCountTheSameConfigurations) {
  // A Kernel Tuner cache: its space is the configurations it recorded that are not invalid.
  const std::string cache = space("gemm_clblast", "RTX_3090", "");
  const KtuneRun listed = run_ktune("space " + cache + " --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const KtuneRun tuned = run_ktune("tune --simulate " + cache + " --max-fevals 5 --json --quiet");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const auto size = nlohmann::json::parse(tuned.out).at("space_size");
  EXPECT_EQ(nlohmann::json::parse(listed.out).at("valid_configs"), size);
  EXPECT_GT(size.get<long>(), 1000);
}

TEST(BlockSizeLimit, TuneHasTheFlagsOfEveryVerbThatBuildsASpace) {
  // A problem whose blocks go up to 4096 threads, and a cache that recorded all 10 configurations.
  const std::string problem = cli_write_temp("big_blocks.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "block_size_x", "Type": "int", "Values": "[128, 256, 512, 1024, 2048]"},
      {"Name": "block_size_y", "Type": "int", "Values": "[1, 2]"}], "Conditions": []}})");
  nlohmann::json cache = {{"device_name", "big GPU"},
                          {"kernel_name", "big_blocks"},
                          {"problem_size", 1000},
                          {"tune_params_keys", {"block_size_x", "block_size_y"}},
                          {"tune_params", {{"block_size_x", {128, 256, 512, 1024, 2048}}, {"block_size_y", {1, 2}}}},
                          {"objective", "time"},
                          {"cache", nlohmann::json::object()}};
  for (int x : {128, 256, 512, 1024, 2048})
    for (int y : {1, 2})
      cache["cache"][std::to_string(x) + "," + std::to_string(y)] = {
          {"block_size_x", x}, {"block_size_y", y}, {"time", 10.0 - x * y / 1000.0}};
  const std::string cache_file = cli_write_temp("big_blocks_cache.json", cache.dump());
  auto space_size = [&](const std::string& verb, const std::string& flags) {
    const std::string args = verb == "space" ? "space " + quoted(problem) + " --json " + flags
                                             : "tune " + quoted(problem) + " --simulate " + quoted(cache_file) +
                                                   " --json --quiet " + flags;
    const KtuneRun run = run_ktune(args);
    EXPECT_EQ(run.exit_code, 0) << args << "\n" << run.err;
    if (run.exit_code != 0) return -1;
    const auto j = nlohmann::json::parse(run.out);
    return (verb == "space" ? j.at("valid_configs") : j.at("space_size")).get<int>();
  };
  for (const char* verb : {"space", "tune"}) {
    SCOPED_TRACE(verb);
    EXPECT_EQ(space_size(verb, ""), 7);  // Kernel Tuner's default limit: 1024 threads
    EXPECT_EQ(space_size(verb, "--max-threads 4096"), 10);
    EXPECT_EQ(space_size(verb, "--max-threads 256"), 3);
    EXPECT_EQ(space_size(verb, "--no-implicit-block-constraint"), 10);
  }
  const KtuneRun both = run_ktune("tune " + quoted(problem) + " --simulate " + quoted(cache_file) +
                                  " --max-threads 64 --no-implicit-block-constraint");
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

}  // namespace honest_records_command_test
}  // namespace
