#include "ktune/jobs/pareto_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/io/derived_measurements.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/multiobjective/front_normalisation.hpp"
#include "ktune/multiobjective/indicators.hpp"
#include "ktune/multiobjective/pareto.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/trace.hpp"

namespace ktune {
namespace {

// Costs (row-major, every objective minimised) of the successful records that have every objective.
struct Points {
  std::vector<double> costs;
  std::vector<std::size_t> records;  // record index per row
};

Points points_of(const io::ResultsFile& results, const std::vector<Objective>& objectives) {
  Points p;
  for (std::size_t r = 0; r < results.records.size(); ++r) {
    const auto& rec = results.records[r];
    if (rec.status != Status::ok) continue;
    std::vector<double> row;
    for (const auto& obj : objectives) {
      const auto v = rec.objective(obj.name);
      if (!v) break;
      row.push_back(objective_cost(obj, *v));
    }
    if (row.size() != objectives.size()) continue;
    p.costs.insert(p.costs.end(), row.begin(), row.end());
    p.records.push_back(r);
  }
  return p;
}

// A results file with the derived measurements it lacks (a run tuned with the same --derive recorded them already).
io::ResultsFile load(const std::string& path, const std::vector<io::DerivedMeasurement>& derived) {
  io::ResultsFile f = io::read_results_file(path);
  std::vector<io::DerivedMeasurement> missing;
  for (const auto& d : derived)
    if (std::none_of(f.records.begin(), f.records.end(), [&](const EvaluationRecord& r) { return r.find(d.name); }))
      missing.push_back(d);
  try {
    io::add_derived_measurements(f, missing);
  } catch (const std::invalid_argument& e) {
    throw io::InputError(path, "", e.what());
  }
  return f;
}

// The problem size as a list of strings, numbers and numeric strings alike, trailing 1s dropped: Kernel Tuner stores
// 100000, [100000] or ["100000", "1", "1"] for the same size.
std::vector<std::string> size_terms(const nlohmann::json& size) {
  std::vector<std::string> terms;
  const auto add = [&](const nlohmann::json& j) { terms.push_back(j.is_string() ? j.get<std::string>() : j.dump()); };
  if (size.is_array()) {
    for (const auto& item : size) add(item);
  } else if (!size.is_null()) {
    add(size);
  }
  while (!terms.empty() && terms.back() == "1") terms.pop_back();
  return terms;
}

// A run scored against the true front must be a run of the same kernel on the same device and problem size, over
// the same space: its measurements mean nothing against another's front. Refuses naming both values.
void check_run_matches(const io::ResultsFile& truth, const std::string& truth_path, const io::ResultsFile& run,
                       const std::string& run_path) {
  const auto refuse = [&](const std::string& why) {
    throw io::InputError(run_path, "", fmt::format("not a run of the space of {}: {}", truth_path, why));
  };
  const auto differ = [&](const char* what, const std::string& ours, const std::string& theirs) {
    if (!ours.empty() && !theirs.empty() && ours != theirs)
      refuse(fmt::format("its {} is '{}', that of {} is '{}'", what, theirs, truth_path, ours));
  };
  differ("kernel", truth.kernel_name, run.kernel_name);
  differ("device", truth.device_name, run.device_name);
  const auto ours = size_terms(truth.problem_size), theirs = size_terms(run.problem_size);
  if (!ours.empty() && !theirs.empty() && ours != theirs)
    refuse(fmt::format("its problem size is {}, that of {} is {}", run.problem_size.dump(), truth_path,
                       truth.problem_size.dump()));
  // The same parameters (in any order), and every configuration it measured one of the true file's.
  std::vector<std::size_t> column;
  for (const auto& p : truth.problem.parameters) {
    const auto at = run.problem.parameter_index(p.name);
    if (!at || run.problem.parameters.size() != truth.problem.parameters.size())
      refuse(fmt::format("its parameters are ({}), those of {} are ({})",
                         fmt::join(run.problem.parameter_names(), ", "), truth_path,
                         fmt::join(truth.problem.parameter_names(), ", ")));
    column.push_back(*at);
  }
  std::unordered_set<std::string> known;
  for (const auto& r : truth.records) known.insert(io::kernel_tuner_key(r.config));
  std::vector<Value> config(column.size());
  for (const auto& r : run.records) {
    if (r.status == Status::invalid) continue;
    for (std::size_t p = 0; p < column.size(); ++p) config[p] = r.config[column[p]];
    if (const std::string key = io::kernel_tuner_key(config); !known.contains(key))
      refuse(fmt::format("its configuration {} is not in {} (the same parameters with other values)", key, truth_path));
  }
}

std::span<const double> row(const std::vector<double>& costs, std::size_t i, std::size_t m) {
  return {costs.data() + i * m, m};
}

ParetoAnalysis analyse(const ParetoRequest& request, const std::vector<Objective>& objectives,
                       const std::vector<io::DerivedMeasurement>& derived) {
  const std::size_t m = objectives.size();
  ParetoAnalysis out;
  out.objectives = objectives;
  out.file = request.results_path;
  const io::ResultsFile results = load(request.results_path, derived);
  for (const auto& obj : objectives) check_time_not_stood_in(results, obj.name);
  for (const auto& p : results.problem.parameters) out.parameters.push_back(p.name);
  const Points all = points_of(results, objectives);
  out.records = results.records.size();
  out.configurations = all.records.size();
  if (all.records.empty()) {
    std::string names;
    for (const auto& obj : objectives) names += (names.empty() ? "" : ", ") + obj.name;
    throw io::InputError(request.results_path, "", fmt::format("no successful record has every objective ({})", names));
  }
  auto front = pareto_front(all.costs, m);
  std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
    const auto ra = row(all.costs, a, m), rb = row(all.costs, b, m);
    return std::lexicographical_compare(ra.begin(), ra.end(), rb.begin(), rb.end());
  });
  std::vector<double> front_costs;
  for (std::size_t i : front) {
    const auto r = row(all.costs, i, m);
    front_costs.insert(front_costs.end(), r.begin(), r.end());
  }
  auto value_of = [&](double cost, std::size_t j) { return objectives[j].higher_is_better ? -cost : cost; };
  for (std::size_t k = 0; k < front.size(); ++k) {
    ParetoPoint point;
    point.configuration = results.records[all.records[front[k]]].config;
    for (std::size_t j = 0; j < m; ++j) point.values.push_back(value_of(front_costs[k * m + j], j));
    out.front.push_back(std::move(point));
  }
  const FrontNormalisation normalise(front_costs, m);
  for (std::size_t j = 0; j < m; ++j) {
    out.ideal.push_back(value_of(normalise.ideal()[j], j));
    out.nadir.push_back(value_of(normalise.nadir()[j], j));
  }
  const std::vector<double> ref = normalise.hypervolume_reference();
  const auto front_n = normalise(front_costs);
  out.hypervolume = hypervolume(front_n, m, ref);

