#pragma once
// What a live tuning job runs: the kernel (file, name, language/backend, compiler options), its arguments (vectors
// with element type, size and fill; scalars), the problem size and launch geometry, defines, repetitions and the
// statistic of the objective, verification against a reference, derived metrics and the per-configuration timeout.
// Built from a T1 file's KernelSpecification, from C++, or from CLI flags; plain data, like ktune::Problem.
//
// Expressions (sizes, geometry, metrics) are Python expressions in our constraint language, evaluated over the
// problem's constants and the configuration's parameters; sizes may also use `ProblemSize` (a list of three) and
// `problem_size_x/y/z`.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/live/backend.hpp"
#include "ktune/live/kernel_argument.hpp"
#include "ktune/live/launch_observer.hpp"
#include "ktune/problem.hpp"
#include "ktune/repetition.hpp"
#include "ktune/value.hpp"

namespace ktune::live {

enum class Fill : unsigned char { zeros, constant, random, file, data };

struct ArgumentSpecification {
  std::string name;
  ElementType type = ElementType::float32;
  bool scalar = false;
  Access access = Access::read_write;
  bool local_memory = false;  // OpenCL __local / CUDA dynamic shared memory; size in elements
  std::string size = "1";     // element count: an integer expression over constants and the problem size
  Fill fill = Fill::zeros;
  double fill_value = 0;      // Fill::constant, and the value of a scalar
  std::uint64_t seed = 0;     // Fill::random: uniform in [0, 1) for floating types, [0, 100) for integers, 0/1 bool
  std::string data_file;      // Fill::file: raw little-endian elements
  // Fill::data: the elements themselves in host byte order, read in place: `data` views memory that `data_owner`
  // keeps alive (a caller's numpy array, a vector), copied once when the run's arguments are made; exactly size
  // elements. share_data() sets both from a vector.
  std::span<const std::byte> data;
  std::shared_ptr<const void> data_owner;
  // Verification tolerances of this output (unset: the Verification defaults). |a-e| <= atol + rtol*|e|.
  std::optional<double> atol, rtol;
  // cuda: its initial contents are also copied into the kernel's __constant__ variable of the same name (a T1
  // argument of MemType "Constant", as Kernel Tuner's tune_kernel_T1 passes it both ways). Vectors only.
  bool constant_memory = false;
};

// Fill::data from `bytes`, which the argument then shares.
inline void share_data(ArgumentSpecification& argument, std::shared_ptr<const std::vector<std::byte>> bytes) {
  argument.fill = Fill::data;
  argument.data = *bytes;
  argument.data_owner = std::move(bytes);
}

using ktune::Statistic;  // ktune/repetition.hpp

struct Verification {
  enum class Kind : unsigned char { none, configuration, files, callback };
  Kind kind = Kind::none;
  // Kind::configuration: the outputs of this configuration (parameter name -> value) are the reference.
  std::map<std::string, Value, std::less<>> configuration;
  // Kind::files: output argument name -> raw file with its expected contents.
  std::map<std::string, std::string, std::less<>> files;
  // Kind::callback (C++ only): the arguments after the run (same order as the specification); returns "" when
  // correct, else why not.
  std::function<std::string(std::span<const KernelArgument> after)> callback;
  double atol = 1e-6, rtol = 0;
};

// The measurements of one configuration by name ("time" in ms, observers', the metrics before this one).
using MeasurementMap = std::map<std::string, double, std::less<>>;

struct Metric {
  std::string name;        // "GFLOP/s"
  std::string expression;  // "2*n*n*n/(time/1e3)/1e9": parameters, constants and measurements (time in ms)
  std::string unit;
  // A metric as code (Kernel Tuner's callable metrics, from Python), used instead of `expression`: the
  // configuration's values (the problem's order) and its measurements; what it throws makes the metric NaN.
  std::function<double(std::span<const Value> config, const MeasurementMap& measurements)> code = {};
};

// Accuracy of an output instead of pass/fail (mixed-precision tuning, Kernel Tuner's AccuracyObserver): the error of
// `argument` against its reference output (from Verification; it may have another element type) becomes the
// measurement `name`, and replaces the tolerance check of that output. `metric` is one of accuracy_metric_names().
struct AccuracyMeasure {
  std::string name;      // the measurement's name, e.g. "rmse" (usable in metrics and as an objective)
  std::string argument;  // an output argument
  std::string metric;    // "RMSE", "MRE", "max absolute", ... (case, '_', ' ' and "error" are ignored)
};

struct KernelSpecification {
  std::string backend = "cpp";  // "cpp", "opencl", "cuda" (T1 Language C/C++ -> cpp, OpenCL -> opencl, CUDA -> cuda)
  std::string kernel_name;      // may contain parameter names, substituted per configuration (Kernel Tuner)
  std::string kernel_file;      // resolved against the directory of the file it came from
  std::string kernel_code;      // the source itself (builder); when set, kernel_file is only used in messages
  std::vector<std::string> compiler_options;
  // cuda: __constant__ variables of the kernel filled before every configuration runs (name, contents; Kernel
  // Tuner's cmem_args). A name the compiled module lacks, or contents larger than the variable, fail the
  // configuration as a compile failure, naming it.
  std::vector<std::pair<std::string, std::vector<std::byte>>> constant_memory;

