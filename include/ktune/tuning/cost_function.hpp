#pragma once
// What a strategy sees of the evaluation: configuration index in, cost out. It remembers every result (a revisit is
// answered from memory, free and not counted), charges the tuning clock, keeps the trace and enforces the budget.
//
// When the budget has ended, every further call throws BudgetExhausted, so any strategy stops at once; the tuning
// loop catches it. Strategies must not swallow it (a catch (...) must rethrow).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ktune/tuning/budget.hpp"
#include "ktune/tuning/evaluator.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/trace.hpp"

namespace ktune {

class SearchSpace;
class CostFunction;
class FailureModel;
class TransferPrior;

class BudgetExhausted : public std::exception {
 public:
  const char* what() const noexcept override { return "tuning budget exhausted"; }
};

// Thrown instead of a new evaluation when a stage of the run has used its evaluations (CostFunction::begin_stage).
// It is a BudgetExhausted, so every strategy stops at once and lets it pass; the strategy that runs others one after
// another (auto) catches it and hands over.
class StageEnded : public BudgetExhausted {
 public:
  const char* what() const noexcept override { return "stage of the tuning run ended"; }
};

enum class StopReason {
  strategy_finished,  // the strategy returned by itself
  space_exhausted,    // every configuration has been evaluated
  max_evaluations,    // max_evaluations or max_fraction reached
  time_limit,
  target_reached,
  stalled,  // a million requests in a row without a new evaluation (revisits, invalid configurations)
  interrupted,  // a stop was requested (Ctrl-C, SIGTERM: see interruption.hpp)
  strategy_failed,  // an isolated strategy crashed, hung or threw (StrategyFailed): what it evaluated is kept
};
const char* to_string(StopReason reason);  // "strategy finished", "space exhausted", ...

// Told of every new trace entry (progress lines, cache files written as results arrive).
class TuningListener {
 public:
  virtual ~TuningListener() = default;
  // Before configuration `index` is evaluated (not for revisits): what is in flight, for a live console.
  virtual void on_evaluation_start(const CostFunction& cost, std::size_t index) {
    (void)cost;
    (void)index;
  }
  virtual void on_evaluation(const CostFunction& cost, std::size_t position) = 0;
  // A configuration asked again, answered from memory (its result is at trace `position`): Kernel Tuner lists such
  // revisits among its results (the Python module does too).
  virtual void on_revisit(const CostFunction& cost, std::size_t position) {
    (void)cost;
    (void)position;
  }
};

struct CostFunctionOptions {
  Budget budget;
  // Add the strategy's measured own time to the tuning clock (Kernel Tuner does). Off by default in simulation so
  // that runs are exactly reproducible.
  bool charge_strategy_time = false;
  std::vector<TuningListener*> listeners;
  Scalarization scalarization;  // how several objectives make the scalar cost (default: lexicographic)
  // A constant liar for strategies that ask one configuration at a time, so that several devices have work: up to
  // this many configurations asked one at a time are pending at once. The strategy gets a lie for each new one (the
  // worst cost recorded so far, +inf before any) and goes on; its configuration is measured meanwhile (the evaluator
  // is told, Evaluator::prepare) and recorded, in asking order, when more than this many are pending, when the
  // strategy asks for it again, evaluates a batch or announces, or finishes. Lies depend only on what was recorded
  // at that point, never on timing: with the same measurements a seeded run takes the same path on any number of
  // devices. 0: none (every answer is a measurement).
  std::size_t pending_evaluations = 0;
  // Results added with add_resumed() count toward max_evaluations and max_fraction (Kernel Tuner counts cached
  // configurations; a rerun of a finished run measures nothing). False: the budget is for new evaluations only.
  bool resumed_count_toward_budget = true;
  // Learned failure avoidance (tuning/failure_model.hpp): a new configuration the run's failures predict to fail is
  // answered +inf without being measured, up to FailureModel::kDeferrals times; asked once more, it is measured.
  // Only without pending evaluations (a lie is already an estimate).
  bool avoid_failures = false;
  // With avoid_failures: the kernel's results elsewhere (transfer sources), whose failures the model believes once
  // some of them failed here too (FailureModel). Null: the run's own failures only.
  std::shared_ptr<const TransferPrior> failure_sources;
};

class CostFunction {
 public:
  // `space` and `evaluator` must outlive the cost function. Throws std::invalid_argument for an invalid budget.
  CostFunction(const SearchSpace& space, Evaluator& evaluator, CostFunctionOptions options);
  ~CostFunction();

  const SearchSpace& space() const { return space_; }
  const std::vector<Objective>& objectives() const { return trace_.objectives(); }

  // The scalar cost of configuration `index` (minimised): the objectives' costs scalarised (by default the first
  // objective, negated when higher is better); +inf when the configuration failed.
  double operator()(std::size_t index) {
    if (options_.pending_evaluations == 0) {
      if (failure_model_ && defer(index)) return std::numeric_limits<double>::infinity();
      return trace_.cost(position(index));
    }
    return speculate(index);
  }
  // Costs of a batch, evaluated in order (a parallel evaluator may run them together). If the budget ends within
  // the batch, the evaluated prefix is recorded and BudgetExhausted is thrown.
  void operator()(std::span<const std::size_t> indices, std::span<double> costs);
  // The configurations the strategy will ask for next, in order, when it asks one at a time (a swarm's particles):
  // a live evaluator compiles the new ones ahead while it measures. Only a hint: results are those without it.
  void announce(std::span<const std::size_t> indices);
  // Every objective of `index` as a cost (negated when higher is better, +inf when failed): for multi-objective
  // strategies. Valid until the next call.
  std::span<const double> costs(std::size_t index);

