// Registry entries of this family: pso, firefly_algorithm, dual_annealing, basinhopping, minimize.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

std::vector<StrategyInfo> continuous_strategies() {
  return {};
}

}  // namespace ktune::strategies
