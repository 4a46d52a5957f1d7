// `ktune hypertune` end to end: the JSON interface, the score cache (resumed, readable by compare), train/test rows,
// the same score as `ktune compare` gives the same label, and errors.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {
namespace hypertune_command_test {

using namespace ktune::testing;

std::string space(const std::string& app, const std::string& gpu) {
  return quoted(shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + "_T4.json.gz"));
}
const std::string kTrain = space("convolution_milo", "MI250X") + " " + space("dedispersion_milo", "A4000");
const std::string kTest = space("convolution_milo", "A4000");

std::string hyperspace() {
  return cli_write_temp("ga_hyperspace.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "popsize", "Type": "int", "Values": "[6, 12, 24]"},
      {"Name": "method", "Type": "string", "Values": "['uniform', 'two_point']"}], "Conditions": []}})");
}

TEST(HypertuneCommand, ScoresEverySettingWritesAResumableCacheAndTestsOnOtherSpaces) {
  const std::string cache = (cli_temp_dir() / "ga_scores.json").string();
  std::filesystem::remove(cache);
  const std::string args = "hypertune --json --strategy genetic_algorithm --repeats 3 --seed 2 --hyperspace " +
                           quoted(hyperspace()) + " --spaces " + kTrain + " --output " + quoted(cache);
  const KtuneRun run = run_ktune(args + " --test-spaces " + kTest);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("settings_total"), 6);
  EXPECT_EQ(j.at("evaluations"), 6);
  EXPECT_EQ(j.at("resumed"), 0);
  EXPECT_EQ(j.at("meta_strategy"), "brute_force");
  EXPECT_EQ(j.at("stop_reason"), "space exhausted");
  EXPECT_EQ(j.at("training_spaces"), (std::vector<std::string>{"MI250X_convolution_milo", "A4000_dedispersion_milo"}));
  EXPECT_EQ(j.at("defaults_label").get<std::string>().rfind("genetic_algorithm:popsize=", 0), 0u);
  const auto& results = j.at("results");
  ASSERT_EQ(results.size(), 6u);
  for (std::size_t i = 1; i < results.size(); ++i)
    EXPECT_GE(results[i - 1].at("score").get<double>(), results[i].at("score").get<double>());
  EXPECT_EQ(j.at("best"), results[0]);
  const auto& per_space = results[0].at("space_scores");
  EXPECT_NEAR(results[0].at("score").get<double>(),
              (per_space.at("MI250X_convolution_milo").get<double>() + per_space.at("A4000_dedispersion_milo").get<double>()) / 2,
              1e-12);
  // Train/test rows: best, median, worst and the defaults, each scored on the test space.
  const auto& rows = j.at("test").at("rows");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].at("role"), "best");
  EXPECT_EQ(rows[0].at("label"), results[0].at("label"));
  EXPECT_EQ(rows[0].at("train"), results[0].at("score"));
  EXPECT_EQ(rows[2].at("label"), results[5].at("label"));
  EXPECT_EQ(rows[3].at("role"), "default");
  for (const auto& r : rows) EXPECT_TRUE(r.at("test").is_number()) << r;

  // The best setting's label in `ktune compare`: the same runs, the same score.
  const KtuneRun same = run_ktune("compare --json --repeats 3 --seed 2 --spaces " + kTrain + " --strategies " +
                                  quoted(results[0].at("label").get<std::string>()));
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(nlohmann::json::parse(same.out)["aggregate"][results[0].at("label").get<std::string>()]["score"],
            results[0].at("score"));

  // Resumed: nothing is scored again and the scores are the file's.
  const KtuneRun again = run_ktune(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto k = nlohmann::json::parse(again.out);
  EXPECT_EQ(k.at("evaluations"), 0);
  EXPECT_EQ(k.at("resumed"), 6);
  EXPECT_NEAR(k.at("best").at("score").get<double>(), results[0].at("score").get<double>(), 1e-12);
  EXPECT_NEAR(k.at("best").at("space_scores").at("A4000_dedispersion_milo").get<double>(),
              per_space.at("A4000_dedispersion_milo").get<double>(), 1e-12);

  // Resumed with the hyperparameters outside the grid fixed elsewhere: those are scores of other settings.
  const KtuneRun other = run_ktune(args + " --defaults genetic_algorithm:elitism=0");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(contains(other.err, "ga_scores.json: its scores were made with")) << other.err;
  EXPECT_TRUE(contains(other.err, "elitism=0")) << other.err;
  // Resumed with the strategies' own time charged: those scores are on another clock.
  EXPECT_EQ(j.at("strategy_time_charged"), false);
  const KtuneRun charged = run_ktune(args + " --charge-strategy-time");
  EXPECT_EQ(charged.exit_code, 1);
  EXPECT_TRUE(contains(charged.err, "ga_scores.json: its scores were made with the strategies' own time not charged, "
                                    "this run charges it"))
      << charged.err;
  // A cache scored before a hyperparameter existed does not name it; at its default it is the same setting.
  {
    std::string text = read_text(cache);
    std::size_t at;
    int removed = 0;
    while ((at = text.find(",variant=ktune")) != std::string::npos) text.erase(at, 14), ++removed;
    ASSERT_GT(removed, 0);
    std::ofstream(cache, std::ios::binary | std::ios::trunc) << text;
  }
  const KtuneRun older = run_ktune(args);
  ASSERT_EQ(older.exit_code, 0) << older.err;
  EXPECT_EQ(nlohmann::json::parse(older.out).at("resumed"), 6);
  EXPECT_EQ(run_ktune(args + " --defaults genetic_algorithm:variant=paper").exit_code, 1);

  // Confirmation on fresh seeds: the best two and the defaults again on the training spaces, then on the test space.
  const KtuneRun confirm = run_ktune(args + " --confirm 2 --confirm-seeds 2 --test-spaces " + kTest);
  ASSERT_EQ(confirm.exit_code, 0) << confirm.err;
  const auto cf = nlohmann::json::parse(confirm.out).at("confirmation");
  EXPECT_EQ(cf.at("seeds"), nlohmann::json::array({3, 4}));
  EXPECT_EQ(cf.at("test_seeds"), nlohmann::json::array({2, 3, 4}));
  ASSERT_EQ(cf.at("settings").size(), 2u);
  EXPECT_EQ(cf["settings"][0].at("label"), results[0].at("label"));
  EXPECT_EQ(cf.at("reference").at("label"), j.at("defaults_label"));
  const bool first = cf["settings"][0]["confirmed"].get<double>() >= cf["settings"][1]["confirmed"].get<double>();
  EXPECT_EQ(cf.at("recommended").at("label"), cf["settings"][first ? 0 : 1].at("label"));
  const bool better = cf["recommended"]["confirmed"].get<double>() > cf["reference"]["confirmed"].get<double>() &&
                      cf["recommended"]["test"].get<double>() > cf["reference"]["test"].get<double>();
  EXPECT_EQ(cf.at("verdict"), better ? "adopt" : "keep");
  // The confirmed score is the mean of `compare` at those seeds for the same label.
  double sum = 0;
  for (int seed : {3, 4}) {
    const KtuneRun r = run_ktune("compare --json --repeats 3 --seed " + std::to_string(seed) + " --spaces " + kTrain +
                                 " --strategies " + quoted(results[0].at("label").get<std::string>()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    sum += nlohmann::json::parse(r.out)["aggregate"][results[0].at("label").get<std::string>()]["score"].get<double>();
  }
  EXPECT_NEAR(cf["settings"][0]["confirmed"].get<double>(), sum / 2, 1e-12);

  // The cache is a Kernel Tuner cache with the objective score: a space for `ktune compare`.
  const auto c = nlohmann::json::parse(read_text(cache));
  EXPECT_EQ(c.at("objective"), nlohmann::json::array({"score"}));
  EXPECT_EQ(c.at("cache").size(), 6u);
  const KtuneRun stats = run_ktune("compare --stats --json --spaces " + quoted(cache));
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const auto s = nlohmann::json::parse(stats.out)["spaces"][0]["stats"];
  EXPECT_EQ(s.at("valid"), 6);
  EXPECT_EQ(s.at("minimization"), false);
  EXPECT_EQ(s.at("optimum"), results[0].at("score"));
}

TEST(HypertuneCommand, AMetaStrategyWithABudgetAndHumanOutput) {
  const KtuneRun run = run_ktune("hypertune --strategy random_sample --repeats 2 --meta-strategy random_sample --budget 1 "
                                 "--spaces " + kTrain);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "1 of 2 settings scored")) << run.out;  // default grid: fraction 0.5, 1.0
  EXPECT_TRUE(contains(run.out, "random_sample")) << run.out;
}

