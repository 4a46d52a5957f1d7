#include "ktune/tuning/transfer_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/strategy_toolkit.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/prior_guided.hpp"

namespace ktune {

namespace {

// Average ranks (ties share their mean rank).
std::vector<double> ranks_of(const std::vector<double>& x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = 0.5 * static_cast<double>(i + j);
    i = j + 1;
  }
  return r;
}

// Spearman's rank correlation; 0 when either side is constant or there are fewer than 3 pairs.
double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 3) return 0;
  const std::vector<double> rx = ranks_of(x), ry = ranks_of(y);
  const double mean = 0.5 * static_cast<double>(x.size() - 1);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  return (sxx > 0 && syy > 0) ? sxy / std::sqrt(sxx * syy) : 0.0;
}

class TransferSearch final : public Strategy {
 public:
  TransferSearch(std::shared_ptr<const TransferPrior> prior, TransferSettings s, AgreedStrategy agreed,
                 std::unique_ptr<Strategy> cold)
      : prior_(std::move(prior)), s_(s), agreed_(std::move(agreed)), cold_(std::move(cold)) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    const std::size_t n_sources = prior_ ? prior_->sources() : 0;
    if (n_sources == 0 || prior_->space_size() != space.size()) {
      cold_->run(space, cost, rng);
      return;
    }
    // 1. The sources' best, in turn.
    const std::size_t opening = s_.opening_for(n_sources);
    std::vector<std::size_t> next(n_sources, 0);
    for (std::size_t taken = 0; taken < opening;) {
      bool any = false;
      for (std::size_t s = 0; s < n_sources && taken < opening; ++s) {
        const auto& ranking = prior_->ranking(s);
        while (next[s] < ranking.size() && cost.known(ranking[next[s]])) ++next[s];
        if (next[s] == ranking.size()) continue;
        (void)cost(ranking[next[s]++]);
        ++taken;
        any = true;
      }
      if (!any) break;
    }
    // 2. Controls spread over the space.
    if (s_.control > 0 && space.size() > cost.trace().size() + s_.control)
      for (std::size_t index : space.lhs_sample(s_.control, rng))  // one the opening took: a uniform one instead
        (void)cost(cost.known(index) ? strategies::fresh_valid_index(space, cost, rng) : index);
    // 3. Agreement, checked again after each guided evaluation (4): a space that disagrees is tuned cold.
    std::vector<double> weights = agreement(cost);
    for (std::size_t guided = 0;; ++guided) {
      if (*std::max_element(weights.begin(), weights.end()) < s_.min_agreement) {
        cold_->run(space, cost, rng);
        return;
      }
      if (guided == s_.guided) break;
      const std::size_t pick = best_unknown(cost, weights);
      if (pick == space.size()) break;
      (void)cost(pick);
      weights = agreement(cost);
    }
    // 5. From the best found, with the agreeing sources' prior.
    agreed_(columns(weights))->run(space, cost, rng);
  }

 private:
  // Each source's correlation with the costs measured so far (failures as the worst), floored at 0.
  std::vector<double> agreement(const CostFunction& cost) const {
    const Trace& trace = cost.trace();
    std::vector<double> costs;
    for (std::size_t p = 0; p < trace.size(); ++p) {
      const double c = trace.cost(p);
      costs.push_back(std::isnan(c) ? std::numeric_limits<double>::infinity() : c);
    }
    std::vector<double> weights(prior_->sources());
    std::vector<double> q(trace.size());
    for (std::size_t s = 0; s < prior_->sources(); ++s) {
      for (std::size_t p = 0; p < trace.size(); ++p) q[p] = prior_->quantile(s, trace[p].index);
      weights[s] = std::max(0.0, spearman(q, costs));
    }
    return weights;
  }

  // The agreeing sources' quantiles (every source's when none agrees: the model's fit then decides).
  PriorColumns columns(const std::vector<double>& weights) const {
    const bool none = std::all_of(weights.begin(), weights.end(), [](double w) { return w <= 0; });
    PriorColumns out;
    for (std::size_t s = 0; s < weights.size(); ++s) {
      if (weights[s] <= 0 && !none) continue;
      auto column = std::make_shared<std::vector<float>>(prior_->space_size());
      for (std::size_t i = 0; i < column->size(); ++i) (*column)[i] = prior_->quantile(s, i);
      out.push_back(std::move(column));
    }
    return out;
  }

  // The unknown configuration of lowest weighted quantile; space size if all are known.
  // (No source agrees, with a gate at or below 0: all alike.)
  std::size_t best_unknown(const CostFunction& cost, const std::vector<double>& weights) const {
    std::vector<double> w(weights.size(), 1.0);
    if (std::any_of(weights.begin(), weights.end(), [](double x) { return x > 0; }))
      for (std::size_t s = 0; s < w.size(); ++s) w[s] = weights[s] > 0 ? std::pow(weights[s], s_.sharpness) : 0.0;
    std::size_t best = prior_->space_size();
    double best_score = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < prior_->space_size(); ++i) {
      double score = 0;
      for (std::size_t s = 0; s < w.size(); ++s) score += w[s] * prior_->quantile(s, i);
      if (score < best_score && !cost.known(i)) best_score = score, best = i;
    }
    return best;
  }

  std::shared_ptr<const TransferPrior> prior_;
  TransferSettings s_;
  AgreedStrategy agreed_;
  std::unique_ptr<Strategy> cold_;
};

}  // namespace

