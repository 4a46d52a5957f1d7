#include "ktune/tuning/cost_function.hpp"

#include <algorithm>
#include <unordered_set>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ktune/search_space.hpp"
#include "ktune/tuning/failure_model.hpp"

namespace ktune {
namespace {

constexpr std::size_t kDenseMemoLimit = std::size_t{1} << 24;

double to_ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The constant liar's estimate follows what is recorded: the worst finite cost so far.
void note_recorded_cost(const Trace& trace, std::size_t position, double& worst) {
  if (const double c = trace.cost(position); std::isfinite(c) && (std::isinf(worst) || c > worst)) worst = c;
}

}  // namespace

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::strategy_finished: return "strategy finished";
    case StopReason::space_exhausted: return "space exhausted";
    case StopReason::max_evaluations: return "max evaluations";
    case StopReason::time_limit: return "time limit";
    case StopReason::target_reached: return "target reached";
    case StopReason::stalled: return "stalled";
    case StopReason::interrupted: return "interrupted";
    case StopReason::strategy_failed: return "strategy failed";
  }
  return "?";
}

CostFunction::CostFunction(const SearchSpace& space, Evaluator& evaluator, CostFunctionOptions options)
    : space_(space),
      evaluator_(evaluator),
      options_(std::move(options)),
      trace_(evaluator.objectives(), options_.scalarization) {
  options_.budget.validate();
  if (evaluator_.objectives().empty()) throw std::invalid_argument("the evaluator has no objective");
  evaluation_limit_ = options_.budget.evaluation_limit(space_.size());
  if (space_.size() <= kDenseMemoLimit) dense_memo_.assign(space_.size(), npos);
  trace_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(evaluation_limit_, 1u << 20)));
  if (space_.size() == 0) stop_ = StopReason::space_exhausted;
  if (options_.avoid_failures && options_.pending_evaluations == 0)
    failure_model_ = std::make_unique<FailureModel>(space_, options_.failure_sources);
  start_ = last_return_ = Clock::now();
}

CostFunction::~CostFunction() = default;

std::uint32_t CostFunction::memo_lookup(std::size_t index) const {
  if (!dense_memo_.empty()) return dense_memo_[index];
  const auto it = sparse_memo_.find(static_cast<std::uint64_t>(index));
  return it == sparse_memo_.end() ? npos : it->second;
}

void CostFunction::memo_store(std::size_t index, std::uint32_t position) {
  if (!dense_memo_.empty()) {
    dense_memo_[index] = position;
  } else {
    sparse_memo_[static_cast<std::uint64_t>(index)] = position;
  }
}

std::optional<std::size_t> CostFunction::trace_position(std::size_t index) const {
  const auto p = memo_lookup(index);
  if (p == npos) return std::nullopt;
  return p;
}

std::size_t CostFunction::position(std::size_t index) {
  if (stop_) throw BudgetExhausted();
  if (index >= space_.size()) throw std::out_of_range("configuration index out of range");
  const std::uint32_t known = memo_lookup(index);
  if (known != npos) {
    count_free_request();
    for (TuningListener* listener : options_.listeners) listener->on_revisit(*this, known);
    return known;
  }
  return evaluate_new(index);
}

void CostFunction::count_free_request() {
  // A strategy that only revisits or proposes invalid configurations would never end without this.
  constexpr std::uint64_t kStallLimit = 1'000'000;
  if (++free_requests_in_a_row_ >= kStallLimit) {
    stop_ = StopReason::stalled;
    throw BudgetExhausted();
  }
  // A strategy busy with free requests must still hear a stop request, without an atomic load per request.
  if (free_requests_in_a_row_ % 4096 == 0 && stop_requested()) {
    stop_ = StopReason::interrupted;
    throw BudgetExhausted();
  }
}

double CostFunction::operator()(std::span<const std::uint32_t> config) {
  if (stop_) throw BudgetExhausted();
  if (const auto index = space_.index_of(config)) return (*this)(*index);
  ++invalid_requests_;
  count_free_request();
  return kInvalidCost;
}

