// Reading Kernel Tuner cache files: the header through nlohmann (small), the entries straight into
// EvaluationRecords with the pull parser (the bulk of the file).
#include "ktune/io/kernel_tuner_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "io/cache_layout.hpp"
#include "io/lenient_json.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "nan_constant.hpp"

namespace ktune::io {

namespace {

std::string entry_path(std::string_view key) { return fmt::format("cache[\"{}\"]", key); }

// Reads the entries of one file into EvaluationRecords whose configs hold the problem's own values.
class CacheEntryReader {
 public:
  CacheEntryReader(const Problem& problem, LenientJsonReader& reader)
      : problem_(problem), reader_(reader), seen_(problem.parameters.size()) {}

  // The reader is at the entry's value; `key` is the entry's key.
  EvaluationRecord read(std::string_view key) {
    if (reader_.peek() != '{') fail(key, "expected an object (the entry's fields)");
    EvaluationRecord record;
    record.config.resize(problem_.parameters.size());
    std::fill(seen_.begin(), seen_.end(), false);
    next_parameter_ = 0;
    std::optional<Status> error_status, legacy_status;  // from "__error__", from an error string in another field
    std::string error_name, legacy_name;
    bool has_times = false, has_benchmark_time = false;

    // Legacy files store the error name in a field that otherwise holds a number.
    const auto read_error_string = [&](std::string_view field) {
      std::string text(reader_.read_string());
      const auto status = status_from_kernel_tuner_error(text);
      if (!status) fail(key, fmt::format("field '{}': expected a number, got \"{}\"", field, text));
      if (!legacy_status) {
        legacy_status = status;
        legacy_name = std::move(text);
      }
    };
    // A time field: a number (NaN if null), or a legacy error string.
    const auto read_time = [&](std::string_view field, double& target) {
      switch (reader_.peek()) {
        case '"': read_error_string(field); return;
        case 'n': (void)reader_.read_json(); target = kNaN; return;
        case '{':
        case '[':
        case 't':
        case 'f': fail(key, fmt::format("field '{}': expected a number", field));
        default: target = reader_.read_double();
      }
    };

    reader_.read_object([&](std::string_view field) {
      if (const auto p = parameter_of(field)) {
        const Value value = read_field_value(key, field);
        const Value* declared = declared_value(*p, value);
        if (declared == nullptr)
          fail(key, fmt::format("parameter '{}': value {} is not in tune_params", field, value.repr()));
        record.config[*p] = *declared;
        seen_[*p] = true;
      } else if (field == "times") {
        has_times = true;
        if (reader_.peek() == '"') {
          read_error_string(field);
          return;
        }
        if (reader_.peek() != '[') fail(key, "field 'times': expected a list of numbers");
        runtimes_.clear();
        reader_.read_array([&] {
          const char c = reader_.peek();
          if (c == 'n') {
            (void)reader_.read_json();
            runtimes_.push_back(kNaN);
          } else if (c == '"' || c == '[' || c == '{' || c == 't' || c == 'f') {
            fail(key, "field 'times': expected a list of numbers");
          } else {
            runtimes_.push_back(reader_.read_double());
          }
        });
        record.runtimes_ms.assign(runtimes_.begin(), runtimes_.end());
      } else if (field == "compile_time") {
        read_time(field, record.compile_ms);
      } else if (field == "benchmark_time") {
        has_benchmark_time = true;
        read_time(field, record.benchmark_ms);
      } else if (field == "verification_time") {
        read_time(field, record.verification_ms);
      } else if (field == "framework_time") {
        read_time(field, record.framework_ms);
      } else if (field == "strategy_time") {
        read_time(field, record.strategy_ms);
      } else if (field == "timestamp") {
        if (reader_.peek() == 'n') {
          (void)reader_.read_json();
        } else {
          if (reader_.peek() != '"') fail(key, "field 'timestamp': expected a string");
          record.timestamp = reader_.read_string();
        }
      } else if (field == "__error__") {
        if (reader_.peek() != '"') fail(key, "field '__error__': expected a string");
        error_name = reader_.read_string();
        // Kernel Tuner treats any "__error__" as a failure; unknown names count as runtime failures.
        error_status = status_from_kernel_tuner_error(error_name).value_or(Status::runtime_failed);
      } else {
        std::string name(field);
        Value value = read_field_value(key, name);
        if (value.is_string() && !legacy_status) {
          legacy_status = status_from_kernel_tuner_error(value.as_string());
          if (legacy_status) legacy_name = value.as_string();
        }
        record.measurements.push_back({std::move(name), std::move(value), ""});
      }
    });

    for (std::size_t p = 0; p < seen_.size(); ++p)
      if (!seen_[p]) record.config[p] = value_from_key(key, p);
    if (error_status) {
      record.status = *error_status;
      record.message = std::move(error_name);
    } else if (legacy_status) {
      record.status = *legacy_status;
      record.message = std::move(legacy_name);
    }
    if (record.status == Status::ok) check_time(key, record, has_times);
    // As the benchmark_hub T4 conversion does, so both formats of a space give the same records. It is the tuning
    // clock's charge, not the kernel's time: the entry is counted, and "time" is not taken from it (ResultsFile).
    if (!has_times && has_benchmark_time && record.status == Status::ok) {
      record.runtimes_ms = {record.benchmark_ms};
      if (record.find("time") == nullptr && stand_ins_++ == 0) first_stand_in_ = key;
    }
    return record;
  }

