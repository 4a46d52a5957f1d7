#pragma once
// The registry entries of ktune's strategies, each defined in the strategy's own file; registry.cpp lists them once,
// in the order `ktune strategies` shows them.
#include "ktune/tuning/strategy.hpp"

namespace ktune::strategies {

StrategyInfo auto_info();                    // auto.cpp
StrategyInfo brute_force_info();             // brute_force.cpp
StrategyInfo random_sample_info();           // random_sample.cpp
StrategyInfo greedy_mls_info();              // multi_start_local_search.cpp
StrategyInfo mls_info();                     // multi_start_local_search.cpp
StrategyInfo ordered_greedy_mls_info();      // multi_start_local_search.cpp
StrategyInfo greedy_ils_info();              // greedy_ils.cpp
StrategyInfo simulated_annealing_info();     // simulated_annealing.cpp
StrategyInfo pattern_search_info();          // pattern_search.cpp
StrategyInfo torczon_info();                 // torczon.cpp
StrategyInfo genetic_algorithm_info();       // genetic_algorithm.cpp
StrategyInfo diff_evo_info();                // diff_evo.cpp
StrategyInfo pso_info();                     // pso.cpp
StrategyInfo firefly_algorithm_info();       // firefly_algorithm.cpp
StrategyInfo dual_annealing_info();          // dual_annealing.cpp
StrategyInfo basinhopping_info();            // basinhopping.cpp
StrategyInfo minimize_info();                // minimize.cpp
StrategyInfo bayes_opt_info();               // bayes_opt.cpp
StrategyInfo hybrid_vndx_info();             // hybrid_vndx.cpp
StrategyInfo adaptive_tabu_greywolf_info();  // adaptive_tabu_greywolf.cpp
StrategyInfo auc_bandit_info();              // auc_bandit.cpp
StrategyInfo round_robin_info();             // round_robin.cpp
StrategyInfo pyatf_simulated_annealing_info();     // pyatf_simulated_annealing.cpp
StrategyInfo pyatf_differential_evolution_info();  // pyatf_differential_evolution.cpp
StrategyInfo nsga2_info();                   // nsga2.cpp
StrategyInfo nsga3_info();                   // nsga3.cpp

}  // namespace ktune::strategies
