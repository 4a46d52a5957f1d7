#include "ktune/methodology/hyperparameter_space.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/expr/errors.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/t1_reader.hpp"

namespace ktune::methodology {
namespace {

const HyperparameterSpec* find_spec(const StrategyInfo& strategy, const std::string& name) {
  for (const auto& h : strategy.hyperparameters)
    if (h.name == name) return &h;
  return nullptr;
}

std::string declared_names(const StrategyInfo& strategy) {
  std::string names;
  for (const auto& h : strategy.hyperparameters) names += (names.empty() ? "" : ", ") + h.name;
  return names.empty() ? "none" : names;
}

// The T1 types that describe a declared type exactly.
bool type_matches(const std::string& t1_type, HyperparameterType type) {
  switch (type) {
    case HyperparameterType::Int: return t1_type == "int" || t1_type == "uint";
    case HyperparameterType::Float: return t1_type == "float";
    case HyperparameterType::Bool: return t1_type == "bool";
    case HyperparameterType::String: return t1_type == "string";
  }
  return false;
}

class Reader {
 public:
  Reader(std::string path, const StrategyInfo& strategy) : path_(std::move(path)), strategy_(strategy) {}

  [[noreturn]] void fail(const std::string& json_path, const std::string& message) const {
    throw io::InputError(path_, json_path, message);
  }

  HyperparameterSpace read() {
    const nlohmann::json doc = io::load_json_file(path_);
    if (!doc.is_object()) fail("", "expected a T1 object with a ConfigurationSpace");
    const auto cs = doc.find("ConfigurationSpace");
    if (cs == doc.end() || !cs->is_object()) fail("ConfigurationSpace", "missing or not an object");
    const auto tp = cs->find("TuningParameters");
    if (tp == cs->end() || !tp->is_array() || tp->empty())
      fail("ConfigurationSpace.TuningParameters", "missing, not an array or empty");
    HyperparameterSpace out;
    out.problem.name = fmt::format("hyperparameters_{}", strategy_.name);
    out.problem.max_threads = std::nullopt;  // no block sizes here
    for (std::size_t i = 0; i < tp->size(); ++i)
      parameter((*tp)[i], fmt::format("ConfigurationSpace.TuningParameters[{}]", i), out);
    if (const auto conditions = cs->find("Conditions"); conditions != cs->end()) {
      if (!conditions->is_array()) fail("ConfigurationSpace.Conditions", "expected an array");
      for (std::size_t i = 0; i < conditions->size(); ++i) {
        const std::string path = fmt::format("ConfigurationSpace.Conditions[{}]", i);
        const auto& c = (*conditions)[i];
        const auto e = c.is_object() ? c.find("Expression") : c.end();
        if (e == c.end() || !e->is_string()) fail(path + ".Expression", "missing or not a string");
        try {
          (void)expr::parse_expression(e->get<std::string>());
        } catch (const expr::ExpressionError& error) {
          fail(path + ".Expression", fmt::format("invalid condition: {}", error.what()));
        }
        out.problem.constraints.push_back(e->get<std::string>());
      }
    }
    try {
      out.problem.validate();
    } catch (const ProblemError& e) {
      fail("ConfigurationSpace", e.what());
    }
    return out;
  }

 private:
  void parameter(const nlohmann::json& pj, const std::string& path, HyperparameterSpace& out) {
    if (!pj.is_object()) fail(path, "expected an object");
    const auto name_it = pj.find("Name");
    if (name_it == pj.end() || !name_it->is_string()) fail(path + ".Name", "missing or not a string");
    const std::string name = name_it->get<std::string>();
    const HyperparameterSpec* spec = find_spec(strategy_, name);
    if (!spec)
      fail(path + ".Name", fmt::format("strategy '{}' has no hyperparameter '{}'; its hyperparameters: {}",
                                       strategy_.name, name, declared_names(strategy_)));
    const auto values_it = pj.find("Values");
    if (values_it == pj.end()) fail(path + ".Values", "missing");
    const Value list = value_list(*values_it, path + ".Values", name);

    Parameter p;
    p.name = name;
    for (std::size_t k = 0; k < list.as_list().size(); ++k) {
      const Value& v = list.as_list()[k];
      try {
        const Hyperparameters h = Hyperparameters::resolve(strategy_.name, strategy_.hyperparameters, {{name, v}});
        p.values.push_back(h.get(name));
      } catch (const HyperparameterError& e) {
        fail(path + ".Values", fmt::format("value {} at position {}: {}", v.repr(), k + 1, e.what()));
      }
    }

    if (const auto type_it = pj.find("Type"); type_it != pj.end() && type_it->is_string() &&
                                              !type_matches(type_it->get<std::string>(), spec->type))
      out.warnings.push_back(fmt::format("{}: {}.Type: '{}' for '{}', which strategy '{}' declares {}; read as {}",
                                         path_, path, type_it->get<std::string>(), name, strategy_.name,
                                         to_string(spec->type), to_string(spec->type)));

    const auto same = std::find_if(out.problem.parameters.begin(), out.problem.parameters.end(),
                                   [&](const Parameter& q) { return q.name == name; });
    if (same != out.problem.parameters.end()) {
      const bool identical = same->values.size() == p.values.size() &&
                             std::equal(p.values.begin(), p.values.end(), same->values.begin(),
                                        [](const Value& a, const Value& b) { return same_value(a, b); });
      if (!identical) fail(path + ".Name", fmt::format("hyperparameter '{}' is declared twice with different values", name));
      out.warnings.push_back(
          fmt::format("{}: {}: '{}' is declared twice with the same values; used once", path_, path, name));
      return;
    }
    out.problem.parameters.push_back(std::move(p));
  }

