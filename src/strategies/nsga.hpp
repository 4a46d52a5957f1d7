#pragma once
// The generational loop NSGA-II and NSGA-III share (pymoo's GeneticAlgorithm as Kernel Tuner's wrapper configures it,
// multiobjective.md §3.1): a population of valid configurations, binary-tournament mating, two-point crossover,
// mutation to a random valid Hamming neighbour, repair of invalid children (strictly-adjacent -> adjacent ->
// Hamming) and duplicate elimination, then survival of the merged population. The algorithms differ in how parents
// are selected and who survives.
//
// Unlike pymoo, duplicates are eliminated against everything evaluated so far, not only the current population:
// a known configuration would cost nothing but teach nothing, and a converged population would otherwise spin
// without spending budget. When mating cannot produce enough new children, fresh random configurations fill up.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/strategy.hpp"

namespace ktune::strategies {

struct MoIndividual {
  std::size_t index = 0;  // a valid configuration
  std::vector<double> f;  // one minimised cost per objective; failures get kFailedCost in every objective
  std::size_t rank = 0;   // non-dominated front (0 = best)
  double crowding = 0;    // NSGA-II crowding distance
};

// What a failed configuration costs in every objective: finite (as Kernel Tuner's sys.float_info.max) so that
// normalisation and crowding stay finite, but far worse than any measurement.
inline constexpr double kFailedCost = 1e300;

// The thesis's three recombinations (pymoo's SinglePointCrossover, TwoPointCrossover, UniformCrossover).
enum class NsgaCrossover { SinglePoint, TwoPoint, Uniform };

// Two children of parents a and b (equal lengths) by `kind`.
std::pair<Config, Config> crossover(NsgaCrossover kind, const Config& a, const Config& b, Rng& rng);

struct NsgaSettings {
  std::size_t popsize = 20;
  NsgaCrossover crossover = NsgaCrossover::TwoPoint;
  double crossover_probability = 1.0;
  double mutation_probability = 0.1;
  bool lhs = false;  // initial population: Latin hypercube instead of uniform random
};

class NsgaBase : public Strategy {
 public:
  explicit NsgaBase(NsgaSettings settings) : s_(settings) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) final;

 protected:
  // Called once before the first survival with the number of objectives.
  virtual void prepare(std::size_t objectives, std::size_t popsize) = 0;
  // `n` parent indices into `population` (used in pairs).
  virtual std::vector<std::size_t> select_parents(const std::vector<MoIndividual>& population, std::size_t n,
                                                  Rng& rng) const = 0;
  // Keeps `n_survive` of `merged` (sets rank and, where used, crowding).
  virtual std::vector<MoIndividual> survive(std::vector<MoIndividual> merged, std::size_t n_survive, Rng& rng) = 0;

  // The objective costs as one row-major array (for the indicator functions).
  static std::vector<double> objective_matrix(const std::vector<MoIndividual>& population);
  // pymoo's random permutations concatenated: the tournament pairs of TournamentSelection(pressure=2).
  static std::vector<std::size_t> tournament_pairs(std::size_t population, std::size_t n_select, Rng& rng);

  NsgaSettings s_;

 private:
  std::vector<MoIndividual> offspring(const SearchSpace& space, const CostFunction& cost,
                                      const std::vector<MoIndividual>& population, Rng& rng) const;
  static void evaluate(CostFunction& cost, std::vector<MoIndividual>& individuals);
};

// Hyperparameters both declare.
std::vector<HyperparameterSpec> nsga_common_hyperparameters();
NsgaSettings nsga_settings(const Hyperparameters& h);

}  // namespace ktune::strategies
