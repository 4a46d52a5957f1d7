// `ktune hypertune`: tunes the hyperparameters of a strategy ("tuning the tuner"). Every setting is scored by the
// methodology on brute-forced training spaces in simulation; a meta-strategy (brute force, or any other strategy)
// searches the settings through the ordinary tuning loop, and the results are a Kernel Tuner cache with the
// objective `score`, resumable and itself usable as a space for `ktune compare`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "number_options.hpp"
#include "progress_line.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/jobs/cache_recorder.hpp"
#include "ktune/expr/errors.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/hyperparameter_evaluator.hpp"
#include "ktune/methodology/hyperparameter_space.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune::cli {
namespace {

using namespace ktune::methodology;

struct HypertuneOptions {
  std::string strategy;
  std::string hyperspace_path;
  std::vector<std::string> spaces, test_spaces;
  std::string meta_strategy = "brute_force";
  std::vector<std::string> meta_settings;
  int repeats = 25;
  std::optional<std::uint64_t> budget;
  std::optional<double> time_limit;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  BaselineKind baseline = BaselineKind::reference;
  std::string output_path;
  bool json = false, quiet = false;
  std::size_t top = 10;
  std::size_t confirm = 0;        // re-score this many of the best settings on fresh seeds
  std::uint64_t confirm_seeds = 3;
  std::string reference;          // settings to beat (default: the strategy's defaults)
};

// One row of the results: a setting and what it scored.
struct Row {
  std::size_t index = 0;
  std::string label;
  std::vector<std::pair<std::string, Value>> settings;
  Status status = Status::ok;
  double score = std::nan("");
  std::vector<double> space_scores;  // per training space; empty when unknown
  bool resumed = false;
  std::string message;
};

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// Settings scored / settings to score, elapsed and estimated time left, best score so far (see ProgressLine).
class Progress final : public TuningListener {
 public:
  Progress(std::size_t total, bool enabled) : total_(total), line_(enabled) {}
  void on_evaluation(const CostFunction& cost, std::size_t) override {
    const auto best = cost.trace().best();
    line_.show(fmt::format("  hypertune: {}, {}", line_.count_text(cost.evaluations(), total_, "settings"),
                           best ? fmt::format("best score {:.4f}", cost.trace().values(*best).front())
                                : std::string("no score yet")),
               cost.evaluations() == total_);
  }
  void finish() { line_.finish(); }

 private:
  std::size_t total_;
  ProgressLine line_;
};

nlohmann::json settings_json(const std::vector<std::pair<std::string, Value>>& settings) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, v] : settings) j[name] = io::value_to_json(v);
  return j;
}

std::string spaces_text(std::size_t n) { return fmt::format("{} space{}", n, n == 1 ? "" : "s"); }

