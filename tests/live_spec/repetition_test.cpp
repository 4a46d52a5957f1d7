// Adaptive and fixed repetition (ktune/repetition.hpp): the statistics, intervals, outliers and stopping decisions.
#include "ktune/repetition.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace ktune {
namespace {

TEST(Repetition, FixedRunsEveryTimeAndKeepsEveryRunInTheStatistic) {
  RepetitionPolicy fixed;  // 7, as Kernel Tuner
  std::vector<double> runs = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  EXPECT_EQ(decide(fixed, summarize_runs(runs, Statistic::mean, false), nullptr), RepetitionDecision::more);
  runs.push_back(8.0);  // an outlier counts, as in Kernel Tuner's mean
  const RunSummary s = summarize_runs(runs, Statistic::mean, false);
  EXPECT_DOUBLE_EQ(s.value, 2.0);
  EXPECT_EQ(s.outliers, 0u);
  EXPECT_EQ(decide(fixed, s, nullptr), RepetitionDecision::capped);
}

TEST(Repetition, StableRunsArePreciseAfterTheMinimum) {
  const RepetitionPolicy policy = RepetitionPolicy::parse("auto");
  const std::vector<double> two = {1.000, 1.001};
  EXPECT_EQ(decide(policy, summarize_runs(two, Statistic::mean, true), nullptr), RepetitionDecision::more);
  const std::vector<double> three = {1.000, 1.001, 0.999};
  const RunSummary s = summarize_runs(three, Statistic::mean, true);
  EXPECT_NEAR(s.value, 1.0, 1e-12);
  // t(2) = 4.303, sd = 0.001: half-width 0.0025, within 2%.
  EXPECT_NEAR(s.high - s.value, 4.303 * 0.001 / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(decide(policy, s, nullptr), RepetitionDecision::precise);
}

TEST(Repetition, NoisyRunsNeedMoreUntilTheCap) {
  const RepetitionPolicy policy = RepetitionPolicy::parse("auto:max=6");
  const std::vector<double> runs = {1.0, 1.2, 0.9, 1.1, 0.8};
  EXPECT_EQ(decide(policy, summarize_runs(runs, Statistic::mean, true), nullptr), RepetitionDecision::more);
  std::vector<double> six = runs;
  six.push_back(1.3);
  EXPECT_EQ(decide(policy, summarize_runs(six, Statistic::mean, true), nullptr), RepetitionDecision::capped);
}

TEST(Repetition, ClearlySlowerThanTheBestIsRejectedOnlyWhenTheIntervalsAreApart) {
  const RepetitionPolicy policy = RepetitionPolicy::parse("auto:precision=0.001");
  const std::vector<double> best_runs = {1.00, 1.01, 0.99};
  const RunSummary best = summarize_runs(best_runs, Statistic::mean, true);
  const std::vector<double> slow = {1.50, 1.52, 1.48};
  EXPECT_EQ(decide(policy, summarize_runs(slow, Statistic::mean, true), &best), RepetitionDecision::rejected);
  const std::vector<double> close = {1.02, 1.03, 1.01};  // overlaps the best's interval: measure on
  EXPECT_EQ(decide(policy, summarize_runs(close, Statistic::mean, true), &best), RepetitionDecision::more);
  const RepetitionPolicy no_reject = RepetitionPolicy::parse("auto:precision=0.001,reject=0");
  EXPECT_EQ(decide(no_reject, summarize_runs(slow, Statistic::mean, true), &best), RepetitionDecision::more);
}

// Runs with 4% jitter, of which a few lie close together by chance: from their own scatter the slower configuration
// (5 runs, 6% above the best, which has 7 quiet runs) looks clearly slower, and the best looks precise. With the
// typical scatter of the configurations measured so far (4%), neither is decided yet.
TEST(Repetition, AFewCloseRunsAreJudgedByTheTypicalScatter) {
  const RepetitionPolicy policy = RepetitionPolicy::parse("auto");
  const std::vector<double> best_runs = {1.000, 1.020, 0.995, 1.010, 1.030, 0.990, 1.005};
  const RunSummary best = summarize_runs(best_runs, Statistic::mean, true);
  const std::vector<double> five = {1.045, 1.070, 1.050, 1.080, 1.058};
  const RunSummary slower = summarize_runs(five, Statistic::mean, true);
  EXPECT_EQ(decide(policy, slower, &best), RepetitionDecision::rejected);
  EXPECT_EQ(decide(policy, best, nullptr), RepetitionDecision::precise);
  TypicalSpread typical;
  EXPECT_EQ(typical.value(), 0.0);  // nothing measured yet
  for (double spread : {0.041, 0.038, 0.044}) typical.add(RunSummary{.value = 1, .spread = spread, .runs = 15});
  EXPECT_DOUBLE_EQ(typical.value(), 0.041);  // the median, from the third configuration on
  EXPECT_EQ(decide(policy, slower, &best, typical.value()), RepetitionDecision::more);
  EXPECT_EQ(decide(policy, best, nullptr, typical.value()), RepetitionDecision::more);
  // Far apart, or precise against that scatter too: decided as before.
  const std::vector<double> slow = {1.50, 1.52, 1.48, 1.51, 1.49};
  EXPECT_EQ(decide(policy, summarize_runs(slow, Statistic::mean, true), &best, typical.value()),
            RepetitionDecision::rejected);
  std::vector<double> many(31, 1.0);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] += (i % 2 ? 0.04 : -0.04);
  EXPECT_EQ(decide(policy, summarize_runs(many, Statistic::mean, true), nullptr, typical.value()),
            RepetitionDecision::precise);
}

TEST(Repetition, AFewDisturbedRunsAreOutliersButASlowModeIsNot) {
  const std::vector<double> runs = {1.0, 1.001, 0.999, 1.0, 1.002, 5.0};
  const RunSummary s = summarize_runs(runs, Statistic::mean, true);
  EXPECT_EQ(s.outliers, 1u);
  EXPECT_NEAR(s.value, 1.0004, 1e-9);
  EXPECT_EQ(s.runs, 6u);
  // Runs within 2% of the median are never outliers, however tight the rest.
  const std::vector<double> tight = {1.0, 1.0, 1.0, 1.0, 1.0, 1.015};
  EXPECT_EQ(summarize_runs(tight, Statistic::mean, true).outliers, 0u);
  // Half the runs slow: a mode of the configuration, kept.
  const std::vector<double> bimodal = {1.0, 2.0, 1.0, 2.0, 1.0, 2.0};
  const RunSummary b = summarize_runs(bimodal, Statistic::mean, true);
  EXPECT_EQ(b.outliers, 0u);
  EXPECT_DOUBLE_EQ(b.value, 1.5);
  // Fewer than five runs: nothing is left out.
  const std::vector<double> few = {1.0, 1.0, 1.0, 9.0};
  EXPECT_EQ(summarize_runs(few, Statistic::mean, true).outliers, 0u);
}

TEST(Repetition, MedianHasADistributionFreeIntervalAndMinTheRunsScatter) {
  const std::vector<double> runs = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  const RunSummary m = summarize_runs(runs, Statistic::median, false);
  EXPECT_DOUBLE_EQ(m.value, 5.5);
  // n = 10: [x(2), x(9)] covers 97.9% (x(3), x(8) only 89%).
  EXPECT_DOUBLE_EQ(m.low, 2);
  EXPECT_DOUBLE_EQ(m.high, 9);
  const RunSummary lo = summarize_runs(runs, Statistic::min, false);
  EXPECT_DOUBLE_EQ(lo.value, 1);
  EXPECT_NEAR(lo.high - lo.value, 2.262 * std::sqrt(55.0 / 6.0) / std::sqrt(10.0), 1e-3);  // t(9) sd / sqrt(n)
  const std::vector<double> one = {3.0};
  const RunSummary single = summarize_runs(one, Statistic::mean, true);
  EXPECT_DOUBLE_EQ(single.low, 3.0);
  EXPECT_DOUBLE_EQ(single.high, 3.0);
}

TEST(Repetition, TiedMeansOverlappingIntervals) {
  const std::vector<double> a = {1.00, 1.02, 0.98}, b = {1.01, 1.03, 0.99}, c = {1.5, 1.52, 1.48};
  const RunSummary sa = summarize_runs(a, Statistic::mean, true), sb = summarize_runs(b, Statistic::mean, true),
                   sc = summarize_runs(c, Statistic::mean, true);
  EXPECT_TRUE(tied(sa, sb));
  EXPECT_FALSE(tied(sa, sc));
}

TEST(Repetition, ParsesNumbersAutoAndSettingsAndNamesWhatIsWrong) {
  EXPECT_FALSE(RepetitionPolicy::parse("7").adaptive);
  EXPECT_EQ(RepetitionPolicy::parse("11").runs, 11);
  const RepetitionPolicy p = RepetitionPolicy::parse("auto:min=4,max=9,precision=0.01,reject=0");
  EXPECT_TRUE(p.adaptive);
  EXPECT_EQ(p.min_runs, 4);
  EXPECT_EQ(p.max_runs, 9);
  EXPECT_DOUBLE_EQ(p.precision, 0.01);
  EXPECT_FALSE(p.early_rejection);
  EXPECT_EQ(RepetitionPolicy::parse(p.describe()).describe(), p.describe());
  EXPECT_EQ(RepetitionPolicy::parse("auto").describe(), "auto:min=3,max=31,precision=0.02,reject=1");
  for (const char* bad : {"0", "-3", "abc", "7x", "automatic", "auto:", "auto:foo=1", "auto:min=1", "auto:max=2",
                          "auto:precision=0", "auto:precision=x", "auto:min"}) {
    EXPECT_THROW(RepetitionPolicy::parse(bad), std::invalid_argument) << bad;
  }
  try {
    RepetitionPolicy::parse("auto:speed=3");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("speed"), std::string::npos);
  }
}

TEST(Repetition, StudentQuantiles) {
  EXPECT_NEAR(t_quantile_95(1), 12.706, 1e-3);
  EXPECT_NEAR(t_quantile_95(10), 2.228, 1e-3);
  EXPECT_NEAR(t_quantile_95(60), 2.000, 3e-3);
  EXPECT_NEAR(t_quantile_95(100000), 1.960, 1e-3);
}

}  // namespace
}  // namespace ktune
