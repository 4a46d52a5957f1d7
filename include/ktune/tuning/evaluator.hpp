#pragma once
// The plug-in boundary between the tuning loop and what measures a configuration: a simulation that replays a
// brute-forced results file, or a live backend that compiles and runs kernels.
#include <cstddef>
#include <span>
#include <string>

#include "ktune/evaluation_record.hpp"
#include "ktune/tuning/objective.hpp"
#include "ktune/status.hpp"

namespace ktune {

class SearchSpace;

// What the tuning loop needs from one evaluation, without allocating.
struct EvaluationOutcome {
  Status status = Status::ok;
  // One value per objective of the evaluator, as measured (not negated). NaN where unavailable (failures).
  std::span<const double> objectives;
  // What this first evaluation costs on the tuning clock (ms): compilation + sum of runtimes + framework +
  // verification. For a simulation the recorded times; live, the measured ones.
  double charged_ms = 0;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // The objectives, in the order of EvaluationOutcome::objectives.
  virtual const std::vector<Objective>& objectives() const = 0;
  // True when the tuning clock is the sum of charged times (simulation); false when it is the wall clock (live).
  virtual bool simulated() const = 0;

  // Evaluates configuration `index` of the space the evaluator was made for. The returned span stays valid until
  // the next call. Never throws for a failing configuration: failures are outcomes. May throw Interrupted
  // (interruption.hpp) when a stop was requested while it ran: the configuration then has no result.
  virtual EvaluationOutcome evaluate(std::size_t index) = 0;
  // The configurations the caller will evaluate next, in order (a strategy's batch): a live evaluator compiles them
  // on spare cores while it measures (pipelining); a simulation ignores it. Only a hint: evaluate() decides nothing
  // differently, so results and their order do not depend on it. Replaces the previous hint.
  virtual void prepare(std::span<const std::size_t> upcoming) { (void)upcoming; }
  // Whether prepare() does anything (the cost function skips making the list otherwise: simulations are hot).
  virtual bool wants_prepare() const { return false; }
  // The full record of the evaluation of `index` (which has been evaluated), for result files. clock_ms and
  // strategy_ms are left for the caller to fill in.
  virtual EvaluationRecord record(std::size_t index) const = 0;
  // Device and kernel, for the metadata of result files.
  virtual std::string device_name() const { return ""; }
  virtual std::string kernel_name() const { return ""; }
};

}  // namespace ktune
