#include "ktune/tuning/failure_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace ktune {
namespace {

double logit(double probability) { return std::log(probability / (1 - probability)); }

// The boundary's score of a configuration whose feature c is x(c): weights . x + the bias (the last weight), in one
// order wherever the features come from.
template <class Features>
double linear_score(const std::vector<double>& weights, const Features& x) {
  const std::size_t d = weights.size() - 1;
  double s = weights[d];
  for (std::size_t c = 0; c < d; ++c) s += weights[c] * x(c);
  return s;
}

}  // namespace

FailureModel::FailureModel(const SearchSpace& space, std::shared_ptr<const TransferPrior> sources)
    : space_(space), sources_(std::move(sources)) {
  if (sources_ && sources_->space_size() != space.size())
    throw std::invalid_argument("FailureModel: the transfer sources describe another search space");
  const std::size_t n_sources = sources_ ? sources_->sources() : 0;
  confirmed_.assign(n_sources, 0);
  contradicted_.assign(n_sources, 0);
  std::size_t total = 0;
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    const auto& values = space.param_values(p);
    offset_.push_back(total);
    total += values.size();
    const float scale = values.size() > 1 ? 1.0f / static_cast<float>(values.size() - 1) : 0.0f;
    scale_.push_back(scale);
    // The boundary view's features (docs/live-tuning.md): the log of the value where all are positive numbers
    // (limits are products: threads x tile x bytes), and the value's index as in the continuous view (limits that
    // grow with a value's position in its list, and every parameter that is not a positive number); both scaled to
    // [0, 1], the index left out where it equals the log (powers of two), a parameter of one value left out.
    if (values.size() < 2) continue;
    const bool positive = std::all_of(values.begin(), values.end(), [](const Value& v) {
      return v.is_numeric() && !v.is_bool() && v.to_double() > 0 && std::isfinite(v.to_double());
    });
    std::vector<float> log_column, index_column;
    for (std::size_t j = 0; j < values.size(); ++j) index_column.push_back(static_cast<float>(j) * scale);
    if (positive) {
      double low = std::numeric_limits<double>::infinity(), high = -low;
      for (const Value& v : values) {
        low = std::min(low, std::log(v.to_double()));
        high = std::max(high, std::log(v.to_double()));
      }
      for (const Value& v : values)
        log_column.push_back(high > low ? static_cast<float>((std::log(v.to_double()) - low) / (high - low)) : 0.0f);
    }
    bool same = positive;
    for (std::size_t j = 0; same && j < values.size(); ++j) same = std::abs(log_column[j] - index_column[j]) < 1e-3f;
    for (const std::vector<float>* column : {&log_column, &index_column}) {
      if (column->empty() || (same && column == &index_column)) continue;
      column_param_.push_back(p);
      column_offset_.push_back(feature_.size());
      feature_.insert(feature_.end(), column->begin(), column->end());
    }
  }
  failed_with_.assign(total, 0);
  ok_with_.assign(total, 0);
  weights_.assign(column_param_.size() + 1, 0.0);
}

void FailureModel::update(const Trace& trace) {
  const std::size_t d = scale_.size(), columns = column_param_.size();
  const std::size_t before = seen_;
  for (; seen_ < trace.size(); ++seen_) {
    const std::size_t index = trace[seen_].index;
    const bool failed = trace[seen_].status != Status::ok;
    for (std::size_t p = 0; p < d; ++p) {
      const std::uint32_t v = space_.value_index(index, p);
      points_.push_back(static_cast<float>(v) * scale_[p]);
      ++(failed ? failed_with_ : ok_with_)[offset_[p] + v];
    }
    for (std::size_t c = 0; c < columns; ++c) features_.push_back(feature(index, c));
    if (boundary_trusted_) {  // scored by the boundary it was asked under: evidence for the bands below the threshold
      const double score = boundary_score(&features_[features_.size() - columns]);
      for (std::size_t j = 1; j < std::size(kBoundaryProbabilities); ++j)
        if (score > logit(kBoundaryProbabilities[j]) && score <= logit(kBoundaryProbabilities[j - 1]))
          ++(failed ? band_failed_ : band_ran_)[j];
    }
    failed_.push_back(failed);
    failures_ += failed;
    for (std::size_t s = 0; s < confirmed_.size(); ++s)
      if (sources_->record(s, index) == SourceRecord::failed) ++(failed ? confirmed_ : contradicted_)[s];
  }
  // Fitted from kFitFailures failures and successes on (its probability weighs bayes_opt's choices; it is believed
  // only from kMinFailures of each on, as before); refit with every new evaluation while there are few, then every
  // 2% more (the fit costs O(n d^2)).
  const std::size_t n = failed_.size();
  if (n > before && failures_ >= kFitFailures && n - failures_ >= kFitFailures &&
      (n < 250 || n - fitted_ >= n / 50)) {
    fit_boundary();
    fitted_ = n;
  }
}

