// Runs of other tuners: trace files read with the pull parser (they are large: ~19 MB for the golden data), single
// runs from results files, matched to their space through a hash of the space's configurations.
#include "ktune/methodology/external_runs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "io/lenient_json.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "nan_constant.hpp"

namespace ktune::methodology {

namespace {

// JSON text of an object key for error paths: spaces["A100_convolution_milo"].
std::string quoted_key(std::string_view key) { return fmt::format("[\"{}\"]", key); }

class TraceReader {
 public:
  TraceReader(const std::string& text, const std::string& source) : reader_(text, source), source_(source) {}

  // std::nullopt when the document has no top-level "spaces". With `strict` false, a document that is not an
  // object or breaks off before "spaces" is not a trace either (the caller reads it as a results file, whose reader
  // explains what is wrong with it); once "spaces" was seen every error is the trace's.
  std::optional<ExternalRuns> read(bool strict) {
    ExternalRuns runs;
    bool seen_spaces = false;
    try {
      reader_.expect_top_level_object();
      reader_.read_object([&](std::string_view key) {
        if (key != "spaces") {
          reader_.skip_value();
          return;
        }
        if (seen_spaces) fail("spaces", "appears twice");
        seen_spaces = true;
        read_spaces(runs);
      });
      if (!reader_.at_end()) reader_.syntax_error("unexpected text after the JSON document");
    } catch (const io::EndOfInput&) {
      if (!seen_spaces && !strict) return std::nullopt;
      throw io::InputError(source_, "",
                           fmt::format("the file ends at byte {} before the JSON document is complete (cut short?)",
                                       reader_.position()));
    } catch (const io::InputError&) {
      if (!seen_spaces && !strict) return std::nullopt;
      throw;
    }
    if (!seen_spaces) {
      if (strict) fail("spaces", "missing: not a trace file");
      return std::nullopt;
    }
    return runs;
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw io::InputError(source_, path, message);
  }

  void read_spaces(ExternalRuns& runs) {
    if (reader_.peek() != '{') fail("spaces", "expected an object of search spaces");
    std::set<std::string, std::less<>> names;
    reader_.read_object([&](std::string_view space_key) {
      const std::string space(space_key);
      const std::string path = "spaces" + quoted_key(space);
      if (!names.insert(space).second) fail(path, "the space appears twice");
      if (reader_.peek() != '{') fail(path, "expected an object with \"strategies\"");
      bool seen_strategies = false;
      reader_.read_object([&](std::string_view field) {
        if (field != "strategies") {
          reader_.skip_value();
          return;
        }
        if (seen_strategies) fail(path + ".strategies", "appears twice");
        seen_strategies = true;
        read_strategies(space, path + ".strategies", runs);
      });
      if (!seen_strategies) fail(path, "missing \"strategies\"");
    });
  }

  void read_strategies(const std::string& space, const std::string& path, ExternalRuns& runs) {
    if (reader_.peek() != '{') fail(path, "expected an object of strategies");
    reader_.read_object([&](std::string_view label_key) {
      const std::string label(label_key);
      const std::string label_path = path + quoted_key(label);
      auto& by_space = runs[label];
      if (by_space.contains(space)) fail(label_path, "the strategy appears twice");
      std::vector<Run>& space_runs = by_space[space];
      if (reader_.peek() != '[') fail(label_path, "expected an array of runs");
      reader_.read_array([&] {
        const std::string run_path = fmt::format("{}[{}]", label_path, space_runs.size());
        space_runs.push_back(read_run(run_path));
      });
    });
  }