  // A Python list expression ("[10, 20, 30]") or a JSON array, not empty.
  Value value_list(const nlohmann::json& j, const std::string& path, const std::string& name) const {
    const Value result = io::read_t1_value_list(j, path_, path, "hyperparameter '" + name + "'");
    if (result.as_list().empty()) fail(path, fmt::format("hyperparameter '{}': expected a non-empty list", name));
    return result;
  }

  std::string path_;
  const StrategyInfo& strategy_;
};

// Default, half and double of a numeric default, inside the declared range.
std::vector<Value> numeric_grid(const HyperparameterSpec& h) {
  const double d = h.default_value.to_double();
  std::vector<double> candidates;
  if (d == 0) {
    if (h.min && !h.min_exclusive) candidates.push_back(*h.min);
    candidates.push_back(0);
    if (h.max) candidates.push_back(*h.max);
  } else {
    candidates = {d / 2, d, d * 2};
  }
  std::vector<Value> out;
  for (double c : candidates) {
    if (h.type == HyperparameterType::Int) c = std::round(c);
    const bool below = h.min && (h.min_exclusive ? c <= *h.min : c < *h.min);
    if (below || (h.max && c > *h.max)) continue;
    const Value v = h.type == HyperparameterType::Int ? Value(static_cast<std::int64_t>(c)) : Value(c);
    if (std::none_of(out.begin(), out.end(), [&](const Value& w) { return same_value(w, v); })) out.push_back(v);
  }
  if (out.empty()) out.push_back(h.default_value);
  return out;
}

}  // namespace

HyperparameterSpace read_hyperparameter_space(const std::string& path, const StrategyInfo& strategy) {
  return Reader(path, strategy).read();
}

HyperparameterSpace default_hyperparameter_space(const StrategyInfo& strategy) {
  HyperparameterSpace out;
  out.problem.name = fmt::format("hyperparameters_{}", strategy.name);
  out.problem.max_threads = std::nullopt;
  for (const auto& h : strategy.hyperparameters) {
    Parameter p;
    p.name = h.name;
    switch (h.type) {
      case HyperparameterType::Bool: p.values = {Value(false), Value(true)}; break;
      case HyperparameterType::String:
        if (h.choices.empty()) p.values = {h.default_value};
        for (const auto& c : h.choices) p.values.emplace_back(c);
        break;
      case HyperparameterType::Int:
      case HyperparameterType::Float: p.values = numeric_grid(h); break;
    }
    out.problem.parameters.push_back(std::move(p));
  }
  if (out.problem.parameters.empty())
    throw std::invalid_argument(fmt::format("strategy '{}' has no hyperparameters to tune", strategy.name));
  return out;
}

std::vector<std::pair<std::string, Value>> hyperparameter_settings(const Problem& problem,
                                                                   const std::vector<Value>& values) {
  std::vector<std::pair<std::string, Value>> settings;
  for (std::size_t p = 0; p < problem.parameters.size(); ++p) settings.emplace_back(problem.parameters[p].name, values[p]);
  return settings;
}

std::vector<std::pair<std::string, Value>> fixed_hyperparameters(
    const StrategyInfo& strategy, const Problem& problem, const std::vector<std::pair<std::string, Value>>& base) {
  std::vector<std::pair<std::string, Value>> fixed;
  for (const auto& h : strategy.hyperparameters) {
    if (problem.parameter_index(h.name)) continue;
    Value v = h.default_value;
    for (const auto& [name, value] : base)
      if (name == h.name) v = value;
    fixed.emplace_back(h.name, v);
  }
  return fixed;
}

std::string settings_text(const std::vector<std::pair<std::string, Value>>& settings, std::string_view separator) {
  std::string text;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const Value& v = settings[i].second;
    // Floats keep their point ("1.0"), so the text reads back as the same value and type.
    text += fmt::format("{}{}={}", i ? separator : "", settings[i].first, v.is_float() ? v.repr() : v.str());
  }
  return text;
}

std::string strategy_label(const std::string& strategy, const std::vector<std::pair<std::string, Value>>& settings) {
  return settings.empty() ? strategy : strategy + ":" + settings_text(settings);
}

}  // namespace ktune::methodology
