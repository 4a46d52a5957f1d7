// Registry entries of this family: bayes_opt.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

std::vector<StrategyInfo> bayesian_strategies() {
  return {};
}

}  // namespace ktune::strategies
