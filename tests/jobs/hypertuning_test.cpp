// The rules of hyperparameter tuning through the library: settings best first, the train/test rows, the
// confirmation protocol and its verdict, resuming the scores' cache and refusing one made with other fixed values.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "ktune/jobs/hypertuning.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {

using namespace ktune;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;
using ktune::testing::write_temp;

std::string space(const std::string& app, const std::string& gpu) {
  return shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + "_T4.json.gz");
}

HypertuneRequest request() {
  HypertuneRequest r;
  r.strategy = "genetic_algorithm";
  r.hyperspace_path = write_temp("jobs_ga_grid.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "popsize", "Type": "int", "Values": "[6, 12, 24]"},
      {"Name": "method", "Type": "string", "Values": "['uniform', 'two_point']"}], "Conditions": []}})");
  r.spaces = {space("convolution_milo", "MI250X"), space("dedispersion_milo", "A4000")};
  r.repeats = 2;
  r.seed = 2;
  r.threads = 1;
  return r;
}

// How a request is refused: its kind and message (a test failure when it is accepted).
std::pair<JobError::Kind, std::string> refusal_of(HypertuneRequest r) {
  try {
    Hypertuning job(std::move(r));
  } catch (const JobError& e) {
    return {e.kind(), e.what()};
  }
  ADD_FAILURE() << "the request was accepted";
  return {JobError::Kind::request, ""};
}

TEST(Hypertuning, ScoresEverySettingBestFirst) {
  Hypertuning job(request());
  EXPECT_EQ(job.space().size(), 6u);
  EXPECT_EQ(job.settings_to_score(), 6u);
  EXPECT_EQ(job.training_space_names().size(), 2u);
  const HypertuneOutcome out = job.run();
  ASSERT_EQ(out.rows.size(), 6u);
  EXPECT_EQ(out.scored, 6u);
  for (std::size_t i = 1; i < out.rows.size(); ++i) EXPECT_GE(out.rows[i - 1].score, out.rows[i].score);
  for (const auto& row : out.rows) {
    ASSERT_EQ(row.space_scores.size(), 2u);
    // The score of a setting is the mean of its per-space scores.
    EXPECT_NEAR(row.score, (row.space_scores[0] + row.space_scores[1]) / 2, 1e-12);
  }
  EXPECT_TRUE(out.verdict.empty());  // no confirmation asked
  EXPECT_TRUE(out.test_rows.empty());
  const nlohmann::json j = hypertune_report_json(job, out);
  EXPECT_EQ(j.at("best").at("label"), out.rows.front().label);
  EXPECT_FALSE(j.contains("confirmation"));
}

