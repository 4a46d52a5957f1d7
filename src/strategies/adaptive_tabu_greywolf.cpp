// adaptive_tabu_greywolf: Kernel Tuner's LLaMEA-generated tabu-guided grey wolf optimiser (the algorithm-design
// paper's Algorithm 2). A small pack follows its three leaders (alpha, beta, delta survive unchanged): every other
// wolf's child takes each gene from a random one of alpha, beta, delta or itself, is shaken with a probability that
// grows with stagnation (one gene from a random configuration, or a random adjacent neighbour), repaired, moved
// off the tabu list and accepted by simulated annealing on an exponentially cooling, reheated temperature. After
// `stagn_limit` iterations without a new best the worst wolves are replaced by random ones.
// Differences from Kernel Tuner: restarts and the initial pack prefer unevaluated configurations, and reaching the
// internal `budget` starts a fresh pack instead of stopping.
#include <algorithm>
#include <cmath>
#include <deque>

#include "strategies/strategy_infos.hpp"
#include "strategies/technique.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

struct GreyWolfSettings {
  std::int64_t budget, pack_size, tabu_factor;
  double shake_rate, jump_rate;
  std::int64_t stagn_limit;
  double restart_ratio, t0, t_decay, t_min;
  bool constraint_aware;
  std::int64_t start_sample;
  bool lhs;  // sampling=lhs: the opening is a Latin hypercube of the valid space
};

struct Wolf {
  Config config;
  double cost;
};