  std::size_t stand_ins() const { return stand_ins_; }
  const std::string& first_stand_in() const { return first_stand_in_; }

 private:
  // A successful entry's "time" (or its "times" when it has no "time") must be a run time: a number, finite, not
  // negative. Anything else (-5, NaN, null, a string that is no Kernel Tuner error name) marks the entry as a failed
  // measurement, with the entry's key in its message, instead of an "ok" record with a nonsensical time.
  void check_time(std::string_view key, EvaluationRecord& record, bool has_times) const {
    std::string problem;
    const auto bad_number = [](double v) -> std::string {
      if (std::isnan(v)) return "NaN";
      if (std::isinf(v)) return v > 0 ? "infinite" : "-infinite";
      return v < 0 ? fmt::format("negative ({})", v) : "";
    };
    if (const Measurement* time = record.find("time")) {
      if (!time->value.is_numeric() || time->value.is_bool())
        problem = fmt::format("'time' is {}, not a number", time->value.repr());
      else if (const std::string bad = bad_number(time->value.to_double()); !bad.empty())
        problem = fmt::format("'time' is {}", bad);
    } else if (has_times) {
      for (double t : record.runtimes_ms)
        if (const std::string bad = bad_number(t); !bad.empty()) {
          problem = fmt::format("'times' holds a value that is {}", bad);
          break;
        }
    }
    if (problem.empty()) return;
    record.status = Status::runtime_failed;
    record.message = fmt::format("{}: {}, which is no run time: read as a failed measurement", entry_path(key), problem);
  }

  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    throw InputError(reader_.source_name(), entry_path(key), message);
  }

  Value read_field_value(std::string_view key, std::string_view field) {
    try {
      return reader_.read_value();
    } catch (const NotAValue&) {
      fail(key, fmt::format("field '{}': a JSON object is not supported here", field));
    }
  }

  // Fields usually come in parameter order, so the next parameter is tried first.
  std::optional<std::size_t> parameter_of(std::string_view field) {
    const auto& params = problem_.parameters;
    if (next_parameter_ < params.size() && params[next_parameter_].name == field) return next_parameter_++;
    for (std::size_t p = 0; p < params.size(); ++p)
      if (params[p].name == field) {
        next_parameter_ = p + 1;
        return p;
      }
    return std::nullopt;
  }

  // The declared value identical to `value`, else a Python-equal one (1.0 in an entry for a declared 1).
  const Value* declared_value(std::size_t p, const Value& value) const {
    const auto& values = problem_.parameters[p].values;
    for (const Value& v : values)
      if (same_value(v, value)) return &v;
    for (const Value& v : values)
      if (python_equal(v, value)) return &v;
    return nullptr;
  }

  // A parameter missing from the entry's fields comes from the key: str() of each value joined by ",".
  const Value& value_from_key(std::string_view key, std::size_t p) {
    std::vector<std::string_view> parts;
    for (std::size_t begin = 0;;) {
      const std::size_t comma = key.find(',', begin);
      parts.push_back(key.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin));
      if (comma == std::string_view::npos) break;
      begin = comma + 1;
    }
    const Parameter& param = problem_.parameters[p];
    if (parts.size() != problem_.parameters.size())
      fail(key, fmt::format("parameter '{}' is missing, and the key has {} values for {} parameters", param.name,
                            parts.size(), problem_.parameters.size()));
    for (const Value& v : param.values)
      if (v.str() == parts[p]) return v;
    fail(key, fmt::format("parameter '{}' is missing, and its value '{}' in the key is not in tune_params", param.name,
                          parts[p]));
  }

  const Problem& problem_;
  LenientJsonReader& reader_;
  std::vector<bool> seen_;
  std::size_t next_parameter_ = 0;
  std::vector<double> runtimes_;  // reused, so each record's runtimes are allocated once at their size
  std::size_t stand_ins_ = 0;     // successful entries whose runtimes_ms is their benchmark_time
  std::string first_stand_in_;
};