// --plot: the distribution of the six settings' scores (the defaults marked: the grid holds genetic_algorithm's
// popsize 10 and single_point) and one figure per hyperparameter, embedded by index.html.
TEST(HypertuneCommand, PlotsTheScoreDistributionAndEachHyperparameter) {
  const auto dir = cli_temp_dir() / "hypertune_plots";
  std::filesystem::remove_all(dir);
  const std::string grid = cli_write_temp("ga_plot_hyperspace.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "popsize", "Type": "int", "Values": "[5, 10, 20]"},
      {"Name": "method", "Type": "string", "Values": "['single_point', 'two_point']"}], "Conditions": []}})");
  const KtuneRun run = run_ktune("hypertune --strategy genetic_algorithm --repeats 2 --seed 1 --hyperspace " +
                                 quoted(grid) + " --spaces " + kTrain + " --plot " + quoted(dir.string()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "figures: ")) << run.out;
  const std::string distribution = read_text(dir / "score_distribution.svg");
  EXPECT_TRUE(contains(distribution, "over 6 settings")) << distribution;
  EXPECT_TRUE(contains(distribution, "defaults: ")) << "popsize 10 and single_point are genetic_algorithm's defaults";
  EXPECT_TRUE(contains(distribution, "best: "));
  for (const char* name : {"popsize", "method"}) {
    const std::string figure = read_text(dir / (std::string("hyperparameter_") + name + ".svg"));
    EXPECT_TRUE(contains(figure, std::string("score by ") + name)) << name;
    EXPECT_TRUE(contains(read_text(dir / "index.html"), std::string("hyperparameter_") + name + ".svg")) << name;
  }
  EXPECT_TRUE(contains(read_text(dir / "hyperparameter_method.svg"), "0 = &apos;single_point&apos;"));
  const KtuneRun unwritable = run_ktune("hypertune --strategy genetic_algorithm --repeats 1 --hyperspace " +
                                        quoted(grid) + " --spaces " + kTrain + " --plot /proc/nope");
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_TRUE(contains(unwritable.err, "--plot")) << unwritable.err;
}

