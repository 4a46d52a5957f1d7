// genetic_algorithm: Kernel Tuner's GA (rank selection, four crossovers, Hamming mutation, neighbour repair) on value
// index vectors, plus elitism, a mutation that can step to the nearest value instead, and restarts: after maxiter
// generations, or once generations stop producing new configurations, it starts again from a fresh population of
// configurations not yet evaluated. variant=paper is the constraint-aware paper's Algorithm 3 as published (and,
// unaware, its blind baseline) instead.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

enum class Crossover { SinglePoint, TwoPoint, Uniform, DisruptiveUniform };

Crossover parse_crossover(const std::string& name) {
  if (name == "two_point") return Crossover::TwoPoint;
  if (name == "uniform") return Crossover::Uniform;
  if (name == "disruptive_uniform") return Crossover::DisruptiveUniform;
  return Crossover::SinglePoint;
}

struct GaSettings {  // filled from the declared hyperparameters (genetic_algorithm_info)
  std::size_t popsize = 26;
  std::size_t maxiter = 90;
  Crossover crossover = Crossover::SinglePoint;
  std::size_t mutation_chance = 55;
  std::size_t elitism = 2;
  bool lhs = true;
  std::size_t initial_popsize = 0;  // 0: popsize
  NeighbourMethod mutation = NeighbourMethod::HammingAdjacent;
  bool constraint_aware = true;
  // The paper's Algorithm 3: a child mutates with probability 1/mutation_chance, in exactly one parameter, to a random
  // valid Hamming neighbour (unaware: one random parameter to a random other value); an invalid child is repaired to
  // a random neighbour, not the closest; the population is replaced (no elites); and the first population is uniform
  // random (unaware: from the Cartesian product as it comes, invalid members included).
  bool paper = false;
};

struct Individual {
  Config genes;
  std::optional<std::size_t> index;  // nullopt: not a valid configuration (constraint-unaware only)
  double cost = 0;
};

// Generations in a row without a new evaluation after which the population counts as converged.
constexpr std::size_t kGaStagnantGenerations = 3;

