// random_sample: uniform sampling without replacement until the budget (or the optional fraction) ends.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/uniform_sample_stream.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

class RandomSample final : public Strategy {
 public:
  explicit RandomSample(double fraction) : fraction_(fraction) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    const std::size_t n = space.size();
    const auto samples = std::min(n, static_cast<std::size_t>(std::ceil(fraction_ * static_cast<double>(n))));
    UniformSampleStream shuffle(n, rng);  // the stream every strategy's uniform opening draws from
    // In batches, so that a live evaluator can compile the next ones while it measures; the draws do not depend on
    // the costs, so the configurations and their order are those of one draw at a time.
    constexpr std::size_t kBatch = 16;
    std::vector<std::size_t> batch;
    std::vector<double> costs(kBatch);
    for (std::size_t i = 0; i < samples; i += kBatch) {
      batch.clear();
      for (std::size_t j = i; j < std::min(samples, i + kBatch); ++j) batch.push_back(*shuffle.next());
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