void apply_transfer_settings(TransferSettings& settings, const std::vector<std::string>& texts) {
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    const std::string name = text.substr(0, eq);
    try {
      if (eq == std::string::npos) throw std::invalid_argument("no '='");
      const std::string value = text.substr(eq + 1);
      std::size_t used = 0;
      if (name == "agreed") {
        if (!find_strategy(value)) throw std::invalid_argument("unknown strategy");
        settings.agreed = value;
        used = value.size();
      } else if (name == "min_agreement") {
        settings.min_agreement = std::stod(value, &used);
      } else if (name == "sharpness") {
        settings.sharpness = std::stod(value, &used);
      } else if (name == "opening" && value == "sources") {
        settings.opening.reset();
        used = value.size();
      } else {
        const long long n = std::stoll(value, &used);
        if (n < 0) throw std::invalid_argument("negative");
        if (name == "opening")
          settings.opening = static_cast<std::size_t>(n);
        else if (name == "control")
          settings.control = static_cast<std::size_t>(n);
        else if (name == "guided")
          settings.guided = static_cast<std::size_t>(n);
        else
          throw std::invalid_argument("unknown");
      }
      if (used != value.size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw std::invalid_argument(
          fmt::format("transfer setting '{}': expected opening=N or opening=sources, control=N, guided=N, "
                      "min_agreement=X, sharpness=X or agreed=STRATEGY",
                      text));
    }
  }
}

std::unique_ptr<Strategy> make_transfer_search(std::shared_ptr<const TransferPrior> prior, TransferSettings settings,
                                               AgreedStrategy agreed, std::unique_ptr<Strategy> cold) {
  if (!agreed || !cold) throw std::invalid_argument("make_transfer_search: a strategy is missing");
  return std::make_unique<TransferSearch>(std::move(prior), std::move(settings), std::move(agreed), std::move(cold));
}

std::unique_ptr<Strategy> make_transfer_search(std::shared_ptr<const TransferPrior> prior, TransferSettings settings,
                                               const std::string& name,
                                               const std::vector<std::pair<std::string, Value>>& hyperparameters) {
  const TransferHandover h = transfer_handover(name, hyperparameters, settings);
  AgreedStrategy agreed = [h](PriorColumns prior) {
    return strategies::make_with_prior(h.agreed_name, h.agreed_hyperparameters, std::move(prior));
  };
  return make_transfer_search(std::move(prior), std::move(settings), std::move(agreed),
                              make_strategy(h.cold_name, h.cold_hyperparameters));
}

TransferHandover transfer_handover(const std::string& name,
                                   const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                   const TransferSettings& settings) {
  TransferHandover h{name, name, hyperparameters, hyperparameters};
  if (!settings.agreed.empty() && settings.agreed != name)
    h.agreed_name = settings.agreed, h.agreed_hyperparameters = {};
  return h;
}

}  // namespace ktune
