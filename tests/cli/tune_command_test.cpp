// `ktune tune` and `ktune strategies` end to end: JSON interface, reproducibility, result files, resume, and the
// errors for truncated, corrupt and mismatched inputs. Expected values are computed here from the input files.
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune::testing;

const std::string kSmallCache = shared_path("data/kernel_tuner/test_cache_file.json");
const std::string kDedispersion = shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz");
const std::string kDedispersionT1 = shared_path("data/benchmark_hub/t1/dedispersion_milo.json");

nlohmann::json tune_json(const std::string& args) {
  const KtuneRun run = run_ktune("tune " + args + " --json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return nlohmann::json::parse(run.out);
}

// Best time and total charged seconds of a small (uncompressed) Kernel Tuner cache, by hand.
struct CacheFacts {
  double best_time = std::numeric_limits<double>::infinity();
  double total_seconds = 0;
  std::size_t entries = 0;
};
CacheFacts facts_of(const std::string& path) {
  const auto j = nlohmann::json::parse(read_text(path));
  CacheFacts f;
  for (const auto& [key, e] : j.at("cache").items()) {
    ++f.entries;
    double ms = e.at("compile_time").get<double>() + e.at("verification_time").get<double>() +
                e.at("framework_time").get<double>();
    for (const auto& t : e.at("times")) ms += t.get<double>();
    f.total_seconds += ms / 1000.0;
    f.best_time = std::min(f.best_time, e.at("time").get<double>());
  }
  return f;
}

TEST(TuneCommand, BruteForceOnACacheAlone) {
  const CacheFacts facts = facts_of(kSmallCache);
  const auto j = tune_json("--simulate " + quoted(kSmallCache));
  EXPECT_EQ(j.at("strategy"), "brute_force");
  EXPECT_EQ(j.at("evaluations"), facts.entries);
  EXPECT_EQ(j.at("space_size"), facts.entries);
  EXPECT_NEAR(j.at("clock_seconds").get<double>(), facts.total_seconds, 1e-9);
  EXPECT_EQ(j.at("best").at("value").get<double>(), facts.best_time);
  EXPECT_EQ(j.at("best").at("objective"), "time");
  EXPECT_TRUE(j.at("best").at("configuration").contains("block_size_x"));
  EXPECT_EQ(j.at("stop_reason"), "space exhausted");
}

TEST(TuneCommand, SameSeedSameRunDifferentSeedDifferentRun) {
  const std::string args = quoted(kDedispersionT1) + " --simulate " + quoted(kDedispersion) +
                           " --strategy random_sample --max-fevals 50 --trace --seed ";
  auto a = tune_json(args + "5"), b = tune_json(args + "5"), c = tune_json(args + "6");
  EXPECT_EQ(a.at("evaluations"), 50);
  EXPECT_EQ(a.at("stop_reason"), "max evaluations");
  for (auto* j : {&a, &b, &c}) j->erase("wall_seconds");
  EXPECT_EQ(a, b);
  EXPECT_NE(a.at("trace"), c.at("trace"));
}

TEST(TuneCommand, ObjectiveDirectionIsInferred) {
  const auto j = tune_json(quoted(kDedispersionT1) + " --simulate " + quoted(kDedispersion) + " --objective GB/s");
  EXPECT_EQ(j.at("objectives")[0].at("higher_is_better"), true);
  EXPECT_NEAR(j.at("best").at("value").get<double>(), 1e3, 1e3);  // GB/s of dedispersion on an A100: ~0-2000
  const auto slowest = tune_json(quoted(kDedispersionT1) + " --simulate " + quoted(kDedispersion) +
                                 " --objective GB/s --minimize");
  EXPECT_LT(slowest.at("best").at("value").get<double>(), j.at("best").at("value").get<double>());
}

TEST(TuneCommand, BudgetsCombine) {
  const auto j = tune_json(quoted(kDedispersionT1) + " --simulate " + quoted(kDedispersion) +
                           " --strategy random_sample --max-fevals 1000 --time-limit 30");
  EXPECT_EQ(j.at("stop_reason"), "time limit");
  EXPECT_GE(j.at("clock_seconds").get<double>(), 30.0);
  EXPECT_LT(j.at("evaluations").get<int>(), 1000);
  const auto f = tune_json(quoted(kDedispersionT1) + " --simulate " + quoted(kDedispersion) + " --fraction 0.01");
  EXPECT_EQ(f.at("evaluations"), 112);  // ceil(0.01 * 11130)
}

TEST(TuneCommand, WritesT4CsvAndAResumableCache) {
  const auto dir = cli_temp_dir();
  const std::string t4 = (dir / "out.t4.json").string(), csv = (dir / "out.csv").string(),
                    cache = (dir / "out_cache.json").string();
  std::filesystem::remove(cache);
  const std::string base = quoted(kDedispersionT1) + " --simulate " + quoted(kDedispersion) +
                           " --strategy random_sample --seed 3 --cache " + quoted(cache);
  const auto first = tune_json(base + " --max-fevals 40 --output " + quoted(t4) + " --csv " + quoted(csv));
  const auto t4_json = nlohmann::json::parse(read_text(t4));
  ASSERT_EQ(t4_json.at("results").size(), 40u);
  EXPECT_EQ(t4_json.at("results")[0].at("objectives"), nlohmann::json::array({"time"}));
  std::ifstream csv_in(csv);
  std::size_t lines = 0;
  for (std::string line; std::getline(csv_in, line);) ++lines;
  EXPECT_EQ(lines, 41u);  // header + one row per evaluation
  const auto cache_json = nlohmann::json::parse(read_text(cache));
  EXPECT_EQ(cache_json.at("cache").size(), 40u);
  EXPECT_EQ(cache_json.at("tune_params_keys").size(), 8u);

  // Resume: the 40 known results count toward the budget of 60 (as Kernel Tuner counts cached configurations);
  // the same seed asks for them first (free), then 20 new ones.
  const auto second = tune_json(base + " --max-fevals 60");
  EXPECT_EQ(second.at("resumed"), 40);
  EXPECT_EQ(second.at("evaluations"), 20);
  EXPECT_EQ(nlohmann::json::parse(read_text(cache)).at("cache").size(), 60u);
}

TEST(TuneCommand, ATruncatedCacheStillLoads) {
  const std::string text = read_text(kSmallCache);
  // Cut in the middle of the 10th entry (an interrupted run).
  std::size_t pos = 0;
  for (int i = 0; i < 10; ++i) pos = text.find("\"block_size_x\": ", text.find("\"cache\"") + pos + 1);
  const std::string cut = cli_write_temp("cut_cache.json", text.substr(0, pos + 20));
  const KtuneRun run = run_ktune("tune --simulate " + quoted(cut) + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("simulation").at("truncated"), true);
  EXPECT_GE(j.at("evaluations").get<int>(), 8);
  EXPECT_LE(j.at("evaluations").get<int>(), 9);
  EXPECT_TRUE(contains(run.err, "cut short")) << run.err;
}

TEST(TuneCommand, CorruptGzipIsAClearError) {
  std::string bytes = read_text(kDedispersion);
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  const std::string corrupt = cli_write_temp("corrupt.json.gz", bytes);
  const KtuneRun run = run_ktune("tune --simulate " + quoted(corrupt) + " --json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "corrupt.json.gz")) << run.err;
  EXPECT_TRUE(run.out.empty());
  const std::string cut = cli_write_temp("cut.json.gz", read_text(kDedispersion).substr(0, 100000));
  const KtuneRun cut_run = run_ktune("tune --simulate " + quoted(cut));
  EXPECT_EQ(cut_run.exit_code, 1);
  EXPECT_TRUE(contains(cut_run.err, "cut.json.gz")) << cut_run.err;
}

TEST(TuneCommand, MismatchedParametersAreAClearError) {
  const KtuneRun run = run_ktune("tune " + quoted(kDedispersionT1) + " --simulate " + quoted(kSmallCache));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "test_cache_file.json")) << run.err;
  EXPECT_TRUE(contains(run.err, "do not match")) << run.err;
  EXPECT_TRUE(contains(run.err, "tile_size_x")) << run.err;
}

