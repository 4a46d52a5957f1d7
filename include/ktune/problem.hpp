#pragma once
// The tuning problem (the IR): named parameters with ordered value lists, constraint strings in Python expression
// syntax, named constants. A plain serialisable value: the C++ builder, the T1 reader and the CLI all produce it.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/value.hpp"

namespace ktune {

// Invalid problem definition (empty value list, duplicate parameter, ...). what() names the parameter or constraint.
class ProblemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Parameter {
  std::string name;
  std::vector<Value> values;  // ordered; the order defines value indices
};

struct Problem {
  std::string name;
  std::vector<Parameter> parameters;  // the order defines the order of values in a configuration
  std::vector<std::string> constraints;
  std::map<std::string, Value, std::less<>> constants;
  // Kernel Tuner's implicit block_size_x*block_size_y*block_size_z <= max_threads over the present block-size
  // parameters; std::nullopt switches it off.
  std::optional<std::int64_t> max_threads = 1024;
  std::vector<std::string> block_size_names = {"block_size_x", "block_size_y", "block_size_z"};

  // Throws ProblemError: no parameters, empty value list, duplicate parameter, duplicate value within a parameter,
  // name shared by a parameter and a constant, unsupported value type.
  void validate() const;
  // The implicit block-size constraint if it applies ("block_size_x * block_size_y <= 1024"), else empty.
  std::string implicit_constraint() const;
  // User constraints followed by the implicit one (if any).
  std::vector<std::string> all_constraints() const;
  // Product of the value-list sizes (saturates at UINT64_MAX).
  std::uint64_t cartesian_size() const;
  std::optional<std::size_t> parameter_index(std::string_view name) const;
  std::vector<std::string> parameter_names() const;  // in the order of `parameters`

  nlohmann::json to_json() const;
  static Problem from_json(const nlohmann::json& j);  // inverse of to_json; throws ProblemError
};

// Fluent construction from C++.
class ProblemBuilder {
 public:
  explicit ProblemBuilder(std::string name = "problem") { problem_.name = std::move(name); }
  ProblemBuilder& parameter(std::string name, std::vector<Value> values);
  ProblemBuilder& constraint(std::string expression);
  ProblemBuilder& constant(std::string name, Value value);
  ProblemBuilder& max_threads(std::optional<std::int64_t> max_threads);
  Problem build() const;  // validates

 private:
  Problem problem_;
};

}  // namespace ktune