  std::array<std::string, 3> problem_size{"1", "1", "1"};
  // How the caller gave the problem size, as Kernel Tuner's cache records it: 1 to 3 dimensions as a list, 0 as one
  // number (tune_kernel(problem_size=100000)).
  int problem_size_dimensions = 3;
  // Geometry, Kernel Tuner style: block = the block_size_names parameters (absent: 256, 1, 1 like Kernel Tuner),
  // grid = ceil(problem_size / product of the grid_div expressions); an empty list divides by 1.
  std::vector<std::string> block_size_names{"block_size_x", "block_size_y", "block_size_z"};
  std::array<std::vector<std::string>, 3> grid_div{{{"block_size_x"}, {"block_size_y"}, {"block_size_z"}}};
  // Geometry, T1 style (used when global_size[0] is not empty): work-items and work-group size per dimension as
  // expressions; grid = ceil(global / local).
  std::array<std::string, 3> global_size, local_size;
  // Every tunable parameter, block_size_x/y/z, grid_size_x/y/z and `kernel_tuner 1` are defined unless false.
  bool define_parameters = true;
  std::vector<std::pair<std::string, std::string>> extra_defines;  // name -> expression (its value is defined)

  // Code of the caller's, run in this process for each configuration (its values in the problem's order) before it
  // is compiled: Kernel Tuner's code generators and `defines` from Python. What they throw fails that configuration
  // (compile_failed, with the message). All the caller's code here (these two, the verification callback, code
  // metrics, launch observers) may throw Interrupted (tuning/interruption.hpp) after requesting a stop: the
  // evaluation is then abandoned with no result, as after a Ctrl-C (e.g. Python's KeyboardInterrupt landed there).
  // The source of the configuration, in place of kernel_code/kernel_file (which then only name it in messages).
  std::function<std::string(std::span<const Value> config)> generate_code = {};
  // The defines of the configuration, in place of the parameters' and extra_defines.
  std::function<Defines(std::span<const Value> config)> generate_defines = {};
  // Observers on this side of the worker (Kernel Tuner's BenchmarkObserver subclasses): told of every timed launch;
  // their results are measurements of the configuration (usable by metrics and as objectives).
  std::vector<std::shared_ptr<LaunchObserver>> launch_observers = {};

  std::vector<ArgumentSpecification> arguments;

  // Timed launches per configuration, after one warm-up launch (ktune/repetition.hpp): adaptive unless the T1 file
  // or the caller fixes a number (Kernel Tuner: 7). Launch observers need a fixed number: with them, `runs`.
  RepetitionPolicy repetition{.adaptive = true};
  bool warmup = true;
  Statistic statistic = Statistic::mean;
  Verification verification;
  std::vector<Metric> metrics;
  std::vector<AccuracyMeasure> accuracy;
  // What to optimise when the command line does not say ("time", "error:min", ...; T1 "Objectives", ours).
  std::vector<std::string> objectives;
  double timeout_s = 60;    // per configuration (compile + verification + benchmark); the evaluation is a timeout
  BackendOptions backend_options;

  // Throws std::invalid_argument naming the argument/field: unknown backend, no kernel, bad sizes, duplicate names,
  // a metric that uses an unknown name or always raises (with a caret under it).
  void validate(const Problem& problem) const;

