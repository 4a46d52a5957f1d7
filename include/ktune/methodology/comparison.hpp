#pragma once
// Comparing strategies by the community methodology: every strategy runs `repeats` times on every brute-forced space
// in simulation with the methodology's time budget; each space gets its statistics, the random-search baseline R(T),
// each strategy's curve C(T) and standardised performance P(T); the aggregate is the mean of P over the spaces, and
// a strategy's score is the mean of that over the time points.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/io/results_file.hpp"
#include "ktune/methodology/baseline.hpp"
#include "ktune/repetition.hpp"
#include "ktune/methodology/space_statistics.hpp"
#include "ktune/methodology/strategy_curve.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/transfer_search.hpp"
#include "ktune/value.hpp"

namespace ktune::methodology {

// "name" or "name:key=value,key=value" (a strategy with hyperparameters). The label is the text as given.
struct StrategySpec {
  std::string label;
  std::string name;
  std::vector<std::pair<std::string, Value>> hyperparameters;
  // Runs as a transfer search (ktune/tuning/transfer_search.hpp) from the space's transfer sources
  // (ComparisonOptions::transfer_sources); a space without sources runs the strategy cold.
  bool transfer = false;
};
// Checks the strategy and its hyperparameters against the registry; throws HyperparameterError.
StrategySpec parse_strategy_spec(const std::string& text);
// The settings a spec runs with: its name and, in declaration order, every hyperparameter whose resolved value is not
// the default ("simulated_annealing", "simulated_annealing:T=0.00625" and the full default label give the same
// text). The multi-objective comparison seeds runs from it, so the same settings get the same runs whatever the
// label, and a hyperparameter added later (at a default that keeps the old behaviour) changes no existing seed.
std::string canonical_strategy_text(const StrategySpec& spec);
// Whether `value` is the declared default of `info`'s hyperparameter `name` (numbers by value: 1, 1.0 and 1e0 are one
// setting). The canonical text leaves such settings out, and so does a hypertune cache made before the hyperparameter
// existed.
bool is_default_setting(const StrategyInfo& info, const std::string& name, const Value& value);

struct ComparisonSpace {
  std::string name;  // "A100_convolution_milo" for benchmark_hub's cachefiles/convolution_milo/A100_T4.json.gz
  std::shared_ptr<const io::ResultsFile> results;
};
// The name of a space from its file path: "<file stem without _T4>_<directory>".
std::string space_name_from_path(const std::string& path);

// Reads brute-forced results files (in parallel), named by space_name_from_path. Throws io::InputError. Files of one
// name that measured one device at one problem size (a cache and its T4 export: `--spaces cachefiles/*/*`) are one
// space, merged as transfer merges such sources (merge_same_device); two of one name that did not are refused
// (std::invalid_argument naming both).
std::vector<ComparisonSpace> load_spaces(const std::vector<std::string>& paths, unsigned threads = 0);

// Splitting a comparison's runs over several processes (MPI ranks: ktune/parallel/mpi.hpp). Each process runs the
// runs it owns; gather() then gives every process all of them. Runs are seeded per run, so the results are those of
// one process.
class RunPartition {
 public:
  virtual ~RunPartition() = default;
  virtual bool owns(std::size_t run) const = 0;
  // `runs` and `finished` hold this process's runs; afterwards, everyone's.
  virtual void gather(std::vector<Run>& runs, std::vector<char>& finished) = 0;
  // Whether this process scores the gathered runs (the one that reports); the others return a report without
  // curves or scores.
  virtual bool scores_here() const { return true; }
};

struct ComparisonOptions {
  int repeats = 25;
  std::uint64_t seed = 0;
  double cutoff_start = 0.01, cutoff_end = 0.95;
  double cutoff_margin = 0.1;     // budget = (1 + margin) * t_e
  std::size_t resolution = 1000;  // time points
  unsigned threads = 0;           // 0: all cores
  std::string objective;          // empty: the file's objective, else "time"
  std::optional<bool> minimization;  // default: inferred from the objective's name
  BaselineKind baseline = BaselineKind::reference;  // exact: unbiased on small spaces (see baseline.hpp)
  // Told after each finished run (runs finished, runs in all), from one thread at a time: progress lines.
  std::function<void(std::size_t, std::size_t)> progress;
  // Each run's strategy in a worker process (IsolatedStrategy) with this limit on its own time: a strategy that
  // crashes, hangs or throws loses that run (its pair is not scored) and is reported in ComparisonReport::failures.
  bool isolate = false;
  double isolation_seconds = 300;
  // Several processes share the runs (null: this one runs them all).
  std::shared_ptr<RunPartition> partition;
  // Transfer: per space, in the order of the spaces, the sources that strategies with StrategySpec::transfer start
  // from (empty or shorter: none), and the transfer search's settings.
  std::vector<std::vector<TransferSource>> transfer_sources;
  TransferSettings transfer;
  // Adaptive repetition replayed on the recorded per-run times (tuning/repetition_replay.hpp; objective time): the
  // strategies see what a live run with this policy would have measured, and the clock is charged for the runs it
  // took. The score is that of the configurations found, at their recorded values. Unset or fixed: as recorded.
  std::optional<RepetitionPolicy> repetition;
  // Learned failure avoidance in every run (TuningOptions::avoid_failures).
  bool avoid_failures = false;
  // Each run's clock also advances by its strategy's own time between requests (TuningOptions::charge_strategy_time),
  // as a live run's wall clock does: a strategy that thinks long gets fewer evaluations in the budget. The random-
  // search baseline is not charged. Wall-clock time, so the scores are no longer exactly reproducible.
  bool charge_strategy_time = false;
};

// A run lost to its strategy (isolated runs only).
struct StrategyFailure {
  std::string strategy, space;  // label, space name
  std::size_t run = 0;          // repeat, from 0
  std::string message;
};

struct StrategyOnSpace {
  std::string strategy;  // label
  // An interrupted comparison scores only the pairs whose runs all finished; the others have no runs, no curve and
  // a NaN score.
  std::vector<Run> runs;
  StrategyCurve curve;
  std::vector<double> performance;  // P(T)
  double score = 0;                 // mean of P(T)
};

struct SpaceResult {
  std::string name;
  std::string objective, unit;  // what the values are ("time", "ms"); the unit is "" when the file does not say
  SpaceStatistics stats;
  CutoffRange range;
  double budget_seconds = 0;
  std::vector<double> time_points;  // T (s)
  std::vector<double> baseline;     // R(T)
  std::vector<StrategyOnSpace> strategies;  // in the order of ComparisonReport::strategies
  std::vector<std::string> transfer_sources;  // the names of the sources its transfer runs started from
};

struct AggregateResult {
  std::string strategy;
  std::vector<double> performance;  // mean over spaces of P at each time index
  double score = 0;                 // mean over time indices
  double error = 0;                 // population standard deviation over time indices
  double real_stopping_fraction = 1;  // median over spaces
};

struct ComparisonReport {
  std::vector<std::string> strategies;  // labels, ours first, then external ones
  std::vector<SpaceResult> spaces;
  std::vector<AggregateResult> aggregate;  // in the order of `strategies`
  double run_seconds = 0, scoring_seconds = 0;
  // A stop request (Ctrl-C) ends the runs early: interrupted, with fewer runs finished than in all. Strategies with
  // an unfinished space then have a NaN aggregate score (and no performance curve).
  bool interrupted = false;
  std::size_t runs_finished = 0, runs_total = 0;
  bool strategy_time_charged = false;  // ComparisonOptions::charge_strategy_time
  // Isolated runs whose strategy failed: not scored, and their (space, strategy) pairs neither.
  std::vector<StrategyFailure> failures;
};

// Runs recorded elsewhere, per strategy label and space name.
using ExternalRuns = std::map<std::string, std::map<std::string, std::vector<Run>>>;

// Statistics only (no runs): what `ktune compare --stats` prints.
std::vector<SpaceResult> space_statistics(const std::vector<ComparisonSpace>& spaces, const ComparisonOptions& options);

// Spaces prepared once (statistics, baseline, search space, simulation) and scored against as often as needed: the
// hyperparameter tuner scores hundreds of settings on the same training spaces.
class Comparison {
 public:
  // Throws std::invalid_argument (no space, an objective of unknown direction, too few valid configurations, a space
  // whose random-search baseline reaches the optimum inside the time range).
  Comparison(const std::vector<ComparisonSpace>& spaces, const ComparisonOptions& options);
  ~Comparison();
  Comparison(Comparison&&) noexcept;
  Comparison& operator=(Comparison&&) noexcept;

  // Runs and scores the strategies (and the external runs). Deterministic for a seed, whatever the number of
  // threads; a strategy's runs depend on the seed, the space's name and its settings only (not on its label, nor on
  // the other strategies). Repeat r of every strategy on a space has the same seed (common random numbers).
  ComparisonReport run(const std::vector<StrategySpec>& strategies, const ExternalRuns& external = {}) const;

  const ComparisonOptions& options() const { return options_; }
  std::vector<std::string> space_names() const;

  struct PreparedSpace;  // opaque: defined in comparison.cpp

 private:
  ComparisonOptions options_;
  std::vector<std::unique_ptr<PreparedSpace>> prepared_;
};

// The whole comparison: Comparison(spaces, options).run(strategies, external).
ComparisonReport compare(const std::vector<ComparisonSpace>& spaces, const std::vector<StrategySpec>& strategies,
                         const ComparisonOptions& options, const ExternalRuns& external = {});

}  // namespace ktune::methodology
