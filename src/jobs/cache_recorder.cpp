#include "ktune/jobs/cache_recorder.hpp"

#include <cmath>
#include <exception>

#include <fmt/format.h>

#include "ktune/tuning/recorded_evaluation.hpp"

namespace ktune {

CacheRecorder::CacheRecorder(io::KernelTunerCacheWriter& writer, std::function<void(const std::string&)> warn)
    : writer_(writer), warn_(std::move(warn)) {}

void CacheRecorder::on_evaluation(const CostFunction& cost, std::size_t position) {
  if (failed_) return;
  const EvaluationRecord r = recorded_evaluation(cost.evaluator(), cost.trace()[position]);
  try {
    writer_.append(r);
  } catch (const std::exception& error) {
    // Losing the cache must not lose the run: say so once, with what is safe where, and tune on.
    failed_ = true;
    if (warn_)
      warn_(fmt::format("stopped writing the cache: {}\n  its {} results ({} of this run) are safe there and resume; "
                        "this run's later results are only in its other outputs (--output, --csv, --json)",
                        error.what(), writer_.existing().size() + writer_.appended(), writer_.appended()));
  }
}

ResumedResults resume_from(const io::KernelTunerCacheWriter& cache, const SearchSpace& space,
                           const std::vector<Objective>& objectives) {
  ResumedResults out;
  for (const auto& r : cache.existing()) {
    const auto config = space.config_of(r.config);
    const auto index = config ? space.index_of(*config) : std::nullopt;
    if (!index) continue;
    ResumedResult result{*index, r.status, {}};
    for (const auto& obj : objectives) result.values.push_back(r.objective(obj.name).value_or(std::nan("")));
    out.results.push_back(std::move(result));
    out.records[*index] = r;
  }
  return out;
}

}  // namespace ktune
