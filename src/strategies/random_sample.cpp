// random_sample: uniform sampling without replacement until the budget (or the optional fraction) ends.
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

// Fisher-Yates drawn one element at a time, so sampling stops as soon as the budget does. Dense for spaces that fit
// comfortably, a hash map of displaced slots above; both give the same sequence for the same generator.
class LazyShuffle {
 public:
  explicit LazyShuffle(std::size_t n) : n_(n) {
    if (n <= kDenseLimit) {
      dense_.resize(n);
      for (std::size_t i = 0; i < n; ++i) dense_[i] = static_cast<std::uint32_t>(i);
    }
  }
  std::size_t next(Rng& rng) {
    const std::size_t j = drawn_ + static_cast<std::size_t>(rng.below(n_ - drawn_));
    std::size_t picked;
    if (!dense_.empty()) {
      picked = dense_[j];
      dense_[j] = dense_[drawn_];
    } else {
      picked = at(j);
      sparse_[j] = at(drawn_);
    }
    ++drawn_;
    return picked;
  }

 private:
  static constexpr std::size_t kDenseLimit = std::size_t{1} << 24;
  std::size_t at(std::size_t i) const {
    const auto it = sparse_.find(i);
    return it == sparse_.end() ? i : it->second;
  }
  std::size_t n_, drawn_ = 0;
  std::vector<std::uint32_t> dense_;
  std::unordered_map<std::size_t, std::size_t> sparse_;
};

class RandomSample final : public Strategy {
 public:
  explicit RandomSample(double fraction) : fraction_(fraction) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    const std::size_t n = space.size();
    const auto samples = std::min(n, static_cast<std::size_t>(std::ceil(fraction_ * static_cast<double>(n))));
    LazyShuffle shuffle(n);
    // In batches, so that a live evaluator can compile the next ones while it measures; the draws do not depend on
    // the costs, so the configurations and their order are those of one draw at a time.
    constexpr std::size_t kBatch = 16;
    std::vector<std::size_t> batch;
    std::vector<double> costs(kBatch);
    for (std::size_t i = 0; i < samples; i += kBatch) {
      batch.clear();
      for (std::size_t j = i; j < std::min(samples, i + kBatch); ++j) batch.push_back(shuffle.next(rng));
      cost(batch, costs);
    }
  }

 private:
  double fraction_;
};

}  // namespace

StrategyInfo random_sample_info() {
  return {"random_sample",
          "uniform random configurations without replacement until the budget ends",
          {{"fraction", HyperparameterType::Float, Value(1.0), 0.0, 1.0, {},
            "stop after this fraction of the search space has been sampled", /*min_exclusive=*/true}},
          [](const Hyperparameters& h) { return std::make_unique<RandomSample>(h.get_float("fraction")); }};
}

}  // namespace ktune::strategies
