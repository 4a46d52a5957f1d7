// brute_force: every configuration once, in Kernel Tuner's order (lexicographic in the value indices of the
// parameters as declared, the first parameter varying slowest), so traces compare with Kernel Tuner's.
#include <algorithm>
#include <numeric>

#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

class BruteForce final : public Strategy {
 public:
  void run(const SearchSpace& space, CostFunction& cost, Rng&) override {
    const std::size_t n = space.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    // The space is stored in the solver's parameter order; re-sort only when that is not the declared order.
    const auto& lex = space.lex_order();
    bool declared = true;
    for (std::size_t i = 0; i < lex.size(); ++i) declared = declared && lex[i] == i;
    if (!declared) {
      const std::size_t d = space.num_params();
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        for (std::size_t p = 0; p < d; ++p) {
          const auto va = space.value_index(a, p), vb = space.value_index(b, p);
          if (va != vb) return va < vb;
        }
        return false;
      });
    }
    // Batches let a parallel evaluator measure several configurations at once.
    constexpr std::size_t batch = 64;
    std::vector<double> costs(batch);
    for (std::size_t begin = 0; begin < n; begin += batch) {
      const std::size_t count = std::min(batch, n - begin);
      cost(std::span<const std::size_t>(order.data() + begin, count), costs);
    }
  }
};

}  // namespace

StrategyInfo brute_force_info() {
  return {"brute_force", "every configuration once, in lexicographic order of the declared parameters", {},
          [](const Hyperparameters&) { return std::make_unique<BruteForce>(); }};
}

}  // namespace ktune::strategies