class AdaptiveTabuGreyWolf final : public Strategy {
 public:
  explicit AdaptiveTabuGreyWolf(GreyWolfSettings s) : s_(s) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    if (space.size() == 0) return;
    UnevaluatedSampler sampler;
    while (run_once(space, cost, rng, sampler)) {
    }
  }

 private:
  // A fresh wolf: an unevaluated valid configuration (constraint aware) or a point of the Cartesian product.
  std::optional<Config> sample(const SearchSpace& space, const CostFunction& cost, Rng& rng,
                               UnevaluatedSampler& sampler) const {
    if (!s_.constraint_aware) return random_cartesian_config(space, rng);
    const auto index = sampler.next(space, cost, rng);
    if (!index) return std::nullopt;
    return space.config_at(*index);
  }

  double evaluate(const SearchSpace& space, CostFunction& cost, const Config& config) const {
    if (s_.constraint_aware) return finite_cost(cost(*space.index_of(config)));
    return finite_cost(cost(std::span<const std::uint32_t>(config)));
  }

  // Kernel Tuner's repair: the first valid neighbour by adjacent, Hamming, strictly-adjacent; else a random one.
  Config repair(const SearchSpace& space, Config child, Rng& rng) const {
    if (!s_.constraint_aware || space.is_valid(child)) return child;
    for (auto m : {NeighbourMethod::Adjacent, NeighbourMethod::Hamming, NeighbourMethod::StrictlyAdjacent}) {
      const auto found = space.neighbours(child, m);
      if (!found.empty()) return space.config_at(found.front());
    }
    return random_valid_config(space, rng);
  }

  // False when the whole space is known.
  bool run_once(const SearchSpace& space, CostFunction& cost, Rng& rng, UnevaluatedSampler& sampler) {
    const auto pack_size = static_cast<std::size_t>(s_.pack_size);
    const auto tabu_size = static_cast<std::size_t>(s_.pack_size * s_.tabu_factor);
    std::deque<Config> tabu;
    auto tabu_push = [&](const Config& c) {
      if (tabu_size == 0) return;
      tabu.push_back(c);
      if (tabu.size() > tabu_size) tabu.pop_front();
    };
    auto by_cost = [](const Wolf& a, const Wolf& b) { return a.cost < b.cost; };

    // The pack is the best pack_size wolves of a uniform sample of start_sample (the robust opening).
    std::vector<Wolf> pack;
    std::int64_t num_evals = 0;
    const std::size_t sample_size = std::max(
        pack_size, population_size(static_cast<std::size_t>(s_.start_sample), space.size(), pack_size));
    // sampling=lhs: the sample is a Latin hypercube of the valid space (its known points replaced by fresh draws).
    const std::vector<std::size_t> plan =
        s_.lhs && s_.constraint_aware ? latin_hypercube_plan(space, sample_size, rng) : std::vector<std::size_t>{};
    for (std::size_t i = 0; i < sample_size; ++i) {
      std::optional<Config> c;
      if (i >= plan.size()) c = sample(space, cost, rng, sampler);
      else if (const auto index = sampler.next_unless_known(plan[i], space, cost, rng)) c = space.config_at(*index);
      if (!c) break;
      const double f = evaluate(space, cost, *c);
      ++num_evals;
      tabu_push(*c);
      pack.push_back({std::move(*c), f});
    }
    if (pack.size() < 3) return false;  // fewer than three unevaluated configurations were left
    std::stable_sort(pack.begin(), pack.end(), by_cost);
    if (pack.size() > pack_size) pack.resize(pack_size);
    double best_val = pack[0].cost;
    std::int64_t stagn = 0;
    const std::size_t d = space.num_params();

    while (num_evals < s_.budget) {
      const double frac = static_cast<double>(num_evals) / static_cast<double>(s_.budget);
      double temp = std::max(s_.t_min, s_.t0 * std::exp(-s_.t_decay * frac));
      if (stagn > 0 && stagn % std::max<std::int64_t>(1, s_.stagn_limit / 2) == 0) temp += 0.2 * s_.t0;
      const double shake_p =
          std::min(0.5, s_.shake_rate * (1.0 + static_cast<double>(stagn) / static_cast<double>(s_.stagn_limit)));

      std::stable_sort(pack.begin(), pack.end(), by_cost);
      const Config alpha = pack[0].config, beta = pack[1].config, delta = pack[2].config;
      std::vector<Wolf> next;
      next.reserve(pack.size());
      for (const Wolf& wolf : pack) {
        if (wolf.config == alpha || wolf.config == beta || wolf.config == delta) {  // the leaders survive
          next.push_back(wolf);
          continue;
        }
        Config child(d);
        for (std::size_t i = 0; i < d; ++i) {
          switch (rng.below(4)) {
            case 0: child[i] = alpha[i]; break;
            case 1: child[i] = beta[i]; break;
            case 2: child[i] = delta[i]; break;
            default: child[i] = wolf.config[i]; break;
          }
        }
        if (rng.uniform01() < shake_p) {
          if (rng.uniform01() < s_.jump_rate) {
            const auto i = static_cast<std::size_t>(rng.below(d));
            const Config random =
                s_.constraint_aware ? random_valid_config(space, rng) : random_cartesian_config(space, rng);
            child[i] = random[i];
          } else {
            const auto method = frac < 0.5 ? NeighbourMethod::Adjacent : NeighbourMethod::StrictlyAdjacent;
            const auto nbrs = space.neighbours(child, method);
            if (!nbrs.empty()) child = space.config_at(nbrs[static_cast<std::size_t>(rng.below(nbrs.size()))]);
          }
        }
        child = repair(space, std::move(child), rng);
        if (std::find(tabu.begin(), tabu.end(), child) != tabu.end()) {
          const auto nbrs = space.neighbours(child, NeighbourMethod::Hamming);
          if (!nbrs.empty()) child = space.config_at(nbrs[static_cast<std::size_t>(rng.below(nbrs.size()))]);
        }
        const double f = evaluate(space, cost, child);
        ++num_evals;
        tabu_push(child);
        const double dE = f - wolf.cost;
        if (dE <= 0 || rng.uniform01() < std::exp(-dE / temp))
          next.push_back({std::move(child), f});
        else
          next.push_back(wolf);
        if (num_evals >= s_.budget) break;
      }
      // Wolves not reached before the internal budget ended keep their places (Kernel Tuner drops them).
      for (std::size_t i = next.size(); i < pack.size(); ++i) next.push_back(pack[i]);
      pack = std::move(next);
      std::stable_sort(pack.begin(), pack.end(), by_cost);

      if (pack[0].cost < best_val) {
        best_val = pack[0].cost;
        stagn = 0;
      } else {
        ++stagn;
      }
      if (stagn >= s_.stagn_limit) {
        const auto nr = static_cast<std::size_t>(std::ceil(static_cast<double>(pack_size) * s_.restart_ratio));
        for (std::size_t i = pack.size() - std::min(nr, pack.size()); i < pack.size(); ++i) {
          auto c = sample(space, cost, rng, sampler);
          if (!c) return false;
          const double f = evaluate(space, cost, *c);
          ++num_evals;
          tabu_push(*c);
          pack[i] = {std::move(*c), f};
        }
        std::stable_sort(pack.begin(), pack.end(), by_cost);
        best_val = pack[0].cost;
        stagn = 0;
      }
    }
    return true;
  }

  GreyWolfSettings s_;
};

}  // namespace

