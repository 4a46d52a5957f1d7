// The comparison pipeline: strategy specs, space names, determinism across threads, and random_sample scoring
// about 0 on the six training spaces, as random search should against a random-search baseline.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "ktune/methodology/comparison.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "shared_data.hpp"

namespace ktune::methodology {
namespace {

using testing::shared_path;

std::string cache(const std::string& app, const std::string& gpu) {
  return shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + "_T4.json.gz");
}

const std::vector<ComparisonSpace>& six_spaces() {
  static const auto spaces = load_spaces({cache("convolution_milo", "A100"), cache("convolution_milo", "A4000"),
                                          cache("convolution_milo", "MI250X"), cache("dedispersion_milo", "A100"),
                                          cache("dedispersion_milo", "A4000"), cache("dedispersion_milo", "MI250X")});
  return spaces;
}

TEST(StrategySpec, NameAndHyperparameters) {
  const auto s = parse_strategy_spec("random_sample:fraction=0.5");
  EXPECT_EQ(s.label, "random_sample:fraction=0.5");
  EXPECT_EQ(s.name, "random_sample");
  ASSERT_EQ(s.hyperparameters.size(), 1u);
  EXPECT_EQ(s.hyperparameters[0].second.as_float(), 0.5);
  EXPECT_EQ(parse_strategy_spec("brute_force").hyperparameters.size(), 0u);
  EXPECT_THROW(parse_strategy_spec("random_sample:frac=1"), HyperparameterError);
  EXPECT_THROW(parse_strategy_spec("random_sample:fraction=3"), HyperparameterError);
  EXPECT_THROW(parse_strategy_spec("random_sample:fraction"), HyperparameterError);
  EXPECT_THROW(parse_strategy_spec("nope"), HyperparameterError);
}

// What the multi-objective comparison seeds from: the settings, not the label, and no hyperparameter at its default
// (so adding one later reseeds nothing).
TEST(StrategySpec, CanonicalTextNamesOnlyTheSettingsThatDifferFromTheDefaults) {
  EXPECT_EQ(canonical_strategy_text(parse_strategy_spec("nsga2")), "nsga2");
  EXPECT_EQ(canonical_strategy_text(parse_strategy_spec("nsga2:crossover=two_point,popsize=20")), "nsga2");
  EXPECT_EQ(canonical_strategy_text(parse_strategy_spec("nsga2:mutation_probability=0.25,crossover=uniform")),
            "nsga2:crossover='uniform',mutation_probability=0.25");
  EXPECT_EQ(canonical_strategy_text(parse_strategy_spec("nsga3:popsize=30")),
            canonical_strategy_text(parse_strategy_spec("nsga3:popsize=30.0")));
}

TEST(SpaceName, FromBenchmarkHubPaths) {
  EXPECT_EQ(space_name_from_path("/x/cachefiles/convolution_milo/A100_T4.json.gz"), "A100_convolution_milo");
  EXPECT_EQ(space_name_from_path("/x/cachefiles/convolution_milo/A100.json.gz"), "A100_convolution_milo");
  EXPECT_EQ(space_name_from_path("mine.json"), "mine");
}

// A cache and its T4 export are one device's measurements: one space (scored twice, it would weigh twice), with the
// statistics of either. Two files of one name from different devices are refused, naming both.
TEST(LoadSpaces, ACacheAndItsT4TwinAreOneSpace) {
  const std::string plain = shared_path("data/benchmark_hub/cachefiles/convolution_milo/MI250X.json.gz");
  const auto spaces = load_spaces({cache("convolution_milo", "MI250X"), cache("dedispersion_milo", "A4000"), plain});
  ASSERT_EQ(spaces.size(), 2u);
  EXPECT_EQ(spaces[0].name, "MI250X_convolution_milo");
  EXPECT_EQ(spaces[1].name, "A4000_dedispersion_milo");
  const auto merged = space_statistics(spaces, {});
  const auto alone = space_statistics({six_spaces()[2]}, {});
  EXPECT_EQ(merged[0].range.fevals_end, alone[0].range.fevals_end);
  EXPECT_DOUBLE_EQ(merged[0].budget_seconds, alone[0].budget_seconds);

  const auto dir = std::filesystem::temp_directory_path() /
                   ("ktune_twins_" + std::to_string(::getpid())) / "convolution_milo";
  std::filesystem::create_directories(dir);
  // The A4000's measurements under the A100's name (both files name their device; the MI250X's does not, and a file
  // without one is told apart by its name alone, as a transfer source is).
  const auto impostor = dir / "A100.json.gz";
  std::filesystem::copy_file(shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz"), impostor,
                             std::filesystem::copy_options::overwrite_existing);
  try {
    (void)load_spaces({shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz"), impostor.string()});
    ADD_FAILURE() << "two devices under one name were merged";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("two spaces are named A100_convolution_milo"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(impostor.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir.parent_path());
}

TEST(Compare, StatisticsMatchTheSpec) {
  const auto stats = space_statistics(six_spaces(), {});
  ASSERT_EQ(stats.size(), 6u);
  EXPECT_EQ(stats[2].name, "MI250X_convolution_milo");
  EXPECT_EQ(stats[2].range.fevals_start, 2);
  EXPECT_EQ(stats[2].range.fevals_end, 51);
  EXPECT_NEAR(stats[2].budget_seconds, 91.57, 0.01);
  EXPECT_EQ(stats[0].range.fevals_end, 1050);
  EXPECT_EQ(stats[3].range.fevals_end, 795);
}

TEST(Compare, SameSeedSameReportWhateverTheThreads) {
  const std::vector<ComparisonSpace> two{six_spaces()[2], six_spaces()[4]};
  const std::vector<StrategySpec> strategies{parse_strategy_spec("random_sample"),
                                             parse_strategy_spec("random_sample:fraction=0.01")};
  ComparisonOptions options;
  options.repeats = 6;
  options.resolution = 200;
  options.threads = 1;
  const auto a = compare(two, strategies, options);
  options.threads = 2;
  const auto b = compare(two, strategies, options);
  options.seed = 1;
  const auto c = compare(two, strategies, options);
  ASSERT_EQ(a.aggregate.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(a.aggregate[k].score, b.aggregate[k].score);
    EXPECT_EQ(a.aggregate[k].error, b.aggregate[k].error);
    EXPECT_NE(a.aggregate[k].score, c.aggregate[k].score);
    for (std::size_t s = 0; s < 2; ++s) {
      EXPECT_EQ(a.spaces[s].strategies[k].performance, b.spaces[s].strategies[k].performance);
      EXPECT_EQ(a.spaces[s].strategies[k].runs.size(), 6u);
    }
  }
  // Sampling only 1% of the space stops early: the rest of the curve is carried forward.
  EXPECT_LT(a.spaces[1].strategies[1].curve.real_stopping_fraction, 1.0);
}

// Common random numbers: repeat r has one seed for every strategy, so a strategy's uniform opening is random
// search's first evaluations, and two labels for the same settings get the same runs.
TEST(Compare, EveryStrategyGetsTheSameSeedPerRepeat) {
  const std::vector<ComparisonSpace> one{six_spaces()[2]};
  ComparisonOptions options;
  options.repeats = 4;
  options.resolution = 200;
  const std::vector<StrategySpec> strategies{
      parse_strategy_spec("random_sample"), parse_strategy_spec("greedy_mls:start_sample=5,sampling=random"),
      parse_strategy_spec("pso:popsize=25"), parse_strategy_spec("pso")};
  const auto report = compare(one, strategies, options);
  const auto& on = report.spaces[0].strategies;
  for (std::size_t r = 0; r < 4; ++r) {
    ASSERT_GE(on[1].runs[r].size(), 5u);
    for (std::size_t e = 0; e < 5; ++e) {
      EXPECT_EQ(on[1].runs[r][e].value, on[0].runs[r][e].value) << "repeat " << r << ", evaluation " << e;
      EXPECT_EQ(on[1].runs[r][e].time_s, on[0].runs[r][e].time_s) << "repeat " << r << ", evaluation " << e;
    }
  }
  EXPECT_NE(on[1].score, on[0].score);
  EXPECT_EQ(on[2].score, on[3].score) << "the same settings under two labels";
}

// Charged, a run's clock also advances by the strategy's own time: bayes_opt makes the same choices (they do not
// depend on the clock), each at a later time, and fits fewer or as many evaluations into the budget.
TEST(Compare, ChargingStrategyTimeMovesEachRunsClockOnByTheStrategysOwnTime) {
  const std::vector<ComparisonSpace> one{six_spaces()[2]};
  ComparisonOptions options;
  options.repeats = 2;
  options.resolution = 200;
  const std::vector<StrategySpec> strategies{parse_strategy_spec("bayes_opt")};
  const auto plain = compare(one, strategies, options);
  options.charge_strategy_time = true;
  const auto charged = compare(one, strategies, options);
  EXPECT_FALSE(plain.strategy_time_charged);
  EXPECT_TRUE(charged.strategy_time_charged);
  for (std::size_t r = 0; r < 2; ++r) {
    const methodology::Run& a = plain.spaces[0].strategies[0].runs[r];
    const methodology::Run& b = charged.spaces[0].strategies[0].runs[r];
    ASSERT_GE(b.size(), 10u);
    EXPECT_LE(b.size(), a.size());
    for (std::size_t e = 0; e < b.size(); ++e) {
      if (!std::isnan(a[e].value) || !std::isnan(b[e].value)) {
        EXPECT_EQ(b[e].value, a[e].value) << "repeat " << r << ", evaluation " << e;
      }
      EXPECT_GE(b[e].time_s, a[e].time_s) << "repeat " << r << ", evaluation " << e;
    }
    EXPECT_GT(b.back().time_s, a[b.size() - 1].time_s) << "repeat " << r;
  }
}

TEST(Compare, RandomSampleScoresAboutZeroOnTheTrainingSpaces) {
  ComparisonOptions options;
  options.repeats = 25;
  const auto report = compare(six_spaces(), {parse_strategy_spec("random_sample")}, options);
  ASSERT_EQ(report.aggregate.size(), 1u);
  // Kernel Tuner's random_sample scores -0.09 ... -0.01 with the reference package (methodology.md §2.3); ours
  // samples until the budget ends, so it does not stop early on A100 convolution.
  // 25 random runs scatter: over seeds 0-7 the aggregate spans -0.13 ... 0.03 and single spaces -0.44 ... 0.27
  // (MI250X convolution has the widest spread). A broken sampler (repeats, a fixed region) scores far below.
  EXPECT_GE(report.aggregate[0].score, -0.15);
  EXPECT_LE(report.aggregate[0].score, 0.08);
  for (const auto& space : report.spaces) {
    EXPECT_NEAR(space.strategies[0].score, 0.0, 0.5) << space.name;
    EXPECT_EQ(space.strategies[0].curve.real_stopping_fraction, 1.0) << space.name;
  }
}

}  // namespace
}  // namespace ktune::methodology
