// `ktune pareto RESULTS --objectives a,b`: the true Pareto front of a brute-forced results file (Kernel Tuner cache
// or T4) with its ideal and nadir points and hypervolume, and the indicators of runs (their own results files)
// against it: IGD+ and hypervolume, normalised by the true front's ideal and nadir.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/io/derived_measurements.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/multiobjective/indicators.hpp"
#include "ktune/multiobjective/pareto.hpp"
#include "ktune/tuning/objective.hpp"
#include "ktune/tuning/trace.hpp"

namespace ktune::cli {
namespace {

constexpr double kReference = 1.1;  // hypervolume reference point in the normalised space (as compare)

struct ParetoOptions {
  std::string results_path;
  std::vector<std::string> objectives, derived, runs;
  bool json = false;
  std::size_t limit = 50;  // rows of the front printed
};

struct Points {
  std::vector<double> costs;           // row-major, one row per successful record with every objective
  std::vector<std::size_t> records;    // record index per row
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

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

int run_pareto(const ParetoOptions& o) {
  const auto fail = [](const std::string& message, int code) {
    std::cerr << "ktune pareto: error: " << message << "\n";
    return code;
  };
  std::vector<Objective> objectives;
  std::vector<io::DerivedMeasurement> derived;
  try {
    objectives = parse_objectives(o.objectives);
    for (const auto& text : o.derived) derived.push_back(io::parse_derived_measurement(text));
  } catch (const std::invalid_argument& e) {
    return fail(e.what(), kExitUsage);
  }
  if (objectives.size() < 2) return fail("give at least two objectives with --objectives a,b", kExitUsage);
  const std::size_t m = objectives.size();
  try {
    auto load = [&](const std::string& path) {
      io::ResultsFile f = io::read_results_file(path);
      // A run tuned with the same --derive recorded the measurement already (ktune tune writes it out).
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
    };
    const io::ResultsFile results = load(o.results_path);
    const Points all = points_of(results, objectives);
    if (all.records.empty())
      throw io::InputError(o.results_path, "",
                           fmt::format("no successful record has every objective ({})", [&] {
                             std::string t;
                             for (const auto& obj : objectives) t += (t.empty() ? "" : ", ") + obj.name;
                             return t;
                           }()));
    auto front = pareto_front(all.costs, m);
    std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
      return std::lexicographical_compare(all.costs.begin() + static_cast<std::ptrdiff_t>(a * m),
                                          all.costs.begin() + static_cast<std::ptrdiff_t>(a * m + m),
                                          all.costs.begin() + static_cast<std::ptrdiff_t>(b * m),
                                          all.costs.begin() + static_cast<std::ptrdiff_t>(b * m + m));
    });
    std::vector<double> front_costs;
    for (std::size_t i : front)
      front_costs.insert(front_costs.end(), all.costs.begin() + static_cast<std::ptrdiff_t>(i * m),
                         all.costs.begin() + static_cast<std::ptrdiff_t>(i * m + m));
    std::vector<double> ideal(m, std::numeric_limits<double>::infinity()),
        nadir(m, -std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < front.size(); ++k)
      for (std::size_t j = 0; j < m; ++j) {
        ideal[j] = std::min(ideal[j], front_costs[k * m + j]);
        nadir[j] = std::max(nadir[j], front_costs[k * m + j]);
      }
    auto normalised = [&](const std::vector<double>& costs) {
      std::vector<double> n(costs.size());
      for (std::size_t i = 0; i < costs.size(); ++i) {
        const std::size_t j = i % m;
        const double range = nadir[j] - ideal[j];
        n[i] = (costs[i] - ideal[j]) / (range > 0 ? range : 1.0);
      }
      return n;
    };
    const std::vector<double> ref(m, kReference);
    const auto front_n = normalised(front_costs);
    const double front_hv = hypervolume(front_n, m, ref);
    auto value_of = [&](double cost, std::size_t j) { return objectives[j].higher_is_better ? -cost : cost; };

    nlohmann::json out;
    nlohmann::json objs = nlohmann::json::array();
    for (const auto& obj : objectives) objs.push_back({{"name", obj.name}, {"higher_is_better", obj.higher_is_better}});
    out["objectives"] = objs;
    out["file"] = o.results_path;
    out["records"] = results.records.size();
    out["configurations"] = all.records.size();
    nlohmann::json jf = nlohmann::json::array(), ji = nlohmann::json::array(), jn = nlohmann::json::array();
    for (std::size_t j = 0; j < m; ++j) {
      ji.push_back(number(value_of(ideal[j], j)));
      jn.push_back(number(value_of(nadir[j], j)));
    }
    for (std::size_t k = 0; k < front.size(); ++k) {
      const auto& rec = results.records[all.records[front[k]]];
      nlohmann::json config = nlohmann::json::object(), values = nlohmann::json::object();
      for (std::size_t p = 0; p < results.problem.parameters.size(); ++p)
        config[results.problem.parameters[p].name] = io::value_to_json(rec.config[p]);
      for (std::size_t j = 0; j < m; ++j) values[objectives[j].name] = number(value_of(front_costs[k * m + j], j));
      jf.push_back({{"configuration", config}, {"objectives", values}});
    }
    out["front"] = jf;
    out["ideal"] = ji;
    out["nadir"] = jn;
    out["hypervolume"] = number(front_hv);
    out["hypervolume_reference"] = kReference;

