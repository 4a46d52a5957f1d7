// `ktune export`: a Kernel Tuner cache and a Kernel Tuner results file to a header and a wisdom file, --json, and
// the exit statuses of bad requests (2) and bad input (1).
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "temp_files.hpp"

namespace {

using ktune::testing::contains;
using ktune::testing::quoted;
using ktune::testing::read_text;

// A Kernel Tuner cache of three configurations on one device; the best time is block_size_x = 64.
const char* kCache = R"json({"device_name": "Test Device 1", "kernel_name": "vector_add", "problem_size": [1000],
 "tune_params_keys": ["block_size_x"], "tune_params": {"block_size_x": [32, 64, 128]}, "objective": "time",
 "cache": {
  "32": {"block_size_x": 32, "time": 3.0, "times": [3.0], "compile_time": 1, "verification_time": 0,
         "benchmark_time": 3, "strategy_time": 0, "framework_time": 0, "timestamp": "2024-01-01 00:00:00+00:00"},
  "64": {"block_size_x": 64, "time": 1.5, "times": [1.5], "compile_time": 1, "verification_time": 0,
         "benchmark_time": 3, "strategy_time": 0, "framework_time": 0, "timestamp": "2024-01-01 00:00:01+00:00"},
  "128": {"block_size_x": 128, "time": 2.0, "times": [2.0], "compile_time": 1, "verification_time": 0,
          "benchmark_time": 3, "strategy_time": 0, "framework_time": 0, "timestamp": "2024-01-01 00:00:02+00:00"}}})json";

// Kernel Tuner's results file of the same kernel on another device.
const char* kResults = R"json({"version_number": "1.0", "kernel_name": "vector_add", "objective": "time",
 "objective_higher_is_better": false, "tunable_parameters": ["block_size_x"],
 "data": [{"device_name": "Other_GPU", "problem_size": "1000", "tunable_parameters": {"block_size_x": 128}, "time": 0.5},
          {"device_name": "Other_GPU", "problem_size": "1000", "tunable_parameters": {"block_size_x": 32}, "time": 0.51}]})json";

TEST(ExportCommand, WritesAHeaderAndWisdomFromACacheAndAResultsFile) {
  const std::string cache = ktune::testing::write_temp("export_cache.json", kCache);
  const std::string results = ktune::testing::write_temp("export_results.json", kResults);
  const std::string header = ktune::testing::fresh_temp_path("export.h");
  const std::string wisdom = ktune::testing::fresh_temp_path("export.wisdom");
  const auto run =
      ktune::testing::run_ktune("export " + quoted(cache) + " " + quoted(results) + " --header " + quoted(header) +
                                " --wisdom " + quoted(wisdom) + " --default block_size_x=256 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["kernels"], nlohmann::json::array({"vector_add"}));
  EXPECT_EQ(report["devices"], nlohmann::json::array({"Other_GPU", "Test Device 1"}));
  EXPECT_EQ(report["problem_sizes"], nlohmann::json::array({"1000"}));
  ASSERT_EQ(report["entries"].size(), 2u);
  EXPECT_EQ(report["entries"][1]["configuration"]["block_size_x"], "64");
  EXPECT_EQ(report["entries"][1]["value"], 1.5);
  EXPECT_EQ(report["entries"][0]["configuration"]["block_size_x"], "128");
  EXPECT_EQ(report["header"]["targets"], 2);
  EXPECT_EQ(report["wisdom"]["entries"], 2);
  const std::string text = read_text(header);
  EXPECT_TRUE(contains(text, "#ifdef TARGET_Other_GPU\n#define block_size_x 128\n")) << text;
  EXPECT_TRUE(contains(text, "#elif TARGET_Test_Device_1\n#define block_size_x 64\n")) << text;
  EXPECT_TRUE(contains(text, "#else /* default configuration */\n#define block_size_x 256\n")) << text;
  const std::string w = read_text(wisdom);
  EXPECT_TRUE(contains(w, "vector_add\tTest Device 1\t1000\ttime\tmin\t1.5\t64")) << w;
  EXPECT_TRUE(contains(w, "vector_add\tOther_GPU\t1000\ttime\tmin\t0.5\t128")) << w;

  // The text report, and merging into the same wisdom: both entries replaced, none added.
  const auto again = ktune::testing::run_ktune("export " + quoted(cache) + " --wisdom " + quoted(wisdom));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.out, "vector_add on Test Device 1 at 1000: time 1.5")) << again.out;
  EXPECT_TRUE(contains(again.out, "wisdom with 2 entries (0 added, 1 replaced)")) << again.out;
}

TEST(ExportCommand, BadRequestsExit2AndBadInputExits1NamingTheFile) {
  const std::string cache = ktune::testing::write_temp("export_cache2.json", kCache);
  auto run = ktune::testing::run_ktune("export " + quoted(cache));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "nothing to write")) << run.err;
  run = ktune::testing::run_ktune("export " + quoted(cache) + " --wisdom " +
                                  quoted(ktune::testing::fresh_temp_path("x.wisdom")) + " --default nosuch=1");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "'nosuch' is not a parameter of kernel 'vector_add'")) << run.err;
  const std::string broken = ktune::testing::write_temp("export_broken.json", R"({"version_number": "1.0",
    "kernel_name": "k", "objective": "time", "tunable_parameters": ["a"], "data": [{"device_name": "D"}]})");
  run = ktune::testing::run_ktune("export " + quoted(broken) + " --header " +
                                  quoted(ktune::testing::fresh_temp_path("x.h")));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "export_broken.json")) << run.err;
  EXPECT_TRUE(contains(run.err, "entry 1: missing key 'problem_size'")) << run.err;
  run = ktune::testing::run_ktune("export " + quoted(cache) + " --kernel other --header " +
                                  quoted(ktune::testing::fresh_temp_path("y.h")));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "no results of kernel 'other' (the results hold: vector_add)")) << run.err;
}

}  // namespace
