#pragma once
// What the application says about a tunable kernel: its source, its tunable parameters (values and the default),
// restrictions, launch geometry (Kernel Tuner's conventions), compiler options and the verification tolerance of a
// captured call. The runtime needs the geometry and the defaults to launch; capture writes all of it into a T1 file
// that `ktune tune` reads.
//
//   auto def = ktune::runtime::KernelDefinition("vector_add", "vector_add.cl")
//                  .tune("block_size_x", {32, 64, 128, 256}, 128)
//                  .tune("tile", {1, 2, 4}, 1)
//                  .restrict("block_size_x * tile >= 64")
//                  .grid_divisors({"block_size_x", "tile"});
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ktune::runtime {

struct TunableParameter {
  std::string name;
  std::string t1_type;               // "int", "float" or "string" (T1's TuningParameters Type)
  std::vector<std::string> values;   // as C literals (what #define gets)
  std::vector<std::string> python;   // the same values as Python literals (T1's Values list)
  std::size_t default_index = 0;
};

class KernelDefinition {
 public:
  // `name` names the kernel in wisdom, capture and logs, and is the function to call unless function() says other.
  // The source is read from `source_file` at the first launch; its extension picks the backend language (.cl OpenCL,
  // .c C, .cpp/.cc/.cxx C++, .cu CUDA) unless language() says other.
  KernelDefinition(std::string name, std::string source_file);

  KernelDefinition& function(std::string function_name);
  KernelDefinition& source_code(std::string code);  // the source itself; source_file then only names it
  KernelDefinition& language(std::string language);  // "OpenCL", "C", "C++", "CUDA"

  // A tunable parameter: its values and the default configuration's value (which must be one of them).
  // std::invalid_argument for an empty list, a duplicate name or a default not in the list.
  template <class T>
  KernelDefinition& tune(std::string name, const std::vector<std::type_identity_t<T>>& values, const T& default_value) {
    std::vector<std::string> c, py;
    std::size_t index = values.size();
    for (std::size_t i = 0; i < values.size(); ++i) {
      c.push_back(literal(values[i]));
      py.push_back(python_literal(values[i]));
      if (values[i] == default_value && index == values.size()) index = i;
    }
    return add_parameter(std::move(name), type_name<T>(), std::move(c), std::move(py), index);
  }
  // String values are defined as they are (a type name, an identifier): tune("real", {"float", "double"}, "float").
  KernelDefinition& tune(std::string name, const std::vector<std::string>& values, const std::string& default_value) {
    return tune<std::string>(std::move(name), values, default_value);
  }
  // A restriction in Kernel Tuner's (Python) syntax over the parameters; used by `ktune tune` on a capture.
  KernelDefinition& restrict(std::string expression);
  // The parameters that are the thread-block (work-group) size per dimension (default block_size_x/y/z); a
  // dimension whose name is not a parameter has Kernel Tuner's default size (256, 1, 1).
  KernelDefinition& block_size_names(std::string x, std::string y = "block_size_y", std::string z = "block_size_z");
  // Kernel Tuner's grid divisors: grid = ceil(problem size / product of the names or integers), per dimension
  // (default: the block size's name where it is a parameter, else 1).
  KernelDefinition& grid_divisors(std::vector<std::string> x, std::vector<std::string> y = {},
                                  std::vector<std::string> z = {});
  KernelDefinition& compiler_options(std::vector<std::string> options);
  KernelDefinition& define(std::string name, std::string value);  // a fixed #define beside the parameters
  // Argument names in the kernel's order (for capture and logs; default arg0, arg1, ...).
  KernelDefinition& argument_names(std::vector<std::string> names);
  // How a captured call's outputs are verified when tuning: |a - e| <= atol + rtol * |e| (default 1e-6, 0).
  KernelDefinition& tolerance(double atol, double rtol);

  const std::string& name() const { return name_; }
  const std::string& function_name() const { return function_.empty() ? name_ : function_; }
  const std::string& source_file() const { return source_file_; }
  const std::string& source_code() const { return source_code_; }
  bool has_source_code() const { return has_code_; }
  std::string language() const;  // as given, or from the file's extension
  std::string backend() const;    // "opencl", "cpp", "cuda"
  const std::vector<TunableParameter>& parameters() const { return parameters_; }
  const std::vector<std::string>& restrictions() const { return restrictions_; }
  const std::array<std::string, 3>& block_size_names() const { return block_; }
  std::array<std::vector<std::string>, 3> grid_divisors() const;
  const std::vector<std::string>& compiler_options() const { return options_; }
  const std::vector<std::pair<std::string, std::string>>& defines() const { return defines_; }
  std::string argument_name(std::size_t index) const;
  double atol() const { return atol_; }
  double rtol() const { return rtol_; }
  std::vector<std::string> parameter_names() const;
  std::vector<std::string> default_values() const;  // the default configuration, as C literals

 private:
  template <class T>
  static const char* type_name() {
    if constexpr (std::is_floating_point_v<T>) return "float";
    else if constexpr (std::is_integral_v<T>) return "int";
    else return "string";
  }
  static std::string literal(long long v);
  static std::string literal(double v);
  static std::string literal(const std::string& v) { return v; }
  static std::string python_literal(long long v) { return literal(v); }
  static std::string python_literal(double v) { return literal(v); }
  static std::string python_literal(const std::string& v);
  template <class T>
    requires(std::is_integral_v<T>)
  static std::string literal(T v) {
    return literal(static_cast<long long>(v));
  }
  template <class T>
    requires(std::is_integral_v<T>)
  static std::string python_literal(T v) {
    return literal(static_cast<long long>(v));
  }
  static std::string literal(float v) { return literal(static_cast<double>(v)); }
  static std::string python_literal(float v) { return literal(static_cast<double>(v)); }
  KernelDefinition& add_parameter(std::string name, std::string type, std::vector<std::string> values,
                                  std::vector<std::string> python, std::size_t default_index);

  std::string name_, source_file_, function_, source_code_, language_;
  bool has_code_ = false;
  std::vector<TunableParameter> parameters_;
  std::vector<std::string> restrictions_;
  bool grid_given_ = false;
  std::array<std::string, 3> block_{"block_size_x", "block_size_y", "block_size_z"};
  std::array<std::vector<std::string>, 3> grid_div_;
  std::vector<std::string> options_;
  std::vector<std::pair<std::string, std::string>> defines_;
  std::vector<std::string> argument_names_;
  double atol_ = 1e-6, rtol_ = 0;
};

}  // namespace ktune::runtime
