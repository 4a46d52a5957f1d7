// Registry entries of this family: bayes_opt.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

StrategyInfo bayes_opt_info();  // bayes_opt.cpp

std::vector<StrategyInfo> bayesian_strategies() {
  return {bayes_opt_info()};
}

}  // namespace ktune::strategies
