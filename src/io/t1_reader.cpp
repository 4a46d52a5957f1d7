#include "ktune/io/t1_reader.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"

namespace ktune::io {

namespace {

class T1Parser {
 public:
  explicit T1Parser(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw InputError(source_, path, message);
  }

  const nlohmann::json& member(const nlohmann::json& object, const std::string& path, const char* key) const {
    const auto it = object.find(key);
    const std::string full = path.empty() ? key : path + "." + key;
    if (it == object.end()) fail(full, "missing (required by the T1 schema)");
    return *it;
  }

  std::string string_member(const nlohmann::json& object, const std::string& path, const char* key) const {
    const nlohmann::json& j = member(object, path, key);
    if (!j.is_string())
      fail(path + "." + key, fmt::format("expected a string, got {} {}", j.type_name(), json_for_message(j)));
    return j.get<std::string>();
  }

  Parameter parameter(const nlohmann::json& pj, const std::string& path) const {
    if (!pj.is_object()) fail(path, fmt::format("expected an object, got {}", pj.type_name()));
    Parameter p;
    p.name = string_member(pj, path, "Name");
    const std::string type = string_member(pj, path, "Type");
    if (type != "int" && type != "uint" && type != "float" && type != "bool" && type != "string")
      fail(path + ".Type", fmt::format("parameter '{}': unknown Type '{}' (expected int, uint, float, bool or string)",
                                       p.name, type));
    const std::string values_path = path + ".Values";
    const Value list = values(member(pj, path, "Values"), values_path, p.name);
    p.values.reserve(list.as_list().size());
    for (std::size_t i = 0; i < list.as_list().size(); ++i)
      p.values.push_back(coerce(list.as_list()[i], type, values_path, p.name, i));
    return p;
  }

  Value values(const nlohmann::json& j, const std::string& path, const std::string& name) const {
    return read_t1_value_list(j, source_, path, "parameter '" + name + "'");
  }

  // Applies the declared Type to one value.
  Value coerce(const Value& v, const std::string& type, const std::string& path, const std::string& name,
               std::size_t index) const {
    const auto bad = [&](const char* why) {
      fail(path, fmt::format("parameter '{}': Type '{}' {}, got {} {} at position {}", name, type, why, v.type_name(),
                             v.repr(), index + 1));
    };
    if (type == "float") {
      if (!v.is_numeric()) bad("needs numbers");
      return Value(v.to_double());
    }
    if (type == "int" || type == "uint") {
      std::int64_t i = 0;
      if (v.is_int()) {
        i = v.as_int();
      } else if (v.is_bool()) {
        i = v.as_bool() ? 1 : 0;
      } else if (v.is_float()) {
        const double d = v.as_float();
        // 2^63 is the first double outside int64.
        if (!std::isfinite(d) || d != std::floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
          bad("needs integral numbers");
        i = static_cast<std::int64_t>(d);
      } else {
        bad("needs integral numbers");
      }
      if (type == "uint" && i < 0) bad("needs non-negative integers");
      return Value(i);
    }
    if (type == "bool") {
      if (v.is_bool()) return v;
      if (v.is_numeric() && (v.to_double() == 0.0 || v.to_double() == 1.0)) return Value(v.to_double() != 0.0);
      bad("needs True/False (or 0/1)");
    }
    // "string"
    if (!v.is_string()) bad("needs strings");
    return v;
  }

  std::string condition(const nlohmann::json& cj, const std::string& path) const {
    if (!cj.is_object()) fail(path, fmt::format("expected an object, got {}", cj.type_name()));
    const std::string expression = string_member(cj, path, "Expression");
    if (const auto it = cj.find("Parameters"); it != cj.end()) {
      if (!it->is_array()) fail(path + ".Parameters", fmt::format("expected an array, got {}", it->type_name()));
      for (std::size_t i = 0; i < it->size(); ++i)
        if (!(*it)[i].is_string())
          fail(fmt::format("{}.Parameters[{}]", path, i),
               fmt::format("expected a string, got {}", json_for_message((*it)[i])));
    }
    // Syntax errors are reported here, where the file and the JSON path are known; names are resolved by the solver.
    try {
      (void)expr::parse_expression(expression);
    } catch (const expr::ExpressionError& e) {
      fail(path + ".Expression", fmt::format("invalid condition: {}", e.what()));
    }
    return expression;
  }

  Problem parse(const nlohmann::json& doc) const {
    if (!doc.is_object()) fail("", fmt::format("expected a JSON object at the top level, got {}", doc.type_name()));
    Problem problem;
    problem.name = file_stem(source_);
    if (const auto general = doc.find("General"); general != doc.end() && general->is_object()) {
      if (const auto it = general->find("BenchmarkName"); it != general->end() && it->is_string() &&
                                                          !it->get<std::string>().empty())
        problem.name = it->get<std::string>();
    }

    const nlohmann::json& space = member(doc, "", "ConfigurationSpace");
    if (!space.is_object()) fail("ConfigurationSpace", fmt::format("expected an object, got {}", space.type_name()));
    const nlohmann::json& params = member(space, "ConfigurationSpace", "TuningParameters");
    if (!params.is_array())
      fail("ConfigurationSpace.TuningParameters", fmt::format("expected an array, got {}", params.type_name()));
    for (std::size_t i = 0; i < params.size(); ++i)
      problem.parameters.push_back(parameter(params[i], fmt::format("ConfigurationSpace.TuningParameters[{}]", i)));

    if (const auto conditions = space.find("Conditions"); conditions != space.end()) {
      if (!conditions->is_array())
        fail("ConfigurationSpace.Conditions", fmt::format("expected an array, got {}", conditions->type_name()));
      for (std::size_t i = 0; i < conditions->size(); ++i)
        problem.constraints.push_back(condition((*conditions)[i], fmt::format("ConfigurationSpace.Conditions[{}]", i)));
    }

    try {
      problem.validate();
    } catch (const ProblemError& e) {
      fail("ConfigurationSpace", e.what());
    }
    return problem;
  }

 private:
  const std::string& source_;
};

}  // namespace

Value read_t1_value_list(const nlohmann::json& j, const std::string& source, const std::string& json_path,
                         const std::string& what) {
  const auto fail = [&](const std::string& message) { throw InputError(source, json_path, what + ": " + message); };
  Value result;
  if (j.is_array()) {
    try {
      result = value_from_json(j);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  } else if (j.is_string()) {
    const std::string text = j.get<std::string>();
    try {
      result = expr::evaluate_constant_expression(text);
    } catch (const expr::ExpressionError& e) {
      fail(fmt::format("invalid value expression: {}", e.what()));
    } catch (const expr::EvalError& e) {  // with a caret under the operation that raised
      fail(expr::ExpressionError(e.what(), text, std::max(e.column(), 0)).what());
    }
    if (!result.is_list()) fail(fmt::format("\"{}\" gives {} {}, not a list", text, result.type_name(), result.repr()));
  } else {
    fail(fmt::format("expected a string with a Python list expression, got {} {}", j.type_name(), json_for_message(j)));
  }
  return result;
}

Problem parse_t1(const nlohmann::json& document, const std::string& source_name) {
  return T1Parser(source_name).parse(document);
}

Problem read_t1_file(const std::string& path) { return parse_t1(load_json_file(path), path); }

}  // namespace ktune::io