double CostFunction::failure_probability(std::size_t index) {
  if (!failure_model_) return 0.0;
  failure_model_->update(trace_);
  return failure_model_->failure_probability(index);
}

bool CostFunction::defer(std::size_t index) {
  if (stop_) throw BudgetExhausted();
  if (index >= space_.size() || known(index)) return false;
  failure_model_->update(trace_);
  if (!failure_model_->predicts_failure(index)) return false;
  // Asked once more than it was deferred: measured.
  if (++deferred_[static_cast<std::uint64_t>(index)] > FailureModel::kDeferrals) return false;
  ++deferrals_;
  count_free_request();
  return true;
}

std::size_t CostFunction::evaluate_new(std::size_t index) {
  if (stage_over()) throw StageEnded();
  if (stop_requested()) {
    stop_ = StopReason::interrupted;
    throw BudgetExhausted();
  }
  const auto asked = Clock::now();
  const double strategy_ms = to_ms(asked - last_return_);
  const bool simulated = evaluator_.simulated();
  if (!simulated) {
    // Live, the clock is the wall clock: time passes in the strategy too, so check before starting a measurement.
    clock_ms_ = to_ms(asked - start_);
    check_time();
    if (stop_) throw BudgetExhausted();
  }
  for (TuningListener* listener : options_.listeners) listener->on_evaluation_start(*this, index);
  EvaluationOutcome outcome;
  try {
    outcome = evaluator_.evaluate(index);
  } catch (const Interrupted&) {
    // The evaluation was abandoned: no result for it (a resumed run measures it again).
    stop_ = StopReason::interrupted;
    throw BudgetExhausted();
  }
  double charged = outcome.charged_ms;
  if (options_.charge_strategy_time) charged += strategy_ms;
  clock_ms_ = simulated ? clock_ms_ + charged : to_ms(Clock::now() - start_);
  ++evaluations_;
  free_requests_in_a_row_ = 0;
  const std::size_t position =
      trace_.append(TraceEntry{static_cast<std::uint64_t>(index), outcome.status, false, charged, clock_ms_, strategy_ms},
                    outcome.objectives);
  memo_store(index, static_cast<std::uint32_t>(position));
  note_recorded_cost(trace_, position, worst_recorded_);
  check_budget_after(position);
  for (TuningListener* listener : options_.listeners) listener->on_evaluation(*this, position);
  last_return_ = Clock::now();
  return position;
}

void CostFunction::check_time() {
  if (options_.budget.time_limit_seconds && clock_ms_ >= *options_.budget.time_limit_seconds * 1000.0)
    stop_ = StopReason::time_limit;
}

void CostFunction::check_budget_after(std::size_t position) {
  if (options_.budget.target && trace_.best() == position &&
      trace_.cost(position) <= objective_cost(trace_.objectives().front(), *options_.budget.target)) {
    stop_ = StopReason::target_reached;
    return;
  }
  if (budget_used() >= evaluation_limit_) {
    stop_ = trace_.size() >= space_.size() ? StopReason::space_exhausted : StopReason::max_evaluations;
    return;
  }
  check_time();
  if (!stop_ && trace_.size() >= space_.size()) stop_ = StopReason::space_exhausted;
}

double CostFunction::speculate(std::size_t index) {
  if (stop_) throw BudgetExhausted();
  if (index >= space_.size()) throw std::out_of_range("configuration index out of range");
  const bool pending = std::find(pending_.begin(), pending_.end(), index) != pending_.end();
  if (known(index) || pending || announced_.contains(index)) {
    // Asked again, or part of an announcement: a measurement, after what was asked before it.
    if (pending) {
      while (record_oldest_pending() != index) {
      }
    } else if (!known(index)) {
      settle();
    }
    return trace_.cost(position(index));
  }
  if (budget_used() + pending_.size() >= evaluation_limit_) {
    // No room for another pending one: what is pending uses the rest of the budget.
    settle();
    return trace_.cost(position(index));
  }
  pending_.push_back(index);
  const std::vector<std::size_t> upcoming(pending_.begin(), pending_.end());
  evaluator_.prepare(upcoming);
  while (pending_.size() > options_.pending_evaluations) record_oldest_pending();
  // The worst finite cost recorded so far (+inf before any): a pessimistic estimate, so that the strategy does not
  // move to a configuration it knows nothing about and goes on around what it knows. (The best cost so far, CL-min,
  // makes local searches accept every pending configuration as an improvement: a random walk.)
  return worst_recorded_;
}

