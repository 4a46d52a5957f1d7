#pragma once
// Kernel Tuner's results file (kernel_tuner.integration, version "1.0"): the few best configurations of one kernel
// per device and problem size, from which a header with device targets is made. The file:
//
//   {"version_number": "1.0", "kernel_name": ..., "kernel_string": ... (optional), "objective": "time",
//    "objective_higher_is_better": false, "tunable_parameters": [names],
//    "data": [{"device_name": "NVIDIA_A100_PCIE_40GB", "problem_size": "4096x4096",
//              "tunable_parameters": {name: value, ...}, "<objective>": value}, ...]}
//
// written as Python's json.dumps(indent="") writes it, so Kernel Tuner 1.4 reads our files and we read its files.
// docs/integration.md says where we differ from Kernel Tuner (a header's target order, a zero best value, ...).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune::io {

struct KernelTunerResultsEntry {
  std::string device_name;   // normalised (kernel_tuner_device_name)
  std::string problem_size;  // "AxB"
  double value = 0;          // of the file's objective
  // The whole entry as read or written, keys in file order (device_name, problem_size, tunable_parameters, the
  // objective, and whatever else a writer put there, which is kept).
  nlohmann::ordered_json json;
  const nlohmann::ordered_json& parameters() const { return json.at("tunable_parameters"); }
};

struct KernelTunerResultsFile {
  std::string kernel_name;
  std::optional<std::string> kernel_string;
  std::string objective = "time";
  bool higher_is_better = false;
  std::vector<std::string> parameters;  // "tunable_parameters"
  std::vector<KernelTunerResultsEntry> entries;
};

// Kernel Tuner's objective defaults: "time" when none is given; the direction of a known objective (time, energy,
// cost, loss: lower; fitness, GFLOP/s, TFLOP/s, GB/s, TB/s, GFLOPS/W, TFLOPS/W, GFLOP/J, TFLOP/J: higher).
// std::invalid_argument "Please specify objective_higher_is_better for objective X" otherwise.
struct KernelTunerObjective {
  std::string name;
  bool higher_is_better = false;
};
KernelTunerObjective kernel_tuner_objective(const std::optional<std::string>& objective,
                                            std::optional<bool> higher_is_better);

// A device name as the file spells it: surrounding white space removed, every run of characters other than ASCII
// letters and digits replaced by one '_' ("NVIDIA A100-PCIE-40GB" -> "NVIDIA_A100_PCIE_40GB").
std::string kernel_tuner_device_name(std::string_view device_name);
// A problem size as the file spells it: a number, a list of numbers ("x"-joined) or a string (as it is).
// std::invalid_argument for anything else.
std::string kernel_tuner_problem_size(const nlohmann::json& problem_size);
// Kernel Tuner's guess whether a kernel string names a file rather than holding code.
bool looks_like_a_filename(std::string_view kernel_string);

// Whether parsed JSON is a results file (it has "version_number"), as opposed to a cache or a T4 file.
bool is_kernel_tuner_results(const nlohmann::json& document);
// Checks a parsed file by Kernel Tuner 1.4's rules (version "1.0"; the required keys and their types; every entry
// has device_name, problem_size, tunable_parameters with every parameter, and a numeric objective). Throws
// InputError naming `where` and the entry (counted from 1).
KernelTunerResultsFile parse_kernel_tuner_results(const nlohmann::ordered_json& document, const std::string& where);
// The same from the file's text: invalid JSON (with its byte, line and column), nesting deeper than kMaxJsonDepth,
// a NUL byte or a number beyond a double's range is an InputError naming `where`, like every JSON reader's.
KernelTunerResultsFile parse_kernel_tuner_results_text(const std::string& text, const std::string& where);
KernelTunerResultsFile read_kernel_tuner_results_file(const std::string& path);

// The file's text, byte for byte what Kernel Tuner writes for the same content.
std::string kernel_tuner_results_text(const KernelTunerResultsFile& file);
// Written atomically (output_file.hpp).
void write_kernel_tuner_results_file(const std::string& path, const KernelTunerResultsFile& file);

// One tuning result offered to store_results: the values of (at least) the tunable parameters, and the objective.
struct KernelTunerResult {
  nlohmann::ordered_json parameters;  // an object
  nlohmann::ordered_json value;       // a number
};

// The results (Kernel Tuner's result dicts, a JSON list of objects) that take part in store_results: those whose
// `objective` is a finite number (a failed configuration's error value has none). std::invalid_argument naming the
// result (counted from 1) when one of them lacks a tunable parameter.
std::vector<KernelTunerResult> kernel_tuner_results_of(const nlohmann::ordered_json& results,
                                                       const std::string& objective,
                                                       const std::vector<std::string>& parameters);

// store_results' arguments (kernel_tuner.integration.store_results).
struct StoreResultsRequest {
  std::string kernel_name;
  // Kept in a new file; when it looks like a file name and names a readable file, that file's text is kept.
  std::optional<std::string> kernel_string;
  std::vector<std::string> parameters;     // tune_params' names, in order
  std::string problem_size;                // "AxB" (kernel_tuner_problem_size)
  std::string device_name;                 // as the device reports it; normalised here
  std::vector<KernelTunerResult> results;  // those with the objective (the caller leaves out the others)
  double top = 3;                          // percent: results within top % of the best are stored
  std::optional<std::string> objective;
  std::optional<bool> higher_is_better;
};

// The results store_results keeps: those within `top` percent of the best (the best itself always: Kernel Tuner
// would keep nothing when the best is 0), in the order given. std::invalid_argument when there is none.
std::vector<const KernelTunerResult*> top_results(const std::vector<KernelTunerResult>& results, double top,
                                                  bool higher_is_better);

// store_results on a file in memory: `existing` (null for a new file) must be of the same kernel, the same
// tunable parameters and the same objective (std::invalid_argument "Mismatch between ..." as Kernel Tuner raises);
// its entries for this device and problem size are replaced by the top results.
KernelTunerResultsFile store_results(const KernelTunerResultsFile* existing, const StoreResultsRequest& request);
// The same on a file (created when absent), written atomically.
void store_results_file(const std::string& path, const StoreResultsRequest& request);

// TuneResults.get_best_config: the tunable parameters (in the file's parameter order) of
// - the best entry of this device at this problem size, when the file has such entries;
// - else the configuration that occurs most often among this device's entries (ties: the best sum of the objective);
// - else (an unknown device, or "default") the same over all entries.
// `device_name` is normalised as the file's names are. std::invalid_argument for a file without entries.
nlohmann::ordered_json best_configuration(const KernelTunerResultsFile& file, std::string_view device_name = "default",
                                          const std::optional<std::string>& problem_size = std::nullopt);

// create_device_targets' header: per device (sorted by name) `#ifdef TARGET_<device>` / `#elif TARGET_<device>` with
// its best configuration as #defines, the best configuration over all devices as the `#else` default (or
// `default_configuration` when given: parameter name -> C literal), all inside `#ifndef kernel_tuner`. Values are
// C literals (LaunchPlanner::c_literal). std::invalid_argument for a file without entries.
std::string device_targets_header(const KernelTunerResultsFile& file,
                                  const std::vector<std::pair<std::string, std::string>>& default_configuration = {});

}  // namespace ktune::io
