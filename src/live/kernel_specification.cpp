// KernelSpecification::validate and load_source: the checks that need no configuration, so that a bad
// specification fails before tuning starts instead of in every evaluation.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/live/launch_planner.hpp"
#include "ktune/live/observer.hpp"
#include "problem_size_indexing.hpp"

namespace ktune::live {

namespace {

void check_expression(const std::string& source, const std::string& field) {
  try {
    (void)expr::parse_expression(rewrite_problem_size_indexing(source));
  } catch (const expr::ExpressionError& e) {
    throw std::invalid_argument(e.with_context(field).what());
  }
}

}  // namespace

void KernelSpecification::validate(const Problem& problem) const {
  if (backend != "cpp" && backend != "opencl" && backend != "cuda")
    throw std::invalid_argument(fmt::format("backend: unknown backend '{}' (expected cpp, opencl or cuda)", backend));
  if (kernel_name.empty()) throw std::invalid_argument("kernel_name: no kernel name given");
  if (kernel_file.empty() && kernel_code.empty() && !generate_code)
    throw std::invalid_argument("kernel_file: no kernel source given (kernel_file or kernel_code)");
  if (repetition.runs < 1)
    throw std::invalid_argument(fmt::format("iterations: {} (expected at least 1)", repetition.runs));
  if (repetition.adaptive && (repetition.min_runs < 2 || repetition.max_runs < repetition.min_runs ||
                              !(repetition.precision > 0)))
    throw std::invalid_argument(fmt::format("iterations: {} (expected min >= 2, max >= min, precision > 0)",
                                            repetition.describe()));
  if (!(timeout_s > 0)) throw std::invalid_argument(fmt::format("timeout_s: {} (expected > 0 seconds)", timeout_s));
  std::set<std::string, std::less<>> constants;
  for (const auto& [name, bytes] : constant_memory) {
    if (backend != "cuda")
      throw std::invalid_argument(fmt::format("constant memory '{}': only CUDA kernels have constant memory (the {} "
                                              "backend has none)", name, backend));
    if (name.empty()) throw std::invalid_argument("constant memory: a variable without a name");
    if (!constants.insert(name).second)
      throw std::invalid_argument(fmt::format("constant memory '{}': given twice", name));
    if (bytes.empty()) throw std::invalid_argument(fmt::format("constant memory '{}': no contents", name));
  }
  // Every geometry/define expression compiles against the problem (unknown names are caught here).
  (void)LaunchPlanner(*this, problem);

  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const ArgumentSpecification& a = arguments[i];
    const std::string field = fmt::format("argument {} '{}'", i, a.name);
    if (a.name.empty()) throw std::invalid_argument(fmt::format("argument {}: no name", i));
    if (!names.insert(a.name).second) throw std::invalid_argument(fmt::format("{}: duplicate argument name", field));
    if (a.scalar && a.local_memory) throw std::invalid_argument(fmt::format("{}: a scalar cannot be local memory", field));
    if (!a.scalar) check_expression(a.size, field + ": size");
    if (a.fill == Fill::file && !a.scalar && !a.local_memory && a.data_file.empty())
      throw std::invalid_argument(fmt::format("{}: file fill without a data file", field));
    if (a.fill == Fill::data && !a.scalar && !a.local_memory && !a.data_owner)
      throw std::invalid_argument(fmt::format("{}: data fill without data", field));
    if ((a.atol && !(*a.atol >= 0)) || (a.rtol && !(*a.rtol >= 0)))
      throw std::invalid_argument(fmt::format("{}: tolerances must be >= 0", field));
    if (a.constant_memory && (a.scalar || a.local_memory))
      throw std::invalid_argument(fmt::format("{}: only a vector can also be constant memory", field));
    if (a.constant_memory && backend != "cuda")
      throw std::invalid_argument(fmt::format("{}: constant memory: only CUDA kernels have constant memory (the {} "
                                              "backend has none)", field, backend));
  }
  const auto output = [&](const std::string& name, const std::string& field) {
    for (const ArgumentSpecification& a : arguments)
      if (a.name == name) {
        if (a.scalar || a.local_memory || a.access == Access::read_only)
          throw std::invalid_argument(fmt::format("{}: argument '{}' is not an output", field, name));
        return;
      }
    throw std::invalid_argument(fmt::format("{}: no argument named '{}'", field, name));
  };

  if (!(verification.atol >= 0) || !(verification.rtol >= 0))
    throw std::invalid_argument("verification: tolerances must be >= 0");
  if (verification.kind == Verification::Kind::files) {
    if (verification.files.empty()) throw std::invalid_argument("verification: no reference files");
    for (const auto& [name, file] : verification.files) output(name, "verification files");
  }
  if (verification.kind == Verification::Kind::callback && !verification.callback)
    throw std::invalid_argument("verification: no callback given");
  if (verification.kind == Verification::Kind::configuration) {
    for (const Parameter& p : problem.parameters)
      if (!verification.configuration.count(p.name))
        throw std::invalid_argument(
            fmt::format("verification configuration: no value for parameter '{}'", p.name));
    for (const auto& [name, value] : verification.configuration) {
      const auto index = problem.parameter_index(name);
      if (!index) throw std::invalid_argument(fmt::format("verification configuration: unknown parameter '{}'", name));
      bool found = false;
      for (const Value& v : problem.parameters[*index].values) found = found || python_equal(v, value);
      if (!found)
        throw std::invalid_argument(fmt::format("verification configuration: {} is not a value of parameter '{}'",
                                                value.repr(), name));
    }
  }

