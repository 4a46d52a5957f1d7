#include "ktune/tuning/simulation_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/search_space.hpp"

namespace ktune {
SimulationEvaluator::SimulationEvaluator(const SearchSpace& space, std::shared_ptr<const io::ResultsFile> results,
                                         std::vector<Objective> objectives)
    : space_(space), results_(std::move(results)), objectives_(std::move(objectives)) {
  if (objectives_.empty()) throw SimulationError("no objective given");
  for (const auto& objective : objectives_) check_time_not_stood_in(*results_, objective.name);
  const Problem& problem = space_.problem();
  const Problem& recorded = results_->problem;

  // Parameters are matched by name; the file may list them in another order.
  const auto ours = problem.parameter_names(), theirs = recorded.parameter_names();
  const std::set<std::string> our_set(ours.begin(), ours.end()), their_set(theirs.begin(), theirs.end());
  if (our_set != their_set) {
    std::vector<std::string> missing, extra;
    for (const auto& n : ours)
      if (!their_set.count(n)) missing.push_back(n);
    for (const auto& n : theirs)
      if (!our_set.count(n)) extra.push_back(n);
    throw SimulationError(fmt::format(
        "the recorded parameters ({}) do not match the problem's ({}){}{}", fmt::join(theirs, ", "),
        fmt::join(ours, ", "), missing.empty() ? "" : fmt::format("; not recorded: {}", fmt::join(missing, ", ")),
        extra.empty() ? "" : fmt::format("; not in the problem: {}", fmt::join(extra, ", "))));
  }
  for (const auto& name : ours) param_of_column_.push_back(*recorded.parameter_index(name));

  const auto& records = results_->records;
  const std::size_t k = objectives_.size();
  row_of_.assign(space_.size(), kAbsent);
  status_.resize(records.size());
  values_.resize(records.size() * k);
  charged_.resize(records.size());
  missing_values_.assign(k, std::nan(""));
  std::vector<std::size_t> found(k, 0);

  if (records.empty())
    throw SimulationError(results_->missing_cache
                              ? "it has no \"cache\" (a Kernel Tuner cache file keeps its results there): there is "
                                "nothing to replay"
                              : "it records no configurations (its results are empty): there is nothing to replay");
  std::size_t excluded = 0;  // recorded configurations of the problem's values that its constraints exclude
  std::size_t invalid = 0;   // recorded as invalid (no part of a results file's space)
  std::vector<Value> values(ours.size());
  for (std::size_t row = 0; row < records.size(); ++row) {
    const EvaluationRecord& r = records[row];
    status_[row] = r.status;
    charged_[row] = r.charged_ms();
    for (std::size_t j = 0; j < k; ++j) {
      const auto v = r.objective(objectives_[j].name);
      values_[row * k + j] = v ? *v : std::nan("");
      if (v) ++found[j];
    }
    for (std::size_t p = 0; p < values.size(); ++p) values[p] = r.config[param_of_column_[p]];
    const auto config = space_.config_of(values);
    const auto index = config ? space_.index_of(*config) : std::nullopt;
    if (!index) {
      ++outside_;
      excluded += config.has_value() && r.status != Status::invalid;
      invalid += r.status == Status::invalid;
      continue;
    }
    if (row_of_[*index] == kAbsent) ++recorded_;
    row_of_[*index] = static_cast<std::uint32_t>(row);
  }

  if (recorded_ == 0 && invalid == records.size())
    throw SimulationError(fmt::format("all {} recorded configurations are recorded as invalid: there is nothing to "
                                      "replay", records.size()));
  if (recorded_ == 0 && excluded + invalid == records.size() && !problem.constraints.empty())
    throw SimulationError(fmt::format("the constraints and restrictions ({}) exclude all {} recorded configurations: "
                                      "there is nothing to replay",
                                      fmt::join(problem.constraints, "; "), records.size()));
  if (recorded_ == 0)
    throw SimulationError(fmt::format("none of the {} recorded configurations is a configuration of the problem "
                                      "(the parameter values differ{})",
                                      records.size(), excluded ? ", or its constraints exclude them" : ""));
  for (std::size_t j = 0; j < k; ++j)
    if (found[j] == 0) check_objective_recorded(*results_, objectives_[j].name);
}

void check_time_not_stood_in(const io::ResultsFile& results, std::string_view objective) {
  if (objective != "time" || results.time_stand_ins == 0) return;
  throw SimulationError(fmt::format(
      "objective 'time': {} successful entr{} of the cache record neither 'time' nor 'times' (the first: "
      "cache[\"{}\"]); their benchmark_time is the whole benchmarking step, not the kernel's time, and is not taken "
      "as it (Kernel Tuner itself stops at such an entry); choose a recorded objective",
      results.time_stand_ins, results.time_stand_ins == 1 ? "y" : "ies", results.first_time_stand_in));
}

void check_objective_recorded(const io::ResultsFile& results, std::string_view objective) {
  const auto& records = results.records;
  if (std::any_of(records.begin(), records.end(), [&](const auto& r) { return r.objective(objective).has_value(); }))
    return;
  std::set<std::string> available;
  for (const auto& r : records)
    if (r.status == Status::ok)
      for (const auto& m : r.measurements)
        if (m.value.is_numeric()) available.insert(m.name);
  if (std::any_of(records.begin(), records.end(), [](const auto& r) { return !r.runtimes_ms.empty(); }))
    available.insert("time");
  throw SimulationError(fmt::format("objective '{}' is not recorded for any successful configuration; recorded: {}",
                                    objective, fmt::join(available, ", ")));
}

SearchSpace space_from_results(const io::ResultsFile& results) {
  const Problem& problem = results.problem;
  std::vector<Config> configs;
  configs.reserve(results.records.size());
  for (const auto& r : results.records) {
    if (r.status == Status::invalid) continue;
    Config config(problem.parameters.size());
    for (std::size_t p = 0; p < config.size(); ++p) {
      const auto& values = problem.parameters[p].values;
      const auto it = std::find_if(values.begin(), values.end(), [&](const Value& v) { return same_value(v, r.config[p]); });
      if (it == values.end()) throw SimulationError(fmt::format("recorded value {} of parameter '{}' is not one of its values",
                                                                r.config[p].repr(), problem.parameters[p].name));
      config[p] = static_cast<std::uint32_t>(it - values.begin());
    }
    configs.push_back(std::move(config));
  }
  return SearchSpace::from_configs(problem, configs);
}

EvaluationRecord SimulationEvaluator::record(std::size_t index) const {
  const std::uint32_t row = row_of_[index];
  if (row == kAbsent) {
    EvaluationRecord r;
    r.config = space_.values_at(index);
    r.status = Status::invalid;
    r.message = "not in the simulated results";
    return r;
  }
  EvaluationRecord r = results_->records[row];
  std::vector<Value> config(param_of_column_.size());
  for (std::size_t p = 0; p < config.size(); ++p) config[p] = r.config[param_of_column_[p]];
  r.config = std::move(config);
  return r;
}

}  // namespace ktune
