#pragma once
// A results store as the memory of a tuning run, as a cache file is (jobs/cache_recorder.hpp): the results it holds
// for the run's kernel, device, problem size and build are resumed, and every new result is added as it arrives.
#include <cstdint>
#include <functional>
#include <string>

#include "ktune/jobs/cache_recorder.hpp"
#include "ktune/store/results_store.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune::store {

class StoreRecorder final : public TuningListener {
 public:
  // `warn` hears, once, that adding failed (the run goes on without the store).
  StoreRecorder(ResultsStore& store, std::int64_t session, std::function<void(const std::string&)> warn = {});
  void on_evaluation(const CostFunction& cost, std::size_t position) override;
  std::size_t added() const { return added_; }
  bool failed() const { return failed_; }

 private:
  ResultsStore& store_;
  std::int64_t session_;
  std::function<void(const std::string&)> warn_;
  std::size_t added_ = 0;
  bool failed_ = false;
};

// Whether results recorded for `stored` may be resumed by a run of `wanted`, by a cache's rules: the same kernel
// name and parameter names in the same order always; unless `reuse_other_origin`, also the same device, the same
// problem size (same_problem_size) and the same provenance where both record it.
bool resumable(const SpaceOrigin& stored, const SpaceOrigin& wanted, bool reuse_other_origin);

// The results of every resumable space of `store` that belong to `space` (the latest record of a configuration
// measured more than once), as the tuning loop resumes them.
ResumedResults resume_from_store(const ResultsStore& store, const SpaceOrigin& wanted, bool reuse_other_origin,
                                 const SearchSpace& space, const std::vector<Objective>& objectives);

}  // namespace ktune::store