TEST(Hypertuning, TheVerdictAdoptsOnlyWhatBeatsTheDefaultsOnTrainingAndTest) {
  HypertuneRequest r = request();
  r.test_spaces = {space("convolution_milo", "A4000")};
  r.confirm = 3;
  r.confirm_seeds = 2;
  Hypertuning job(std::move(r));
  const HypertuneOutcome out = job.run();
  ASSERT_EQ(out.test_rows.size(), 4u);
  EXPECT_EQ(out.test_rows[0].role, "best");
  EXPECT_EQ(out.test_rows[0].label, out.rows.front().label);
  EXPECT_EQ(out.test_rows[3].role, "default");
  EXPECT_EQ(out.test_rows[3].label, job.defaults_label());
  // Fresh seeds after the run's own; the test uses the run's seed too.
  EXPECT_EQ(out.confirm_seeds, (std::vector<std::uint64_t>{3, 4}));
  EXPECT_EQ(out.test_seeds, (std::vector<std::uint64_t>{2, 3, 4}));
  ASSERT_EQ(out.confirmed.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(out.confirmed[i].label, out.rows[i].label);
  // The recommendation is the best confirmed mean, not the best first score.
  const auto best = std::max_element(out.confirmed.begin(), out.confirmed.end(),
                                     [](const auto& a, const auto& b) { return a.confirmed < b.confirmed; });
  EXPECT_EQ(out.recommended.label, best->label);
  EXPECT_EQ(out.reference.label, job.defaults_label());
  const bool better = out.recommended.confirmed > out.reference.confirmed && out.recommended.test > out.reference.test;
  EXPECT_EQ(out.verdict, better ? "adopt" : "keep");
  EXPECT_TRUE(std::isfinite(out.recommended.test));
  EXPECT_TRUE(std::isfinite(out.reference.test));
}

TEST(Hypertuning, TheScoresCacheIsResumedAndBelongsToItsFixedValues) {
  const std::string cache = (temp_dir() / "jobs_ga_scores.json").string();
  std::filesystem::remove(cache);
  HypertuneRequest first = request();
  first.output_path = cache;
  first.budget.max_evaluations = 4;
  Hypertuning job(std::move(first));
  const HypertuneOutcome scored = job.run();
  EXPECT_EQ(scored.result.evaluations, 4u);

  HypertuneRequest again = request();
  again.output_path = cache;
  Hypertuning resumed(std::move(again));
  EXPECT_EQ(resumed.settings_to_score(), 2u);
  const HypertuneOutcome rest = resumed.run();
  EXPECT_EQ(rest.resumed, 4u);
  EXPECT_EQ(rest.result.evaluations, 2u);
  EXPECT_EQ(rest.rows.size(), 6u);

  // The same budget again: the resumed settings count toward it (issue 33), so nothing more is scored.
  HypertuneRequest budgeted = request();
  budgeted.output_path = cache;
  budgeted.budget.max_evaluations = 4;
  Hypertuning finished(std::move(budgeted));
  EXPECT_EQ(finished.settings_to_score(), 0u);
  EXPECT_EQ(finished.run().result.evaluations, 0u);

  // Other values of the hyperparameters outside the grid: other settings, so the cache is refused.
  HypertuneRequest other = request();
  other.output_path = cache;
  other.reference = "genetic_algorithm:elitism=0";
  const auto [kind, message] = refusal_of(std::move(other));
  EXPECT_EQ(kind, JobError::Kind::input);
  EXPECT_NE(message.find("outside the grid"), std::string::npos) << message;
}

TEST(Hypertuning, RefusesBadRequests) {
  auto kind = [](HypertuneRequest r) {
    try {
      Hypertuning job(std::move(r));
    } catch (const JobError& e) {
      return e.kind() == JobError::Kind::request ? "request" : "input";
    }
    return "none";
  };
  HypertuneRequest unknown = request();
  unknown.strategy = "nope";
  EXPECT_STREQ(kind(unknown), "request");
  HypertuneRequest no_spaces = request();
  no_spaces.spaces.clear();
  EXPECT_STREQ(kind(no_spaces), "request");
  HypertuneRequest other_strategy = request();
  other_strategy.reference = "pso:popsize=5";
  EXPECT_STREQ(kind(other_strategy), "request");
  HypertuneRequest missing = request();
  missing.spaces = {"/nonexistent.json"};
  EXPECT_STREQ(kind(missing), "input");
}

}  // namespace

TEST(Hypertuning, CrossValidationLeavesEachGpuOutOnce) {
  HypertuneRequest r = request();
  r.cross_validation = "gpu";  // MI250X and A4000: two folds of one space each
  Hypertuning job(std::move(r));
  const HypertuneOutcome out = job.run();
  ASSERT_TRUE(out.cross_validation);
  const auto& cv = *out.cross_validation;
  ASSERT_EQ(cv.folds.size(), 2u);
  EXPECT_EQ(cv.settings, 6u);
  for (std::size_t f = 0; f < 2; ++f) {
    // The chosen setting is the best on the other space, and its held-out score is its score on this one.
    const std::size_t held = f, other = 1 - f;
    const ScoredSettingRow* best = nullptr;
    for (const auto& row : out.rows)
      if (!best || row.space_scores[other] > best->space_scores[other]) best = &row;
    EXPECT_EQ(cv.folds[f].chosen, best->label);
    EXPECT_DOUBLE_EQ(cv.folds[f].held_out_score, best->space_scores[held]);
  }
  EXPECT_TRUE(hypertune_report_json(job, out).contains("cross_validation"));

  HypertuneRequest confirmed = request();
  confirmed.cross_validation = "gpu";
  confirmed.confirm = 1;
  confirmed.confirm_seeds = 1;
  Hypertuning confirming(std::move(confirmed));
  const HypertuneOutcome verdict = confirming.run();
  ASSERT_TRUE(verdict.cross_validation);
  // Adopted only if the cross-validated selection beats the defaults on held-out folds as well.
  if (verdict.cross_validation->mean <= verdict.cross_validation->defaults_mean) {
    EXPECT_EQ(verdict.verdict, "keep");
  }
  if (verdict.verdict == "adopt") {
    EXPECT_GT(verdict.cross_validation->mean, verdict.cross_validation->defaults_mean);
  }

  HypertuneRequest one_kernel_each = request();
  one_kernel_each.cross_validation = "3";  // more folds than spaces: a fold per space
  EXPECT_NO_THROW(Hypertuning{std::move(one_kernel_each)});
  HypertuneRequest bad = request();
  bad.spaces = {space("convolution_milo", "MI250X"), space("dedispersion_milo", "MI250X")};
  bad.cross_validation = "gpu";  // one GPU: nothing to leave out
  const auto [kind, message] = refusal_of(std::move(bad));
  EXPECT_EQ(kind, JobError::Kind::request);
  EXPECT_NE(message.find("--cv gpu"), std::string::npos) << message;
}
