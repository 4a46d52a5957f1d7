"""Scripted language-model replies for ktune design's tests: strategies that work, and each way a candidate fails."""

HEADER = """#include <memory>
#include <vector>
#include <stdexcept>
#include <ktune/plugin.hpp>
#include <ktune/strategy_toolkit.hpp>
"""


def plugin(name, body, description):
    code = HEADER + """
namespace {
class Candidate final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
%s
  }
};
ktune::StrategyInfo describe() {
  return {"%s", "%s", {}, [](const ktune::Hyperparameters&) { return std::make_unique<Candidate>(); }};
}
}  // namespace
KTUNE_STRATEGY_PLUGIN(describe)
""" % (body, name, description)
    return "# Description: %s\n\n```cpp\n%s```\n" % (description, code)


RANDOM = """    for (;;) cost(ktune::strategies::fresh_valid_index(space, cost, rng));"""


def climb(sample, method):
    return """    for (;;) {
      std::size_t current = 0;
      double current_cost = ktune::CostFunction::kInvalidCost;
      for (int i = 0; i < %d; ++i) {
        const std::size_t c = ktune::strategies::fresh_valid_index(space, cost, rng);
        const double v = cost(c);
        if (v < current_cost) { current = c; current_cost = v; }
      }
      for (bool improved = true; improved;) {
        improved = false;
        for (std::size_t n : space.neighbours(current, ktune::NeighbourMethod::%s)) {
          if (cost.known(n)) continue;
          const double v = cost(n);
          if (v < current_cost) { current = n; current_cost = v; improved = true; break; }
        }
      }
    }""" % (sample, method)


def working(i):
    kinds = [("random_search", RANDOM, "uniform random search over unevaluated valid configurations"),
             ("climb_hamming", climb(8, "Hamming"), "best of 8 random samples, then first-improvement Hamming climb"),
             ("climb_adjacent", climb(16, "Adjacent"), "best of 16 random samples, then adjacent climb"),
             ("climb_strict", climb(4, "StrictlyAdjacent"), "best of 4 random samples, then strictly-adjacent climb"),
             ("climb_hamming_wide", climb(24, "Hamming"), "best of 24 random samples, then Hamming climb"),
             ("climb_closest", climb(12, "ClosestParamIndices"), "best of 12 samples, then closest-index climb")]
    name, body, description = kinds[i % len(kinds)]
    return plugin("%s_%d" % (name, i), body, description)


NO_COMPILE = plugin("broken", "    undeclared_function(space, cost);", "calls a function that does not exist")
CRASH = plugin("crasher", "    cost(0);\n    volatile int* p = nullptr;\n    *p = 1;", "writes through a null pointer")
ENDLESS = plugin("endless", "    cost(0);\n    volatile unsigned long spin = 0;\n    for (;;) spin = spin + 1;",
                 "spins forever without evaluating")
THROWS = plugin("thrower", "    cost(0);\n    throw std::runtime_error(\"candidate gave up\");", "throws an exception")
# Reserves 128 MiB blocks until the worker's address-space limit: untouched, so reaching the limit does not depend on
# how fast the machine maps pages (filling them took 6 s for 2 GiB on one machine, past the 5 s run limit).
HOG = plugin("hog", "    std::vector<std::vector<double>> v;\n    for (;;) { v.emplace_back(); v.back().reserve(std::size_t{1} << 24); }",
             "allocates without bound")
NO_CODE = "<think>The user wants code, but I will only describe it.</think>I would use a genetic algorithm with " \
          "tournament selection, but I will not write the code."


def script():
    """16 candidates, in call order, with a 429 before the fourth."""
    steps = [working(0), NO_COMPILE, working(1), {"status": 429}, working(2),
             CRASH, working(3), ENDLESS, working(4), NO_CODE, working(5), THROWS,
             working(6), HOG, working(7), working(8), working(9)]
    return [s if isinstance(s, dict) else {"content": s} for s in steps]
