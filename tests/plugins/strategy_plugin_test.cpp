// Strategy plug-ins through the library: a shared library and a source file tune exactly as the same strategy
// compiled in, declare their hyperparameters like built-in ones, and bad plug-ins are refused with a message that
// names the file and says why.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ktune/jobs/hypertuning.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/plugin.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

// The example plug-in's source compiled into this test: the same strategy, registered in process.
#undef KTUNE_STRATEGY_PLUGIN
#define KTUNE_STRATEGY_PLUGIN(describe)
#include "../../examples/custom_strategy/steepest_descent.cpp"

namespace {
namespace strategy_plugin_test {

using namespace ktune;
namespace fs = std::filesystem;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;

const std::string kExampleSource = std::string(KTUNE_SOURCE_DIR) + "/examples/custom_strategy/steepest_descent.cpp";
const std::string kPluginData = std::string(KTUNE_SOURCE_DIR) + "/tests/data/plugins/";

// The plug-in cache of this test process, not the user's.
const bool kCacheInTemp = [] {
  ::setenv("KTUNE_PLUGIN_CACHE", (temp_dir() / "plugin-cache").c_str(), 1);
  return true;
}();

std::vector<std::size_t> trace_of(const std::string& strategy) {
  TuneRequest r;
  r.simulate_path = shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz");
  r.strategy = strategy;
  r.settings = {"neighbor=adjacent"};
  r.budget.max_evaluations = 200;
  r.seed = 3;
  TuneJob job(std::move(r));
  std::vector<std::size_t> indices;
  const TuneOutcome outcome = job.run();
  for (const auto& e : outcome.result.trace.entries()) indices.push_back(e.index);
  return indices;
}

std::string refusal(const std::string& path) {
  try {
    (void)load_strategy_plugin(path);
  } catch (const HyperparameterError& e) {
    return e.what();
  }
  return "";
}

TEST(StrategyPlugins, ALibraryAndASourceFileTuneAsTheStrategyCompiledIn) {
  StrategyInfo compiled_in = describe();
  compiled_in.name = "steepest_descent_compiled_in";
  register_strategy(std::move(compiled_in));
  const auto expected = trace_of("steepest_descent_compiled_in");
  ASSERT_EQ(expected.size(), 200u);
  EXPECT_EQ(trace_of(KTUNE_EXAMPLE_PLUGIN), expected);
  EXPECT_EQ(trace_of(kExampleSource), expected);  // compiled now

  const StrategyPluginInfo library = load_strategy_plugin(KTUNE_EXAMPLE_PLUGIN);
  EXPECT_EQ(library.declared_name, "steepest_descent");
  EXPECT_EQ(library.ktune_version, kVersionString);
  EXPECT_FALSE(library.compiled);
  const StrategyPluginInfo source = load_strategy_plugin(kExampleSource);
  EXPECT_TRUE(source.compiled);
  EXPECT_TRUE(fs::exists(source.library));
  // The same source elsewhere: taken from the cache (same content, compiler and ktune), not compiled again.
  const std::string copy = (temp_dir() / "steepest_descent.cpp").string();
  fs::copy_file(kExampleSource, copy, fs::copy_options::overwrite_existing);
  const StrategyPluginInfo cached = load_strategy_plugin(copy);
  EXPECT_FALSE(cached.compiled);
  EXPECT_EQ(cached.library, source.library);
}

TEST(StrategyPlugins, HyperparametersAreDeclaredLikeBuiltInOnes) {
  const StrategyInfo* info = find_strategy(KTUNE_EXAMPLE_PLUGIN);
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->hyperparameters.size(), 1u);
  EXPECT_EQ(info->hyperparameters[0].name, "neighbor");
  EXPECT_NE(info->description.find("steepest_descent"), std::string::npos);
  try {
    (void)parse_strategy_settings(KTUNE_EXAMPLE_PLUGIN, {"neighbor=diagonal"});
    ADD_FAILURE() << "a value outside the choices was accepted";
  } catch (const HyperparameterError& e) {
    EXPECT_NE(std::string(e.what()).find("adjacent"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_strategy_settings(KTUNE_EXAMPLE_PLUGIN, {"neighbour=adjacent"}), HyperparameterError);
}

TEST(StrategyPlugins, BadPluginsAreRefusedSayingWhy) {
  EXPECT_NE(refusal("/nonexistent/strategy.so").find("no such file"), std::string::npos);
  const std::string wrong_abi = refusal(kPluginData + "wrong_abi.cpp");
  EXPECT_NE(wrong_abi.find("plug-in ABI 999 (ktune 9.9.9)"), std::string::npos) << wrong_abi;
  EXPECT_NE(wrong_abi.find("rebuild it"), std::string::npos) << wrong_abi;
  const std::string not_plugin = refusal(kPluginData + "not_a_plugin.cpp");
  EXPECT_NE(not_plugin.find("is not a ktune strategy plug-in"), std::string::npos) << not_plugin;
  const std::string syntax = refusal(kPluginData + "does_not_compile.cpp");
  EXPECT_NE(syntax.find("does not compile"), std::string::npos) << syntax;
  EXPECT_NE(syntax.find("does_not_compile.cpp:3"), std::string::npos) << syntax;  // the compiler's own message
  // Through the jobs: a request error that names the file.
  TuneRequest r;
  r.simulate_path = shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz");
  r.strategy = kPluginData + "wrong_abi.cpp";
  try {
    TuneJob job(std::move(r));
    ADD_FAILURE() << "a plug-in of another ABI was used";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::request);
    EXPECT_NE(std::string(e.what()).find("wrong_abi.cpp"), std::string::npos) << e.what();
  }
}

// A plug-in's declared hyperparameters are a grid for hypertune like a built-in strategy's, and its runs score the
// same in a worker process as in process.
TEST(StrategyPlugins, HypertuneTunesAPluginIsolatedOrNot) {
  auto scores = [](bool isolate) {
    HypertuneRequest r;
    r.strategy = KTUNE_EXAMPLE_PLUGIN;
    r.spaces = {shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000_T4.json.gz")};
    r.repeats = 2;
    r.seed = 5;
    r.threads = 2;
    r.isolate = isolate;
    Hypertuning job(std::move(r));
    const HypertuneOutcome out = job.run();
    std::vector<std::pair<std::string, double>> rows;
    for (const auto& row : out.rows) rows.emplace_back(row.label, row.score);
    return rows;
  };
  const auto in_process = scores(false);
  ASSERT_EQ(in_process.size(), 3u);  // the choices of `neighbor`
  for (const auto& [label, score] : in_process) EXPECT_TRUE(std::isfinite(score)) << label;
  EXPECT_EQ(scores(true), in_process);
}

}  // namespace strategy_plugin_test
}  // namespace
