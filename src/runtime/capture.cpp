#include "ktune/runtime/capture.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "runtime/capture_writer.hpp"

namespace ktune::runtime {
namespace {

namespace fs = std::filesystem;

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void write_file(const fs::path& path, const void* data, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  out.flush();
  if (!out) throw std::runtime_error("capture: cannot write " + path.string() + " (" + std::strerror(errno) + ")");
}

const char* access_name(Access a) {
  switch (a) {
    case Access::read_only: return "ReadOnly";
    case Access::write_only: return "WriteOnly";
    case Access::read_write: return "ReadWrite";
  }
  return "ReadWrite";
}

// A scalar's value as a JSON number (T1's FillValue).
std::string scalar_json(const Argument& a) {
  const auto get = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, a.value, sizeof v);
    return v;
  };
  char buffer[64];
  switch (a.type) {
    case ElementType::int8: return std::to_string(get(std::int8_t{}));
    case ElementType::uint8: return std::to_string(get(std::uint8_t{}));
    case ElementType::int16: return std::to_string(get(std::int16_t{}));
    case ElementType::uint16: return std::to_string(get(std::uint16_t{}));
    case ElementType::int32: return std::to_string(get(std::int32_t{}));
    case ElementType::uint32: return std::to_string(get(std::uint32_t{}));
    case ElementType::int64: return std::to_string(get(std::int64_t{}));
    case ElementType::uint64: return std::to_string(get(std::uint64_t{}));
    case ElementType::float32: std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<double>(get(float{}))); return buffer;
    case ElementType::float64: std::snprintf(buffer, sizeof buffer, "%.17g", get(double{})); return buffer;
  }
  return "0";
}

std::string source_extension(const KernelDefinition& def) {
  const std::string language = def.language();
  if (language == "OpenCL" || language == "opencl") return ".cl";
  if (language == "CUDA" || language == "cuda") return ".cu";
  if (language == "C" || language == "c") return ".c";
  return ".cpp";
}

bool is_output(const Argument& a) { return a.kind != Argument::Kind::scalar && a.access != Access::read_only; }

