#pragma once
// Tuning results as CSV, for spreadsheets and pandas (`ktune tune --csv`).
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "ktune/evaluation_record.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/problem.hpp"

namespace ktune::io {

// One row per record: the parameters, status, each objective, every other numeric measurement seen in any record,
// compile/benchmark/verification/framework/strategy ms, clock_s, timestamp, message. RFC 4180 quoting and CRLF line
// ends; unknown values (no objective value, NaN times) are empty cells.
void write_results_csv(std::ostream& out, const Problem& problem, std::span<const EvaluationRecord> records,
                       const std::vector<std::string>& objectives);

// Reads what write_results_csv writes (`ktune tune --csv`, `ktune store export --format csv`), for `ktune store
// import`: the columns before "status" are the parameters (their values: the distinct ones seen, ascending when all
// are numbers, else in order of first appearance; a cell is an integer, a float, True/False, else a string), the
// columns between "status" and "compile_ms" the measurements (the first is the objective, as the writer puts the
// objectives first; an empty cell: none), then the step times (ms), clock_s, timestamp and message. A CSV has no
// runtimes, units, kernel or device: they stay empty. Writing what was read gives the same text again. LF or CRLF
// line ends; RFC 4180 quoting. Throws InputError naming the file and the line (and column) of bad input.
ResultsFile parse_results_csv(const std::string& text, const std::string& source_name);

}  // namespace ktune::io
