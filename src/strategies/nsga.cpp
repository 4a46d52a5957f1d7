#include "strategies/nsga.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

// A valid configuration not evaluated yet, found by a few random draws, then by a walk from a random place.
std::optional<std::size_t> fresh_index(const SearchSpace& space, const CostFunction& cost, Rng& rng,
                                       const std::unordered_set<std::size_t>& taken) {
  const std::size_t n = space.size();
  for (int attempt = 0; attempt < 64; ++attempt) {
    const auto i = static_cast<std::size_t>(rng.below(n));
    if (!cost.known(i) && !taken.count(i)) return i;
  }
  const auto start = static_cast<std::size_t>(rng.below(n));
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (start + k) % n;
    if (!cost.known(i) && !taken.count(i)) return i;
  }
  return std::nullopt;
}

}  // namespace

std::pair<Config, Config> crossover(NsgaCrossover kind, const Config& a, const Config& b, Rng& rng) {
  switch (kind) {
    case NsgaCrossover::SinglePoint: return single_point_crossover(a, b, rng);
    case NsgaCrossover::Uniform: return uniform_crossover(a, b, rng);
    case NsgaCrossover::TwoPoint: break;
  }
  return two_point_crossover(a, b, rng);
}

std::vector<double> NsgaBase::objective_matrix(const std::vector<MoIndividual>& population) {
  std::vector<double> f;
  if (population.empty()) return f;
  f.reserve(population.size() * population.front().f.size());
  for (const auto& ind : population) f.insert(f.end(), ind.f.begin(), ind.f.end());
  return f;
}

std::vector<std::size_t> NsgaBase::tournament_pairs(std::size_t population, std::size_t n_select, Rng& rng) {
  const std::size_t needed = n_select * 2;
  std::vector<std::size_t> p;
  p.reserve(needed + population);
  while (p.size() < needed) {
    std::vector<std::size_t> perm(population);
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
    p.insert(p.end(), perm.begin(), perm.end());
  }
  p.resize(needed);
  return p;
}

void NsgaBase::evaluate(CostFunction& cost, std::vector<MoIndividual>& individuals) {
  std::vector<std::size_t> batch(individuals.size());
  for (std::size_t i = 0; i < individuals.size(); ++i) batch[i] = individuals[i].index;
  std::vector<double> scalar(batch.size());
  // One batch (a parallel evaluator measures them together); if the budget ends inside it, the evaluated prefix is
  // recorded and BudgetExhausted ends the run.
  cost(batch, scalar);
  for (auto& ind : individuals) {
    const auto c = cost.costs(ind.index);  // known now: free
    ind.f.assign(c.begin(), c.end());
    for (double& v : ind.f)
      if (!std::isfinite(v) || v > kFailedCost) v = kFailedCost;
  }
}

std::vector<MoIndividual> NsgaBase::offspring(const SearchSpace& space, const CostFunction& cost,
                                              const std::vector<MoIndividual>& population, Rng& rng) const {
  const std::size_t wanted = s_.popsize;
  std::vector<MoIndividual> off;
  std::unordered_set<std::size_t> taken;
  for (const auto& ind : population) taken.insert(ind.index);
  auto accept = [&](std::size_t index) {
    if (off.size() >= wanted || cost.known(index) || !taken.insert(index).second) return;
    MoIndividual child;
    child.index = index;
    off.push_back(std::move(child));
  };
  // pymoo's mating: repeated (up to 100 times) until enough unique children are found.
  for (int round = 0; round < 100 && off.size() < wanted && population.size() >= 2; ++round) {
    const std::size_t n_matings = (wanted - off.size() + 1) / 2;
    const auto parents = select_parents(population, n_matings * 2, rng);
    for (std::size_t k = 0; k + 1 < parents.size(); k += 2) {
      Config a = space.config_at(population[parents[k]].index);
      Config b = space.config_at(population[parents[k + 1]].index);
      Config x, y;
      if (rng.uniform01() < s_.crossover_probability) {
        std::tie(x, y) = crossover(s_.crossover, a, b, rng);
      } else {
        x = std::move(a);
        y = std::move(b);
      }
      for (Config* child : {&x, &y}) {
        // Mutation: the whole child moves to a random valid Hamming neighbour (KT's neighbourhood mutation).
        bool valid = space.is_valid(*child);
        if (!valid) {
          const auto repaired = repair_by_neighbours(space, *child, {}, rng);
          if (!repaired) continue;
          *child = space.config_at(*repaired);
        }
        if (rng.uniform01() < s_.mutation_probability) {
          const auto options = space.neighbours(*child, NeighbourMethod::Hamming);
          if (!options.empty()) *child = space.config_at(options[rng.below(options.size())]);
        }
        if (const auto index = space.index_of(*child)) accept(*index);
      }
    }
  }
  // Not enough new children (a converged population or a nearly exhausted space): fresh configurations.
  while (off.size() < wanted) {
    const auto index = fresh_index(space, cost, rng, taken);
    if (!index) break;
    accept(*index);
  }
  return off;
}

