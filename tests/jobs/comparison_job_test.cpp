// The rules of `ktune compare` through the library: what a request must say, which comparison its objectives make,
// and the reports.
#include <cmath>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "ktune/jobs/comparison_job.hpp"
#include "ktune/jobs/comparison_reports.hpp"
#include "ktune/jobs/space_worst_cases.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune;
using ktune::testing::shared_path;

std::string space(const std::string& app, const std::string& gpu) {
  return shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + "_T4.json.gz");
}

CompareRequest request() {
  CompareRequest r;
  r.spaces = {space("convolution_milo", "MI250X"), space("dedispersion_milo", "A4000")};
  r.strategies = {"random_sample", "genetic_algorithm"};
  r.options.repeats = 3;
  r.options.seed = 1;
  r.options.threads = 1;
  return r;
}

const char* refusal(CompareRequest r) {
  try {
    ComparisonJob job(std::move(r));
  } catch (const JobError& e) {
    return e.kind() == JobError::Kind::request ? "request" : "input";
  }
  return "none";
}

TEST(ComparisonJob, ScoresStrategiesAgainstRandomSearch) {
  const ComparisonJob job(request());
  EXPECT_FALSE(job.multiobjective());
  const auto report = job.run();
  ASSERT_EQ(report.spaces.size(), 2u);
  ASSERT_EQ(report.aggregate.size(), 2u);
  for (const auto& s : report.spaces) {
    ASSERT_EQ(s.strategies.size(), 2u);
    EXPECT_EQ(s.strategies[0].runs.size(), 3u);
  }
  const nlohmann::json j = comparison_json(report, false);
  EXPECT_TRUE(j.at("aggregate").contains("genetic_algorithm"));
  EXPECT_FALSE(j.at("spaces")[0].contains("strategies"));  // curves only in the full report
  EXPECT_TRUE(comparison_json(report, true).at("spaces")[0].contains("strategies"));
  std::ostringstream table;
  write_score_table(table, report, job.request().options);
  EXPECT_NE(table.str().find("aggregate"), std::string::npos);
}

TEST(ComparisonJob, TwoObjectivesMakeAMultiObjectiveComparison) {
  CompareRequest r = request();
  r.spaces.resize(1);
  r.strategies = {"nsga2"};
  r.objectives = {"time,threads:max"};
  r.derived = {"threads=block_size_x*block_size_y"};
  r.budget = 40;
  r.checkpoints = {20, 40};
  const ComparisonJob job(std::move(r));
  ASSERT_TRUE(job.multiobjective());
  EXPECT_THROW((void)job.run(), std::logic_error);
  const auto report = job.run_multiobjective();
  ASSERT_EQ(report.spaces.size(), 1u);
  EXPECT_EQ(report.checkpoints, (std::vector<std::size_t>{20, 40}));
  EXPECT_EQ(multiobjective_comparison_json(report, false).at("checkpoints").size(), 2u);
}

TEST(ComparisonJob, StatisticsOnly) {
  CompareRequest r = request();
  r.strategies.clear();
  r.stats_only = true;
  const ComparisonJob job(std::move(r));
  const auto stats = job.statistics();
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_GT(stats[0].stats.size_valid(), 0u);
  EXPECT_EQ(statistics_json(stats).at("spaces").size(), 2u);
}

TEST(ComparisonJob, RefusesBadRequestsAndInput) {
  CompareRequest no_spaces = request();
  no_spaces.spaces.clear();
  EXPECT_STREQ(refusal(no_spaces), "request");
  CompareRequest nothing = request();
  nothing.strategies.clear();
  EXPECT_STREQ(refusal(nothing), "request");
  CompareRequest cutoffs = request();
  cutoffs.options.cutoff_start = 0.9;
  cutoffs.options.cutoff_end = 0.5;
  EXPECT_STREQ(refusal(cutoffs), "request");
  CompareRequest typo = request();
  typo.strategies = {"random_sample:fractoin=0.5"};
  EXPECT_STREQ(refusal(typo), "request");
  CompareRequest runs = request();
  runs.runs = {"no_equals_sign"};
  EXPECT_STREQ(refusal(runs), "request");
  CompareRequest twice = request();
  twice.options.objective = "time";
  twice.objectives = {"energy"};
  EXPECT_STREQ(refusal(twice), "request");
  CompareRequest mo_stats = request();
  mo_stats.objectives = {"time,threads:max"};
  mo_stats.derived = {"threads=block_size_x*block_size_y"};
  mo_stats.stats_only = true;
  EXPECT_STREQ(refusal(mo_stats), "request");
  CompareRequest missing = request();
  missing.spaces = {"/nonexistent/A100_T4.json"};
  EXPECT_STREQ(refusal(missing), "input");
  // An objective the spaces do not record is found when the comparison runs.
  CompareRequest energy = request();
  energy.options.objective = "energy";
  const ComparisonJob job(std::move(energy));
  try {
    (void)job.run();
    ADD_FAILURE() << "energy is not recorded";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::input);
    EXPECT_NE(std::string(e.what()).find("energy"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

ktune::methodology::ComparisonReport report_of(const std::vector<std::string>& strategies,
                                               const std::vector<std::pair<std::string, std::vector<double>>>& spaces) {
  ktune::methodology::ComparisonReport report;
  report.strategies = strategies;
  for (const auto& [name, scores] : spaces) {
    auto& space = report.spaces.emplace_back();
    space.name = name;
    for (std::size_t k = 0; k < scores.size(); ++k) {
      auto& on = space.strategies.emplace_back();
      on.strategy = strategies[k];
      on.score = scores[k];
    }
  }
  return report;
}

}  // namespace

TEST(SpaceWorstCases, NameEachStrategysLowestSpaceAndItsShortfallAgainstRandomSearch) {
  const auto report = report_of({"a", "random_sample", "b"}, {{"s1", {0.9, 0.1, 0.5}},
                                                             {"s2", {0.2, -0.2, 0.6}},
                                                             {"s3", {0.4, 0.3, std::nan("")}}});
  const auto cases = ktune::space_worst_cases(report);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].worst_space, "s2");
  EXPECT_DOUBLE_EQ(cases[0].worst_score, 0.2);
  EXPECT_DOUBLE_EQ(cases[0].mean, 0.5);
  EXPECT_EQ(*cases[0].shortfall_space, "s3");  // 0.4 - 0.3: its smallest lead over random search
  EXPECT_NEAR(*cases[0].shortfall, 0.1, 1e-12);
  EXPECT_FALSE(cases[1].shortfall);  // random_sample against itself
  EXPECT_EQ(cases[2].worst_space, "s1");  // the NaN space (unfinished) is left out
  EXPECT_DOUBLE_EQ(cases[2].mean, 0.55);
  const auto j = ktune::space_worst_cases_json(cases);
  EXPECT_EQ(j[0]["shortfall_space"], "s3");
  EXPECT_TRUE(j[1]["shortfall_vs_random"].is_null());
  EXPECT_FALSE(ktune::space_worst_cases(report_of({"random_sample"}, {{"s", {0.1}}}))[0].shortfall);
}
