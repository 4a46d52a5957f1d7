#pragma once
// The full record of one trace entry, as the outputs keep it: the evaluator's record of the configuration with the
// entry's place on the tuning clock and the strategy's own time before it. The cache and the store record it as
// results arrive, the tune job for its outputs.
#include "ktune/evaluation_record.hpp"
#include "ktune/tuning/evaluator.hpp"
#include "ktune/tuning/trace.hpp"

namespace ktune {

inline EvaluationRecord recorded_evaluation(const Evaluator& evaluator, const TraceEntry& entry) {
  EvaluationRecord r = evaluator.record(entry.index);
  r.clock_ms = entry.clock_ms;
  r.strategy_ms = entry.strategy_ms;
  return r;
}

}  // namespace ktune
