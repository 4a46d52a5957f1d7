#include "ktune/problem.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/io/json_value.hpp"

namespace ktune {

namespace {

// Python keywords cannot be names in an expression, so they cannot be parameter or constant names either.
bool is_python_keyword(std::string_view s) {
  static const std::set<std::string_view, std::less<>> keywords = {
      "False", "None",   "True",    "and",      "as",       "assert", "async",  "await",  "break",
      "class", "continue", "def",   "del",      "elif",     "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",       "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",      "while",  "with",   "yield"};
  return keywords.contains(s);
}

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

void check_name(const std::string& name, const char* what) {
  if (!is_identifier(name))
    throw ProblemError(fmt::format("{} name '{}' is not a valid identifier (letters, digits and _, not starting "
                                   "with a digit)", what, name));
  if (is_python_keyword(name))
    throw ProblemError(fmt::format("{} name '{}' is a Python keyword", what, name));
}

// Rejects None, lists and non-finite floats: a parameter value must be a bool, int, float or str that
// constraints can compare and that JSON and CSV output can hold.
void check_parameter_value(const Parameter& p, std::size_t position, const Value& v) {
  if (v.is_none() || v.is_list())
    throw ProblemError(fmt::format("parameter '{}': value {} at position {} is a {}; values must be bool, int, float "
                                   "or str", p.name, v.repr(), position + 1, v.type_name()));
  if (v.is_float() && !std::isfinite(v.as_float()))
    throw ProblemError(fmt::format("parameter '{}': value {} at position {} is not a finite number", p.name, v.repr(),
                                   position + 1));
}

// Duplicates are values of the same type and value (same_value): [1, 2, 1], [0.5, 0.5], ['a', 'a']. Values that are
// only Python-equal across types stay apart, as in Kernel Tuner, whose value lists and cache keys (str(v)) keep them
// distinct: its own test data has test_mixed = ["test", 1, True, 2.45]. T1 files declare one Type per parameter, so
// there 1 and 1.0 become the same value and are reported.
// O(n log n): strings by hash, numbers sorted by their double value with exact checks inside runs of equal doubles
// (int64 beyond 2^53 share doubles).
void check_duplicate_values(const Parameter& p) {
  std::unordered_map<std::string_view, std::size_t> strings;
  std::vector<std::pair<double, std::size_t>> numbers;
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    const Value& v = p.values[i];
    if (v.is_string()) {
      const auto [it, inserted] = strings.emplace(v.as_string(), i);
      if (!inserted)
        throw ProblemError(fmt::format("parameter '{}' has duplicate value {} (positions {} and {})", p.name, v.repr(),
                                       it->second + 1, i + 1));
    } else if (v.is_numeric()) {
      numbers.emplace_back(v.to_double(), i);
    }
  }
  // Strictly ascending numbers (a range, the usual long list) hold no two equal ones: no sort needed.
  if (std::adjacent_find(numbers.begin(), numbers.end(),
                         [](const auto& a, const auto& b) { return !(a.first < b.first); }) == numbers.end())
    return;
  std::sort(numbers.begin(), numbers.end());
  for (std::size_t begin = 0; begin < numbers.size();) {
    std::size_t end = begin + 1;
    while (end < numbers.size() && numbers[end].first == numbers[begin].first) ++end;
    for (std::size_t a = begin; a < end; ++a)
      for (std::size_t b = a + 1; b < end; ++b) {
        const std::size_t first = std::min(numbers[a].second, numbers[b].second);
        const std::size_t second = std::max(numbers[a].second, numbers[b].second);
        if (same_value(p.values[first], p.values[second]))
          throw ProblemError(fmt::format("parameter '{}' has duplicate value {} (positions {} and {})", p.name,
                                         p.values[second].repr(), first + 1, second + 1));
      }
    begin = end;
  }
}

void check_constant_value(const std::string& name, const Value& v) {
  if (v.is_none()) throw ProblemError(fmt::format("constant '{}' is None", name));
  if (v.is_float() && !std::isfinite(v.as_float()))
    throw ProblemError(fmt::format("constant '{}' = {} is not a finite number", name, v.repr()));
  if (v.is_list())
    for (const Value& item : v.as_list())
      if (item.is_none() || item.is_list())
        throw ProblemError(fmt::format("constant '{}': list items must be bool, int, float or str, not {}", name,
                                       item.type_name()));
}

bool is_blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

}  // namespace

