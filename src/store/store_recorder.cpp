#include "ktune/store/store_recorder.hpp"

#include <cmath>
#include <exception>

#include <fmt/format.h>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/tuning/recorded_evaluation.hpp"

namespace ktune::store {

StoreRecorder::StoreRecorder(ResultsStore& store, std::int64_t session, std::function<void(const std::string&)> warn)
    : store_(store), session_(session), warn_(std::move(warn)) {}

void StoreRecorder::on_evaluation(const CostFunction& cost, std::size_t position) {
  if (failed_) return;
  const EvaluationRecord r = recorded_evaluation(cost.evaluator(), cost.trace()[position]);
  try {
    added_ += store_.add(session_, r);
  } catch (const std::exception& error) {
    // Losing the store must not lose the run: say so once and tune on.
    failed_ = true;
    if (warn_)
      warn_(fmt::format("stopped recording into the results store: {}\n  the {} results of this run added before are "
                        "safe there; later ones are only in the run's other outputs (--output, --csv, --json)",
                        error.what(), added_));
  }
}

bool resumable(const SpaceOrigin& stored, const SpaceOrigin& wanted, bool reuse_other_origin) {
  if (stored.kernel_name != wanted.kernel_name) return false;
  if (stored.problem.parameters.size() != wanted.problem.parameters.size()) return false;
  for (std::size_t i = 0; i < stored.problem.parameters.size(); ++i)
    if (stored.problem.parameters[i].name != wanted.problem.parameters[i].name) return false;
  if (reuse_other_origin) return true;
  if (stored.device_name != wanted.device_name) return false;
  if (!io::same_problem_size(stored.problem_size, wanted.problem_size)) return false;
  if (stored.provenance.is_object() && wanted.provenance.is_object())
    for (const auto& [key, value] : wanted.provenance.items())
      if (const auto it = stored.provenance.find(key); it != stored.provenance.end() && *it != value) return false;
  return true;
}

ResumedResults resume_from_store(const ResultsStore& store, const SpaceOrigin& wanted, bool reuse_other_origin,
                                 const SearchSpace& space, const std::vector<Objective>& objectives) {
  ResumedResults out;
  std::unordered_map<std::size_t, std::size_t> position;  // configuration index -> place in out.results
  for (const StoredSpace& stored : store.spaces()) {
    if (!resumable(stored.origin, wanted, reuse_other_origin)) continue;
    for (auto& r : store.records(stored.id)) {
      const auto config = space.config_of(r.config);
      const auto index = config ? space.index_of(*config) : std::nullopt;
      if (!index) continue;
      ResumedResult result{*index, r.status, {}};
      for (const auto& obj : objectives) result.values.push_back(r.objective(obj.name).value_or(std::nan("")));
      const auto [it, fresh] = position.emplace(*index, out.results.size());
      if (fresh) out.results.push_back(std::move(result));
      else out.results[it->second] = std::move(result);
      out.records[*index] = std::move(r);
    }
  }
  return out;
}

}  // namespace ktune::store
