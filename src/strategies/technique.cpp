#include "strategies/technique.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {

void Archive::add(std::size_t index, double cost) {
  for (const auto& e : elite)
    if (e.index == index) return;
  if (elite.size() >= capacity && !(cost < elite.back().cost)) return;
  const auto at = std::upper_bound(elite.begin(), elite.end(), cost,
                                   [](double c, const Entry& e) { return c < e.cost; });
  elite.insert(at, Entry{cost, index});
  if (elite.size() > capacity) elite.pop_back();
}

namespace {

template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<std::size_t>(rng.below(i))]);
}

class RandomTechnique final : public Technique {
 public:
  const char* name() const override { return "random"; }
  std::optional<std::size_t> ask(const SearchSpace& space, const CostFunction& cost, Archive& archive,
                                 Rng& rng) override {
    return archive.sampler.next(space, cost, rng);
  }
  void tell(const SearchSpace&, std::size_t, double, Rng&) override {}
};

class HillClimber final : public Technique {
 public:
  const char* name() const override { return "hill_climber"; }
  std::optional<std::size_t> ask(const SearchSpace& space, const CostFunction& cost, Archive& archive,
                                 Rng& rng) override {
    for (;;) {
      if (!current_) {
        starting_ = true;
        return archive.sampler.next(space, cost, rng);
      }
      while (!pending_.empty()) {
        const std::size_t i = pending_.back();
        pending_.pop_back();
        if (!cost.known(i)) return i;
        // A known neighbour that is better is a free move.
        if (const double c = known_cost(cost, i); c < current_cost_) {
          move(space, i, c, rng);
        }
      }
      current_.reset();  // local optimum: every neighbour known and none better
    }
  }
  void tell(const SearchSpace& space, std::size_t index, double cost, Rng& rng) override {
    if (starting_ || cost < current_cost_) move(space, index, cost, rng);
    starting_ = false;
  }

 private:
  void move(const SearchSpace& space, std::size_t index, double cost, Rng& rng) {
    current_ = index;
    current_cost_ = cost;
    pending_ = space.neighbours(index, NeighbourMethod::Hamming);
    shuffle(pending_, rng);
  }

  std::optional<std::size_t> current_;
  double current_cost_ = 0;
  bool starting_ = false;
  std::vector<std::size_t> pending_;
};

class Differential final : public Technique {
 public:
  const char* name() const override { return "differential"; }
  std::optional<std::size_t> ask(const SearchSpace& space, const CostFunction& cost, Archive& archive,
                                 Rng& rng) override {
    const std::size_t m = archive.elite.size();
    if (m >= 4) {
      const std::size_t d = space.num_params();
      for (int attempt = 0; attempt < kAttempts; ++attempt) {
        // best/1/bin over value indices: the best plus a scaled difference of two other elite members, crossed
        // with a random elite member.
        const auto best = space.config_at(archive.elite[0].index);
        const std::size_t b = 1 + static_cast<std::size_t>(rng.below(m - 1));
        std::size_t c = 1 + static_cast<std::size_t>(rng.below(m - 2));
        if (c >= b) ++c;
        const auto xb = space.config_at(archive.elite[b].index), xc = space.config_at(archive.elite[c].index);
        const auto target = space.config_at(archive.elite[static_cast<std::size_t>(rng.below(m))].index);
        const double f = uniform(rng, 0.5, 1.0);
        const auto forced = static_cast<std::size_t>(rng.below(d));
        Config trial(d);
        for (std::size_t p = 0; p < d; ++p) {
          if (p != forced && rng.uniform01() >= kCrossover) {
            trial[p] = target[p];
            continue;
          }
          const double v = std::round(best[p] + f * (static_cast<double>(xb[p]) - static_cast<double>(xc[p])));
          const double hi = static_cast<double>(space.param_values(p).size() - 1);
          trial[p] = static_cast<std::uint32_t>(std::clamp(v, 0.0, hi));
        }
        const auto repaired = repair_by_index_distance(space, trial, rng);
        if (repaired && !cost.known(*repaired)) return repaired;
      }
    }
    return archive.sampler.next(space, cost, rng);
  }
  void tell(const SearchSpace&, std::size_t, double, Rng&) override {}

 private:
  static constexpr int kAttempts = 8;
  static constexpr double kCrossover = 0.5;
};