// L2-regularised logistic regression by Newton's method, warm-started from the last fit; plain loops in a fixed order,
// so the same evaluations give the same weights on every platform.
void FailureModel::fit_boundary() {
  const std::size_t d = column_param_.size(), m = d + 1, n = failed_.size();
  std::vector<double>& w = weights_;
  const auto ridge = [d](std::size_t k) { return k < d ? kBoundaryRidge : 1e-6; };  // the bias almost unpenalised
  const auto score = [&](const std::vector<double>& weights, std::size_t i) {
    return linear_score(weights, [x = &features_[i * d]](std::size_t c) { return x[c]; });
  };
  const auto loss = [&](const std::vector<double>& weights) {
    double total = negative_log_likelihood(weights);
    for (std::size_t k = 0; k < m; ++k) total += 0.5 * ridge(k) * weights[k] * weights[k];
    return total;
  };
  std::vector<double> gradient(m), hessian(m * m), step(m), trial(m);
  double current = loss(w);
  for (int iteration = 0; iteration < 50; ++iteration) {
    std::fill(gradient.begin(), gradient.end(), 0.0);
    std::fill(hessian.begin(), hessian.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const double probability = 1.0 / (1.0 + std::exp(-score(w, i)));
      const double residual = probability - (failed_[i] ? 1.0 : 0.0), curvature = probability * (1.0 - probability);
      for (std::size_t k = 0; k < m; ++k) {
        const double xk = k < d ? features_[i * d + k] : 1.0;
        gradient[k] += residual * xk;
        for (std::size_t l = 0; l <= k; ++l)
          hessian[k * m + l] += curvature * xk * (l < d ? features_[i * d + l] : 1.0);
      }
    }
    for (std::size_t k = 0; k < m; ++k) {
      gradient[k] += ridge(k) * w[k];
      hessian[k * m + k] += ridge(k);
    }
    // Cholesky of the lower triangle in place, then the two triangular solves: the Newton step.
    for (std::size_t k = 0; k < m; ++k) {
      for (std::size_t l = 0; l <= k; ++l) {
        double sum = hessian[k * m + l];
        for (std::size_t j = 0; j < l; ++j) sum -= hessian[k * m + j] * hessian[l * m + j];
        hessian[k * m + l] = l == k ? std::sqrt(std::max(sum, 1e-12)) : sum / hessian[l * m + l];
      }
    }
    for (std::size_t k = 0; k < m; ++k) {
      double sum = gradient[k];
      for (std::size_t j = 0; j < k; ++j) sum -= hessian[k * m + j] * step[j];
      step[k] = sum / hessian[k * m + k];
    }
    for (std::size_t k = m; k-- > 0;) {
      double sum = step[k];
      for (std::size_t j = k + 1; j < m; ++j) sum -= hessian[j * m + k] * step[j];
      step[k] = sum / hessian[k * m + k];
    }
    // Halved until the loss falls (nearly separable evaluations make full steps overshoot).
    double t = 1.0, next = current;
    for (int halving = 0; halving < 30; ++halving, t *= 0.5) {
      for (std::size_t k = 0; k < m; ++k) trial[k] = w[k] - t * step[k];
      next = loss(trial);
      if (next <= current) break;
    }
    if (!(next <= current)) break;  // no descent left (or NaN)
    w = trial;
    const bool converged = current - next <= 1e-10 * (1.0 + std::abs(current));
    current = next;
    if (converged) break;
  }
  // Believed only where the evaluations it calls failures did fail.
  boundary_trusted_ = false;
  informative_ = false;
  if (!std::all_of(w.begin(), w.end(), [](double v) { return std::isfinite(v); })) {
    std::fill(w.begin(), w.end(), 0.0);  // diverged: start afresh next time, believe nothing now
    return;
  }
  informative_ = explains_failures(w);
  std::size_t above = 0, ran_above = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (boundary_score(&features_[i * d]) > logit(kBoundaryProbabilities[0])) {
      ++above;
      ran_above += !failed_[i];
    }
  boundary_trusted_ = failures_ >= kMinFailures && n - failures_ >= kMinFailures && above >= kBoundaryMinSupport &&
                      ran_above * kBoundaryPrecision <= above;
  // Closer to the estimated edge only as far as what was measured there, asked under this boundary, failed.
  std::size_t level = 0;
  while (level + 1 < std::size(kBoundaryProbabilities) && band_failed_[level + 1] >= kBoundaryMinSupport &&
         band_ran_[level + 1] * kBoundaryPrecision <= band_failed_[level + 1] + band_ran_[level + 1])
    ++level;
  boundary_probability_ = kBoundaryProbabilities[level];
  boundary_logit_ = logit(boundary_probability_);
}