// Reads the "cache" object at the reader's position into file.records. Every complete entry is kept when the text
// ends inside the object (EndOfInput then propagates); layout.entries_end follows the last complete entry.
void read_entries(LenientJsonReader& reader, const Problem& problem, ResultsFile& file, CacheLayout& layout) {
  if (reader.peek() != '{') throw InputError(reader.source_name(), "cache", "expected an object of entries");
  layout.entries_begin = layout.entries_end = reader.position() + 1;
  CacheEntryReader entries(problem, reader);
  const auto count_stand_ins = [&] {
    file.time_stand_ins = entries.stand_ins();
    file.first_time_stand_in = entries.first_stand_in();
  };
  try {
    reader.read_object([&](std::string_view key) {
      file.records.push_back(entries.read(key));
      layout.entries_end = reader.position();
    });
  } catch (const EndOfInput&) {
    count_stand_ins();
    throw;
  }
  count_stand_ins();
}

std::string optional_string(const nlohmann::json& header, const char* key, const std::string& source) {
  const auto it = header.find(key);
  if (it == header.end() || it->is_null()) return {};
  if (!it->is_string())
    throw InputError(source, key, fmt::format("expected a string, got {}", json_for_message(*it)));
  return it->get<std::string>();
}

std::vector<std::string> objectives_of(const nlohmann::json& header, const std::string& source) {
  const auto it = header.find("objective");
  if (it == header.end() || it->is_null()) return {};
  if (it->is_string()) return {it->get<std::string>()};
  std::vector<std::string> objectives;
  if (it->is_array())
    for (const auto& item : *it)
      if (item.is_string()) objectives.push_back(item.get<std::string>());
  if (!it->is_array() || objectives.size() != it->size())
    throw InputError(source, "objective",
                     fmt::format("expected a string or a list of strings, got {}", json_for_message(*it)));
  return objectives;
}

}  // namespace

ResultsFile parse_kernel_tuner_cache(const std::string& text, const std::string& source_name, CacheLayout& layout) {
  layout = CacheLayout{};
  ResultsFile file;
  file.format = ResultsFormat::KernelTunerCache;
  LenientJsonReader reader(text, source_name);
  nlohmann::json header = nlohmann::json::object();
  std::vector<std::string> tune_params_order;  // the file's order, for files without tune_params_keys
  std::optional<std::size_t> deferred_cache;   // where "cache" starts if it came before the parameters
  bool problem_known = false, cache_started = false;

  const auto build_problem = [&] {
    file.problem = problem_from_cache_json(header, source_name, tune_params_order);
    problem_known = true;
  };

  try {
    reader.expect_top_level_object();
    reader.read_object([&](std::string_view key) {
      if (key == "cache") {
        cache_started = true;
        if (!problem_known && header.contains("tune_params") && header.contains("tune_params_keys")) build_problem();
        if (problem_known) {
          read_entries(reader, file.problem, file, layout);
        } else {
          deferred_cache = reader.position();
          reader.skip_value();
        }
      } else if (key == "tune_params" && reader.peek() == '{') {
        nlohmann::json params = nlohmann::json::object();
        tune_params_order.clear();
        reader.read_object([&](std::string_view name) {
          tune_params_order.emplace_back(name);
          params[tune_params_order.back()] = reader.read_json();
        });
        header["tune_params"] = std::move(params);
      } else {
        std::string name(key);
        header[name] = reader.read_json();
      }
      if (problem_known && (key == "tune_params" || key == "tune_params_keys"))
        throw InputError(source_name, std::string(key), "appears a second time, after the cache entries");
    });
    if (!reader.at_end()) reader.syntax_error("unexpected text after the JSON document");
  } catch (const EndOfInput&) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError(source_name, "", "the file is empty");
    // An interrupted run leaves a complete header; a file cut inside it has lost the parameters.
    if (!cache_started || !header.contains("tune_params"))
      throw InputError(source_name, "",
                       fmt::format("the file ends at byte {} inside its header, before the cache entries (cut short?)",
                                   text.size()));
    file.truncated = true;
  }

  if (!problem_known) build_problem();
  file.missing_cache = !cache_started;
  if (deferred_cache) {
    LenientJsonReader entries(text, source_name, *deferred_cache);
    try {
      read_entries(entries, file.problem, file, layout);
    } catch (const EndOfInput&) {
      file.truncated = true;
    }
  }
  file.device_name = optional_string(header, "device_name", source_name);
  file.kernel_name = optional_string(header, "kernel_name", source_name);
  if (const auto it = header.find("problem_size"); it != header.end()) file.problem_size = *it;
  if (const auto it = header.find("ktune_provenance"); it != header.end() && it->is_object()) file.provenance = *it;
  file.objectives = objectives_of(header, source_name);
  return file;
}

ResultsFile parse_kernel_tuner_cache(const std::string& text, const std::string& source_name) {
  CacheLayout layout;
  return parse_kernel_tuner_cache(text, source_name, layout);
}

std::string kernel_tuner_key(std::span<const Value> config) {
  std::string key;
  for (std::size_t i = 0; i < config.size(); ++i) {
    if (i > 0) key += ',';
    key += config[i].str();
  }
  return key;
}

}  // namespace ktune::io