class GeneticAlgorithm final : public Strategy {
 public:
  explicit GeneticAlgorithm(GaSettings s) : s_(s) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    if (space.size() == 0) return;
    // Kernel Tuner shrinks an oversized population for small spaces the same way.
    std::size_t popsize = s_.popsize;
    if (popsize > space.size() / 2)
      popsize = std::min(popsize, std::max<std::size_t>(
                                      2, static_cast<std::size_t>(std::lround(3.0 * static_cast<double>(space.size()) /
                                                                              static_cast<double>(s_.maxiter)))));
    popsize = population_size(popsize, space.size(), 4);  // and more: see population_size
    const std::size_t initial =
        s_.initial_popsize > popsize ? population_size(s_.initial_popsize, space.size(), popsize) : popsize;
    for (;;) {  // restarts until the budget ends
      auto population = initial_population(space, cost, rng, initial);
      std::size_t stagnant = 0;
      for (std::size_t generation = 0; generation < s_.maxiter; ++generation) {
        const auto before = cost.evaluations();
        evaluate(cost, population);
        std::stable_sort(population.begin(), population.end(),
                         [](const Individual& a, const Individual& b) { return a.cost < b.cost; });
        stagnant = cost.evaluations() == before ? stagnant + 1 : 0;
        if (stagnant >= kGaStagnantGenerations) break;
        population = next_generation(space, cost, rng, population, popsize);
      }
    }
  }

 private:
  Individual make(const SearchSpace& space, Config genes) const {
    Individual ind;
    ind.index = space.index_of(genes);
    ind.genes = std::move(genes);
    return ind;
  }

  static bool contains(const std::vector<Individual>& population, const Config& genes) {
    return std::any_of(population.begin(), population.end(), [&](const Individual& i) { return i.genes == genes; });
  }
  // The same when the genes' index is known: valid genes are equal exactly when their indices are.
  static bool contains(const std::vector<Individual>& population, const Config& genes,
                       std::optional<std::size_t> index) {
    if (!index) return contains(population, genes);
    return std::any_of(population.begin(), population.end(), [&](const Individual& i) { return i.index == index; });
  }

  // Restarts should explore: a configuration not evaluated yet (classic: from the Cartesian product, a few redraws).
  Config fresh_genes(const SearchSpace& space, const CostFunction& cost, Rng& rng) const {
    if (s_.constraint_aware) return space.config_at(fresh_valid_index(space, cost, rng));
    return fresh_cartesian_config(space, cost, rng, 8);
  }

  void fill(const SearchSpace& space, const CostFunction& cost, Rng& rng, std::vector<Individual>& population,
            std::size_t popsize) const {
    // Distinct members; bounded attempts because a tiny space may not have popsize of them left to offer.
    for (std::size_t attempt = 0; population.size() < popsize && attempt < 20 * popsize; ++attempt) {
      auto genes = fresh_genes(space, cost, rng);
      if (!contains(population, genes)) population.push_back(make(space, std::move(genes)));
    }
  }

  std::vector<Individual> initial_population(const SearchSpace& space, const CostFunction& cost, Rng& rng,
                                             std::size_t popsize) const {
    std::vector<Individual> population;
    if (s_.constraint_aware && s_.lhs && !s_.paper) {
      for (std::size_t index : space.lhs_sample(popsize, rng)) {
        // A restart should explore: replace sampled points that are known already.
        auto genes = space.config_at(cost.known(index) ? fresh_valid_index(space, cost, rng) : index);
        if (!contains(population, genes)) population.push_back(make(space, std::move(genes)));
      }
    }
    fill(space, cost, rng, population, popsize);
    if (!s_.constraint_aware && !s_.paper) {
      // The classic first generation is drawn from the Cartesian product, whose invalid members cost nothing and
      // teach nothing: draw until popsize of them are valid, so that its opening spends as many evaluations on a
      // uniform sample of the valid space as the aware one (with popsize members in all, a space with 43 % valid
      // value combinations got 11 real samples and the classic GA fell 0.13 below random search, MI250X
      // convolution, 8 seeds). The invalid ones stay in (free); the next generation has popsize members again.
      auto valid = static_cast<std::size_t>(
          std::count_if(population.begin(), population.end(), [](const Individual& i) { return i.index.has_value(); }));
      for (std::size_t attempt = 0; valid < popsize && attempt < 20 * popsize; ++attempt) {
        auto genes = fresh_genes(space, cost, rng);
        if (contains(population, genes)) continue;
        population.push_back(make(space, std::move(genes)));
        if (population.back().index) ++valid;
      }
    }
    return population;
  }

  // One batch for the valid members (a parallel evaluator measures them together); invalid ones get the penalty.
  static void evaluate(CostFunction& cost, std::vector<Individual>& population) {
    std::vector<std::size_t> batch, slots;
    for (std::size_t i = 0; i < population.size(); ++i) {
      if (population[i].index) {
        batch.push_back(*population[i].index);
        slots.push_back(i);
      } else {
        population[i].cost = cost(std::span<const std::uint32_t>(population[i].genes));
      }
    }
    std::vector<double> costs(batch.size());
    cost(batch, costs);
    for (std::size_t k = 0; k < slots.size(); ++k) population[slots[k]].cost = costs[k];
  }

  // Rank-based selection as Kernel Tuner: index int(Beta(1, 2.5) * popsize) of the population sorted best first.
  static std::size_t rank_select(std::size_t size, Rng& rng) {
    const double x = 1.0 - std::pow(1.0 - rng.uniform01(), 1.0 / 2.5);
    return std::min(size - 1, static_cast<std::size_t>(x * static_cast<double>(size)));
  }

  std::pair<Config, Config> crossover(const Config& a, const Config& b, Rng& rng) const {
    switch (s_.crossover) {
      case Crossover::SinglePoint: return single_point_crossover(a, b, rng);  // a cut strictly inside
      case Crossover::TwoPoint: return two_point_crossover(a, b, rng);
      case Crossover::Uniform: return uniform_crossover(a, b, rng);
      case Crossover::DisruptiveUniform: break;
    }
    // Disruptive uniform: swap half of the differing genes (rounded up), so both children differ from both parents.
    Config x = a, y = b;
    std::vector<std::size_t> differing;
    for (std::size_t p = 0; p < a.size(); ++p)
      if (a[p] != b[p]) differing.push_back(p);
    const std::size_t swaps = (differing.size() + 1) / 2;
    for (std::size_t k = 0; k < swaps; ++k) {
      const std::size_t j = k + static_cast<std::size_t>(rng.below(differing.size() - k));
      std::swap(differing[k], differing[j]);
      std::swap(x[differing[k]], y[differing[k]]);
    }
    return {std::move(x), std::move(y)};
  }

  // Each gene changes with probability 1/mutation_chance: to a random valid Hamming neighbour differing in that
  // gene, or with Hamming-adjacent to the nearest valid value above or below (constraint-aware); classic: to a random
  // other value, or the next one up or down.
  // True when a gene changed; `index` then holds the new genes' index (aware: the option taken last is exactly the
  // new genes, so no lookup is needed).
  bool mutate(const SearchSpace& space, Config& genes, Rng& rng, std::optional<std::size_t>& index) const {
    if (s_.paper) {
      if (!mutate_once(space, genes, rng)) return false;
      index = space.index_of(genes);
      return true;
    }
    bool changed = false;
    std::optional<std::size_t> taken;
    for (std::size_t p = 0; p < genes.size(); ++p) {
      if (rng.below(s_.mutation_chance) != 0) continue;
      const std::size_t values = space.param_values(p).size();
      if (values < 2) continue;
      if (!s_.constraint_aware) {
        if (s_.mutation == NeighbourMethod::HammingAdjacent) {  // the next value up or down in the list
          const bool up = genes[p] == 0 || (genes[p] + 1 < values && rng.below(2) == 1);
          genes[p] = up ? genes[p] + 1 : genes[p] - 1;
          changed = true;
          continue;
        }
        auto v = static_cast<std::uint32_t>(rng.below(values - 1));
        genes[p] = v >= genes[p] ? v + 1 : v;
        changed = true;
        continue;
      }
      const std::vector<std::size_t> options = space.neighbours_changing(genes, p, s_.mutation);
      if (options.empty()) continue;
      taken = options[rng.below(options.size())];
      genes[p] = space.value_index(*taken, p);
      changed = true;
    }
    if (changed) index = taken ? taken : space.index_of(genes);
    return changed;
  }

  // The paper's mutation: with probability 1/mutation_chance, one parameter changes (aware: to a random valid Hamming
  // neighbour of the child; unaware: a random parameter with more than one value, to a random other value).
  bool mutate_once(const SearchSpace& space, Config& genes, Rng& rng) const {
    if (rng.below(s_.mutation_chance) != 0) return false;
    if (s_.constraint_aware) {
      const auto options = space.neighbours(genes, NeighbourMethod::Hamming);
      if (options.empty()) return false;
      genes = space.config_at(options[rng.below(options.size())]);
      return true;
    }
    std::vector<std::size_t> free;
    for (std::size_t p = 0; p < genes.size(); ++p)
      if (space.param_values(p).size() >= 2) free.push_back(p);
    if (free.empty()) return false;
    const std::size_t p = free[rng.below(free.size())];
    const auto v = static_cast<std::uint32_t>(rng.below(space.param_values(p).size() - 1));
    genes[p] = v >= genes[p] ? v + 1 : v;
    return true;
  }

  // The paper's repair: a random neighbour by the first non-empty method of strictly-adjacent, adjacent, Hamming.
  static std::optional<std::size_t> repair_at_random(const SearchSpace& space, const Config& genes, Rng& rng) {
    for (auto method : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming}) {
      const auto options = space.neighbours(genes, method);
      if (!options.empty()) return options[rng.below(options.size())];
    }
    return std::nullopt;
  }

  std::vector<Individual> next_generation(const SearchSpace& space, const CostFunction& cost, Rng& rng,
                                          const std::vector<Individual>& sorted, std::size_t popsize) const {
    std::vector<Individual> next;
    // Elitism (Kernel Tuner has none): the best survive unchanged; they are known, so keeping them is free.
    const std::size_t elites = s_.paper ? 0 : std::min(s_.elitism, sorted.size());
    for (std::size_t i = 0; i < elites; ++i) next.push_back(sorted[i]);
    if (sorted.size() >= 2) {
      for (std::size_t attempt = 0; next.size() < popsize && attempt < 10 * popsize; ++attempt) {
        const std::size_t i = rank_select(sorted.size(), rng);
        std::size_t j = rank_select(sorted.size(), rng);
        for (int redraw = 0; j == i && redraw < 100; ++redraw) j = rank_select(sorted.size(), rng);
        if (j == i) j = (i + 1) % sorted.size();
        auto [x, y] = crossover(sorted[i].genes, sorted[j].genes, rng);
        for (Config* child : {&x, &y}) {
          if (next.size() >= popsize) break;
          // One lookup serves the validity check and the individual's index (a mutation knows the index it moves to).
          std::optional<std::size_t> index = space.index_of(*child);
          if (s_.constraint_aware && !index) {
            index = s_.paper ? repair_at_random(space, *child, rng) : repair_by_neighbours(space, *child, {}, rng);
            if (!index) continue;
            *child = space.config_at(*index);
          }
          mutate(space, *child, rng, index);
          if (!contains(next, *child, index)) next.push_back(Individual{std::move(*child), index, 0.0});
        }
      }
    }
    // Too few distinct children (a converged population): top up with fresh configurations.
    fill(space, cost, rng, next, popsize);
    return next;
  }

  GaSettings s_;
};

}  // namespace

