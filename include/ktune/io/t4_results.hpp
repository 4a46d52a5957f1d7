#pragma once
// T4 results (schema 1.0.0): {"metadata": {"timeunit"}, "results": [{timestamp, configuration, times{compilation,
// framework, search_algorithm, validation, runtimes[], benchmark}, invalidity, correctness, measurements[{name, value,
// unit}], objectives}], "schema_version"}. Times are converted to ms from metadata.timeunit (seconds|s,
// milliseconds|miliseconds|ms, microseconds|us, nanoseconds|ns; default seconds, as the methodology reads T4);
// measurements are taken as they are. A failure's message is its Kernel Tuner error name (T4 has no message field).
// A file cut inside "results" keeps its complete results (`truncated`), unless the metadata (time unit) was not
// read before the cut. No results: no parameters.
//
// Every error is an InputError naming the file (and results[i] where it applies); syntax errors give the byte offset,
// line and column. The writer reports records that do not fit the problem as std::invalid_argument.
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/evaluation_record.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/problem.hpp"

namespace ktune::io {

ResultsFile parse_t4_results(const std::string& text, const std::string& source_name);

// Writes a T4 results file: {"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds", ...extra},
// "results": [...]}, one result per line. `objectives` names the objective measurements (T4 "objectives" of every
// result). Every measurement is written; "time*" measurements without a unit get unit "ms". Extra metadata (tool,
// version, strategy, seed, ...; a JSON object) is merged into "metadata". Times keep every digit (parse_t4_results
// gives the same records back); non-finite numbers are written as Python does (NaN, Infinity).
void write_t4_results(std::ostream& out, const Problem& problem, std::span<const EvaluationRecord> records,
                      const std::vector<std::string>& objectives, const nlohmann::json& extra_metadata = {});

}  // namespace ktune::io
