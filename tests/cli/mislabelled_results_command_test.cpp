// Issue 33 item 3: results that are not what they claim. `pareto --runs` refuses a run of another kernel, device or
// space (naming both); a cache entry whose time is -5, NaN or a string is a failed record naming its key, not an
// "ok" one (`best time = -5 ms`); an entry without "time" does not silently lend its benchmark_time as the time.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune::testing;

// A small cache: x in {1, 2, 3}, y in {1, 2}, time = x + y / 10, with `entries` replaced where given.
std::string small_cache(const std::string& name, const std::string& kernel = "k", const std::string& device = "gpu",
                        const std::string& entries = "") {
  std::string cache = R"({"device_name": ")" + device + R"(", "kernel_name": ")" + kernel +
                      R"(", "problem_size": [100], "tune_params_keys": ["x", "y"],
"tune_params": {"x": [1, 2, 3], "y": [1, 2]}, "objective": "time", "cache": {)";
  if (entries.empty()) {
    bool first = true;
    for (int x = 1; x <= 3; ++x)
      for (int y = 1; y <= 2; ++y) {
        const double t = x + y / 10.0;
        cache += std::string(first ? "" : ",") + "\n\"" + std::to_string(x) + "," + std::to_string(y) + "\": {\"x\": " +
                 std::to_string(x) + ", \"y\": " + std::to_string(y) + ", \"time\": " + std::to_string(t) +
                 ", \"energy\": " + std::to_string(10 - t) + ", \"times\": [" + std::to_string(t) +
                 "], \"compile_time\": 1, \"verification_time\": 0, \"benchmark_time\": 2, \"strategy_time\": 0, "
                 "\"framework_time\": 0}";
        first = false;
      }
  } else {
    cache += entries;
  }
  return cli_write_temp(name, cache + "}}");
}

std::string entry(const std::string& key, int x, int y, const std::string& fields) {
  return "\"" + key + "\": {\"x\": " + std::to_string(x) + ", \"y\": " + std::to_string(y) + ", " + fields +
         ", \"compile_time\": 1, \"verification_time\": 0, \"benchmark_time\": 2, \"strategy_time\": 0, "
         "\"framework_time\": 0}";
}

TEST(MislabelledResults, ParetoRefusesARunOfAnotherKernelDeviceOrSpace) {
  const std::string truth = small_cache("truth.json");
  const std::string pareto = "pareto " + quoted(truth) + " --objectives time,energy --json --runs ";
  const KtuneRun same = run_ktune(pareto + quoted(small_cache("same.json")));
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(nlohmann::json::parse(same.out).at("runs").at(0).at("evaluated"), 6);

  const std::string kernel = small_cache("other_kernel.json", "other");
  KtuneRun run = run_ktune(pareto + quoted(kernel));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(contains(run.err, kernel + ": not a run of the space of " + truth + ": its kernel is 'other', that of " +
                                    truth + " is 'k'"))
      << run.err;

  run = run_ktune(pareto + quoted(small_cache("other_device.json", "k", "A100")));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(contains(run.err, "its device is 'A100', that of " + truth + " is 'gpu'")) << run.err;

  // Another space: other values of the same parameters, or other parameters.
  const std::string values = small_cache("other_values.json", "k", "gpu",
                                         entry("7,1", 7, 1, "\"time\": 0.1, \"energy\": 0.1, \"times\": [0.1]"));
  std::string text = read_text(values);
  text.replace(text.find("\"x\": [1, 2, 3]"), 14, "\"x\": [7]");
  cli_write_temp("other_values.json", text);
  run = run_ktune(pareto + quoted(values));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(contains(run.err, "its configuration 7,1 is not in " + truth)) << run.err;

  std::string params = read_text(small_cache("other_params.json"));
  for (std::string::size_type at; (at = params.find("\"y\"")) != std::string::npos;) params.replace(at, 3, "\"z\"");
  run = run_ktune(pareto + quoted(cli_write_temp("other_params.json", params)));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(contains(run.err, "its parameters are (x, z), those of " + truth + " are (x, y)")) << run.err;
}

TEST(MislabelledResults, ATimeThatIsNoRunTimeIsAFailureNotTheBest) {
  const std::string entries = entry("1,1", 1, 1, "\"time\": -5, \"times\": [0.5]") + ",\n" +
                              entry("1,2", 1, 2, "\"time\": NaN, \"times\": [0.5]") + ",\n" +
                              entry("2,1", 2, 1, "\"time\": \"fast\", \"times\": [0.5]") + ",\n" +
                              entry("2,2", 2, 2, "\"time\": 2.5, \"times\": [2.5]") + ",\n" +
                              entry("3,1", 3, 1, "\"time\": 3.5, \"times\": [3.5]");
  const std::string cache = small_cache("bad_times.json", "k", "gpu", entries);
  const KtuneRun run = run_ktune("tune --simulate " + quoted(cache) + " --strategy brute_force --json --verbose");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("best").at("objectives").at("time"), 2.5) << run.out;
  EXPECT_EQ(j.at("statuses").at("runtime-failed"), 3) << run.out;
  EXPECT_TRUE(contains(run.err, "cache[\"1,1\"]: 'time' is negative (-5)")) << run.err;
  EXPECT_TRUE(contains(run.err, "cache[\"1,2\"]: 'time' is NaN")) << run.err;
  EXPECT_TRUE(contains(run.err, "cache[\"2,1\"]: 'time' is 'fast', not a number")) << run.err;
}

TEST(MislabelledResults, ABenchmarkTimeIsNotTakenAsTheTime) {
  // An entry with neither "time" nor "times": Kernel Tuner stops at it; ktune refuses "time" naming the entry.
  const std::string entries = entry("1,1", 1, 1, "\"time\": 1.5, \"times\": [1.5]") + ",\n" +
                              entry("1,2", 1, 2, "\"energy\": 3");
  const std::string cache = small_cache("no_time.json", "k", "gpu", entries);
  KtuneRun run = run_ktune("tune --simulate " + quoted(cache) + " --strategy brute_force --json");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(contains(run.err, "objective 'time': 1 successful entry of the cache record neither 'time' nor 'times' "
                                "(the first: cache[\"1,2\"]); their benchmark_time is the whole benchmarking step"))
      << run.err;
  run = run_ktune("pareto " + quoted(cache) + " --objectives time,energy");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(contains(run.err, "cache[\"1,2\"]")) << run.err;

  // benchmark_hub's hyperparameter caches (objective score, no "time" in any entry) keep replaying.
  const std::string pso =
      quoted(shared_path("data/benchmark_hub/hyperparametertuning/cachefiles/hyperparamtuning_paper_bruteforce_pso.json"));
  run = run_ktune("tune --simulate " + pso + " --strategy brute_force --json --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out).at("evaluations"), 81);
  run = run_ktune("tune --simulate " + pso + " --objective time --strategy brute_force --json --quiet");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(contains(run.err, "objective 'time': 81 successful entries")) << run.err;
}

}  // namespace
