#include "ktune/runtime/kernel_definition.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace ktune::runtime {

KernelDefinition::KernelDefinition(std::string name, std::string source_file)
    : name_(std::move(name)), source_file_(std::move(source_file)) {
  if (name_.empty()) throw std::invalid_argument("a kernel needs a name");
}

KernelDefinition& KernelDefinition::function(std::string function_name) {
  function_ = std::move(function_name);
  return *this;
}

KernelDefinition& KernelDefinition::source_code(std::string code) {
  source_code_ = std::move(code);
  has_code_ = true;
  return *this;
}

KernelDefinition& KernelDefinition::language(std::string language) {
  language_ = std::move(language);
  (void)backend();  // checks it
  return *this;
}

std::string KernelDefinition::language() const {
  if (!language_.empty()) return language_;
  const auto dot = source_file_.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : source_file_.substr(dot + 1);
  if (ext == "cl") return "OpenCL";
  if (ext == "cu") return "CUDA";
  if (ext == "c") return "C";
  if (ext == "cpp" || ext == "cc" || ext == "cxx" || ext == "C") return "C++";
  throw std::invalid_argument("kernel '" + name_ + "': cannot tell the language of '" + source_file_ +
                              "' from its extension (.cl, .cu, .c, .cpp); say language(...)");
}

std::string KernelDefinition::backend() const {
  const std::string l = language();
  if (l == "OpenCL" || l == "opencl") return "opencl";
  if (l == "CUDA" || l == "cuda") return "cuda";
  if (l == "C" || l == "C++" || l == "c" || l == "c++" || l == "cpp") return "cpp";
  throw std::invalid_argument("kernel '" + name_ + "': unknown language '" + l + "' (OpenCL, CUDA, C or C++)");
}

std::string KernelDefinition::literal(long long v) { return std::to_string(v); }

std::string KernelDefinition::literal(double v) {
  if (std::isnan(v)) return "(0.0/0.0)";
  if (std::isinf(v)) return v > 0 ? "(1.0/0.0)" : "(-1.0/0.0)";
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);  // shortest round-trip digits
  std::string text(buffer, end);
  // A double literal, as Python writes floats: always a '.' or an exponent.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string KernelDefinition::python_literal(const std::string& v) {
  std::string out = "'";
  for (const char c : v) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

KernelDefinition& KernelDefinition::add_parameter(std::string name, std::string type, std::vector<std::string> values,
                                                  std::vector<std::string> python, std::size_t default_index) {
  const std::string where = "kernel '" + name_ + "', parameter '" + name + "'";
  if (name.empty()) throw std::invalid_argument("kernel '" + name_ + "': a parameter needs a name");
  if (values.empty()) throw std::invalid_argument(where + ": no values");
  if (default_index >= values.size()) throw std::invalid_argument(where + ": the default is not among the values");
  for (const auto& p : parameters_)
    if (p.name == name) throw std::invalid_argument(where + ": declared twice");
  parameters_.push_back({std::move(name), std::move(type), std::move(values), std::move(python), default_index});
  return *this;
}

KernelDefinition& KernelDefinition::restrict(std::string expression) {
  restrictions_.push_back(std::move(expression));
  return *this;
}

KernelDefinition& KernelDefinition::block_size_names(std::string x, std::string y, std::string z) {
  block_ = {std::move(x), std::move(y), std::move(z)};
  return *this;
}

KernelDefinition& KernelDefinition::grid_divisors(std::vector<std::string> x, std::vector<std::string> y,
                                                  std::vector<std::string> z) {
  grid_div_ = {std::move(x), std::move(y), std::move(z)};
  grid_given_ = true;
  return *this;
}

KernelDefinition& KernelDefinition::compiler_options(std::vector<std::string> options) {
  options_ = std::move(options);
  return *this;
}

KernelDefinition& KernelDefinition::define(std::string name, std::string value) {
  defines_.emplace_back(std::move(name), std::move(value));
  return *this;
}

KernelDefinition& KernelDefinition::argument_names(std::vector<std::string> names) {
  argument_names_ = std::move(names);
  return *this;
}

KernelDefinition& KernelDefinition::tolerance(double atol, double rtol) {
  atol_ = atol;
  rtol_ = rtol;
  return *this;
}

std::array<std::vector<std::string>, 3> KernelDefinition::grid_divisors() const {
  if (grid_given_) return grid_div_;
  // Kernel Tuner divides by the block size's parameters (a fixed block size divides by nothing).
  std::array<std::vector<std::string>, 3> div;
  for (std::size_t d = 0; d < 3; ++d)
    for (const auto& p : parameters_)
      if (p.name == block_[d]) div[d] = {block_[d]};
  return div;
}

std::string KernelDefinition::argument_name(std::size_t index) const {
  if (index < argument_names_.size() && !argument_names_[index].empty()) return argument_names_[index];
  return "arg" + std::to_string(index);
}

std::vector<std::string> KernelDefinition::parameter_names() const {
  std::vector<std::string> names;
  for (const auto& p : parameters_) names.push_back(p.name);
  return names;
}

std::vector<std::string> KernelDefinition::default_values() const {
  std::vector<std::string> values;
  for (const auto& p : parameters_) values.push_back(p.values[p.default_index]);
  return values;
}

}  // namespace ktune::runtime
