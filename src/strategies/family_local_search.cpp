// Registry entries of this family: greedy_mls, mls, ordered_greedy_mls, greedy_ils, simulated_annealing, pattern_search, torczon.
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

StrategyInfo greedy_mls_info();           // greedy_mls.cpp
StrategyInfo mls_info();                  // mls.cpp
StrategyInfo ordered_greedy_mls_info();   // ordered_greedy_mls.cpp
StrategyInfo greedy_ils_info();           // greedy_ils.cpp
StrategyInfo simulated_annealing_info();  // simulated_annealing.cpp
StrategyInfo pattern_search_info();       // pattern_search.cpp
StrategyInfo torczon_info();              // torczon.cpp

std::vector<StrategyInfo> local_search_strategies() {
  return {greedy_mls_info(),          mls_info(),          ordered_greedy_mls_info(), greedy_ils_info(),
          simulated_annealing_info(), pattern_search_info(), torczon_info()};
}

}  // namespace ktune::strategies
