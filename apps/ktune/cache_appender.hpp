#pragma once
// A tuning listener that appends every new result to a Kernel Tuner cache file as it arrives (tune, hypertune).
#include <exception>
#include <iostream>
#include <string>
#include <utility>

#include "ktune/io/results_file.hpp"
#include "ktune/tuning/cost_function.hpp"

namespace ktune::cli {

class CacheAppender final : public TuningListener {
 public:
  // `verb` names the command in the warning ("ktune tune").
  CacheAppender(io::KernelTunerCacheWriter& writer, std::string verb) : writer_(writer), verb_(std::move(verb)) {}
  void on_evaluation(const CostFunction& cost, std::size_t position) override {
    if (failed_) return;
    const TraceEntry& e = cost.trace()[position];
    EvaluationRecord r = cost.evaluator().record(e.index);
    r.clock_ms = e.clock_ms;
    r.strategy_ms = e.strategy_ms;
    try {
      writer_.append(r);
    } catch (const std::exception& error) {
      // Losing the cache must not lose the run: say so once and tune on.
      failed_ = true;
      std::cerr << verb_ << ": warning: stopped writing " << writer_.path() << ": " << error.what() << "\n";
    }
  }

 private:
  io::KernelTunerCacheWriter& writer_;
  std::string verb_;
  bool failed_ = false;
};

}  // namespace ktune::cli