StrategyInfo adaptive_tabu_greywolf_info() {
  using T = HyperparameterType;
  return {"adaptive_tabu_greywolf",
          "tabu-guided grey wolf optimiser with adaptive shaking and annealing acceptance (Kernel Tuner's generated "
          "optimiser)",
          {{"budget", T::Int, Value(std::int64_t{5000}), 1.0, {}, {},
            "evaluation requests per run (revisits included); then a fresh pack starts"},
           {"pack_size", T::Int, Value(std::int64_t{8}), 3.0, {}, {}, "number of wolves (the three best lead)"},
           {"tabu_factor", T::Int, Value(std::int64_t{3}), 0.0, {}, {}, "tabu list length as a multiple of pack_size"},
           {"shake_rate", T::Float, Value(0.2), 0.0, 1.0, {}, "base probability of shaking a child"},
           {"jump_rate", T::Float, Value(0.15), 0.0, 1.0, {},
            "share of shakes that copy one gene from a random configuration (the rest move to a neighbour)"},
           {"stagn_limit", T::Int, Value(std::int64_t{80}), 1.0, {}, {},
            "iterations without a new best before the worst wolves are replaced"},
           {"restart_ratio", T::Float, Value(0.3), 0.0, 1.0, {}, "share of the pack replaced at stagnation"},
           {"t0", T::Float, Value(1.0), 0.0, {}, {}, "initial annealing temperature (in cost units)"},
           {"t_decay", T::Float, Value(5.0), 0.0, {}, {}, "exponential temperature decay over the run"},
           {"t_min", T::Float, Value(1e-4), 0.0, {}, {}, "lowest temperature", /*min_exclusive=*/true},
           // start_sample 40 (20 elsewhere): on the twelve brute-forced spaces, seeds 0-2, the same mean and the largest
           // shortfall against random_sample -0.16 -> -0.05 (hybrid_vndx) and -0.27 -> -0.11 (adaptive_tabu_greywolf;
           // RTX 3090 pnpoly), docs/strategies.md.
           constraint_aware_spec(), start_sample_spec(40), opening_sampling_spec("lhs")},
          [](const Hyperparameters& h) {
            return std::make_unique<AdaptiveTabuGreyWolf>(GreyWolfSettings{
                h.get_int("budget"), h.get_int("pack_size"), h.get_int("tabu_factor"), h.get_float("shake_rate"),
                h.get_float("jump_rate"), h.get_int("stagn_limit"), h.get_float("restart_ratio"), h.get_float("t0"),
                h.get_float("t_decay"), h.get_float("t_min"), h.get_bool("constraint_aware"),
                h.get_int("start_sample"), latin_hypercube_opening(h)});
          }};
}

}  // namespace ktune::strategies