int run_hypertune(const HypertuneOptions& o) {
  const auto fail = [](const std::string& message, int code) {
    std::cerr << "ktune hypertune: error: " << message << "\n";
    return code;
  };
  const StrategyInfo* info = find_strategy(o.strategy);
  if (!info) (void)make_strategy(o.strategy);  // throws HyperparameterError listing the known strategies (exit 2)
  if (o.spaces.empty()) return fail("give the training spaces with --spaces RESULTS...", kExitUsage);
  if (o.repeats < 1) return fail("--repeats must be at least 1", kExitUsage);
  // The settings in use: what the grid's settings are confirmed against, and the values of the hyperparameters the
  // grid does not vary. Default: the strategy's declared defaults, written out so the label keeps its meaning.
  StrategySpec reference_spec;
  if (o.reference.empty()) {
    reference_spec.name = o.strategy;
    for (const auto& h : info->hyperparameters) reference_spec.hyperparameters.emplace_back(h.name, h.default_value);
    reference_spec.label = strategy_label(o.strategy, reference_spec.hyperparameters);
  } else {
    reference_spec = parse_strategy_spec(o.reference);
    if (reference_spec.name != o.strategy)
      return fail(fmt::format("--defaults '{}' is not a setting of {}", o.reference, o.strategy), kExitUsage);
  }

  std::unique_ptr<Strategy> meta;
  Budget budget;
  try {
    meta = make_strategy(o.meta_strategy, parse_strategy_settings(o.meta_strategy, o.meta_settings));
    budget.max_evaluations = o.budget;
    budget.time_limit_seconds = o.time_limit;
    budget.validate();
  } catch (const std::exception& e) {
    return fail(e.what(), kExitUsage);
  }

  HyperparameterSpace hyper;
  std::optional<SearchSpace> space;
  try {
    hyper = o.hyperspace_path.empty() ? default_hyperparameter_space(*info)
                                      : read_hyperparameter_space(o.hyperspace_path, *info);
    space.emplace(SearchSpace::build(hyper.problem));
  } catch (const io::InputError& e) {
    return fail(e.what(), kExitInputError);
  } catch (const ProblemError& e) {
    return fail(fmt::format("{}: {}", o.hyperspace_path.empty() ? "hyperparameter grid" : o.hyperspace_path, e.what()),
                kExitInputError);
  } catch (const expr::ExpressionError& e) {
    return fail(fmt::format("{}: {}", o.hyperspace_path, e.what()), kExitInputError);
  } catch (const std::invalid_argument& e) {
    return fail(e.what(), kExitUsage);
  }
  if (!o.quiet)
    for (const auto& w : hyper.warnings) std::cerr << "ktune hypertune: warning: " << w << "\n";
  if (space->size() == 0) return fail("the hyperparameter space has no valid setting", kExitInputError);

  ComparisonOptions copts;
  copts.repeats = o.repeats;
  copts.seed = o.seed;
  copts.threads = o.threads;
  copts.baseline = o.baseline;
  std::optional<Comparison> training, testing;
  std::vector<ComparisonSpace> training_spaces, test_spaces;
  try {
    training_spaces = load_spaces(o.spaces, o.threads);
    training.emplace(training_spaces, copts);
    if (!o.test_spaces.empty()) {
      test_spaces = load_spaces(o.test_spaces, o.threads);
      testing.emplace(test_spaces, copts);
    }
  } catch (const io::InputError& e) {
    return fail(e.what(), kExitInputError);
  } catch (const std::exception& e) {
    return fail(e.what(), kExitInputError);
  }

  const auto fixed = fixed_hyperparameters(*info, space->problem(), reference_spec.hyperparameters);
  const std::string fixed_text = methodology::settings_text(fixed);
  HyperparameterEvaluator evaluator(*space, o.strategy, *training, fixed);
  TuningOptions options;
  options.budget = budget;
  options.seed = o.seed;

  // The output cache: resumed if it exists, appended per scored setting.
  std::unique_ptr<io::KernelTunerCacheWriter> cache;
  std::unique_ptr<CacheRecorder> appender;
  std::unordered_map<std::size_t, EvaluationRecord> resumed_records;
  if (!o.output_path.empty()) {
    try {
      io::CacheHeader header{evaluator.device_name(), evaluator.kernel_name(), nlohmann::json::array(),
                             space->problem(), {"score"}};
      cache = std::make_unique<io::KernelTunerCacheWriter>(o.output_path, header);
    } catch (const io::InputError& e) {
      return fail(e.what(), kExitInputError);
    }
    // Scores made with other values of the hyperparameters outside the grid are scores of other settings.
    std::size_t unknown_fixed = 0;
    for (const auto& r : cache->existing()) {
      const Measurement* m = r.find("fixed_hyperparameters");
      if (!m) {
        ++unknown_fixed;
      } else if (!m->value.is_string() || m->value.as_string() != fixed_text) {
        return fail(fmt::format("{}: its scores were made with the hyperparameters outside the grid at \"{}\", this run "
                                "fixes them at \"{}\" (give those settings with --defaults, or another --output)",
                                o.output_path, m->value.str(), fixed_text),
                    kExitInputError);
      }
    }
    ResumedResults resumed = resume_from(*cache, *space, evaluator.objectives());
    options.resumed = std::move(resumed.results);
    resumed_records = std::move(resumed.records);
    if (unknown_fixed > 0 && !o.quiet)
      std::cerr << fmt::format("ktune hypertune: warning: {}: {} results do not say at which values the hyperparameters "
                               "outside the grid were fixed; taken as \"{}\"\n",
                               o.output_path, unknown_fixed, fixed_text);
    appender = std::make_unique<CacheRecorder>(
        *cache, [](const std::string& text) { std::cerr << "ktune hypertune: warning: " << text << "\n"; });
    options.listeners.push_back(appender.get());
  }
  const std::size_t to_score = static_cast<std::size_t>(
      std::min<std::uint64_t>(budget.evaluation_limit(space->size()), space->size() - options.resumed.size()));
  Progress progress(to_score, !o.quiet);
  options.listeners.push_back(&progress);

  const TuningResult result = tune(*space, evaluator, *meta, options);
  progress.finish();
  if (cache) cache->close();
  // Interrupted: what was scored is in the cache (resumable) and reported below; no test or confirmation runs.
  bool interrupted = result.stop_reason == StopReason::interrupted;

  // Every setting known at the end (scored now or resumed), best first.
  std::vector<Row> rows;
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const TraceEntry& e = result.trace[i];
    Row row;
    row.index = e.index;
    const auto values = space->values_at(e.index);
    const auto settings = hyperparameter_settings(space->problem(), values);
    row.label = strategy_label(o.strategy, settings);
    row.settings = settings;
    row.status = e.status;
    row.resumed = e.resumed;
    if (e.status == Status::ok) row.score = result.trace.values(i).front();
    if (const ScoredSetting* s = evaluator.scored(e.index)) {
      row.space_scores = s->space_scores;
      row.message = s->message;
    } else if (const auto r = resumed_records.find(e.index); r != resumed_records.end()) {
      // Resumed: the per-space scores as the file has them (a file from other training spaces has none of these).
      for (const auto& name : training->space_names()) {
        const auto v = r->second.objective("score_" + name);
        if (!v) {
          row.space_scores.clear();
          break;
        }
        row.space_scores.push_back(*v);
      }
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    const bool fa = std::isfinite(a.score), fb = std::isfinite(b.score);
    if (fa != fb) return fa;
    return fa && a.score > b.score;
  });
  std::size_t scored = 0;
  while (scored < rows.size() && std::isfinite(rows[scored].score)) ++scored;

  const std::string& defaults_label = reference_spec.label;
  // A row's full settings: the grid's values and the fixed ones; seeded by the row's label.
  const auto spec_of = [&](const Row& row) {
    StrategySpec spec{row.label, o.strategy, row.settings};
    spec.hyperparameters.insert(spec.hyperparameters.end(), fixed.begin(), fixed.end());
    return spec;
  };

  // Train/test: the best, median and worst settings, and the strategy's defaults, scored on the test spaces.
  struct TestRow {
    std::string role, label;
    double train = std::nan(""), test = std::nan("");
  };
  std::vector<TestRow> test_rows;
  if (testing && scored > 0 && !interrupted) try {
    const std::vector<StrategySpec> specs{spec_of(rows.front()), spec_of(rows[scored / 2]), spec_of(rows[scored - 1]),
                                          reference_spec};
    test_rows.push_back({"best", rows.front().label, rows.front().score});
    test_rows.push_back({"median", rows[scored / 2].label, rows[scored / 2].score});
    test_rows.push_back({"worst", rows[scored - 1].label, rows[scored - 1].score});
    test_rows.push_back({"default", defaults_label, score_settings(*training, {reference_spec}).front()});
    const auto test_scores = score_settings(*testing, specs);
    for (std::size_t i = 0; i < test_rows.size(); ++i) test_rows[i].test = test_scores[i];
  } catch (const Interrupted&) {
    interrupted = true;
    test_rows.clear();
  }

  // Confirmation: the best settings and the defaults scored again with fresh seeds on the training spaces; the best
  // of them (the recommendation) and the defaults on the test spaces over as many seeds plus the run's own.
  struct Confirmed {
    std::string label;
    double score = std::nan(""), confirmed = std::nan(""), test = std::nan("");  // test: recommended and reference
  };
  std::vector<Confirmed> confirmed;
  Confirmed reference{defaults_label}, recommended;
  std::size_t recommended_row = 0;
  std::vector<std::uint64_t> confirm_seeds, test_seeds{o.seed};
  std::string verdict;
  if (o.confirm > 0 && scored > 0 && !interrupted) try {
    for (std::uint64_t k = 1; k <= o.confirm_seeds; ++k) {
      confirm_seeds.push_back(o.seed + k);
      test_seeds.push_back(o.seed + k);
    }
    std::vector<StrategySpec> specs;
    for (std::size_t i = 0; i < std::min(o.confirm, scored); ++i) {
      confirmed.push_back({rows[i].label, rows[i].score});
      specs.push_back(spec_of(rows[i]));
    }
    specs.push_back(reference_spec);
    const auto means = mean_scores_over_seeds(training_spaces, copts, specs, confirm_seeds);
    for (std::size_t i = 0; i < confirmed.size(); ++i) {
      confirmed[i].confirmed = means[i];
      if (means[i] > means[recommended_row]) recommended_row = i;
    }
    reference.confirmed = means.back();
    recommended = confirmed[recommended_row];
    bool better = recommended.confirmed > reference.confirmed;
    if (testing) {
      const auto test =
          mean_scores_over_seeds(test_spaces, copts, {spec_of(rows[recommended_row]), reference_spec}, test_seeds);
      recommended.test = test[0];
      reference.test = test[1];
      better = better && recommended.test > reference.test;
    }
    verdict = better ? "adopt" : "keep";
  } catch (const Interrupted&) {
    interrupted = true;
    confirmed.clear();
    verdict.clear();
  }
  const int exit_status = interrupted ? interrupted_exit_status(stop_signal()) : kExitOk;
  if (interrupted && !o.quiet)
    std::cerr << fmt::format("ktune hypertune: interrupted after {} settings scored{}\n", result.evaluations,
                             o.output_path.empty() ? "" : fmt::format("; {} resumes the run", o.output_path));

  const auto training_names = training->space_names();
  if (o.json) {
    nlohmann::json out;
    out["strategy"] = o.strategy;
    out["meta_strategy"] = o.meta_strategy;
    out["hyperparameters"] = nlohmann::json::array();
    for (const auto& p : space->problem().parameters) {
      nlohmann::json values = nlohmann::json::array();
      for (const auto& v : p.values) values.push_back(io::value_to_json(v));
      out["hyperparameters"].push_back({{"name", p.name}, {"values", values}});
    }
    out["settings_total"] = space->size();
    out["defaults_label"] = defaults_label;
    out["fixed_hyperparameters"] = settings_json(fixed);
    out["training_spaces"] = training_names;
    out["repeats"] = o.repeats;
    out["seed"] = o.seed;
    out["evaluations"] = result.evaluations;
    out["resumed"] = options.resumed.size();
    out["stop_reason"] = to_string(result.stop_reason);
    out["wall_seconds"] = result.wall_seconds;
    out["warnings"] = hyper.warnings;
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json j{{"label", r.label},
                       {"settings", settings_json(r.settings)},
                       {"status", std::string(to_string(r.status))},
                       {"score", number_or_null(r.score)},
                       {"resumed", r.resumed}};
      if (!r.space_scores.empty()) {
        nlohmann::json per = nlohmann::json::object();
        for (std::size_t k = 0; k < r.space_scores.size() && k < training_names.size(); ++k)
          per[training_names[k]] = number_or_null(r.space_scores[k]);
        j["space_scores"] = per;
      }
      if (!r.message.empty()) j["message"] = r.message;
      results.push_back(std::move(j));
    }
    out["best"] = scored ? results.front() : nlohmann::json(nullptr);
    out["results"] = std::move(results);
    if (testing) {
      nlohmann::json t = nlohmann::json::array();
      for (const auto& r : test_rows)
        t.push_back({{"role", r.role}, {"label", r.label}, {"train", number_or_null(r.train)}, {"test", number_or_null(r.test)}});
      out["test"] = {{"spaces", testing->space_names()}, {"rows", t}};
    }
    if (!verdict.empty()) {
      nlohmann::json settings = nlohmann::json::array();
      for (const auto& c : confirmed)
        settings.push_back(
            {{"label", c.label}, {"score", number_or_null(c.score)}, {"confirmed", number_or_null(c.confirmed)}});
      const auto pick = [&](const Confirmed& c) {
        nlohmann::json j{{"label", c.label}, {"confirmed", number_or_null(c.confirmed)}};
        if (testing) j["test"] = number_or_null(c.test);
        return j;
      };
      nlohmann::json c{{"seeds", confirm_seeds},
                       {"settings", settings},
                       {"reference", pick(reference)},
                       {"recommended", pick(recommended)},
                       {"verdict", verdict}};
      if (testing) c["test_seeds"] = test_seeds;
      out["confirmation"] = std::move(c);
    }
    if (interrupted) out["interrupted"] = true;
    std::cout << out.dump(2) << "\n";
    return exit_status;
  }

  std::cout << fmt::format("{} hyperparameters, {} of {} settings scored ({} resumed) by {} on {} x {} "
                           "repeats; {:.1f} s, stopped: {}\n",
                           o.strategy, result.trace.size(), space->size(), options.resumed.size(), o.meta_strategy,
                           spaces_text(training_names.size()), o.repeats, result.wall_seconds,
                           to_string(result.stop_reason));
  const std::size_t shown = std::min(o.top, rows.size());
  std::cout << fmt::format("  {:>8}  setting\n", "score");
  for (std::size_t i = 0; i < shown; ++i) {
    const Row& r = rows[i];
    const std::string score = std::isfinite(r.score) ? fmt::format("{:8.4f}", r.score) : fmt::format("{:>8}", to_string(r.status));
    std::cout << fmt::format("  {}  {}\n", score, methodology::settings_text(r.settings, " "));
  }
  if (rows.size() > shown) std::cout << fmt::format("  ... {} more (--top N, --json)\n", rows.size() - shown);
  if (testing) {
    std::cout << fmt::format("train ({}) vs test ({}):\n", spaces_text(training_names.size()),
                             spaces_text(testing->space_names().size()));
    std::cout << fmt::format("  {:<8} {:>8} {:>8}  setting\n", "", "train", "test");
    for (const auto& r : test_rows)
      std::cout << fmt::format("  {:<8} {:>8.4f} {:>8.4f}  {}\n", r.role, r.train, r.test, r.label);
  }
  if (!verdict.empty()) {
    std::cout << fmt::format("confirmed on fresh seeds {} (training):\n", fmt::join(confirm_seeds, ", "));
    std::cout << fmt::format("  {:>8} {:>9}  setting\n", "score", "confirmed");
    for (const auto& c : confirmed) std::cout << fmt::format("  {:8.4f} {:9.4f}  {}\n", c.score, c.confirmed, c.label);
    std::cout << fmt::format("  {:>8} {:9.4f}  {} (to beat)\n", "", reference.confirmed, reference.label);
    std::cout << fmt::format("recommended: {}\n  training {:.4f} against {:.4f}", recommended.label,
                             recommended.confirmed, reference.confirmed);
    if (testing)
      std::cout << fmt::format("; test (seeds {}) {:.4f} against {:.4f}", fmt::join(test_seeds, ", "), recommended.test,
                               reference.test);
    std::cout << fmt::format(": {}\n",
                             verdict == "adopt" ? "better, adopt it" : "not better everywhere, keep the defaults");
  }
  if (cache) std::cout << "results: " << o.output_path << "\n";
  return exit_status;
}

}  // namespace

