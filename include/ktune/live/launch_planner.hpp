#pragma once
// plan_launch with the work done once: the expressions of a KernelSpecification (problem size, grid divisors, T1
// global/local sizes, extra defines) are compiled against the problem's parameters and constants when the planner
// is built, so planning one configuration is a few bytecode evaluations and string formats (it runs once per
// evaluation). Errors in the expressions (syntax, unknown names) are reported by the constructor.
#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ktune/expr/evaluator.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/problem.hpp"
#include "ktune/value.hpp"

namespace ktune::live {

class LaunchPlanner {
 public:
  // Throws std::invalid_argument naming the field and the expression (with a caret) when one does not compile.
  LaunchPlanner(const KernelSpecification& spec, const Problem& problem);

  // `config` holds one value per problem parameter. Throws std::invalid_argument naming the expression when an
  // evaluation fails or gives no usable size (negative, not an integer, division by zero).
  LaunchPlan plan(std::span<const Value> config) const;

  // The C literal of a parameter value in a #define: ints as they are, floats with round-trip digits, bools 1/0,
  // strings verbatim (so `float_type = "double"` defines a type). Throws std::invalid_argument for None and lists.
  static std::string c_literal(const Value& value);

 private:
  struct Compiled {
    std::string field;   // "problem_size[0]", "grid_div_x[1]", "extra_defines 'N'" for messages
    std::string source;
    expr::CompiledExpression code;
  };
  struct NamePiece {
    std::string text;
    int parameter = -1;  // >= 0: replaced by that parameter's value
  };

  Compiled compile(std::string field, const std::string& source, std::size_t visible_slots) const;
  Value run(const Compiled& c, const Value* slots) const;
  // A non-negative integer (positive unless allow_zero) from c; throws naming c.field otherwise.
  std::uint64_t run_size(const Compiled& c, const Value* slots, bool allow_zero) const;
  double run_number(const Compiled& c, const Value* slots) const;

  // Slots: the parameters, then problem_size_x/y/z and ProblemSize, then the derived names (block and grid sizes)
  // not taken by a parameter. Each group of expressions sees only the slots known when it runs.
  std::size_t num_parameters_ = 0;
  std::vector<std::string> slot_names_;
  std::vector<expr::TypeSet> slot_types_;
  const std::map<std::string, Value, std::less<>>* constants_ = nullptr;
  std::array<int, 3> problem_slot_{-1, -1, -1};  // slot of problem_size_x/y/z (-1: name taken)
  int problem_list_slot_ = -1;                   // slot of ProblemSize
  std::array<int, 3> block_slot_{-1, -1, -1}, grid_slot_{-1, -1, -1};

  std::array<Compiled, 3> problem_size_;
  std::array<std::vector<Compiled>, 3> grid_div_;
  bool t1_geometry_ = false;
  std::array<Compiled, 3> global_size_, local_size_;
  std::array<std::string, 3> block_names_;
  std::array<int, 3> block_parameter_{-1, -1, -1};  // parameter index of each block name, -1: the default
  std::vector<std::pair<std::string, Compiled>> extra_defines_;
  bool define_parameters_ = true;
  std::vector<std::string> parameter_names_;
  std::vector<NamePiece> kernel_name_;
};

}  // namespace ktune::live
