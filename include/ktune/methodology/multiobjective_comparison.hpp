#pragma once
// Comparing multi-objective strategies as the multi-objective thesis does: every strategy runs `repeats` times on
// every brute-forced space in simulation, with a budget of evaluations; after each evaluation the set evaluated so
// far is scored by IGD+ against the space's true Pareto front, both normalised by the true front's ideal and nadir
// points. Per strategy and space: the median IGD+ over the repeats after 1..budget evaluations. Strategies are judged
// against random search (random_sample, which the comparison always runs): the relative improvement of the median
// IGD+ at chosen evaluation counts, and how many evaluations a strategy needs to reach random search's final IGD+.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ktune/methodology/comparison.hpp"
#include "ktune/tuning/objective.hpp"

namespace ktune::methodology {

struct MoComparisonOptions {
  std::vector<Objective> objectives;  // at least two
  std::size_t budget = 200;           // evaluations per run
  int repeats = 25;
  std::uint64_t seed = 0;
  unsigned threads = 0;                      // 0: all cores
  std::vector<std::size_t> checkpoints;      // evaluation counts reported; default 50, 100, 150, 200 (<= budget)
  std::string baseline = "random_sample";    // the strategy others are measured against (run if not listed)
  // Each run's strategy in a worker process (IsolatedStrategy): a run whose strategy crashes, hangs or throws keeps
  // what it evaluated (scored as a run that ended early) and is listed in MoComparisonReport::failures.
  bool isolate = false;
  double isolation_seconds = 300;
};

struct MoStrategyOnSpace {
  std::string strategy;                     // label
  std::vector<double> median_igd;           // [e-1]: median over repeats of the normalised IGD+ after e evaluations
  std::vector<double> lower_quartile_igd, upper_quartile_igd;  // [e-1]: the spread (IQR) of the same
  std::vector<std::vector<double>> runs_igd;  // per repeat, the same curve
  std::vector<double> median_clock_ms;      // [e-1]: median over repeats of the tuning clock after e evaluations
  double median_hypervolume = 0;            // of the final sets, normalised space, reference point 1.1 per objective
  std::vector<std::vector<double>> final_front;  // the non-dominated set of the median-IGD+ run (objective values)
  std::vector<double> improvement;          // per checkpoint: 1 - median IGD+ / the baseline's (higher is better)
  // The fewest evaluations after which the median IGD+ is at most the baseline's after the whole budget, as a
  // fraction of the budget (1 when never).
  double evaluations_to_match = 1;
  // The same in evaluation time (the thesis's Table 5): the median tuning clock (the recorded compile and benchmark
  // times of the configurations evaluated) at that point, over the baseline's median clock after the whole budget;
  // +inf when never.
  double time_to_match = 1;
  // The median clock after the whole budget over the baseline's: what the budget costs in time.
  double time_ratio = 1;
};

struct MoSpaceResult {
  std::string name;
  std::size_t configurations = 0;                // successful configurations recorded
  std::vector<std::vector<double>> true_front;   // objective values, ascending in the first objective
  std::vector<double> ideal, nadir;              // of the true front, as objective costs (negated when maximised)
  double true_front_hypervolume = 0;             // normalised, reference point 1.1 per objective
  std::vector<MoStrategyOnSpace> strategies;     // in the order of MoComparisonReport::strategies
};

struct MoAggregate {
  std::string strategy;
  std::vector<double> improvement;   // per checkpoint: median over spaces
  double evaluations_to_match = 1;   // median over spaces
  double time_to_match = 1;          // median over spaces (+inf when never on most)
  double time_ratio = 1;             // median over spaces
};

struct MoComparisonReport {
  std::vector<std::string> strategies;   // labels; the baseline is among them
  std::string baseline;
  std::vector<std::size_t> checkpoints;
  std::vector<MoSpaceResult> spaces;
  std::vector<MoAggregate> aggregate;    // in the order of `strategies`
  double run_seconds = 0;
  std::vector<StrategyFailure> failures;  // isolated runs whose strategy failed
};

// The checkpoints of a budget when none are given: 50, 100, 150, 200 up to the budget, else the budget itself.
std::vector<std::size_t> default_checkpoints(std::size_t budget);

// Deterministic for a seed, whatever the number of threads. Throws std::invalid_argument for fewer than two
// objectives or a zero budget, and SimulationError when a space lacks an objective.
MoComparisonReport compare_multiobjective(const std::vector<ComparisonSpace>& spaces,
                                          const std::vector<StrategySpec>& strategies,
                                          const MoComparisonOptions& options);

}  // namespace ktune::methodology
