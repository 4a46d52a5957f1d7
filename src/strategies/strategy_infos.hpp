#pragma once
// The registry entries of the strategies, by family; each family's file lists its own.
#include <vector>

#include "ktune/tuning/strategy.hpp"

namespace ktune::strategies {

StrategyInfo brute_force_info();
StrategyInfo random_sample_info();

std::vector<StrategyInfo> local_search_strategies();     // family_local_search.cpp
std::vector<StrategyInfo> evolutionary_strategies();     // family_evolutionary.cpp
std::vector<StrategyInfo> continuous_strategies();       // family_continuous.cpp
std::vector<StrategyInfo> bayesian_strategies();         // family_bayesian.cpp
std::vector<StrategyInfo> generated_and_ensemble_strategies();  // family_generated.cpp
std::vector<StrategyInfo> multiobjective_strategies();           // family_multiobjective.cpp

}  // namespace ktune::strategies
