// T4 results files (schema 1.0.0): reading with the pull parser, writing in Kernel Tuner's layout.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "io/json_text.hpp"
#include "io/lenient_json.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/t4_results.hpp"
#include "nan_constant.hpp"

namespace ktune::io {

namespace {

// metadata.timeunit -> milliseconds, as the methodology reads T4 (default seconds). Division for the units below a
// millisecond, so that e.g. 1500 us is exactly 1.5 ms.
struct TimeScale {
  double multiply = 1, divide = 1;
  double to_ms(double v) const { return v * multiply / divide; }
  bool identity() const { return multiply == 1 && divide == 1; }
};

TimeScale time_scale(const nlohmann::json& metadata, bool has_metadata, const std::string& source) {
  if (!has_metadata) return {1000, 1};
  if (!metadata.is_object())
    throw InputError(source, "metadata", fmt::format("expected an object, got {}", json_for_message(metadata)));
  const auto it = metadata.find("timeunit");
  if (it == metadata.end()) return {1000, 1};
  if (!it->is_string())
    throw InputError(source, "metadata.timeunit", fmt::format("expected a string, got {}", json_for_message(*it)));
  const std::string unit = it->get<std::string>();
  if (unit == "seconds" || unit == "s") return {1000, 1};
  if (unit == "milliseconds" || unit == "miliseconds" || unit == "ms") return {1, 1};
  if (unit == "microseconds" || unit == "us") return {1, 1000};
  if (unit == "nanoseconds" || unit == "ns") return {1, 1e6};
  throw InputError(source, "metadata.timeunit",
                   fmt::format("unknown time unit '{}' (expected seconds, milliseconds, microseconds or nanoseconds)", unit));
}

// The parameters as they appear: names from the first configuration, values numbered in order of first appearance.
struct SeenParameters {
  std::vector<std::string> names;
  std::vector<std::vector<Value>> values;

  std::uint32_t number_of(std::size_t p, Value value) {
    auto& seen = values[p];
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (same_value(seen[i], value)) return static_cast<std::uint32_t>(i);
    seen.push_back(std::move(value));
    return static_cast<std::uint32_t>(seen.size() - 1);
  }
};

class T4Reader {
 public:
  T4Reader(const std::string& text, const std::string& source) : reader_(text, source), source_(source) {}

  ResultsFile read() {
    ResultsFile file;
    file.format = ResultsFormat::T4;
    nlohmann::json metadata;
    bool has_metadata = false, results_started = false;
    try {
      reader_.expect_top_level_object();
      reader_.read_object([&](std::string_view key) {
        if (key == "metadata") {
          metadata = reader_.read_json();
          has_metadata = true;
        } else if (key == "results") {
          results_started = true;
          if (reader_.peek() != '[') throw InputError(source_, "results", "expected an array of results");
          reader_.read_array([&] { read_result(file); });
        } else {
          reader_.skip_value();
        }
      });
      if (!reader_.at_end()) reader_.syntax_error("unexpected text after the JSON document");
    } catch (const EndOfInput&) {
      if (!results_started)
        throw InputError(source_, "", fmt::format("the file ends at byte {} before its results (cut short?)",
                                                  reader_.position()));
      // Without the metadata the time unit is unknown: better no file than times off by a factor of 1000.
      if (!has_metadata)
        throw InputError(source_, "", "the file is cut short, and its metadata (the time unit) was not before the results");
      file.truncated = true;
    }
    if (!results_started) throw InputError(source_, "results", "missing: not a T4 results file");
    const TimeScale scale = time_scale(metadata, has_metadata, source_);
    if (!scale.identity())
      for (EvaluationRecord& r : file.records) {
        for (double* t : {&r.compile_ms, &r.benchmark_ms, &r.verification_ms, &r.framework_ms, &r.strategy_ms})
          *t = scale.to_ms(*t);
        for (double& t : r.runtimes_ms) t = scale.to_ms(t);
      }
    file.objectives = std::move(objectives_);
    build_problem(file);
    return file;
  }

 private:
  [[noreturn]] void fail(std::size_t result, const std::string& message) const {
    throw InputError(source_, fmt::format("results[{}]", result), message);
  }

