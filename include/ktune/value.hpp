#pragma once
// A Python-like value: what a tunable parameter, a constant or an expression result can be.
// Python semantics matter here because users write constraints as Python expressions:
// bool is an int, 1 == 1.0 == True, 'a' != 1.
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ktune {

enum class ValueType : std::uint8_t { None, Bool, Int, Float, String, List };

class Value {
 public:
  using List = std::vector<Value>;

  Value() = default;  // None
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(std::int64_t i) : v_(i) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(List list) : v_(std::make_shared<const List>(std::move(list))) {}

  ValueType type() const { return static_cast<ValueType>(v_.index()); }
  bool is_none() const { return type() == ValueType::None; }
  bool is_bool() const { return type() == ValueType::Bool; }
  bool is_int() const { return type() == ValueType::Int; }
  bool is_float() const { return type() == ValueType::Float; }
  bool is_string() const { return type() == ValueType::String; }
  bool is_list() const { return type() == ValueType::List; }
  // bool, int and float take part in arithmetic (bool as 0/1, like Python).
  bool is_numeric() const { return is_bool() || is_int() || is_float(); }

  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  double as_float() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const List& as_list() const { return *std::get<std::shared_ptr<const List>>(v_); }

  // Numeric value as double (bool -> 0/1, int -> exact for |i| < 2^53). Precondition: is_numeric().
  double to_double() const;
  // Python truthiness (0, 0.0, '', [], None are false).
  bool truthy() const;
  // Python repr(): 1, 1.5, 1e-05, 'abc', True, None, [1, 2].
  std::string repr() const;
  // Like str(): strings without quotes, everything else as repr().
  std::string str() const;
  // Python-style type name: 'int', 'float', 'bool', 'str', 'list', 'NoneType'.
  std::string type_name() const;

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, std::shared_ptr<const List>> v_;
};

// Python ==: numeric values compare by value across bool/int/float; lists elementwise; other types never equal.
bool python_equal(const Value& a, const Value& b);
// Strict identity of type and value (1 and 1.0 differ); used where Kernel Tuner keeps values apart, e.g. value lists.
bool same_value(const Value& a, const Value& b);

// Python repr() of a float: shortest round-trip digits in Python's layout ('1.0', '0.1', '1e-05', '1e+16', 'inf').
std::string python_float_repr(double d);
// Exact three-way comparison of an integer with a float, as Python does it (no rounding of either side):
// -1 if i < d, 0 if equal, 1 if i > d, 2 if d is nan (unordered).
int python_compare_int_float(std::int64_t i, double d);

}  // namespace ktune
