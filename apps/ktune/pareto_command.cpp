// `ktune pareto RESULTS --objectives a,b`: the true Pareto front of a brute-forced results file (Kernel Tuner cache
// or T4) with its ideal and nadir points and hypervolume, and the indicators of runs (their own results files)
// against it: IGD+ and hypervolume, normalised by the true front's ideal and nadir.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/jobs/pareto_analysis.hpp"
#include "ktune/multiobjective/front_normalisation.hpp"

namespace ktune::cli {
namespace {

struct ParetoOptions {
  ParetoRequest request;
  bool json = false;
  std::size_t limit = 50;  // rows of the front printed
};

int run_pareto(const ParetoOptions& o) {
  ParetoAnalysis a;
  try {
    a = analyse_pareto(o.request);
  } catch (const JobError& e) {
    std::cerr << "ktune pareto: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  }
  if (o.json) {
    std::cout << pareto_report_json(a).dump(2) << "\n";
    return kExitOk;
  }
  const std::size_t m = a.objectives.size();
  std::cout << fmt::format("{}: {} configurations with every objective; true Pareto front: {} points\n", a.file,
                           a.configurations, a.front.size());
  std::string header = " ";
  for (const auto& obj : a.objectives) header += fmt::format("  {:>12}", obj.name);
  std::cout << header << "  configuration\n";
  for (std::size_t k = 0; k < std::min(a.front.size(), o.limit); ++k) {
    std::string row = " ";
    for (double v : a.front[k].values) row += fmt::format("  {:>12.6g}", v);
    std::string config;
    for (std::size_t p = 0; p < a.parameters.size(); ++p)
      config += fmt::format("{}{}={}", p ? " " : "", a.parameters[p], a.front[k].configuration[p].repr());
    std::cout << row << "  " << config << "\n";
  }
  if (a.front.size() > o.limit) std::cout << fmt::format("  ... {} more (--limit, or --json)\n", a.front.size() - o.limit);
  std::string ideal_text, nadir_text;
  for (std::size_t j = 0; j < m; ++j) {
    ideal_text += fmt::format("{}{:.6g}", j ? ", " : "", a.ideal[j]);
    nadir_text += fmt::format("{}{:.6g}", j ? ", " : "", a.nadir[j]);
  }
  std::cout << fmt::format("ideal ({}), nadir ({}); hypervolume {:.6g} (normalised, reference {} per objective)\n",
                           ideal_text, nadir_text, a.hypervolume, kHypervolumeReference);
  const auto shown = [](double v) { return std::isfinite(v) ? v : std::nan(""); };
  for (const auto& r : a.runs)
    std::cout << fmt::format("run {}: {} evaluated, front {} points ({} of the true front), IGD+ {:.6g} (IGD {:.6g}, "
                             "GD {:.6g}, GD+ {:.6g}), hypervolume {:.6g}\n",
                             r.file, r.evaluated, r.front_size, r.true_front_points_found, shown(r.igd_plus),
                             shown(r.igd), shown(r.gd), shown(r.gd_plus), r.hypervolume);
  return kExitOk;
}

}  // namespace

Command add_pareto_command(CLI::App& app) {
  auto o = std::make_shared<ParetoOptions>();
  CLI::App* sub = app.add_subcommand(
      "pareto", "The true Pareto front of a brute-forced results file, and IGD+/hypervolume of runs against it");
  sub->add_option("results", o->request.results_path, "Brute-forced Kernel Tuner cache or T4 file")->required();
  sub->add_option("--objectives", o->request.objectives,
                  "Objectives NAME[:min|:max] (at least two; comma-separated or repeated)")
      ->required();
  sub->add_option("--derive", o->request.derived,
                  "NAME=EXPRESSION: a measurement computed from each record's parameters and measurements");
  sub->add_option("--runs", o->request.runs, "Results files of runs (T4 from ktune tune --output, or caches) to score");
  sub->add_option("--limit", o->limit, "Front rows printed")->capture_default_str()->check(whole_number(0, kLargeCount));
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  return {sub, [o] { return run_pareto(*o); }};
}

}  // namespace ktune::cli
