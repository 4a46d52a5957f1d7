// pyatf_differential_evolution: pyATF's DifferentialEvolution (pyatf/search_techniques/differential_evolution.py) in
// its coordinate space. A population of 30 random vectors is costed one by one (a vector whose configuration fails
// is replaced by a fresh random one until one succeeds); then each vector in turn gets a trial vector: rand/1/bin
// with F 0.7 and CR 0.2 (one coordinate always from the donor), coordinates outside (0, 1] folded back by
// fmod(|x|, 1), and the trial replaces the vector when it costs no more. As in pyATF, the three donors are drawn so
// that the later two differ from the earlier ones and from the target, and the first may be the target itself.
// ktune's Kernel Tuner-style differential evolution is `diff_evo`.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "strategies/pyatf_technique.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

class PyatfDifferentialEvolution final : public PyatfTechnique {
 public:
  PyatfDifferentialEvolution(PyatfRandom& random, PyatfDifferentialEvolutionSettings s) : random_(random), s_(s) {}

  void initialize(std::size_t dimensionality) override {
    d_ = dimensionality;
    current_ = 0;
    population_.clear();
    for (std::size_t i = 0; i < s_.vectors; ++i) population_.push_back(random_vector());
    costs_.assign(s_.vectors, std::nullopt);
    trial_ = random_vector();
  }

  std::vector<double> next() override {
    if (costs_[current_]) {
      set_trial_vector();
      return clamp_coordinates_capped(trial_);
    }
    return clamp_coordinates_capped(population_[current_]);
  }

  void report(std::span<const double>, double cost) override {
    if (!costs_[current_]) {
      if (cost == std::numeric_limits<double>::infinity()) population_[current_] = random_vector();
      else costs_[current_] = cost;
    } else if (cost <= *costs_[current_]) {
      population_[current_] = trial_;
      costs_[current_] = cost;
    }
    current_ = current_ + 1 < s_.vectors ? current_ + 1 : 0;
  }

 private:
  std::vector<double> random_vector() {
    std::vector<double> x(d_);
    for (double& c : x) c = 1.0 - random_.random();
    return x;
  }

  // Three population indices: pyATF redraws the i-th while it equals an earlier one or the target, checking the
  // earlier ones in order without starting over after a redraw (so the first is never checked against the target).
  std::array<std::size_t, 3> donors() {
    std::array<std::size_t, 3> v{};
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = static_cast<std::size_t>(random_.below(s_.vectors));
      for (std::size_t j = 0; j < i;) {
        if (v[i] == v[j] || v[i] == current_) v[i] = static_cast<std::size_t>(random_.below(s_.vectors));
        else ++j;
      }
    }
    return v;
  }

  void set_trial_vector() {
    const std::size_t forced = static_cast<std::size_t>(random_.below(d_));  // always from the donor
    const auto m = donors();
    for (std::size_t i = 0; i < d_; ++i) {
      if (random_.random() <= s_.cr || i == forced)
        trial_[i] = population_[m[0]][i] + s_.f * (population_[m[1]][i] - population_[m[2]][i]);
      else
        trial_[i] = population_[current_][i];
    }
    for (double& c : trial_)
      if (c <= 0.0 || c > 1.0) c = std::fmod(std::abs(c), 1.0);
  }

  PyatfRandom& random_;
  PyatfDifferentialEvolutionSettings s_;
  std::size_t d_ = 0, current_ = 0;
  std::vector<std::vector<double>> population_;
  std::vector<std::optional<double>> costs_;  // nullopt: not costed yet (pyATF's None)
  std::vector<double> trial_;
};

class PyatfDifferentialEvolutionStrategy final : public Strategy {
 public:
  explicit PyatfDifferentialEvolutionStrategy(PyatfDifferentialEvolutionSettings s) : s_(s) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    RngPyatfRandom random(rng);
    PyatfDifferentialEvolution technique(random, s_);
    run_pyatf_technique(space, cost, technique);
  }

 private:
  PyatfDifferentialEvolutionSettings s_;
};

}  // namespace

std::unique_ptr<PyatfTechnique> make_pyatf_differential_evolution(PyatfRandom& random,
                                                                  PyatfDifferentialEvolutionSettings settings) {
  return std::make_unique<PyatfDifferentialEvolution>(random, settings);
}

StrategyInfo pyatf_differential_evolution_info() {
  using T = HyperparameterType;
  return {"pyatf_differential_evolution",
          "pyATF's differential evolution (rand/1/bin) in its coordinate space (the constraint-aware paper's pyATF "
          "baseline)",
          {{"popsize", T::Int, Value(std::int64_t{30}), 4.0, {}, {}, "population size (pyATF's NUM_VECTORS)"},
           {"F", T::Float, Value(0.7), 0.0, {}, {}, "mutation factor scaling the difference vector (pyATF's F_VAL)"},
           {"CR", T::Float, Value(0.2), 0.0, 1.0, {}, "crossover rate (pyATF's CR)"}},
          [](const Hyperparameters& h) {
            return std::make_unique<PyatfDifferentialEvolutionStrategy>(PyatfDifferentialEvolutionSettings{
                static_cast<std::size_t>(h.get_int("popsize")), h.get_float("F"), h.get_float("CR")});
          }};
}

}  // namespace ktune::strategies