  std::set<std::string, std::less<>> metric_names;
  for (const Metric& m : metrics) {
    if (m.name.empty()) throw std::invalid_argument("metrics: a metric without a name");
    if (!metric_names.insert(m.name).second)
      throw std::invalid_argument(fmt::format("metric '{}': duplicate name", m.name));
    if (!m.code) check_expression(m.expression, fmt::format("metric '{}'", m.name));
  }
  for (const AccuracyMeasure& a : accuracy) {
    const std::string field = fmt::format("accuracy '{}'", a.name);
    if (a.name.empty()) throw std::invalid_argument("accuracy: a measure without a name");
    if (!metric_names.insert(a.name).second) throw std::invalid_argument(fmt::format("{}: duplicate name", field));
    output(a.argument, field);
    if (canonical_accuracy_metric(a.metric).empty())
      throw std::invalid_argument(fmt::format("{}: unknown metric '{}' (known: {})", field, a.metric,
                                              fmt::join(accuracy_metric_names(), ", ")));
    if (verification.kind == Verification::Kind::none || verification.kind == Verification::Kind::callback)
      throw std::invalid_argument(fmt::format("{}: needs a reference output (a reference configuration or files)", field));
  }
  // What the caller's observers report is known only once they report: metrics may then use any name.
  if (launch_observers.empty()) check_metric_names(problem);
}

// A metric is evaluated over what one evaluation measured (the step times, the accuracy measures, what observers
// report, the metrics before it), then the parameters and constants (evaluate_metric). A name none of these has,
// or a part that raises whatever was measured, is an error now, not a NaN in every record.
void KernelSpecification::check_metric_names(const Problem& problem) const {
  std::vector<std::string> names{"time", "compile_time", "verification_time", "benchmark_time"};
  for (const AccuracyMeasure& a : accuracy) names.push_back(a.name);
  for (const std::string& n : observer_measurement_names()) names.push_back(n);
  std::vector<expr::TypeSet> types(names.size(), expr::type_bit(ValueType::Float));
  for (const Parameter& p : problem.parameters) {
    names.push_back(p.name);
    types.push_back(expr::types_of(p.values));
  }
  for (const Metric& m : metrics) {
    if (m.code) {  // code: checked when it runs
      names.insert(names.begin(), m.name);
      types.insert(types.begin(), expr::type_bit(ValueType::Float));
      continue;
    }
    try {
      const expr::NodePtr root = expr::parse_expression(m.expression);
      (void)expr::CompiledExpression::compile(*root, m.expression, names, types, problem.constants);
    } catch (const expr::ExpressionError& e) {
      throw std::invalid_argument(e.with_context(fmt::format("metric '{}'", m.name)).what());
    }
    names.insert(names.begin(), m.name);  // later metrics may use it
    types.insert(types.begin(), expr::type_bit(ValueType::Float));
  }
}

std::string apply_caller_code(const KernelSpecification& spec, std::span<const Value> config, LaunchPlan& plan) {
  if (spec.generate_defines) plan.defines = spec.generate_defines(config);
  if (!spec.generate_code) return "";
  std::string code = spec.generate_code(config);
  if (code.empty()) throw std::runtime_error("the code generator returned no code");
  return code;
}

KernelSource load_source(const KernelSpecification& spec) {
  KernelSource source;
  source.name = spec.kernel_name;
  source.file = spec.kernel_file;
  source.compiler_options = spec.compiler_options;
  source.constant_memory = spec.constant_memory;
  if (!spec.kernel_code.empty() || spec.generate_code) {  // generated code comes per configuration
    source.code = spec.kernel_code;
    return source;
  }
  if (spec.kernel_file.empty()) throw io::InputError("", "", "no kernel source: neither kernel_code nor kernel_file");
  std::ifstream in(spec.kernel_file, std::ios::binary);
  if (!in) throw io::InputError(spec.kernel_file, "", "cannot open the kernel source file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw io::InputError(spec.kernel_file, "", "reading the kernel source file failed");
  source.code = text.str();
  std::error_code error;
  const std::filesystem::path folder = std::filesystem::absolute(spec.kernel_file, error).parent_path();
  if (!error && !folder.empty()) source.include_dirs.push_back(folder.string());
  return source;
}

KernelSource load_source(const KernelSpecification& spec, std::span<const KernelArgument> arguments) {
  KernelSource source = load_source(spec);
  for (std::size_t i = 0; i < spec.arguments.size() && i < arguments.size(); ++i)
    if (spec.arguments[i].constant_memory) source.constant_memory.emplace_back(arguments[i].name, arguments[i].bytes);
  return source;
}

}  // namespace ktune::live
