#include "ktune/jobs/comparison_job.hpp"

#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/io/derived_measurements.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/methodology/external_runs.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/isolated_plugins.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "ktune/tuning/transfer_prior.hpp"
#include "ktune/tuning/transfer_search.hpp"
#include "ktune/tuning/transfer_sources.hpp"

namespace ktune {

using namespace ktune::methodology;

namespace {

// Runs `f`, turning the errors of unreadable or unsuitable input into JobError.
template <class F>
auto as_input_errors(F&& f) {
  try {
    return f();
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  } catch (const std::invalid_argument& e) {
    refuse_input(e.what());
  }
}

}  // namespace

ComparisonJob::ComparisonJob(CompareRequest request) : request_(std::move(request)) {
  if (!request_.iterations.empty()) {
    try {
      request_.options.repetition = RepetitionPolicy::parse(request_.iterations);
    } catch (const std::invalid_argument& e) {
      refuse_request(fmt::format("--{}", e.what()));
    }
  }
  const ComparisonOptions& o = request_.options;
  if (request_.spaces.empty()) refuse_request("give the brute-forced spaces with --spaces FILE...");
  if (!request_.stats_only && request_.strategies.empty() && request_.runs.empty())
    refuse_request("give the strategies with --strategies SPEC... (or --stats)");
  if (!(o.cutoff_end > 0 && o.cutoff_end <= 1) || !(o.cutoff_start >= 0 && o.cutoff_start < o.cutoff_end))
    refuse_request("cutoffs must satisfy 0 <= --cutoff-start < --cutoff <= 1");
  if (o.resolution < 2) refuse_request("--resolution must be at least 2");
  try {
    for (const auto& text : request_.strategies) {
      if (o.isolate) prepare_isolated_strategy(text);  // an isolated plug-in is loaded only in its sandbox
      strategies_.push_back(parse_strategy_spec(text));
    }
  } catch (const HyperparameterError& e) {
    refuse_request(e.what());
  }
  for (const auto& text : request_.runs) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
      refuse_request(fmt::format("--runs '{}': expected NAME=FILE", text));
    runs_.emplace_back(text.substr(0, eq), text.substr(eq + 1));
  }
  as_input_errors([&] {
    spaces_ = load_spaces(request_.spaces, o.threads);
    if (!request_.derived.empty()) {
      std::vector<io::DerivedMeasurement> derived;
      for (const auto& text : request_.derived) derived.push_back(io::parse_derived_measurement(text));
      for (auto& space : spaces_) {
        auto copy = std::make_shared<io::ResultsFile>(*space.results);
        try {
          io::add_derived_measurements(*copy, derived);
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(fmt::format("{}: {}", space.name, e.what()));
        }
        space.results = std::move(copy);
      }
    }
    objectives_ = parse_objectives(request_.objectives);
    return 0;
  });
  if (objectives_.size() >= 2 && (request_.stats_only || !request_.runs.empty() || !request_.transfer.empty()))
    refuse_request("--stats, --runs and --transfer are for single-objective comparisons");
  if (objectives_.size() >= 2 && o.charge_strategy_time)
    refuse_request("--charge-strategy-time needs a clock: a multi-objective comparison counts evaluations");
  if (!request_.transfer.empty()) add_transfer();
  if (objectives_.size() == 1) {
    if (!o.objective.empty() && o.objective != objectives_[0].name)
      refuse_request("give the objective once (--objective or --objectives)");
    request_.options.objective = objectives_[0].name;
  }
}

ComparisonJob::~ComparisonJob() = default;

void ComparisonJob::add_transfer() {
  as_input_errors([&] {
    apply_transfer_settings(request_.options.transfer, request_.transfer_settings);
    const std::vector<TransferSource> sources = read_transfer_sources(request_.transfer);
    auto& per_space = request_.options.transfer_sources;
    per_space.assign(spaces_.size(), {});
    for (std::size_t i = 0; i < spaces_.size(); ++i) {
      const io::ResultsFile& target = *spaces_[i].results;
      for (const auto& source : sources)
        if (same_kernel(*source.results, target.problem, target.kernel_name) &&
            !same_origin(request_.spaces[i], target, source.name, *source.results))
          per_space[i].push_back(source);
      per_space[i] = merge_same_device(per_space[i]);  // a cache and its T4 twin are one device
    }
    return 0;
  });
  const std::size_t cold = strategies_.size();
  for (std::size_t k = 0; k < cold; ++k) {
    methodology::StrategySpec spec = strategies_[k];
    spec.label += "+transfer";
    spec.transfer = true;
    strategies_.push_back(std::move(spec));
  }
}

std::vector<SpaceResult> ComparisonJob::statistics() const {
  return as_input_errors([&] { return space_statistics(spaces_, request_.options); });
}

ComparisonReport ComparisonJob::run() const {
  if (multiobjective()) throw std::logic_error("ComparisonJob::run: several objectives, use run_multiobjective()");
  return as_input_errors([&] {
    const ExternalRuns external =
        runs_.empty() ? ExternalRuns{} : load_external_runs(runs_, spaces_, request_.options.objective);
    return compare(spaces_, strategies_, request_.options, external);
  });
}

MoComparisonReport ComparisonJob::run_multiobjective() const {
  if (!multiobjective()) throw std::logic_error("ComparisonJob::run_multiobjective: fewer than two objectives");
  MoComparisonOptions mo;
  mo.objectives = objectives_;
  mo.budget = request_.budget;
  mo.repeats = request_.options.repeats;
  mo.seed = request_.options.seed;
  mo.threads = request_.options.threads;
  mo.checkpoints = request_.checkpoints;
  mo.isolate = request_.options.isolate;
  mo.isolation_seconds = request_.options.isolation_seconds;
  return as_input_errors([&] { return compare_multiobjective(spaces_, strategies_, mo); });
}

}  // namespace ktune
