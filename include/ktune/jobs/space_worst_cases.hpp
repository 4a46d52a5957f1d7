#pragma once
// Where each strategy does worst in a comparison (`ktune compare --by-space`): a good mean can hide a space on which a
// strategy is worse than random search, and users tune one space at a time. Per strategy: its lowest space score, and
// its largest shortfall against random_sample on the same space (when random_sample is among the strategies).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/methodology/comparison.hpp"

namespace ktune {

struct SpaceWorstCase {
  std::string strategy;
  double mean = 0;                      // mean of its space scores (the aggregate score is the mean of curves)
  std::string worst_space;              // its lowest-scoring space
  double worst_score = 0;
  std::optional<std::string> shortfall_space;  // the space where it falls furthest below random_sample
  std::optional<double> shortfall;             // its score minus random_sample's there (negative: below random)
};

// In the order of report.strategies; spaces with a NaN score (an interrupted comparison) are left out.
std::vector<SpaceWorstCase> space_worst_cases(const methodology::ComparisonReport& report);
nlohmann::json space_worst_cases_json(const std::vector<SpaceWorstCase>& cases);
void write_space_worst_cases(std::ostream& out, const std::vector<SpaceWorstCase>& cases);

}  // namespace ktune
