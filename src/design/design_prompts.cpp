#include "ktune/design/design_prompts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "ktune/io/json_file.hpp"
#include "ktune/methodology/baseline.hpp"

namespace ktune::design {
namespace {

std::string cut(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit) + "\n... (cut)";
}

}  // namespace

const char* to_string(PromptKind kind) {
  switch (kind) {
    case PromptKind::initial: return "initial";
    case PromptKind::refine: return "refine";
    case PromptKind::different: return "different";
    case PromptKind::simplify: return "simplify";
    case PromptKind::repair: return "repair";
  }
  return "?";
}

const std::string& example_strategy_source() {
  static const std::string source = R"(#include <memory>
#include <vector>

#include <ktune/plugin.hpp>
#include <ktune/strategy_toolkit.hpp>

namespace {

// First-improvement hill climbing over Hamming neighbours, restarted from unevaluated random configurations.
class RestartingHillClimb final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    for (;;) {  // ends when cost() throws ktune::BudgetExhausted
      std::size_t current = ktune::strategies::fresh_valid_index(space, cost, rng);
      double current_cost = cost(current);
      bool improved = true;
      while (improved) {
        improved = false;
        std::vector<std::size_t> next = space.neighbours(current, ktune::NeighbourMethod::Hamming);
        for (std::size_t i = next.size(); i > 1; --i) std::swap(next[i - 1], next[rng.below(i)]);
        for (std::size_t n : next) {
          if (cost.known(n)) continue;  // a revisit is free but tells nothing new
          const double c = cost(n);
          if (c < current_cost) {
            current = n;
            current_cost = c;
            improved = true;
            break;
          }
        }
      }
    }
  }
};

