#pragma once
// The registry without plug-in loading (for the plug-in loader itself).
#include <string_view>

#include "ktune/tuning/strategy.hpp"

namespace ktune::strategies {

// nullptr if no strategy of that name is registered; never loads a plug-in.
const StrategyInfo* find_registered_strategy(std::string_view name);

}  // namespace ktune::strategies
