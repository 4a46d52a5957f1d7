#include "ktune/io/kernel_tuner_results_file.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/live/launch_planner.hpp"

namespace ktune::io {

namespace {

using ordered_json = nlohmann::ordered_json;

constexpr const char* kVersion = "1.0";

bool is_ascii_alphanumeric(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::string describe_entry(std::size_t position, const ordered_json& entry) {
  std::string text = fmt::format("entry {}", position + 1);
  if (entry.is_object() && entry.contains("device_name") && entry["device_name"].is_string() &&
      entry.contains("problem_size") && entry["problem_size"].is_string())
    text += fmt::format(" (device '{}', problem size '{}')", entry["device_name"].get<std::string>(),
                        entry["problem_size"].get<std::string>());
  return text;
}

const ordered_json& required(const ordered_json& document, const char* key, const std::string& where) {
  const auto it = document.find(key);
  if (it == document.end()) throw InputError(where, "", fmt::format("a results file needs '{}'", key));
  return *it;
}

std::string required_string(const ordered_json& document, const char* key, const std::string& where) {
  const ordered_json& value = required(document, key, where);
  if (!value.is_string()) throw InputError(where, key, fmt::format("'{}' must be a string, not {}", key, value.dump()));
  return value.get<std::string>();
}

// A configuration's identity for counting (Kernel Tuner's instance string, with the values told apart by type).
std::string configuration_key(const ordered_json& parameters, const std::vector<std::string>& names) {
  ordered_json values = ordered_json::array();
  for (const auto& name : names) values.push_back(parameters.at(name));
  return values.dump();
}

ordered_json in_parameter_order(const ordered_json& parameters, const std::vector<std::string>& names) {
  ordered_json out = ordered_json::object();
  for (const auto& name : names) out[name] = parameters.at(name);
  return out;
}

bool better(double a, double b, bool higher_is_better) { return higher_is_better ? a > b : a < b; }

ordered_json best_of(const std::vector<const KernelTunerResultsEntry*>& entries, const KernelTunerResultsFile& file) {
  const KernelTunerResultsEntry* best = entries.front();
  for (const auto* e : entries)
    if (better(e->value, best->value, file.higher_is_better)) best = e;  // ties: the first, as Python's min/max
  return in_parameter_order(best->parameters(), file.parameters);
}

ordered_json most_common(const std::vector<const KernelTunerResultsEntry*>& entries,
                         const KernelTunerResultsFile& file) {
  struct Tally {
    std::size_t count = 0;
    double total = 0;
    const KernelTunerResultsEntry* first = nullptr;
  };
  std::vector<std::string> order;  // first occurrence decides ties, as Kernel Tuner's dict order does
  std::map<std::string, Tally> tallies;
  for (const auto* e : entries) {
    const std::string key = configuration_key(e->parameters(), file.parameters);
    Tally& t = tallies[key];
    if (t.count == 0) {
      t.first = e;
      order.push_back(key);
    }
    ++t.count;
    t.total += e->value;
  }
  std::size_t top_count = 0;
  for (const auto& [key, t] : tallies) top_count = std::max(top_count, t.count);
  const Tally* chosen = nullptr;
  for (const auto& key : order) {
    const Tally& t = tallies.at(key);
    if (t.count != top_count) continue;
    if (!chosen || better(t.total, chosen->total, file.higher_is_better)) chosen = &t;
  }
  return in_parameter_order(chosen->first->parameters(), file.parameters);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string c_literal_of(const ordered_json& value, const std::string& parameter) {
  try {
    return live::LaunchPlanner::c_literal(value_from_json(nlohmann::json::parse(value.dump())));
  } catch (const std::exception& e) {
    throw std::invalid_argument(
        fmt::format("parameter '{}': value {} has no C literal: {}", parameter, value.dump(), e.what()));
  }
}

std::string defines(const std::vector<std::pair<std::string, std::string>>& literals) {
  std::string out;
  for (std::size_t i = 0; i < literals.size(); ++i)
    out += fmt::format("{}#define {} {}", i ? "\n" : "", literals[i].first, literals[i].second);
  return out;
}

std::vector<std::pair<std::string, std::string>> literals_of(const ordered_json& parameters) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : parameters.items()) out.push_back({name, c_literal_of(value, name)});
  return out;
}

}  // namespace

KernelTunerObjective kernel_tuner_objective(const std::optional<std::string>& objective,
                                            std::optional<bool> higher_is_better) {
  static const std::map<std::string, bool, std::less<>> known = {
      {"time", false},    {"energy", false}, {"fitness", true}, {"cost", false}, {"loss", false},
      {"GFLOP/s", true},  {"TFLOP/s", true}, {"GB/s", true},    {"TB/s", true},  {"GFLOPS/W", true},
      {"TFLOPS/W", true}, {"GFLOP/J", true}, {"TFLOP/J", true}};
  KernelTunerObjective out;
  out.name = objective && !objective->empty() ? *objective : "time";
  if (higher_is_better) {
    out.higher_is_better = *higher_is_better;
  } else {
    const auto it = known.find(out.name);
    if (it == known.end())
      throw std::invalid_argument("Please specify objective_higher_is_better for objective " + out.name);
    out.higher_is_better = it->second;
  }
  return out;
}

std::string kernel_tuner_device_name(std::string_view device_name) {
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (!device_name.empty() && is_space(device_name.front())) device_name.remove_prefix(1);
  while (!device_name.empty() && is_space(device_name.back())) device_name.remove_suffix(1);
  std::string out;
  bool in_run = false;  // a run of other characters (underscores included) becomes one '_'
  for (char c : device_name) {
    if (is_ascii_alphanumeric(c)) {
      out += c;
      in_run = false;
    } else if (!in_run) {
      out += '_';
      in_run = true;
    }
  }
  return out;
}

std::string kernel_tuner_problem_size(const nlohmann::json& problem_size) {
  const auto number = [](const nlohmann::json& n) -> std::string {
    if (n.is_number_integer()) return n.dump();
    if (n.is_number_float()) return python_float_repr(n.get<double>());
    throw std::invalid_argument("a problem size holds numbers, not " + n.dump());
  };
  if (problem_size.is_string()) return problem_size.get<std::string>();
  if (problem_size.is_number()) return number(problem_size);
  if (problem_size.is_array() && !problem_size.empty()) {
    std::string out;
    for (const auto& d : problem_size) out += (out.empty() ? "" : "x") + number(d);
    return out;
  }
  throw std::invalid_argument("a problem size is a number, a list of numbers or a string, not " + problem_size.dump());
}

bool looks_like_a_filename(std::string_view s) {
  if (s.size() > 250) return false;
  if (s.find_first_of("();{}\\") != std::string_view::npos) return false;
  for (const char* code : {"__global__ ", "__kernel ", "void ", "float "})
    if (s.find(code) != std::string_view::npos) return false;
  return s.find(".c") != std::string_view::npos || s.find(".opencl") != std::string_view::npos ||
         s.find(".F") != std::string_view::npos;
}

bool is_kernel_tuner_results(const nlohmann::json& document) {
  return document.is_object() && document.contains("version_number");
}

KernelTunerResultsFile parse_kernel_tuner_results(const ordered_json& document, const std::string& where) {
  if (!document.is_object() || !document.contains("version_number"))
    throw InputError(where, "",
                     "not a Kernel Tuner results file (no 'version_number'): results file format not recognized");
  const ordered_json& version = document["version_number"];
  if (!version.is_string() || version.get<std::string>() != kVersion)
    throw InputError(where, "version_number",
                     fmt::format("unknown results file version_number {} (this reader knows \"1.0\")", version.dump()));
  KernelTunerResultsFile file;
  file.kernel_name = required_string(document, "kernel_name", where);
  file.objective = required_string(document, "objective", where);
  if (const auto it = document.find("kernel_string"); it != document.end()) {
    if (!it->is_string()) throw InputError(where, "kernel_string", "'kernel_string' must be a string");
    file.kernel_string = it->get<std::string>();
  }
  if (const auto it = document.find("objective_higher_is_better"); it != document.end()) {
    if (!it->is_boolean())
      throw InputError(where, "objective_higher_is_better", "'objective_higher_is_better' must be true or false");
    file.higher_is_better = it->get<bool>();
  }
  const ordered_json& names = required(document, "tunable_parameters", where);
  if (!names.is_array()) throw InputError(where, "tunable_parameters", "'tunable_parameters' must be a list of names");
  for (const auto& n : names) {
    if (!n.is_string()) throw InputError(where, "tunable_parameters", "a parameter name is not a string: " + n.dump());
    file.parameters.push_back(n.get<std::string>());
  }
  const ordered_json& data = required(document, "data", where);
  if (!data.is_array()) throw InputError(where, "data", "'data' must be a list of entries");
  for (std::size_t i = 0; i < data.size(); ++i) {
    const ordered_json& entry = data[i];
    const std::string which = describe_entry(i, entry);
    if (!entry.is_object()) throw InputError(where, "data", which + ": not an object");
    for (const char* key : {"device_name", "problem_size"}) {
      if (!entry.contains(key)) throw InputError(where, "data", fmt::format("{}: missing key '{}'", which, key));
      if (!entry[key].is_string())
        throw InputError(where, "data", fmt::format("{}: '{}' must be a string", which, key));
    }
    if (!entry.contains("tunable_parameters") || !entry["tunable_parameters"].is_object())
      throw InputError(where, "data", which + ": missing key 'tunable_parameters' (an object)");
    for (const auto& p : file.parameters)
      if (!entry["tunable_parameters"].contains(p))
        throw InputError(where, "data", fmt::format("{}: missing tunable parameter '{}'", which, p));
    if (!entry.contains(file.objective))
      throw InputError(where, "data", fmt::format("{}: missing key '{}' (the objective)", which, file.objective));
    if (!entry[file.objective].is_number())
      throw InputError(where, "data",
                       fmt::format("{}: the objective '{}' is {}, not a number", which, file.objective,
                                   entry[file.objective].dump()));
    KernelTunerResultsEntry e;
    e.device_name = entry["device_name"].get<std::string>();
    e.problem_size = entry["problem_size"].get<std::string>();
    e.value = entry[file.objective].get<double>();
    e.json = entry;
    file.entries.push_back(std::move(e));
  }
  return file;
}

KernelTunerResultsFile parse_kernel_tuner_results_text(const std::string& text, const std::string& where) {
  return parse_kernel_tuner_results(parse_ordered_json_text(text, where), where);
}

KernelTunerResultsFile read_kernel_tuner_results_file(const std::string& path) {
  return parse_kernel_tuner_results_text(read_file_text(path), path);
}

std::string kernel_tuner_results_text(const KernelTunerResultsFile& file) {
  ordered_json document = ordered_json::object();
  document["version_number"] = kVersion;
  document["kernel_name"] = file.kernel_name;
  if (file.kernel_string) document["kernel_string"] = *file.kernel_string;
  document["objective"] = file.objective;
  document["objective_higher_is_better"] = file.higher_is_better;
  document["tunable_parameters"] = file.parameters;
  document["data"] = ordered_json::array();
  for (const auto& e : file.entries) document["data"].push_back(e.json);
  // indent 0 and ASCII escapes: Python's json.dumps(indent="") (",\n" between items, ": " after keys); bytes that
  // are not UTF-8 (a kernel file in another encoding) become U+FFFD rather than an exception.
  return document.dump(0, ' ', true, nlohmann::ordered_json::error_handler_t::replace);
}

void write_kernel_tuner_results_file(const std::string& path, const KernelTunerResultsFile& file) {
  write_file_atomically(path, kernel_tuner_results_text(file));
}

std::vector<KernelTunerResult> kernel_tuner_results_of(const ordered_json& results, const std::string& objective,
                                                       const std::vector<std::string>& parameters) {
  if (!results.is_array()) throw std::invalid_argument("results must be a list of dicts");
  std::vector<KernelTunerResult> out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ordered_json& item = results[i];
    if (!item.is_object()) throw std::invalid_argument(fmt::format("result {} is not a dict", i + 1));
    const auto it = item.find(objective);
    if (it == item.end() || !it->is_number() || !std::isfinite(it->get<double>())) continue;
    KernelTunerResult r;
    r.parameters = ordered_json::object();
    for (const auto& p : parameters) {
      if (!item.contains(p))
        throw std::invalid_argument(fmt::format("result {} has no value for tunable parameter '{}'", i + 1, p));
      r.parameters[p] = item[p];
    }
    r.value = *it;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<const KernelTunerResult*> top_results(const std::vector<KernelTunerResult>& results, double top,
                                                  bool higher_is_better) {
  if (results.empty()) throw std::invalid_argument("no result has the objective");
  if (!(top >= 0)) throw std::invalid_argument(fmt::format("top must be a percentage of at least 0, not {}", top));
  const auto value = [](const KernelTunerResult& r) { return r.value.get<double>(); };
  double best = value(results.front());
  for (const auto& r : results) best = better(value(r), best, higher_is_better) ? value(r) : best;
  // Kernel Tuner keeps x < best*(1+top) (minimising) or x > best*(1-top); measured from |best| so that a zero or
  // negative best keeps itself.
  const double margin = std::abs(best) * top / 100.0;
  // A configuration listed more than once (tune_kernel's results list revisits, as Kernel Tuner's do) is kept once.
  std::vector<const KernelTunerResult*> kept;
  std::unordered_set<std::string> configurations;
  for (const auto& r : results) {
    const double v = value(r);
    if (v == best || (higher_is_better ? v > best - margin : v < best + margin))
      if (configurations.insert(r.parameters.dump()).second) kept.push_back(&r);
  }
  return kept;
}

KernelTunerResultsFile store_results(const KernelTunerResultsFile* existing, const StoreResultsRequest& request) {
  const KernelTunerObjective objective = kernel_tuner_objective(request.objective, request.higher_is_better);
  for (std::size_t i = 0; i < request.results.size(); ++i) {
    const auto& r = request.results[i];
    if (!r.value.is_number() || !std::isfinite(r.value.get<double>()))
      throw std::invalid_argument(fmt::format("result {}: the objective '{}' is {}, not a finite number", i + 1,
                                              objective.name, r.value.dump()));
    for (const auto& p : request.parameters)
      if (!r.parameters.contains(p))
        throw std::invalid_argument(fmt::format("result {}: no value for tunable parameter '{}'", i + 1, p));
  }
  if (request.problem_size.empty()) throw std::invalid_argument("store_results needs a problem size");
  const std::string device = kernel_tuner_device_name(request.device_name);
  if (device.empty()) throw std::invalid_argument("store_results needs a device name (env['device_name'])");

  KernelTunerResultsFile file;
  if (existing) {
    file = *existing;
    if (request.kernel_name != file.kernel_name)
      throw std::invalid_argument(fmt::format("Mismatch between given kernel_name '{}' and results file ('{}')",
                                              request.kernel_name, file.kernel_name));
    const auto sorted = [](std::vector<std::string> v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    if (sorted(request.parameters) != sorted(file.parameters))
      throw std::invalid_argument(
          fmt::format("Mismatch between tunable_parameters in results file ({}) and tune_params "
                      "({})",
                      fmt::join(file.parameters, ", "), fmt::join(request.parameters, ", ")));
    if (objective.name != file.objective)
      throw std::invalid_argument(
          fmt::format("Mismatch between given objective '{}' and results file ('{}')", objective.name, file.objective));
    if (request.higher_is_better && *request.higher_is_better != file.higher_is_better)
      throw std::invalid_argument(
          fmt::format("Mismatch between given objective_higher_is_better ({}) and results "
                      "file ({})",
                      *request.higher_is_better, file.higher_is_better));
  } else {
    file.kernel_name = request.kernel_name;
    if (request.kernel_string && !request.kernel_string->empty()) {
      file.kernel_string = *request.kernel_string;
      if (looks_like_a_filename(*request.kernel_string)) {
        std::ifstream probe(*request.kernel_string);
        if (probe) file.kernel_string = read_text_file(*request.kernel_string);
      }
    }
    file.objective = objective.name;
    file.higher_is_better = objective.higher_is_better;
    file.parameters = request.parameters;
  }

  if (request.results.empty())
    throw std::invalid_argument(fmt::format("no result has the objective '{}'", objective.name));
  std::erase_if(file.entries, [&](const KernelTunerResultsEntry& e) {
    return e.device_name == device && e.problem_size == request.problem_size;
  });
  for (const KernelTunerResult* r : top_results(request.results, request.top, objective.higher_is_better)) {
    KernelTunerResultsEntry e;
    e.device_name = device;
    e.problem_size = request.problem_size;
    e.value = r->value.get<double>();
    e.json = ordered_json::object();
    e.json["device_name"] = device;
    e.json["problem_size"] = request.problem_size;
    e.json["tunable_parameters"] = in_parameter_order(r->parameters, request.parameters);
    e.json[objective.name] = r->value;
    file.entries.push_back(std::move(e));
  }
  return file;
}

void store_results_file(const std::string& path, const StoreResultsRequest& request) {
  std::optional<KernelTunerResultsFile> existing;
  if (std::ifstream probe(path); probe) existing = read_kernel_tuner_results_file(path);
  write_kernel_tuner_results_file(path, store_results(existing ? &*existing : nullptr, request));
}

nlohmann::ordered_json best_configuration(const KernelTunerResultsFile& file, std::string_view device_name,
                                          const std::optional<std::string>& problem_size) {
  if (file.entries.empty()) throw std::invalid_argument("results file seems to be empty: it has no entries");
  const std::string device = kernel_tuner_device_name(device_name);
  std::vector<const KernelTunerResultsEntry*> of_device, of_size, all;
  for (const auto& e : file.entries) {
    all.push_back(&e);
    if (e.device_name != device) continue;
    of_device.push_back(&e);
    if (problem_size && !problem_size->empty() && e.problem_size == *problem_size) of_size.push_back(&e);
  }
  if (!of_size.empty()) return best_of(of_size, file);
  if (!of_device.empty()) return most_common(of_device, file);
  return most_common(all, file);
}

std::string device_targets_header(const KernelTunerResultsFile& file,
                                  const std::vector<std::pair<std::string, std::string>>& default_configuration) {
  if (file.entries.empty()) throw std::invalid_argument("results file seems to be empty: it has no entries");
  std::vector<std::string> devices;
  for (const auto& e : file.entries) devices.push_back(e.device_name);
  std::sort(devices.begin(), devices.end());  // Kernel Tuner's order comes from a set: it changes from run to run
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  std::string targets;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    targets += fmt::format("\n{} TARGET_{}\n", i == 0 ? "#ifdef" : "#elif", devices[i]);
    targets += defines(literals_of(best_configuration(file, devices[i]))) + "\n";
  }
  const std::string fallback =
      defines(default_configuration.empty() ? literals_of(best_configuration(file)) : default_configuration);
  return fmt::format(
      "/* header file generated by ktune (Kernel Tuner's format), do not modify by hand */\n"
      "#pragma once\n"
      "#ifndef kernel_tuner /* only use these when not tuning */\n"
      "\n{}\n"
      "#else /* default configuration */\n"
      "{}\n"
      "#endif /* GPU TARGETS */\n"
      "\n"
      "#endif /* kernel_tuner */\n",
      targets, fallback);
}

}  // namespace ktune::io
