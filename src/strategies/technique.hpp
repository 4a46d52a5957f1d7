#pragma once
// What the generated optimisers and the ensembles share: a sampler of not-yet-evaluated configurations (so restarts
// explore) and a small ask/tell interface of search techniques that the ensembles (round_robin, auc_bandit)
// interleave one candidate at a time.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/unevaluated_sampler.hpp"

namespace ktune::strategies {

// A cost as the generated algorithms compare them: failures (+inf) and invalid requests count as the largest finite
// value, as Kernel Tuner's float max, so differences stay ordered instead of becoming NaN.
inline double finite_cost(double c) { return c < std::numeric_limits<double>::max() ? c : std::numeric_limits<double>::max(); }

// The cost of an evaluated configuration (cost.known(index) must hold), read from the trace without a request.
inline double known_cost(const CostFunction& cost, std::size_t index) {
  return finite_cost(cost.trace().cost(*cost.trace_position(index)));
}

// What all techniques of one ensemble run see: the evaluated configurations, best first (the archive is kept by
// the ensemble and told every result, whichever technique proposed it).
struct Archive {
  struct Entry {
    double cost;
    std::size_t index;
  };
  std::vector<Entry> elite;  // the best `capacity` distinct configurations, ascending cost
  std::size_t capacity = 16;
  UnevaluatedSampler sampler;
  void add(std::size_t index, double cost);
  bool empty() const { return elite.empty(); }
  const Entry& best() const { return elite.front(); }
};

// A search technique behind the ask/tell interface: it proposes the next valid configuration index to evaluate and
// is then told its cost. Proposals may be already evaluated ones (free revisits), but techniques prefer new ones.
class Technique {
 public:
  virtual ~Technique() = default;
  virtual const char* name() const = 0;
  // The next configuration to evaluate; std::nullopt if the technique has nothing left (the whole space is known).
  virtual std::optional<std::size_t> ask(const SearchSpace& space, const CostFunction& cost, Archive& archive,
                                         Rng& rng) = 0;
  // The cost of the configuration this technique proposed last.
  virtual void tell(const SearchSpace& space, std::size_t index, double cost, Rng& rng) = 0;
};

// Uniformly random unevaluated configurations.
std::unique_ptr<Technique> make_random_technique();
// First-improvement hill climbing over the Hamming neighbourhood (unevaluated neighbours in random order); restarts
// from a random unevaluated configuration at a local optimum.
std::unique_ptr<Technique> make_hill_climber_technique();
// Differential-evolution-style recombination of the archive's best configurations in value-index space
// (best/1/bin: best + F (b - c), crossover rate CR), repaired to the nearest valid configuration.
std::unique_ptr<Technique> make_differential_technique();
// Coordinate pattern search around the best configuration: steps of +-s value indices per parameter, halving s
// after a sweep without improvement and restarting from a random configuration when s drops below one.
std::unique_ptr<Technique> make_pattern_technique();
// The ensembles' set: random, hill climber, differential recombination, pattern search (in this order).
std::vector<std::unique_ptr<Technique>> make_default_techniques();

// The ensembles' loop: `choose` names the technique to ask next (if it has nothing, the following ones are asked);
// its proposal is evaluated, told to it and to the archive, and `credit(technique, improved)` says whether it
// improved on the best cost so far. Returns when the whole space is known; BudgetExhausted passes through.
// The robust opening: `start_sample` uniform valid configurations (capped by population_size) enter the archive
// first, credited to nobody, so the techniques that build on the archive start from a sample of the space.
void run_ensemble(const SearchSpace& space, CostFunction& cost, Rng& rng, std::size_t start_sample,
                  std::vector<std::unique_ptr<Technique>>& techniques, const std::function<std::size_t(Rng&)>& choose,
                  const std::function<void(std::size_t, bool)>& credit);

}  // namespace ktune::strategies