void Problem::validate() const {
  if (parameters.empty()) throw ProblemError(fmt::format("problem '{}' has no parameters", name));
  std::unordered_set<std::string_view> seen;
  for (const Parameter& p : parameters) {
    check_name(p.name, "parameter");
    if (!seen.insert(p.name).second) throw ProblemError(fmt::format("duplicate parameter '{}'", p.name));
    if (p.values.empty()) throw ProblemError(fmt::format("parameter '{}' has an empty value list", p.name));
    if (p.values.size() > std::numeric_limits<std::uint32_t>::max())
      throw ProblemError(fmt::format("parameter '{}' has more than 2^32-1 values", p.name));
    for (std::size_t i = 0; i < p.values.size(); ++i) check_parameter_value(p, i, p.values[i]);
    check_duplicate_values(p);
  }
  for (const auto& [constant, value] : constants) {
    check_name(constant, "constant");
    if (seen.contains(constant))
      throw ProblemError(fmt::format("name '{}' is both a parameter and a constant", constant));
    check_constant_value(constant, value);
  }
  for (std::size_t i = 0; i < constraints.size(); ++i)
    if (is_blank(constraints[i])) throw ProblemError(fmt::format("constraint {} is empty", i + 1));
  if (max_threads && *max_threads <= 0)
    throw ProblemError(fmt::format("max_threads must be positive, got {}", *max_threads));
}

std::string Problem::implicit_constraint() const {
  if (!max_threads) return {};
  std::string product;
  for (const std::string& block_name : block_size_names) {
    if (!parameter_index(block_name)) continue;
    if (!product.empty()) product += " * ";
    product += block_name;
  }
  if (product.empty()) return {};
  return fmt::format("{} <= {}", product, *max_threads);
}

std::vector<std::string> Problem::all_constraints() const {
  std::vector<std::string> all = constraints;
  if (std::string implicit = implicit_constraint(); !implicit.empty()) all.push_back(std::move(implicit));
  return all;
}

std::uint64_t Problem::cartesian_size() const {
  std::uint64_t size = 1;
  for (const Parameter& p : parameters) {
    const std::uint64_t n = p.values.size();
    if (n == 0) return 0;
    if (size > std::numeric_limits<std::uint64_t>::max() / n) return std::numeric_limits<std::uint64_t>::max();
    size *= n;
  }
  return size;
}

std::vector<std::string> Problem::parameter_names() const {
  std::vector<std::string> names;
  names.reserve(parameters.size());
  for (const auto& p : parameters) names.push_back(p.name);
  return names;
}

std::optional<std::size_t> Problem::parameter_index(std::string_view parameter_name) const {
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i].name == parameter_name) return i;
  return std::nullopt;
}

// --- JSON -----------------------------------------------------------------------------------------------------

nlohmann::json Problem::to_json() const {
  nlohmann::json j;
  j["name"] = name;
  nlohmann::json params = nlohmann::json::array();
  for (const Parameter& p : parameters) {
    nlohmann::json values = nlohmann::json::array();
    for (const Value& v : p.values) values.push_back(io::value_to_json(v));
    params.push_back({{"name", p.name}, {"values", std::move(values)}});
  }
  j["parameters"] = std::move(params);
  j["constraints"] = constraints;
  nlohmann::json consts = nlohmann::json::object();
  for (const auto& [constant, value] : constants) consts[constant] = io::value_to_json(value);
  j["constants"] = std::move(consts);
  j["max_threads"] = max_threads ? nlohmann::json(*max_threads) : nlohmann::json(nullptr);
  j["block_size_names"] = block_size_names;
  return j;
}

namespace {

[[noreturn]] void json_error(const std::string& path, const std::string& message) {
  throw ProblemError(fmt::format("problem JSON: {}: {}", path, message));
}

const nlohmann::json& require(const nlohmann::json& object, const char* key, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) json_error(path.empty() ? "(top level)" : path, fmt::format("missing key '{}'", key));
  return *it;
}

std::string string_at(const nlohmann::json& j, const std::string& path) {
  if (!j.is_string()) json_error(path, fmt::format("expected a string, got {}", j.type_name()));
  return j.get<std::string>();
}

