// Registry entries of this family: pso, firefly_algorithm, dual_annealing, basinhopping, minimize.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

StrategyInfo pso_info();                // pso.cpp
StrategyInfo firefly_algorithm_info();  // firefly_algorithm.cpp
StrategyInfo dual_annealing_info();     // dual_annealing.cpp
StrategyInfo basinhopping_info();       // basinhopping.cpp
StrategyInfo minimize_info();           // minimize.cpp

std::vector<StrategyInfo> continuous_strategies() {
  return {pso_info(), firefly_algorithm_info(), dual_annealing_info(), basinhopping_info(), minimize_info()};
}

}  // namespace ktune::strategies
