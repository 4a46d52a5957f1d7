// Registry entries of this family: genetic_algorithm, diff_evo.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

std::vector<StrategyInfo> evolutionary_strategies() {
  return {};
}

}  // namespace ktune::strategies