double FailureModel::negative_log_likelihood(const std::vector<double>& weights) const {
  const std::size_t d = column_param_.size();
  double total = 0;
  for (std::size_t i = 0; i < failed_.size(); ++i) {
    const double s = linear_score(weights, [x = &features_[i * d]](std::size_t c) { return x[c]; });
    total += (s > 0 ? s + std::log1p(std::exp(-s)) : std::log1p(std::exp(s))) - (failed_[i] ? s : 0.0);
  }
  return total;
}

bool FailureModel::explains_failures(const std::vector<double>& w) const {
  const std::size_t d = column_param_.size(), n = failed_.size();
  if (d == 0 || failures_ == 0 || failures_ == n) return false;
  const double log_likelihood = -negative_log_likelihood(w);  // of the fit, unpenalised
  const double rate = static_cast<double>(failures_) / static_cast<double>(n);
  const double constant = static_cast<double>(failures_) * std::log(rate) +
                          static_cast<double>(n - failures_) * std::log1p(-rate);
  // The chi-square quantile by Wilson and Hilferty's cube-root approximation (within 1% from 3 degrees of freedom).
  const double k = static_cast<double>(d), h = 2.0 / (9.0 * k);
  const double quantile = k * std::pow(1.0 - h + kEvidenceZ * std::sqrt(h), 3);
  return 2.0 * (log_likelihood - constant) > quantile;
}

double FailureModel::boundary_score(const float* features) const {
  return linear_score(weights_, [features](std::size_t c) { return features[c]; });
}

float FailureModel::feature(std::size_t index, std::size_t c) const {
  return feature_[column_offset_[c] + space_.value_index(index, column_param_[c])];
}

bool FailureModel::failing_boundary(std::size_t index) const {
  return boundary_trusted_ && score_of(index) > boundary_logit_;
}

double FailureModel::score_of(std::size_t index) const {
  return linear_score(weights_, [this, index](std::size_t c) { return feature(index, c); });
}

double FailureModel::failure_probability(std::size_t index) const {
  return fitted_ > 0 && informative_ ? 1.0 / (1.0 + std::exp(-score_of(index))) : 0.0;
}

bool FailureModel::trusts_source(std::size_t s) const {
  return confirmed_[s] >= kSourceConfirmations && 2 * contradicted_[s] <= confirmed_[s];
}

bool FailureModel::predicts_failure(std::size_t index) const {
  if (failing_elsewhere(index)) return true;
  if (failures_ < kMinFailures || failed_.size() < kNearest) return false;
  // The value and place views only together: where one alone predicted a failure, more of the configurations deferred
  // ran than failed (bench/failures, docs/live-tuning.md); the boundary is believed only while it separates what was
  // measured.
  return (failing_values(index) && failing_place(index)) || failing_boundary(index);
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