  // The cost of a configuration given by value indices, valid or not. A valid one is operator()(its index). An
  // invalid one is never evaluated: it costs kInvalidCost (the static penalty of constraint-unaware strategies, as
  // Kernel Tuner's), uses no budget and is counted in invalid_requests().
  double operator()(std::span<const std::uint32_t> config);
  static constexpr double kInvalidCost = std::numeric_limits<double>::max();
  std::uint64_t invalid_requests() const { return invalid_requests_; }
  // Configurations answered as failures without being measured (avoid_failures).
  std::uint64_t deferrals() const { return deferrals_; }
  // Whether `index` was answered as a predicted failure without a measurement and is still unmeasured: a strategy
  // with a model may set it aside rather than learn from an answer that is only a prediction.
  bool was_deferred(std::size_t index) const { return !known(index) && deferred_.contains(index); }
  // avoid_failures: the failure model's soft estimate that `index` fails (FailureModel::failure_probability), for a
  // strategy that weighs its choices by it; 0 without the option, and until the model has learned enough.
  double failure_probability(std::size_t index);
  bool learns_failures() const { return failure_model_ != nullptr; }

  // Whether `index` has a result already (a call for it would be free).
  bool known(std::size_t index) const { return memo_lookup(index) != npos; }
  // The position in the trace of a known configuration.
  std::optional<std::size_t> trace_position(std::size_t index) const;

  std::uint64_t evaluations() const { return evaluations_; }  // unique, excluding resumed entries
  // What the evaluation budget has used: evaluations(), plus the resumed entries where they count.
  std::uint64_t budget_used() const { return evaluations_ + counted_resumed_; }
  double clock_ms() const { return clock_ms_; }
  // How much of the budget is used, in [0, 1]: the largest of the evaluation and time fractions.
  double budget_spent_fraction() const;
  bool exhausted() const { return stop_.has_value(); }
  std::optional<StopReason> stop_reason() const { return stop_; }
  const Trace& trace() const { return trace_; }
  Trace take_trace() { return std::move(trace_); }
  Evaluator& evaluator() const { return evaluator_; }
  const CostFunctionOptions& options() const { return options_; }

  // Records every pending configuration (constant liar), in asking order. The tuning loop calls it when the strategy
  // returns. Throws BudgetExhausted as evaluations do.
  void settle();
  std::size_t pending() const { return pending_.size(); }

  // Seeds a result from an earlier run (a resumed cache): known, free, not counted, not charged.
  void add_resumed(std::size_t index, Status status, std::span<const double> values);

  // A stage: at most `new_evaluations` more new evaluations, then every request for a new configuration throws
  // StageEnded (revisits stay answered) until end_stage(). The run's budget still applies and ends a stage first
  // when it is smaller. For a strategy that hands the run over to another (auto).
  void begin_stage(std::uint64_t new_evaluations) { stage_end_ = evaluations_ + new_evaluations; }
  void end_stage() { stage_end_.reset(); }

 private:
  static constexpr std::uint32_t npos = 0xffffffffu;
  std::size_t position(std::size_t index);  // trace position of index, evaluating it if new
  double speculate(std::size_t index);      // operator()(index) with a constant liar
  bool defer(std::size_t index);            // avoid_failures: answer a predicted failure without measuring it
  std::size_t record_oldest_pending();      // measures and records it; returns its index
  std::size_t evaluate_new(std::size_t index);
  std::uint32_t memo_lookup(std::size_t index) const;
  void memo_store(std::size_t index, std::uint32_t position);
  void check_budget_after(std::size_t position);
  void check_time();
  void count_free_request();
  bool stage_over() const { return stage_end_ && evaluations_ >= *stage_end_; }

  const SearchSpace& space_;
  Evaluator& evaluator_;
  CostFunctionOptions options_;
  Trace trace_;
  std::uint64_t evaluation_limit_;
  std::uint64_t evaluations_ = 0;
  std::uint64_t counted_resumed_ = 0;
  std::uint64_t invalid_requests_ = 0;
  std::uint64_t free_requests_in_a_row_ = 0;  // revisits and invalid requests since the last new evaluation
  double clock_ms_ = 0;
  std::optional<StopReason> stop_;
  std::optional<std::uint64_t> stage_end_;  // evaluations() at which the current stage ends
  std::unique_ptr<FailureModel> failure_model_;  // avoid_failures
  std::unordered_map<std::uint64_t, unsigned> deferred_;  // times each was answered without a measurement
  std::uint64_t deferrals_ = 0;
  // Memo: dense for spaces up to 2^24 configurations, hashed above.
  std::vector<std::uint32_t> dense_memo_;
  std::unordered_map<std::uint64_t, std::uint32_t> sparse_memo_;
  std::vector<double> costs_buffer_;
  std::deque<std::size_t> pending_;            // asked one at a time and answered with a lie, not yet recorded
  std::unordered_set<std::size_t> announced_;  // the last announcement: answered with measurements
  double worst_recorded_ = std::numeric_limits<double>::infinity();  // the constant liar's estimate
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_, last_return_;
};

}  // namespace ktune