  for (const auto& path : request.runs) {
    const io::ResultsFile run = load(path, derived);
    check_run_matches(results, request.results_path, run, path);
    for (const auto& obj : objectives) check_time_not_stood_in(run, obj.name);
    const Points p = points_of(run, objectives);
    const auto pn = normalise(p.costs);
    const auto run_front = pareto_front(p.costs, m);
    ParetoRunScore score;
    score.file = path;
    score.evaluated = p.records.size();
    score.front_size = run_front.size();
    for (std::size_t k = 0; k < front.size(); ++k)
      for (std::size_t i : run_front) {
        const auto r = row(p.costs, i, m), f = row(front_costs, k, m);
        if (std::equal(r.begin(), r.end(), f.begin())) {
          ++score.true_front_points_found;
          break;
        }
      }
    const double none = std::numeric_limits<double>::infinity();
    score.igd_plus = p.records.empty() ? none : igd_plus(pn, front_n, m);
    score.igd = p.records.empty() ? none : igd(pn, front_n, m);
    score.gd = p.records.empty() ? none : gd(pn, front_n, m);
    score.gd_plus = p.records.empty() ? none : gd_plus(pn, front_n, m);
    score.hypervolume = hypervolume(pn, m, ref);
    out.runs.push_back(std::move(score));
  }
  return out;
}

}  // namespace

ParetoAnalysis analyse_pareto(const ParetoRequest& request) {
  std::vector<Objective> objectives;
  std::vector<io::DerivedMeasurement> derived;
  try {
    objectives = parse_objectives(request.objectives);
    for (const auto& text : request.derived) derived.push_back(io::parse_derived_measurement(text));
  } catch (const std::invalid_argument& e) {
    throw JobError(JobError::Kind::request, e.what());
  }
  if (objectives.size() < 2) throw JobError(JobError::Kind::request, "give at least two objectives with --objectives a,b");
  try {
    return analyse(request, objectives, derived);
  } catch (const io::InputError& e) {
    throw JobError(JobError::Kind::input, e.what());
  } catch (const SimulationError& e) {
    throw JobError(JobError::Kind::input, e.what());
  } catch (const std::invalid_argument& e) {
    throw JobError(JobError::Kind::input, e.what());
  }
}

nlohmann::json pareto_report_json(const ParetoAnalysis& a) {
  nlohmann::json out;
  nlohmann::json objs = nlohmann::json::array();
  for (const auto& obj : a.objectives) objs.push_back({{"name", obj.name}, {"higher_is_better", obj.higher_is_better}});
  out["objectives"] = objs;
  out["file"] = a.file;
  out["records"] = a.records;
  out["configurations"] = a.configurations;
  nlohmann::json front = nlohmann::json::array(), ideal = nlohmann::json::array(), nadir = nlohmann::json::array();
  for (std::size_t j = 0; j < a.objectives.size(); ++j) {
    ideal.push_back(io::number_or_null(a.ideal[j]));
    nadir.push_back(io::number_or_null(a.nadir[j]));
  }
  for (const auto& point : a.front) {
    nlohmann::json config = nlohmann::json::object(), values = nlohmann::json::object();
    for (std::size_t p = 0; p < a.parameters.size(); ++p) config[a.parameters[p]] = io::value_to_json(point.configuration[p]);
    for (std::size_t j = 0; j < a.objectives.size(); ++j) values[a.objectives[j].name] = io::number_or_null(point.values[j]);
    front.push_back({{"configuration", config}, {"objectives", values}});
  }
  out["front"] = front;
  out["ideal"] = ideal;
  out["nadir"] = nadir;
  out["hypervolume"] = io::number_or_null(a.hypervolume);
  out["hypervolume_reference"] = kHypervolumeReference;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : a.runs)
    runs.push_back({{"file", r.file},
                    {"evaluated", r.evaluated},
                    {"front_size", r.front_size},
                    {"true_front_points_found", r.true_front_points_found},
                    {"igd_plus", io::number_or_null(r.igd_plus)},
                    {"igd", io::number_or_null(r.igd)},
                    {"gd", io::number_or_null(r.gd)},
                    {"gd_plus", io::number_or_null(r.gd_plus)},
                    {"hypervolume", io::number_or_null(r.hypervolume)}});
  out["runs"] = runs;
  return out;
}

}  // namespace ktune
