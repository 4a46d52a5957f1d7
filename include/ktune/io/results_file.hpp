#pragma once
// A tuning results file of either format, Kernel Tuner cache (kernel_tuner_cache.hpp) or T4 (t4_results.hpp), read
// into one form: the problem its parameters describe and one EvaluationRecord per entry. Both formats of one space
// give identical records.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/evaluation_record.hpp"
#include "ktune/problem.hpp"

namespace ktune::io {

enum class ResultsFormat { KernelTunerCache, T4, Csv };
const char* to_string(ResultsFormat format);  // "Kernel Tuner cache", "T4", "CSV"

struct ResultsFile {
  ResultsFormat format = ResultsFormat::KernelTunerCache;
  // The parameters. Kernel Tuner cache: tune_params in tune_params_keys order. T4: the keys of the first
  // configuration in file order; each parameter's values are the distinct values seen, ascending when all are
  // numbers, else in order of first appearance. No constraints (the valid set is the set of records).
  Problem problem;
  std::string device_name, kernel_name;  // "" when absent
  nlohmann::json problem_size;           // as stored; null when absent
  nlohmann::json provenance;             // cache "ktune_provenance" (kernel_tuner_cache.hpp CacheHeader); null: none
  std::vector<std::string> objectives;   // cache "objective" (string or list) or T4 "objectives"; may be empty
  std::vector<EvaluationRecord> records; // in file order; config in problem parameter order; clock_ms = NaN
  bool truncated = false;                // the file was cut short and repaired while reading
  bool missing_cache = false;            // a Kernel Tuner cache file without a "cache" key (so no entries)
  // Kernel Tuner cache: successful entries with neither "time" nor "times", whose runtimes_ms is their benchmark_time
  // (the tuning clock's charge, as benchmark_hub's T4 conversion has it). That is no kernel time: "time" as an
  // objective of such a file is refused (naming the first entry's key) rather than taken from it.
  std::size_t time_stand_ins = 0;
  std::string first_time_stand_in;
};

// Reads a results file, telling the format from the content (top-level "cache" or "tune_params" -> Kernel Tuner cache,
// "results" -> T4), or a CSV (results_csv.hpp) by its name (.csv, .csv.gz). Throws InputError naming the file (and
// the entry where it applies); syntax errors give the byte offset, line and column.
ResultsFile read_results_file(const std::string& path);

}  // namespace ktune::io
