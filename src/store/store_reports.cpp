#include "ktune/store/store_reports.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "ktune/io/json_value.hpp"

namespace ktune::store {

namespace {

std::string size_text(const nlohmann::json& size) { return size.is_null() ? "unknown size" : "size " + size.dump(); }

// A number for --json: what JSON cannot hold (NaN, infinities) as null; other values as they are.
nlohmann::json report_value(const Value& v) {
  if (v.is_float()) return io::number_or_null(v.as_float());
  if (v.is_list()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& item : v.as_list()) list.push_back(report_value(item));
    return list;
  }
  return io::value_to_json(v);
}

}  // namespace

std::vector<BestGroup> best_per_group(const ResultsStore& store, const BestFilter& filter) {
  std::map<std::tuple<std::string, std::string, std::string, std::string, bool>, BestGroup> groups;
  for (const StoredSpace& space : store.spaces()) {
    if (filter.kernel && space.origin.kernel_name != *filter.kernel) continue;
    if (filter.device && space.origin.device_name != *filter.device) continue;
    const std::string objective = space.origin.objectives.empty() ? "time" : objective_name(space.origin.objectives[0]);
    BestGroup& g = groups[{space.origin.kernel_name, space.origin.device_name, space.origin.problem_size.dump(),
                           objective, space.higher_is_better}];
    if (g.spaces.empty()) {
      g.kernel_name = space.origin.kernel_name;
      g.device_name = space.origin.device_name;
      g.problem_size = space.origin.problem_size;
      g.objective = objective;
      g.higher_is_better = space.higher_is_better;
      for (const auto& p : space.origin.problem.parameters) g.parameters.push_back(p.name);
    }
    g.spaces.push_back(space.id);
    g.records += space.records;
    for (auto& b : store.best(space.id, filter.top)) g.best.push_back(std::move(b));
  }
  std::vector<BestGroup> out;
  for (auto& [key, g] : groups) {
    // Best first; equal values: the earlier space first (stable).
    std::stable_sort(g.best.begin(), g.best.end(), [&](const BestRecord& a, const BestRecord& b) {
      return g.higher_is_better ? a.value > b.value : a.value < b.value;
    });
    if (g.best.size() > filter.top) g.best.resize(filter.top);
    out.push_back(std::move(g));
  }
  return out;
}

nlohmann::json store_list_json(const ResultsStore& store) {
  nlohmann::json spaces = nlohmann::json::array();
  for (const StoredSpace& s : store.spaces()) {
    nlohmann::json parameters = nlohmann::json::array();
    for (const auto& p : s.origin.problem.parameters) parameters.push_back(p.name);
    spaces.push_back({{"id", s.id},
                      {"kernel", s.origin.kernel_name},
                      {"device", s.origin.device_name},
                      {"problem_size", s.origin.problem_size},
                      {"parameters", std::move(parameters)},
                      {"objectives", s.origin.objectives},
                      {"higher_is_better", s.higher_is_better},
                      {"provenance", s.origin.provenance},
                      {"format", s.origin.format},
                      {"records", s.records},
                      {"ok_records", s.ok_records},
                      {"sessions", s.sessions},
                      {"first_started", s.first_started},
                      {"last_started", s.last_started}});
  }
  return {{"store", store.path()}, {"spaces", std::move(spaces)}};
}

void write_store_list(std::ostream& out, const ResultsStore& store) {
  const auto spaces = store.spaces();
  out << fmt::format("{}: {} space{}\n", store.path(), spaces.size(), spaces.size() == 1 ? "" : "s");
  for (const StoredSpace& s : spaces) {
    out << fmt::format("  [{}] {} on {}, {}: {} records ({} ok), {} session{}, {} parameters, from {}{}\n", s.id,
                       s.origin.kernel_name.empty() ? "(no kernel name)" : s.origin.kernel_name,
                       s.origin.device_name.empty() ? "(no device name)" : s.origin.device_name,
                       size_text(s.origin.problem_size), s.records, s.ok_records, s.sessions,
                       s.sessions == 1 ? "" : "s", s.origin.problem.parameters.size(), s.origin.format,
                       s.last_started.empty() ? "" : ", last " + s.last_started);
  }
}

nlohmann::json store_best_json(const ResultsStore& store, const std::vector<BestGroup>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const BestGroup& g : groups) {
    nlohmann::json best = nlohmann::json::array();
    for (const BestRecord& b : g.best) {
      nlohmann::json config = nlohmann::json::object();
      for (std::size_t p = 0; p < g.parameters.size() && p < b.record.config.size(); ++p)
        config[g.parameters[p]] = report_value(b.record.config[p]);
      nlohmann::json measurements = nlohmann::json::object();
      for (const auto& m : b.record.measurements) measurements[m.name] = report_value(m.value);
      best.push_back({{"value", io::number_or_null(b.value)},
                      {"configuration", std::move(config)},
                      {"space", b.space},
                      {"timestamp", b.record.timestamp},
                      {"measurements", std::move(measurements)}});
    }
    out.push_back({{"kernel", g.kernel_name},
                   {"device", g.device_name},
                   {"problem_size", g.problem_size},
                   {"objective", g.objective},
                   {"higher_is_better", g.higher_is_better},
                   {"spaces", g.spaces},
                   {"records", g.records},
                   {"best", std::move(best)}});
  }
  return {{"store", store.path()}, {"groups", std::move(out)}};
}

void write_store_best(std::ostream& out, const std::vector<BestGroup>& groups) {
  for (const BestGroup& g : groups) {
    out << fmt::format("{} on {}, {} ({} records):\n", g.kernel_name.empty() ? "(no kernel name)" : g.kernel_name,
                       g.device_name.empty() ? "(no device name)" : g.device_name, size_text(g.problem_size),
                       g.records);
    if (g.best.empty()) out << fmt::format("  no successful record with {}\n", g.objective);
    for (const BestRecord& b : g.best) {
      std::string config;
      for (std::size_t p = 0; p < g.parameters.size() && p < b.record.config.size(); ++p)
        config += fmt::format("{}{}={}", p ? " " : "", g.parameters[p], b.record.config[p].repr());
      out << fmt::format("  {} = {:.6g}  {}\n", g.objective, b.value, config);
    }
  }
}

}  // namespace ktune::store
