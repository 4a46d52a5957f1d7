#pragma once
// The search space of a strategy's hyperparameters ("tuning the tuner"): which settings a hyperparameter tuner
// tries. Either a T1 file over the hyperparameters (the format of benchmark_hub's
// hyperparametertuning/algorithms/*.json) or, without one, a grid around the strategy's declared defaults.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ktune/problem.hpp"
#include "ktune/tuning/strategy.hpp"

namespace ktune::methodology {

struct HyperparameterSpace {
  Problem problem;                    // parameters are hyperparameters of `strategy`, values of their declared types
  std::vector<std::string> warnings;  // what was read leniently (see read_hyperparameter_space)
};

// Reads a T1 file over the hyperparameters of `strategy`. ConfigurationSpace.TuningParameters gives each
// hyperparameter's values (a Python list expression or a JSON array), Conditions the constraints between them.
// Every value is converted to the hyperparameter's declared type and checked against its range, so a setting the
// strategy would reject is reported here, naming the file, the JSON path and the value.
// Read leniently, with a warning, where benchmark_hub's own files need it: a parameter declared twice with the same
// values is used once; a T1 `Type` that disagrees with the declared type (`int` for [0.5, 1.0, 1.5]) gives way
// to the declared type when every value converts exactly. Throws io::InputError.
HyperparameterSpace read_hyperparameter_space(const std::string& path, const StrategyInfo& strategy);

// Without a file: every hyperparameter of the strategy, each with the values
//   string with choices: every choice; bool: false, true;
//   int and float: the default, half of it and twice it (ints rounded), kept inside the declared range, or the
//   range's bounds around a default of 0; a single value where that leaves nothing else.
// Hyperparameters without choices or a numeric default (free strings) keep their default.
HyperparameterSpace default_hyperparameter_space(const StrategyInfo& strategy);

// The hyperparameter settings of configuration `values` (in the problem's parameter order).
std::vector<std::pair<std::string, Value>> hyperparameter_settings(const Problem& problem,
                                                                   const std::vector<Value>& values);

// The hyperparameters of `strategy` that `problem` does not vary, each at its value in `base` if given there, else at
// its declared default: what a setting of the grid leaves fixed.
std::vector<std::pair<std::string, Value>> fixed_hyperparameters(
    const StrategyInfo& strategy, const Problem& problem, const std::vector<std::pair<std::string, Value>>& base = {});

// "key=value,key=value" (the part of a label after the colon), or joined by another separator.
std::string settings_text(const std::vector<std::pair<std::string, Value>>& settings, std::string_view separator = ",");

// "name:key=value,key=value": the label that `ktune compare --strategies` parses back into the same settings, and
// the key of the runs' seeds (so a setting scores the same in `hypertune` and in `compare`).
std::string strategy_label(const std::string& strategy, const std::vector<std::pair<std::string, Value>>& settings);

}  // namespace ktune::methodology
