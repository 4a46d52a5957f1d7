// Registry entries of this family: genetic_algorithm, diff_evo.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

StrategyInfo genetic_algorithm_info();  // genetic_algorithm.cpp
StrategyInfo diff_evo_info();           // diff_evo.cpp

std::vector<StrategyInfo> evolutionary_strategies() {
  return {genetic_algorithm_info(), diff_evo_info()};
}

}  // namespace ktune::strategies
