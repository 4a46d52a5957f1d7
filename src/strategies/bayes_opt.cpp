// bayes_opt: Gaussian-process Bayesian optimisation over the valid configurations (Kernel Tuner's bayes_opt,
// Willemsen's thesis): a Latin-hypercube initial sample, then the unevaluated candidate that optimises an acquisition
// function (EI, PoI, LCB or an adaptive portfolio of them) under a fixed-length-scale Matern/RBF GP.
//
// Scaling: the candidates are every unevaluated valid configuration when they fit `maxcandidates`, otherwise a pool
// of that size that rotates a few random members per iteration and takes in the neighbours of each new best, so the
// cost of an iteration never grows with the space. The GP keeps at most `maxobservations` training points; when full
// it is refitted on the best half of them plus the most recent quarter.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/acquisition.hpp"
#include "strategies/gaussian_process.hpp"
#include "strategies/prior_guided.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"
#include "ktune/uniform_sample_stream.hpp"

namespace ktune::strategies {
namespace {

enum class Method { Single, Multi, MultiAdvanced, MultiFast };

struct BayesOptSettings {
  CovarianceKernel kernel = CovarianceKernel::Matern32;
  double lengthscale = 1.5;
  Method method = Method::Multi;
  Acquisition single = Acquisition::Ei;   // the acquisition of Method::Single
  std::vector<Acquisition> portfolio;     // the acquisitions of the multi methods
  bool lhs = true;
  std::size_t popsize = 20;
  bool contextual_variance = true;        // explorationfactor "CV"
  double exploration = 0;                 // explorationfactor as a number
  double zeta = 1;
  int skip_duplicate_after = 5;
  double discount = 0.65;
  double required_improvement = 0.1;
  std::size_t max_candidates = 1024;
  std::size_t max_observations = 100;
  std::size_t rotation = 16;
  bool log_transform = true;
  double failure_aversion = 6;  // --avoid-failures: the power of the chance to run that weighs the acquisitions
  Prior prior;  // empty: none (prior_guided.hpp)
};

std::optional<Acquisition> acquisition_named(std::string_view name) {
  if (name == "ei") return Acquisition::Ei;
  if (name == "poi") return Acquisition::Poi;
  if (name == "lcb") return Acquisition::Lcb;
  if (name == "lcb-srinivas") return Acquisition::LcbSrinivas;
  return std::nullopt;
}

class Search {
 public:
  Search(const BayesOptSettings& s, const SearchSpace& space, CostFunction& cost, Rng& rng)
      : s_(s),
        space_(space),
        cost_(cost),
        rng_(rng),
        dims_(space.num_params()),
        gp_(s.kernel, s.lengthscale, dims_, std::max<std::size_t>(s.max_observations, 2),
            std::min(space.size(), s.max_candidates)),
        fresh_(space.size(), rng) {
    for (std::size_t p = 0; p < dims_; ++p) {
      scale_.push_back(1.0 / static_cast<double>(space.param_values(p).size()));
      if (space.used_values(p).size() > 1) ++tunable_dims_;
    }
    for (auto af : s.portfolio) afs_.push_back({af});
  }

  void run() {
    if (space_.size() == 0) return;
    // Taking over a run (transfer, a stage): what the run has measured is the model's first data, free to revisit.
    std::size_t known = 0;
    if (taking_over(cost_)) {
      std::vector<std::size_t> indices;
      for (const TraceEntry& entry : cost_.trace().entries()) indices.push_back(entry.index);
      for (std::size_t index : indices) {
        if (known == s_.max_observations) break;
        observe(index);
        ++known;
      }
    }
    // The opening: a Latin hypercube, or the candidate stream's first draws (random_sample's, with the same seed).
    const std::size_t initial = population_size(s_.popsize, space_.size(), 3);
    if (known < initial && s_.lhs) {
      for (std::size_t index : space_.lhs_sample(initial - known, rng_))
        if (!cost_.known(index)) observe(index);
    } else if (known < initial) {
      for (std::size_t i = known; i < initial; ++i)
        if (const auto index = draw_fresh()) observe(*index);
    }
    top_up_pool();
    if (!s_.prior.empty()) seed_pool_from_prior();
    double sum = 0;
    std::size_t finite = 0;
    for (double v : raw_)
      if (std::isfinite(v)) sum += v, ++finite;
    initial_mean_ = finite ? sum / static_cast<double>(finite) : 0.0;
    // Until the whole space has been evaluated; the cost function ends the run when the budget does.
    while (top_up_pool()) {
      predict();
      if (s_.method == Method::Single) {
        const std::size_t slot = argmin(s_.single, {});
        remember_prediction(slot);
        observe(pool_[slot]);
      } else {
        portfolio_round();
      }
    }
  }

