#include "ktune/tuning/failure_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace ktune {

FailureModel::FailureModel(const SearchSpace& space, std::shared_ptr<const TransferPrior> sources)
    : space_(space), sources_(std::move(sources)) {
  if (sources_ && sources_->space_size() != space.size())
    throw std::invalid_argument("FailureModel: the transfer sources describe another search space");
  const std::size_t n_sources = sources_ ? sources_->sources() : 0;
  confirmed_.assign(n_sources, 0);
  contradicted_.assign(n_sources, 0);
  std::size_t total = 0;
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    const std::size_t values = space.param_values(p).size();
    offset_.push_back(total);
    total += values;
    scale_.push_back(values > 1 ? 1.0f / static_cast<float>(values - 1) : 0.0f);
  }
  failed_with_.assign(total, 0);
  ok_with_.assign(total, 0);
}

void FailureModel::update(const Trace& trace) {
  const std::size_t d = scale_.size();
  for (; seen_ < trace.size(); ++seen_) {
    const std::size_t index = trace[seen_].index;
    const bool failed = trace[seen_].status != Status::ok;
    for (std::size_t p = 0; p < d; ++p) {
      const std::uint32_t v = space_.value_index(index, p);
      points_.push_back(static_cast<float>(v) * scale_[p]);
      ++(failed ? failed_with_ : ok_with_)[offset_[p] + v];
    }
    failed_.push_back(failed);
    failures_ += failed;
    for (std::size_t s = 0; s < confirmed_.size(); ++s)
      if (sources_->record(s, index) == SourceRecord::failed) ++(failed ? confirmed_ : contradicted_)[s];
  }
}

bool FailureModel::trusts_source(std::size_t s) const {
  return confirmed_[s] >= kSourceConfirmations && 2 * contradicted_[s] <= confirmed_[s];
}

bool FailureModel::predicts_failure(std::size_t index) const {
  if (failing_elsewhere(index)) return true;
  if (failures_ < kMinFailures || failed_.size() < kNearest) return false;
  return failing_values(index) || failing_place(index);
}

bool FailureModel::failing_elsewhere(std::size_t index) const {
  int votes = 0;  // trusted sources that saw it fail, less those that ran it
  for (std::size_t s = 0; s < confirmed_.size(); ++s) {
    if (!trusts_source(s)) continue;
    const SourceRecord r = sources_->record(s, index);
    votes += r == SourceRecord::failed ? 1 : r == SourceRecord::ran ? -1 : 0;
  }
  return votes > 0;
}

bool FailureModel::failing_values(std::size_t index) const {
  const double failed = static_cast<double>(failures_), ran = static_cast<double>(failed_.size() - failures_);
  double log_odds = std::log((failed + 1) / (ran + 1));
  for (std::size_t p = 0; p < scale_.size(); ++p) {
    const double values = static_cast<double>(space_.param_values(p).size());
    const std::size_t slot = offset_[p] + space_.value_index(index, p);
    log_odds += std::log((failed_with_[slot] + 1.0) / (failed + values)) -
                std::log((ok_with_[slot] + 1.0) / (ran + values));
  }
  return log_odds > std::log(kFailureOdds);
}

bool FailureModel::failing_place(std::size_t index) const {
  const std::size_t n = failed_.size(), d = scale_.size();
  std::vector<float> q(d);
  for (std::size_t p = 0; p < d; ++p) q[p] = static_cast<float>(space_.value_index(index, p)) * scale_[p];
  // The kNearest smallest distances and whether each failed, kept sorted (insertion: kNearest is tiny); ties keep
  // the earlier evaluation.
  std::array<float, kNearest> best;
  std::array<std::uint8_t, kNearest> best_failed{};
  best.fill(std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < n; ++i) {
    const float* x = &points_[i * d];
    float dist = 0;
    for (std::size_t p = 0; p < d && dist < best[kNearest - 1]; ++p) dist += std::abs(x[p] - q[p]);
    if (dist >= best[kNearest - 1]) continue;
    std::size_t k = kNearest - 1;
    while (k > 0 && best[k - 1] > dist) {
      best[k] = best[k - 1];
      best_failed[k] = best_failed[k - 1];
      --k;
    }
    best[k] = dist;
    best_failed[k] = failed_[i];
  }
  return static_cast<std::size_t>(std::count(best_failed.begin(), best_failed.end(), std::uint8_t{1})) >=
         kNearestFailed;
}

}  // namespace ktune
