// Writing Kernel Tuner cache files as results arrive, in Kernel Tuner's own layout, so that an interrupted run
// leaves a file that both tools read and resume.
#include "ktune/io/kernel_tuner_cache.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/cache_layout.hpp"
#include "io/json_text.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"

namespace ktune::io {

namespace {

// The fields an entry writes besides the parameters and measurements.
constexpr const char* kReservedFields[] = {"times",          "compile_time",  "verification_time", "benchmark_time",
                                           "strategy_time",  "framework_time", "timestamp",         "__error__"};

// An InputError too, so that callers handle every problem with the file in one place.
[[noreturn]] void throw_write_error(const std::string& path, const char* what) {
  throw InputError(path, "", fmt::format("cannot {}: {}", what, std::strerror(errno)));
}

nlohmann::ordered_json ordered(const nlohmann::json& j) {
  return nlohmann::ordered_json::parse(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Python's json.dumps(header, indent="") without the closing "}\n}", so the text ends with "cache": {
std::string header_text(const CacheHeader& header) {
  nlohmann::ordered_json h;
  h["device_name"] = header.device_name;
  h["kernel_name"] = header.kernel_name;
  h["problem_size"] = header.problem_size.is_null() ? nlohmann::ordered_json::array() : ordered(header.problem_size);
  h["tune_params_keys"] = nlohmann::ordered_json::array();
  h["tune_params"] = nlohmann::ordered_json::object();
  for (const Parameter& p : header.problem.parameters) {
    h["tune_params_keys"].push_back(p.name);
    auto& values = h["tune_params"][p.name] = nlohmann::ordered_json::array();
    for (const Value& v : p.values) values.push_back(ordered(value_to_json(v)));
  }
  h["objective"] = header.objectives;
  h["cache"] = nlohmann::ordered_json::object();
  std::string text = h.dump(0, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text.resize(text.size() - 3);  // "}\n}"
  return text;
}

const Value* find_value(const std::vector<Value>& values, const Value& value) {
  for (const Value& v : values)
    if (same_value(v, value)) return &v;
  for (const Value& v : values)
    if (python_equal(v, value)) return &v;
  return nullptr;
}

// One entry as Kernel Tuner appends it: "\n" + json.dumps({key: entry})[1:-1] + ",".
std::string entry_text(const Problem& problem, const EvaluationRecord& record) {
  std::string out = "\n";
  append_json_string(out, kernel_tuner_key(record.config));
  out += ": {";
  bool first = true;
  const auto field = [&](std::string_view name) {
    if (!first) out += ", ";
    first = false;
    append_json_string(out, name);
    out += ": ";
  };
  for (std::size_t p = 0; p < problem.parameters.size(); ++p) {
    field(problem.parameters[p].name);
    append_json_value(out, record.config[p]);
  }
  for (const Measurement& m : record.measurements) {
    field(m.name);
    append_json_value(out, m.value);
  }
  if (record.status == Status::ok || !record.runtimes_ms.empty()) {
    field("times");
    out += '[';
    for (std::size_t i = 0; i < record.runtimes_ms.size(); ++i) {
      if (i > 0) out += ", ";
      append_json_number(out, record.runtimes_ms[i]);
    }
    out += ']';
  }
  const std::pair<const char*, double> times[] = {{"compile_time", record.compile_ms},
                                                  {"verification_time", record.verification_ms},
                                                  {"benchmark_time", record.benchmark_ms},
                                                  {"strategy_time", record.strategy_ms},
                                                  {"framework_time", record.framework_ms}};
  for (const auto& [name, ms] : times) {
    field(name);
    append_json_number(out, ms);
  }
  if (!record.timestamp.empty()) {
    field("timestamp");
    append_json_string(out, record.timestamp);
  }
  if (record.status != Status::ok) {
    field("__error__");
    append_json_string(out, kernel_tuner_error(record.status));
  }
  out += "},";
  return out;
}

std::string names_of(const Problem& problem) {
  std::string names;
  for (const Parameter& p : problem.parameters) names += (names.empty() ? "" : ", ") + p.name;
  return "[" + names + "]";
}

bool is_gzip_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  unsigned char magic[2] = {0, 0};
  const bool gzip = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  std::fclose(f);
  return gzip;
}

// An existing file to resume: its records, and the text to continue from (the header, then its entries).
struct Resumed {
  std::vector<EvaluationRecord> records;
  std::string content;
  bool has_entries = false;
};

// Checks the file against `header` as Kernel Tuner does (kernel name, parameter names and order) and extends the
// header's value lists by the file's other values, so that every entry stays readable (Kernel Tuner allows other
// values on resume). Complete entries are kept byte for byte; a half-written last entry is dropped.
Resumed resume(const std::string& path, const std::string& text, CacheHeader& header) {
  CacheLayout layout;
  ResultsFile old = parse_kernel_tuner_cache(text, path, layout);
  if (old.kernel_name != header.kernel_name)
    throw InputError(path, "kernel_name",
                     fmt::format("the file is for kernel '{}', not '{}'", old.kernel_name, header.kernel_name));
  auto& params = header.problem.parameters;
  bool same_names = old.problem.parameters.size() == params.size();
  for (std::size_t p = 0; same_names && p < params.size(); ++p) same_names = old.problem.parameters[p].name == params[p].name;
  if (!same_names)
    throw InputError(path, "tune_params_keys",
                     fmt::format("the file has the parameters {}, this run has {} (Kernel Tuner requires the same "
                                 "names in the same order)", names_of(old.problem), names_of(header.problem)));
  for (std::size_t p = 0; p < params.size(); ++p)
    for (const Value& v : old.problem.parameters[p].values)
      if (find_value(params[p].values, v) == nullptr) params[p].values.push_back(v);
  for (EvaluationRecord& r : old.records)
    for (std::size_t p = 0; p < params.size(); ++p) r.config[p] = *find_value(params[p].values, r.config[p]);

  Resumed resumed{std::move(old.records), header_text(header), false};
  if (layout.entries_begin != CacheLayout::npos && layout.entries_end > layout.entries_begin) {
    resumed.content.append(text, layout.entries_begin, layout.entries_end - layout.entries_begin);
    resumed.content += ',';
    resumed.has_entries = true;
  }
  return resumed;
}

// Writes a temporary file and renames it over `path`, so an interruption leaves the old file or the new one.
void replace_file(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".ktune-tmp";
  std::FILE* out = std::fopen(temporary.c_str(), "wb");
  if (out == nullptr) throw_write_error(temporary, "create the file");
  const bool written = std::fwrite(content.data(), 1, content.size(), out) == content.size();
  if (std::fclose(out) != 0 || !written) throw_write_error(temporary, "write");
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw InputError(path, "", fmt::format("cannot replace the file: {}", ec.message()));
}

}  // namespace

struct KernelTunerCacheWriter::File {
  std::FILE* handle = nullptr;
  bool ends_with_comma = false;  // at least one entry, each followed by ","
  ~File() {
    if (handle != nullptr) std::fclose(handle);
  }
};

KernelTunerCacheWriter::KernelTunerCacheWriter(std::string path, CacheHeader header)
    : path_(std::move(path)), header_(std::move(header)), file_(std::make_unique<File>()) {
  if (header_.problem.parameters.empty()) throw std::invalid_argument("a cache file needs at least one parameter");
  std::string existing_text;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path_, ec) && std::filesystem::file_size(path_, ec) > 0 && !ec) {
    if (is_gzip_file(path_))
      throw InputError(path_, "", "cannot append to a gzip-compressed cache file; decompress it first");
    existing_text = read_file_text(path_);
  }
  if (existing_text.find_first_not_of(" \t\r\n") == std::string::npos) {
    const std::string content = header_text(header_);
    file_->handle = std::fopen(path_.c_str(), "wb");
    if (file_->handle == nullptr) throw_write_error(path_, "create the file");
    if (std::fwrite(content.data(), 1, content.size(), file_->handle) != content.size() ||
        std::fflush(file_->handle) != 0)
      throw_write_error(path_, "write");
    return;
  }
  Resumed resumed = resume(path_, existing_text, header_);
  existing_ = std::move(resumed.records);
  file_->ends_with_comma = resumed.has_entries;
  replace_file(path_, resumed.content);
  file_->handle = std::fopen(path_.c_str(), "r+b");
  if (file_->handle == nullptr || std::fseek(file_->handle, 0, SEEK_END) != 0) throw_write_error(path_, "open");
}

KernelTunerCacheWriter::~KernelTunerCacheWriter() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; the file stays unterminated, which readers repair.
  }
}