  double read_time(std::size_t result, std::string_view name) {
    const char c = reader_.peek();
    if (c == 'n') {
      (void)reader_.read_json();
      return kNaN;
    }
    if (c == '"' || c == '[' || c == '{' || c == 't' || c == 'f')
      fail(result, fmt::format("times.{}: expected a number", name));
    return reader_.read_double();
  }

  Value read_value(std::size_t result, std::string_view what) {
    try {
      return reader_.read_value();
    } catch (const NotAValue&) {
      fail(result, fmt::format("{}: a JSON object is not supported here", what));
    }
  }

  void read_configuration(std::size_t result) {
    if (reader_.peek() != '{') fail(result, "configuration: expected an object");
    const bool first = result == 0;
    const std::size_t begin = value_numbers_.size();
    if (!first) value_numbers_.resize(begin + seen_.names.size(), kMissing);
    reader_.read_object([&](std::string_view name) {
      if (first) {
        if (std::find(seen_.names.begin(), seen_.names.end(), name) != seen_.names.end())
          fail(result, fmt::format("configuration: parameter '{}' appears twice", name));
        seen_.names.emplace_back(name);
        seen_.values.emplace_back();
        value_numbers_.push_back(seen_.number_of(seen_.names.size() - 1, read_value(result, "configuration")));
        return;
      }
      const auto it = std::find(seen_.names.begin(), seen_.names.end(), name);
      if (it == seen_.names.end())
        fail(result, fmt::format("configuration: parameter '{}' is not in the configuration of results[0]", name));
      const auto p = static_cast<std::size_t>(it - seen_.names.begin());
      value_numbers_[begin + p] = seen_.number_of(p, read_value(result, "configuration"));
    });
    for (std::size_t p = 0; p < seen_.names.size(); ++p)
      if (value_numbers_[begin + p] == kMissing)
        fail(result, fmt::format("configuration: parameter '{}' is missing", seen_.names[p]));
  }

  void read_times(std::size_t result, EvaluationRecord& record) {
    if (reader_.peek() != '{') fail(result, "times: expected an object");
    reader_.read_object([&](std::string_view name) {
      if (name == "compilation" || name == "compilation_time") {
        record.compile_ms = read_time(result, name);
      } else if (name == "framework") {
        record.framework_ms = read_time(result, name);
      } else if (name == "search_algorithm") {
        record.strategy_ms = read_time(result, name);
      } else if (name == "validation") {
        record.verification_ms = read_time(result, name);
      } else if (name == "benchmark") {
        record.benchmark_ms = read_time(result, name);
      } else if (name == "runtimes") {
        if (reader_.peek() != '[') fail(result, "times.runtimes: expected a list of numbers");
        runtimes_.clear();
        reader_.read_array([&] { runtimes_.push_back(read_time(result, "runtimes")); });
        record.runtimes_ms.assign(runtimes_.begin(), runtimes_.end());
      } else {
        reader_.skip_value();  // not a time the schema defines
      }
    });
  }

  void read_measurements(std::size_t result, EvaluationRecord& record) {
    if (reader_.peek() != '[') fail(result, "measurements: expected an array");
    reader_.read_array([&] {
      const std::size_t k = record.measurements.size();
      if (reader_.peek() != '{') fail(result, fmt::format("measurements[{}]: expected an object", k));
      Measurement m;
      bool has_name = false;
      reader_.read_object([&](std::string_view field) {
        if (field == "name") {
          if (reader_.peek() != '"') fail(result, fmt::format("measurements[{}].name: expected a string", k));
          m.name = reader_.read_string();
          has_name = true;
        } else if (field == "value") {
          m.value = read_value(result, fmt::format("measurements[{}].value", k));
        } else if (field == "unit") {
          if (reader_.peek() == 'n') {
            reader_.skip_value();
          } else {
            if (reader_.peek() != '"') fail(result, fmt::format("measurements[{}].unit: expected a string", k));
            m.unit = reader_.read_string();
          }
        } else {
          reader_.skip_value();
        }
      });
      if (!has_name) fail(result, fmt::format("measurements[{}]: missing 'name'", k));
      record.measurements.push_back(std::move(m));
    });
  }

  void read_objectives(std::size_t result) {
    if (reader_.peek() != '[') fail(result, "objectives: expected a list of strings");
    std::vector<std::string> objectives;
    reader_.read_array([&] {
      if (reader_.peek() != '"') fail(result, "objectives: expected a list of strings");
      objectives.emplace_back(reader_.read_string());
    });
    if (!objectives_seen_) objectives_ = std::move(objectives);  // the first result's, as all should agree
    objectives_seen_ = true;
  }

