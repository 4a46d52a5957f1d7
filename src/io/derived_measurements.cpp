#include "ktune/io/derived_measurements.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "ktune/expr/errors.hpp"
#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"

namespace ktune::io {

DerivedMeasurement parse_derived_measurement(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size() || text[eq + 1] == '=')
    throw std::invalid_argument(fmt::format("derived measurement '{}': expected NAME=EXPRESSION", text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void add_derived_measurements(ResultsFile& results, const std::vector<DerivedMeasurement>& derived) {
  const Problem& problem = results.problem;
  // What an expression may name, as the resolver below looks it up: measurements of the successful records (with
  // the types they have), the step times, then parameters (constants come from the problem).
  std::vector<std::string> names{"time", "compile_time", "benchmark_time", "verification_time", "framework_time"};
  std::vector<expr::TypeSet> types(names.size(), expr::type_bit(ValueType::Float));
  for (const auto& r : results.records) {
    if (r.status != Status::ok) continue;
    for (const Measurement& m : r.measurements) {
      const auto at = std::find(names.begin(), names.end(), m.name);
      if (at == names.end()) {
        names.insert(names.begin(), m.name);
        types.insert(types.begin(), expr::type_bit(m.value.type()));
      } else {
        types[static_cast<std::size_t>(at - names.begin())] |= expr::type_bit(m.value.type());
      }
    }
  }
  for (const Parameter& p : problem.parameters) {
    names.push_back(p.name);
    types.push_back(expr::types_of(p.values));
  }
  for (const auto& d : derived) {
    const std::string field = fmt::format("derived measurement '{}'", d.name);
    if (problem.parameter_index(d.name))
      throw std::invalid_argument(fmt::format("{}: the name is a parameter's", field));
    for (const auto& r : results.records)
      if (r.find(d.name))
        throw std::invalid_argument(fmt::format("{}: the records have a measurement of that name already", field));
    expr::NodePtr root;
    try {
      root = expr::parse_expression(d.expression);
      // Names no record has and parts that always raise are the expression's fault: said once, before any record.
      (void)expr::CompiledExpression::compile(*root, d.expression, names, types, problem.constants);
    } catch (const expr::ExpressionError& e) {
      throw std::invalid_argument(e.with_context(field).what());
    }
    names.insert(names.begin(), d.name);
    types.insert(types.begin(), expr::type_bit(ValueType::Float));
    for (auto& r : results.records) {
      if (r.status != Status::ok) continue;
      // Measurements first (as Kernel Tuner's metrics), then parameters, then constants.
      Value scratch;
      const expr::NameResolver names = [&](std::string_view name) -> const Value* {
        if (const Measurement* m = r.find(name)) return &m->value;
        if (const auto v = r.objective(name)) {  // time from the runtimes, compile_time, ...
          scratch = Value(*v);
          return &scratch;
        }
        if (const auto index = problem.parameter_index(name)) return &r.config[*index];
        if (const auto it = problem.constants.find(name); it != problem.constants.end()) return &it->second;
        return nullptr;
      };
      auto where = [&] {
        std::string config;
        for (std::size_t p = 0; p < r.config.size(); ++p)
          config += fmt::format("{}{}={}", p ? ", " : "", problem.parameters[p].name, r.config[p].repr());
        return fmt::format("{} for configuration ({})", field, config);
      };
      Value v;
      try {
        v = expr::evaluate(*root, names, d.expression);
      } catch (const expr::ExpressionError& e) {
        throw std::invalid_argument(e.with_context(where()).what());
      } catch (const expr::EvalError& e) {
        throw std::invalid_argument(fmt::format("{}: evaluating \"{}\" failed: {}", where(), d.expression, e.what()));
      }
      if (!v.is_numeric())
        throw std::invalid_argument(fmt::format("{}: \"{}\" gives {} {}, not a number", where(), d.expression,
                                                v.type_name(), v.repr()));
      r.measurements.push_back({d.name, Value(v.to_double()), ""});
    }
  }
}

}  // namespace ktune::io
