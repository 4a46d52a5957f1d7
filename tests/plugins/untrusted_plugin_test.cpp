// Untrusted .cpp plug-ins (PluginBuild::untrusted): an --isolate plug-in that includes another file is refused before
// it is compiled (tune, compare and hypertune); an untrusted plug-in given a folder is compiled there, never into the plug-in cache.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ktune/jobs/comparison_job.hpp"
#include "ktune/jobs/hypertuning.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {

using namespace ktune;
namespace fs = std::filesystem;
using ktune::testing::temp_dir;
using ktune::testing::write_temp;

const std::string kSteepest = std::string(KTUNE_SOURCE_DIR) + "/examples/custom_strategy/steepest_descent.cpp";

const fs::path& plugin_cache() {
  static const fs::path dir = [] {
    const fs::path d = temp_dir() / "untrusted-plugin-cache";
    ::setenv("KTUNE_PLUGIN_CACHE", d.c_str(), 1);
    return d;
  }();
  return dir;
}

std::string source_with(const std::string& first_line) {
  return first_line + "\n" + ktune::testing::read_text(kSteepest);
}

TEST(UntrustedPlugin, AnIsolatedPluginThatIncludesAnotherFileIsRefusedBeforeCompiling) {
  plugin_cache();
  const std::string secret = write_temp("isolate-secret.txt", "TOPSECRET_isolate\n");
  TuneRequest r;
  r.simulate_path = ktune::testing::shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz");
  r.strategy = write_temp("isolated_includer.cpp", source_with("#include \"" + secret + "\""));
  r.budget.max_evaluations = 20;
  r.isolate_strategy = true;
  const std::string error = ktune::testing::error_of<JobError>([&] { TuneJob job(r); });
  EXPECT_NE(error.find("line 1: #include of"), std::string::npos) << error;
  EXPECT_NE(error.find("is refused"), std::string::npos) << error;
  EXPECT_EQ(error.find("TOPSECRET"), std::string::npos) << error;
}

// compare --isolate and hypertune --isolate take a .cpp plug-in as untrusted too: refused before compiling.
TEST(UntrustedPlugin, CompareAndHypertuneCheckAnIsolatedPluginFirst) {
  plugin_cache();
  const std::string secret = write_temp("isolate-secret-2.txt", "TOPSECRET_compare\n");
  const std::string space =
      ktune::testing::shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz");
  CompareRequest compare;
  compare.spaces = {space};
  compare.strategies = {write_temp("compare_includer.cpp", source_with("#include \"" + secret + "\"")) + ":x=1"};
  compare.options.isolate = true;
  const std::string compare_error = ktune::testing::error_of<JobError>([&] { ComparisonJob job(compare); });
  EXPECT_NE(compare_error.find("is refused"), std::string::npos) << compare_error;
  EXPECT_EQ(compare_error.find("TOPSECRET"), std::string::npos) << compare_error;
  HypertuneRequest hypertune;
  hypertune.spaces = {space};
  hypertune.strategy = write_temp("hypertune_includer.cpp", source_with("#include <" + secret + ">"));
  hypertune.isolate = true;
  const std::string hypertune_error = ktune::testing::error_of<JobError>([&] { Hypertuning job(hypertune); });
  EXPECT_NE(hypertune_error.find("is refused"), std::string::npos) << hypertune_error;
  EXPECT_EQ(hypertune_error.find("TOPSECRET"), std::string::npos) << hypertune_error;
}

TEST(UntrustedPlugin, IsCompiledInItsFolderAndNotIntoTheCache) {
  plugin_cache();
  const fs::path folder = temp_dir() / "untrusted-folder";
  const std::string path = write_temp("untrusted_steepest.cpp", source_with("// an untrusted copy"));
  const StrategyPluginInfo info = load_strategy_plugin(path, PluginBuild{true, folder.string()});
  EXPECT_TRUE(info.compiled);
  EXPECT_EQ(fs::path(info.library).parent_path(), folder);
  std::size_t in_folder = 0;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) in_folder += entry.is_regular_file();
  EXPECT_EQ(in_folder, 1u);  // the library; its source copy is gone
  EXPECT_FALSE(fs::exists(plugin_cache()) && !fs::is_empty(plugin_cache()));
}

}  // namespace
