// diff_evo: Kernel Tuner's discrete differential evolution on value index vectors (12 mutation/crossover variants,
// Latin-hypercube start, repair to the nearest valid configuration in index distance). Unlike Kernel Tuner, a
// stagnating population is re-seeded (keeping the best) and the stagnation counter starts again, so the search
// never degenerates into repeated Latin-hypercube sampling. variant=paper is the constraint-aware paper's DE: 16
// members per tunable parameter, a generation without any change of the population counts as stagnant, and after
// two of them the next generation's trials are a fresh sample (Latin hypercube of valid configurations, or blind
// Cartesian draws unaware) that each member meets in the usual selection.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

enum class Base { Best, Rand, CurrentToBest, RandToBest };

const std::vector<std::string>& method_names() {
  static const std::vector<std::string> names = {"best1bin",          "best1exp",          "rand1bin",
                                                 "rand1exp",          "best2bin",          "best2exp",
                                                 "rand2bin",          "rand2exp",          "currenttobest1bin",
                                                 "currenttobest1exp", "randtobest1bin",    "randtobest1exp"};
  return names;
}

// Kernel Tuner's default maxiter (1e15) never ends a run within any budget: re-seeding on stagnation only.
constexpr std::int64_t kUnlimitedGenerations = 1'000'000'000;

struct DiffEvoSettings {  // filled from the declared hyperparameters (diff_evo_info)
  Base base = Base::Best;
  std::size_t differences = 2;  // difference vectors in the mutant
  bool exponential = false;     // crossover: contiguous block (exp) or per dimension (bin)
  std::size_t popsize = 8;
  bool popsize_times_dimensions = false;
  double F = 1.0;
  double CR = 0.9;
  std::int64_t maxiter = kUnlimitedGenerations;  // generations of one population before it is re-seeded
  bool constraint_aware = true;
  bool paper = false;
};

// Parses <base><1|2><bin|exp>; the name was checked against method_names() already.
void parse_method(const std::string& name, DiffEvoSettings& s) {
  s.exponential = name.ends_with("exp");
  const std::string stem = name.substr(0, name.size() - 3);
  s.differences = stem.back() == '2' ? 2 : 1;
  const std::string base = stem.substr(0, stem.size() - 1);
  s.base = base == "best" ? Base::Best : base == "rand" ? Base::Rand : base == "currenttobest" ? Base::CurrentToBest
                                                                                               : Base::RandToBest;
}

struct Member {
  Config genes;
  std::optional<std::size_t> index;  // nullopt: invalid (constraint-unaware only)
  double cost = 0;
};

// Generations in a row without any member improving after which the population is re-seeded.
constexpr std::size_t kDeStagnantGenerations = 3;
// variant=paper: members per tunable parameter, and generations in a row without any change before a fresh sample.
constexpr std::size_t kPaperMembersPerParameter = 16;
constexpr std::size_t kPaperStagnantGenerations = 2;
// Duplicate trial vectors tolerated in a row before a random configuration is used instead (Kernel Tuner's 20).
constexpr int kDuplicateRetries = 20;

class DifferentialEvolution final : public Strategy {
 public:
  explicit DifferentialEvolution(DiffEvoSettings s) : s_(s) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    if (space.size() == 0) return;
    const std::size_t d = space.num_params();
    std::size_t popsize = s_.paper ? kPaperMembersPerParameter : s_.popsize;
    if (s_.popsize_times_dimensions || s_.paper)
      popsize *= std::max<std::size_t>(1, std::min(space.tunable_params().size(), space.size()));
    popsize = population_size(popsize, space.size(), 5);