void NsgaBase::run(const SearchSpace& space, CostFunction& cost, Rng& rng) {
  if (space.size() == 0) return;
  const std::size_t m = cost.objectives().size();
  prepare(m, s_.popsize);
  // Initial population: distinct valid configurations, uniformly at random (as Kernel Tuner samples them) or by
  // Latin hypercube.
  std::vector<MoIndividual> population;
  std::unordered_set<std::size_t> taken;
  const std::size_t n0 = std::min(s_.popsize, space.size());
  for (std::size_t index : s_.lhs ? space.lhs_sample(n0, rng) : space.random_sample(n0, rng)) {
    if (!taken.insert(index).second) continue;
    MoIndividual ind;
    ind.index = index;
    population.push_back(std::move(ind));
  }
  evaluate(cost, population);
  const std::size_t initial = population.size();  // read before the move below
  population = survive(std::move(population), initial, rng);
  for (;;) {
    auto children = offspring(space, cost, population, rng);
    if (children.empty()) return;  // everything has been evaluated
    evaluate(cost, children);
    const std::size_t n_survive = std::max(population.size(), std::min(s_.popsize, population.size() + children.size()));
    population.insert(population.end(), std::make_move_iterator(children.begin()),
                      std::make_move_iterator(children.end()));
    population = survive(std::move(population), n_survive, rng);
  }
}

std::vector<HyperparameterSpec> nsga_common_hyperparameters() {
  return {{"popsize", HyperparameterType::Int, Value(20), 2.0, {}, {}, "individuals per generation"},
          {"crossover", HyperparameterType::String, Value(std::string("two_point")), {}, {},
           {"single_point", "two_point", "uniform"},
           "recombination of two parents: one cut, two cuts (Kernel Tuner), or every gene from either parent"},
          {"crossover_probability", HyperparameterType::Float, Value(1.0), 0.0, 1.0, {},
           "probability that two parents are recombined (else copied)"},
          {"mutation_probability", HyperparameterType::Float, Value(0.1), 0.0, 1.0, {},
           "probability that a child moves to a random valid Hamming neighbour"},
          {"sampling", HyperparameterType::String, Value(std::string("random")), {}, {}, {"random", "lhs"},
           "initial population of valid configurations: uniform random (Kernel Tuner) or Latin hypercube"}};
}

NsgaSettings nsga_settings(const Hyperparameters& h) {
  NsgaSettings s;
  s.popsize = static_cast<std::size_t>(h.get_int("popsize"));
  const std::string crossover = h.get_string("crossover");
  s.crossover = crossover == "single_point" ? NsgaCrossover::SinglePoint
                : crossover == "uniform"    ? NsgaCrossover::Uniform
                                            : NsgaCrossover::TwoPoint;
  s.crossover_probability = h.get_float("crossover_probability");
  s.mutation_probability = h.get_float("mutation_probability");
  s.lhs = latin_hypercube_opening(h);
  return s;
}

}  // namespace ktune::strategies
