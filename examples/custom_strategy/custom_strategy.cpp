// A user-defined strategy (Kernel Tuner's "OptAlg" wrapper): a class implementing ktune::Strategy, registered at run
// time with its hyperparameters, then tuned and compared exactly like the built-in ones.
//
// Run: build/ktune_custom_strategy_example T1_FILE CACHE, e.g. with ../shared/data/benchmark_hub/t1/dedispersion_milo.json
// and ../shared/data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz (a test does exactly that).
#include <cstdio>
#include <memory>
#include <string>

#include "ktune/io/results_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"

namespace {

// Steepest descent over neighbours from random valid starts. Only valid configurations are ever asked for
// (neighbours() returns valid ones), and the cost function ends the run by throwing BudgetExhausted, so the loop
// needs no budget logic of its own.
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s T1_FILE BRUTE_FORCED_CACHE\n", argv[0]);
    return 2;
  }
  // 1. Register: a name, a line of description, declared hyperparameters (typed, with defaults and ranges: they are
  //    checked, listed by `ktune strategies` and settable as name:key=value), and a factory.
  ktune::register_strategy(
      {"steepest_descent",
       "steepest descent over Hamming neighbours from random valid starts",
       {{"neighbor", ktune::HyperparameterType::String, ktune::Value(std::string("Hamming")), {}, {},
         {"Hamming", "adjacent", "strictly-adjacent"}, "which neighbours a step looks at"}},
       [](const ktune::Hyperparameters& h) {
         return std::make_unique<SteepestDescent>(
             *ktune::parse_neighbour_method(h.get_string("neighbor")));  // the choices are all valid names
       }});

  // 2. Use it like any strategy: here a simulated run replaying a brute-forced cache.
  try {
    const auto space = ktune::SearchSpace::build(ktune::io::read_t1_file(argv[1]));
    auto results = std::make_shared<const ktune::io::ResultsFile>(ktune::io::read_results_file(argv[2]));
    ktune::SimulationEvaluator evaluator(space, results, ktune::make_objectives({"time"}));
    auto strategy = ktune::make_strategy("steepest_descent", {{"neighbor", ktune::Value(std::string("adjacent"))}});
    ktune::TuningOptions options;
    options.budget.max_evaluations = 300;
    options.seed = 1;
    const auto result = ktune::tune(space, evaluator, *strategy, options);
    const auto best = result.trace.best();
    if (!best) {
      std::fprintf(stderr, "no valid result\n");
      return 1;
    }
    std::printf("steepest_descent: %llu evaluations, best time %.4f ms\n",
                static_cast<unsigned long long>(result.evaluations), result.trace.values(*best).front());
    return result.evaluations == 300 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
