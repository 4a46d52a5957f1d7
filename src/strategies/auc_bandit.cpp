// auc_bandit: pyATF's / OpenTuner's AUC bandit meta-technique. Several techniques (random, Hamming hill climber,
// differential recombination, pattern search) share one run; each step asks the technique with the highest
// score = AUC credit + C * sqrt(2 log2 |history| / uses) over a sliding window of its recent uses, where the credit
// is the area under its curve of "this proposal improved the best cost" (late successes weigh more).
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>

#include "strategies/strategy_infos.hpp"
#include "strategies/technique.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

// The windowed credit of OpenTuner's AUCBanditQueue, kept incrementally: raw_auc = sum of the use positions (1..uses,
// within the window) at which the technique improved; dropping the oldest entry shifts every later position down
// by one, i.e. subtracts the number of improvements still in the window (decay).
class AucCredit {
 public:
  AucCredit(std::size_t techniques, double c, std::size_t window)
      : c_(c), window_(window), uses_(techniques, 0), raw_auc_(techniques, 0), decay_(techniques, 0) {}

  std::size_t choose(Rng& rng) const {
    std::vector<std::size_t> order(uses_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<std::size_t>(rng.below(i))]);
    std::size_t best = order[0];
    double best_score = -std::numeric_limits<double>::infinity();
    for (std::size_t t : order) {
      const double s = score(t);
      if (s > best_score) {
        best_score = s;
        best = t;
      }
    }
    return best;
  }

  void record(std::size_t t, bool improved) {
    if (history_.size() == window_) {
      const auto [old, old_improved] = history_.front();
      history_.pop_front();
      --uses_[old];
      raw_auc_[old] -= decay_[old];
      if (old_improved) --decay_[old];
    }
    ++uses_[t];
    if (improved) {
      raw_auc_[t] += uses_[t];
      ++decay_[t];
    }
    history_.emplace_back(t, improved);
  }

  double score(std::size_t t) const {
    if (uses_[t] == 0) return std::numeric_limits<double>::infinity();
    const double n = static_cast<double>(uses_[t]);
    const double auc = static_cast<double>(raw_auc_[t]) * 2.0 / (n * (n + 1.0));
    const double exploration = std::sqrt(2.0 * std::log2(static_cast<double>(history_.size())) / n);
    return auc + c_ * exploration;
  }

 private:
  double c_;
  std::size_t window_;
  std::deque<std::pair<std::size_t, bool>> history_;
  std::vector<std::int64_t> uses_, raw_auc_, decay_;
};

class AucBandit final : public Strategy {
 public:
  AucBandit(double c, std::size_t window, std::size_t start_sample)
      : c_(c), window_(window), start_sample_(start_sample) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    auto techniques = make_default_techniques();
    AucCredit credit(techniques.size(), c_, window_);
    run_ensemble(space, cost, rng, start_sample_, techniques, [&](Rng& r) { return credit.choose(r); },
                 [&](std::size_t t, bool improved) { credit.record(t, improved); });
  }

 private:
  double c_;
  std::size_t window_;
  std::size_t start_sample_;
};

}  // namespace

StrategyInfo auc_bandit_info() {
  return {"auc_bandit",
          "AUC bandit ensemble (pyATF/OpenTuner): random, hill climbing, DE recombination and pattern search, credited "
          "by improvements",
          {{"c", HyperparameterType::Float, Value(0.05), 0.0, {}, {},
            "exploration constant C of the bandit score"},
           {"window", HyperparameterType::Int, Value(std::int64_t{500}), 1.0, {}, {},
            "number of recent proposals the credit is computed over"},
           start_sample_spec()},
          [](const Hyperparameters& h) {
            return std::make_unique<AucBandit>(h.get_float("c"), static_cast<std::size_t>(h.get_int("window")),
                                               static_cast<std::size_t>(h.get_int("start_sample")));
          }};
}

}  // namespace ktune::strategies
