#pragma once
// pyATF's own search techniques (pyatf_simulated_annealing, pyatf_differential_evolution), as the constraint-aware
// paper ran them inside Kernel Tuner (its pyatf_strategies wrapper). A pyATF technique works in the coordinate space
// (0,1]^d and never sees a configuration: pyATF's chain of trees maps every coordinate vector to a valid one, layer
// by layer, coordinate k choosing the child of the current node whose share of the valid configurations below it
// contains coordinate_k x (configurations below the node). So a technique never proposes an invalid configuration,
// and a parameter value with many valid completions covers more of its coordinate's range.
//
// The techniques take their random numbers from a PyatfRandom (Python's random.random() and the index random.choice
// and random.randint draw), so a test can replay the numbers a run of pyATF's own source drew.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"

namespace ktune::strategies {

class PyatfRandom {
 public:
  virtual ~PyatfRandom() = default;
  virtual double random() = 0;                       // uniform in [0, 1)
  virtual std::uint64_t below(std::uint64_t n) = 0;  // uniform in [0, n), n > 0
};

// Draws from a ktune Rng (runs); a test's scripted source replays recorded numbers instead.
class RngPyatfRandom final : public PyatfRandom {
 public:
  explicit RngPyatfRandom(Rng& rng) : rng_(rng) {}
  double random() override { return rng_.uniform01(); }
  std::uint64_t below(std::uint64_t n) override { return rng_.below(n); }

 private:
  Rng& rng_;
};

// The ask/tell interface of pyATF's SearchTechnique, one coordinate vector at a time.
class PyatfTechnique {
 public:
  virtual ~PyatfTechnique() = default;
  virtual void initialize(std::size_t dimensionality) = 0;
  // The next coordinates to cost, each in [the smallest positive double, 1] (pyATF's clamp_coordinates_capped).
  virtual std::vector<double> next() = 0;
  // The cost of the coordinates next() returned last; +inf for a configuration that failed.
  virtual void report(std::span<const double> coordinates, double cost) = 0;
};

// pyATF's clamp_coordinates_capped: every coordinate into [the smallest positive double (math.ulp(0.0)), 1].
std::vector<double> clamp_coordinates_capped(std::vector<double> x);

std::unique_ptr<PyatfTechnique> make_pyatf_simulated_annealing(PyatfRandom& random);
struct PyatfDifferentialEvolutionSettings {
  std::size_t vectors = 30;  // NUM_VECTORS
  double f = 0.7;            // F_VAL
  double cr = 0.2;           // CR
};
std::unique_ptr<PyatfTechnique> make_pyatf_differential_evolution(PyatfRandom& random,
                                                                  PyatfDifferentialEvolutionSettings settings);

// pyATF's coordinate mapping over a space's valid configurations, one layer per parameter in parameter order.
// Where pyATF would split the parameters into several trees (independent groups) the result is the same, up to the
// rounding of coordinate x count at the exact edge between two children; pyATF also orders its layers group by
// group, which only renames which coordinate drives which parameter.
class CoordinateMap {
 public:
  explicit CoordinateMap(const SearchSpace& space);
  // A map whose layer k is parameter layers[k] of `space` (a group's parameters in the whole space's order).
  CoordinateMap(const SearchSpace& space, std::vector<std::size_t> layers);
  // The configuration index of coordinates (one per layer, each in (0, 1]); the space must not be empty.
  std::size_t index(std::span<const double> coordinates) const;

 private:
  std::uint32_t value(std::size_t position, std::size_t layer) const;
  const SearchSpace& space_;
  std::vector<std::size_t> layers_;   // layer k is parameter layers_[k]
  std::vector<std::uint32_t> order_;  // positions in the layers' lexicographic order (empty: the space's own)
  std::vector<std::unique_ptr<CoordinateMap>> groups_;  // lazy form: one map per independent group
};

// Kernel Tuner's loop around a pyATF technique: ask, map to a configuration, cost it (revisits are free, as Kernel
// Tuner's cache makes them), report; until the cost function ends the run.
void run_pyatf_technique(const SearchSpace& space, CostFunction& cost, PyatfTechnique& technique);

}  // namespace ktune::strategies
