#pragma once
// A search strategy: sees only the search space, the cost function and a seeded random generator.
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ktune/tuning/hyperparameters.hpp"

namespace ktune {

class SearchSpace;
class CostFunction;
class Rng;

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Searches until done. The cost function throws BudgetExhausted when the budget ends: let it pass.
  // All randomness comes from `rng`, so a seed reproduces the run.
  virtual void run(const SearchSpace& space, CostFunction& cost, Rng& rng) = 0;
};

// An isolated strategy (IsolatedStrategy) crashed, hung past its limit or threw: the run ends with what it evaluated
// (StopReason::strategy_failed) and the caller goes on.
class StrategyFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A registered strategy: its name, what it does, its hyperparameters and how to make one.
struct StrategyInfo {
  std::string name;
  std::string description;  // one line
  std::vector<HyperparameterSpec> hyperparameters;
  std::function<std::unique_ptr<Strategy>(const Hyperparameters&)> make;
};

// Every strategy, in the order `ktune strategies` lists them: ktune's, then those registered at run time (and
// plug-ins loaded). References stay valid while strategies are added.
const std::deque<StrategyInfo>& strategy_registry();
// Adds a user-defined strategy (see docs/strategies.md). Call it before tuning starts (registration is not
// synchronised with running tunings). Throws std::invalid_argument for an empty or taken name or a missing factory.
void register_strategy(StrategyInfo info);
// nullptr if there is none of that name. A name ending in .so or .cpp is a plug-in file: loaded and registered on
// first use (strategy_plugins.hpp); throws HyperparameterError if it cannot be.
const StrategyInfo* find_strategy(std::string_view name);
// The strategy to run when the user names none: "auto" (the recommended one) when the budget limits the run
// (evaluations, a fraction of the space or time), else "brute_force", as Kernel Tuner does.
struct Budget;
std::string default_strategy(const Budget& budget);
// A named set of hyperparameter values published with an algorithm: Kernel Tuner's defaults (`kernel_tuner`), the
// values of the paper that introduced it (`paper`). Where settings are text, `set=NAME` stands for the set's values,
// and settings after it override them.
struct HyperparameterSet {
  std::string name;
  std::string description;  // where the values come from
  std::vector<std::pair<std::string, Value>> values;
};
// The sets of strategy `name`, in the order listed (none for most strategies, and for plug-ins).
const std::vector<HyperparameterSet>& hyperparameter_sets(std::string_view name);
// "name=value" texts (command line --set, compare specs) converted to the declared types of strategy `name`'s
// hyperparameters; "set=NAME" becomes the values of that set. Throws HyperparameterError: unknown strategy,
// hyperparameter or set (listing the valid ones), bad value.
std::vector<std::pair<std::string, Value>> parse_strategy_settings(std::string_view name,
                                                                   const std::vector<std::string>& settings);
// Makes strategy `name` with the given hyperparameters (the rest default). Throws HyperparameterError for an
// unknown strategy (listing the known ones) or a bad hyperparameter (listing the valid ones).
std::unique_ptr<Strategy> make_strategy(std::string_view name,
                                        const std::vector<std::pair<std::string, Value>>& hyperparameters = {});

}  // namespace ktune