 private:
  struct AfState {
    Acquisition af;
    double discounted_sum = 0, discounted_weight = 0;
    int duplicates_in_a_row = 0;
    bool retired = false;
    double score() const { return discounted_weight > 0 ? discounted_sum / discounted_weight : 0.0; }
  };

  void input(std::size_t index, std::vector<double>& x) const {
    // Kernel Tuner's normalisation: value index j of a parameter with m values sits at (j + 0.5) / m.
    x.resize(dims_);
    for (std::size_t p = 0; p < dims_; ++p) x[p] = (space_.value_index(index, p) + 0.5) * scale_[p];
  }

  // --- candidates -------------------------------------------------------------------------------------------------
  bool in_pool(std::size_t index) const { return slot_of_.count(index) != 0; }

  void add_to_pool(std::size_t index) {
    input(index, x_);
    slot_of_[index] = gp_.add_candidate(x_);
    pool_.push_back(index);
  }

  void remove_from_pool(std::size_t slot) {
    slot_of_.erase(pool_[slot]);
    gp_.remove_candidate(slot);
    if (slot + 1 != pool_.size()) {
      pool_[slot] = pool_.back();
      slot_of_[pool_[slot]] = slot;
    }
    pool_.pop_back();
  }

  // An unevaluated configuration not in the pool: first every index once in random order, then the ones rotated out.
  std::optional<std::size_t> draw_fresh() {
    for (;;) {
      std::size_t index;
      if (!fresh_.done()) {
        index = *fresh_.next();
      } else if (!rotated_out_.empty()) {
        const std::size_t j = static_cast<std::size_t>(rng_.below(rotated_out_.size()));
        index = rotated_out_[j];
        rotated_out_[j] = rotated_out_.back();
        rotated_out_.pop_back();
      } else {
        return std::nullopt;
      }
      if (!cost_.known(index) && !in_pool(index)) return index;
    }
  }

