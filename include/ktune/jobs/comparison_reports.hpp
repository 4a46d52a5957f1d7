#pragma once
// Comparison results for programs (the stable `ktune compare --json` objects; with curves: the --output report) and
// for people (the tables `ktune compare` prints).
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/multiobjective_comparison.hpp"

namespace ktune {

nlohmann::json statistics_json(const std::vector<methodology::SpaceResult>& spaces);
nlohmann::json comparison_json(const methodology::ComparisonReport& report, bool with_curves);
// The settings a report was made with (part of the --output report).
nlohmann::json comparison_settings_json(const methodology::ComparisonOptions& options);
nlohmann::json multiobjective_comparison_json(const methodology::MoComparisonReport& report, bool with_curves);

void write_statistics_table(std::ostream& out, const std::vector<methodology::SpaceResult>& spaces);
void write_score_table(std::ostream& out, const methodology::ComparisonReport& report,
                       const methodology::ComparisonOptions& options);
void write_multiobjective_table(std::ostream& out, const methodology::MoComparisonReport& report,
                                const methodology::ComparisonOptions& options, std::size_t budget);

}  // namespace ktune
