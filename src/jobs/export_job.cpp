#include "ktune/jobs/export_job.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/kernel_tuner_results_file.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/live/launch_planner.hpp"
#include "ktune/runtime/wisdom.hpp"
#include "ktune/store/results_store.hpp"
#include "ktune/version.hpp"

namespace ktune {

namespace {

using runtime::ProblemSize;

struct ExportedObjective {
  std::string name;
  bool higher_is_better = false;
};

using Provenance = std::map<std::string, std::string>;

struct Candidate {
  std::vector<Value> config;  // in the group's parameter order
  double value = 0;
  std::string timestamp;
  std::size_t provenance = 0;  // index into SourceGroup::provenances
};

// The results of one (kernel, device, problem size) from one source.
struct SourceGroup {
  std::string source;  // the file, or FILE#ID for a store's space
  std::string kernel, device;
  ProblemSize size;
  std::vector<std::string> parameters;
  ExportedObjective objective;
  std::vector<Candidate> candidates;
  std::vector<Provenance> provenances;  // the source's, and per store session its own
  std::size_t evaluations = 0;          // every record, failed ones too
};


// A Kernel Tuner results file names its version near the top; caches and T4 files never do.
bool looks_like_kernel_tuner_results(const std::string& path) {
  if (path.ends_with(".gz") || path.ends_with(".csv")) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(65536, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find("\"version_number\"") != std::string::npos;
}

std::string as_text(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

ExportedObjective choose_objective(const std::string& requested, const std::vector<std::string>& offered,
                                   const std::string& where) {
  const std::string text = !requested.empty() ? requested : !offered.empty() ? offered.front() : "time";
  ExportedObjective out{store::objective_name(text), false};
  if (text.ends_with(":max") || text.ends_with(":min")) {
    out.higher_is_better = text.ends_with(":max");
    return out;
  }
  try {
    out.higher_is_better = io::kernel_tuner_objective(out.name, std::nullopt).higher_is_better;
    return out;
  } catch (const std::invalid_argument&) {
  }
  if (const auto inferred = store::objective_higher_is_better(out.name)) {
    out.higher_is_better = *inferred;
    return out;
  }
  refuse_request(fmt::format("{}: the direction of objective '{}' is unknown: give --objective {}:min or {}:max", where,
                             out.name, out.name, out.name));
}

ProblemSize problem_size_of(const nlohmann::json& stored, const std::string& fallback, const std::string& where) {
  try {
    if (stored.is_null() || (stored.is_array() && stored.empty())) {
      if (fallback.empty())
        refuse_input(fmt::format("{}: the results carry no problem size: give --problem-size AxB", where));
      return runtime::parse_problem_size(fallback);
    }
    if (stored.is_string()) return runtime::parse_problem_size(stored.get<std::string>());
    ProblemSize size;
    for (const auto& d : stored.is_array() ? stored : nlohmann::json::array({stored})) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 1) throw std::invalid_argument("not a positive integer");
      size.push_back(d.get<std::int64_t>());
    }
    if (size.size() > 3) throw std::invalid_argument("more than 3 dimensions");
    return size;
  } catch (const std::invalid_argument& e) {
    refuse_input(
        fmt::format("{}: problem size {} is not 1 to 3 positive integers: {}", where, stored.dump(), e.what()));
  }
}

Provenance common_provenance(const std::string& source, const std::string& format, const nlohmann::json& provenance) {
  Provenance out{{"source", source}, {"format", format}};
  if (provenance.is_object())
    for (const auto& [key, value] : provenance.items()) out[key] = as_text(value);
  return out;
}

void add_records(SourceGroup& group, const std::vector<EvaluationRecord>& records, std::size_t provenance) {
  for (const auto& r : records) {
    ++group.evaluations;
    if (r.status != Status::ok) continue;
    const auto value = r.objective(group.objective.name);
    if (!value) continue;
    group.candidates.push_back({r.config, *value, r.timestamp, provenance});
  }
}

std::string kernel_or(const std::string& carried, const ExportRequest& request, const std::string& where) {
  if (!carried.empty()) return carried;
  if (request.kernel_name.empty())
    refuse_input(fmt::format("{}: the results carry no kernel name: give --kernel NAME", where));
  return request.kernel_name;
}

std::string device_or(const std::string& carried, const ExportRequest& request, const std::string& where) {
  if (!carried.empty()) return carried;
  if (request.device_name.empty())
    refuse_input(fmt::format("{}: the results carry no device name: give --device NAME", where));
  return request.device_name;
}

void read_store(const std::string& path, const ExportRequest& request, std::vector<SourceGroup>& groups) {
  const store::ResultsStore db(path, store::OpenMode::existing);
  for (const store::StoredSpace& space : db.spaces()) {
    SourceGroup g;
    g.source = fmt::format("{}#{}", path, space.id);
    g.kernel = kernel_or(space.origin.kernel_name, request, g.source);
    g.device = device_or(space.origin.device_name, request, g.source);
    g.size = problem_size_of(space.origin.problem_size, request.problem_size, g.source);
    g.parameters = space.origin.problem.parameter_names();
    g.objective = choose_objective(request.objective, space.origin.objectives, g.source);
    const Provenance base =
        common_provenance(g.source, "ktune results store (" + space.origin.format + ")", space.origin.provenance);
    for (const store::StoredSession& session : db.sessions(space.id)) {
      Provenance p = base;
      if (!session.info.strategy.empty()) p["strategy"] = session.info.strategy;
      if (session.info.seed) p["seed"] = std::to_string(*session.info.seed);
      if (!session.info.ktune_version.empty()) p["ktune_version"] = session.info.ktune_version;
      if (!session.info.started.empty()) p["date"] = session.info.started;
      if (!session.info.source.empty()) p["session"] = session.info.source;
      if (session.info.device.is_object())
        for (const auto& [key, value] : session.info.device.items())
          if (key != "name") p[key == "platform" ? "platform" : "device_" + key] = as_text(value);
      g.provenances.push_back(std::move(p));
      add_records(g, db.session_records(session.id), g.provenances.size() - 1);
    }
    groups.push_back(std::move(g));
  }
}

void read_kernel_tuner_results(const std::string& path, const ExportRequest& request,
                               std::vector<SourceGroup>& groups) {
  io::KernelTunerResultsFile file;
  try {
    file = io::read_kernel_tuner_results_file(path);
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
  const ExportedObjective objective{file.objective, file.higher_is_better};
  if (!request.objective.empty() && store::objective_name(request.objective) != objective.name)
    refuse_input(fmt::format("{}: a results file of objective '{}', not '{}'", path, objective.name,
                             store::objective_name(request.objective)));
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (device, size) -> group
  for (std::size_t i = 0; i < file.entries.size(); ++i) {
    const auto& e = file.entries[i];
    const auto [it, added] = index.try_emplace({e.device_name, e.problem_size}, groups.size());
    if (added) {
      SourceGroup g;
      g.source = path;
      g.kernel = file.kernel_name;
      g.device = e.device_name;
      g.size = problem_size_of(nlohmann::json(e.problem_size), "", fmt::format("{}: entry {}", path, i + 1));
      g.parameters = file.parameters;
      g.objective = objective;
      g.provenances.push_back(common_provenance(path, "Kernel Tuner results file", nullptr));
      groups.push_back(std::move(g));
    }
    SourceGroup& g = groups[it->second];
    Candidate c;
    try {
      for (const auto& name : file.parameters)
        c.config.push_back(io::value_from_json(nlohmann::json(e.parameters().at(name))));
    } catch (const std::exception& error) {
      refuse_input(fmt::format("{}: entry {}: {}", path, i + 1, error.what()));
    }
    c.value = e.value;
    ++g.evaluations;
    g.candidates.push_back(std::move(c));
  }
}

void read_results(const std::string& path, const ExportRequest& request, std::vector<SourceGroup>& groups,
                  const ExportMessages& on_message) {
  io::ResultsFile file;
  try {
    file = io::read_results_file(path);
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
  if (file.truncated && on_message)
    on_message(JobMessageLevel::warning,
               fmt::format("{}: the file was cut short; its complete records are used", path));
  SourceGroup g;
  g.source = path;
  g.kernel = kernel_or(file.kernel_name, request, path);
  g.device = device_or(file.device_name, request, path);
  g.size = problem_size_of(file.problem_size, request.problem_size, path);
  g.parameters = file.problem.parameter_names();
  g.objective = choose_objective(request.objective, file.objectives, path);
  if (g.objective.name == "time" && file.time_stand_ins > 0)
    refuse_input(
        fmt::format("{}: entry {} has no kernel time (only the tuning clock's benchmark_time): choose "
                    "another --objective",
                    path, file.first_time_stand_in));
  g.provenances.push_back(common_provenance(path, io::to_string(file.format), file.provenance));
  add_records(g, file.records, 0);
  groups.push_back(std::move(g));
}

std::map<std::string, std::string> parse_defaults(const std::vector<std::string>& defaults) {
  std::map<std::string, std::string> out;
  for (const auto& text : defaults) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
      refuse_request(fmt::format("--default '{}': write NAME=VALUE (the value as a C literal)", text));
    if (!out.emplace(text.substr(0, eq), text.substr(eq + 1)).second)
      refuse_request(fmt::format("--default: parameter '{}' is given twice", text.substr(0, eq)));
  }
  return out;
}

// The defaults in the kernel's parameter order; every parameter needs one.
std::vector<std::string> defaults_for(const std::map<std::string, std::string>& defaults, const std::string& kernel,
                                      const std::vector<std::string>& parameters) {
  std::vector<std::string> values;
  if (defaults.empty()) return values;
  for (const auto& [name, value] : defaults)
    if (std::find(parameters.begin(), parameters.end(), name) == parameters.end())
      refuse_request(fmt::format("--default: '{}' is not a parameter of kernel '{}' (its parameters: {})", name, kernel,
                                 fmt::join(parameters, ", ")));
  for (const auto& name : parameters) {
    const auto it = defaults.find(name);
    if (it == defaults.end())
      refuse_request(fmt::format("--default: kernel '{}' has parameter '{}' without a default (give every parameter)",
                                 kernel, name));
    values.push_back(it->second);
  }
  return values;
}

// All groups of one (kernel, device, problem size), in the first group's parameter order.
struct MergedGroup {
  std::vector<const SourceGroup*> groups;
  std::vector<std::vector<std::size_t>> orders;  // per group: its position of each parameter
};

std::vector<Value> reordered(const Candidate& c, const std::vector<std::size_t>& order) {
  std::vector<Value> out;
  out.reserve(order.size());
  for (std::size_t i : order) out.push_back(c.config[i]);
  return out;
}

std::string c_literal(const Value& value, const std::string& parameter, const std::string& source) {
  try {
    return live::LaunchPlanner::c_literal(value);
  } catch (const std::invalid_argument& e) {
    refuse_input(
        fmt::format("{}: parameter '{}': value {} has no C literal: {}", source, parameter, value.repr(), e.what()));
  }
}

void check_outputs(const ExportRequest& request) {
  if (request.header_path.empty() && request.wisdom_path.empty())
    refuse_request("nothing to write: give --header FILE.h and/or --wisdom FILE");
  if (request.results_paths.empty()) refuse_request("no results to export");
  if (!(request.top_percent >= 0))
    refuse_request(fmt::format("--top {}: a percentage of at least 0", request.top_percent));
  try {
    std::vector<io::NamedPath> inputs;
    for (const auto& p : request.results_paths) inputs.push_back({"results", p});
    io::refuse_overlapping_paths(inputs, {{"--header", request.header_path}, {"--wisdom", request.wisdom_path}});
    if (!request.header_path.empty()) io::check_output_path(request.header_path, "--header");
    if (!request.wisdom_path.empty()) io::check_output_path(request.wisdom_path, "--wisdom");
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
}

std::vector<SourceGroup> read_all(const ExportRequest& request, const ExportMessages& on_message) {
  std::vector<SourceGroup> groups;
  for (const auto& path : request.results_paths) {
    if (!std::ifstream(path)) refuse_input(fmt::format("{}: cannot read the file", path));
    try {
      if (store::is_results_store_file(path))
        read_store(path, request, groups);
      else if (looks_like_kernel_tuner_results(path))
        read_kernel_tuner_results(path, request, groups);
      else
        read_results(path, request, groups, on_message);
    } catch (const io::InputError& e) {
      refuse_input(e.what());
    }
  }
  if (!request.kernel_name.empty()) {
    std::set<std::string> seen;
    for (const auto& g : groups) seen.insert(g.kernel);
    std::erase_if(groups, [&](const SourceGroup& g) { return g.kernel != request.kernel_name; });
    if (groups.empty())
      refuse_input(
          fmt::format("no results of kernel '{}' (the results hold: {})", request.kernel_name, fmt::join(seen, ", ")));
  }
  return groups;
}

std::map<std::tuple<std::string, std::string, std::string>, MergedGroup> merge_groups(
    const std::vector<SourceGroup>& groups) {
  std::map<std::string, const SourceGroup*> first_of_kernel;
  std::map<std::tuple<std::string, std::string, std::string>, MergedGroup> merged;
  for (const auto& g : groups) {
    const SourceGroup* first = first_of_kernel.try_emplace(g.kernel, &g).first->second;
    std::vector<std::size_t> order;
    for (const auto& name : first->parameters) {
      const auto it = std::find(g.parameters.begin(), g.parameters.end(), name);
      if (it == g.parameters.end() || g.parameters.size() != first->parameters.size())
        refuse_input(fmt::format("{}: kernel '{}' has parameters ({}) here and ({}) in {}", g.source, g.kernel,
                                 fmt::join(g.parameters, ", "), fmt::join(first->parameters, ", "), first->source));
      order.push_back(static_cast<std::size_t>(it - g.parameters.begin()));
    }
    if (g.objective.name != first->objective.name)
      refuse_input(
          fmt::format("{}: kernel '{}' is measured by '{}' here and by '{}' in {}: choose one with "
                      "--objective",
                      g.source, g.kernel, g.objective.name, first->objective.name, first->source));
    MergedGroup& m = merged[{g.kernel, g.device, runtime::format_problem_size(g.size)}];
    m.groups.push_back(&g);
    m.orders.push_back(std::move(order));
  }
  return merged;
}

ExportedEntry best_entry(const MergedGroup& m, runtime::WisdomEntry& wisdom) {
  const SourceGroup& first = *m.groups.front();
  ExportedEntry e;
  e.kernel = first.kernel;
  e.device = first.device;
  e.problem_size = runtime::format_problem_size(first.size);
  e.objective = first.objective.name;
  e.higher_is_better = first.objective.higher_is_better;
  e.parameters = first.parameters;
  const Candidate* best = nullptr;
  std::size_t best_group = 0, evaluations = 0;
  for (std::size_t k = 0; k < m.groups.size(); ++k) {
    const SourceGroup& g = *m.groups[k];
    e.sources.push_back(g.source);
    e.records += g.candidates.size();
    evaluations += g.evaluations;
    for (const Candidate& c : g.candidates)
      if (!best || (e.higher_is_better ? c.value > best->value : c.value < best->value)) {
        best = &c;
        best_group = k;
      }
  }
  if (!best)
    refuse_input(fmt::format("{}: kernel '{}' on '{}' at {}: no successful result with objective '{}'",
                             fmt::join(e.sources, ", "), e.kernel, e.device, e.problem_size, e.objective));
  const SourceGroup& g = *m.groups[best_group];
  const std::vector<Value> config = reordered(*best, m.orders[best_group]);
  for (std::size_t p = 0; p < config.size(); ++p) e.values.push_back(c_literal(config[p], e.parameters[p], g.source));
  e.value = best->value;

  wisdom.device = e.device;
  wisdom.problem_size = first.size;
  wisdom.objective = e.objective;
  wisdom.higher_is_better = e.higher_is_better;
  wisdom.value = e.value;
  wisdom.values = e.values;
  wisdom.provenance = g.provenances.at(best->provenance);
  wisdom.provenance["evaluations"] = std::to_string(evaluations);
  if (!best->timestamp.empty()) wisdom.provenance["date"] = best->timestamp;
  if (e.sources.size() > 1) wisdom.provenance["sources"] = fmt::format("{}", fmt::join(e.sources, ", "));
  return e;
}

io::KernelTunerResultsFile header_results(
    const std::map<std::tuple<std::string, std::string, std::string>, MergedGroup>& merged, double top) {
  io::KernelTunerResultsFile file;
  bool first = true;
  for (const auto& [key, m] : merged) {
    const SourceGroup& lead = *m.groups.front();
    io::StoreResultsRequest request;
    request.kernel_name = lead.kernel;
    request.parameters = lead.parameters;
    request.problem_size = std::get<2>(key);
    request.device_name = lead.device;
    request.top = top;
    request.objective = lead.objective.name;
    request.higher_is_better = lead.objective.higher_is_better;
    for (std::size_t k = 0; k < m.groups.size(); ++k)
      for (const Candidate& c : m.groups[k]->candidates) {
        io::KernelTunerResult r;
        r.parameters = nlohmann::ordered_json::object();
        const std::vector<Value> config = reordered(c, m.orders[k]);
        for (std::size_t p = 0; p < config.size(); ++p)
          r.parameters[lead.parameters[p]] = nlohmann::ordered_json(io::value_to_json(config[p]));
        r.value = c.value;
        request.results.push_back(std::move(r));
      }
    if (request.results.empty()) continue;  // best_entry has refused this already
    file = io::store_results(first ? nullptr : &file, request);
    first = false;
  }
  return file;
}

}  // namespace

ExportResult run_export(const ExportRequest& request, const ExportMessages& on_message) {
  check_outputs(request);
  const std::map<std::string, std::string> defaults = parse_defaults(request.defaults);
  const std::vector<SourceGroup> groups = read_all(request, on_message);
  if (groups.empty()) refuse_input("the results hold no configurations to export");
  const auto merged = merge_groups(groups);

  ExportResult result;
  result.header_path = request.header_path;
  result.wisdom_path = request.wisdom_path;
  std::map<std::string, std::vector<runtime::WisdomEntry>> wisdom_entries;
  std::set<std::string> kernels, devices, sizes;
  for (const auto& [key, m] : merged) {
    runtime::WisdomEntry w;
    result.entries.push_back(best_entry(m, w));
    kernels.insert(std::get<0>(key));
    devices.insert(std::get<1>(key));
    sizes.insert(std::get<2>(key));
    wisdom_entries[std::get<0>(key)].push_back(std::move(w));
  }
  result.kernels.assign(kernels.begin(), kernels.end());
  result.devices.assign(devices.begin(), devices.end());
  result.problem_sizes.assign(sizes.begin(), sizes.end());
  if (!defaults.empty() && kernels.size() != 1)
    refuse_request(fmt::format("--default is for one kernel; the results hold {} ({}): choose one with --kernel",
                               kernels.size(), fmt::join(kernels, ", ")));
  std::map<std::string, std::vector<std::string>> parameters_of;
  for (const auto& e : result.entries) parameters_of[e.kernel] = e.parameters;

  if (!request.header_path.empty()) {
    if (kernels.size() != 1)
      refuse_request(fmt::format("a header is for one kernel; the results hold {} ({}): choose one with --kernel",
                                 kernels.size(), fmt::join(kernels, ", ")));
    const std::string& kernel = *kernels.begin();
    const std::vector<std::string> default_values = defaults_for(defaults, kernel, parameters_of[kernel]);
    std::vector<std::pair<std::string, std::string>> default_configuration;
    for (std::size_t p = 0; p < default_values.size(); ++p)
      default_configuration.push_back({parameters_of[kernel][p], default_values[p]});
    try {
      const io::KernelTunerResultsFile file = header_results(merged, request.top_percent);
      std::set<std::string> targets;
      for (const auto& e : file.entries) targets.insert(e.device_name);
      result.header_targets = targets.size();
      io::write_file_atomically(request.header_path, io::device_targets_header(file, default_configuration));
    } catch (const io::InputError& e) {
      refuse_input(e.what());
    } catch (const std::invalid_argument& e) {
      refuse_input(fmt::format("{}: {}", request.header_path, e.what()));
    }
  }

  if (!request.wisdom_path.empty()) {
    try {
      runtime::Wisdom::update(request.wisdom_path, [&](runtime::Wisdom& wisdom) {
        for (auto& [kernel, entries] : wisdom_entries) {
          const std::vector<std::string> default_values = defaults_for(defaults, kernel, parameters_of[kernel]);
          wisdom.declare(kernel, parameters_of[kernel], default_values);
          for (auto& entry : entries) result.wisdom_replaced += wisdom.add(kernel, std::move(entry)) ? 1 : 0;
        }
        for (const auto& k : wisdom.kernels()) result.wisdom_entries += k.entries.size();
      });
    } catch (const runtime::WisdomError& e) {
      refuse_input(fmt::format("{}: {}", request.wisdom_path, e.what()));
    } catch (const std::invalid_argument& e) {
      refuse_input(fmt::format("{}: {}", request.wisdom_path, e.what()));
    } catch (const io::InputError& e) {
      refuse_input(e.what());
    }
  }
  return result;
}

nlohmann::json export_report_json(const ExportResult& r) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : r.entries) {
    nlohmann::json configuration = nlohmann::json::object();
    for (std::size_t p = 0; p < e.parameters.size(); ++p) configuration[e.parameters[p]] = e.values[p];
    entries.push_back({{"kernel", e.kernel},
                       {"device", e.device},
                       {"problem_size", e.problem_size},
                       {"objective", e.objective},
                       {"higher_is_better", e.higher_is_better},
                       {"value", io::number_or_null(e.value)},
                       {"configuration", std::move(configuration)},
                       {"records", e.records},
                       {"sources", e.sources}});
  }
  nlohmann::json out = {{"kernels", r.kernels},          {"devices", r.devices}, {"problem_sizes", r.problem_sizes},
                        {"entries", std::move(entries)}, {"header", nullptr},    {"wisdom", nullptr}};
  if (!r.header_path.empty()) out["header"] = {{"path", r.header_path}, {"targets", r.header_targets}};
  if (!r.wisdom_path.empty())
    out["wisdom"] = {{"path", r.wisdom_path}, {"entries", r.wisdom_entries}, {"replaced", r.wisdom_replaced}};
  return out;
}

void write_export_summary(std::ostream& out, const ExportResult& r) {
  for (const auto& e : r.entries) {
    std::string config;
    for (std::size_t p = 0; p < e.parameters.size(); ++p)
      config += fmt::format("{}{}={}", p ? " " : "", e.parameters[p], e.values[p]);
    out << fmt::format("{} on {} at {}: {} {:.6g} ({} results)  {}\n", e.kernel, e.device, e.problem_size, e.objective,
                       e.value, e.records, config);
  }
  if (!r.header_path.empty())
    out << fmt::format("{}: header with {} device target{}\n", r.header_path, r.header_targets,
                       r.header_targets == 1 ? "" : "s");
  if (!r.wisdom_path.empty())
    out << fmt::format("{}: wisdom with {} entries ({} added, {} replaced)\n", r.wisdom_path, r.wisdom_entries,
                       r.entries.size() - r.wisdom_replaced, r.wisdom_replaced);
}

}  // namespace ktune
