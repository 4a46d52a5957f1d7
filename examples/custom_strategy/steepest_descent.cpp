// A strategy plug-in (Kernel Tuner's "OptAlg" wrapper, as a shared library): steepest descent over neighbours from
// random valid starts, usable wherever a strategy name is.
//
//   ktune tune --simulate RESULTS --strategy examples/custom_strategy/steepest_descent.cpp   # compiled, cached
//   c++ -std=c++20 -O2 -fPIC -shared $(pkg-config --cflags ktune) steepest_descent.cpp -o steepest_descent.so
//   ktune tune --simulate RESULTS --strategy ./steepest_descent.so --set neighbor=adjacent
//   ktune strategies --plugin ./steepest_descent.so
#include <memory>

#include <ktune/plugin.hpp>

namespace {

// Only valid configurations are ever asked for (neighbours() returns valid ones), and the cost function ends the run
// by throwing BudgetExhausted, so the loop needs no budget logic of its own.
class SteepestDescent final : public ktune::Strategy {
 public:
  explicit SteepestDescent(ktune::NeighbourMethod method) : method_(method) {}

  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    for (;;) {
      std::size_t current = static_cast<std::size_t>(rng.below(space.size()));
      double current_cost = cost(current);
      for (;;) {
        std::size_t best = current;
        double best_cost = current_cost;
        for (std::size_t n : space.neighbours(current, method_)) {
          const double c = cost(n);  // revisits are answered from memory, free
          if (c < best_cost) {
            best = n;
            best_cost = c;
          }
        }
        if (best == current) break;  // a local optimum: restart
        current = best;
        current_cost = best_cost;
      }
    }
  }

 private:
  ktune::NeighbourMethod method_;
};

// A name, a line of description, declared hyperparameters (typed, with defaults and choices: they are checked,
// listed by `ktune strategies --plugin` and settable with --set or name:key=value), and a factory.
ktune::StrategyInfo describe() {
  return {"steepest_descent",
          "steepest descent over neighbours from random valid starts",
          {{"neighbor", ktune::HyperparameterType::String, ktune::Value(std::string("Hamming")), {}, {},
            {"Hamming", "adjacent", "strictly-adjacent"}, "which neighbours a step looks at"}},
          [](const ktune::Hyperparameters& h) {
            return std::make_unique<SteepestDescent>(*ktune::parse_neighbour_method(h.get_string("neighbor")));
          }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
