// Registry entries of this family: nsga2, nsga3 (multi-objective; random_sample is their baseline).
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

StrategyInfo nsga2_info();  // nsga2.cpp
StrategyInfo nsga3_info();  // nsga3.cpp

std::vector<StrategyInfo> multiobjective_strategies() { return {nsga2_info(), nsga3_info()}; }

}  // namespace ktune::strategies