    std::vector<Member> population = seed(space, cost, rng, popsize, {});
    evaluate(cost, population);
    std::size_t stagnant = 0;
    std::int64_t generation = 0;
    std::vector<Member> trials;
    std::vector<double> mutant(d);
    for (;;) {
      const std::size_t best = best_of(population);
      trials.clear();
      if (s_.paper && stagnant >= kPaperStagnantGenerations) {
        trials = seed(space, cost, rng, population.size(), {});
        stagnant = 0;
      }
      for (std::size_t i = trials.size(); i < population.size(); ++i) {
        Config trial;
        bool unique = false;
        for (int retry = 0; retry < kDuplicateRetries && !unique; ++retry) {
          trial = make_trial(space, population, i, best, mutant, rng);
          unique = !contains(trials, trial);
        }
        if (!unique) trial = fresh_genes(space, cost, rng);
        trials.push_back(make(space, std::move(trial)));
      }
      evaluate(cost, trials);
      // Greedy selection: a trial replaces its target if it is no worse and not in the population yet.
      bool improved = false, changed = false;
      for (std::size_t i = 0; i < population.size(); ++i) {
        if (trials[i].cost <= population[i].cost && !contains(population, trials[i].genes)) {
          improved = improved || trials[i].cost < population[i].cost;
          changed = true;
          population[i] = std::move(trials[i]);
        }
      }
      if (s_.paper) {
        // The fresh sample comes as the next generation's trials (also after maxiter generations).
        stagnant = changed ? 0 : stagnant + 1;
        if (++generation >= s_.maxiter) stagnant = kPaperStagnantGenerations, generation = 0;
        continue;
      }
      stagnant = improved ? 0 : stagnant + 1;
      if (stagnant >= kDeStagnantGenerations || ++generation >= s_.maxiter) {
        // Converged or old: keep the best, start the others afresh where nothing was evaluated yet.
        Member kept = population[best_of(population)];
        population = seed(space, cost, rng, popsize, kept);
        evaluate(cost, population);
        stagnant = 0;
        generation = 0;
      }
    }
  }

 private:
  Member make(const SearchSpace& space, Config genes) const {
    Member m;
    m.index = space.index_of(genes);
    m.genes = std::move(genes);
    return m;
  }

  static bool contains(const std::vector<Member>& population, const Config& genes) {
    return std::any_of(population.begin(), population.end(), [&](const Member& m) { return m.genes == genes; });
  }

  static std::size_t best_of(const std::vector<Member>& population) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < population.size(); ++i)
      if (population[i].cost < population[best].cost) best = i;
    return best;
  }

  Config fresh_genes(const SearchSpace& space, const CostFunction& cost, Rng& rng) const {
    if (s_.constraint_aware) return space.config_at(fresh_valid_index(space, cost, rng));
    return fresh_cartesian_config(space, cost, rng, 8);
  }

  // A Latin-hypercube population of valid configurations (constraint-aware; sampled points already evaluated are
  // swapped for unknown ones so a re-seed explores), or a uniform one over the Cartesian product (classic).
  std::vector<Member> seed(const SearchSpace& space, const CostFunction& cost, Rng& rng, std::size_t popsize,
                           std::optional<Member> kept) const {
    std::vector<Member> population;
    if (kept) population.push_back(std::move(*kept));
    if (s_.constraint_aware) {
      for (std::size_t index : space.lhs_sample(popsize - population.size(), rng)) {
        auto genes = space.config_at(cost.known(index) ? fresh_valid_index(space, cost, rng) : index);
        if (!contains(population, genes)) population.push_back(make(space, std::move(genes)));
      }
    }
    // Classic: draws from the Cartesian product, keeping the valid ones while that is cheap. An invalid member's
    // penalty loses to any valid trial, so it only shrinks the population that the differences are taken from: with
    // 8 members on a space whose value combinations are 60 % valid, about 5 were real, and the classic DE converged
    // into the wrong mode of the bimodal synthetic convolution space (0.41 below random_sample, 4 seeds). Invalid
    // draws fill up only when valid ones are rare.
    for (const bool valid_only : {!s_.paper, false}) {  // the paper's blind baseline takes draws as they come
      for (std::size_t attempt = 0; population.size() < popsize && attempt < 20 * popsize; ++attempt) {
        auto member = make(space, fresh_genes(space, cost, rng));
        if (valid_only && !member.index) continue;
        if (!contains(population, member.genes)) population.push_back(std::move(member));
      }
    }
    return population;
  }

  // One batch for the valid members; invalid ones get the static penalty without evaluation.
  static void evaluate(CostFunction& cost, std::vector<Member>& members) {
    std::vector<std::size_t> batch, slots;
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (members[i].index) {
        batch.push_back(*members[i].index);
        slots.push_back(i);
      } else {
        members[i].cost = cost(std::span<const std::uint32_t>(members[i].genes));
      }
    }
    std::vector<double> costs(batch.size());
    cost(batch, costs);
    for (std::size_t k = 0; k < slots.size(); ++k) members[slots[k]].cost = costs[k];
  }

  // Distinct members other than `target` (and other than the best when the base vector is the best), drawn
  // without replacement while possible.
  static std::vector<std::size_t> draw_others(std::size_t n, std::size_t count, std::size_t target,
                                              std::optional<std::size_t> exclude, Rng& rng) {
    std::vector<std::size_t> pool;
    for (std::size_t i = 0; i < n; ++i)
      if (i != target && i != exclude) pool.push_back(i);
    if (pool.empty()) pool.push_back(target);
    std::vector<std::size_t> chosen;
    for (std::size_t k = 0; k < count; ++k) {
      if (k < pool.size()) {
        const std::size_t j = k + static_cast<std::size_t>(rng.below(pool.size() - k));
        std::swap(pool[k], pool[j]);
        chosen.push_back(pool[k]);
      } else {
        chosen.push_back(pool[rng.below(pool.size())]);  // too small a population: with replacement
      }
    }
    return chosen;
  }

  // Mutant from the variant's base and difference vectors, rounded to value indices within the true bounds,
  // crossed over with the target, then repaired to the nearest valid configuration (constraint-aware).
  Config make_trial(const SearchSpace& space, const std::vector<Member>& population, std::size_t i, std::size_t best,
                    std::vector<double>& mutant, Rng& rng) const {
    const std::size_t d = space.num_params();
    const bool uses_best = s_.base != Base::Rand;
    const std::size_t needed = 2 * s_.differences + (s_.base == Base::Rand || s_.base == Base::RandToBest ? 1 : 0);
    const auto r = draw_others(population.size(), needed, i, uses_best ? std::optional(best) : std::nullopt, rng);
    auto g = [&](std::size_t member, std::size_t p) { return static_cast<double>(population[member].genes[p]); };
    std::size_t next = 0;
    std::size_t base = i;
    switch (s_.base) {
      case Base::Best: base = best; break;
      case Base::Rand: case Base::RandToBest: base = r[next++]; break;
      case Base::CurrentToBest: base = i; break;
    }
    for (std::size_t p = 0; p < d; ++p) {
      double v = g(base, p);
      if (s_.base == Base::CurrentToBest || s_.base == Base::RandToBest) v += s_.F * (g(best, p) - g(base, p));
      double diff = g(r[next], p) - g(r[next + 1], p);
      if (s_.differences == 2) diff += g(r[next + 2], p) - g(r[next + 3], p);
      mutant[p] = v + s_.F * diff;
    }
    const Config& target = population[i].genes;
    Config trial = target;
    auto take = [&](std::size_t p) {
      const double lo = space.lower_bound(p), hi = space.upper_bound(p);
      trial[p] = static_cast<std::uint32_t>(std::clamp(std::round(mutant[p]), lo, hi));
    };
    const auto start = static_cast<std::size_t>(rng.below(d));
    if (s_.exponential) {
      // A contiguous (circular) block from a random dimension, extended while a draw stays below CR.
      std::size_t p = start, length = 0;
      do {
        take(p);
        p = (p + 1) % d;
        ++length;
      } while (length < d && rng.uniform01() < s_.CR);
    } else {
      // Each dimension from the mutant with probability CR, at least one.
      for (std::size_t p = 0; p < d; ++p)
        if (p == start || rng.uniform01() < s_.CR) take(p);
    }
    if (s_.constraint_aware && !space.is_valid(trial))
      if (const auto repaired = repair_by_index_distance(space, trial, rng)) trial = space.config_at(*repaired);
    return trial;
  }

  DiffEvoSettings s_;
};

}  // namespace

