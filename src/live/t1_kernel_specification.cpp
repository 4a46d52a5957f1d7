// read_t1_kernel_specification: the KernelSpecification part of a T1 file (schema 1.0.0 plus the keys Kernel
// Tuner's tune_kernel_T1 reads and our extensions; the format is documented in docs/live-tuning.md).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/tuning/objective.hpp"

namespace ktune::live {

namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// Keys of the KernelSpecification object: the T1 schema's, Kernel Tuner's extra ones, and ours.
const std::vector<std::string> kSpecKeys = {
    "Language", "KernelName", "KernelFile", "GlobalSize", "LocalSize", "Device", "CompilerOptions", "Profiling",
    "GlobalSizeType", "SharedMemory", "SimulationInput", "Arguments", "ReferenceArguments",  // schema
    "ProblemSize", "GridDivX", "GridDivY", "GridDivZ", "BenchmarkName", "Stream", "Misc",  // Kernel Tuner / BAT
    "Iterations", "Warmup", "Statistic", "TimeoutSeconds", "Compiler", "Metrics", "ReferenceConfiguration",
    "Tolerance", "Accuracy", "BlockSizeNames", "Defines", "DefineParameters", "Objectives"};  // ours
const std::vector<std::string> kArgumentKeys = {"Name", "Type", "Size", "TypeSize", "FillType", "FillValue",
                                                "DataSource", "RandomSeed", "AccessType", "MemoryType", "MemType",
                                                "Output", "Tolerance"};
const std::vector<std::string> kReferenceKeys = {"Name", "TargetName", "Type", "Size", "TypeSize", "FillType",
                                                 "FillValue", "DataSource", "RandomSeed", "AccessType", "MemoryType",
                                                 "ValidationMethod", "ValidationThreshold"};

class SpecReader {
 public:
  SpecReader(std::string file, const Problem& problem)
      : file_(std::move(file)), dir_(std::filesystem::path(file_).parent_path()), problem_(problem) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw io::InputError(file_, path, message);
  }

