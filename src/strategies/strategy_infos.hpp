#pragma once
// The registry entry of each strategy (defined next to its implementation).
#include "ktune/tuning/strategy.hpp"

namespace ktune::strategies {

StrategyInfo brute_force_info();
StrategyInfo random_sample_info();

}  // namespace ktune::strategies