ktune::StrategyInfo describe() {
  return {"restarting_hill_climb", "first-improvement hill climbing over Hamming neighbours with random restarts",
          {},  // no hyperparameters
          [](const ktune::Hyperparameters&) { return std::make_unique<RestartingHillClimb>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
)";
  return source;
}

std::string system_prompt() {
  return "You are an expert in optimisation algorithms and in C++20. You design search strategies for ktune, an "
         "auto-tuner that finds the fastest configuration of a GPU kernel with as few measurements as possible. "
         "You answer with working, complete C++ code.";
}

std::string task_prompt(const std::string& problem, std::size_t tuned_settings) {
  std::string text = R"(Your task is to design a novel search strategy (an optimisation algorithm) for auto-tuning GPU kernels.

## The problem
A kernel has tunable parameters (block sizes, tiling factors, unrolling, ...), each with a short list of values. Constraints rule out most combinations, so the search space is the list of *valid* configurations, indexed 0..size()-1. Evaluating a configuration measures its runtime (lower is better); some configurations fail (they cannot compile or launch) and cost kInvalidCost. Evaluations are expensive: the budget is a time limit, typically enough for a few dozen to a few hundred evaluations out of thousands to millions of configurations. The strategy is scored over that budget by how fast it finds good configurations compared with random search (0 = as good as random search, 1 = finds the optimum at once; below 0 = worse than random search), averaged over several kernels and GPUs. So the first evaluations matter as much as the last ones, and the strategy must be robust across very different spaces.

## The interface (C++20, `#include <ktune/plugin.hpp>` and `#include <ktune/strategy_toolkit.hpp>`)
```cpp
namespace ktune {
class Strategy {  // implement run(); it is called once per tuning run
 public:
  virtual void run(const SearchSpace& space, CostFunction& cost, Rng& rng) = 0;
};
class SearchSpace {  // valid configurations only; a configuration is a vector of value indices, one per parameter
 public:
  std::size_t size() const;                     // number of valid configurations
  std::size_t num_params() const;
  const std::vector<Value>& param_values(std::size_t p) const;  // values of parameter p (use the indices)
  std::uint32_t value_index(std::size_t config, std::size_t param) const;
  Config config_at(std::size_t index) const;    // Config = std::vector<std::uint32_t>
  std::optional<std::size_t> index_of(std::span<const std::uint32_t> config) const;  // nullopt: not valid
  bool is_valid(std::span<const std::uint32_t> config) const;
  std::vector<std::size_t> neighbours(std::size_t index, NeighbourMethod method) const;  // valid neighbours
  std::vector<std::size_t> neighbours(std::span<const std::uint32_t> config, NeighbourMethod method) const;
  // NeighbourMethod::StrictlyAdjacent, Adjacent, Hamming (one parameter differs), HammingAdjacent, ClosestParamIndices
  std::vector<std::size_t> random_sample(std::size_t n, Rng& rng) const;  // n distinct uniform valid indices
  std::vector<std::size_t> lhs_sample(std::size_t n, Rng& rng) const;     // Latin hypercube, valid
  std::vector<double> to_continuous(std::span<const std::uint32_t> config) const;  // a point per parameter
  Config from_continuous(std::span<const double> x) const;                 // nearest grid point (maybe invalid)
  std::vector<std::size_t> tunable_params() const;  // parameters with more than one value in use
};
class CostFunction {
 public:
  double operator()(std::size_t index);   // evaluates (or recalls: a revisit is free) a valid configuration
  double operator()(std::span<const std::uint32_t> config);  // any config; an invalid one returns kInvalidCost
  static constexpr double kInvalidCost = std::numeric_limits<double>::max();
  bool known(std::size_t index) const;    // evaluated already
  std::uint64_t evaluations() const;      // distinct configurations evaluated so far
  double budget_spent_fraction() const;   // in [0, 1]
  // When the budget ends, operator() throws ktune::BudgetExhausted: do NOT catch it; let it end run().
};
class Rng {  // the only source of randomness allowed (a seed must reproduce a run)
 public:
  std::uint64_t below(std::uint64_t n);   // uniform in [0, n)
  double uniform01();                     // uniform in [0, 1)
};
namespace strategies {  // helpers
std::size_t fresh_valid_index(const SearchSpace& space, const CostFunction& cost, Rng& rng);  // unevaluated, random
std::vector<std::uint32_t> random_valid_config(const SearchSpace& space, Rng& rng);
// the valid configuration nearest to an arbitrary (maybe invalid) one:
std::optional<std::size_t> repair_by_index_distance(const SearchSpace& space, std::span<const std::uint32_t> config, Rng& rng);
}
}  // namespace ktune
```
Rules: no other randomness (no std::random_device, time or addresses); no threads, files, output or global state; run() may loop forever (the budget ends it), but every loop must call cost() on new configurations or end; keep memory small (spaces can have millions of configurations, so do not enumerate or store all of them unless size() is small).

## A minimal working strategy (a complete plug-in file)
```cpp
)";
  text += example_strategy_source();
  text += R"(```

## Your answer
Give an excellent and novel strategy. Answer with one line
# Description: <a one-line description of the main idea>
followed by the complete C++ plug-in file in one ```cpp fenced code block (includes, the Strategy class, describe() with a short snake_case name, and KTUNE_STRATEGY_PLUGIN(describe)). No other code blocks.
)";
  if (tuned_settings > 1)
    text += fmt::format(R"(
## Hyperparameters
Every strategy is scored with its hyperparameters tuned: the defaults and {} more settings drawn from the ranges it
declares are scored, and the best setting counts. Declare what you are unsure of (a population size, a rate, a
choice of neighbourhood) in describe() as ktune::HyperparameterSpec{{name, type, default_value, min, max, choices,
description}} (ktune::HyperparameterType::Int or Float with both min and max, Bool, or String with its choices),
and read them in the factory: h.get_int("name"), h.get_float, h.get_bool, h.get_string.
)",
                        tuned_settings - 1);
  if (!problem.empty()) text += "\n## The problem at hand\n" + problem;
  return text;
}

std::string problem_information(const std::vector<methodology::SpaceResult>& spaces,
                                const std::vector<methodology::ComparisonSpace>& files, const std::string& t1_path) {
  std::ostringstream out;
  if (!t1_path.empty()) {
    out << "The target application's tuning problem (T1 file " << t1_path << "):\n```json\n"
        << cut(io::read_file_text(t1_path), 6000) << "\n```\n\n";
  }
  out << "The spaces the strategy is scored on:\n";
  for (std::size_t s = 0; s < spaces.size() && s < files.size(); ++s) {
    const auto& r = spaces[s];
    const auto& problem = files[s].results->problem;
    double cartesian = 1;
    std::string params;
    for (const auto& p : problem.parameters) {
      cartesian *= static_cast<double>(std::max<std::size_t>(1, p.values.size()));
      params += fmt::format("{}{} ({})", params.empty() ? "" : ", ", p.name, p.values.size());
    }
    const auto& st = r.stats;
    const double failing = st.size_all() ? 1.0 - static_cast<double>(st.size_valid()) / st.size_all() : 0;
    out << fmt::format(
        "- {}: {} configurations of a Cartesian product of {:.0f} (density {:.3g}); {:.0f}% of them fail; "
        "parameters (values): {}; the median is {:.3g}x the optimum; the budget is about {} evaluations\n",
        r.name, st.size_all(), cartesian, cartesian > 0 ? st.size_all() / cartesian : 0.0, 100 * failing, params,
        st.optimum() != 0 ? st.median() / st.optimum() : 0.0,
        st.mean_time_per_feval() > 0 ? static_cast<long>(std::lround(r.budget_seconds / st.mean_time_per_feval()))
                                     : 0L);
  }
  return out.str();
}