  // Paths of evaluations and fields are only spelled out for an error: runs have millions of numbers.
  Run read_run(const std::string& path) {
    if (reader_.peek() != '[') fail(path, "expected an array of evaluations");
    Run run;
    reader_.read_array([&] {
      const std::size_t e = run.size();
      const auto point_path = [&] { return fmt::format("{}[{}]", path, e); };
      if (reader_.peek() != '[') fail(point_path(), "expected [cumulative_time_s, value or null, best_so_far or null]");
      RunPoint point;
      std::size_t field = 0;
      reader_.read_array([&] {
        const auto field_path = [&] { return fmt::format("{}[{}]", point_path(), field); };
        switch (field) {
          case 0: {
            if (!next_is_number(false)) fail(field_path(), "expected a number");
            const double t = reader_.read_double();
            if (!std::isfinite(t) || t < 0) fail(field_path(), "the time must be a finite number >= 0 (seconds)");
            if (!run.empty() && t < run.back().time_s)
              fail(field_path(), fmt::format("the time decreases (from {} s): expected cumulative times",
                                             run.back().time_s));
            point.time_s = t;
            break;
          }
          case 1:
          case 2: {
            if (!next_is_number(true)) fail(field_path(), "expected a number or null");
            if (reader_.peek() == 'n') {
              reader_.skip_value();
              if (field == 1) point.value = kNaN;
            } else {
              const double v = reader_.read_double();
              if (field == 1) point.value = std::isfinite(v) ? v : kNaN;  // the best so far is derived, not kept
            }
            break;
          }
          default: fail(point_path(), "expected at most 3 fields");
        }
        ++field;
      });
      if (field < 2) fail(point_path(), "expected [cumulative_time_s, value or null, ...]");
      run.push_back(point);
    });
    return run;
  }

  // Whether the next value is a number (or null, when `nullable`); NaN and Infinity count as numbers.
  bool next_is_number(bool nullable) {
    const char c = reader_.peek();
    if (c == 'n') return nullable;
    return c != '"' && c != '[' && c != '{' && c != 't' && c != 'f';
  }

