// evaluate_metric: Kernel Tuner's user metrics, expressions over the configuration, the constants and the
// measurements of one evaluation (time in ms). Run once per evaluated configuration, so the tree evaluator suffices.
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::live {

double evaluate_metric(const Metric& metric, const Problem& problem, std::span<const Value> config,
                       const MeasurementMap& measurements) {
  const std::string field = fmt::format("metric '{}'", metric.name);
  if (config.size() != problem.parameters.size())
    throw std::invalid_argument(fmt::format("{}: configuration has {} values, the problem {} parameters", field,
                                            config.size(), problem.parameters.size()));
  if (metric.code) {
    try {
      return metric.code(config, measurements);
    } catch (const Interrupted&) {
      throw;  // the caller's code was interrupted: the evaluation is abandoned, not given a NaN
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("{}: {}", field, e.what()));
    }
  }
  // Measurements first (Kernel Tuner merges results over parameters), then parameters, then constants.
  Value scratch;
  const expr::NameResolver names = [&](std::string_view name) -> const Value* {
    if (const auto it = measurements.find(name); it != measurements.end()) {
      scratch = Value(it->second);
      return &scratch;
    }
    if (const auto index = problem.parameter_index(name)) return &config[*index];
    if (const auto it = problem.constants.find(name); it != problem.constants.end()) return &it->second;
    return nullptr;
  };
  Value v;
  try {
    const expr::NodePtr root = expr::parse_expression(metric.expression);
    v = expr::evaluate(*root, names, metric.expression);
  } catch (const expr::ExpressionError& e) {
    throw std::invalid_argument(e.with_context(field).what());
  } catch (const expr::EvalError& e) {
    throw std::invalid_argument(fmt::format("{}: evaluating \"{}\" failed: {}", field, metric.expression, e.what()));
  }
  if (!v.is_numeric())
    throw std::invalid_argument(fmt::format("{}: \"{}\" gives {} {}, not a number", field, metric.expression,
                                            v.type_name(), v.repr()));
  return v.to_double();
}

}  // namespace ktune::live
