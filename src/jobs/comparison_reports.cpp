#include "ktune/jobs/comparison_reports.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ktune/io/json_value.hpp"

namespace ktune {

using namespace ktune::methodology;

namespace {

nlohmann::json failures_json(const std::vector<StrategyFailure>& failures) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : failures)
    out.push_back({{"strategy", f.strategy}, {"space", f.space}, {"run", f.run}, {"message", f.message}});
  return out;
}

void write_failures(std::ostream& out, const std::vector<StrategyFailure>& failures, const char* consequence) {
  for (const auto& f : failures)
    out << fmt::format("failed: {} on {}, run {}: {} ({})\n", f.strategy, f.space, f.run + 1, f.message, consequence);
}

nlohmann::json series(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(io::number_or_null(x));
  return a;
}

nlohmann::json space_statistics_json(const SpaceResult& s) {
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

}  // namespace

nlohmann::json comparison_json(const ComparisonReport& report, bool with_curves) {
  nlohmann::json spaces = nlohmann::json::array();
  for (const auto& s : report.spaces) {
    nlohmann::json j{{"name", s.name}, {"stats", space_statistics_json(s)}};
    nlohmann::json scores = nlohmann::json::object();
    for (const auto& st : s.strategies) scores[st.strategy] = io::number_or_null(st.score);
    j["scores"] = scores;
    if (!s.transfer_sources.empty()) j["transfer_sources"] = s.transfer_sources;
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
    aggregate[a.strategy] = {{"score", io::number_or_null(a.score)},
                             {"error", io::number_or_null(a.error)},
                             {"real_stopping_fraction", a.real_stopping_fraction}};
    if (with_curves) aggregate[a.strategy]["performance"] = series(a.performance);
  }
  nlohmann::json j{
      {"spaces", spaces}, {"aggregate", aggregate}, {"strategy_time_charged", report.strategy_time_charged}};
  if (report.interrupted)
    j["interrupted"] = {{"runs_finished", report.runs_finished}, {"runs_total", report.runs_total}};
  if (!report.failures.empty()) j["strategy_failures"] = failures_json(report.failures);
  return j;
}

void write_statistics_table(std::ostream& out, const std::vector<SpaceResult>& spaces) {
  out << fmt::format("{:<28} {:>6} {:>6} {:>11} {:>11} {:>11} {:>16} {:>9} {:>9}\n", "space", "N_all", "valid",
                     "optimum", "median", "fevals", "time (s)", "s/eval", "budget s");
  for (const auto& s : spaces) {
    const auto& st = s.stats;
    out << fmt::format("{:<28} {:>6} {:>6} {:>11.6g} {:>11.6g} {:>11} {:>16} {:>9.4g} {:>9.5g}\n", s.name,
                       st.size_all(), st.size_valid(), st.optimum(), st.median(),
                       fmt::format("{}..{}", s.range.fevals_start, s.range.fevals_end),
                       fmt::format("{:.2f}..{:.1f}", s.range.time_start, s.range.time_end), st.median_time(),
                       s.budget_seconds);
  }
}

void write_score_table(std::ostream& out, const ComparisonReport& report, const ComparisonOptions& options) {
  std::size_t width = 20;
  for (const auto& s : report.strategies) width = std::max(width, s.size() + 2);
  out << fmt::format("Performance score P (mean over {} time points; 0 = random search, 1 = optimum)\n",
                     options.resolution);
  out << fmt::format("{:<28}", "space");
  for (const auto& s : report.strategies) out << fmt::format("{:>{}}", s, width);
  out << "\n";
  for (const auto& space : report.spaces) {
    out << fmt::format("{:<28}", space.name);
    for (const auto& st : space.strategies) {
      const std::string stop = st.curve.real_stopping_fraction < 1
                                   ? fmt::format(" (stops {:.0f}%)", 100 * st.curve.real_stopping_fraction)
                                   : "";
      out << fmt::format("{:>{}}", std::isnan(st.score) ? "-" : fmt::format("{:.3f}{}", st.score, stop), width);
    }
    out << "\n";
  }
  out << fmt::format("{:<28}", "aggregate");
  for (const auto& a : report.aggregate)
    out << fmt::format("{:>{}}", std::isnan(a.score) ? "-" : fmt::format("{:.3f} ± {:.3f}", a.score, a.error),
                       width + (std::isnan(a.score) ? 0 : 1));
  out << fmt::format("\n{} runs per strategy and space, seed {}; runs {:.1f} s, scoring {:.1f} s; strategy time {}\n",
                     options.repeats, options.seed, report.run_seconds, report.scoring_seconds,
                     report.strategy_time_charged ? "charged to the clock" : "not charged");
  if (report.interrupted)
    out << fmt::format("interrupted: {} of {} runs finished; '-' marks what was not scored\n",
                       report.runs_finished, report.runs_total);
  write_failures(out, report.failures, "not scored");
}

