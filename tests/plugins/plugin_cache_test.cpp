// The plug-in cache is bounded: past its size, the least recently used libraries go, never the one just stored nor
// a compile in progress; a library loaded from the cache counts as used.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "run_ktune.hpp"
#include "shared_data.hpp"
#include "strategies/plugin_cache.hpp"
#include "temp_files.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

void file(const fs::path& path, std::size_t bytes, fs::file_time_type::duration age) {
  std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
  fs::last_write_time(path, fs::file_time_type::clock::now() - age);
}

TEST(PluginCache, EvictsTheLeastRecentlyUsedBeyondItsBound) {
  const fs::path dir = ktune::testing::fresh_temp_path("bounded-plugin-cache");
  fs::create_directories(dir);
  file(dir / "a-1.so", 1000, 5h);
  file(dir / "b-2.so", 1000, 4h);
  file(dir / "c-3.so", 1000, 3h);
  file(dir / "d-4.so.99.partial", 1000, 1min);  // another ktune compiling: kept
  file(dir / "e-5.so", 1000, 10h);               // the oldest, but the one just stored
  ktune::plugin_cache::touch(dir / "a-1.so");    // loaded just now: used last
  EXPECT_EQ(ktune::plugin_cache::evict(dir, 3500, dir / "e-5.so"), 2u);
  EXPECT_FALSE(fs::exists(dir / "b-2.so"));
  EXPECT_FALSE(fs::exists(dir / "c-3.so"));
  EXPECT_TRUE(fs::exists(dir / "a-1.so"));
  EXPECT_TRUE(fs::exists(dir / "d-4.so.99.partial"));
  EXPECT_TRUE(fs::exists(dir / "e-5.so"));
  EXPECT_EQ(ktune::plugin_cache::evict(dir, 0, {}), 0u);  // 0: no bound
  EXPECT_EQ(ktune::plugin_cache::evict(dir, 3000, {}), 0u);
  EXPECT_EQ(ktune::plugin_cache::evict(dir / "missing", 10, {}), 0u);
}

// A library in the cache that does not open (removed by another ktune's bound between the check and the load, or
// damaged) is compiled again, not an error.
TEST(PluginCache, ALibraryThatDoesNotOpenIsCompiledAgain) {
  const fs::path cache = ktune::testing::fresh_temp_path("damaged-plugin-cache");
  const std::string args = "tune --simulate " +
                           ktune::testing::quoted(ktune::testing::shared_path(
                               "data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz")) +
                           " --strategy " +
                           ktune::testing::quoted(std::string(KTUNE_SOURCE_DIR) +
                                                  "/examples/custom_strategy/steepest_descent.cpp") +
                           " --max-fevals 20";
  // This test's cache for the two runs; the variable as it was (another test's) afterwards.
  struct Restored {
    const char* before = std::getenv("KTUNE_PLUGIN_CACHE");
    std::string previous = before ? before : "";
    ~Restored() {
      if (before) ::setenv("KTUNE_PLUGIN_CACHE", previous.c_str(), 1);
      else ::unsetenv("KTUNE_PLUGIN_CACHE");
    }
  } restored;
  ::setenv("KTUNE_PLUGIN_CACHE", cache.c_str(), 1);
  const auto first = ktune::testing::run_ktune(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  fs::path library;
  for (const auto& entry : fs::directory_iterator(cache))
    if (entry.path().extension() == ".so") library = entry.path();
  ASSERT_FALSE(library.empty());
  std::ofstream(library, std::ios::binary | std::ios::trunc) << "not a library";
  const auto second = ktune::testing::run_ktune(args);
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("20 evaluations"), std::string::npos) << second.out;
  EXPECT_GT(fs::file_size(library), 1000u);  // compiled again in its place
}

}  // namespace