// --objectives: a multi-objective strategy's settings scored by IGD+ against random search, each score the mean of
// the improvements `ktune compare --objectives` reports for the same label at the same checkpoints; a cache of
// methodology scores is not resumed as IGD+ scores, and options that need the methodology are refused.
TEST(HypertuneCommand, ScoresAMultiObjectiveStrategyByIgdPlus) {
  const std::string dot = quoted(std::string(KTUNE_SOURCE_DIR) + "/tests/data/multiobjective/dot_cache.json.gz");
  const std::string grid = cli_write_temp("nsga_hyperspace.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "popsize", "Type": "int", "Values": "[10, 40]"}], "Conditions": []}})");
  const std::string cache = (cli_temp_dir() / "nsga_scores.json").string();
  std::filesystem::remove(cache);
  const std::string args = "hypertune --json --strategy nsga2 --repeats 4 --seed 3 --hyperspace " + quoted(grid) +
                           " --spaces " + dot + " --objectives time,memory --evaluations 60 --checkpoints 30 60";
  const KtuneRun run = run_ktune(args + " --output " + quoted(cache));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_TRUE(contains(j.at("score_measure").get<std::string>(), "IGD+ improvement over random_sample"));
  ASSERT_EQ(j.at("results").size(), 2u);
  for (const auto& r : j.at("results")) {
    const std::string label = r.at("label").get<std::string>();
    const KtuneRun compare = run_ktune("compare --json --spaces " + dot + " --objectives time,memory --budget 60 "
                                       "--checkpoints 30 60 --repeats 4 --seed 3 --strategies " + label);
    ASSERT_EQ(compare.exit_code, 0) << compare.err;
    const auto improvement = nlohmann::json::parse(compare.out).at("spaces")[0].at("strategies").at(label).at(
        "improvement");
    EXPECT_DOUBLE_EQ(r.at("score").get<double>(),
                     (improvement[0].get<double>() + improvement[1].get<double>()) / 2) << label;
  }
  // The same cache scored by the methodology: refused, naming both measures.
  const KtuneRun other = run_ktune("hypertune --strategy nsga2 --repeats 2 --hyperspace " + quoted(grid) +
                                   " --spaces " + kTrain + " --output " + quoted(cache));
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(contains(other.err, "scored by IGD+ improvement")) << other.err;
  const KtuneRun cv = run_ktune(args + " --cv 2");
  EXPECT_EQ(cv.exit_code, 2);
  EXPECT_TRUE(contains(cv.err, "--cv")) << cv.err;
  const KtuneRun one = run_ktune("hypertune --strategy nsga2 --hyperspace " + quoted(grid) + " --spaces " + dot +
                                 " --objectives time");
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_TRUE(contains(one.err, "at least two objectives")) << one.err;
}