  // A subsampled pool gets the prior's best unevaluated configurations (a quarter of the pool): a random pool would
  // rarely hold the few the sources rank first.
  void seed_pool_from_prior() {
    if (space_.size() <= gp_.max_candidates() || pool_.empty()) return;
    std::vector<float> prior(space_.size(), 0.0f);  // the sources' mean quantile
    for (const auto& column : s_.prior)
      for (std::size_t i = 0; i < prior.size(); ++i) prior[i] += (*column)[i];
    std::vector<std::size_t> order(space_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t wanted = std::min(gp_.max_candidates() / 4, order.size());
    std::partial_sort(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(wanted), order.end(),
        [&](std::size_t a, std::size_t b) { return prior[a] < prior[b] || (prior[a] == prior[b] && a < b); });
    for (std::size_t i = 0; i < wanted; ++i)
      if (!cost_.known(order[i]) && !in_pool(order[i])) swap_into_pool(order[i]);
  }

  // Fills the pool up to its capacity; false when no unevaluated configuration is left.
  bool top_up_pool() {
    while (pool_.size() < gp_.max_candidates())
      if (const auto index = draw_fresh()) add_to_pool(*index); else break;
    if (pool_.empty() && !set_aside_.empty()) {  // only deferred ones are left: candidates again
      release_set_aside();
      return top_up_pool();
    }
    return !pool_.empty();
  }

  // The configurations deferred since the last observation become candidates again (draw_fresh() takes them).
  void release_set_aside() {
    rotated_out_.insert(rotated_out_.end(), set_aside_.begin(), set_aside_.end());
    set_aside_.clear();
  }

  // Replaces a random pool member by `index` (a subsampled pool only).
  void swap_into_pool(std::size_t index) {
    const std::size_t slot = static_cast<std::size_t>(rng_.below(pool_.size()));
    rotated_out_.push_back(pool_[slot]);
    remove_from_pool(slot);
    add_to_pool(index);
  }

  void rotate_pool() {
    if (pool_.empty() || (fresh_.done() && rotated_out_.empty())) return;
    for (std::size_t i = 0; i < s_.rotation; ++i)
      if (const auto index = draw_fresh()) swap_into_pool(*index);
  }

  // --- observations -----------------------------------------------------------------------------------------------
  // Evaluates `index` and learns from it; returns its observation number, or nothing where the cost function deferred
  // it (--avoid-failures: predicted to fail, answered +inf unmeasured). A deferred configuration is not learned from
  // (a wrong prediction must not teach the GP that its region is the worst: the best configurations of a space often
  // border its failures) but set aside until the next observation, then a candidate again: if the GP still prefers
  // it once it has learned more, it is asked again, and measured when the cost function stops deferring it.
  std::optional<std::size_t> observe(std::size_t index) {
    const double c = cost_(index);  // BudgetExhausted passes through
    const auto it = slot_of_.find(index);
    if (it != slot_of_.end()) remove_from_pool(it->second);
    if (cost_.was_deferred(index)) {
      set_aside_.push_back(index);
      return std::nullopt;
    }
    release_set_aside();
    observed_.push_back(index);
    raw_.push_back(c);
    const bool improved = std::isfinite(c) && (!best_ || c < raw_[*best_]);
    if (std::isfinite(c)) {
      worst_ = std::max(worst_, c);
      if (improved) best_ = raw_.size() - 1;
    }
    score_predictions(index);
    if (gp_.points() == gp_.max_points()) refit_on_a_subset();
    input(index, x_);
    gp_.add_point(x_);
    members_.push_back(raw_.size() - 1);
    // A subsampled pool: look around each new best, and let a few random configurations in each time.
    if (space_.size() > gp_.max_candidates() && !pool_.empty()) {
      if (improved)
        for (std::size_t n : space_.neighbours(index, NeighbourMethod::Hamming))
          if (!cost_.known(n) && !in_pool(n)) swap_into_pool(n);
      rotate_pool();
    }
    return raw_.size() - 1;
  }

  // The GP is full: keep the best half of the observations and the most recent quarter. The kept points that lead
  // the GP's order stay first (their part of the factorisation stays); the others follow best first, so that at the
  // next refit the points still kept tend to lead again (the worst of the best half are the ones displaced).
  void refit_on_a_subset() {
    std::vector<std::size_t> by_value(members_.size());  // positions in the GP, best first
    std::iota(by_value.begin(), by_value.end(), std::size_t{0});
    std::stable_sort(by_value.begin(), by_value.end(),
                     [&](std::size_t a, std::size_t b) { return value(members_[a]) < value(members_[b]); });
    std::vector<char> keep(members_.size(), 0);
    const std::size_t cap = gp_.max_points();
    for (std::size_t i = 0; i < cap / 2; ++i) keep[by_value[i]] = 1;
    std::size_t kept = cap / 2;
    std::vector<std::size_t> recent_first = by_value;  // observations are numbered in the order made
    std::sort(recent_first.begin(), recent_first.end(),
              [&](std::size_t a, std::size_t b) { return members_[a] > members_[b]; });
    for (std::size_t position : recent_first)
      if (kept < cap * 3 / 4 && !keep[position]) keep[position] = 1, ++kept;
    std::vector<std::size_t> positions;
    while (positions.size() < members_.size() && keep[positions.size()]) positions.push_back(positions.size());
    const std::size_t leading = positions.size();
    for (std::size_t position : by_value)
      if (keep[position] && position >= leading) positions.push_back(position);
    gp_.keep_points(positions);
    std::vector<std::size_t> members;
    for (std::size_t position : positions) members.push_back(members_[position]);
    members_ = std::move(members);
  }

  // The cost the GP sees: failures (+inf) count as the worst finite cost observed, so no inf reaches the fit. With
  // transform=log and every cost positive (run times), its logarithm: times spread over orders of magnitude, and on
  // a linear scale the few slowest configurations dominate the fit and the GP learns nothing of the fast region.
  double value(std::size_t observation) const {
    if (!best_) return 0.0;
    const double c = std::isfinite(raw_[observation]) ? raw_[observation] : worst_;
    return s_.log_transform && raw_[*best_] > 0 ? std::log(c) : c;
  }

  // Standardised targets, predictions for every pool member, the incumbent and the exploration factor.
  void predict() {
    double mean = 0, var = 0;
    for (std::size_t m : members_) mean += value(m);
    mean /= static_cast<double>(members_.size());
    for (std::size_t m : members_) var += (value(m) - mean) * (value(m) - mean);
    const double sd = std::sqrt(var / static_cast<double>(members_.size()));
    const double scale = sd > 1e-12 * std::max(1.0, std::abs(mean)) ? sd : 1.0;
    y_.clear();
    for (std::size_t m : members_) y_.push_back((value(m) - mean) / scale);
    incumbent_ = best_ ? (value(*best_) - mean) / scale : 0.0;
    y_mean_ = mean;
    y_scale_ = scale;
    if (!s_.prior.empty()) {
      predict_with_prior();
      // Which model proposes: the one whose predictions of the configurations measured lately were better.
      const bool scored = scored_ >= kMinScored, top = scored && top_error_ < prior_error_;
      mu_ = scored && (top ? top_error_ : prior_error_) > kPlainMargin * plain_error_ ? mu_plain_
            : top                                                                   ? mu_top_
                                                                                    : mu_prior_;
    } else {
      gp_.predict(y_, mu_, sigma_);
    }
    exploration_ = s_.exploration;
    if (s_.contextual_variance) {
      // Contextual variance (Jasrasaria 2018, as Kernel Tuner): mean predicted sd relative to the first one, times
      // how far the incumbent still is from the initial sample's mean (large early, small once much improved).
      double mean_sd = 0;
      for (double v : sigma_) mean_sd += v;
      mean_sd /= static_cast<double>(sigma_.size());
      if (initial_sd_ <= 0) initial_sd_ = mean_sd;
      double ratio = 1.0;
      if (best_) {
        const double a = std::abs(raw_[*best_]), b = std::abs(initial_mean_);
        if (std::max(a, b) > 0) ratio = std::min(a, b) / std::max(a, b);
      }
      exploration_ = initial_sd_ > 0 ? mean_sd / initial_sd_ * ratio : 0.0;
    }
    z_finite_ = standardised_improvements(mu_, sigma_, incumbent_, exploration_, z_);
    weigh_by_failures(mean, scale);
  }

  // Learned failure avoidance (--avoid-failures): each slot's chance to run, from the cost function's failure model,
  // weighs its acquisition, a failure counting as the GP counts one (the worst cost seen; acquisition.hpp). The
  // model's yes/no defers only what it is sure of; near a failing region's edge, where it is not, the GP alone kept
  // asking configurations that failed half the time (bench/failures: nearly all of bayes_opt's failing evaluations
  // after its first ten). The chance is taken to the power `failureaversion`: a failure also spends an evaluation.
  void weigh_by_failures(double mean, double scale) {
    runs_.clear();
    if (!cost_.learns_failures() || !best_ || s_.failure_aversion <= 0) return;
    bool any = false;
    runs_.resize(pool_.size());
    for (std::size_t slot = 0; slot < pool_.size(); ++slot) {
      const double p = cost_.failure_probability(pool_[slot]);
      // (A floor: where the model is sure of every candidate, the acquisition still orders them.)
      runs_[slot] = std::max(std::pow(1 - p, s_.failure_aversion), 1e-12);
      any = any || p > 0;
    }
    if (!any) {
      runs_.clear();
      return;
    }
    const double worst = s_.log_transform && raw_[*best_] > 0 ? std::log(worst_) : worst_;
    failed_value_ = (worst - mean) / scale;
  }

  // Two regressions of the targets on the sources (non-negative least squares by coordinate descent on centred
  // columns: a handful of sources, a few hundred points), each with the GP on its residuals and added back: one on
  // the sources' quantiles, one on their logarithm (kTopOffset added), which stretches the sources' best region and
  // compresses the rest. The plain GP beside them.
  void predict_with_prior() {
    fit_prior(false, mu_prior_);
    fit_prior(true, mu_top_);
    gp_.predict(y_, mu_plain_, sigma_plain_);
  }

  static constexpr double kTopOffset = 0.01;
  void fit_prior(bool top, std::vector<double>& mu) {
    const std::size_t n = members_.size(), k = s_.prior.size();
    const auto q = [&](std::size_t c, std::size_t index) {
      const double quantile = static_cast<double>((*s_.prior[c])[index]);
      return top ? std::log(quantile + kTopOffset) : quantile;
    };
    // Centred columns, one per source, over the GP's points.
    std::vector<double> mean_q(k, 0.0), coef(k, 0.0), norm(k, 0.0), centred(n * k);
    double mean_y = 0;
    for (std::size_t i = 0; i < n; ++i) mean_y += y_[i] / static_cast<double>(n);
    for (std::size_t c = 0; c < k; ++c) {
      for (std::size_t i = 0; i < n; ++i) mean_q[c] += q(c, observed_[members_[i]]) / static_cast<double>(n);
      for (std::size_t i = 0; i < n; ++i) {
        const double x = q(c, observed_[members_[i]]) - mean_q[c];
        centred[c * n + i] = x;
        norm[c] += x * x;
      }
    }
    residual_.resize(n);
    for (std::size_t i = 0; i < n; ++i) residual_[i] = y_[i] - mean_y;
    for (int sweep = 0; sweep < 20; ++sweep)
      for (std::size_t c = 0; c < k; ++c) {
        if (norm[c] <= 0) continue;
        const double* x = &centred[c * n];
        double dot = 0;
        for (std::size_t i = 0; i < n; ++i) dot += x[i] * residual_[i];
        const double updated = std::max(0.0, coef[c] + dot / norm[c]);
        for (std::size_t i = 0; i < n; ++i) residual_[i] -= (updated - coef[c]) * x[i];
        coef[c] = updated;
      }
    gp_.predict(residual_, mu, sigma_);
    for (std::size_t slot = 0; slot < pool_.size(); ++slot) {
      double m = mean_y;
      for (std::size_t c = 0; c < k; ++c) m += coef[c] * (q(c, pool_[slot]) - mean_q[c]);
      mu[slot] += m;
    }
  }

  // --- which model proposes, with a prior -------------------------------------------------------------------------
  // The sources can agree with the target overall (their slow configurations are slow here too) and still rank its
  // best region wrongly; the regression on them then keeps the search where the sources' best were (reduction on
  // PoCL at 4M elements from 16M: the sources' best are 1.1-1.3x the target's, whose best ranks 79th there). So every
  // model predicts every proposal, and each measurement scores them (squared error, each earlier one discounted by
  // kErrorDiscount). Of the two prior models the one with the smaller error is the prior's (the quantiles' until
  // kMinScored measurements), and it proposes unless, after kMinScored measurements, the plain GP's error is
  // kPlainMargin times smaller. (Chosen on the leave-one-out spaces of docs/transfer.md: margins 1, 1.5, 2, discounts
  // 0.6, 0.8, 0.9, 0.95 and at least 0, 3, 5 measurements tried; the logarithm's model and its margin of 1 (1.5, 2
  // tried) later, where it halved the loss on that reduction space.)
  static constexpr double kPlainMargin = 1.5, kErrorDiscount = 0.8;
  static constexpr int kMinScored = 3;
  void remember_prediction(std::size_t slot) {
    if (s_.prior.empty()) return;
    pending_.push_back({pool_[slot], mu_prior_[slot], mu_top_[slot], mu_plain_[slot], y_mean_, y_scale_});
  }

  void score_predictions(std::size_t index) {
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      if (pending_[i].index != index) continue;
      const Pending p = pending_[i];
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      const double y = (value(raw_.size() - 1) - p.mean) / p.scale;
      ++scored_;
      prior_error_ = kErrorDiscount * prior_error_ + (y - p.with_prior) * (y - p.with_prior);
      top_error_ = kErrorDiscount * top_error_ + (y - p.with_top) * (y - p.with_top);
      plain_error_ = kErrorDiscount * plain_error_ + (y - p.plain) * (y - p.plain);
      return;
    }
  }