  void read_result(ResultsFile& file) {
    const std::size_t result = file.records.size();
    if (reader_.peek() != '{') fail(result, "expected an object");
    EvaluationRecord record;
    bool has_configuration = false, has_times = false, has_invalidity = false;
    const std::size_t numbers_before = value_numbers_.size();
    reader_.read_object([&](std::string_view field) {
      if (field == "configuration") {
        if (has_configuration) fail(result, "configuration appears twice");
        read_configuration(result);
        has_configuration = true;
      } else if (field == "times") {
        read_times(result, record);
        has_times = true;
      } else if (field == "invalidity") {
        if (reader_.peek() != '"') fail(result, "invalidity: expected a string");
        const std::string_view invalidity = reader_.read_string();
        const auto status = status_from_t4_invalidity(invalidity);
        if (!status)
          fail(result, fmt::format("unknown invalidity '{}' (expected correct, compile, runtime, correctness, timeout "
                                   "or constraints)", invalidity));
        record.status = *status;
        has_invalidity = true;
      } else if (field == "timestamp") {
        if (reader_.peek() == 'n') {
          reader_.skip_value();
        } else {
          if (reader_.peek() != '"') fail(result, "timestamp: expected a string");
          record.timestamp = reader_.read_string();
        }
      } else if (field == "measurements") {
        read_measurements(result, record);
      } else if (field == "objectives") {
        read_objectives(result);
      } else {
        reader_.skip_value();  // correctness (the invalidity says it all) and fields outside the schema
      }
    });
    if (!has_configuration) fail(result, "missing 'configuration'");
    if (!has_times) fail(result, "missing 'times'");
    if (!has_invalidity) fail(result, "missing 'invalidity'");
    if (result == 0 && seen_.names.empty()) fail(result, "the configuration has no parameters");
    if (value_numbers_.size() != numbers_before + seen_.names.size()) fail(result, "configuration: wrong size");
    // T4 has no field for a failure's message; Kernel Tuner's error name stands in, as it does in cache files.
    if (record.status != Status::ok) record.message = std::string(kernel_tuner_error(record.status));
    file.records.push_back(std::move(record));
  }

  // The values of the complete records, ascending when all are (finite) numbers, else in order of first
  // appearance; configs then hold the problem's own values. No results: no parameters.
  void build_problem(ResultsFile& file) {
    Problem& problem = file.problem;
    problem.name = file_stem(source_);
    const std::size_t records = file.records.size();
    const std::size_t n = records == 0 ? 0 : seen_.names.size();
    std::vector<std::vector<std::uint32_t>> position(n);  // value number -> index in the problem's value list
    for (std::size_t p = 0; p < n; ++p) {
      const auto& values = seen_.values[p];
      std::vector<bool> used(values.size());  // a record cut short may have added values
      for (std::size_t r = 0; r < records; ++r) used[value_numbers_[r * n + p]] = true;
      std::vector<std::uint32_t> order;
      for (std::uint32_t i = 0; i < values.size(); ++i)
        if (used[i]) order.push_back(i);
      const bool numbers = std::all_of(values.begin(), values.end(), [](const Value& v) {
        return v.is_numeric() && std::isfinite(v.to_double());
      });
      if (numbers)
        std::stable_sort(order.begin(), order.end(),
                         [&](auto a, auto b) { return values[a].to_double() < values[b].to_double(); });
      Parameter param{seen_.names[p], {}};
      position[p].resize(values.size(), kMissing);
      for (std::uint32_t i = 0; i < order.size(); ++i) {
        param.values.push_back(values[order[i]]);
        position[p][order[i]] = i;
      }
      problem.parameters.push_back(std::move(param));
    }
    if (n > 0) {
      try {
        problem.validate();
      } catch (const ProblemError& e) {
        throw InputError(source_, "results", e.what());
      }
    }
    for (std::size_t r = 0; r < file.records.size(); ++r) {
      auto& config = file.records[r].config;
      config.reserve(n);
      for (std::size_t p = 0; p < n; ++p)
        config.push_back(problem.parameters[p].values[position[p][value_numbers_[r * n + p]]]);
    }
  }