void KernelTunerCacheWriter::append(const EvaluationRecord& record) {
  if (file_ == nullptr) throw std::logic_error(fmt::format("{}: append() after close()", path_));
  const Problem& problem = header_.problem;
  if (record.config.size() != problem.parameters.size())
    throw std::invalid_argument(fmt::format("{}: a configuration of {} values for {} parameters", path_,
                                            record.config.size(), problem.parameters.size()));
  for (std::size_t p = 0; p < problem.parameters.size(); ++p)
    if (find_value(problem.parameters[p].values, record.config[p]) == nullptr)
      throw std::invalid_argument(fmt::format("{}: value {} of parameter '{}' is not in the header's tune_params",
                                              path_, record.config[p].repr(), problem.parameters[p].name));
  for (const Measurement& m : record.measurements) {
    bool clash = problem.parameter_index(m.name).has_value();
    for (const char* reserved : kReservedFields) clash = clash || m.name == reserved;
    if (clash)
      throw std::invalid_argument(fmt::format("{}: measurement '{}' has the name of a parameter or of a field the "
                                              "cache writes itself", path_, m.name));
  }
  const std::string text = entry_text(problem, record);
  if (std::fwrite(text.data(), 1, text.size(), file_->handle) != text.size() || std::fflush(file_->handle) != 0)
    throw_write_error(path_, "write");
  file_->ends_with_comma = true;
}

void KernelTunerCacheWriter::close() {
  if (file_ == nullptr) return;
  const std::unique_ptr<File> file = std::move(file_);
  // As Kernel Tuner's close_cache: the trailing comma becomes the cache's closing brace.
  if (file->ends_with_comma && std::fseek(file->handle, -1, SEEK_END) != 0) throw_write_error(path_, "seek");
  if (std::fputs("}\n}", file->handle) < 0 || std::fflush(file->handle) != 0) throw_write_error(path_, "write");
  const int closed = std::fclose(file->handle);
  file->handle = nullptr;
  if (closed != 0) throw_write_error(path_, "close");
}

}  // namespace ktune::io
