#pragma once
// Typed strategy hyperparameters: each strategy declares its own with a type, a default, a range or a set of
// choices and a one-line description; given values are checked against the declarations.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ktune/value.hpp"

namespace ktune {

enum class HyperparameterType { Int, Float, Bool, String };
const char* to_string(HyperparameterType type);  // "int", "float", "bool", "string"

struct HyperparameterSpec {
  std::string name;
  HyperparameterType type = HyperparameterType::Float;
  Value default_value;
  std::optional<double> min, max;    // inclusive bounds for Int and Float
  std::vector<std::string> choices;  // allowed values for String (empty: any)
  std::string description;
  bool min_exclusive = false;        // the range is (min, ...]

  std::string range_text() const;  // "in (0, 1]", ">= 1", "one of best1bin, rand1bin", "true or false", "any"
};

// Unknown name, wrong type or out of range. what() names the strategy and the hyperparameter and lists the valid
// hyperparameters (or the valid range).
class HyperparameterError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The resolved hyperparameters of one strategy: every declared one, given or default.
class Hyperparameters {
 public:
  Hyperparameters() = default;
  // Checks `given` against `specs`; ints are accepted for Float, integral floats (2.0) for Int.
  static Hyperparameters resolve(std::string_view strategy, const std::vector<HyperparameterSpec>& specs,
                                 const std::vector<std::pair<std::string, Value>>& given);

  const Value& get(std::string_view name) const;  // throws std::out_of_range for an undeclared name
  std::int64_t get_int(std::string_view name) const { return get(name).as_int(); }
  double get_float(std::string_view name) const { return get(name).to_double(); }
  bool get_bool(std::string_view name) const { return get(name).as_bool(); }
  const std::string& get_string(std::string_view name) const { return get(name).as_string(); }
  const std::map<std::string, Value, std::less<>>& values() const { return values_; }

 private:
  std::map<std::string, Value, std::less<>> values_;
};

// A value written on the command line ("--set popsize=20") converted to the declared type of `spec`.
// Throws HyperparameterError.
Value parse_hyperparameter_text(std::string_view strategy, const HyperparameterSpec& spec, std::string_view text);

}  // namespace ktune