  // Srinivas et al.'s GP-UCB schedule with delta = 0.1, as Kernel Tuner.
  double srinivas_beta() const {
    const double t = static_cast<double>(std::max<std::size_t>(raw_.size(), 1));
    const double d = static_cast<double>(tunable_dims_);
    return std::sqrt(std::max(
        0.0, s_.zeta * 2 * ((d / 2 + 2) * std::log(t) + std::log(std::numbers::pi * std::numbers::pi / 0.3))));
  }

  // The pool slot minimising `af`, skipping the slots in `taken` (acquisition.hpp).
  std::size_t argmin(Acquisition af, const std::vector<std::size_t>& taken) const {
    const AcquisitionRound round{mu_, sigma_, z_, incumbent_, exploration_,
                                 af == Acquisition::LcbSrinivas ? srinivas_beta() : 0.0, runs_, failed_value_};
    return best_slot(af, round, z_finite_, taken);
  }

  // One prediction, one proposal per active acquisition function.
  //  multi / multi-advanced: a proposal equal to an earlier one of the round is a duplicate; a function that
  //    proposes duplicates `skip_duplicate_after` times in a row retires (unless it has the best discounted
  //    observations). multi-advanced also skips, each round, functions whose discounted observations are more than
  //    the required improvement factor worse than the mean, and uses only one that is that much better.
  //  multi-fast: every function evaluates a distinct point (its best not yet proposed this round).
  void portfolio_round() {
    std::vector<std::size_t> active;
    for (std::size_t a = 0; a < afs_.size(); ++a)
      if (!afs_[a].retired) active.push_back(a);
    if (s_.method == Method::MultiAdvanced) active = advanced_selection(active);
    std::vector<std::size_t> taken;                          // distinct proposed slots, in order
    std::vector<std::size_t> proposal(afs_.size(), 0);       // per function: position in `taken`
    for (std::size_t a : active) {
      if (taken.size() == pool_.size()) break;
      const bool distinct = s_.method == Method::MultiFast;
      const std::size_t slot = argmin(afs_[a].af, distinct ? taken : std::vector<std::size_t>{});
      const auto at = std::find(taken.begin(), taken.end(), slot);
      if (at == taken.end()) {
        afs_[a].duplicates_in_a_row = 0;
        proposal[a] = taken.size();
        taken.push_back(slot);
      } else {
        ++afs_[a].duplicates_in_a_row;
        proposal[a] = static_cast<std::size_t>(at - taken.begin());
      }
    }
    std::vector<std::size_t> indices;
    for (std::size_t slot : taken) {
      remember_prediction(slot);
      indices.push_back(pool_[slot]);  // slots move as the pool shrinks
    }
    std::vector<std::optional<std::size_t>> observations;
    for (std::size_t index : indices) observations.push_back(observe(index));
    for (std::size_t a : active) {
      if (proposal[a] >= observations.size() || !observations[proposal[a]]) continue;  // deferred: no evidence
      auto& st = afs_[a];
      st.discounted_sum = s_.discount * st.discounted_sum + value(*observations[proposal[a]]);
      st.discounted_weight = s_.discount * st.discounted_weight + 1;
    }
    if (s_.method == Method::MultiFast) return;
    std::size_t best = afs_.size();
    for (std::size_t a = 0; a < afs_.size(); ++a)
      if (!afs_[a].retired && (best == afs_.size() || afs_[a].score() < afs_[best].score())) best = a;
    for (std::size_t a = 0; a < afs_.size(); ++a)
      if (a != best && afs_[a].duplicates_in_a_row >= s_.skip_duplicate_after) afs_[a].retired = true;
  }