    nlohmann::json runs = nlohmann::json::array();
    for (const auto& path : o.runs) {
      const io::ResultsFile run = load(path);
      const Points p = points_of(run, objectives);
      const auto pn = normalised(p.costs);
      const auto run_front = pareto_front(p.costs, m);
      // True front points the run found (same objective vector).
      std::size_t found = 0;
      for (std::size_t k = 0; k < front.size(); ++k)
        for (std::size_t i : run_front)
          if (std::equal(p.costs.begin() + static_cast<std::ptrdiff_t>(i * m),
                         p.costs.begin() + static_cast<std::ptrdiff_t>(i * m + m),
                         front_costs.begin() + static_cast<std::ptrdiff_t>(k * m))) {
            ++found;
            break;
          }
      runs.push_back({{"file", path},
                      {"evaluated", p.records.size()},
                      {"front_size", run_front.size()},
                      {"true_front_points_found", found},
                      {"igd_plus", number(p.records.empty() ? std::numeric_limits<double>::infinity()
                                                            : igd_plus(pn, front_n, m))},
                      {"hypervolume", number(hypervolume(pn, m, ref))}});
    }
    out["runs"] = runs;

    if (o.json) {
      std::cout << out.dump(2) << "\n";
      return kExitOk;
    }
    std::cout << fmt::format("{}: {} configurations with every objective; true Pareto front: {} points\n",
                             o.results_path, all.records.size(), front.size());
    std::string header = " ";
    for (const auto& obj : objectives) header += fmt::format("  {:>12}", obj.name);
    std::cout << header << "  configuration\n";
    for (std::size_t k = 0; k < std::min(front.size(), o.limit); ++k) {
      std::string row = " ";
      for (std::size_t j = 0; j < m; ++j) row += fmt::format("  {:>12.6g}", value_of(front_costs[k * m + j], j));
      const auto& rec = results.records[all.records[front[k]]];
      std::string config;
      for (std::size_t p = 0; p < rec.config.size(); ++p)
        config += fmt::format("{}{}={}", p ? " " : "", results.problem.parameters[p].name, rec.config[p].repr());
      std::cout << row << "  " << config << "\n";
    }
    if (front.size() > o.limit) std::cout << fmt::format("  ... {} more (--limit, or --json)\n", front.size() - o.limit);
    std::string ideal_text, nadir_text;
    for (std::size_t j = 0; j < m; ++j) {
      ideal_text += fmt::format("{}{:.6g}", j ? ", " : "", value_of(ideal[j], j));
      nadir_text += fmt::format("{}{:.6g}", j ? ", " : "", value_of(nadir[j], j));
    }
    std::cout << fmt::format("ideal ({}), nadir ({}); hypervolume {:.6g} (normalised, reference {} per objective)\n",
                             ideal_text, nadir_text, front_hv, kReference);
    for (const auto& r : runs)
      std::cout << fmt::format("run {}: {} evaluated, front {} points ({} of the true front), IGD+ {:.6g}, "
                               "hypervolume {:.6g}\n",
                               r["file"].get<std::string>(), r["evaluated"].get<std::size_t>(),
                               r["front_size"].get<std::size_t>(), r["true_front_points_found"].get<std::size_t>(),
                               r["igd_plus"].is_null() ? std::nan("") : r["igd_plus"].get<double>(),
                               r["hypervolume"].is_null() ? std::nan("") : r["hypervolume"].get<double>());
    return kExitOk;
  } catch (const io::InputError& e) {
    return fail(e.what(), kExitInputError);
  } catch (const std::invalid_argument& e) {
    return fail(e.what(), kExitInputError);
  }
}

}  // namespace

Command add_pareto_command(CLI::App& app) {
  auto o = std::make_shared<ParetoOptions>();
  CLI::App* sub = app.add_subcommand(
      "pareto", "The true Pareto front of a brute-forced results file, and IGD+/hypervolume of runs against it");
  sub->add_option("results", o->results_path, "Brute-forced Kernel Tuner cache or T4 file")->required();
  sub->add_option("--objectives", o->objectives,
                  "Objectives NAME[:min|:max] (at least two; comma-separated or repeated)")
      ->required();
  sub->add_option("--derive", o->derived,
                  "NAME=EXPRESSION: a measurement computed from each record's parameters and measurements");
  sub->add_option("--runs", o->runs, "Results files of runs (T4 from ktune tune --output, or caches) to score");
  sub->add_option("--limit", o->limit, "Front rows printed")->capture_default_str()->check(whole_number(0, kLargeCount));
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  return {sub, [o] { return run_pareto(*o); }};
}

}  // namespace ktune::cli
