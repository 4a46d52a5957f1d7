// Registry entries of this family: greedy_mls, mls, ordered_greedy_mls, greedy_ils, simulated_annealing, pattern_search, torczon.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

std::vector<StrategyInfo> local_search_strategies() {
  return {};
}

}  // namespace ktune::strategies
