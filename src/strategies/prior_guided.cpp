#include "strategies/prior_guided.hpp"

namespace ktune::strategies {

std::unique_ptr<Strategy> make_with_prior(const std::string& name,
                                          const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                          Prior prior) {
  if (name == "auto") return make_auto_with_prior(hyperparameters, std::move(prior));
  if (name == "bayes_opt") return make_bayes_opt_with_prior(hyperparameters, std::move(prior));
  return make_strategy(name, hyperparameters);
}

}  // namespace ktune::strategies
