// `ktune compare` end to end: the JSON interface, --stats, recorded runs beside ours, figures, and errors.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune::testing;

std::string space(const std::string& app, const std::string& gpu) {
  return quoted(shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + "_T4.json.gz"));
}
const std::string kTwoSpaces = space("convolution_milo", "MI250X") + " " + space("dedispersion_milo", "A4000");
const std::string kTraces = shared_path("data/methodology_golden/traces.json.gz");

TEST(CompareCommand, StatsOnly) {
  const KtuneRun run = run_ktune("compare --stats --json --spaces " + kTwoSpaces);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j.at("spaces").size(), 2u);
  const auto& s = j["spaces"][0];
  EXPECT_EQ(s.at("name"), "MI250X_convolution_milo");
  const auto& st = s.at("stats");
  EXPECT_EQ(st.at("valid"), 4362);
  EXPECT_EQ(st.at("fevals_start"), 2);
  EXPECT_EQ(st.at("fevals_end"), 51);
  EXPECT_NEAR(st.at("optimum").get<double>(), 0.6587962452322245, 1e-15);
  EXPECT_NEAR(st.at("median").get<double>(), 19.84419161081314, 1e-12);
  EXPECT_NEAR(st.at("time_start").get<double>(), 3.2645964423194527, 1e-9);
  EXPECT_NEAR(st.at("time_end").get<double>(), 83.24720927914605, 1e-9);
  const KtuneRun human = run_ktune("compare --stats --spaces " + kTwoSpaces);
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_TRUE(contains(human.out, "A4000_dedispersion_milo")) << human.out;
}

TEST(CompareCommand, ScoresOursAndRecordedRuns) {
  const auto dir = cli_temp_dir() / "plots";
  const std::string report = (cli_temp_dir() / "report.json").string();
  const KtuneRun run = run_ktune("compare --json --repeats 5 --seed 3 --spaces " + kTwoSpaces +
                                 " --strategies random_sample random_sample:fraction=0.2 --runs genetic_algorithm=" +
                                 quoted(kTraces) + " --output " + quoted(report) + " --plot " + quoted(dir.string()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j.at("spaces").size(), 2u);
  for (const auto& s : j["spaces"]) {
    EXPECT_TRUE(s.at("scores").at("random_sample").is_number());
    EXPECT_TRUE(s.at("scores").at("random_sample:fraction=0.2").is_number());
    EXPECT_TRUE(s.at("scores").at("genetic_algorithm").is_number());
  }
  for (const char* name : {"random_sample", "random_sample:fraction=0.2", "genetic_algorithm"}) {
    EXPECT_TRUE(j.at("aggregate").at(name).at("score").is_number()) << name;
    EXPECT_GE(j["aggregate"][name].at("error").get<double>(), 0.0) << name;
  }
  const auto full = nlohmann::json::parse(read_text(report));
  EXPECT_EQ(full["spaces"][0].at("time_points").size(), 1000u);
  EXPECT_EQ(full["spaces"][0]["strategies"]["genetic_algorithm"].at("runs"), 25);
  EXPECT_TRUE(std::filesystem::exists(dir / "aggregate.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir / "index.html"));

  // The same seed gives the same scores.
  const KtuneRun again = run_ktune("compare --json --repeats 5 --seed 3 --threads 1 --spaces " + kTwoSpaces +
                                   " --strategies random_sample random_sample:fraction=0.2 --runs genetic_algorithm=" +
                                   quoted(kTraces));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out), j);
}

TEST(CompareCommand, Errors) {
  auto run = run_ktune("compare --strategies random_sample");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "--spaces")) << run.err;
  run = run_ktune("compare --spaces " + kTwoSpaces + " --strategies random_sample:fractoin=0.5");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "valid: fraction")) << run.err;
  run = run_ktune("compare --spaces /nonexistent/A100_T4.json --strategies random_sample");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "/nonexistent/A100_T4.json")) << run.err;
  run = run_ktune("compare --spaces " + kTwoSpaces + " --runs nope=" + quoted(kTraces));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "random_sample")) << run.err;  // lists the strategies the file has
  run = run_ktune("compare --spaces " + kTwoSpaces + " --strategies random_sample --cutoff 1.5");
  EXPECT_EQ(run.exit_code, 2);
}

}  // namespace