 private:
  void check_metric_names(const Problem& problem) const;
};

// What one configuration needs to run: the kernel name after substitution, the defines and the geometry.
struct LaunchPlan {
  std::string kernel_name;
  Defines defines;
  LaunchGeometry geometry;
};

// Throws std::invalid_argument naming the expression for errors in it (evaluation error, non-integer size).
LaunchPlan plan_launch(const KernelSpecification& spec, const Problem& problem, std::span<const Value> config);
// The caller's code for one configuration (generate_code, generate_defines): generated defines replace
// plan.defines; returns the generated source, "" when the spec's own is compiled. What the callbacks throw passes
// through (the caller fails that configuration).
std::string apply_caller_code(const KernelSpecification& spec, std::span<const Value> config, LaunchPlan& plan);
// The arguments with their initial contents (deterministic from the seeds). Throws std::invalid_argument, or
// io::InputError for an unreadable data file.
std::vector<KernelArgument> make_arguments(const KernelSpecification& spec, const Problem& problem);
// The kernel source (reads kernel_file when kernel_code is empty; io::InputError naming the file otherwise).
KernelSource load_source(const KernelSpecification& spec);
// The same with the constant memory of the arguments marked constant_memory (`arguments`: make_arguments' result).
KernelSource load_source(const KernelSpecification& spec, std::span<const KernelArgument> arguments);

// Compares one output with its expected contents: "" when every element is within atol + rtol*|expected| (NaN
// matches only NaN), else a message naming the argument, the first bad index, both values and the count of bad ones.
std::string compare_output(const KernelArgument& expected, std::span<const std::byte> actual, double atol, double rtol);

// The value of a metric for a configuration and its measurements (name -> value, "time" included). Throws
// std::invalid_argument naming the metric when it cannot be evaluated.
double evaluate_metric(const Metric& metric, const Problem& problem, std::span<const Value> config,
                       const MeasurementMap& measurements);

// Accuracy metrics, computed in double over all elements (EPS = 1e-8 keeps divisions finite):
//   MSE   mean((a-e)^2)            RMSE  sqrt(MSE)            NRMSE  RMSE / max(max(e) - min(e), EPS)
//   NRMSE-mean  RMSE / max(|mean(e)|, EPS)                    NRMSE-RMS  RMSE / max(sqrt(mean(e^2)), EPS)
//   MAE   mean|a-e|                NMAE  MAE / max(mean|e|, EPS)
//   MRE   mean(|a-e| / max(|e|, EPS))                          RMSRE  sqrt(mean(((a-e) / max(|e|, EPS))^2))
//   MALE  mean|ln(|a|+EPS) - ln(|e|+EPS)|                      RMSLE  sqrt(mean((ln(|a|+EPS) - ln(|e|+EPS))^2))
//   max absolute  max|a-e|         max relative  max(|a-e| / max(|e|, EPS))
// An element that is NaN in `actual` but not in `expected` (or infinite where expected is finite) makes the error
// +inf; NaN in both, or equal infinities, count as exact. Empty inputs give 0.
// The canonical name ("MSE", ..., "max absolute") of a metric spelling ("rmse", "Max_Abs_Error", "relative"), or "".
std::string canonical_accuracy_metric(std::string_view metric);
std::vector<std::string> accuracy_metric_names();
// Throws std::invalid_argument for an unknown metric or different lengths.
double accuracy_error(std::string_view metric, std::span<const double> expected, std::span<const double> actual);
// The same for an output as bytes of `actual_type` against the reference argument (element-wise as doubles).
double accuracy_error(std::string_view metric, const KernelArgument& expected, ElementType actual_type,
                      std::span<const std::byte> actual);

// The KernelSpecification of a T1 file (KernelName, KernelFile, Language, CompilerOptions, ProblemSize, GlobalSize,
// LocalSize, GridDivX/Y/Z, Arguments, ReferenceArguments, Device) plus our extensions under "KernelSpecification":
// "Iterations", "Warmup", "Statistic", "TimeoutSeconds", "Compiler", "Metrics", "ReferenceConfiguration",
// "Tolerance", "Accuracy", "BlockSizeNames", "Defines" (the format: docs/live-tuning.md, "Problem description").
// Errors are io::InputError naming the file and JSON path.
KernelSpecification read_t1_kernel_specification(const std::string& path, const Problem& problem);
// The same from the text of a T1 file (plain JSON); `path` names it in errors and is the base of relative file names.
KernelSpecification parse_t1_kernel_specification(const std::string& text, const std::string& path,
                                                  const Problem& problem);
// The same from a T1 document parsed with its key order (io::parse_ordered_json_text), so that a caller reading the
// problem too (parse_t1) parses the file once.
KernelSpecification parse_t1_kernel_specification(const nlohmann::ordered_json& document, const std::string& path,
                                                  const Problem& problem);

}  // namespace ktune::live
