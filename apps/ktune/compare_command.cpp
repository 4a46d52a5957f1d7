// `ktune compare`: strategies scored by the community methodology on brute-forced spaces (simulation), or with
// --stats only the spaces' statistics. Tables for people, --json for programs, --output for the whole report (curves
// included), --plot for SVG figures.
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "number_options.hpp"
#include "progress_line.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/io/derived_measurements.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/external_runs.hpp"
#include "ktune/methodology/multiobjective_comparison.hpp"
#include "ktune/methodology/svg_report.hpp"
#include "ktune/tuning/hyperparameters.hpp"

namespace ktune::cli {
namespace {

using namespace ktune::methodology;

struct CompareOptions {
  std::vector<std::string> spaces, strategies, runs, objectives, derived;
  ComparisonOptions options;
  std::size_t budget = 200;                // multi-objective: evaluations per run
  std::vector<std::size_t> checkpoints;    // multi-objective
  bool stats_only = false, json = false, quiet = false;
  std::string output_path, plot_dir;
};

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json stats_json(const SpaceResult& s) {
  const auto& st = s.stats;
  return {{"N_all", st.size_all()},
          {"valid", st.size_valid()},
          {"minimization", st.minimization()},
          {"optimum", st.optimum()},
          {"median", st.median()},
          {"median_time", st.median_time()},
          {"mean_time", st.mean_time()},
          {"mean_per_feval", st.mean_time_per_feval()},
          {"fevals_start", s.range.fevals_start},
          {"fevals_end", s.range.fevals_end},
          {"time_start", s.range.time_start},
          {"time_end", s.range.time_end},
          {"budget_seconds", s.budget_seconds}};
}

nlohmann::json series(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(number(x));
  return a;
}

nlohmann::json summary_json(const ComparisonReport& report, bool with_curves) {
  nlohmann::json spaces = nlohmann::json::array();
  for (const auto& s : report.spaces) {
    nlohmann::json j{{"name", s.name}, {"stats", stats_json(s)}};
    nlohmann::json scores = nlohmann::json::object();
    for (const auto& st : s.strategies) scores[st.strategy] = number(st.score);
    j["scores"] = scores;
    if (with_curves) {
      j["time_points"] = series(s.time_points);
      j["baseline"] = series(s.baseline);
      nlohmann::json curves = nlohmann::json::object();
      for (const auto& st : s.strategies)
        curves[st.strategy] = {{"curve", series(st.curve.values)},
                               {"performance", series(st.performance)},
                               {"real_stopping_fraction", st.curve.real_stopping_fraction},
                               {"runs", st.runs.size()},
                               {"pooled_points", st.curve.pooled_points}};
      j["strategies"] = curves;
    }
    spaces.push_back(std::move(j));
  }
  nlohmann::json aggregate = nlohmann::json::object();
  for (const auto& a : report.aggregate) {
    aggregate[a.strategy] = {{"score", number(a.score)},
                             {"error", number(a.error)},
                             {"real_stopping_fraction", a.real_stopping_fraction}};
    if (with_curves) aggregate[a.strategy]["performance"] = series(a.performance);
  }
  nlohmann::json j{{"spaces", spaces}, {"aggregate", aggregate}};
  if (report.interrupted)
    j["interrupted"] = {{"runs_finished", report.runs_finished}, {"runs_total", report.runs_total}};
  return j;
}

void print_stats(const std::vector<SpaceResult>& spaces) {
  std::cout << fmt::format("{:<28} {:>6} {:>6} {:>11} {:>11} {:>11} {:>16} {:>9} {:>9}\n", "space", "N_all", "valid",
                           "optimum", "median", "fevals", "time (s)", "s/eval", "budget s");
  for (const auto& s : spaces) {
    const auto& st = s.stats;
    std::cout << fmt::format("{:<28} {:>6} {:>6} {:>11.6g} {:>11.6g} {:>11} {:>16} {:>9.4g} {:>9.5g}\n", s.name,
                             st.size_all(), st.size_valid(), st.optimum(), st.median(),
                             fmt::format("{}..{}", s.range.fevals_start, s.range.fevals_end),
                             fmt::format("{:.2f}..{:.1f}", s.range.time_start, s.range.time_end), st.median_time(),
                             s.budget_seconds);
  }
}

void print_scores(const ComparisonReport& report, const CompareOptions& o) {
  std::size_t width = 20;
  for (const auto& s : report.strategies) width = std::max(width, s.size() + 2);
  std::cout << fmt::format("Performance score P (mean over {} time points; 0 = random search, 1 = optimum)\n",
                           o.options.resolution);
  std::cout << fmt::format("{:<28}", "space");
  for (const auto& s : report.strategies) std::cout << fmt::format("{:>{}}", s, width);
  std::cout << "\n";
  for (const auto& space : report.spaces) {
    std::cout << fmt::format("{:<28}", space.name);
    for (const auto& st : space.strategies) {
      const std::string stop = st.curve.real_stopping_fraction < 1
                                   ? fmt::format(" (stops {:.0f}%)", 100 * st.curve.real_stopping_fraction)
                                   : "";
      std::cout << fmt::format("{:>{}}", std::isnan(st.score) ? "-" : fmt::format("{:.3f}{}", st.score, stop), width);
    }
    std::cout << "\n";
  }
  std::cout << fmt::format("{:<28}", "aggregate");
  for (const auto& a : report.aggregate)
    std::cout << fmt::format("{:>{}}", std::isnan(a.score) ? "-" : fmt::format("{:.3f} ± {:.3f}", a.score, a.error),
                             width + (std::isnan(a.score) ? 0 : 1));
  std::cout << fmt::format("\n{} runs per strategy and space, seed {}; runs {:.1f} s, scoring {:.1f} s\n",
                           o.options.repeats, o.options.seed, report.run_seconds, report.scoring_seconds);
  if (report.interrupted)
    std::cout << fmt::format("interrupted: {} of {} runs finished; '-' marks what was not scored\n",
                             report.runs_finished, report.runs_total);
}

nlohmann::json mo_json(const MoComparisonReport& report, bool with_curves) {
  nlohmann::json spaces = nlohmann::json::array();
  for (const auto& s : report.spaces) {
    nlohmann::json j{{"name", s.name},
                     {"configurations", s.configurations},
                     {"true_front_size", s.true_front.size()},
                     {"ideal", series(s.ideal)},
                     {"nadir", series(s.nadir)},
                     {"true_front_hypervolume", number(s.true_front_hypervolume)}};
    nlohmann::json st = nlohmann::json::object();
    for (const auto& on : s.strategies) {
      nlohmann::json x{{"improvement", series(on.improvement)},
                       {"evaluations_to_match", number(on.evaluations_to_match)},
                       {"median_hypervolume", number(on.median_hypervolume)}};
      nlohmann::json at = nlohmann::json::array();
      for (std::size_t c : report.checkpoints) at.push_back(number(on.median_igd[c - 1]));
      x["median_igd"] = at;
      if (with_curves) {
        x["median_igd_curve"] = series(on.median_igd);
        nlohmann::json front = nlohmann::json::array();
        for (const auto& p : on.final_front) front.push_back(series(p));
        x["typical_front"] = front;
      }
      st[on.strategy] = std::move(x);
    }
    j["strategies"] = std::move(st);
    if (with_curves) {
      nlohmann::json front = nlohmann::json::array();
      for (const auto& p : s.true_front) front.push_back(series(p));
      j["true_front"] = front;
    }
    spaces.push_back(std::move(j));
  }
  nlohmann::json aggregate = nlohmann::json::object();
  for (const auto& a : report.aggregate)
    aggregate[a.strategy] = {{"improvement", series(a.improvement)},
                             {"evaluations_to_match", number(a.evaluations_to_match)}};
  return {{"checkpoints", report.checkpoints}, {"baseline", report.baseline}, {"spaces", spaces},
          {"aggregate", aggregate}};
}

void print_mo(const MoComparisonReport& report, const CompareOptions& o) {
  std::size_t width = 16;
  for (const auto& s : report.strategies) width = std::max(width, s.size() + 2);
  std::string cps;
  for (std::size_t c : report.checkpoints) cps += fmt::format("{}{}", cps.empty() ? "" : "/", c);
  std::cout << fmt::format("Median normalised IGD+ after {} evaluations (lower is better), {} runs each\n", cps,
                           o.options.repeats);
  for (const auto& space : report.spaces) {
    std::cout << fmt::format("{} ({} configurations, true front {} points)\n", space.name, space.configurations,
                             space.true_front.size());
    for (const auto& on : space.strategies) {
      std::string igd, imp;
      for (std::size_t c = 0; c < report.checkpoints.size(); ++c) {
        igd += fmt::format("{:>9.4f}", on.median_igd[report.checkpoints[c] - 1]);
        imp += fmt::format("{:>7.0f}%", 100 * on.improvement[c]);
      }
      std::cout << fmt::format("  {:<{}}{}   vs {}:{}   to match: {:.0f}%\n", on.strategy, width, igd,
                               report.baseline, imp, 100 * on.evaluations_to_match);
    }
  }
  std::cout << fmt::format("Aggregate (median over spaces): improvement over {} at {} evaluations; evaluations "
                           "needed to match its IGD+ at {}\n",
                           report.baseline, cps, report.checkpoints.empty() ? 0 : o.budget);
  for (const auto& a : report.aggregate) {
    std::string imp;
    for (double v : a.improvement) imp += fmt::format("{:>7.0f}%", 100 * v);
    std::cout << fmt::format("  {:<{}}{}   to match: {:.0f}%\n", a.strategy, width, imp, 100 * a.evaluations_to_match);
  }
  std::cout << fmt::format("seed {}; {:.1f} s\n", o.options.seed, report.run_seconds);
}

int run_compare(CompareOptions o) {
  const auto fail = [](const std::string& message, int code) {
    std::cerr << "ktune compare: error: " << message << "\n";
    return code;
  };
  if (o.spaces.empty()) return fail("give the brute-forced spaces with --spaces FILE...", kExitUsage);
  if (!o.stats_only && o.strategies.empty() && o.runs.empty())
    return fail("give the strategies with --strategies SPEC... (or --stats)", kExitUsage);
  if (!(o.options.cutoff_end > 0 && o.options.cutoff_end <= 1) ||
      !(o.options.cutoff_start >= 0 && o.options.cutoff_start < o.options.cutoff_end))
    return fail("cutoffs must satisfy 0 <= --cutoff-start < --cutoff <= 1", kExitUsage);
  if (o.options.resolution < 2) return fail("--resolution must be at least 2", kExitUsage);

  std::vector<StrategySpec> strategies;
  std::vector<std::pair<std::string, std::string>> runs;
  try {
    for (const auto& text : o.strategies) strategies.push_back(parse_strategy_spec(text));
    for (const auto& text : o.runs) {
      const auto eq = text.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        return fail(fmt::format("--runs '{}': expected NAME=FILE", text), kExitUsage);
      runs.emplace_back(text.substr(0, eq), text.substr(eq + 1));
    }
  } catch (const HyperparameterError& e) {
    return fail(e.what(), kExitUsage);
  }

  try {
    auto spaces = load_spaces(o.spaces, o.options.threads);
    if (!o.derived.empty()) {
      std::vector<io::DerivedMeasurement> derived;
      for (const auto& text : o.derived) derived.push_back(io::parse_derived_measurement(text));
      for (auto& space : spaces) {
        auto copy = std::make_shared<io::ResultsFile>(*space.results);
        try {
          io::add_derived_measurements(*copy, derived);
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(fmt::format("{}: {}", space.name, e.what()));
        }
        space.results = std::move(copy);
      }
    }
    const auto objectives = parse_objectives(o.objectives);
    if (objectives.size() >= 2) {
      if (o.stats_only || !o.runs.empty())
        return fail("--stats and --runs are for single-objective comparisons", kExitUsage);
      MoComparisonOptions mo;
      mo.objectives = objectives;
      mo.budget = o.budget;
      mo.repeats = o.options.repeats;
      mo.seed = o.options.seed;
      mo.threads = o.options.threads;
      mo.checkpoints = o.checkpoints;
      MoComparisonReport report;
      try {
        report = compare_multiobjective(spaces, strategies, mo);
      } catch (const Interrupted&) {
        std::cerr << "ktune compare: interrupted; a multi-objective comparison needs every run, nothing was scored\n";
        return interrupted_exit_status(stop_signal());
      }
      if (!o.output_path.empty()) {
        std::ofstream out(o.output_path, std::ios::binary);
        out << mo_json(report, true).dump() << "\n";
        if (!out) throw io::InputError(o.output_path, "", "cannot write the report");
      }
      if (!o.plot_dir.empty()) write_svg_report(report, objectives, o.plot_dir);
      if (o.json) {
        std::cout << mo_json(report, false).dump(2) << "\n";
      } else {
        print_mo(report, o);
        if (!o.plot_dir.empty()) std::cout << "figures: " << o.plot_dir << "/index.html\n";
      }
      return kExitOk;
    }
    if (objectives.size() == 1) {
      if (!o.options.objective.empty() && o.options.objective != objectives[0].name)
        return fail("give the objective once (--objective or --objectives)", kExitUsage);
      o.options.objective = objectives[0].name;
    }
    if (o.stats_only) {
      const auto stats = space_statistics(spaces, o.options);
      if (o.json) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& s : stats) j.push_back({{"name", s.name}, {"stats", stats_json(s)}});
        std::cout << nlohmann::json{{"spaces", j}}.dump(2) << "\n";
      } else {
        print_stats(stats);
      }
      return kExitOk;
    }
    const ExternalRuns external =
        runs.empty() ? ExternalRuns{} : load_external_runs(runs, spaces, o.options.objective);
    ProgressLine progress(!o.quiet && !strategies.empty());
    o.options.progress = [&](std::size_t done, std::size_t total) {
      progress.show(fmt::format("  compare: {}", progress.count_text(done, total, "runs")), done == total);
    };
    const ComparisonReport report = compare(spaces, strategies, o.options, external);
    progress.finish();
    if (!o.output_path.empty()) {
      std::ofstream out(o.output_path, std::ios::binary);
      nlohmann::json full = summary_json(report, true);
      full["settings"] = {{"repeats", o.options.repeats},     {"seed", o.options.seed},
                          {"cutoff", o.options.cutoff_end},   {"cutoff_start", o.options.cutoff_start},
                          {"resolution", o.options.resolution}, {"cutoff_margin", o.options.cutoff_margin},
                          {"baseline", o.options.baseline == BaselineKind::exact ? "exact" : "reference"}};
      out << full.dump() << "\n";
      if (!out) throw io::InputError(o.output_path, "", "cannot write the report");
    }
    // Interrupted: the tables and reports hold what finished; figures need every curve.
    const bool plot = !o.plot_dir.empty() && !report.interrupted;
    if (plot) write_svg_report(report, o.plot_dir);
    if (o.json) {
      std::cout << summary_json(report, false).dump(2) << "\n";
    } else {
      print_scores(report, o);
      if (plot) std::cout << "figures: " << o.plot_dir << "/index.html\n";
    }
    return report.interrupted ? interrupted_exit_status(stop_signal()) : kExitOk;
  } catch (const io::InputError& e) {
    return fail(e.what(), kExitInputError);
  } catch (const std::invalid_argument& e) {
    return fail(e.what(), kExitInputError);
  }
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand("compare", "Score strategies by the community methodology on brute-forced spaces");
  sub->add_option("--spaces", o->spaces, "Brute-forced Kernel Tuner cache or T4 files (one per space)");
  sub->add_option("--strategies", o->strategies, "Strategies: name or name:key=value,key=value");
  sub->add_option("--runs", o->runs, "NAME=FILE: recorded runs to score too (a trace file, or a T4 file per run)");
  sub->add_option("--repeats", o->options.repeats, "Runs per strategy and space")
      ->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  sub->add_option("--seed", o->options.seed, "Seed of the runs and of the curve bagging")
      ->capture_default_str()
      ->check(seed_number());
  sub->add_option("--cutoff", o->options.cutoff_end, "End of the time range: this fraction of the way from the median "
                                                     "to the optimum")
      ->capture_default_str()
      ->check(real_number(0, 1, true));
  sub->add_option("--cutoff-start", o->options.cutoff_start, "Start of the time range")
      ->capture_default_str()
      ->check(real_number(0, 1, false));
  sub->add_option("--resolution", o->options.resolution, "Time points")
      ->capture_default_str()
      ->check(whole_number(2, 1'000'000));
  add_baseline_option(sub, o->options.baseline);
  sub->add_option("--threads", o->options.threads, "Threads (0: all cores)")->capture_default_str()->check(thread_count());
  sub->add_option("--objective", o->options.objective, "Objective (default: the files', else time)");
  sub->add_option("--objectives", o->objectives,
                  "Several objectives, NAME[:min|:max] (comma-separated or repeated): a multi-objective comparison "
                  "by IGD+ against random search");
  sub->add_option("--budget", o->budget, "Multi-objective: evaluations per run")->capture_default_str()->check(
      whole_number(1, kLargeCount));
  sub->add_option("--checkpoints", o->checkpoints, "Multi-objective: evaluation counts to report (default 50 100 150 200)")
      ->check(whole_number(1, kLargeCount));
  sub->add_option("--derive", o->derived,
                  "NAME=EXPRESSION: a measurement computed from each record's parameters and measurements "
                  "(e.g. smem=block_size_x*tile*4), usable as an objective (repeatable)");
  sub->add_flag("--stats", o->stats_only, "Only print the statistics of the spaces");
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  sub->add_flag("--quiet", o->quiet, "No progress line");
  sub->add_option("--output", o->output_path, "Write the whole report (curves included) as JSON");
  sub->add_option("--plot", o->plot_dir, "Write SVG figures and an index.html into this directory");
  return {sub, [o] { return run_compare(*o); }};
}

}  // namespace ktune::cli