StrategyInfo genetic_algorithm_info() {
  return {"genetic_algorithm",
          "genetic algorithm with rank selection, crossover, mutation to a near value, repair, elitism and restarts",
          // Kernel Tuner's popsize, method and mutation_chance, LHS sampling, and from `ktune hypertune` (round 8 of
          // docs/hyperparameters.md) two elites and the Hamming-adjacent mutation.
          // popsize 10 (was 26, as Kernel Tuner): chosen in every fold of the default strategy's nested protocol
          // (issue 35, docs/strategies.md): held-out 0.591 against 0.562, sub-spaces 0.355 against 0.294.
          {{"popsize", HyperparameterType::Int, Value(10), 2.0, {}, {},
            "individuals per generation (at most one per 32 configurations of a small space, at least 4)"},
           {"maxiter", HyperparameterType::Int, Value(90), 1.0, {}, {},
            "generations before restarting from a fresh population"},
           {"method", HyperparameterType::String, Value(std::string("single_point")), {}, {},
            {"single_point", "two_point", "uniform", "disruptive_uniform"}, "crossover method"},
           {"mutation_chance", HyperparameterType::Int, Value(55), 1.0, {}, {},
            "each gene mutates with probability 1/mutation_chance"},
           {"elitism", HyperparameterType::Int, Value(2), 0.0, {}, {},
            "best individuals copied unchanged into the next generation"},
           {"sampling", HyperparameterType::String, Value(std::string("lhs")), {}, {}, {"random", "lhs"},
            "initial population of valid configurations: uniform random or Latin hypercube (Kernel Tuner: random)"},
           {"initial_popsize", HyperparameterType::Int, Value(0), 0.0, {}, {},
            "individuals of each first generation, when larger than popsize (0: popsize)"},
           {"mutation", HyperparameterType::String, Value(std::string("Hamming-adjacent")), {}, {},
            {"Hamming", "Hamming-adjacent"}, "a mutated gene takes any other valid value, or the nearest one"},
           constraint_aware_spec(),
           variant_spec("Algorithm 3: one mutated parameter per child, random repair, no elites; unaware, a blind "
                        "random first population")},
          [](const Hyperparameters& h) {
            GaSettings s;
            s.popsize = static_cast<std::size_t>(h.get_int("popsize"));
            s.maxiter = static_cast<std::size_t>(h.get_int("maxiter"));
            s.crossover = parse_crossover(h.get_string("method"));
            s.mutation_chance = static_cast<std::size_t>(h.get_int("mutation_chance"));
            s.elitism = static_cast<std::size_t>(h.get_int("elitism"));
            s.lhs = latin_hypercube_opening(h);
            s.mutation = *parse_neighbour_method(h.get_string("mutation"));
            s.initial_popsize = static_cast<std::size_t>(h.get_int("initial_popsize"));
            s.constraint_aware = h.get_bool("constraint_aware");
            s.paper = h.get_string("variant") == "paper";
            return std::make_unique<GeneticAlgorithm>(s);
          }};
}

}  // namespace ktune::strategies
