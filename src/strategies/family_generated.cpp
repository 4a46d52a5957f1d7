// Registry entries of this family: hybrid_vndx, adaptive_tabu_greywolf, auc_bandit, round_robin.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

std::vector<StrategyInfo> generated_and_ensemble_strategies() {
  return {};
}

}  // namespace ktune::strategies
