// The text report of `ktune hypertune` (hypertuning.hpp), and why a run that scored nothing is no result.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/jobs/hypertuning.hpp"
#include "ktune/methodology/hyperparameter_space.hpp"
#include "ktune/methodology/svg_report.hpp"

namespace ktune {
namespace {

std::string spaces_text(std::size_t n) { return fmt::format("{} space{}", n, n == 1 ? "" : "s"); }

}  // namespace

void write_hypertune_report(std::ostream& os, const Hypertuning& job, const HypertuneOutcome& out, std::size_t top) {
  const HypertuneRequest& r = job.request();
  const auto training = job.training_space_names(), testing = job.test_space_names();
  os << fmt::format("{} hyperparameters, {} of {} settings scored ({} resumed) by {} on {} x {} "
                    "repeats{}; {:.1f} s, stopped: {}\n",
                    r.strategy, out.result.trace.size(), job.space().size(), out.resumed, r.meta_strategy,
                    spaces_text(training.size()), r.repeats,
                    r.charge_strategy_time ? ", strategy time charged to the clock" : "", out.result.wall_seconds,
                    to_string(out.result.stop_reason));
  const std::size_t shown = std::min(top, out.rows.size());
  if (!r.objectives.empty()) os << "score: " << job.score_measure() << " (mean over the checkpoints and spaces)\n";
  os << fmt::format("  {:>8}  setting\n", "score");
  for (std::size_t i = 0; i < shown; ++i) {
    const ScoredSettingRow& row = out.rows[i];
    const std::string score =
        std::isfinite(row.score) ? fmt::format("{:8.4f}", row.score) : fmt::format("{:>8}", to_string(row.status));
    os << fmt::format("  {}  {}\n", score, methodology::settings_text(row.settings, " "));
  }
  if (out.rows.size() > shown) os << fmt::format("  ... {} more (--top N, --json)\n", out.rows.size() - shown);
  if (!testing.empty()) {
    os << fmt::format("train ({}) vs test ({}):\n", spaces_text(training.size()), spaces_text(testing.size()));
    os << fmt::format("  {:<8} {:>8} {:>8}  setting\n", "", "train", "test");
    for (const auto& t : out.test_rows)
      os << fmt::format("  {:<8} {:>8.4f} {:>8.4f}  {}\n", t.role, t.train, t.test, t.label);
  }
  if (!out.verdict.empty()) {
    os << fmt::format("confirmed on fresh seeds {} (training):\n", fmt::join(out.confirm_seeds, ", "));
    os << fmt::format("  {:>8} {:>9}  setting\n", "score", "confirmed");
    for (const auto& c : out.confirmed)
      os << fmt::format("  {:8.4f} {:9.4f}  {}\n", c.score, c.confirmed, c.label);
    os << fmt::format("  {:>8} {:9.4f}  {} (to beat)\n", "", out.reference.confirmed, out.reference.label);
    os << fmt::format("recommended: {}\n  training {:.4f} against {:.4f}", out.recommended.label,
                      out.recommended.confirmed, out.reference.confirmed);
    if (!testing.empty())
      os << fmt::format("; test (seeds {}) {:.4f} against {:.4f}", fmt::join(out.test_seeds, ", "),
                        out.recommended.test, out.reference.test);
    os << fmt::format(": {}\n", out.verdict == "adopt" ? "better, adopt it"
                                                       : "not better everywhere, keep the defaults");
  }
  if (out.cross_validation) {
    const auto& cv = *out.cross_validation;
    const std::string defaults =
        std::isnan(cv.defaults_mean) ? "not scored" : fmt::format("{:.4f}", cv.defaults_mean);
    os << fmt::format("cross-validation ({}, {} folds, {} settings): held-out {:.4f} ± {:.4f} "
                      "(min {:.4f}, max {:.4f}); the defaults {}\n",
                      to_string(cv.scheme), cv.folds.size(), cv.settings, cv.mean, cv.spread, cv.min, cv.max,
                      defaults);
    os << fmt::format("  {:>8} {:>8} {:>8}  held out / chosen on the others\n", "train", "held-out", "defaults");
    for (const auto& f : cv.folds)
      os << fmt::format("  {:8.4f} {:8.4f} {:8.4f}  {} / {}\n", f.train, f.held_out_score, f.defaults_held_out,
                        fmt::join(f.held_out, ", "), f.chosen);
  }
  if (out.sensitivity) {
    const auto& s = *out.sensitivity;
    os << fmt::format("sensitivity over the {} scored settings (Kruskal-Wallis on the scores by value; mutual "
                      "information of value and score, nats):\n",
                      s.settings);
    os << fmt::format("  {:<24} {:>6} {:>9} {:>9} {:>8}\n", "hyperparameter", "values", "H", "p", "MI");
    for (const auto& p : s.hyperparameters)
      os << fmt::format("  {:<24} {:>6} {:>9.3f} {:>9.2g} {:>8.3f}\n", p.name, p.values, p.kruskal_wallis_h, p.p_value,
                        p.mutual_information);
    os << fmt::format("  closest to the mean score {:.4f}: {} ({:.4f})\n", s.mean_score, s.closest_to_mean.label,
                      s.closest_to_mean.score);
  }
  if (!r.output_path.empty()) os << "results: " << r.output_path << "\n";
}

void write_hypertune_figures(const Hypertuning& job, const HypertuneOutcome& out, const std::string& directory) {
  methodology::HyperparameterScores scores;
  scores.strategy = job.request().strategy;
  for (std::size_t i = 0; i < out.scored; ++i) {
    const ScoredSettingRow& row = out.rows[i];
    if (scores.hyperparameters.empty())
      for (const auto& [name, value] : row.settings) scores.hyperparameters.push_back(name);
    methodology::HyperparameterScores::Setting setting;
    for (const auto& [name, value] : row.settings) setting.values.push_back(value);
    setting.score = row.score;
    scores.settings.push_back(std::move(setting));
    if (job.is_reference(row)) {
      scores.has_reference = true;
      scores.reference_label = job.request().reference.empty() ? "defaults" : "reference";
      scores.reference_score = row.score;
    }
  }
  methodology::write_svg_report(scores, directory);
}

std::optional<std::string> nothing_scored(const HypertuneOutcome& out) {
  if (out.scored > 0 || out.interrupted) return std::nullopt;
  if (out.rows.empty()) return "no setting was scored (nothing was run)";
  const auto failed = std::find_if(out.rows.begin(), out.rows.end(), [](const auto& r) { return !r.message.empty(); });
  return fmt::format("none of the {} settings tried could be scored{}", out.rows.size(),
                     failed == out.rows.end()
                         ? std::string(" (every one ended without a score)")
                         : fmt::format(": {} ({}): {}", failed->label, to_string(failed->status), failed->message));
}

}  // namespace ktune
