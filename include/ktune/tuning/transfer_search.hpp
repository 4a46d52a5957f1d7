#pragma once
// Tuning that starts from what was measured elsewhere (docs/transfer.md): a strategy that evaluates the sources' best
// configuration first, checks on a few spread-out samples whether the space agrees with its sources, and then either
// follows the agreeing ones or falls back to cold tuning.
//
//   1. opening: the sources' best configurations, taking from each source in turn (its next best not yet known): by
//      default every source's best (at least 2, at most 4), so that no source's best waits on the order of the files;
//   2. control: a Latin-hypercube sample (what cold bayes_opt opens with), so that agreement is judged over the whole
//      range of the sources' quantiles;
//   3. agreement: per source, the rank correlation (Spearman) between its predicted quantiles and the costs measured
//      so far (failures last). Below `min_agreement` for every source (negative transfer): the `cold` strategy runs
//      the rest of the run, starting from what was measured, as if there were no sources;
//   4. guided: the configurations of lowest predicted quantile, the sources weighted by correlation^sharpness
//      (recomputed, and the check of 3 repeated, after every evaluation), until `guided` have been evaluated;
//   5. the `agreed` strategy runs the rest with the agreeing sources' predictions: bayes_opt (auto's first stage)
//      regresses its targets on them with non-negative weights and models the rest, so a source that stops agreeing
//      stops counting; pso, hybrid_vndx and auto's second stage start from the best configurations found.
// The defaults were chosen leave-one-GPU-out (docs/transfer.md): the opening gives tiny budgets the sources' best at
// once, and the controls before more of it keep what a disagreeing source costs to the opening's two configurations.
// The budget ends any step; a step's configurations that are known already are skipped at no cost.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/transfer_prior.hpp"
#include "ktune/value.hpp"

namespace ktune {

struct TransferSettings {
  // Evaluations of the opening; unset: one per source, at least 2 and at most kOpeningSources (opening_for).
  std::optional<std::size_t> opening;
  static constexpr std::size_t kOpeningSources = 4;
  std::size_t opening_for(std::size_t sources) const {
    return opening ? *opening : std::clamp<std::size_t>(sources, 2, kOpeningSources);
  }
  std::size_t control = 3;
  std::size_t guided = 2;
  double min_agreement = 0.3;  // at most 0: never fall back
  double sharpness = 16;       // weights are correlation^sharpness: the best-agreeing source leads
  std::string agreed;          // the strategy of step 5 ("": transfer_handover's choice)
};
// "name=value" texts (opening: a count or "sources", control, guided, min_agreement, sharpness, agreed) applied to
// `settings`; throws std::invalid_argument naming the text.
void apply_transfer_settings(TransferSettings& settings, const std::vector<std::string>& texts);

// What the agreeing sources predict: per source, per configuration index, its quantile in [0, 1] (0: its best).
using PriorColumns = std::vector<std::shared_ptr<const std::vector<float>>>;
// The strategy of step 5, given the agreeing sources' predictions: bayes_opt and auto model what they do not explain.
using AgreedStrategy = std::function<std::unique_ptr<Strategy>(PriorColumns prior)>;
std::unique_ptr<Strategy> make_transfer_search(std::shared_ptr<const TransferPrior> prior, TransferSettings settings,
                                               AgreedStrategy agreed, std::unique_ptr<Strategy> cold);
// The transfer search around registered strategy `name` (transfer_handover, settings.agreed), in this process.
std::unique_ptr<Strategy> make_transfer_search(std::shared_ptr<const TransferPrior> prior, TransferSettings settings,
                                               const std::string& name,
                                               const std::vector<std::pair<std::string, Value>>& hyperparameters);

// The strategies a transfer search around strategy `name` (with these hyperparameters) hands over to: both are the
// strategy itself (`agreed` gets the prior where it takes one), unless settings name `agreed`. As names and
// hyperparameters, for make_strategy or an isolated worker.
struct TransferHandover {
  std::string agreed_name, cold_name;
  std::vector<std::pair<std::string, Value>> agreed_hyperparameters, cold_hyperparameters;
};
TransferHandover transfer_handover(const std::string& name,
                                   const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                   const TransferSettings& settings);

}  // namespace ktune
