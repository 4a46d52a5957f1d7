#include "ktune/methodology/setting_scorer.hpp"

#include <stdexcept>

#include "ktune/tuning/interruption.hpp"

namespace ktune::methodology {

SettingScore ComparisonScorer::score(const StrategySpec& spec) const {
  const ComparisonReport report = comparison_.run({spec});
  if (report.interrupted) throw Interrupted();
  SettingScore s{report.aggregate.front().score, {}};
  for (const auto& space : report.spaces) s.per_space.push_back(space.strategies.front().score);
  return s;
}

IgdPlusScorer::IgdPlusScorer(std::vector<ComparisonSpace> spaces, MoComparisonOptions options)
    : spaces_(std::move(spaces)), options_(std::move(options)) {
  if (options_.checkpoints.empty()) options_.checkpoints = default_checkpoints(options_.budget);
  for (const auto& space : spaces_) names_.push_back(space.name);
}

std::string IgdPlusScorer::measure() const {
  std::string objectives, checkpoints;
  for (const Objective& o : options_.objectives)
    objectives += (objectives.empty() ? "" : ", ") + o.name + (o.higher_is_better ? ":max" : ":min");
  for (std::size_t c : options_.checkpoints) checkpoints += (checkpoints.empty() ? "" : ",") + std::to_string(c);
  return "IGD+ improvement over " + options_.baseline + ": " + objectives + "; " + std::to_string(options_.budget) +
         " evaluations; checkpoints " + checkpoints;
}

SettingScore IgdPlusScorer::score(const StrategySpec& spec) const {
  const MoComparisonReport report = compare_multiobjective(spaces_, {spec}, options_);
  if (!report.failures.empty())
    throw std::runtime_error("a run's strategy failed: " + report.failures.front().message);
  SettingScore s;
  for (const MoSpaceResult& space : report.spaces) {
    const MoStrategyOnSpace& on = space.strategies.front();  // the setting (the baseline comes after it)
    double sum = 0;
    for (double v : on.improvement) sum += v;
    s.per_space.push_back(on.improvement.empty() ? 0.0 : sum / static_cast<double>(on.improvement.size()));
    s.aggregate += s.per_space.back() / static_cast<double>(report.spaces.size());
  }
  return s;
}

}  // namespace ktune::methodology