Command add_hypertune_command(CLI::App& app) {
  auto o = std::make_shared<HypertuneOptions>();
  CLI::App* sub = app.add_subcommand(
      "hypertune", "Tune the hyperparameters of a strategy by its methodology score on brute-forced training spaces");
  sub->add_option("--strategy", o->strategy, "The strategy whose hyperparameters are tuned")->required();
  sub->add_option("--hyperspace", o->hyperspace_path,
                  "T1 file over the hyperparameters (default: a grid around the declared defaults)");
  sub->add_option("--spaces", o->spaces, "Brute-forced training spaces (Kernel Tuner cache or T4 files)")->required();
  sub->add_option("--test-spaces", o->test_spaces,
                  "Re-score the best, median and worst settings and the defaults on these spaces");
  sub->add_option("--meta-strategy", o->meta_strategy, "Strategy that searches the settings")->capture_default_str();
  sub->add_option("--meta-set", o->meta_settings, "Meta-strategy hyperparameter name=value (repeatable)");
  sub->add_option("--repeats", o->repeats, "Runs per setting and space")
      ->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  sub->add_option("--budget,--max-fevals", o->budget, "Score at most this many settings")->check(whole_number(1));
  sub->add_option("--time-limit", o->time_limit, "Stop after this many seconds (wall clock)")
      ->check(real_number(0, 1e12, true));
  sub->add_option("--seed", o->seed, "Seed of the runs and of the meta-strategy")
      ->capture_default_str()
      ->check(seed_number());
  sub->add_option("--threads", o->threads, "Threads (0: all cores)")->capture_default_str()->check(thread_count());
  add_baseline_option(sub, o->baseline);
  sub->add_option("--output", o->output_path,
                  "Kernel Tuner cache of the scores (objective score): resumed if present, appended per setting");
  sub->add_option("--top", o->top, "Settings listed in the table")->capture_default_str()->check(whole_number(0, kLargeCount));
  sub->add_option("--confirm", o->confirm,
                  "Re-score this many of the best settings and the defaults with fresh seeds (and the best of them on "
                  "the test spaces) before recommending one")
      ->check(whole_number(0, 1'000'000));
  sub->add_option("--confirm-seeds", o->confirm_seeds, "Fresh seeds for --confirm")->capture_default_str()
      ->check(whole_number(1, 10'000));
  sub->add_option("--defaults", o->reference,
                  "The settings to beat, as a strategy label (name:key=value,...; default: the strategy's defaults)");
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  sub->add_flag("--quiet", o->quiet, "No progress line or warnings");
  return {sub, [o] {
            try {
              return run_hypertune(*o);
            } catch (const HyperparameterError& e) {
              std::cerr << "ktune hypertune: error: " << e.what() << "\n";
              return kExitUsage;
            }
          }};
}

}  // namespace ktune::cli
