#pragma once
// A tuning listener that appends every new result to a Kernel Tuner cache file as it arrives (tune, hypertune).
#include <exception>
#include <iostream>
#include <string>
#include <utility>

#include <cmath>
#include <unordered_map>
#include <vector>

#include "ktune/io/results_file.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/tune.hpp"

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

// The results of an existing cache that belong to `space`, as results the tuning loop knows already (one value per
// objective, NaN where missing), and their full records by configuration index.
inline void resume_from(const io::KernelTunerCacheWriter& cache, const SearchSpace& space,
                        const std::vector<Objective>& objectives, std::vector<ResumedResult>& resumed,
                        std::unordered_map<std::size_t, EvaluationRecord>& records) {
  for (const auto& r : cache.existing()) {
    const auto config = space.config_of(r.config);
    const auto index = config ? space.index_of(*config) : std::nullopt;
    if (!index) continue;
    ResumedResult result{*index, r.status, {}};
    for (const auto& obj : objectives) result.values.push_back(r.objective(obj.name).value_or(std::nan("")));
    resumed.push_back(std::move(result));
    records[*index] = r;
  }
}

}  // namespace ktune::cli
