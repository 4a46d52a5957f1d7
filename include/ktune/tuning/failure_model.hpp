#pragma once
// Learned failure avoidance (docs/live-tuning.md, "Failures the run learns to avoid"): which configurations are likely
// to fail, from the failures the run has seen. Hidden constraints (registers, shared memory, a driver's limit) fail
// whole regions of a space, and strategies walk into them again and again; each costs a compile and a launch.
//
// Three views, from the run's own evaluations once it has seen kMinFailures failures:
//  - by value: naive Bayes over the parameters' values (how often each value was in a failed and in a successful
//    configuration, Laplace-smoothed): odds above kFailureOdds (p > 0.8). It learns "large block sizes fail" from a
//    few failures anywhere in the space;
//  - by place: of the kNearest evaluated configurations in the space's continuous view (each parameter's value index
//    scaled to [0, 1], L1 distance), at least kNearestFailed failed. It learns a failing region's edge;
//  - by boundary: a logistic regression over the parameters, lightly L2-regularised. Its features per parameter: the
//    log of the value where all are positive numbers (resource limits are products of parameters: threads x tile x
//    bytes <= a limit, a half-space in log-values), and the value's index (limits that grow with a value's position
//    in its list, and every parameter that is not a positive number); each scaled to [0, 1], the index left out
//    where it equals the log (powers of two). A failing region is often a half-space in these, which the other two
//    views only approximate near its edge, where a search that is doing well spends its evaluations. Believed while
//    the fit separates what the run has seen (of the evaluations it gives a failure probability above
//    kBoundaryProbabilities[0], at least kBoundaryMinSupport, and at most one in kBoundaryPrecision ran). It predicts
//    a failure above that probability at first, and above the next lower one of the list only once evaluations whose
//    probability lay between the two (asked while it was believed, so measured anyway) failed as it would have
//    predicted, by the same two counts: a clean edge is believed up to its estimate, a blurred one (a staircase of
//    limits, noise) only well beyond it.
// A failure is predicted by the boundary, or by the value and place views together: where one of those two alone
// predicted it, more of the configurations deferred ran than failed (bench/failures, twelve failing spaces), and a
// wrongly deferred configuration is often one of the best (they border the failures).
// A fourth view comes from sources given for transfer (the same kernel measured on other devices or sizes): a
// configuration that a trusted source saw fail, and that no more trusted sources ran than saw it fail, is predicted
// to fail from the run's first evaluation, before the run has seen any failure itself. A source earns trust on this
// device: at least kSourceConfirmations of the configurations it saw fail must have failed here too, and at most
// one in three of those measured here may have run (a source of another device generation, whose failures differ,
// costs those few measurements and is then ignored).
// The cost function defers a predicted failure (answers "failed" without measuring it) up to kDeferrals times, and
// measures it when the strategy asks once more: a wrong prediction costs a detour, never a configuration.
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

#include "ktune/search_space.hpp"
#include "ktune/tuning/trace.hpp"
#include "ktune/tuning/transfer_prior.hpp"

namespace ktune {

class FailureModel {
 public:
  static constexpr std::size_t kMinFailures = 5;
  static constexpr std::size_t kFitFailures = 3;  // the boundary is fitted from this many failures and successes
  static constexpr double kFailureOdds = 4.0;
  static constexpr std::size_t kNearest = 5;
  static constexpr std::size_t kNearestFailed = 4;
  static constexpr unsigned kDeferrals = 3;
  static constexpr std::uint32_t kSourceConfirmations = 2;
  static constexpr double kBoundaryProbabilities[] = {0.9, 0.7, 0.5};
  static constexpr double kBoundaryRidge = 0.01;  // the L2 penalty's weight (features in [0, 1])
  static constexpr std::size_t kBoundaryMinSupport = 3;
  static constexpr std::size_t kBoundaryPrecision = 20;
  // failure_probability() is given only while the fit explains the failures better than their rate alone: its
  // deviance against the rate must pass the chi-square test at this one-sided normal quantile (95%; 99% delayed the
  // weighing on clean edges by a dozen evaluations and cost bayes_opt 0.04 on RTX Titan pnpoly).
  static constexpr double kEvidenceZ = 1.645;

