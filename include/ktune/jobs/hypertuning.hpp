#pragma once
// Tuning the tuner as a job: the rules of `ktune hypertune`, callable from C++.
//
// Every setting of a strategy's hyperparameters (a grid: the request's T1 file, else one around the declared defaults)
// is scored by the methodology on brute-forced training spaces in simulation; a meta-strategy searches the settings
// through the ordinary tuning loop; the scores go to a resumable Kernel Tuner cache (objective `score`). Then, unless
// interrupted: the best, median and worst settings and the defaults are scored on test spaces, and the confirmation
// protocol re-scores the best `confirm` settings and the defaults on fresh seeds; the best of them is recommended and
// the verdict is "adopt" only when it beats the defaults on the training spaces and (given test spaces) on the test
// spaces too, over the run's seed and the fresh ones, and (cross-validated) when the selection beats the defaults
// on held-out folds.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/jobs/cross_validation.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/methodology/baseline.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/sensitivity.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {

struct HypertuneRequest {
  std::string strategy;                  // the strategy whose hyperparameters are tuned
  std::string hyperspace_path;           // T1 file over the hyperparameters; empty: a grid around the defaults
  std::vector<std::string> spaces;       // brute-forced training spaces
  std::vector<std::string> test_spaces;  // optional
  std::string meta_strategy = "brute_force";
  std::vector<std::string> meta_settings;  // name=value
  int repeats = 25;                        // runs per setting and space
  Budget budget;                           // of the meta-strategy: settings scored, wall-clock seconds
  std::uint64_t seed = 0;
  unsigned threads = 0;  // 0: all cores
  methodology::BaselineKind baseline = methodology::BaselineKind::reference;
  std::string output_path;            // the scores' cache: resumed if present, appended per setting
  std::size_t confirm = 0;            // re-score this many of the best settings on fresh seeds
  std::uint64_t confirm_seeds = 3;    // how many fresh seeds
  std::string reference;              // the settings to beat, as a label; empty: the strategy's defaults
  bool isolate = false;               // every run's strategy in a worker process (ComparisonOptions::isolate)
  double isolation_seconds = 300;
  // Each run's clock advances by its strategy's own time too (ComparisonOptions::charge_strategy_time). The scores'
  // cache records which; a cache scored the other way is refused.
  bool charge_strategy_time = false;
  // Cross-validate the selection over the training spaces (cross_validation.hpp): "gpu", "kernel" or a number of
  // folds; empty: none.
  std::string cross_validation;
  // Two or more objectives (NAME[:min|:max]): a multi-objective strategy's settings are scored by their improvement
  // of IGD+ over random search (methodology/setting_scorer.hpp) with `evaluations` per run, at `checkpoints`
  // (default 50, 100, 150, 200 up to the budget); not with test spaces, --cv or --confirm.
  std::vector<std::string> objectives;
  std::size_t evaluations = 200;
  std::vector<std::size_t> checkpoints;
  // --plot: the figures of the scored settings (write_hypertune_figures) are written there at the end; a directory
  // that cannot be written is refused before any scoring.
  std::string plot_dir;
  std::function<void(JobMessageLevel, const std::string&)> on_message;
  // Several processes share every setting's runs (MPI ranks: ktune/parallel/mpi.hpp). Every process must then score
  // (RunPartition::scores_here) and see the same scores' cache, so that they all choose the same settings.
  std::shared_ptr<methodology::RunPartition> partition;
};

// A setting and what it scored.
struct ScoredSettingRow {
  std::string label;
  std::vector<std::pair<std::string, Value>> settings;  // the grid's hyperparameters
  Status status = Status::ok;
  double score = 0;                  // NaN when not scored
  std::vector<double> space_scores;  // per training space; empty when unknown (resumed from other spaces)
  bool resumed = false;
  std::string message;
};

struct TrainTestRow {
  std::string role, label;  // role: best, median, worst, default
  double train = 0, test = 0;
};

struct ConfirmedSetting {
  std::string label;
  double score = 0, confirmed = 0, test = 0;  // test: the recommendation and the reference only
};

struct HypertuneOutcome {
  explicit HypertuneOutcome(TuningResult r) : result(std::move(r)) {}
  TuningResult result;
  std::vector<ScoredSettingRow> rows;  // every setting known at the end, best first
  std::size_t scored = 0;              // rows with a score (the first ones)
  std::size_t resumed = 0;
  std::vector<TrainTestRow> test_rows;     // given test spaces
  std::vector<ConfirmedSetting> confirmed; // given confirm > 0
  ConfirmedSetting reference, recommended;
  std::vector<std::uint64_t> confirm_seeds, test_seeds;
  std::string verdict;  // "adopt", "keep", or empty (no confirmation)
  std::optional<CrossValidationResult> cross_validation;  // requested, and not interrupted
  // How much each hyperparameter matters, over the scored settings (at least two; methodology/sensitivity.hpp).
  std::optional<methodology::SensitivityAnalysis> sensitivity;
  bool interrupted = false;
  std::string figures;        // the index.html written (request.plot_dir), empty when none
  std::string figures_error;  // why the figures could not be written
};

class Hypertuning {
 public:
  // Opens the grid, the spaces and the cache; throws JobError.
  explicit Hypertuning(HypertuneRequest request);
  ~Hypertuning();
  Hypertuning(const Hypertuning&) = delete;
  Hypertuning& operator=(const Hypertuning&) = delete;

  // Scores, tests and confirms; once per job. `listeners` see every scored setting.
  HypertuneOutcome run(const std::vector<TuningListener*>& listeners = {});

  const HypertuneRequest& request() const;
  const SearchSpace& space() const;  // the settings
  std::size_t settings_to_score() const;
  const std::string& defaults_label() const;
  const std::vector<std::pair<std::string, Value>>& fixed_hyperparameters() const;
  // What a score measures (methodology/setting_scorer.hpp), as the scores' cache records it.
  const std::string& score_measure() const;
  // Whether a row's grid values are those of the settings to beat (--defaults, else the strategy's defaults).
  bool is_reference(const ScoredSettingRow& row) const;
  std::vector<std::string> training_space_names() const;
  std::vector<std::string> test_space_names() const;  // empty without test spaces
  const std::vector<std::string>& warnings() const;   // about the grid

  struct State;

 private:
  friend nlohmann::json hypertune_report_json(const Hypertuning&, const HypertuneOutcome&);
  std::unique_ptr<State> state_;
};

// The stable `ktune hypertune --json` object.
nlohmann::json hypertune_report_json(const Hypertuning& job, const HypertuneOutcome& outcome);

// The text report: what was scored, the `top` best settings, train vs test, confirmation, cross-validation.
void write_hypertune_report(std::ostream& out, const Hypertuning& job, const HypertuneOutcome& outcome,
                            std::size_t top);

// The figures of the scored settings (methodology::write_svg_report for a HyperparameterScores: the distribution
// of the scores, the defaults marked when they were scored, and the score by each hyperparameter's value) in
// `directory`. Throws io::InputError when it cannot be written.
void write_hypertune_figures(const Hypertuning& job, const HypertuneOutcome& outcome, const std::string& directory);

// Why a finished (not interrupted) run is no result, when it scored no setting at all (every one failed, or none was
// tried), naming the first failure; nullopt when something was scored.
std::optional<std::string> nothing_scored(const HypertuneOutcome& outcome);

}  // namespace ktune
