// Strategy plug-ins on the command line: --strategy FILE in tune and compare, ktune strategies --plugin, --isolate,
// and the messages of a refused plug-in.
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ktune/io/results_file.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {
namespace plugin_command_test {

using namespace ktune::testing;

const std::string kPlugins = std::string(KTUNE_SOURCE_DIR) + "/tests/data/plugins/";
const std::string kExample = std::string(KTUNE_SOURCE_DIR) + "/examples/custom_strategy/steepest_descent.cpp";
const std::string kSpace = quoted(shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000_T4.json.gz"));

const bool kCacheInTemp = [] {
  ::setenv("KTUNE_PLUGIN_CACHE", (cli_temp_dir() / "plugin-cache").c_str(), 1);
  return true;
}();

TEST(PluginCli, ASourceFileIsAStrategyEverywhere) {
  const KtuneRun tune = run_ktune("tune --simulate " + kSpace + " --strategy " + quoted(kExample) +
                                  " --set neighbor=adjacent --max-fevals 40 --seed 2 --json --quiet");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  const auto j = nlohmann::json::parse(tune.out);
  EXPECT_EQ(j.at("evaluations"), 40);
  EXPECT_EQ(j.at("hyperparameters").at("neighbor"), "adjacent");

  const KtuneRun compare = run_ktune("compare --json --quiet --repeats 2 --spaces " + kSpace + " --strategies " +
                                     quoted(kExample + ":neighbor=adjacent") + " random_sample");
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_TRUE(nlohmann::json::parse(compare.out).at("aggregate").contains(kExample + ":neighbor=adjacent"));

  const KtuneRun listed = run_ktune("strategies --json --plugin " + quoted(kExample));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto s = nlohmann::json::parse(listed.out).at("strategies");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].at("plugin").at("declared_name"), "steepest_descent");
  EXPECT_EQ(s[0].at("hyperparameters")[0].at("name"), "neighbor");
}

TEST(PluginCli, ACrashingPluginUnderIsolateCostsItsRunAndIsReported) {
  const std::string t4 = (cli_temp_dir() / "crashed.json").string();
  const KtuneRun run = run_ktune("tune --simulate " + kSpace + " --strategy " + quoted(kPlugins + "crashing.cpp") +
                                 " --isolate --max-fevals 50 --json --output " + quoted(t4));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(contains(run.err, "crashed: signal 11")) << run.err;
  EXPECT_FALSE(contains(run.err, "interrupted")) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("stop_reason"), "strategy failed");
  EXPECT_EQ(j.at("evaluations"), 10);
  EXPECT_EQ(ktune::io::read_results_file(t4).records.size(), 10u);  // what it evaluated is written
}

TEST(PluginCli, ARefusedPluginSaysWhy) {
  const KtuneRun tune = run_ktune("tune --simulate " + kSpace + " --strategy " + quoted(kPlugins + "wrong_abi.cpp"));
  EXPECT_EQ(tune.exit_code, 2);
  EXPECT_TRUE(contains(tune.err, "plug-in ABI 999")) << tune.err;
  const KtuneRun missing = run_ktune("strategies --plugin /nonexistent/strategy.so");
  EXPECT_EQ(missing.exit_code, 2);  // as in tune: an unusable plug-in is a usage error
  EXPECT_TRUE(contains(missing.err, "no such file")) << missing.err;
}

// Anything that is not a plug-in file gets a clear refusal with exit status 2 in `strategies` and in `tune` alike
// (these used to crash `strategies` with a segfault).
TEST(PluginCli, WhatIsNotAPluginIsRefusedTheSameWayEverywhere) {
  const std::string folder = (cli_temp_dir() / "plugin_folder.so").string();
  std::filesystem::create_directories(folder);
  const std::string readme = std::string(KTUNE_SOURCE_DIR) + "/README.md";
  const std::pair<std::string, std::string> cases[] = {
      {"libz.so.1", "a plug-in is a .so library or a .cpp source file"},
      {cli_temp_dir().string(), "a plug-in is a .so library or a .cpp source file"},
      {folder, "is a folder"},
      {"", "no file named"},
      {"nosuch_name", "a plug-in is a .so library or a .cpp source file"},
      {readme, "a plug-in is a .so library or a .cpp source file"},
      {"/usr/lib/nosuch_plugin.so", "no such file"}};
  for (const auto& [path, why] : cases) {
    const KtuneRun listed = run_ktune("strategies --plugin " + quoted(path));
    EXPECT_EQ(listed.exit_code, 2) << path << ": " << listed.err;
    EXPECT_TRUE(contains(listed.err, "strategy plug-in '" + path + "': " + why)) << listed.err;
    if (!ktune::is_strategy_plugin_path(path)) continue;  // tune takes any other name as a strategy's name
    const KtuneRun tune = run_ktune("tune --simulate " + kSpace + " --strategy " + quoted(path));
    EXPECT_EQ(tune.exit_code, 2) << path << ": " << tune.err;
    EXPECT_TRUE(contains(tune.err, why)) << tune.err;
  }
  const KtuneRun unknown = run_ktune("tune --simulate " + kSpace + " --strategy libz.so.1");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "unknown strategy 'libz.so.1'")) << unknown.err;
}

}  // namespace plugin_command_test
}  // namespace
