#pragma once
// Kernel Tuner cache files (.json, or .json.gz when read): the tuning problem they describe, their entries as
// records, and a writer that appends entries as results arrive and resumes a file left by an earlier run.
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
// does), so both formats of one space give identical records; without "time" either, it is counted in
// ResultsFile::time_stand_ins and "time" is not taken from it. A successful entry whose "time" (or, without one,
// "times") is no run time (negative, NaN, infinite, null, a string that is no error name) is read as runtime_failed
// with a message naming cache["key"].
//
// The problem behind a cache file: the parameters come from "tune_params"
// in the order of "tune_params_keys" (the key order of "tune_params" if that list is absent), constraints from
// "restrictions" (a string or a list of strings) if present. Kernel Tuner does not store its restrictions in cache
// files, so the valid configurations of such a problem are known only from the cached entries.
// The problem is named after "kernel_name", else the file stem. The "cache" entries are skipped while parsing.
//
// Every error is an InputError naming the file (and the JSON path, or the entry as cache["key"]); syntax errors give
// the byte offset, line and column. The writer reports I/O failures as InputErrors too, and records that do not fit
// the problem as std::invalid_argument.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/evaluation_record.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/problem.hpp"

namespace ktune::io {

// ---- the problem ----------------------------------------------------------------------------------------------
// A JSON document parsed without its top-level "cache" member (the bulk of a cache file, not built in memory),
// with the key order of "tune_params" as written in the file (nlohmann::json objects sort their keys).
struct ScannedDocument {
  nlohmann::json document;
  std::vector<std::string> tune_params_order;
  bool had_cache = false;  // a top-level "cache" key was present (and skipped)
};
// Throws InputError naming `source_name` (with the byte position) on invalid JSON.
ScannedDocument parse_skipping_cache(const std::string& text, const std::string& source_name);

Problem problem_from_cache_file(const std::string& path);
// `document` as parsed (its "cache" may be present or not); `tune_params_order` the key order of "tune_params"
// in the file, used only when "tune_params_keys" is absent.
Problem problem_from_cache_json(const nlohmann::json& document, const std::string& source_name,
                                const std::vector<std::string>& tune_params_order = {});

// ---- the entries ----------------------------------------------------------------------------------------------
ResultsFile parse_kernel_tuner_cache(const std::string& text, const std::string& source_name);

// The Kernel Tuner cache key of a configuration: str() of each value joined by "," ("128,alg_2,True,2.45").
std::string kernel_tuner_key(std::span<const Value> config);

// ---- writing --------------------------------------------------------------------------------------------------
// The header of a Kernel Tuner cache file.
struct CacheHeader {
  std::string device_name, kernel_name;
  nlohmann::json problem_size;  // null -> written as []; Kernel Tuner's form: a number or a list of numbers
  Problem problem;              // tune_params_keys / tune_params
  std::vector<std::string> objectives;
  // What else makes results comparable (ktune's own header field "ktune_provenance", which Kernel Tuner ignores): an
  // object of strings and lists such as the backend, the kernel source's hash, the compiler and its options. Null:
  // none.
  nlohmann::json provenance;
};

// Whether two problem sizes are the same as Kernel Tuner judges them (1000, [1000], "1000" and [1000, 1, 1] are
// one size). Null or absent on either side: unknown, so not different.
bool same_problem_size(const nlohmann::json& a, const nlohmann::json& b);

struct CacheWriterOptions {
  // Resume a file recorded for another device, problem size or kernel build (its results are taken as this run's).
  // The kernel name and the parameters must match all the same (else the entries cannot be read).
  bool reuse_other_origin = false;
};

// A Kernel Tuner compatible cache written as results arrive: each append() writes one entry and flushes, so an
// interrupted run leaves a file that Kernel Tuner and ktune both read (and resume). The layout is Kernel Tuner's:
// the header as json.dumps(header, indent="") without its closing "}\n}", each entry as "\n\"key\": {...}," with
// the parameters, the measurements, times, compile_time, verification_time, benchmark_time, strategy_time,
// framework_time, timestamp and, for failures, "__error__": "<Kernel Tuner error name>" (the message is not kept).
// Opening an existing file (closed or cut short at any byte after its header; not gzip) resumes it: its header must
// match (the same kernel name and parameter names in the same order, as Kernel Tuner demands; the same device and
// problem size, as Kernel Tuner demands too; the same provenance where both files record it, unless
// reuse_other_origin; a mismatch is an InputError naming the field and both values), its complete entries are
// returned by existing() and kept byte for byte, and new entries are appended after them. Values may differ: the
// rewritten header declares this run's values followed by the file's others, so every entry stays readable. The
// resumed file is written beside the old one and renamed over it (the old one stays whole until then).
// close() (or the destructor) terminates the JSON document as Kernel Tuner's close_cache does.
//
// Safety (docs/running.md): the file is locked (flock) for as long as the writer is open, so a second writer on the
// same file is refused at once; before each entry the writer checks that its file is still the one at the path
// (another program may have replaced or removed it) and stops with an InputError if not. An entry that cannot be
// written whole (a full disk, a file-size limit) is cut back off the file, so the file always ends after a complete
// entry; append() then throws and the writer takes no more entries, and close() still terminates the file when the
// disk lets it (else it stays open-ended, which every reader repairs). A path that is a symbolic link is written
// through (the link stays); a resumed file keeps its permission bits. Entries are synced to disk at most a second
// apart and at close().
class KernelTunerCacheWriter {
 public:
  KernelTunerCacheWriter(std::string path, CacheHeader header, CacheWriterOptions options = {});
  ~KernelTunerCacheWriter();
  KernelTunerCacheWriter(const KernelTunerCacheWriter&) = delete;
  KernelTunerCacheWriter& operator=(const KernelTunerCacheWriter&) = delete;

  const std::vector<EvaluationRecord>& existing() const { return existing_; }
  // Throws std::invalid_argument if the config does not fit the header or a measurement is named like a parameter
  // or a field the entry writes itself; std::logic_error after close().
  void append(const EvaluationRecord& record);
  void close();  // idempotent
  const std::string& path() const { return path_; }
  std::size_t appended() const { return appended_; }  // entries this writer added
  bool failed() const { return failed_; }              // an append failed: no more are taken

 private:
  struct File;
  std::string path_;
  CacheHeader header_;
  std::vector<EvaluationRecord> existing_;
  std::unique_ptr<File> file_;
  std::size_t appended_ = 0;
  bool failed_ = false;
};

}  // namespace ktune::io
