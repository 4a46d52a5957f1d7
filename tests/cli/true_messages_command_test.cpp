// Issue 33 item 14: each refusal says what is really wrong. An empty cache, a cache without "cache" and a --restrict
// that excludes everything each get their own message (all three said "the parameter values differ"); a number
// beyond a double's range names the file and its position; `space` accepts a cache cut short by an interrupted run
// with the same warning as `tune --simulate` (it used to refuse it).
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune::testing;

const std::string kHeader =
    R"({"device_name": "gpu", "kernel_name": "k", "problem_size": [100], "tune_params_keys": ["block_size_x"],
"tune_params": {"block_size_x": [32, 64]}, "objective": "time")";

std::string entry(int x, double t) {
  return "\n\"" + std::to_string(x) + "\": {\"block_size_x\": " + std::to_string(x) + ", \"time\": " +
         std::to_string(t) + ", \"times\": [" + std::to_string(t) +
         "], \"compile_time\": 1, \"verification_time\": 0, \"benchmark_time\": 2, \"strategy_time\": 0, "
         "\"framework_time\": 0}";
}

TEST(TrueMessages, NothingToReplaySaysWhy) {
  const std::string empty = cli_write_temp("empty_cache.json", kHeader + R"(, "cache": {}})");
  KtuneRun run = run_ktune("tune --simulate " + quoted(empty));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, empty + ": it records no configurations (its results are empty)")) << run.err;
  EXPECT_FALSE(contains(run.err, "parameter values differ")) << run.err;

  const std::string no_cache = cli_write_temp("no_cache.json", kHeader + "}");
  run = run_ktune("tune --simulate " + quoted(no_cache));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, no_cache + ": it has no \"cache\"")) << run.err;

  const std::string full = cli_write_temp("full_cache.json", kHeader + R"(, "cache": {)" + entry(32, 1.5) + "," +
                                                                  entry(64, 2.5) + "}}");
  run = run_ktune("tune --simulate " + quoted(full) + " --restrict 'block_size_x > 1000'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "the constraints and restrictions (block_size_x > 1000) exclude all 2 recorded "
                                "configurations: there is nothing to replay"))
      << run.err;
  run = run_ktune("tune --simulate " + quoted(full) + " --restrict 'block_size_x > 32' --json --quiet");
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(TrueMessages, ANumberBeyondADoubleNamesFileAndPosition) {
  const std::string problem = cli_write_temp("huge_number.json", "{\"name\": \"p\",\n\"parameters\": [{\"name\": \"x\", "
                                                                 "\"values\": [1, 1e400]}]}");
  KtuneRun run = run_ktune("space " + quoted(problem));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, problem + ": invalid JSON at byte 58 (line 2, column 44): the number 1e400 is out of "
                                          "range"))
      << run.err;
  EXPECT_FALSE(contains(run.err, "json.exception")) << run.err;
  // In a cache's header (read skipping its entries) too.
  std::string header = kHeader;
  header.replace(header.find("[32, 64]"), 8, "[32, -2e999]");
  const std::string cache = cli_write_temp("huge_cache.json", header + R"(, "cache": {}})");
  run = run_ktune("space " + quoted(cache));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, cache + ": invalid JSON at byte")) << run.err;
  EXPECT_TRUE(contains(run.err, "the number -2e999 is out of range")) << run.err;
}

TEST(TrueMessages, SpaceAcceptsACacheCutShortAsTuneDoes) {
  const std::string text = kHeader + R"(, "cache": {)" + entry(32, 1.5) + "," + entry(64, 2.5) + "}}";
  const std::string cut = cli_write_temp("cut_cache.json", text.substr(0, text.size() - 40));
  const KtuneRun space = run_ktune("space " + quoted(cut) + " --json");
  ASSERT_EQ(space.exit_code, 0) << space.err;
  EXPECT_TRUE(contains(space.err, "warning: " + cut + " was cut short (an interrupted run?); read 1 complete records"))
      << space.err;
  const KtuneRun tune = run_ktune("tune --simulate " + quoted(cut) + " --json");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_TRUE(contains(tune.err, "was cut short")) << tune.err;
  EXPECT_EQ(nlohmann::json::parse(space.out).at("valid_configs"), nlohmann::json::parse(tune.out).at("space_size"));
  // A file cut inside its header has lost its parameters: refused by both.
  const std::string header_only = cli_write_temp("cut_header.json", kHeader.substr(0, 60));
  EXPECT_EQ(run_ktune("space " + quoted(header_only)).exit_code, 1);
  EXPECT_EQ(run_ktune("tune --simulate " + quoted(header_only)).exit_code, 1);
}

TEST(TrueMessages, HypertuneThatScoredNothingFailsSayingWhy) {
  ::setenv("KTUNE_PLUGIN_CACHE", (cli_temp_dir() / "plugin-cache").c_str(), 1);
  const std::string plugin = std::string(KTUNE_SOURCE_DIR) + "/tests/data/plugins/always_throwing_tunable.cpp";
  const std::string space = shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000_T4.json.gz");
  const KtuneRun run = run_ktune("hypertune --strategy " + quoted(plugin) + " --spaces " + quoted(space) +
                                 " --repeats 2 --quiet");
  EXPECT_EQ(run.exit_code, 1) << run.out;  // was 0, with no reason
  EXPECT_TRUE(contains(run.err, "settings tried could be scored: ")) << run.err;
  EXPECT_TRUE(contains(run.err, "this strategy never runs")) << run.err;
}

}  // namespace