  io::LenientJsonReader reader_;
  std::string source_;
};

// A key under which Python-equal configurations meet: 1, 1.0 and True are one value, as in Python.
void append_value_key(std::string& key, const Value& value) {
  key += value.is_numeric() ? python_float_repr(value.to_double()) : value.repr();
  key += '\x1f';
}

std::string resolved_objective(const io::ResultsFile& run, const std::string& objective) {
  if (!objective.empty()) return objective;
  return run.objectives.empty() ? std::string("time") : run.objectives.front();
}

bool same_config(const std::vector<Value>& space_config, const std::vector<Value>& run_config,
                 const std::vector<std::size_t>& run_index) {
  for (std::size_t j = 0; j < space_config.size(); ++j)
    if (!python_equal(space_config[j], run_config[run_index[j]])) return false;
  return true;
}

// Whether `space` holds every configuration of `run` (with the run's value where it has one).
bool space_holds_run(const io::ResultsFile& space, const io::ResultsFile& run, const std::string& objective) {
  const auto& space_params = space.problem.parameters;
  const auto& run_params = run.problem.parameters;
  if (space_params.size() != run_params.size()) return false;
  // run_index[j]: where the space's parameter j sits in the run's configurations.
  std::vector<std::size_t> run_index(space_params.size());
  for (std::size_t j = 0; j < space_params.size(); ++j) {
    const auto i = run.problem.parameter_index(space_params[j].name);
    if (!i) return false;
    run_index[j] = *i;
  }

  std::unordered_multimap<std::string, std::size_t> records;
  records.reserve(space.records.size());
  std::string key;
  for (std::size_t r = 0; r < space.records.size(); ++r) {
    key.clear();
    for (const Value& v : space.records[r].config) append_value_key(key, v);
    records.emplace(key, r);
  }
  for (const EvaluationRecord& result : run.records) {
    if (result.status == Status::invalid) continue;
    key.clear();
    for (std::size_t j = 0; j < run_index.size(); ++j) append_value_key(key, result.config[run_index[j]]);
    const std::optional<double> value = result.objective(objective);
    const auto [begin, end] = records.equal_range(key);
    const bool found = std::any_of(begin, end, [&](const auto& entry) {
      const EvaluationRecord& record = space.records[entry.second];
      return same_config(record.config, result.config, run_index) && (!value || record.objective(objective) == value);
    });
    if (!found) return false;
  }
  return true;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void add_trace_runs(const std::string& label, const std::string& path, const ExternalRuns& trace,
                    const std::vector<ComparisonSpace>& spaces, ExternalRuns& out) {
  const auto it = trace.find(label);
  if (it == trace.end()) {
    std::set<std::string> labels;
    for (const auto& [name, by_space] : trace) labels.insert(name);
    throw io::InputError(path, "", fmt::format("no strategy '{}' in this trace file (it has: {})", label,
                                               labels.empty() ? std::string("none") : joined(labels)));
  }
  std::size_t used = 0;
  for (const ComparisonSpace& space : spaces) {
    const auto runs = it->second.find(space.name);
    if (runs == it->second.end()) continue;
    auto& target = out[label][space.name];
    target.insert(target.end(), runs->second.begin(), runs->second.end());
    ++used;
  }
  if (used == 0) {
    std::set<std::string> theirs, ours;
    for (const auto& [name, runs] : it->second) theirs.insert(name);
    for (const ComparisonSpace& space : spaces) ours.insert(space.name);
    throw io::InputError(path, "",
                         fmt::format("strategy '{}' was run on none of the compared spaces (it was run on: {}; "
                                     "compared: {})",
                                     label, joined(theirs), joined(ours)));
  }
}

}  // namespace

ExternalRuns parse_trace_text(const std::string& text, const std::string& source_name) {
  return *TraceReader(text, source_name).read(true);
}

ExternalRuns read_trace_file(const std::string& path) { return parse_trace_text(io::read_file_text(path), path); }

Run run_from_t4(const io::ResultsFile& run, const std::string& objective) {
  const auto part = [](double ms) { return ms >= 0 ? ms : 0.0; };  // NaN >= 0 is false
  Run out;
  out.reserve(run.records.size());
  double clock_ms = 0;
  for (const EvaluationRecord& record : run.records) {
    if (record.status == Status::invalid) continue;
    double ms = part(record.compile_ms) + part(record.framework_ms) + part(record.strategy_ms) +
                part(record.verification_ms);
    for (double r : record.runtimes_ms) ms += part(r);
    clock_ms += ms;
    out.push_back({clock_ms / 1000, record.objective(objective).value_or(kNaN)});
  }
  return out;
}

std::optional<std::size_t> matching_space(const io::ResultsFile& run, const std::vector<ComparisonSpace>& spaces,
                                          const std::string& objective) {
  const bool any = std::any_of(run.records.begin(), run.records.end(),
                               [](const EvaluationRecord& r) { return r.status != Status::invalid; });
  if (!any) return std::nullopt;
  const std::string name = resolved_objective(run, objective);
  for (std::size_t s = 0; s < spaces.size(); ++s)
    if (spaces[s].results && space_holds_run(*spaces[s].results, run, name)) return s;
  return std::nullopt;
}

ExternalRuns load_external_runs(const std::vector<std::pair<std::string, std::string>>& label_and_path,
                                const std::vector<ComparisonSpace>& spaces, const std::string& objective) {
  ExternalRuns out;
  // One trace file usually holds several strategies (--runs a=traces.json --runs b=traces.json): read it once.
  std::map<std::string, ExternalRuns> traces;
  for (const auto& [label, path] : label_and_path) {
    if (const auto known = traces.find(path); known != traces.end()) {
      add_trace_runs(label, path, known->second, spaces, out);
      continue;
    }
    const std::string text = io::read_file_text(path);
    if (std::optional<ExternalRuns> trace = TraceReader(text, path).read(false)) {
      add_trace_runs(label, path, traces.emplace(path, std::move(*trace)).first->second, spaces, out);
      continue;
    }
    const io::ResultsFile file = io::read_results_file(path);
    const std::string name = resolved_objective(file, objective);
    Run run = run_from_t4(file, name);
    if (run.empty())
      throw io::InputError(path, "", file.records.empty() ? "no results: nothing to compare"
                                                          : "every result violates constraints: nothing to compare");
    const std::optional<std::size_t> s = matching_space(file, spaces, name);
    if (!s) {
      std::set<std::string> names;
      for (const ComparisonSpace& space : spaces) names.insert(space.name);
      throw io::InputError(path, "", fmt::format("the run matches none of the compared spaces ({}): none has the same "
                                                 "parameters and every configuration of the run with its '{}' values",
                                                 joined(names), name));
    }
    out[label][spaces[*s].name].push_back(std::move(run));
  }
  return out;
}

}  // namespace ktune::methodology
