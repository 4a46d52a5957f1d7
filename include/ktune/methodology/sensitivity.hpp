#pragma once
// How much each hyperparameter matters, from the scores of a grid of settings (the tuning-the-tuner paper's
// sensitivity analysis): per hyperparameter, the Kruskal-Wallis test of "the scores of its values come from one
// distribution" and the mutual information between its value and the score; and the setting whose score is closest
// to the mean score (the paper's typical setting).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "ktune/value.hpp"

namespace ktune::methodology {

struct ScoredGridSetting {
  std::string label;
  std::vector<std::pair<std::string, Value>> settings;  // the grid's hyperparameters, the same names in every setting
  double score = 0;
};

struct HyperparameterSensitivity {
  std::string name;
  std::size_t values = 0;  // distinct values among the scored settings
  // Tie-corrected H statistic and its p-value (chi-square, values - 1 degrees of freedom), as scipy.stats.kruskal;
  // NaN when fewer than two values or every score is equal.
  double kruskal_wallis_h = 0, p_value = 0;
  // Nats, between the (discrete) value and the (continuous) score, by Ross's nearest-neighbour estimator with 3
  // neighbours, as sklearn's mutual_info_regression(discrete_features=True) without its jitter; 0 when nothing is
  // shared.
  double mutual_information = 0;
};

struct SensitivityAnalysis {
  std::size_t settings = 0;  // the settings analysed (finite scores)
  double mean_score = 0;
  ScoredGridSetting closest_to_mean;  // the first of the settings whose score is nearest to the mean
  std::vector<HyperparameterSensitivity> hyperparameters;  // in the order of the settings' names
};

// Settings whose score is not finite are left out. Throws std::invalid_argument when fewer than two remain or the
// settings do not name the same hyperparameters in the same order.
SensitivityAnalysis analyse_sensitivity(const std::vector<ScoredGridSetting>& scored);

// The building blocks, exposed for their tests.
double kruskal_wallis_h(const std::vector<std::vector<double>>& groups);  // tie-corrected; NaN if undefined
double chi_square_survival(double x, double degrees_of_freedom);           // P(X > x)
double mutual_information_discrete_continuous(const std::vector<std::size_t>& labels,
                                              const std::vector<double>& values, std::size_t neighbours = 3);

}  // namespace ktune::methodology
