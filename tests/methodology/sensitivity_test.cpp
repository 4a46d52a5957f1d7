// The sensitivity analysis of hyperparameter scores: the chi-square tail against its closed forms, Kruskal-Wallis
// against hand-worked values (scipy.stats.kruskal's definition, ties included), the mutual-information estimator on
// independent and on separated scores, and the analysis of a grid where one hyperparameter matters and one does not.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ktune/methodology/sensitivity.hpp"
#include "ktune/rng.hpp"

namespace ktune::methodology {
namespace {

TEST(ChiSquareSurvival, EqualsTheClosedFormsForOneTwoAndFourDegreesOfFreedom) {
  for (double x : {0.01, 0.2727, 1.0, 3.84146, 5.0, 12.0, 40.0}) {
    EXPECT_NEAR(chi_square_survival(x, 1), std::erfc(std::sqrt(x / 2)), 1e-12) << x;
    EXPECT_NEAR(chi_square_survival(x, 2), std::exp(-x / 2), 1e-12) << x;
    EXPECT_NEAR(chi_square_survival(x, 4), std::exp(-x / 2) * (1 + x / 2), 1e-12) << x;
  }
  EXPECT_NEAR(chi_square_survival(3.841458820694124, 1), 0.05, 1e-12);
  EXPECT_EQ(chi_square_survival(0, 3), 1.0);
  EXPECT_TRUE(std::isnan(chi_square_survival(std::nan(""), 3)));
}

TEST(KruskalWallis, HandWorkedValuesWithAndWithoutTies) {
  // Ranks 1..10, sums 25 and 30: H = 12 / (10 * 11) * (25^2 / 5 + 30^2 / 5) - 3 * 11.
  EXPECT_NEAR(kruskal_wallis_h({{1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}}), 12.0 / 110 * 305 - 33, 1e-12);
  // Ties: ranks 1.5 1.5 3.5 | 3.5 5.5 5.5, sums 6.5 and 14.5, three pairs of ties: C = 1 - 18 / 210.
  const double h = 12.0 / 42 * (6.5 * 6.5 / 3 + 14.5 * 14.5 / 3) - 21;
  EXPECT_NEAR(kruskal_wallis_h({{1, 1, 2}, {2, 3, 3}}), h / (1 - 18.0 / 210), 1e-12);
  // Group order does not matter; an empty group is no group.
  EXPECT_NEAR(kruskal_wallis_h({{2, 3, 3}, {}, {1, 1, 2}}), h / (1 - 18.0 / 210), 1e-12);
  EXPECT_TRUE(std::isnan(kruskal_wallis_h({{1, 2, 3}})));
  EXPECT_TRUE(std::isnan(kruskal_wallis_h({{4, 4}, {4, 4, 4}})));
}

TEST(MutualInformation, NoneForIndependentScoresAndLog2ForTwoSeparatedGroups) {
  Rng rng(9);
  std::vector<std::size_t> labels;
  std::vector<double> independent, separated;
  for (int i = 0; i < 400; ++i) {
    labels.push_back(static_cast<std::size_t>(i % 2));
    independent.push_back(rng.uniform01());
    separated.push_back(rng.uniform01() + 10.0 * static_cast<double>(i % 2));
  }
  EXPECT_LT(mutual_information_discrete_continuous(labels, independent), 0.03);
  // Each point's k nearest of its label are its nearest of all: psi(400) - psi(200), about log 2.
  EXPECT_NEAR(mutual_information_discrete_continuous(labels, separated), std::log(2.0), 0.01);
  // A label of one point is left out; a single label shares nothing.
  labels.push_back(7);
  separated.push_back(100);
  EXPECT_NEAR(mutual_information_discrete_continuous(labels, separated), std::log(2.0), 0.01);
  EXPECT_NEAR(mutual_information_discrete_continuous(std::vector<std::size_t>(400, 0), independent), 0.0, 1e-9);
  EXPECT_THROW(mutual_information_discrete_continuous({0, 1}, {1.0}), std::invalid_argument);
}

TEST(Sensitivity, TheHyperparameterThatMattersStandsOutAndTheTypicalSettingIsNearestTheMean) {
  Rng rng(4);
  std::vector<ScoredGridSetting> grid;
  for (int a = 1; a <= 3; ++a)
    for (const char* b : {"x", "y"})
      for (int repeat = 0; repeat < 8; ++repeat) {
        const double score = 0.2 * a + 0.05 * rng.uniform01();
        grid.push_back({"s" + std::to_string(grid.size()),
                        {{"a", Value(std::int64_t{a})}, {"b", Value(std::string(b))}},
                        score});
      }
  grid.push_back({"failed", {{"a", Value(std::int64_t{1})}, {"b", Value(std::string("x"))}},
                  std::numeric_limits<double>::quiet_NaN()});
  const SensitivityAnalysis s = analyse_sensitivity(grid);
  EXPECT_EQ(s.settings, 48u);
  ASSERT_EQ(s.hyperparameters.size(), 2u);
  const auto& a = s.hyperparameters[0];
  const auto& b = s.hyperparameters[1];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.values, 3u);
  EXPECT_EQ(b.values, 2u);
  EXPECT_LT(a.p_value, 1e-6);
  EXPECT_GT(b.p_value, 0.01);
  EXPECT_GT(a.mutual_information, 0.8);  // log 3 = 1.10 for three separated groups
  EXPECT_LT(b.mutual_information, 0.15);
  double mean = 0;
  for (std::size_t i = 0; i < 48; ++i) mean += grid[i].score / 48;
  EXPECT_NEAR(s.mean_score, mean, 1e-12);
  for (std::size_t i = 0; i < 48; ++i)
    EXPECT_LE(std::abs(s.closest_to_mean.score - mean), std::abs(grid[i].score - mean)) << grid[i].label;

  EXPECT_THROW(analyse_sensitivity({grid[0]}), std::invalid_argument);
  std::vector<ScoredGridSetting> mixed{grid[0], grid[1]};
  mixed[1].settings[1].first = "c";
  EXPECT_THROW(analyse_sensitivity(mixed), std::invalid_argument);
}

}  // namespace
}  // namespace ktune::methodology