Value value_at(const nlohmann::json& j, const std::string& path) {
  try {
    return io::value_from_json(j);
  } catch (const std::invalid_argument& e) {
    json_error(path, e.what());
  }
}

}  // namespace

Problem Problem::from_json(const nlohmann::json& j) {
  if (!j.is_object()) json_error("(top level)", fmt::format("expected an object, got {}", j.type_name()));
  static const std::set<std::string, std::less<>> known = {"name",      "parameters",  "constraints",
                                                           "constants", "max_threads", "block_size_names"};
  for (const auto& item : j.items())
    if (!known.contains(item.key()))
      json_error(item.key(), "unknown key (expected name, parameters, constraints, constants, max_threads, "
                             "block_size_names)");

  Problem problem;
  if (const auto it = j.find("name"); it != j.end()) problem.name = string_at(*it, "name");

  const nlohmann::json& params = require(j, "parameters", "");
  if (!params.is_array()) json_error("parameters", fmt::format("expected an array, got {}", params.type_name()));
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string path = fmt::format("parameters[{}]", i);
    const nlohmann::json& pj = params[i];
    if (!pj.is_object()) json_error(path, fmt::format("expected an object, got {}", pj.type_name()));
    for (const auto& item : pj.items())
      if (item.key() != "name" && item.key() != "values")
        json_error(path + "." + item.key(), "unknown key (expected name, values)");
    Parameter p;
    p.name = string_at(require(pj, "name", path), path + ".name");
    const nlohmann::json& values = require(pj, "values", path);
    if (!values.is_array())
      json_error(path + ".values", fmt::format("parameter '{}': expected an array, got {}", p.name, values.type_name()));
    p.values.reserve(values.size());
    for (std::size_t k = 0; k < values.size(); ++k)
      p.values.push_back(value_at(values[k], fmt::format("{}.values[{}]", path, k)));
    problem.parameters.push_back(std::move(p));
  }

  if (const auto it = j.find("constraints"); it != j.end()) {
    if (!it->is_array()) json_error("constraints", fmt::format("expected an array, got {}", it->type_name()));
    for (std::size_t i = 0; i < it->size(); ++i)
      problem.constraints.push_back(string_at((*it)[i], fmt::format("constraints[{}]", i)));
  }
  if (const auto it = j.find("constants"); it != j.end()) {
    if (!it->is_object()) json_error("constants", fmt::format("expected an object, got {}", it->type_name()));
    for (const auto& item : it->items())
      problem.constants.emplace(item.key(), value_at(item.value(), "constants." + item.key()));
  }
  if (const auto it = j.find("max_threads"); it != j.end()) {
    if (it->is_null()) {
      problem.max_threads = std::nullopt;
    } else if (it->is_number_integer()) {
      problem.max_threads = it->get<std::int64_t>();
    } else {
      json_error("max_threads", fmt::format("expected an integer or null, got {}", it->dump()));
    }
  }
  if (const auto it = j.find("block_size_names"); it != j.end()) {
    if (!it->is_array()) json_error("block_size_names", fmt::format("expected an array, got {}", it->type_name()));
    problem.block_size_names.clear();
    for (std::size_t i = 0; i < it->size(); ++i)
      problem.block_size_names.push_back(string_at((*it)[i], fmt::format("block_size_names[{}]", i)));
  }
  problem.validate();
  return problem;
}

// --- builder --------------------------------------------------------------------------------------------------

ProblemBuilder& ProblemBuilder::parameter(std::string name, std::vector<Value> values) {
  problem_.parameters.push_back({std::move(name), std::move(values)});
  return *this;
}

ProblemBuilder& ProblemBuilder::constraint(std::string expression) {
  problem_.constraints.push_back(std::move(expression));
  return *this;
}

ProblemBuilder& ProblemBuilder::constant(std::string name, Value value) {
  if (problem_.constants.contains(name)) throw ProblemError(fmt::format("constant '{}' defined twice", name));
  problem_.constants.emplace(std::move(name), std::move(value));
  return *this;
}

ProblemBuilder& ProblemBuilder::max_threads(std::optional<std::int64_t> max_threads) {
  problem_.max_threads = max_threads;
  return *this;
}

Problem ProblemBuilder::build() const {
  problem_.validate();
  return problem_;
}

}  // namespace ktune