  // `sources` (may be null): what the same kernel recorded elsewhere.
  explicit FailureModel(const SearchSpace& space, std::shared_ptr<const TransferPrior> sources = nullptr);
  // Takes in the trace's entries it has not seen (measured and resumed alike).
  void update(const Trace& trace);
  // Whether configuration `index` is predicted to fail (after update()).
  bool predicts_failure(std::size_t index) const;
  // The boundary's probability that configuration `index` fails (after update()), believed or not: 0 until it has
  // been fitted (kFitFailures failures and as many successes), and 0 while the fit is no evidence of a failing region
  // (informative()). A soft estimate, for a strategy that weighs its choices by it (bayes_opt's acquisition);
  // predicts_failure() is the cautious yes/no that defers.
  double failure_probability(std::size_t index) const;
  // Whether the last fit explains the failures seen better than their rate alone, beyond chance: twice the gain in
  // log-likelihood over the constant model exceeds the chi-square quantile (kEvidenceZ) for as many degrees of freedom
  // as the fit has features. Sporadic failures (a flaky launch, a driver hiccup) have no region; a fit to them
  // weighs candidates at random, and cost bayes_opt and auto 0.02-0.04 of score where 3-10% of the configurations
  // failed at random (bench/failures, docs/live-tuning.md).
  bool informative() const { return informative_; }
  std::size_t failures() const { return failures_; }
  // Whether source s's failures are believed on this device (after update()).
  bool trusts_source(std::size_t s) const;
  // Whether the boundary view is believed now (after update()).
  bool trusts_boundary() const { return boundary_trusted_; }
  // The probability above which the boundary predicts a failure now: kBoundaryProbabilities[0] at first, lower ones
  // once evaluations scored between them (asked while it was believed) failed as it would have predicted.
  double boundary_probability() const { return boundary_probability_; }

 private:
  bool failing_values(std::size_t index) const;
  bool failing_place(std::size_t index) const;
  bool failing_elsewhere(std::size_t index) const;
  bool failing_boundary(std::size_t index) const;
  double boundary_score(const float* features) const;  // w . x + bias
  double score_of(std::size_t index) const;            // boundary_score of configuration `index`
  float feature(std::size_t index, std::size_t c) const;  // the boundary's feature c of configuration `index`
  void fit_boundary();
  // The boundary's logistic loss over the evaluations seen, unpenalised (the fit adds its ridge).
  double negative_log_likelihood(const std::vector<double>& weights) const;
  bool explains_failures(const std::vector<double>& weights) const;  // informative(), for these weights

  const SearchSpace& space_;
  std::vector<std::size_t> offset_;  // where parameter p's values start in the two count arrays
  std::vector<std::uint32_t> failed_with_, ok_with_;  // per (parameter, value): configurations that failed / ran
  std::vector<float> scale_;         // per parameter: 1 / (values - 1), 0 for a single value
  std::vector<float> points_;        // evaluated configurations, num_params() coordinates each
  std::vector<std::uint8_t> failed_;
  // The boundary view's features: column c is a function of parameter column_param_[c]'s value, tabulated from
  // feature_[column_offset_[c]] by value index.
  std::vector<std::size_t> column_param_, column_offset_;
  std::vector<float> feature_;
  std::vector<float> features_;      // evaluated configurations' features, one per column each
  std::vector<double> weights_;      // the boundary's weights, one per column, then the bias
  std::size_t fitted_ = 0;           // evaluations the boundary was last fitted on
  bool boundary_trusted_ = false;
  bool informative_ = false;
  double boundary_probability_ = kBoundaryProbabilities[0];
  double boundary_logit_ = 0;        // the score above which it predicts a failure: logit(boundary_probability_)
  // Per band j (scores between kBoundaryProbabilities[j] and [j - 1]): evaluations asked while the boundary was
  // believed whose score lay there, and that failed / ran.
  std::array<std::uint32_t, std::size(kBoundaryProbabilities)> band_failed_{}, band_ran_{};
  std::size_t failures_ = 0, seen_ = 0;
  std::shared_ptr<const TransferPrior> sources_;
  // Per source: configurations it saw fail that failed here too / that ran here.
  std::vector<std::uint32_t> confirmed_, contradicted_;
};

}  // namespace ktune
