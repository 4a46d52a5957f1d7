// make_arguments: the host contents of every kernel argument, from sizes (expressions) and fills. Deterministic:
// the same specification gives the same bytes on every platform (ktune::Rng, no std distributions).
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/live/element_values.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/rng.hpp"
#include "axis_names.hpp"
#include "problem_size_indexing.hpp"

namespace ktune::live {

namespace {


// Evaluates a size-like expression. Names: the constants, problem_size_x/y/z and ProblemSize (once known), and
// each parameter as the list of its values (Kernel Tuner evaluates T1 sizes over tune_params, so
// "max(filter_width)" sizes a buffer for the largest value).
class SizeEvaluator {
 public:
  explicit SizeEvaluator(const Problem& problem) : problem_(problem) {
    for (const Parameter& p : problem.parameters) parameter_lists_.emplace(p.name, Value(p.values));
  }

  void set_problem_size(const std::array<std::int64_t, 3>& size) {
    for (int d = 0; d < 3; ++d) problem_names_[fmt::format("problem_size_{}", kAxisNames[d])] = Value(size[d]);
    problem_names_["ProblemSize"] = Value(Value::List{Value(size[0]), Value(size[1]), Value(size[2])});
  }

  std::int64_t size(const std::string& text, const std::string& field) const {
    const std::string source = rewrite_problem_size_indexing(text);
    Value v;
    try {
      const expr::NodePtr root = expr::parse_expression(source);
      v = expr::evaluate(*root, [&](std::string_view name) { return lookup(name); }, source);
    } catch (const expr::ExpressionError& e) {
      throw std::invalid_argument(e.with_context(field).what());
    } catch (const expr::EvalError& e) {
      throw std::invalid_argument(fmt::format("{}: evaluating \"{}\" failed: {}", field, source, e.what()));
    }
    std::int64_t n = -1;
    if (v.is_int()) n = v.as_int();
    else if (v.is_float() && v.as_float() == std::floor(v.as_float()) && std::abs(v.as_float()) < 9.0e15)
      n = static_cast<std::int64_t>(v.as_float());
    else
      throw std::invalid_argument(
          fmt::format("{}: \"{}\" gives {} {}, not an integer size", field, source, v.type_name(), v.repr()));
    if (n < 0) throw std::invalid_argument(fmt::format("{}: \"{}\" gives {}, a negative size", field, source, n));
    return n;
  }

 private:
  const Value* lookup(std::string_view name) const {
    if (const auto it = problem_.constants.find(name); it != problem_.constants.end()) return &it->second;
    if (const auto it = problem_names_.find(name); it != problem_names_.end()) return &it->second;
    if (const auto it = parameter_lists_.find(name); it != parameter_lists_.end()) return &it->second;
    return nullptr;
  }

  const Problem& problem_;
  std::map<std::string, Value, std::less<>> parameter_lists_, problem_names_;
};

void fill_random(KernelArgument& arg, std::uint64_t seed) {
  Rng rng(seed);
  const std::size_t size = element_size(arg.type);
  const std::size_t n = arg.count();
  std::byte* out = arg.bytes.data();
  if (is_floating(arg.type)) {
    for (std::size_t i = 0; i < n; ++i) store_element(arg.type, rng.uniform01(), out + i * size);
  } else {
    const std::uint64_t range = arg.type == ElementType::boolean ? 2 : 100;
    for (std::size_t i = 0; i < n; ++i) store_element(arg.type, static_cast<double>(rng.below(range)), out + i * size);
  }
}

void fill_constant(KernelArgument& arg, double value) {
  const std::size_t size = element_size(arg.type);
  if (arg.bytes.empty()) return;
  store_element(arg.type, value, arg.bytes.data());
  for (std::size_t i = size; i < arg.bytes.size(); i += size)  // copy the one encoded element
    std::copy_n(arg.bytes.data(), size, arg.bytes.data() + i);
}

void fill_file(KernelArgument& arg, const std::string& path) {
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  if (ec) throw io::InputError(path, "", fmt::format("cannot read the data of argument '{}': {}", arg.name, ec.message()));
  if (file_size != arg.bytes.size())
    throw io::InputError(path, "",
                         fmt::format("argument '{}' needs {} {} elements ({} bytes), the file has {} bytes", arg.name,
                                     arg.count(), to_string(arg.type), arg.bytes.size(), file_size));
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(arg.bytes.data()), static_cast<std::streamsize>(arg.bytes.size())))
    throw io::InputError(path, "", fmt::format("reading the data of argument '{}' failed", arg.name));
}

}  // namespace

std::vector<KernelArgument> make_arguments(const KernelSpecification& spec, const Problem& problem) {
  SizeEvaluator sizes(problem);
  // The problem size may depend on the configuration (Kernel Tuner's problem_size = "num_blocks"): then argument
  // sizes cannot use it, and only an argument size that does is an error.
  std::array<std::int64_t, 3> problem_size{};
  std::string problem_size_error;
  for (int d = 0; d < 3 && problem_size_error.empty(); ++d) {
    try {
      problem_size[d] = sizes.size(spec.problem_size[d], fmt::format("problem_size[{}]", d));
    } catch (const std::invalid_argument& e) {
      problem_size_error = e.what();
    }
  }
  if (problem_size_error.empty()) sizes.set_problem_size(problem_size);
  const auto size_of = [&](const std::string& expression, const std::string& field) {
    try {
      return sizes.size(expression, field);
    } catch (const std::invalid_argument& e) {
      if (problem_size_error.empty()) throw;
      throw std::invalid_argument(fmt::format("{} (argument sizes that use the problem size need one that does not "
                                              "depend on the configuration: {})", e.what(), problem_size_error));
    }
  };

  std::vector<KernelArgument> arguments;
  arguments.reserve(spec.arguments.size());
  for (const ArgumentSpecification& a : spec.arguments) {
    KernelArgument arg;
    arg.name = a.name;
    arg.type = a.type;
    arg.scalar = a.scalar;
    arg.access = a.access;
    arg.local_memory = a.local_memory;
    const std::string field = fmt::format("argument '{}': size", a.name);
    const std::int64_t count = a.scalar ? 1 : size_of(a.size, field);
    const std::size_t element = element_size(a.type);
    if (static_cast<std::uint64_t>(count) > (std::uint64_t{1} << 40) / element)
      throw std::invalid_argument(fmt::format("{}: \"{}\" gives {} elements, more than 1 TiB", field, a.size, count));
    arg.bytes.assign(static_cast<std::size_t>(count) * element, std::byte{0});
    if (a.scalar) {
      fill_constant(arg, a.fill_value);
    } else if (!a.local_memory) {
      switch (a.fill) {
        case Fill::zeros: break;
        case Fill::constant: fill_constant(arg, a.fill_value); break;
        case Fill::random: fill_random(arg, a.seed); break;
        case Fill::file: fill_file(arg, a.data_file); break;
        case Fill::data:
          if (!a.data_owner || a.data.size() != arg.bytes.size())
            throw std::invalid_argument(fmt::format("argument '{}': {} bytes of data for {} elements of {} bytes",
                                                    a.name, a.data_owner ? a.data.size() : 0, count, element));
          std::copy(a.data.begin(), a.data.end(), arg.bytes.begin());
          break;
      }
    }
    arguments.push_back(std::move(arg));
  }
  return arguments;
}

}  // namespace ktune::live