TEST(HypertuneCommand, Errors) {
  const KtuneRun unknown = run_ktune("hypertune --strategy nope --spaces " + kTrain);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "unknown strategy 'nope'")) << unknown.err;
  const std::string bad = cli_write_temp("bad_hyperspace.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "popsize", "Type": "int", "Values": "[0, 5]"}]}})");
  const KtuneRun range = run_ktune("hypertune --strategy genetic_algorithm --hyperspace " + quoted(bad) + " --spaces " + kTrain);
  EXPECT_EQ(range.exit_code, 1);
  EXPECT_TRUE(contains(range.err, "bad_hyperspace.json")) << range.err;
  EXPECT_TRUE(contains(range.err, "TuningParameters[0].Values")) << range.err;
  const KtuneRun meta = run_ktune("hypertune --strategy pso --meta-strategy pso --meta-set nope=1 --spaces " + kTrain);
  EXPECT_EQ(meta.exit_code, 2);
  const KtuneRun defaults = run_ktune("hypertune --strategy pso --defaults genetic_algorithm --spaces " + kTrain);
  EXPECT_EQ(defaults.exit_code, 2);
  EXPECT_TRUE(contains(defaults.err, "is not a setting of pso")) << defaults.err;
  const KtuneRun missing = run_ktune("hypertune --strategy pso --spaces /nonexistent.json");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(contains(missing.err, "/nonexistent.json")) << missing.err;
  // The quirks of benchmark_hub's files are warnings, not errors.
  const KtuneRun quirks = run_ktune(
      "hypertune --strategy pso --repeats 1 --budget 1 --meta-strategy random_sample --hyperspace " +
      quoted(shared_path("data/benchmark_hub/hyperparametertuning/algorithms/metatuning_pso.json")) + " --spaces " + kTrain);
  EXPECT_EQ(quirks.exit_code, 0) << quirks.err;
  EXPECT_TRUE(contains(quirks.err, "declared twice")) << quirks.err;
}

}  // namespace hypertune_command_test
}  // namespace
