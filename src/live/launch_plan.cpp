// LaunchPlanner and plan_launch: Kernel Tuner's create_kernel_instance (block from the block-size parameters,
// default 256x1x1; grid = ceil(problem_size / product of the grid divisors)) or T1's GlobalSize/LocalSize, the
// defines of util.prepare_kernel_string, and the kernel-name substitution of util.replace_param_occurrences.
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/expr/parser.hpp"
#include "ktune/live/launch_planner.hpp"
#include "axis_names.hpp"
#include "problem_size_indexing.hpp"

namespace ktune::live {

namespace {

const std::array<std::string, 3> kDefaultBlockNames{"block_size_x", "block_size_y", "block_size_z"};

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

LaunchPlanner::Compiled LaunchPlanner::compile(std::string field, const std::string& source,
                                               std::size_t visible_slots) const {
  Compiled c{std::move(field), rewrite_problem_size_indexing(source), {}};
  if (source.find_first_not_of(" \t") == std::string::npos)
    throw std::invalid_argument(fmt::format("{}: empty expression", c.field));
  try {
    const expr::NodePtr root = expr::parse_expression(c.source);
    const std::vector<std::string> names(slot_names_.begin(), slot_names_.begin() + static_cast<long>(visible_slots));
    const std::vector<expr::TypeSet> types(slot_types_.begin(), slot_types_.begin() + static_cast<long>(visible_slots));
    c.code = expr::CompiledExpression::compile(*root, c.source, names, types, *constants_);
  } catch (const expr::ExpressionError& e) {
    throw std::invalid_argument(e.with_context(c.field).what());
  }
  return c;
}

Value LaunchPlanner::run(const Compiled& c, const Value* slots) const {
  try {
    return c.code.evaluate(slots);
  } catch (const expr::EvalError& e) {
    throw std::invalid_argument(fmt::format("{}: evaluating \"{}\" failed: {}", c.field, c.source, e.what()));
  }
}

double LaunchPlanner::run_number(const Compiled& c, const Value* slots) const {
  const Value v = run(c, slots);
  if (!v.is_numeric())
    throw std::invalid_argument(
        fmt::format("{}: \"{}\" gives {} {}, not a number", c.field, c.source, v.type_name(), v.repr()));
  return v.to_double();
}

std::uint64_t LaunchPlanner::run_size(const Compiled& c, const Value* slots, bool allow_zero) const {
  const Value v = run(c, slots);
  std::int64_t n = 0;
  if (v.is_int() || v.is_bool()) {
    n = v.is_int() ? v.as_int() : v.as_bool();
  } else if (v.is_float() && std::isfinite(v.as_float()) && v.as_float() == std::floor(v.as_float()) &&
             std::abs(v.as_float()) < 9.0e15) {
    n = static_cast<std::int64_t>(v.as_float());
  } else {
    throw std::invalid_argument(
        fmt::format("{}: \"{}\" gives {} {}, not an integer size", c.field, c.source, v.type_name(), v.repr()));
  }
  if (n < 0 || (n == 0 && !allow_zero))
    throw std::invalid_argument(fmt::format("{}: \"{}\" gives {}, expected a {} integer", c.field, c.source, n,
                                            allow_zero ? "non-negative" : "positive"));
  return static_cast<std::uint64_t>(n);
}

std::string LaunchPlanner::c_literal(const Value& value) {
  switch (value.type()) {
    case ValueType::Bool: return value.as_bool() ? "1" : "0";
    case ValueType::Int:
      // -2^63 has no literal of its own in C (the minus applies to an out-of-range 9223372036854775808).
      if (value.as_int() == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
      return std::to_string(value.as_int());
    case ValueType::Float: {
      const double d = value.as_float();
      if (std::isnan(d)) return "(0.0/0.0)";
      if (std::isinf(d)) return d > 0 ? "(1.0/0.0)" : "(-1.0/0.0)";
      return python_float_repr(d);  // shortest round-trip digits, always with '.' or an exponent: a double literal
    }
    case ValueType::String: return value.as_string();
    default:
      throw std::invalid_argument(fmt::format("cannot #define {} value {}", value.type_name(), value.repr()));
  }
}

LaunchPlanner::LaunchPlanner(const KernelSpecification& spec, const Problem& problem)
    : num_parameters_(problem.parameters.size()), constants_(&problem.constants),
      define_parameters_(spec.define_parameters) {
  if (spec.block_size_names.size() > 3)
    throw std::invalid_argument(
        fmt::format("block_size_names: at most 3 names, got {}", spec.block_size_names.size()));
  const auto taken = [&](const std::string& name) {
    for (const auto& s : slot_names_)
      if (s == name) return true;
    return problem.constants.count(name) > 0;
  };
  for (const Parameter& p : problem.parameters) {
    slot_names_.push_back(p.name);
    slot_types_.push_back(expr::types_of(p.values));
    parameter_names_.push_back(p.name);
  }
  const expr::TypeSet int_type = expr::type_bit(ValueType::Int);
  const auto add_slot = [&](const std::string& name, expr::TypeSet types) {
    if (taken(name)) return -1;
    slot_names_.push_back(name);
    slot_types_.push_back(types);
    return static_cast<int>(slot_names_.size() - 1);
  };

  // Block sizes: Kernel Tuner fills missing names with the defaults.
  for (int d = 0; d < 3; ++d) {
    block_names_[d] = d < static_cast<int>(spec.block_size_names.size()) ? spec.block_size_names[d] : kDefaultBlockNames[d];
    if (const auto index = problem.parameter_index(block_names_[d])) block_parameter_[d] = static_cast<int>(*index);
  }

  // Group 1: problem size and grid divisors see the parameters and constants.
  for (int d = 0; d < 3; ++d) {
    problem_size_[d] = compile(fmt::format("problem_size[{}]", d), spec.problem_size[d], num_parameters_);
    // The default divisor (the one block-size name) follows block_size_names and, as in Kernel Tuner, divides by 1
    // when that block size is not a parameter (the block then has its default size, the grid the problem size).
    if (spec.grid_div[d].size() == 1 && spec.grid_div[d][0] == kDefaultBlockNames[d]) {
      if (block_parameter_[d] >= 0 || problem.constants.count(block_names_[d]))
        grid_div_[d].push_back(compile(fmt::format("grid_div_{}[0]", kAxisNames[d]), block_names_[d], num_parameters_));
      continue;
    }
    for (std::size_t i = 0; i < spec.grid_div[d].size(); ++i)
      grid_div_[d].push_back(
          compile(fmt::format("grid_div_{}[{}]", kAxisNames[d], i), spec.grid_div[d][i], num_parameters_));
  }
  for (int d = 0; d < 3; ++d) problem_slot_[d] = add_slot(fmt::format("problem_size_{}", kAxisNames[d]), int_type);
  problem_list_slot_ = add_slot("ProblemSize", expr::type_bit(ValueType::List));
  const std::size_t with_problem = slot_names_.size();

  // Group 2: T1 global/local sizes also see the problem size.
  t1_geometry_ = !spec.global_size[0].empty();
  if (t1_geometry_) {
    for (int d = 0; d < 3; ++d) {
      const std::string& g = spec.global_size[d].empty() ? "1" : spec.global_size[d];
      const std::string& l = spec.local_size[d].empty() ? "1" : spec.local_size[d];
      global_size_[d] = compile(fmt::format("global_size[{}]", d), g, with_problem);
      local_size_[d] = compile(fmt::format("local_size[{}]", d), l, with_problem);
    }
  }

  // Group 3: extra defines see everything, including the block and grid sizes.
  for (int d = 0; d < 3; ++d) {
    block_slot_[d] = add_slot(block_names_[d], int_type);
    grid_slot_[d] = add_slot(fmt::format("grid_size_{}", kAxisNames[d]), int_type);
  }
  for (const auto& [name, expression] : spec.extra_defines)
    extra_defines_.emplace_back(name, compile(fmt::format("extra_defines '{}'", name), expression, slot_names_.size()));

  // The kernel name, split into identifier tokens once; the parameters among them are substituted per configuration.
  const std::string& name = spec.kernel_name;
  for (std::size_t i = 0; i < name.size();) {
    std::size_t j = i;
    const bool ident = is_identifier_char(name[i]);
    while (j < name.size() && is_identifier_char(name[j]) == ident) ++j;
    NamePiece piece{name.substr(i, j - i), -1};
    if (ident)
      if (const auto index = problem.parameter_index(piece.text)) piece.parameter = static_cast<int>(*index);
    if (piece.parameter < 0 && !kernel_name_.empty() && kernel_name_.back().parameter < 0)
      kernel_name_.back().text += piece.text;
    else
      kernel_name_.push_back(std::move(piece));
    i = j;
  }
}

LaunchPlan LaunchPlanner::plan(std::span<const Value> config) const {
  if (config.size() != num_parameters_)
    throw std::invalid_argument(
        fmt::format("plan_launch: configuration has {} values, the problem {} parameters", config.size(), num_parameters_));
  std::vector<Value> slots(slot_names_.size());
  for (std::size_t i = 0; i < num_parameters_; ++i) slots[i] = config[i];

  std::array<std::uint64_t, 3> problem{};
  for (int d = 0; d < 3; ++d) problem[d] = run_size(problem_size_[d], slots.data(), true);
  for (int d = 0; d < 3; ++d)
    if (problem_slot_[d] >= 0) slots[static_cast<std::size_t>(problem_slot_[d])] = Value(static_cast<std::int64_t>(problem[d]));
  if (problem_list_slot_ >= 0)
    slots[static_cast<std::size_t>(problem_list_slot_)] =
        Value(Value::List{Value(static_cast<std::int64_t>(problem[0])), Value(static_cast<std::int64_t>(problem[1])),
                          Value(static_cast<std::int64_t>(problem[2]))});

  LaunchPlan plan;
  LaunchGeometry& g = plan.geometry;
  if (t1_geometry_) {
    for (int d = 0; d < 3; ++d) {
      const std::uint64_t global = run_size(global_size_[d], slots.data(), true);
      g.block[d] = run_size(local_size_[d], slots.data(), false);
      g.grid[d] = (global + g.block[d] - 1) / g.block[d];
    }
  } else {
    for (int d = 0; d < 3; ++d) {
      if (block_parameter_[d] >= 0) {
        const Value& v = config[static_cast<std::size_t>(block_parameter_[d])];
        if (!(v.is_int() && v.as_int() > 0))
          throw std::invalid_argument(
              fmt::format("block size parameter '{}' is {}, expected a positive integer", block_names_[d], v.repr()));
        g.block[d] = static_cast<std::uint64_t>(v.as_int());
      } else {
        g.block[d] = d == 0 ? 256 : 1;
      }
      // Integer divisors keep the division exact; a float divisor (rare) divides as a double like Kernel Tuner.
      bool integral = true;
      std::uint64_t divisor = 1;
      double divisor_f = 1;
      for (const Compiled& c : grid_div_[d]) {
        const double x = run_number(c, slots.data());
        if (!(x > 0))
          throw std::invalid_argument(fmt::format("{}: \"{}\" gives {}, expected a positive divisor", c.field, c.source,
                                                  python_float_repr(x)));
        divisor_f *= x;
        if (integral && x == std::floor(x) && x < 4.0e9 && divisor < (std::uint64_t{1} << 31))
          divisor *= static_cast<std::uint64_t>(x);
        else
          integral = false;
      }
      g.grid[d] = integral ? (problem[d] + divisor - 1) / divisor
                           : static_cast<std::uint64_t>(std::ceil(static_cast<double>(problem[d]) / divisor_f));
    }
  }
  for (int d = 0; d < 3; ++d) {
    if (block_slot_[d] >= 0) slots[static_cast<std::size_t>(block_slot_[d])] = Value(static_cast<std::int64_t>(g.block[d]));
    if (grid_slot_[d] >= 0) slots[static_cast<std::size_t>(grid_slot_[d])] = Value(static_cast<std::int64_t>(g.grid[d]));
  }

  Defines& defines = plan.defines;
  const auto define = [&](const std::string& name, std::string value) {
    for (auto& [n, v] : defines)
      if (n == name) {
        v = std::move(value);
        return;
      }
    defines.emplace_back(name, std::move(value));
  };
  if (define_parameters_) {
    defines.reserve(num_parameters_ + 10 + extra_defines_.size());
    for (std::size_t i = 0; i < num_parameters_; ++i) {
      try {
        defines.emplace_back(parameter_names_[i], c_literal(config[i]));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("parameter '{}': {}", parameter_names_[i], e.what()));
      }
    }
    // Parameters come first, so a block-size parameter keeps its own entry (Kernel Tuner defines each name once).
    const auto define_new = [&](const std::string& name, std::uint64_t value) {
      for (const auto& entry : defines)
        if (entry.first == name) return;
      defines.emplace_back(name, std::to_string(value));
    };
    for (int d = 0; d < 3; ++d) define_new(block_names_[d], g.block[d]);
    for (int d = 0; d < 3; ++d) define_new(fmt::format("grid_size_{}", kAxisNames[d]), g.grid[d]);
    for (int d = 0; d < 3; ++d) define_new(fmt::format("problem_size_{}", kAxisNames[d]), problem[d]);
    define_new("kernel_tuner", 1);
  }
  for (const auto& [name, c] : extra_defines_) {
    const Value v = run(c, slots.data());
    try {
      define(name, c_literal(v));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: \"{}\": {}", c.field, c.source, e.what()));
    }
  }

  for (const NamePiece& piece : kernel_name_) {
    if (piece.parameter < 0) {
      plan.kernel_name += piece.text;
      continue;
    }
    // Python's str(), except that bools become C++'s true/false so that "kernel<use_smem>" compiles.
    const Value& v = config[static_cast<std::size_t>(piece.parameter)];
    plan.kernel_name += v.is_bool() ? (v.as_bool() ? "true" : "false") : v.str();
  }
  return plan;
}

LaunchPlan plan_launch(const KernelSpecification& spec, const Problem& problem, std::span<const Value> config) {
  return LaunchPlanner(spec, problem).plan(config);
}

}  // namespace ktune::live
