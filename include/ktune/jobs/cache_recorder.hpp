#pragma once
// A Kernel Tuner cache file as the memory of a run: the results it already holds are resumed (the tuning loop knows
// them and does not measure them again), and every new result is appended as it arrives, so that an interrupted or
// killed run loses nothing. Used by the tune and hypertune jobs.
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {

class CacheRecorder final : public TuningListener {
 public:
  // `warn` hears, once, that appending failed (the run goes on without the cache).
  CacheRecorder(io::KernelTunerCacheWriter& writer, std::function<void(const std::string&)> warn = {});
  void on_evaluation(const CostFunction& cost, std::size_t position) override;

 private:
  io::KernelTunerCacheWriter& writer_;
  std::function<void(const std::string&)> warn_;
  bool failed_ = false;
};

// The results of `cache` that belong to `space`, as results the tuning loop knows already (one value per objective,
// NaN where missing), with their full records by configuration index.
struct ResumedResults {
  std::vector<ResumedResult> results;
  std::unordered_map<std::size_t, EvaluationRecord> records;
};
ResumedResults resume_from(const io::KernelTunerCacheWriter& cache, const SearchSpace& space,
                           const std::vector<Objective>& objectives);

}  // namespace ktune
