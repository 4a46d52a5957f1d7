// Multi-objective use of the command line: `ktune tune` with several objectives (Pareto front in the JSON and T4
// output), `ktune pareto` (true front, runs scored against it), `ktune compare --objectives` (IGD+ against random
// search), derived objectives from a single-objective GPU cache.
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune::testing;

const std::string kConvolution = quoted(shared_path("data/benchmark_hub/cachefiles/convolution_milo/MI250X_T4.json.gz"));
// Threads per block, computed from the parameters: more threads per block (maximised) against time gives this
// single-objective cache a Pareto front of 5 points.
const std::string kThreads = "--derive 'threads=block_size_x*block_size_y'";

TEST(MultiObjectiveCli, TuneReportsTheParetoFrontOfWhatItEvaluated) {
  const std::string t4 = (cli_temp_dir() / "mo_run.json").string();
  const KtuneRun run = run_ktune("tune --simulate " + kConvolution + " " + kThreads +
                                 " --objectives time,threads:max --strategy nsga2 --max-fevals 120 --seed 4 --json "
                                 "--output " + quoted(t4));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("evaluations"), 120);
  const auto& front = j.at("pareto_front");
  ASSERT_GE(front.size(), 2u);
  // Ascending time, strictly more threads: nobody on it dominates anybody else.
  for (std::size_t i = 1; i < front.size(); ++i) {
    EXPECT_LE(front[i - 1]["objectives"]["time"].get<double>(), front[i]["objectives"]["time"].get<double>());
    EXPECT_LT(front[i - 1]["objectives"]["threads"].get<double>(), front[i]["objectives"]["threads"].get<double>());
  }
  const auto output = nlohmann::json::parse(read_text(t4));
  EXPECT_EQ(output.at("metadata").at("pareto_front").size(), front.size());
  EXPECT_EQ(output.at("results").size(), 120u);

  // The same run scored against the true front of the whole cache.
  const KtuneRun pareto = run_ktune("pareto " + kConvolution + " " + kThreads + " --objectives time,threads:max --json --runs " +
                                    quoted(t4));
  ASSERT_EQ(pareto.exit_code, 0) << pareto.err;
  const auto p = nlohmann::json::parse(pareto.out);
  EXPECT_EQ(p.at("configurations"), 4362);
  ASSERT_GE(p.at("front").size(), 2u);
  const auto& r = p.at("runs").at(0);
  EXPECT_EQ(r.at("evaluated"), 120);
  EXPECT_GT(r.at("igd_plus").get<double>(), 0.0);
  EXPECT_LT(r.at("hypervolume").get<double>(), p.at("hypervolume").get<double>());
  // The fastest configuration of the cache is the front's first point.
  EXPECT_NEAR(p["front"][0]["objectives"]["time"].get<double>(), 0.6587962452322245, 1e-12);

  const KtuneRun human = run_ktune("pareto " + kConvolution + " " + kThreads + " --objectives time,threads:max --limit 3");
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_TRUE(contains(human.out, "true Pareto front")) << human.out;
}

TEST(MultiObjectiveCli, ScalarizedSingleObjectiveStrategy) {
  const KtuneRun run = run_ktune("tune --simulate " + kConvolution + " " + kThreads +
                                 " --objectives time,threads:max --scalarize weighted_sum:1,0.01 --strategy "
                                 "genetic_algorithm --max-fevals 50 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("scalarization"), "weighted_sum");
  EXPECT_TRUE(j.at("best").at("objectives").at("threads").is_number());
  const KtuneRun bad = run_ktune("tune --simulate " + kConvolution + " " + kThreads +
                                 " --objectives time,threads:max --scalarize weighted_sum:1 --max-fevals 5");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "2 objectives")) << bad.err;
}

TEST(MultiObjectiveCli, CompareByIgdPlusAgainstRandomSearch) {
  const auto dir = cli_temp_dir() / "mo_plots";
  const KtuneRun run = run_ktune("compare --json --spaces " + kConvolution + " " + kThreads +
                                 " --objectives time,threads:max --strategies nsga2 --budget 100 --repeats 5 --seed 1 "
                                 "--plot " + quoted(dir.string()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("checkpoints"), nlohmann::json::array({50, 100}));
  EXPECT_EQ(j.at("baseline"), "random_sample");
  const auto& s = j.at("spaces").at(0);
  EXPECT_EQ(s.at("configurations"), 4362);
  const auto& random = s.at("strategies").at("random_sample");
  EXPECT_DOUBLE_EQ(random.at("improvement")[0].get<double>(), 0.0);
  // Random search reaches its own final IGD+ at the latest after the whole budget.
  EXPECT_GT(random.at("evaluations_to_match").get<double>(), 0.0);
  EXPECT_LE(random.at("evaluations_to_match").get<double>(), 1.0);
  EXPECT_TRUE(s.at("strategies").at("nsga2").at("median_igd")[1].is_number());
  // In evaluation time (the thesis's Table 5): relative to random search's median clock after the whole budget, and
  // no later than the whole budget's own time (the clock only grows).
  EXPECT_DOUBLE_EQ(random.at("time_ratio").get<double>(), 1.0);
  for (const char* strategy : {"nsga2", "random_sample"}) {
    const auto& on = s.at("strategies").at(strategy);
    ASSERT_TRUE(on.at("time_to_match").is_number()) << strategy;
    EXPECT_GT(on.at("time_to_match").get<double>(), 0.0) << strategy;
    EXPECT_LE(on.at("time_to_match").get<double>(), on.at("time_ratio").get<double>() + 1e-12) << strategy;
  }
  EXPECT_TRUE(j.at("aggregate").at("nsga2").at("time_ratio").is_number());
  // The spread over the runs: the quartiles around the median at every checkpoint.
  for (const char* strategy : {"nsga2", "random_sample"}) {
    const auto& on = s.at("strategies").at(strategy);
    for (std::size_t c = 0; c < 2; ++c) {
      const double median = on.at("median_igd")[c].get<double>();
      EXPECT_LE(on.at("igd_iqr")[c][0].get<double>(), median) << strategy;
      EXPECT_GE(on.at("igd_iqr")[c][1].get<double>(), median) << strategy;
    }
    EXPECT_LT(on.at("igd_iqr")[0][0].get<double>(), on.at("igd_iqr")[0][1].get<double>()) << "5 runs differ";
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "index.html"));
  bool any_band = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().ends_with("_igd.svg"))
      any_band = any_band || contains(read_text(entry.path().string()), "<polygon fill=");
  EXPECT_TRUE(any_band) << "the IGD+ figure shades the spread";
  bool any_front = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    any_front = any_front || entry.path().filename().string().ends_with("_front.svg");
  EXPECT_TRUE(any_front);
}

TEST(MultiObjectiveCli, Errors) {
  auto run = run_ktune("pareto " + kConvolution + " --objectives time");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "at least two objectives")) << run.err;
  run = run_ktune("pareto " + kConvolution + " --objectives time,threads");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "threads:min")) << run.err;  // the direction of an unknown name must be said
  run = run_ktune("pareto " + kConvolution + " --objectives time,threads:max --derive 'threads=block_size_x*'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "threads")) << run.err;
  run = run_ktune("pareto " + kConvolution + " --objectives time,threads:max --derive 'threads=no_such_parameter*2'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "no_such_parameter")) << run.err;
  run = run_ktune("pareto " + kConvolution + " --objectives time,energy");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "energy")) << run.err;
}

}  // namespace