  // Unknown keys of the optional schema parts are ignored; one that looks like a known key is a misspelling.
  void check_keys(const json& object, const std::string& path, const std::vector<std::string>& known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      for (const std::string& k : known)
        if (lower(k) == lower(key) || (key.size() > 3 && edit_distance(lower(k), lower(key)) <= 2))
          fail(join(path, key), fmt::format("unknown key '{}' (did you mean '{}'?)", key, k));
    }
  }

  static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

  const json* find(const json& object, const char* key) const {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  const json& require(const json& object, const std::string& path, const char* key) const {
    const json* j = find(object, key);
    if (!j) fail(join(path, key), "missing");
    return *j;
  }
  std::string string_of(const json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, fmt::format("expected a string, got {} {}", j.type_name(), j.dump()));
    return j.get<std::string>();
  }
  // An expression field: a string, or a number written as JSON.
  std::string expression_of(const json& j, const std::string& path) const {
    if (j.is_string()) return j.get<std::string>();
    if (j.is_number_integer()) return j.dump();
    if (j.is_number_float()) return python_float_repr(j.get<double>());
    fail(path, fmt::format("expected an integer or an expression string, got {} {}", j.type_name(), j.dump()));
  }
  double number_of(const json& j, const std::string& path) const {
    if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
    if (!j.is_number()) fail(path, fmt::format("expected a number, got {} {}", j.type_name(), j.dump()));
    return j.get<double>();
  }
  std::int64_t integer_of(const json& j, const std::string& path, std::int64_t minimum) const {
    if (!j.is_number_integer()) fail(path, fmt::format("expected an integer, got {} {}", j.type_name(), j.dump()));
    const std::int64_t v = j.is_number_unsigned() && j.get<std::uint64_t>() > INT64_MAX ? INT64_MAX : j.get<std::int64_t>();
    if (v < minimum) fail(path, fmt::format("expected an integer >= {}, got {}", minimum, v));
    return v;
  }
  const json& object_of(const json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, fmt::format("expected an object, got {} {}", j.type_name(), j.dump()));
    return j;
  }
  const json& array_of(const json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, fmt::format("expected an array, got {} {}", j.type_name(), j.dump()));
    return j;
  }
  std::string resolve(const std::string& file) const {
    const std::filesystem::path p(file);
    return (p.is_absolute() || dir_.empty() ? p : dir_ / p).lexically_normal().string();
  }

  KernelSpecification read(const json& doc, const nlohmann::ordered_json& ordered) {
    const std::string root = "KernelSpecification";
    if (!doc.is_object()) fail("", "expected a JSON object at the top level");
    const json& ks = object_of(require(doc, "", root.c_str()), root);
    check_keys(ks, root, kSpecKeys);
    KernelSpecification spec;

    const std::string language = string_of(require(ks, root, "Language"), root + ".Language");
    const std::string l = lower(language);
    if (l == "opencl") spec.backend = "opencl";
    else if (l == "cuda") spec.backend = "cuda";
    else if (l == "c" || l == "c++" || l == "cpp") spec.backend = "cpp";
    else fail(root + ".Language", fmt::format("unsupported Language '{}' (expected OpenCL, CUDA, C, C++ or cpp)", language));
    spec.kernel_name = string_of(require(ks, root, "KernelName"), root + ".KernelName");
    spec.kernel_file = resolve(string_of(require(ks, root, "KernelFile"), root + ".KernelFile"));
    if (const json* j = find(ks, "CompilerOptions")) {
      const std::string path = root + ".CompilerOptions";
      for (std::size_t i = 0; i < array_of(*j, path).size(); ++i)
        spec.compiler_options.push_back(string_of((*j)[i], fmt::format("{}[{}]", path, i)));
    }
    if (const json* j = find(ks, "Compiler")) spec.backend_options.compiler = string_of(*j, root + ".Compiler");
    if (const json* j = find(ks, "Device")) {
      const std::string path = root + ".Device";
      object_of(*j, path);
      if (const json* p = find(*j, "PlatformId"))
        spec.backend_options.platform = static_cast<int>(std::min<std::int64_t>(integer_of(*p, path + ".PlatformId", 0), INT32_MAX));
      if (const json* d = find(*j, "DeviceId"))
        spec.backend_options.device = static_cast<int>(std::min<std::int64_t>(integer_of(*d, path + ".DeviceId", 0), INT32_MAX));
    }

    geometry(ks, root, spec);
    if (const json* j = find(ks, "BlockSizeNames")) {
      const std::string path = root + ".BlockSizeNames";
      if (array_of(*j, path).size() > 3) fail(path, fmt::format("at most 3 names, got {}", j->size()));
      spec.block_size_names.clear();
      for (std::size_t i = 0; i < j->size(); ++i)
        spec.block_size_names.push_back(string_of((*j)[i], fmt::format("{}[{}]", path, i)));
    }
    if (const json* j = find(ks, "DefineParameters")) {
      if (!j->is_boolean()) fail(root + ".DefineParameters", fmt::format("expected true or false, got {}", j->dump()));
      spec.define_parameters = j->get<bool>();
    }
    if (const json* j = find(ks, "Defines")) {
      const std::string path = root + ".Defines";
      object_of(*j, path);
      for (const auto& [name, value] : ordered.at(root).at("Defines").items())
        spec.extra_defines.emplace_back(name, expression_of(json::parse(value.dump()), join(path, name)));
    }

    if (const json* j = find(ks, "Arguments")) {
      const std::string path = root + ".Arguments";
      for (std::size_t i = 0; i < array_of(*j, path).size(); ++i)
        spec.arguments.push_back(argument((*j)[i], fmt::format("{}[{}]", path, i), i, spec.backend));
    }
    settings(ks, root, spec);
    metrics(ks, ordered.at(root), root, spec);
    if (const json* j = find(ks, "Objectives")) {  // ["time", "error:min"]: what to optimise unless told otherwise
      const std::string path = root + ".Objectives";
      if (!j->is_array() || j->empty()) fail(path, "expected a non-empty list of objective names");
      for (std::size_t i = 0; i < j->size(); ++i)
        spec.objectives.push_back(string_of((*j)[i], fmt::format("{}[{}]", path, i)));
      try {
        (void)parse_objectives(spec.objectives);
      } catch (const std::invalid_argument& e) {
        fail(path, e.what());
      }
    }
    verification(ks, root, spec);

    try {
      spec.validate(problem_);
    } catch (const std::invalid_argument& e) {
      fail(root, e.what());
    }
    return spec;
  }

 private:
  void geometry(const json& ks, const std::string& root, KernelSpecification& spec) const {
    for (int d = 0; d < 3; ++d) {
      const std::string key = fmt::format("GridDiv{}", "XYZ"[d]);
      const json* j = find(ks, key.c_str());
      if (!j) continue;
      const std::string path = join(root, key);
      spec.grid_div[d].clear();
      if (j->is_array()) {
        for (std::size_t i = 0; i < j->size(); ++i)
          spec.grid_div[d].push_back(expression_of((*j)[i], fmt::format("{}[{}]", path, i)));
      } else {
        spec.grid_div[d].push_back(expression_of(*j, path));
      }
    }
    if (const json* j = find(ks, "ProblemSize")) {
      // Kernel Tuner's way (tune_kernel_T1): problem size and grid divisors; GlobalSize/LocalSize are not used.
      const std::string path = root + ".ProblemSize";
      if (j->is_array()) {
        if (j->empty() || j->size() > 3) fail(path, fmt::format("expected 1 to 3 dimensions, got {}", j->size()));
        for (std::size_t i = 0; i < j->size(); ++i)
          spec.problem_size[i] = expression_of((*j)[i], fmt::format("{}[{}]", path, i));
        spec.problem_size_dimensions = static_cast<int>(j->size());
      } else {
        spec.problem_size[0] = expression_of(*j, path);
        spec.problem_size_dimensions = 0;
      }
      return;
    }
    const json* global = find(ks, "GlobalSize");
    if (!global) fail(root, "needs ProblemSize (Kernel Tuner style) or GlobalSize and LocalSize (T1 style)");
    const json& local = require(ks, root, "LocalSize");
    std::string type = "OpenCL";
    if (const json* t = find(ks, "GlobalSizeType")) type = string_of(*t, root + ".GlobalSizeType");
    if (type != "OpenCL" && type != "CUDA")
      fail(root + ".GlobalSizeType", fmt::format("unknown GlobalSizeType '{}' (expected OpenCL or CUDA)", type));
    for (int d = 0; d < 3; ++d) {
      const char axis[2] = {"XYZ"[d], 0};
      const auto component = [&](const json& object, const std::string& path) -> std::string {
        object_of(object, path);
        const json* c = find(object, axis);
        return c ? expression_of(*c, join(path, axis)) : "1";
      };
      const std::string g = component(*global, root + ".GlobalSize");
      spec.local_size[d] = component(local, root + ".LocalSize");
      // GlobalSizeType CUDA counts blocks; we keep work-items (grid = ceil(global / local)).
      spec.global_size[d] = type == "CUDA" ? fmt::format("({}) * ({})", g, spec.local_size[d]) : g;
    }
  }

  ArgumentSpecification argument(const json& aj, const std::string& path, std::size_t index,
                                 const std::string& backend) const {
    object_of(aj, path);
    check_keys(aj, path, kArgumentKeys);
    ArgumentSpecification a;
    a.name = string_of(require(aj, path, "Name"), path + ".Name");
    const std::string type = string_of(require(aj, path, "Type"), path + ".Type");
    const auto element = parse_element_type(type);
    if (!element)
      fail(path + ".Type", fmt::format("argument '{}': unsupported Type '{}' (expected bool, int8..uint64, half, float "
                                       "or double; vector and custom types are not supported)",
                                       a.name, type));
    a.type = *element;
    const std::string memory = string_of(require(aj, path, "MemoryType"), path + ".MemoryType");
    if (memory == "Scalar") a.scalar = true;
    else if (memory == "Local") a.local_memory = true;
    else if (memory != "Vector")
      fail(path + ".MemoryType",
           fmt::format("argument '{}': unsupported MemoryType '{}' (expected Scalar, Vector or Local)", a.name, memory));
    if (const json* m = find(aj, "MemType")) {
      // "Constant": a CUDA __constant__ variable of the argument's name holds its contents too (Kernel Tuner's
      // tune_kernel_T1 passes such an argument both as an argument and in cmem_args).
      const std::string kind = string_of(*m, path + ".MemType");
      if (kind == "Constant") a.constant_memory = true;
      else if (kind != "Global")
        fail(path + ".MemType", fmt::format("argument '{}': unknown MemType '{}' (expected Global or Constant)", a.name,
                                            kind));
      if (a.constant_memory && !a.scalar && !a.local_memory && backend != "cuda")
        fail(path + ".MemType", fmt::format("argument '{}': MemType Constant is CUDA's __constant__ memory, which the {} "
                                            "backend does not have (pass it as an ordinary read-only Vector)",
                                            a.name, backend));
      if (a.constant_memory && (a.scalar || a.local_memory))
        fail(path + ".MemType", fmt::format("argument '{}': only a Vector can be MemType Constant", a.name));
    }
    if (const json* j = find(aj, "AccessType")) {
      const std::string access = string_of(*j, path + ".AccessType");
      if (access == "ReadOnly") a.access = Access::read_only;
      else if (access == "WriteOnly") a.access = Access::write_only;
      else if (access == "ReadWrite") a.access = Access::read_write;
      else fail(path + ".AccessType", fmt::format("argument '{}': unknown AccessType '{}' (expected ReadOnly, WriteOnly "
                                                  "or ReadWrite)", a.name, access));
    }
    if (!a.scalar) a.size = expression_of(require(aj, path, "Size"), path + ".Size");
    const json* value = find(aj, "FillValue");
    if (value) a.fill_value = number_of(*value, path + ".FillValue");
    if (a.scalar) {
      if (!value) fail(path + ".FillValue", fmt::format("missing: the value of scalar argument '{}'", a.name));
      return a;
    }
    a.fill = value ? Fill::constant : Fill::zeros;
    a.seed = index;  // arguments without a RandomSeed still differ from each other
    if (const json* j = find(aj, "FillType")) {
      const std::string fill = string_of(*j, path + ".FillType");
      if (fill == "Constant") {
        a.fill = Fill::constant;
      } else if (fill == "Random") {
        a.fill = Fill::random;
      } else if (fill == "BinaryRaw") {
        a.fill = Fill::file;
        a.data_file = resolve(string_of(require(aj, path, "DataSource"), path + ".DataSource"));
      } else {
        fail(path + ".FillType", fmt::format("argument '{}': unsupported FillType '{}' (expected Constant, Random or "
                                             "BinaryRaw)", a.name, fill));
      }
    }
    if (const json* j = find(aj, "RandomSeed")) a.seed = static_cast<std::uint64_t>(integer_of(*j, path + ".RandomSeed", 0));
    if (const json* j = find(aj, "Tolerance")) tolerance(*j, path + ".Tolerance", a.atol, a.rtol);
    return a;
  }

  void tolerance(const json& j, const std::string& path, std::optional<double>& atol, std::optional<double>& rtol) const {
    object_of(j, path);
    for (const auto& [key, value] : j.items()) {
      if (key != "atol" && key != "rtol") fail(join(path, key), "unknown key (expected atol and/or rtol)");
      const double v = number_of(value, join(path, key));
      if (!(v >= 0)) fail(join(path, key), fmt::format("expected a tolerance >= 0, got {}", v));
      (key == "atol" ? atol : rtol) = v;
    }
  }

  void settings(const json& ks, const std::string& root, KernelSpecification& spec) const {
    if (const json* j = find(ks, "Iterations")) {
      // Refused beyond the limit rather than cut to it: the run would not do what the file says.
      constexpr std::int64_t kMaxIterations = 1000000;
      const std::int64_t n = integer_of(*j, root + ".Iterations", 1);
      if (n > kMaxIterations)
        fail(root + ".Iterations", fmt::format("expected an integer from 1 to {}, got {}", kMaxIterations, j->dump()));
      spec.repetition = RepetitionPolicy{.adaptive = false, .runs = static_cast<int>(n)};
    }
    if (const json* j = find(ks, "Warmup")) {
      if (!j->is_boolean()) fail(root + ".Warmup", fmt::format("expected true or false, got {}", j->dump()));
      spec.warmup = j->get<bool>();
    }
    if (const json* j = find(ks, "Statistic")) {
      const std::string s = lower(string_of(*j, root + ".Statistic"));
      if (s == "mean") spec.statistic = Statistic::mean;
      else if (s == "median") spec.statistic = Statistic::median;
      else if (s == "min") spec.statistic = Statistic::min;
      else fail(root + ".Statistic", fmt::format("unknown statistic '{}' (expected mean, median or min)", j->get<std::string>()));
    }
    if (const json* j = find(ks, "TimeoutSeconds")) {
      spec.timeout_s = number_of(*j, root + ".TimeoutSeconds");
      if (!(spec.timeout_s > 0)) fail(root + ".TimeoutSeconds", "expected a positive number of seconds");
    }
  }

  void metrics(const json& ks, const nlohmann::ordered_json& ordered, const std::string& root,
               KernelSpecification& spec) const {
    if (const json* j = find(ks, "Metrics")) {
      const std::string path = root + ".Metrics";
      if (j->is_object()) {  // {"GFLOP/s": "expression"}, in file order (later metrics may use earlier ones)
        for (const auto& [name, value] : ordered.at("Metrics").items())
          spec.metrics.push_back({name, string_of(json::parse(value.dump()), join(path, name)), ""});
      } else if (j->is_array()) {  // [{"Name", "Expression", "Unit"}]
        for (std::size_t i = 0; i < j->size(); ++i) {
          const std::string p = fmt::format("{}[{}]", path, i);
          const json& m = object_of((*j)[i], p);
          check_keys(m, p, {"Name", "Expression", "Unit"});
          Metric metric{string_of(require(m, p, "Name"), p + ".Name"),
                        string_of(require(m, p, "Expression"), p + ".Expression"), ""};
          if (const json* u = find(m, "Unit")) metric.unit = string_of(*u, p + ".Unit");
          spec.metrics.push_back(std::move(metric));
        }
      } else {
        fail(path, fmt::format("expected an object {{name: expression}} or an array, got {}", j->type_name()));
      }
    }
    if (const json* j = find(ks, "Accuracy")) {
      const std::string path = root + ".Accuracy";
      for (std::size_t i = 0; i < array_of(*j, path).size(); ++i) {
        const std::string p = fmt::format("{}[{}]", path, i);
        const json& m = object_of((*j)[i], p);
        check_keys(m, p, {"Name", "Argument", "Metric"});
        AccuracyMeasure a{string_of(require(m, p, "Name"), p + ".Name"), string_of(require(m, p, "Argument"), p + ".Argument"),
                          string_of(require(m, p, "Metric"), p + ".Metric")};
        if (canonical_accuracy_metric(a.metric).empty())
          fail(p + ".Metric", fmt::format("unknown accuracy metric '{}' (known: {})", a.metric,
                                          fmt::join(accuracy_metric_names(), ", ")));
        spec.accuracy.push_back(std::move(a));
      }
    }
  }

  void verification(const json& ks, const std::string& root, KernelSpecification& spec) const {
    Verification& v = spec.verification;
    if (const json* j = find(ks, "Tolerance")) {
      std::optional<double> atol, rtol;
      tolerance(*j, root + ".Tolerance", atol, rtol);
      if (atol) v.atol = *atol;
      if (rtol) v.rtol = *rtol;
    }
    const json* references = find(ks, "ReferenceArguments");
    const json* configuration = find(ks, "ReferenceConfiguration");
    if (references && configuration)
      fail(root + ".ReferenceConfiguration", "give either ReferenceArguments or ReferenceConfiguration, not both");
    if (configuration) {
      const std::string path = root + ".ReferenceConfiguration";
      v.kind = Verification::Kind::configuration;
      for (const auto& [name, value] : object_of(*configuration, path).items()) {
        const auto index = problem_.parameter_index(name);
        if (!index) fail(join(path, name), fmt::format("'{}' is not a tunable parameter", name));
        Value given;
        try {
          given = io::value_from_json(value);
        } catch (const std::invalid_argument& e) {
          fail(join(path, name), e.what());
        }
        // The parameter's own value (so 1 given for 1.0 becomes 1.0), or an error naming the valid ones.
        const auto& values = problem_.parameters[*index].values;
        const auto it = std::find_if(values.begin(), values.end(), [&](const Value& x) { return python_equal(x, given); });
        if (it == values.end()) fail(join(path, name), fmt::format("{} is not a value of parameter '{}'", given.repr(), name));
        v.configuration[name] = *it;
      }
      for (const Parameter& p : problem_.parameters)
        if (!v.configuration.count(p.name)) fail(path, fmt::format("no value for parameter '{}'", p.name));
    }
    if (references) {
      const std::string path = root + ".ReferenceArguments";
      if (array_of(*references, path).empty()) return;
      v.kind = Verification::Kind::files;
      for (std::size_t i = 0; i < references->size(); ++i) {
        const std::string p = fmt::format("{}[{}]", path, i);
        const json& r = object_of((*references)[i], p);
        check_keys(r, p, kReferenceKeys);
        const std::string name = string_of(require(r, p, "Name"), p + ".Name");
        std::string target = name;
        if (const json* t = find(r, "TargetName")) target = string_of(*t, p + ".TargetName");
        const auto arg = std::find_if(spec.arguments.begin(), spec.arguments.end(),
                                      [&](const ArgumentSpecification& a) { return a.name == target; });
        if (arg == spec.arguments.end()) fail(p + ".TargetName", fmt::format("no argument named '{}'", target));
        if (const json* f = find(r, "FillType"); f && string_of(*f, p + ".FillType") != "BinaryRaw")
          fail(p + ".FillType", fmt::format("reference '{}': only BinaryRaw reference data is supported, got '{}'", name,
                                            f->get<std::string>()));
        v.files[target] = resolve(string_of(require(r, p, "DataSource"), p + ".DataSource"));
        double threshold = v.atol;
        if (const json* t = find(r, "ValidationThreshold")) {
          threshold = number_of(*t, p + ".ValidationThreshold");
          if (!(threshold >= 0)) fail(p + ".ValidationThreshold", "expected a threshold >= 0");
        }
        std::string method = "SideBySideComparison";
        if (const json* m = find(r, "ValidationMethod")) method = string_of(*m, p + ".ValidationMethod");
        if (method == "AbsoluteDifference" || method == "SideBySideComparison") {
          arg->atol = threshold;  // element-wise |actual - expected| <= threshold
          arg->rtol = 0.0;
        } else if (method == "SideBySideRelativeComparison") {
          arg->atol = 0.0;  // element-wise |actual - expected| <= threshold * |expected|
          arg->rtol = threshold;
        } else {
          fail(p + ".ValidationMethod", fmt::format("unknown ValidationMethod '{}' (expected AbsoluteDifference, "
                                                    "SideBySideComparison or SideBySideRelativeComparison)", method));
        }
      }
    }
  }

  std::string file_;
  std::filesystem::path dir_;
  const Problem& problem_;
};

}  // namespace

KernelSpecification read_t1_kernel_specification(const std::string& path, const Problem& problem) {
  return parse_t1_kernel_specification(io::read_file_text(path), path, problem);
}

KernelSpecification parse_t1_kernel_specification(const std::string& text, const std::string& path,
                                                  const Problem& problem) {
  return parse_t1_kernel_specification(io::parse_ordered_json_text(text, path), path, problem);
}

KernelSpecification parse_t1_kernel_specification(const nlohmann::ordered_json& document, const std::string& path,
                                                  const Problem& problem) {
  // Lookups go through the sorted form; the key order of Metrics and Defines comes from `document`.
  return SpecReader(path, problem).read(json(document), document);
}

}  // namespace ktune::live
