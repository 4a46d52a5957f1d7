#pragma once
// The full record of one evaluation of one configuration: what a results file (T4, Kernel Tuner cache, CSV)
// stores per line. Times are in milliseconds, as in Kernel Tuner caches and T4 files.
//
// Hot paths (the simulated evaluator, the tuning loop) do not build these; they are materialised for output and
// read from files.
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/status.hpp"
#include "ktune/value.hpp"

namespace ktune {

// One observed or derived quantity: "time" (mean runtime, ms), "GFLOP/s", "energy", "core_freq", ...
struct Measurement {
  std::string name;
  Value value;       // usually a number; may be a string (an error name in legacy files) or a list
  std::string unit;  // "" when unknown
};

struct EvaluationRecord {
  std::vector<Value> config;  // one value per problem parameter, in the problem's parameter order
  std::vector<Measurement> measurements;
  std::vector<double> runtimes_ms;  // every benchmark repetition
  double compile_ms = 0;
  double benchmark_ms = 0;     // whole benchmarking step (warm-up, observers, the repetitions)
  double verification_ms = 0;
  double framework_ms = 0;
  double strategy_ms = 0;      // the search strategy's own time before this evaluation
  Status status = Status::ok;
  std::string message;    // why it failed (compiler output, launch error, ...); "" when ok
  std::string timestamp;  // UTC, "2023-06-26 13:07:07.553168+00:00"
  double clock_ms = std::nan("");  // position on the tuning clock once this evaluation was charged; NaN if unknown

  // The measurement called `name`, if any.
  const Measurement* find(std::string_view name) const;
  // The value of objective `name` as a number: the measurement if it is a finite number (bool/int/float), the mean
  // of runtimes_ms for "time" when there is no such measurement, the step times for "compile_time",
  // "benchmark_time", "verification_time" and "framework_time"; std::nullopt otherwise (missing, a string,
  // NaN/inf, Kernel Tuner's error value 1e20) and always for a failed record.
  std::optional<double> objective(std::string_view name) const;
  // What a first evaluation of this configuration costs on the tuning clock (ms), following the methodology's
  // "all" time keys without the strategy: compilation + sum of runtimes + framework + verification.
  double charged_ms() const;
};

}  // namespace ktune
