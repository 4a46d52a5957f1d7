// Registry entries of this family: hybrid_vndx, adaptive_tabu_greywolf, auc_bandit, round_robin.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

StrategyInfo hybrid_vndx_info();             // hybrid_vndx.cpp
StrategyInfo adaptive_tabu_greywolf_info();  // adaptive_tabu_greywolf.cpp
StrategyInfo auc_bandit_info();              // auc_bandit.cpp
StrategyInfo round_robin_info();             // round_robin.cpp

std::vector<StrategyInfo> generated_and_ensemble_strategies() {
  return {hybrid_vndx_info(), adaptive_tabu_greywolf_info(), auc_bandit_info(), round_robin_info()};
}

}  // namespace ktune::strategies