std::string score_feedback(double score, const std::vector<std::pair<std::string, double>>& per_space) {
  std::string text = fmt::format("The strategy scored {:.3f} (0 = random search, 1 = optimum at once); per space:",
                                 score);
  for (const auto& [space, s] : per_space) text += fmt::format(" {} {:.3f};", space, s);
  if (!per_space.empty()) {
    const auto worst = std::min_element(per_space.begin(), per_space.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    text.back() = '.';
    text += fmt::format(" Its worst space is {}.", worst->first);
  }
  return text;
}

std::string mutation_prompt(PromptKind kind, const std::string& task, const std::vector<CandidateView>& population,
                            const CandidateView& selected) {
  std::string text = task;
  text += "\n## The strategies so far (name: description -> score)\n";
  for (const auto& c : population)
    text += fmt::format("- {}: {} -> {}\n", c.name.empty() ? "(unnamed)" : c.name, c.description,
                        c.score ? fmt::format("{:.3f}", *c.score) : std::string("failed"));
  text += fmt::format("\n## The selected strategy: {}\n{}\n```cpp\n{}```\n", selected.name, selected.description,
                      cut(selected.code, 20000));
  if (selected.score) {
    text += "\n" + selected.feedback + "\n";
  } else {
    text += "\nIt failed with this error:\n```\n" + cut(selected.feedback, 3000) + "\n```\n";
  }
  switch (kind) {
    case PromptKind::refine:
      text += "\nRefine the selected strategy to improve its score (and its worst space).\n";
      break;
    case PromptKind::different:
      text += "\nGenerate a new strategy that is different from all of the strategies above and scores better.\n";
      break;
    case PromptKind::simplify:
      text += "\nRefine and simplify the selected strategy: keep what works, remove what does not pay off.\n";
      break;
    case PromptKind::repair:
      text += "\nRepair the selected strategy: fix the error above, keeping its idea.\n";
      break;
    case PromptKind::initial:
      break;
  }
  text += "Answer as described: one '# Description:' line and one ```cpp block with the whole file.\n";
  return text;
}

}  // namespace ktune::design