  std::vector<std::size_t> advanced_selection(const std::vector<std::size_t>& active) const {
    if (active.size() < 2) return active;
    double mean = 0;
    for (std::size_t a : active) {
      if (afs_[a].discounted_weight <= 0) return active;  // not every function has a record yet
      mean += afs_[a].score();
    }
    mean /= static_cast<double>(active.size());
    const double margin = s_.required_improvement * std::abs(mean);
    std::size_t best = active.front();
    for (std::size_t a : active)
      if (afs_[a].score() < afs_[best].score()) best = a;
    if (afs_[best].score() < mean - margin) return {best};
    std::vector<std::size_t> kept;
    for (std::size_t a : active)
      if (afs_[a].score() <= mean + margin) kept.push_back(a);
    return kept.empty() ? active : kept;
  }

  const BayesOptSettings& s_;
  const SearchSpace& space_;
  CostFunction& cost_;
  Rng& rng_;
  std::size_t dims_, tunable_dims_ = 0;
  std::vector<double> scale_;
  GaussianProcess gp_;
  UniformSampleStream fresh_;  // the candidates, each index once in random order; its first draws open the run
  std::vector<std::size_t> rotated_out_;
  std::vector<std::size_t> set_aside_;  // deferred since the last observation (observe())
  std::vector<std::size_t> pool_;                        // slot -> configuration index
  std::unordered_map<std::size_t, std::size_t> slot_of_;  // configuration index -> slot (lookups only)
  std::vector<std::size_t> observed_;                    // observation -> configuration index
  std::vector<double> raw_;                              // observation -> cost (+inf: failed)
  std::vector<std::size_t> members_;                     // observations in the GP, in the order added
  std::optional<std::size_t> best_;                      // best finite observation
  double worst_ = -std::numeric_limits<double>::infinity();
  double initial_mean_ = 0, initial_sd_ = 0;
  double incumbent_ = 0, exploration_ = 0;
  std::vector<double> x_, y_, mu_, sigma_, residual_;
  std::vector<double> z_;  // per slot, EI's and PoI's standardised improvement
  bool z_finite_ = false;
  std::vector<double> runs_;  // per slot, its chance to run to the power failure_aversion (empty: no model yet)
  double failed_value_ = 0;   // a failure's standardised value
  // With a prior: the three models' means, how the targets were standardised, their recent errors, the proposals
  // awaiting their measurement.
  struct Pending {
    std::size_t index;
    double with_prior, with_top, plain, mean, scale;
  };
  std::vector<double> mu_prior_, mu_top_, mu_plain_, sigma_plain_;
  double y_mean_ = 0, y_scale_ = 1, prior_error_ = 0, top_error_ = 0, plain_error_ = 0;
  int scored_ = 0;  // measurements of proposals that scored the models
  std::vector<Pending> pending_;
  std::vector<AfState> afs_;
};

class BayesOpt final : public Strategy {
 public:
  explicit BayesOpt(BayesOptSettings settings) : s_(std::move(settings)) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override { Search(s_, space, cost, rng).run(); }

