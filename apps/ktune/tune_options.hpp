#pragma once
// The flags of `ktune tune`, bound to a TuneRequest and the few choices that only the command line makes.
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "ktune/jobs/tune_job.hpp"

namespace ktune::cli {

struct TuneOptions {
  TuneRequest request;  // the flags that map one to one
  std::optional<std::uint64_t> max_fevals;
  std::optional<double> time_limit, fraction, target;
  bool maximize = false, minimize = false;
  bool no_verify = false, in_process = false, no_implicit_block_constraint = false, budget_new_only = false;
  std::string devices;  // --devices: "0,1,3" or "all"
  double rank_timeout = 60;
  bool json = false, quiet = false, trace = false, verbose = false;
};

// Declares every flag of `tune` on `sub`, bound to `o`.
void add_tune_flags(CLI::App* sub, TuneOptions& o);

}  // namespace ktune::cli