class PatternSearch final : public Technique {
 public:
  const char* name() const override { return "pattern_search"; }
  std::optional<std::size_t> ask(const SearchSpace& space, const CostFunction& cost, Archive& archive,
                                 Rng& rng) override {
    for (;;) {
      if (!center_) {
        if (first_ && !archive.empty()) {
          // The first run polishes the best configuration found so far; later runs start at random.
          first_ = false;
          start(space, archive.best().index, archive.best().cost);
        } else {
          first_ = false;
          starting_ = true;
          return archive.sampler.next(space, cost, rng);
        }
      }
      if (moves_.empty()) {
        if (!improved_) {
          bool any = false;
          for (auto& s : step_) {
            s /= 2;
            any = any || s > 0;
          }
          if (!any) {
            center_.reset();
            continue;
          }
        }
        improved_ = false;
        for (std::size_t p = 0; p < space.num_params(); ++p)
          if (step_[p] > 0) {
            moves_.push_back({p, +1});
            moves_.push_back({p, -1});
          }
        shuffle(moves_, rng);
      }
      const auto [p, dir] = moves_.back();
      moves_.pop_back();
      auto config = space.config_at(*center_);
      const auto v = static_cast<std::int64_t>(config[p]) + dir * static_cast<std::int64_t>(step_[p]);
      if (v < 0 || v >= static_cast<std::int64_t>(space.param_values(p).size())) continue;
      config[p] = static_cast<std::uint32_t>(v);
      const auto index = space.index_of(config);
      if (!index) continue;
      if (!cost.known(*index)) return *index;
      if (const double c = known_cost(cost, *index); c < center_cost_) {
        center_ = *index;
        center_cost_ = c;
        improved_ = true;
      }
    }
  }
  void tell(const SearchSpace& space, std::size_t index, double cost, Rng&) override {
    if (starting_) {
      starting_ = false;
      start(space, index, cost);
    } else if (cost < center_cost_) {
      center_ = index;
      center_cost_ = cost;
      improved_ = true;
    }
  }

 private:
  struct Move {
    std::size_t param;
    std::int64_t dir;
  };
  void start(const SearchSpace& space, std::size_t index, double cost) {
    center_ = index;
    center_cost_ = cost;
    step_.assign(space.num_params(), 0);
    for (std::size_t p = 0; p < space.num_params(); ++p)
      step_[p] = space.used_values(p).size() > 1 ? std::max<std::size_t>(1, space.param_values(p).size() / 4) : 0;
    moves_.clear();
    improved_ = true;  // the first sweep runs at the initial steps
  }

  std::optional<std::size_t> center_;
  double center_cost_ = 0;
  bool first_ = true, starting_ = false, improved_ = false;
  std::vector<std::size_t> step_;
  std::vector<Move> moves_;
};

}  // namespace

std::unique_ptr<Technique> make_random_technique() { return std::make_unique<RandomTechnique>(); }
std::unique_ptr<Technique> make_hill_climber_technique() { return std::make_unique<HillClimber>(); }
std::unique_ptr<Technique> make_differential_technique() { return std::make_unique<Differential>(); }
std::unique_ptr<Technique> make_pattern_technique() { return std::make_unique<PatternSearch>(); }

std::vector<std::unique_ptr<Technique>> make_default_techniques() {
  std::vector<std::unique_ptr<Technique>> all;
  all.push_back(make_random_technique());
  all.push_back(make_hill_climber_technique());
  all.push_back(make_differential_technique());
  all.push_back(make_pattern_technique());
  return all;
}

void run_ensemble(const SearchSpace& space, CostFunction& cost, Rng& rng, std::size_t start_sample,
                  std::vector<std::unique_ptr<Technique>>& techniques, const std::function<std::size_t(Rng&)>& choose,
                  const std::function<void(std::size_t, bool)>& credit) {
  Archive archive;
  double best = std::numeric_limits<double>::infinity();
  const std::size_t n = techniques.size();
  // Without the opening, the first proposals of the climber, the recombination and the pattern search build on one
  // or two random points: on MI250X convolution (51 evaluations) both ensembles fell 0.11-0.14 below random search.
  const std::size_t opening = population_size(start_sample, space.size(), 1);
  for (std::size_t i = 0; i < opening; ++i) {
    const auto index = archive.sampler.next(space, cost, rng);  // its first draws: random_sample's
    if (!index) break;
    const double c = finite_cost(cost(*index));
    archive.add(*index, c);
    best = std::min(best, c);
  }
  for (;;) {
    std::size_t t = choose(rng);
    std::optional<std::size_t> index;
    for (std::size_t tries = 0; tries < n && !index; ++tries) {
      index = techniques[t]->ask(space, cost, archive, rng);
      if (!index) t = (t + 1) % n;
    }
    if (!index) return;  // every configuration is known
    const double c = finite_cost(cost(*index));
    techniques[t]->tell(space, *index, c, rng);
    archive.add(*index, c);
    const bool improved = c < best;
    if (improved) best = c;
    credit(t, improved);
  }
}

}  // namespace ktune::strategies