 private:
  BayesOptSettings s_;
};

[[noreturn]] void bad(const std::string& what) { throw HyperparameterError("strategy 'bayes_opt': " + what); }

BayesOptSettings bayes_opt_settings(const Hyperparameters& h) {
  BayesOptSettings s;
  const auto& kernel = h.get_string("covariancekernel");
  s.kernel = kernel == "matern52" ? CovarianceKernel::Matern52
             : kernel == "rbf"    ? CovarianceKernel::Rbf
                                  : CovarianceKernel::Matern32;
  s.lengthscale = h.get_float("covariancelengthscale");
  const auto& method = h.get_string("method");
  if (method == "multi") {
    s.method = Method::Multi;
  } else if (method == "multi-advanced") {
    s.method = Method::MultiAdvanced;
  } else if (method == "multi-fast") {
    s.method = Method::MultiFast;
  } else {
    s.method = Method::Single;
    s.single = *acquisition_named(method);
  }
  s.lhs = h.get_string("samplingmethod") == "lhs";
  s.popsize = static_cast<std::size_t>(h.get_int("popsize"));
  const auto& factor = h.get_string("explorationfactor");
  s.contextual_variance = factor == "CV";
  if (!s.contextual_variance) {
    const char* end = factor.data() + factor.size();
    const auto [ptr, ec] = std::from_chars(factor.data(), end, s.exploration);
    if (ec != std::errc() || ptr != end || !(s.exploration >= 0) || !std::isfinite(s.exploration))
      bad(fmt::format("explorationfactor must be \"CV\" or a number >= 0, not \"{}\"", factor));
  }
  s.zeta = h.get_float("zeta");
  s.skip_duplicate_after = static_cast<int>(h.get_int("skip_duplicate_after"));
  const double discount = h.get_float("multi_af_discount_factor");
  s.discount = discount > 0 ? discount : (s.method == Method::Multi ? 0.65 : 0.95);
  s.required_improvement = h.get_float("multi_afs_required_improvement_factor");
  const auto& names = h.get_string("multi_af_names");
  for (std::size_t begin = 0; begin <= names.size();) {
    const std::size_t end = std::min(names.find(',', begin), names.size());
    const auto name = std::string_view(names).substr(begin, end - begin);
    const auto af = acquisition_named(name);
    if (!af) bad(fmt::format("multi_af_names: '{}' is not one of ei, poi, lcb, lcb-srinivas", name));
    s.portfolio.push_back(*af);
    begin = end + 1;
  }
  s.max_candidates = static_cast<std::size_t>(h.get_int("maxcandidates"));
  s.max_observations = static_cast<std::size_t>(h.get_int("maxobservations"));
  s.rotation = static_cast<std::size_t>(h.get_int("candidaterotation"));
  s.failure_aversion = h.get_float("failureaversion");
  s.log_transform = h.get_string("transform") == "log";
  return s;
}

}  // namespace

std::unique_ptr<Strategy> make_bayes_opt_with_prior(const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                                    Prior prior) {
  const StrategyInfo info = bayes_opt_info();
  BayesOptSettings s = bayes_opt_settings(Hyperparameters::resolve("bayes_opt", info.hyperparameters, hyperparameters));
  s.prior = std::move(prior);
  return std::make_unique<BayesOpt>(std::move(s));
}

StrategyInfo bayes_opt_info() {
  using T = HyperparameterType;
  return {"bayes_opt",
          "Gaussian-process Bayesian optimisation (EI/PoI/LCB or adaptive portfolios) over the valid configurations",
          {{"covariancekernel", T::String, Value(std::string("matern32")), {}, {}, {"matern32", "matern52", "rbf"},
            "GP covariance: Matern nu=3/2, Matern nu=5/2 or squared exponential"},
           {"covariancelengthscale", T::Float, Value(1.5), 0.0, {}, {},
            "fixed kernel length scale (each parameter spans [0, 1])", /*min_exclusive=*/true},
           {"method", T::String, Value(std::string("multi")), {}, {},
            {"ei", "poi", "lcb", "lcb-srinivas", "multi", "multi-advanced", "multi-fast"},
            "acquisition function, or a portfolio of multi_af_names"},
           // samplingmethod lhs (as Kernel Tuner; a uniform sample of 20 was ours before), popsize 3 (Kernel Tuner:
           // 20; ours 5 until 2026-11-29) and transform log: each chosen by the default strategy's nested protocol
           // (issue 35, docs/strategies.md; popsize 3 in 9 of 10 folds over two seeds). A sample of 20 is most of a
           // budget of a few dozen evaluations; the GP learns from 3, and with a budget of 6 it proposes 3.
           {"samplingmethod", T::String, Value(std::string("lhs")), {}, {}, {"lhs", "random"},
            "initial sample: Latin hypercube or uniform random valid configurations"},
           {"popsize", T::Int, Value(std::int64_t{3}), 1.0, {}, {},
            "size of the initial sample (at most one per 32 configurations of a small space, at least 3)"},
           {"explorationfactor", T::String, Value(std::string("CV")), {}, {}, {},
            "exploration of ei/poi (margin) and lcb (beta): \"CV\" (contextual variance) or a number >= 0"},
           {"zeta", T::Float, Value(1.0), 0.0, {}, {}, "scale of the lcb-srinivas exploration schedule",
            /*min_exclusive=*/true},
           {"skip_duplicate_after", T::Int, Value(std::int64_t{5}), 1.0, {}, {},
            "multi: retire an acquisition function after this many duplicate proposals in a row"},
           {"multi_af_discount_factor", T::Float, Value(0.0), 0.0, 1.0, {},
            "discount of older observations when ranking portfolio functions (0: 0.65 multi, 0.95 multi-advanced)"},
           {"multi_afs_required_improvement_factor", T::Float, Value(0.1), 0.0, {}, {},
            "multi-advanced: relative margin to skip a worse or promote a better acquisition function"},
           {"multi_af_names", T::String, Value(std::string("ei,poi,lcb")), {}, {}, {},
            "comma-separated acquisition functions of the portfolios"},
           // maxcandidates 512 and maxobservations 64 (were 1024 and 100, before that 2048 and 200): an iteration
           // costs about the pool size times the training set, and each halving kept the scores (512/64 on the twelve
           // GPU spaces, 100 repeats: 0.755 / 0.767 / 0.747 at seeds 0-2 against 0.747 / 0.771 / 0.744; on the 156
           // training spaces 0.626 against 0.616, no budget regime lower; docs/strategies.md). A third of the time.
           // `auto`'s first stage keeps the settings it was chosen with (auto.cpp).
           {"maxcandidates", T::Int, Value(std::int64_t{512}), 1.0, {}, {},
            "candidates scored per iteration: all unevaluated configurations up to this many, else a rotating pool"},
           {"maxobservations", T::Int, Value(std::int64_t{64}), 2.0, {}, {},
            "GP training-set cap; when full, refit on the best half and the most recent quarter"},
           {"candidaterotation", T::Int, Value(std::int64_t{16}), 0.0, {}, {},
            "pool members replaced by fresh random configurations per evaluation (subsampled pool only)"},
           {"transform", T::String, Value(std::string("log")), {}, {}, {"none", "log"},
            "what the GP models: the cost, or its logarithm when every cost is positive (Kernel Tuner: none)"},
           // failureaversion 6 (was 4): chosen on bench/failures and the 12 GPU spaces (docs/live-tuning.md). 1 cut
           // failing evaluations by 20 %, 4 by 31 % at no cost to the scores, 8 and 16 by 34 % and 41 % but cost 0.04
           // and 0.21 on RTX Titan pnpoly, whose best configurations border a staircase of failures. Since the chance
           // to run is given only where the failures have a region (FailureModel::informative), 4 avoided less (-25 %
           // / -25 %) and 6 as much as 4 did before (-27 % / -28 %), without the cost of sporadic failures.
           {"failureaversion", T::Float, Value(6.0), 0.0, {}, {},
            "--avoid-failures: acquisitions weighted by the chance to run to this power (0: not weighted)"}},
          [](const Hyperparameters& h) { return std::make_unique<BayesOpt>(bayes_opt_settings(h)); }};
}

}  // namespace ktune::strategies
