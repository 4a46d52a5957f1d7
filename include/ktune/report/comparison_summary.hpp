#pragma once
// What a report page shows of a strategy comparison (`ktune compare --output FILE`, curves included): each
// strategy's aggregate score and performance curve, and per space the curves and scores side by side.
#include <nlohmann/json.hpp>
#include <string>

namespace ktune::report {

// Whether `document` is a single-objective comparison report with its curves (has "spaces" and "aggregate").
bool is_comparison_report(const nlohmann::json& document);

// The summary the page draws. Throws std::invalid_argument naming `source` and what is missing when the report has
// no curves (written with --json rather than --output) or is not a comparison.
nlohmann::json summarize_comparison(const nlohmann::json& report, const std::string& name, const std::string& source);

}  // namespace ktune::report
