// pyatf_simulated_annealing: pyATF's SimulatedAnnealing (pyatf/search_techniques/simulated_annealing.py) in its
// coordinate space. The temperature falls linearly from 30 to 0 over 100 sweeps and then starts again; a sweep
// probes each coordinate of the current point once up and once down by a random fraction of a step that shrinks as
// the temperature falls (exp(-(20 + time / 100) / (T + 1))); after the sweep the next point is drawn among the
// points of the sweep, each accepted with the Metropolis probability of its cost relative to the best cost found.
// As in pyATF, a probe that had to be clamped into (0, 1] enters the candidates twice: once clamped with its cost,
// once unclamped with cost 0, which is always accepted when drawn. ktune's Kernel Tuner-style simulated annealing
// is `simulated_annealing`.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "strategies/pyatf_technique.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

double pyatf_acceptance(double e, double e_new, double temperature) {
  if (e >= e_new) return 1.0;
  if (temperature == 0) return 0.0;
  if (50.0 * (e_new - e) / temperature > 10) return 0.0;
  return std::exp(50.0 * (e - e_new) / temperature);
}

double pyatf_relative(double a, double b) { return b == 0.0 ? a * std::numeric_limits<double>::infinity() : a / b; }

class PyatfSimulatedAnnealing final : public PyatfTechnique {
 public:
  explicit PyatfSimulatedAnnealing(PyatfRandom& random) : random_(random) {}

  void initialize(std::size_t dimensionality) override {
    d_ = dimensionality;
    state_ = State::Initialization;
    time_ = 0;
    // Temperatures 30 -> 0 in 100 steps, then 0.
    constexpr int kSteps = 100;
    constexpr double kFrom = 30.0, kTo = 0.0;
    schedule_.clear();
    for (int steps = kSteps; steps > 0; --steps)
      schedule_.push_back(kTo + static_cast<double>(steps) / kSteps * (kFrom - kTo));
    schedule_.push_back(kTo);
    max_time_ = schedule_.size() - 1;
    neighbours_.clear();
  }

  std::vector<double> next() override {
    if (state_ == State::Initialization) {
      parameter_ = 0;
      set_temperature();
      current_.resize(d_);
      for (double& c : current_) c = 1.0 - random_.random();
      put(current_, 0.0);
      return clamp_coordinates_capped(current_);
    }
    std::vector<double> probe = current_;
    if (state_ == State::ExplorePlus && current_[parameter_] < 1.0) {
      probe[parameter_] += step_ * random_.random();
      put(probe, 0.0);
      if (current_[parameter_] <= 0.0) state_ = State::ExploreMinus;
      return clamp_coordinates_capped(std::move(probe));
    }
    state_ = State::ExploreMinus;
    probe[parameter_] -= step_ * random_.random();
    put(probe, 0.0);
    return clamp_coordinates_capped(std::move(probe));
  }

  void report(std::span<const double> coordinates, double cost) override {
    const std::vector<double> x(coordinates.begin(), coordinates.end());
    put(x, cost);
    if (state_ == State::Initialization) {
      best_ = x;
      best_cost_ = cost;
      state_ = State::ExplorePlus;
      return;
    }
    if (cost < best_cost_) {
      best_ = x;
      best_cost_ = cost;
    }
    if (state_ == State::ExplorePlus) {
      state_ = State::ExploreMinus;
      return;
    }
    state_ = State::ExplorePlus;
    if (++parameter_ < d_) return;
    // The sweep is over: the next current point, drawn among the sweep's points by the Metropolis rule.
    parameter_ = 0;
    double current_cost = 0;
    for (;;) {
      if (neighbours_.empty()) {
        current_ = best_;
        current_cost = best_cost_;
        break;
      }
      const std::size_t k = static_cast<std::size_t>(random_.below(neighbours_.size()));
      if (random_.random() < pyatf_acceptance(1.0, pyatf_relative(neighbours_[k].second, best_cost_), temperature_)) {
        current_ = neighbours_[k].first;
        current_cost = neighbours_[k].second;
        break;
      }
      neighbours_.erase(neighbours_.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (++time_ > max_time_) time_ -= max_time_;
    set_temperature();
    neighbours_.clear();
    put(current_, current_cost);
  }

 private:
  enum class State { Initialization, ExplorePlus, ExploreMinus };

  void set_temperature() {
    temperature_ = schedule_[std::min(time_, max_time_)];
    step_ = std::exp(-(20.0 + static_cast<double>(time_) / 100.0) / (temperature_ + 1.0));
  }

  // The sweep's points as pyATF's dict: a point seen again keeps its place and takes the new cost.
  void put(const std::vector<double>& x, double cost) {
    for (auto& [point, value] : neighbours_)
      if (point == x) {
        value = cost;
        return;
      }
    neighbours_.emplace_back(x, cost);
  }

  PyatfRandom& random_;
  State state_ = State::Initialization;
  std::size_t d_ = 0, parameter_ = 0, time_ = 0, max_time_ = 0;
  std::vector<double> schedule_;
  double temperature_ = 0, step_ = 0, best_cost_ = 0;
  std::vector<double> current_, best_;
  std::vector<std::pair<std::vector<double>, double>> neighbours_;
};

class PyatfSimulatedAnnealingStrategy final : public Strategy {
 public:
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    RngPyatfRandom random(rng);
    PyatfSimulatedAnnealing technique(random);
    run_pyatf_technique(space, cost, technique);
  }
};

}  // namespace

std::unique_ptr<PyatfTechnique> make_pyatf_simulated_annealing(PyatfRandom& random) {
  return std::make_unique<PyatfSimulatedAnnealing>(random);
}

StrategyInfo pyatf_simulated_annealing_info() {
  return {"pyatf_simulated_annealing",
          "pyATF's simulated annealing in its coordinate space (the constraint-aware paper's pyATF baseline)",
          {},
          [](const Hyperparameters&) { return std::make_unique<PyatfSimulatedAnnealingStrategy>(); }};
}

}  // namespace ktune::strategies