  static constexpr std::uint32_t kMissing = std::numeric_limits<std::uint32_t>::max();

  LenientJsonReader reader_;
  const std::string& source_;
  SeenParameters seen_;
  std::vector<std::uint32_t> value_numbers_;  // per record, per parameter: the value's number in seen_
  std::vector<std::string> objectives_;
  bool objectives_seen_ = false;
  std::vector<double> runtimes_;  // reused buffer
};

void append_key(std::string& out, std::string_view key) {
  append_json_string(out, key);
  out += ": ";
}

void append_t4_result(std::string& out, const Problem& problem, const EvaluationRecord& record,
                      const std::vector<std::string>& objectives) {
  out += '{';
  if (!record.timestamp.empty()) {
    append_key(out, "timestamp");
    append_json_string(out, record.timestamp);
    out += ", ";
  }
  append_key(out, "configuration");
  out += '{';
  for (std::size_t p = 0; p < problem.parameters.size(); ++p) {
    if (p > 0) out += ", ";
    append_key(out, problem.parameters[p].name);
    append_json_value(out, record.config[p]);
  }
  out += "}, ";
  append_key(out, "times");
  out += '{';
  const std::pair<const char*, double> times[] = {{"compilation", record.compile_ms},
                                                  {"benchmark", record.benchmark_ms},
                                                  {"framework", record.framework_ms},
                                                  {"search_algorithm", record.strategy_ms},
                                                  {"validation", record.verification_ms}};
  for (const auto& [name, ms] : times) {
    append_key(out, name);
    append_json_number(out, ms);
    out += ", ";
  }
  append_key(out, "runtimes");
  out += '[';
  for (std::size_t i = 0; i < record.runtimes_ms.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_number(out, record.runtimes_ms[i]);
  }
  out += "]}, ";
  append_key(out, "invalidity");
  append_json_string(out, t4_invalidity(record.status));
  out += ", ";
  append_key(out, "correctness");
  out += record.status == Status::ok ? "1, " : "0, ";
  append_key(out, "measurements");
  out += '[';
  for (std::size_t i = 0; i < record.measurements.size(); ++i) {
    const Measurement& m = record.measurements[i];
    if (i > 0) out += ", ";
    out += '{';
    append_key(out, "name");
    append_json_string(out, m.name);
    out += ", ";
    append_key(out, "value");
    append_json_value(out, m.value);
    out += ", ";
    append_key(out, "unit");
    // A time without a unit is in milliseconds (Kernel Tuner caches name none); time_runs, time_spread and the
    // other counts and ratios of the runs are not times.
    const bool a_time = m.name == "time" || m.name.ends_with("_time");
    append_json_string(out, !m.unit.empty() ? std::string_view(m.unit) : a_time ? "ms" : "");
    out += '}';
  }
  out += "], ";
  append_key(out, "objectives");
  out += '[';
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_string(out, objectives[i]);
  }
  out += "]}";
}

}  // namespace

ResultsFile parse_t4_results(const std::string& text, const std::string& source_name) {
  return T4Reader(text, source_name).read();
}

void write_t4_results(std::ostream& out, const Problem& problem, std::span<const EvaluationRecord> records,
                      const std::vector<std::string>& objectives, const nlohmann::json& extra_metadata) {
  nlohmann::json metadata = extra_metadata.is_null() ? nlohmann::json::object() : extra_metadata;
  if (!metadata.is_object()) throw std::invalid_argument("T4 metadata must be a JSON object");
  metadata["timeunit"] = "milliseconds";  // what the times below are in, whatever the extra metadata says
  std::string text = "{\n\"schema_version\": \"1.0.0\",\n\"metadata\": ";
  text += metadata.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += ",\n\"results\": [";
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].config.size() != problem.parameters.size())
      throw std::invalid_argument(fmt::format("record {} has {} values for {} parameters", i, records[i].config.size(),
                                              problem.parameters.size()));
    text += i > 0 ? ",\n" : "\n";
    append_t4_result(text, problem, records[i], objectives);
    if (text.size() > (1u << 20)) {  // bounded memory for large result sets
      out << text;
      text.clear();
    }
  }
  text += "\n]\n}\n";
  out << text;
}

}  // namespace ktune::io