nlohmann::json multiobjective_comparison_json(const MoComparisonReport& report, bool with_curves) {
  nlohmann::json spaces = nlohmann::json::array();
  for (const auto& s : report.spaces) {
    nlohmann::json j{{"name", s.name},
                     {"configurations", s.configurations},
                     {"true_front_size", s.true_front.size()},
                     {"ideal", series(s.ideal)},
                     {"nadir", series(s.nadir)},
                     {"true_front_hypervolume", io::number_or_null(s.true_front_hypervolume)}};
    nlohmann::json st = nlohmann::json::object();
    for (const auto& on : s.strategies) {
      nlohmann::json x{{"improvement", series(on.improvement)},
                       {"evaluations_to_match", io::number_or_null(on.evaluations_to_match)},
                       {"time_to_match", io::number_or_null(on.time_to_match)},
                       {"time_ratio", io::number_or_null(on.time_ratio)},
                       {"median_hypervolume", io::number_or_null(on.median_hypervolume)}};
      nlohmann::json at = nlohmann::json::array(), iqr = nlohmann::json::array();
      for (std::size_t c : report.checkpoints) {
        at.push_back(io::number_or_null(on.median_igd[c - 1]));
        iqr.push_back({io::number_or_null(on.lower_quartile_igd[c - 1]),
                       io::number_or_null(on.upper_quartile_igd[c - 1])});
      }
      x["median_igd"] = at;
      x["igd_iqr"] = iqr;
      if (with_curves) {
        x["median_igd_curve"] = series(on.median_igd);
        x["lower_quartile_igd_curve"] = series(on.lower_quartile_igd);
        x["upper_quartile_igd_curve"] = series(on.upper_quartile_igd);
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
                             {"evaluations_to_match", io::number_or_null(a.evaluations_to_match)},
                             {"time_to_match", io::number_or_null(a.time_to_match)},
                             {"time_ratio", io::number_or_null(a.time_ratio)}};
  nlohmann::json j{{"checkpoints", report.checkpoints}, {"baseline", report.baseline}, {"spaces", spaces},
                   {"aggregate", aggregate}};
  if (!report.failures.empty()) j["strategy_failures"] = failures_json(report.failures);
  return j;
}

namespace {

// A time relative to the baseline's, as a percentage ("never" for +inf, "-" without recorded times).
std::string relative_time_text(double ratio) {
  if (std::isnan(ratio)) return "-";
  if (std::isinf(ratio)) return "never";
  return fmt::format("{:.0f}%", 100 * ratio);
}

}  // namespace

void write_multiobjective_table(std::ostream& out, const MoComparisonReport& report, const ComparisonOptions& options,
                                std::size_t budget) {
  std::size_t width = 16;
  for (const auto& s : report.strategies) width = std::max(width, s.size() + 2);
  std::string cps;
  for (std::size_t c : report.checkpoints) cps += fmt::format("{}{}", cps.empty() ? "" : "/", c);
  out << fmt::format("Median normalised IGD+ after {} evaluations (lower is better), {} runs each\n", cps,
                     options.repeats);
  for (const auto& space : report.spaces) {
    out << fmt::format("{} ({} configurations, true front {} points)\n", space.name, space.configurations,
                       space.true_front.size());
    for (const auto& on : space.strategies) {
      std::string igd, imp;
      for (std::size_t c = 0; c < report.checkpoints.size(); ++c) {
        igd += fmt::format("{:>9.4f}", on.median_igd[report.checkpoints[c] - 1]);
        imp += fmt::format("{:>7.0f}%", 100 * on.improvement[c]);
      }
      out << fmt::format("  {:<{}}{}   vs {}:{}   to match: {:.0f}%, time {}\n", on.strategy, width, igd,
                         report.baseline, imp, 100 * on.evaluations_to_match, relative_time_text(on.time_to_match));
    }
  }
  out << fmt::format("Aggregate (median over spaces): improvement over {} at {} evaluations; evaluations and "
                     "evaluation time needed to match its IGD+ at {} (time: of its time for the whole budget); "
                     "evaluation time of the whole budget\n",
                     report.baseline, cps, report.checkpoints.empty() ? 0 : budget);
  for (const auto& a : report.aggregate) {
    std::string imp;
    for (double v : a.improvement) imp += fmt::format("{:>7.0f}%", 100 * v);
    out << fmt::format("  {:<{}}{}   to match: {:.0f}%, time {}   budget time {}\n", a.strategy, width, imp,
                       100 * a.evaluations_to_match, relative_time_text(a.time_to_match), relative_time_text(a.time_ratio));
  }
  write_failures(out, report.failures, "scored as a run that ended there");
  out << fmt::format("seed {}; {:.1f} s\n", options.seed, report.run_seconds);
}

nlohmann::json statistics_json(const std::vector<SpaceResult>& spaces) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& s : spaces) j.push_back({{"name", s.name}, {"stats", space_statistics_json(s)}});
  return nlohmann::json{{"spaces", j}};
}

nlohmann::json comparison_settings_json(const ComparisonOptions& o) {
  return {{"repeats", o.repeats},       {"seed", o.seed},
          {"cutoff", o.cutoff_end},     {"cutoff_start", o.cutoff_start},
          {"resolution", o.resolution}, {"cutoff_margin", o.cutoff_margin},
          {"baseline", o.baseline == BaselineKind::exact ? "exact" : "reference"},
          {"charge_strategy_time", o.charge_strategy_time}};
}

}  // namespace ktune
