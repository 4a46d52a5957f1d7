#pragma once
// Strategies that take a prior over the configurations (transfer: ktune/tuning/transfer_search.hpp): for each
// configuration index a predicted quantile in [0, 1] (0: predicted best). Made by the transfer search, not by the
// registry: a prior is data of one run, not a hyperparameter.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/transfer_search.hpp"
#include "ktune/value.hpp"

namespace ktune::strategies {

using Prior = PriorColumns;  // empty: none

// bayes_opt whose GP models what the prior does not explain: the targets are regressed on the sources' quantiles
// (non-negative coefficients, so a source that disagrees weighs nothing, and the measurements decide which source to
// trust as they come), the GP fits the residuals, and the predicted mean adds the regression back; the sources' best
// configurations join a subsampled candidate pool.
std::unique_ptr<Strategy> make_bayes_opt_with_prior(const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                                    Prior prior);
// auto whose first stage, when it is bayes_opt, has the prior.
std::unique_ptr<Strategy> make_auto_with_prior(const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                               Prior prior);
// The above for bayes_opt and auto; any other strategy as make_strategy makes it (without the prior).
std::unique_ptr<Strategy> make_with_prior(const std::string& name,
                                          const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                          Prior prior);

}  // namespace ktune::strategies