std::size_t CostFunction::record_oldest_pending() {
  // At the end of a stage what is pending stays pending (measured when the next strategy settles), not dropped.
  if (stage_over()) throw StageEnded();
  const std::size_t oldest = pending_.front();
  pending_.pop_front();
  evaluate_new(oldest);
  return oldest;
}

void CostFunction::settle() {
  while (!pending_.empty()) record_oldest_pending();
}

void CostFunction::operator()(std::span<const std::size_t> indices, std::span<double> costs) {
  if (costs.size() < indices.size()) throw std::invalid_argument("cost batch: fewer outputs than configurations");
  settle();
  announce(indices);
  for (std::size_t i = 0; i < indices.size(); ++i) costs[i] = (*this)(indices[i]);
}

// The new configurations, as many as the evaluation budget still allows, go to the evaluator as a hint.
void CostFunction::announce(std::span<const std::size_t> indices) {
  if (options_.pending_evaluations > 0) {
    settle();
    announced_.clear();
    announced_.insert(indices.begin(), indices.end());
  }
  if (indices.size() < 2 || stop_ || !evaluator_.wants_prepare()) return;
  std::vector<std::size_t> upcoming;
  std::unordered_set<std::size_t> seen;
  const std::uint64_t room = evaluation_limit_ > budget_used() ? evaluation_limit_ - budget_used() : 0;
  for (std::size_t index : indices) {
    if (upcoming.size() >= room) break;
    if (index < space_.size() && !known(index) && seen.insert(index).second) upcoming.push_back(index);
  }
  if (upcoming.size() > 1) evaluator_.prepare(upcoming);
}

std::span<const double> CostFunction::costs(std::size_t index) {
  settle();  // several objectives: no lies
  const std::size_t p = position(index);
  const auto values = trace_.values(p);
  const auto& objectives = trace_.objectives();
  costs_buffer_.resize(values.size());
  for (std::size_t j = 0; j < values.size(); ++j)
    costs_buffer_[j] = trace_[p].status == Status::ok ? objective_cost(objectives[j], values[j])
                                                      : std::numeric_limits<double>::infinity();
  return costs_buffer_;
}

double CostFunction::budget_spent_fraction() const {
  if (stop_) return 1.0;
  double fraction =
      evaluation_limit_ == 0 ? 1.0 : static_cast<double>(budget_used()) / static_cast<double>(evaluation_limit_);
  if (options_.budget.time_limit_seconds) {
    const double clock = evaluator_.simulated() ? clock_ms_ : to_ms(Clock::now() - start_);
    fraction = std::max(fraction, clock / (*options_.budget.time_limit_seconds * 1000.0));
  }
  return std::min(fraction, 1.0);
}

void CostFunction::add_resumed(std::size_t index, Status status, std::span<const double> values) {
  if (index >= space_.size()) throw std::out_of_range("configuration index out of range");
  if (memo_lookup(index) != npos) return;
  const std::size_t position =
      trace_.append(TraceEntry{static_cast<std::uint64_t>(index), status, true, 0.0, clock_ms_, 0.0}, values);
  memo_store(index, static_cast<std::uint32_t>(position));
  note_recorded_cost(trace_, position, worst_recorded_);
  if (options_.resumed_count_toward_budget) ++counted_resumed_;
  if (trace_.size() >= space_.size()) {
    stop_ = StopReason::space_exhausted;
  } else if (budget_used() >= evaluation_limit_) {
    stop_ = StopReason::max_evaluations;
  }
}

}  // namespace ktune