TEST(TuneCommand, UsageErrors) {
  const std::string sim = " --simulate " + quoted(kSmallCache);
  auto run = run_ktune("tune" + sim + " --strategy nope");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "unknown strategy 'nope'")) << run.err;
  run = run_ktune("tune" + sim + " --strategy random_sample --set fraction=2");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "fraction")) << run.err;
  run = run_ktune("tune" + sim + " --strategy random_sample --set frac=0.5");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "valid: fraction")) << run.err;
  run = run_ktune("tune" + sim + " --max-fevals 0");
  EXPECT_EQ(run.exit_code, 2);
  // Without --simulate the T1 file's kernel is tuned live; this one's KernelSpecification cannot run here (a CUDA
  // __constant__ argument), an input error that points to --simulate.
  run = run_ktune("tune " + quoted(kDedispersionT1));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "--simulate")) << run.err;
  run = run_ktune("tune" + sim + " --objective temperature");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "temperature")) << run.err;
}

TEST(TuneCommand, RandomSampleFractionHyperparameter) {
  const auto j = tune_json("--simulate " + quoted(kSmallCache) + " --strategy random_sample --set fraction=0.5");
  EXPECT_EQ(j.at("evaluations"), 8);  // ceil(0.5 * 15)
  EXPECT_EQ(j.at("hyperparameters").at("fraction"), 0.5);
  EXPECT_EQ(j.at("stop_reason"), "strategy finished");
}

TEST(StrategiesCommand, ListsEveryStrategyWithItsHyperparameters) {
  const KtuneRun run = run_ktune("strategies --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  bool found = false;
  for (const auto& s : j.at("strategies")) {
    EXPECT_TRUE(s.at("description").is_string());
    if (s.at("name") != "random_sample") continue;
    found = true;
    ASSERT_EQ(s.at("hyperparameters").size(), 1u);
    EXPECT_EQ(s["hyperparameters"][0].at("name"), "fraction");
    EXPECT_EQ(s["hyperparameters"][0].at("type"), "float");
    EXPECT_EQ(s["hyperparameters"][0].at("default"), 1.0);
    EXPECT_EQ(s["hyperparameters"][0].at("max"), 1.0);
  }
  EXPECT_TRUE(found);
  const KtuneRun human = run_ktune("strategies");
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_TRUE(contains(human.out, "brute_force"));
}

}  // namespace
