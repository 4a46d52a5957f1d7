#pragma once
// Runs recorded by another tuner, to be scored beside ours (methodology.md §1.7). Two sources:
// - trace files, the compact format of the methodology's golden data: {"spaces": {space name: {"strategies": {label:
//   [run, ...]}}}}, each run the list of its evaluations as [cumulative_time_s, value or null, best_so_far or null]
//   (best_so_far is derived and not read back); plain or gzip;
// - a T4 results file of one run, as Kernel Tuner writes it (results in evaluation order), which is matched to the
//   brute-forced space it was run on.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/io/results_file.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/strategy_curve.hpp"

namespace ktune::methodology {

// Runs by strategy label, then space name. Throws InputError naming the file and the JSON path of malformed content
// (a time that is not a finite, non-negative number or that decreases along a run, a value that is not a number or
// null, ...), or if the file has no top-level "spaces". Non-finite values read as NaN (failed evaluations).
ExternalRuns read_trace_file(const std::string& path);
ExternalRuns parse_trace_text(const std::string& text, const std::string& source_name);

// One run from a results file in evaluation order. Results that violate constraints (Status::invalid, T4
// "constraints") are skipped, as the methodology does; every other result costs compilation + the sum of the
// runtimes + framework + strategy + verification time (parts that are negative or NaN skipped) on the run's clock.
// The value is record.objective(objective), NaN when it has none (failures).
Run run_from_t4(const io::ResultsFile& run, const std::string& objective);

// The first space with the same parameter names (in any order) that holds every configuration of the run, with the
// same objective value wherever the run has one: spaces of one kernel on several GPUs share their configurations,
// and only the values tell them apart (a simulated run replays the brute-forced values exactly). `objective` ""
// means the run file's first objective, else "time". Results that violate constraints are not looked up. No
// configuration to look up, or no such space: std::nullopt.
std::optional<std::size_t> matching_space(const io::ResultsFile& run, const std::vector<ComparisonSpace>& spaces,
                                          const std::string& objective = "");

// `label_and_path` holds what the user wrote as `--runs LABEL=FILE` (repeatable; files with the same label add up).
// A trace file (top-level "spaces") gives the runs of strategy LABEL on each of its spaces that is among `spaces`
// (others are ignored); InputError if the file has no strategy LABEL (the message lists those it has) or none of
// its spaces with LABEL is among `spaces`. Any other file is read as the results of one run (io::read_results_file)
// and assigned to its matching_space(); InputError naming the file if it has no usable result or no space matches.
ExternalRuns load_external_runs(const std::vector<std::pair<std::string, std::string>>& label_and_path,
                                const std::vector<ComparisonSpace>& spaces, const std::string& objective);

}  // namespace ktune::methodology
