#pragma once
// Tuning results as CSV, for spreadsheets and pandas (`ktune tune --csv`).
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "ktune/evaluation_record.hpp"
#include "ktune/problem.hpp"

namespace ktune::io {

// One row per record: the parameters, status, each objective, every other numeric measurement seen in any record,
// compile/benchmark/verification/framework/strategy ms, clock_s, timestamp, message. RFC 4180 quoting and CRLF line
// ends; unknown values (no objective value, NaN times) are empty cells.
void write_results_csv(std::ostream& out, const Problem& problem, std::span<const EvaluationRecord> records,
                       const std::vector<std::string>& objectives);

}  // namespace ktune::io
