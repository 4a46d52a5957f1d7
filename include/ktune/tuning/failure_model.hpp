#pragma once
// Learned failure avoidance (docs/live-tuning.md, "Failures the run learns to avoid"): which configurations are likely
// to fail, from the failures the run has seen. Hidden constraints (registers, shared memory, a driver's limit) fail
// whole regions of a space, and strategies walk into them again and again; each costs a compile and a launch.
//
// Two views, either of which predicts a failure once the run has seen kMinFailures of them:
//  - by value: naive Bayes over the parameters' values (how often each value was in a failed and in a successful
//    configuration, Laplace-smoothed), predicting a failure at odds above kFailureOdds (p > 0.8). It learns "large
//    block sizes fail" from a few failures anywhere in the space;
//  - by place: of the kNearest evaluated configurations in the space's continuous view (each parameter's value index
//    scaled to [0, 1], L1 distance), at least kNearestFailed failed. It learns a failing region's edge.
// A third view comes from sources given for transfer (the same kernel measured on other devices or sizes): a
// configuration that a trusted source saw fail, and that no more trusted sources ran than saw it fail, is predicted
// to fail from the run's first evaluation, before the run has seen any failure itself. A source earns trust on this
// device: at least kSourceConfirmations of the configurations it saw fail must have failed here too, and at most
// one in three of those measured here may have run (a source of another device generation, whose failures differ,
// costs those few measurements and is then ignored).
// The cost function defers a predicted failure (answers "failed" without measuring it) up to kDeferrals times, and
// measures it when the strategy asks once more: a wrong prediction costs a detour, never a configuration.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ktune/search_space.hpp"
#include "ktune/tuning/trace.hpp"
#include "ktune/tuning/transfer_prior.hpp"

namespace ktune {

class FailureModel {
 public:
  static constexpr std::size_t kMinFailures = 5;
  static constexpr double kFailureOdds = 4.0;
  static constexpr std::size_t kNearest = 5;
  static constexpr std::size_t kNearestFailed = 4;
  static constexpr unsigned kDeferrals = 3;
  static constexpr std::uint32_t kSourceConfirmations = 2;

  // `sources` (may be null): what the same kernel recorded elsewhere.
  explicit FailureModel(const SearchSpace& space, std::shared_ptr<const TransferPrior> sources = nullptr);
  // Takes in the trace's entries it has not seen (measured and resumed alike).
  void update(const Trace& trace);
  // Whether configuration `index` is predicted to fail (after update()).
  bool predicts_failure(std::size_t index) const;
  std::size_t failures() const { return failures_; }
  // Whether source s's failures are believed on this device (after update()).
  bool trusts_source(std::size_t s) const;

 private:
  bool failing_values(std::size_t index) const;
  bool failing_place(std::size_t index) const;
  bool failing_elsewhere(std::size_t index) const;

  const SearchSpace& space_;
  std::vector<std::size_t> offset_;  // where parameter p's values start in the two count arrays
  std::vector<std::uint32_t> failed_with_, ok_with_;  // per (parameter, value): configurations that failed / ran
  std::vector<float> scale_;         // per parameter: 1 / (values - 1), 0 for a single value
  std::vector<float> points_;        // evaluated configurations, num_params() coordinates each
  std::vector<std::uint8_t> failed_;
  std::size_t failures_ = 0, seen_ = 0;
  std::shared_ptr<const TransferPrior> sources_;
  // Per source: configurations it saw fail that failed here too / that ran here.
  std::vector<std::uint32_t> confirmed_, contradicted_;
};

}  // namespace ktune