// The parameters an expression names (T1 Conditions list them).
std::vector<std::string> parameters_in(const std::string& expression, const KernelDefinition& def) {
  std::vector<std::string> names;
  for (const auto& p : def.parameters()) {
    for (std::size_t at = expression.find(p.name); at != std::string::npos; at = expression.find(p.name, at + 1)) {
      const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      const bool starts = at == 0 || !word(expression[at - 1]);
      const std::size_t end = at + p.name.size();
      const bool ends = end == expression.size() || !word(expression[end]);
      if (starts && ends) {
        names.push_back(p.name);
        break;
      }
    }
  }
  return names;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view name) {
  // Iterative matching with one backtrack point for the last '*'.
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool capture_requested(std::string_view kernel_name) {
  const char* list = std::getenv("KTUNE_CAPTURE");
  if (!list) return false;
  std::string_view rest(list);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view pattern = rest.substr(0, comma);
    while (!pattern.empty() && pattern.front() == ' ') pattern.remove_prefix(1);
    while (!pattern.empty() && pattern.back() == ' ') pattern.remove_suffix(1);
    if (!pattern.empty() && glob_match(pattern, kernel_name)) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

std::string capture_directory() {
  const char* dir = std::getenv("KTUNE_CAPTURE_DIR");
  return dir && *dir ? dir : "capture";
}

std::string write_capture(const CaptureRequest& r) {
  const KernelDefinition& def = r.definition;
  const std::string stem = r.first ? def.name() : def.name() + "." + format_problem_size(r.reference.problem_size);
  const fs::path directory(r.directory);
  const fs::path data_dir = directory / (stem + ".data");
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (ec) throw std::runtime_error("capture: cannot create " + data_dir.string() + " (" + ec.message() + ")");
  const std::string data_prefix = stem + ".data/";  // relative to the T1 file, so the capture can be moved

  // The inputs, before anything runs; the copies are what the reference configuration runs on.
  const std::size_t n = r.arguments.size();
  std::vector<std::vector<unsigned char>> copies(n);
  std::vector<void*> substitutes(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    const Argument& a = r.arguments[i];
    if (a.kind == Argument::Kind::scalar) continue;
    copies[i].resize(a.bytes());
    if (a.kind == Argument::Kind::host_array) std::memcpy(copies[i].data(), a.host, a.bytes());
    else if (a.bytes() > 0) r.device.read_buffer(a, copies[i].data());
    write_file(data_dir / (def.argument_name(i) + ".bin"), copies[i].data(), copies[i].size());
    substitutes[i] = copies[i].data();
  }
  r.device.launch(r.reference_kernel, r.reference.geometry, r.arguments, r.call, substitutes);
  for (std::size_t i = 0; i < n; ++i)
    if (is_output(r.arguments[i]))
      write_file(data_dir / (def.argument_name(i) + ".expected.bin"), copies[i].data(), copies[i].size());
  const std::string kernel_file = "kernel" + source_extension(def);
  write_file(data_dir / kernel_file, r.source.data(), r.source.size());

  std::ostringstream t1;
  t1 << "{\n  \"General\": {\"BenchmarkName\": " << json_string(def.name())
     << ", \"OutputFormat\": \"JSON\", \"FormatVersion\": 1},\n";
  t1 << "  \"ConfigurationSpace\": {\n    \"TuningParameters\": [";
  for (std::size_t i = 0; i < def.parameters().size(); ++i) {
    const TunableParameter& p = def.parameters()[i];
    std::string values = "[";
    for (std::size_t v = 0; v < p.python.size(); ++v) values += (v ? ", " : "") + p.python[v];
    values += "]";
    t1 << (i ? ",\n" : "\n") << "      {\"Name\": " << json_string(p.name) << ", \"Type\": " << json_string(p.t1_type)
       << ", \"Values\": " << json_string(values) << "}";
  }
  t1 << "\n    ],\n    \"Conditions\": [";
  for (std::size_t i = 0; i < def.restrictions().size(); ++i) {
    const std::string& e = def.restrictions()[i];
    t1 << (i ? ",\n" : "\n") << "      {\"Expression\": " << json_string(e) << ", \"Parameters\": [";
    const auto names = parameters_in(e, def);
    for (std::size_t k = 0; k < names.size(); ++k) t1 << (k ? ", " : "") << json_string(names[k]);
    t1 << "]}";
  }
  t1 << "\n    ]\n  },\n";
  t1 << "  \"KernelSpecification\": {\n";
  t1 << "    \"Language\": " << json_string(def.language()) << ",\n";
  t1 << "    \"KernelName\": " << json_string(def.function_name()) << ",\n";
  t1 << "    \"KernelFile\": " << json_string(data_prefix + kernel_file) << ",\n";
  if (const std::string device = r.device.t1_device_members(); !device.empty())
    t1 << "    \"Device\": {" << device << "},\n";
  t1 << "    \"CompilerOptions\": [";
  for (std::size_t i = 0; i < def.compiler_options().size(); ++i)
    t1 << (i ? ", " : "") << json_string(def.compiler_options()[i]);
  t1 << "],\n    \"ProblemSize\": [";
  for (std::size_t d = 0; d < r.reference.problem_size.size(); ++d)
    t1 << (d ? ", " : "") << r.reference.problem_size[d];
  t1 << "],\n    \"BlockSizeNames\": [";
  for (std::size_t d = 0; d < 3; ++d) t1 << (d ? ", " : "") << json_string(def.block_size_names()[d]);
  t1 << "],\n";
  const auto divisors = def.grid_divisors();
  for (std::size_t d = 0; d < 3; ++d) {
    t1 << "    \"GridDiv" << "XYZ"[d] << "\": [";
    for (std::size_t k = 0; k < divisors[d].size(); ++k) t1 << (k ? ", " : "") << json_string(divisors[d][k]);
    t1 << "],\n";
  }
  if (!def.defines().empty()) {
    t1 << "    \"Defines\": {";
    for (std::size_t i = 0; i < def.defines().size(); ++i)
      t1 << (i ? ", " : "") << json_string(def.defines()[i].first) << ": " << json_string(def.defines()[i].second);
    t1 << "},\n";
  }
  t1 << "    \"Arguments\": [";
  for (std::size_t i = 0; i < n; ++i) {
    const Argument& a = r.arguments[i];
    t1 << (i ? ",\n" : "\n") << "      {\"Name\": " << json_string(def.argument_name(i))
       << ", \"Type\": " << json_string(t1_type_name(a.type));
    if (a.kind == Argument::Kind::scalar) {
      t1 << ", \"MemoryType\": \"Scalar\", \"FillValue\": " << scalar_json(a) << "}";
    } else {
      t1 << ", \"MemoryType\": \"Vector\", \"AccessType\": \"" << access_name(a.access) << "\", \"Size\": " << a.count
         << ", \"FillType\": \"BinaryRaw\", \"DataSource\": " << json_string(data_prefix + def.argument_name(i) + ".bin")
         << "}";
    }
  }
  t1 << "\n    ],\n    \"ReferenceArguments\": [";
  bool first_reference = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_output(r.arguments[i])) continue;
    t1 << (first_reference ? "\n" : ",\n") << "      {\"Name\": " << json_string(def.argument_name(i) + "_expected")
       << ", \"TargetName\": " << json_string(def.argument_name(i))
       << ", \"FillType\": \"BinaryRaw\", \"DataSource\": "
       << json_string(data_prefix + def.argument_name(i) + ".expected.bin") << "}";
    first_reference = false;
  }
  char tolerance[96];
  std::snprintf(tolerance, sizeof tolerance, "{\"atol\": %.17g, \"rtol\": %.17g}", def.atol(), def.rtol());
  t1 << "\n    ],\n    \"Tolerance\": " << tolerance << "\n  }\n}\n";

  const fs::path t1_path = directory / (stem + ".t1.json");
  const std::string text = t1.str();
  write_file(t1_path, text.data(), text.size());
  return t1_path.string();
}

}  // namespace ktune::runtime