StrategyInfo diff_evo_info() {
  return {"diff_evo",
          "discrete differential evolution on value indices with repair and re-seeding on stagnation",
          // method, popsize, F and CR from `ktune hypertune` (docs/hyperparameters.md; Kernel Tuner: best1bin,
          // 16 per parameter, 0.7, 0.6).
          {{"method", HyperparameterType::String, Value(std::string("best2bin")), {}, {}, method_names(),
            "mutation base, number of difference vectors and crossover (bin: per dimension, exp: block)"},
           // popsize 4 (was 8): chosen in every fold of the default strategy's nested protocol (issue 35,
           // docs/strategies.md): held-out 0.632 against 0.593, sub-spaces 0.410 against 0.409.
           {"popsize", HyperparameterType::Int, Value(4), 2.0, {}, {},
            "population size (per tunable parameter with popsize_times_dimensions; at most one per 32 configurations "
            "of a small space, at least 5)"},
           {"popsize_times_dimensions", HyperparameterType::Bool, Value(false), {}, {}, {},
            "multiply popsize by the number of tunable parameters (Kernel Tuner: true; too big for small budgets)"},
           {"F", HyperparameterType::Float, Value(1.0), 0.0, 2.0, {}, "differential weight (mutation scale)"},
           {"CR", HyperparameterType::Float, Value(0.9), 0.0, 1.0, {}, "crossover probability per dimension"},
           {"maxiter", HyperparameterType::Int, Value(kUnlimitedGenerations), 1.0, {}, {},
            "generations of one population before it is re-seeded around the best (also re-seeded on stagnation)"},
           constraint_aware_spec(),
           variant_spec("16 members per tunable parameter, a fresh sample after two generations without any change; "
                        "unaware, blind Cartesian members")},
          [](const Hyperparameters& h) {
            DiffEvoSettings s;
            parse_method(h.get_string("method"), s);
            s.popsize = static_cast<std::size_t>(h.get_int("popsize"));
            s.popsize_times_dimensions = h.get_bool("popsize_times_dimensions");
            s.F = h.get_float("F");
            s.CR = h.get_float("CR");
            s.maxiter = h.get_int("maxiter");
            s.constraint_aware = h.get_bool("constraint_aware");
            s.paper = h.get_string("variant") == "paper";
            return std::make_unique<DifferentialEvolution>(s);
          }};
}

}  // namespace ktune::strategies
