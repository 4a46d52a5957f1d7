#pragma once
// `ktune export`: the tuned configurations of any results, for an application: a C header with device targets (Kernel
// Tuner's create_device_targets) and/or a wisdom file (runtime/wisdom.hpp). Results are Kernel Tuner caches, T4
// files, ktune CSV, results stores and Kernel Tuner results files (version 1.0), of several kernels, devices and
// problem sizes together. docs/integration.md describes the outputs and the rules.
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/jobs/job_error.hpp"

namespace ktune {

struct ExportRequest {
  std::vector<std::string> results_paths;
  std::string header_path;  // "" : no header
  std::string wisdom_path;  // "" : no wisdom; merged into the file when it exists
  // The kernel of results that carry no kernel name (T4, CSV); of results that do, the one to export (the others
  // are left out). "" : the results' own.
  std::string kernel_name;
  std::string device_name;   // for results that carry no device name (T4, CSV)
  std::string problem_size;  // "AxB", for results that carry no problem size
  // "NAME", "NAME:min" or "NAME:max"; "" : the results' first objective, else "time". The direction of a name that
  // does not say it is Kernel Tuner's default for known objectives (time: lower, GFLOP/s: higher, ...).
  std::string objective;
  double top_percent = 3;  // the header's results file keeps those within this percent of the best (Kernel Tuner's)
  // NAME=C-LITERAL for every parameter: the kernel's default configuration (wisdom: its default; header: the #else
  // branch instead of the best configuration over all devices).
  std::vector<std::string> defaults;
};

// One (kernel, device, problem size): its best configuration.
struct ExportedEntry {
  std::string kernel, device, problem_size;  // problem size "AxB"
  std::string objective;
  bool higher_is_better = false;
  double value = 0;                     // the best
  std::vector<std::string> parameters;  // the kernel's, in order
  std::vector<std::string> values;      // C literals, in parameter order
  std::size_t records = 0;              // successful records with the objective, over all its sources
  std::vector<std::string> sources;     // the files (a store's space as FILE#ID) it came from
};

struct ExportResult {
  std::vector<std::string> kernels, devices, problem_sizes;  // sorted, distinct
  std::vector<ExportedEntry> entries;                        // by kernel, device, problem size
  std::string header_path, wisdom_path;
  std::size_t header_targets = 0;   // devices in the header
  std::size_t wisdom_entries = 0;   // of the written wisdom file, all kernels (merged ones included)
  std::size_t wisdom_replaced = 0;  // entries of the earlier wisdom file replaced by newer ones
};

using ExportMessages = std::function<void(JobMessageLevel, const std::string&)>;

// Reads every results file, picks each (kernel, device, problem size)'s best configuration and writes the outputs
// (atomically). JobError: a bad request (no output, a bad --default, a header over several kernels) or bad input (an
// unreadable file, naming it and the entry; results without a kernel name, device or problem size and no fallback).
ExportResult run_export(const ExportRequest& request, const ExportMessages& on_message = {});

nlohmann::json export_report_json(const ExportResult& summary);
void write_export_summary(std::ostream& out, const ExportResult& summary);

}  // namespace ktune
