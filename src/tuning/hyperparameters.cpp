#include "ktune/tuning/hyperparameters.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ktune {
namespace {

std::string valid_list(const std::vector<HyperparameterSpec>& specs) {
  if (specs.empty()) return "it has no hyperparameters";
  std::vector<std::string> parts;
  for (const auto& s : specs) parts.push_back(fmt::format("{} ({} {})", s.name, to_string(s.type), s.range_text()));
  return fmt::format("valid: {}", fmt::join(parts, ", "));
}

std::string format_bound(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{}", v);
}

// `value` converted to the type of `spec` and checked against its range.
Value check(std::string_view strategy, const HyperparameterSpec& spec, const Value& value) {
  auto fail = [&](const std::string& why) -> HyperparameterError {
    return HyperparameterError(fmt::format("strategy '{}': hyperparameter '{}' {}; expected {} {}", strategy,
                                           spec.name, why, to_string(spec.type), spec.range_text()));
  };
  Value v;
  switch (spec.type) {
    case HyperparameterType::Bool:
      if (!value.is_bool()) throw fail(fmt::format("got {}", value.repr()));
      return value;
    case HyperparameterType::String:
      if (!value.is_string()) throw fail(fmt::format("got {}", value.repr()));
      if (!spec.choices.empty() &&
          std::find(spec.choices.begin(), spec.choices.end(), value.as_string()) == spec.choices.end())
        throw fail(fmt::format("got {}", value.repr()));
      return value;
    case HyperparameterType::Int:
      if (value.is_int()) {
        v = value;
      } else if (value.is_float() && std::isfinite(value.as_float()) && value.as_float() == std::floor(value.as_float()) &&
                 std::abs(value.as_float()) < 9.2e18) {
        v = Value(static_cast<std::int64_t>(value.as_float()));
      } else {
        throw fail(fmt::format("got {}", value.repr()));
      }
      break;
    case HyperparameterType::Float:
      if (!(value.is_int() || value.is_float()) || !std::isfinite(value.to_double()))
        throw fail(fmt::format("got {}", value.repr()));
      v = Value(value.to_double());
      break;
  }
  const double x = v.to_double();
  const bool below = spec.min && (spec.min_exclusive ? x <= *spec.min : x < *spec.min);
  if (below || (spec.max && x > *spec.max)) throw fail(fmt::format("is {}, out of range", v.repr()));
  return v;
}

}  // namespace

const char* to_string(HyperparameterType type) {
  switch (type) {
    case HyperparameterType::Int: return "int";
    case HyperparameterType::Float: return "float";
    case HyperparameterType::Bool: return "bool";
    case HyperparameterType::String: return "string";
  }
  return "?";
}

std::string HyperparameterSpec::range_text() const {
  switch (type) {
    case HyperparameterType::Bool: return "true or false";
    case HyperparameterType::String:
      return choices.empty() ? "any" : fmt::format("one of {}", fmt::join(choices, ", "));
    case HyperparameterType::Int:
    case HyperparameterType::Float:
      if (min && max)
        return fmt::format("in {}{}, {}]", min_exclusive ? "(" : "[", format_bound(*min), format_bound(*max));
      if (min) return fmt::format("{} {}", min_exclusive ? ">" : ">=", format_bound(*min));
      if (max) return fmt::format("<= {}", format_bound(*max));
      return "any";
  }
  return "";
}

Hyperparameters Hyperparameters::resolve(std::string_view strategy, const std::vector<HyperparameterSpec>& specs,
                                         const std::vector<std::pair<std::string, Value>>& given) {
  Hyperparameters h;
  for (const auto& spec : specs) h.values_[spec.name] = spec.default_value;
  for (const auto& [name, value] : given) {
    const auto it = std::find_if(specs.begin(), specs.end(), [&](const auto& s) { return s.name == name; });
    if (it == specs.end())
      throw HyperparameterError(
          fmt::format("strategy '{}' has no hyperparameter '{}'; {}", strategy, name, valid_list(specs)));
    h.values_[name] = check(strategy, *it, value);
  }
  return h;
}

const Value& Hyperparameters::get(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range(fmt::format("undeclared hyperparameter '{}'", name));
  return it->second;
}

Value parse_hyperparameter_text(std::string_view strategy, const HyperparameterSpec& spec, std::string_view text) {
  auto fail = [&] {
    return HyperparameterError(fmt::format("strategy '{}': hyperparameter '{}': cannot read '{}' as {} {}", strategy,
                                           spec.name, text, to_string(spec.type), spec.range_text()));
  };
  switch (spec.type) {
    case HyperparameterType::Bool:
      if (text == "true" || text == "True" || text == "1") return check(strategy, spec, Value(true));
      if (text == "false" || text == "False" || text == "0") return check(strategy, spec, Value(false));
      throw fail();
    case HyperparameterType::String:
      return check(strategy, spec, Value(std::string(text)));
    case HyperparameterType::Int: {
      std::int64_t i = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
      if (ec == std::errc() && end == text.data() + text.size()) return check(strategy, spec, Value(i));
      [[fallthrough]];
    }
    case HyperparameterType::Float: {
      double d = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
      if (ec != std::errc() || end != text.data() + text.size() || text.empty()) throw fail();
      return check(strategy, spec, Value(d));
    }
  }
  throw fail();
}

}  // namespace ktune
