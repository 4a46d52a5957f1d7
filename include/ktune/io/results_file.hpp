#pragma once
// Reading and writing tuning results: Kernel Tuner cache files and T4 results files (plain or gzip), and CSV.
//
// Kernel Tuner cache (kernel_tuner_reference.md §4.6): header (device_name, kernel_name, problem_size,
// tune_params_keys, tune_params, objective) and "cache": {"v1,v2,...": entry}. Read leniently, as Kernel Tuner does:
// - files left unterminated by an interrupted run (trailing comma, no closing braces, cut in the middle of an entry:
//   the incomplete last entry is dropped, `truncated` is set);
// - Python's NaN, Infinity and -Infinity as numbers;
// - errors as "__error__": "InvalidConfig" | "CompilationFailedConfig" | "RuntimeFailedConfig", or (legacy) as that
//   string in any field, e.g. "time": "RuntimeFailedConfig";
// - keys of mixed-type values ("128,alg_2,15,True,2.45"); values are taken from the entry's parameter fields, from
//   the key only when a field is missing.
// A file cut inside its header (before "cache") is an error: its parameters are unknown.
// Entry fields: the parameters (matched to the declared value with same_value, else python_equal, so 1.0 finds a
// declared 1; any other value is an error naming the entry), "times" -> runtimes_ms, compile_time, benchmark_time,
// verification_time, framework_time, strategy_time (ms; null -> NaN), timestamp, "__error__" -> status (an unknown
// name counts as a runtime failure) with message = the error name; every other field is a Measurement (unit "").
// A successful entry without "times" gets runtimes_ms = {benchmark_time} (as the benchmark_hub T4 conversion
// does), so both formats of one space give identical records.
//
// T4 results (schema 1.0.0): {"metadata": {"timeunit"}, "results": [{timestamp, configuration, times{compilation,
// framework, search_algorithm, validation, runtimes[], benchmark}, invalidity, correctness, measurements[{name, value,
// unit}], objectives}], "schema_version"}. Times are converted to ms from metadata.timeunit (seconds|s,
// milliseconds|miliseconds|ms, microseconds|us, nanoseconds|ns; default seconds, as the methodology reads T4);
// measurements are taken as they are. A failure's message is its Kernel Tuner error name (T4 has no message field).
// A file cut inside "results" keeps its complete results (`truncated`), unless the metadata (time unit) was not
// read before the cut. No results: no parameters.
//
// Every error is an InputError naming the file (and the entry, cache["key"], or results[i] where it applies);
// syntax errors give the byte offset, line and column. The writers report I/O failures as InputErrors too, and
// records that do not fit the problem as std::invalid_argument.
#include <cstddef>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/problem.hpp"
#include "ktune/tuning/evaluation_record.hpp"

namespace ktune::io {

enum class ResultsFormat { KernelTunerCache, T4 };
const char* to_string(ResultsFormat format);  // "Kernel Tuner cache", "T4"

struct ResultsFile {
  ResultsFormat format = ResultsFormat::KernelTunerCache;
  // The parameters. Kernel Tuner cache: tune_params in tune_params_keys order. T4: the keys of the first
  // configuration in file order; each parameter's values are the distinct values seen, ascending when all are
  // numbers, else in order of first appearance. No constraints (the valid set is the set of records).
  Problem problem;
  std::string device_name, kernel_name;  // "" when absent
  nlohmann::json problem_size;           // as stored; null when absent
  std::vector<std::string> objectives;   // cache "objective" (string or list) or T4 "objectives"; may be empty
  std::vector<EvaluationRecord> records; // in file order; config in problem parameter order; clock_ms = NaN
  bool truncated = false;                // the file was cut short and repaired while reading
};

// Detects the format from the content (top-level "cache" or "tune_params" -> Kernel Tuner cache, "results" -> T4).
ResultsFile read_results_file(const std::string& path);
ResultsFile parse_kernel_tuner_cache(const std::string& text, const std::string& source_name);
ResultsFile parse_t4_results(const std::string& text, const std::string& source_name);

// Writes a T4 results file: {"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds", ...extra},
// "results": [...]}, one result per line. `objectives` names the objective measurements (T4 "objectives" of every
// result). Every measurement is written; "time*" measurements without a unit get unit "ms". Extra metadata (tool,
// version, strategy, seed, ...; a JSON object) is merged into "metadata". Times keep every digit (parse_t4_results
// gives the same records back); non-finite numbers are written as Python does (NaN, Infinity).
void write_t4_results(std::ostream& out, const Problem& problem, std::span<const EvaluationRecord> records,
                      const std::vector<std::string>& objectives, const nlohmann::json& extra_metadata = {});

// One row per record: the parameters, status, each objective, every other numeric measurement seen in any record,
// compile/benchmark/verification/framework/strategy ms, clock_s, timestamp, message. RFC 4180 quoting and CRLF line
// ends; unknown values (no objective value, NaN times) are empty cells.
void write_results_csv(std::ostream& out, const Problem& problem, std::span<const EvaluationRecord> records,
                       const std::vector<std::string>& objectives);

// The header of a Kernel Tuner cache file.
struct CacheHeader {
  std::string device_name, kernel_name;
  nlohmann::json problem_size;  // null -> written as []
  Problem problem;              // tune_params_keys / tune_params
  std::vector<std::string> objectives;
};

// A Kernel Tuner compatible cache written as results arrive: each append() writes one entry and flushes, so an
// interrupted run leaves a file that Kernel Tuner and ktune both read (and resume). The layout is Kernel Tuner's:
// the header as json.dumps(header, indent="") without its closing "}\n}", each entry as "\n\"key\": {...}," with
// the parameters, the measurements, times, compile_time, verification_time, benchmark_time, strategy_time,
// framework_time, timestamp and, for failures, "__error__": "<Kernel Tuner error name>" (the message is not kept).
// Opening an existing file (closed or cut short; not gzip) resumes it: its header must match (same kernel name and
// the same parameter names in the same order, as Kernel Tuner demands; mismatch -> InputError), its complete entries
// are returned by existing() and kept byte for byte, and new entries are appended after them. Values may differ:
// the rewritten header declares this run's values followed by the file's others, so every entry stays readable.
// close() (or the destructor) terminates the JSON document as Kernel Tuner's close_cache does.
class KernelTunerCacheWriter {
 public:
  KernelTunerCacheWriter(std::string path, CacheHeader header);
  ~KernelTunerCacheWriter();
  KernelTunerCacheWriter(const KernelTunerCacheWriter&) = delete;
  KernelTunerCacheWriter& operator=(const KernelTunerCacheWriter&) = delete;

  const std::vector<EvaluationRecord>& existing() const { return existing_; }
  // Throws std::invalid_argument if the config does not fit the header or a measurement is named like a parameter
  // or a field the entry writes itself; std::logic_error after close().
  void append(const EvaluationRecord& record);
  void close();  // idempotent
  const std::string& path() const { return path_; }

 private:
  struct File;
  std::string path_;
  CacheHeader header_;
  std::vector<EvaluationRecord> existing_;
  std::unique_ptr<File> file_;
};

// The Kernel Tuner cache key of a configuration: str() of each value joined by "," ("128,alg_2,True,2.45").
std::string kernel_tuner_key(std::span<const Value> config);

}  // namespace ktune::io
