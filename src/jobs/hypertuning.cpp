#include "ktune/jobs/hypertuning.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "ktune/expr/errors.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/jobs/cache_recorder.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/hyperparameter_evaluator.hpp"
#include "ktune/methodology/hyperparameter_space.hpp"
#include "ktune/methodology/setting_scorer.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/isolated_plugins.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune {

using namespace ktune::methodology;

struct Hypertuning::State {
  HypertuneRequest request;
  const StrategyInfo* info = nullptr;
  StrategySpec reference_spec;
  std::optional<Hyperparameters> reference_values;  // reference_spec resolved: every hyperparameter's value
  std::unique_ptr<Strategy> meta;
  HyperparameterSpace hyper;
  std::optional<SearchSpace> space;
  ComparisonOptions comparison_options;
  std::vector<ComparisonSpace> training_spaces, test_spaces;
  std::optional<Comparison> training, testing;  // training: scored by the methodology (no --objectives)
  std::vector<std::string> space_names;          // the training spaces, as the scorer names them
  std::string measure;                           // what a score is (SettingScorer::measure)
  std::vector<std::pair<std::string, Value>> fixed;
  std::string fixed_text;
  std::unique_ptr<HyperparameterEvaluator> evaluator;
  std::unique_ptr<io::KernelTunerCacheWriter> cache;
  ResumedResults resumed;
  bool ran = false;
  std::optional<FoldScheme> fold_scheme;  // --cv: how the training spaces split, and the folds
  std::vector<std::vector<std::size_t>> folds;

  void say(JobMessageLevel level, const std::string& text) const {
    if (request.on_message) request.on_message(level, text);
  }
  // A row's full settings: the grid's values and the fixed ones (every row has the same seeds: Comparison::run).
  StrategySpec spec_of(const ScoredSettingRow& row) const {
    StrategySpec spec{row.label, request.strategy, row.settings};
    spec.hyperparameters.insert(spec.hyperparameters.end(), fixed.begin(), fixed.end());
    return spec;
  }
  void open_strategies();
  void open_grid();
  void open_spaces();
  void open_plot_dir() const;
  void open_cache();
  std::vector<ScoredSettingRow> rows_of(const TuningResult& result) const;
  // Whether a row's grid values are the reference's (a row's label names the grid's values only, the reference's
  // label every hyperparameter, so labels do not tell).
  bool is_reference(const ScoredSettingRow& row) const {
    return std::all_of(row.settings.begin(), row.settings.end(), [&](const auto& setting) {
      return same_value(reference_values->get(setting.first), setting.second);
    });
  }
  void test(HypertuneOutcome& out) const;
  void confirm(HypertuneOutcome& out) const;
};

namespace {

nlohmann::json settings_json(const std::vector<std::pair<std::string, Value>>& settings) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, v] : settings) j[name] = io::value_to_json(v);
  return j;
}

// Whether a cache's fixed_hyperparameters text names the same settings as `fixed`. A cache scored before a
// hyperparameter existed does not name it; it ran as that hyperparameter's default does, so a default value it does
// not name matches.
bool same_fixed_settings(const std::string& cached, const std::vector<std::pair<std::string, Value>>& fixed,
                         const StrategyInfo& info) {
  if (cached == settings_text(fixed)) return true;
  const auto named = [&](const std::string& name) {
    return cached.rfind(name + "=", 0) == 0 || cached.find("," + name + "=") != std::string::npos;
  };
  std::vector<std::pair<std::string, Value>> as_cached;
  for (const auto& [name, value] : fixed)
    if (named(name) || !is_default_setting(info, name, value)) as_cached.push_back({name, value});
  return cached == settings_text(as_cached);
}

}  // namespace

void Hypertuning::State::open_strategies() {
  try {
    // An isolated plug-in is loaded only in its sandbox.
    if (request.isolate) prepare_isolated_strategy(request.strategy);
    info = find_strategy(request.strategy);
    if (!info) (void)make_strategy(request.strategy);  // throws, listing the known strategies
    if (request.spaces.empty()) refuse_request("give the training spaces with --spaces RESULTS...");
    if (request.repeats < 1) refuse_request("--repeats must be at least 1");
    // The settings in use: what the grid's settings are confirmed against, and the values of the hyperparameters
    // the grid does not vary. Default: the strategy's declared defaults, written out so the label keeps its meaning.
    if (request.reference.empty()) {
      reference_spec.name = request.strategy;
      for (const auto& h : info->hyperparameters) reference_spec.hyperparameters.emplace_back(h.name, h.default_value);
      reference_spec.label = strategy_label(request.strategy, reference_spec.hyperparameters);
    } else {
      reference_spec = parse_strategy_spec(request.reference);
      if (reference_spec.name != request.strategy)
        refuse_request(fmt::format("--defaults '{}' is not a setting of {}", request.reference, request.strategy));
    }
    reference_values = Hyperparameters::resolve(info->name, info->hyperparameters, reference_spec.hyperparameters);
    meta = make_strategy(request.meta_strategy, parse_strategy_settings(request.meta_strategy, request.meta_settings));
    request.budget.validate();
  } catch (const JobError&) {
    throw;
  } catch (const std::exception& e) {
    refuse_request(e.what());
  }
}

void Hypertuning::State::open_grid() {
  const std::string& path = request.hyperspace_path;
  try {
    hyper = path.empty() ? default_hyperparameter_space(*info) : read_hyperparameter_space(path, *info);
    space.emplace(SearchSpace::build(hyper.problem));
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  } catch (const ProblemError& e) {
    refuse_input(fmt::format("{}: {}", path.empty() ? "hyperparameter grid" : path, e.what()));
  } catch (const expr::ExpressionError& e) {
    refuse_input(fmt::format("{}: {}", path, e.what()));
  } catch (const std::invalid_argument& e) {
    refuse_request(e.what());
  }
  for (const auto& w : hyper.warnings) say(JobMessageLevel::warning, "warning: " + w);
  if (space->size() == 0) refuse_input("the hyperparameter space has no valid setting");
}

void Hypertuning::State::open_spaces() {
  comparison_options.repeats = request.repeats;
  comparison_options.seed = request.seed;
  comparison_options.threads = request.threads;
  comparison_options.baseline = request.baseline;
  comparison_options.isolate = request.isolate;
  comparison_options.isolation_seconds = request.isolation_seconds;
  comparison_options.charge_strategy_time = request.charge_strategy_time;
  comparison_options.partition = request.partition;
  const bool igd_plus = !request.objectives.empty();
  methodology::MoComparisonOptions mo;
  if (igd_plus) {
    if (!request.test_spaces.empty() || !request.cross_validation.empty() || request.confirm > 0)
      refuse_request("scored by IGD+ (--objectives), a run takes no --test-spaces, --cv or --confirm");
    if (request.charge_strategy_time) refuse_request("scored by IGD+ (--objectives), runs count evaluations, not time");
    try {
      mo.objectives = parse_objectives(request.objectives);
    } catch (const std::invalid_argument& e) {
      refuse_request(e.what());
    }
    if (mo.objectives.size() < 2) refuse_request("--objectives needs at least two objectives");
    if (request.evaluations == 0) refuse_request("--evaluations must be at least 1");
    for (std::size_t c : request.checkpoints)
      if (c == 0 || c > request.evaluations)
        refuse_request(fmt::format("checkpoint {} is outside 1..{} evaluations", c, request.evaluations));
    mo.budget = request.evaluations;
    mo.checkpoints = request.checkpoints;
    mo.repeats = request.repeats;
    mo.seed = request.seed;
    mo.threads = request.threads;
    mo.isolate = request.isolate;
    mo.isolation_seconds = request.isolation_seconds;
  }
  std::shared_ptr<const methodology::SettingScorer> scorer;
  try {
    training_spaces = load_spaces(request.spaces, request.threads);
    if (igd_plus) {
      scorer = std::make_shared<methodology::IgdPlusScorer>(training_spaces, mo);
    } else {
      training.emplace(training_spaces, comparison_options);
      scorer = std::make_shared<methodology::ComparisonScorer>(*training);
    }
    if (!request.test_spaces.empty()) {
      test_spaces = load_spaces(request.test_spaces, request.threads);
      testing.emplace(test_spaces, comparison_options);
    }
  } catch (const std::exception& e) {
    refuse_input(e.what());
  }
  fixed = methodology::fixed_hyperparameters(*info, space->problem(), reference_spec.hyperparameters);
  fixed_text = settings_text(fixed);
  evaluator = std::make_unique<HyperparameterEvaluator>(*space, request.strategy, scorer, fixed);
  space_names = scorer->space_names();
  measure = scorer->measure();
}

void Hypertuning::State::open_plot_dir() const {
  if (request.plot_dir.empty()) return;
  try {
    io::check_output_path(request.plot_dir + "/index.html", "--plot");
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
}

void Hypertuning::State::open_cache() {
  if (request.output_path.empty()) return;
  try {
    io::CacheHeader header{evaluator->device_name(), evaluator->kernel_name(), nlohmann::json::array(),
                           space->problem(), {"score"}, nullptr};
    cache = std::make_unique<io::KernelTunerCacheWriter>(request.output_path, header);
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
  // Scores made with other values of the hyperparameters outside the grid are scores of other settings; scores made
  // with the strategies' own time charged (or not) are on another clock. A cache older than the distinction was not
  // charged.
  std::size_t unknown_fixed = 0;
  const std::string clock = methodology::strategy_time_text(request.charge_strategy_time);
  for (const auto& r : cache->existing()) {
    const Measurement* charged = r.find("strategy_time_on_clock");
    const std::string cached = charged && charged->value.is_string() ? charged->value.as_string()
                                                                     : methodology::strategy_time_text(false);
    if (cached != clock)
      refuse_input(fmt::format("{}: its scores were made with the strategies' own time {}, this run {} it (another "
                               "--output, or {} --charge-strategy-time)",
                               request.output_path, cached,
                               request.charge_strategy_time ? "charges" : "does not charge",
                               request.charge_strategy_time ? "without" : "with"));
    const Measurement* scored_by = r.find("score_measure");
    const std::string cached_measure = scored_by && scored_by->value.is_string() ? scored_by->value.as_string()
                                                                                  : methodology::kMethodologyScore;
    if (cached_measure != measure)
      refuse_input(fmt::format("{}: its settings were scored by {}, this run by {} (another --output)",
                               request.output_path, cached_measure, measure));
    const Measurement* m = r.find("fixed_hyperparameters");
    if (!m) {
      ++unknown_fixed;
    } else if (!m->value.is_string() || !same_fixed_settings(m->value.as_string(), fixed, *info)) {
      refuse_input(fmt::format("{}: its scores were made with the hyperparameters outside the grid at \"{}\", this "
                               "run fixes them at \"{}\" (give those settings with --defaults, or another --output)",
                               request.output_path, m->value.str(), fixed_text));
    }
  }
  resumed = resume_from(*cache, *space, evaluator->objectives());
  if (unknown_fixed > 0)
    say(JobMessageLevel::warning,
        fmt::format("warning: {}: {} results do not say at which values the hyperparameters outside the grid were "
                    "fixed; taken as \"{}\"",
                    request.output_path, unknown_fixed, fixed_text));
}

Hypertuning::Hypertuning(HypertuneRequest request) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.request = std::move(request);
  s.open_strategies();
  s.open_grid();
  s.open_spaces();
  s.open_plot_dir();
  s.open_cache();
  if (!s.request.cross_validation.empty()) {
    try {
      s.fold_scheme = parse_fold_scheme(s.request.cross_validation);
      std::vector<SpaceOrigin> origins;
      for (const auto& path : s.request.spaces) origins.push_back(space_origin(path));
      s.folds = make_folds(origins, *s.fold_scheme);
    } catch (const std::invalid_argument& e) {
      refuse_request(e.what());
    }
  }
}

Hypertuning::~Hypertuning() = default;

// Every setting known at the end (scored now or resumed), best first.
std::vector<ScoredSettingRow> Hypertuning::State::rows_of(const TuningResult& result) const {
  std::vector<ScoredSettingRow> rows;
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const TraceEntry& e = result.trace[i];
    ScoredSettingRow row;
    row.settings = hyperparameter_settings(space->problem(), space->values_at(e.index));
    row.label = strategy_label(request.strategy, row.settings);
    row.status = e.status;
    row.resumed = e.resumed;
    row.score = e.status == Status::ok ? result.trace.values(i).front() : std::nan("");
    if (const ScoredSetting* scored = evaluator->scored(e.index)) {
      row.space_scores = scored->space_scores;
      row.message = scored->message;
    } else if (const auto r = resumed.records.find(e.index); r != resumed.records.end()) {
      // Resumed: the per-space scores as the file has them (a file from other training spaces has none of these).
      for (const auto& name : space_names) {
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
  std::stable_sort(rows.begin(), rows.end(), [](const ScoredSettingRow& a, const ScoredSettingRow& b) {
    const bool fa = std::isfinite(a.score), fb = std::isfinite(b.score);
    if (fa != fb) return fa;
    return fa && a.score > b.score;
  });
  return rows;
}

// Train/test: the best, median and worst settings, and the defaults, scored on the test spaces.
void Hypertuning::State::test(HypertuneOutcome& out) const {
  const auto& rows = out.rows;
  const std::size_t scored = out.scored;
  const std::vector<StrategySpec> specs{spec_of(rows.front()), spec_of(rows[scored / 2]), spec_of(rows[scored - 1]),
                                        reference_spec};
  out.test_rows.push_back({"best", rows.front().label, rows.front().score, std::nan("")});
  out.test_rows.push_back({"median", rows[scored / 2].label, rows[scored / 2].score, std::nan("")});
  out.test_rows.push_back({"worst", rows[scored - 1].label, rows[scored - 1].score, std::nan("")});
  out.test_rows.push_back(
      {"default", reference_spec.label, score_settings(*training, {reference_spec}).front(), std::nan("")});
  const auto test_scores = score_settings(*testing, specs);
  for (std::size_t i = 0; i < out.test_rows.size(); ++i) out.test_rows[i].test = test_scores[i];
}

// Confirmation: the best settings and the defaults scored again with fresh seeds on the training spaces; the best of
// them (the recommendation) and the defaults on the test spaces over as many seeds plus the run's own.
void Hypertuning::State::confirm(HypertuneOutcome& out) const {
  const double nan = std::nan("");
  out.test_seeds = {request.seed};
  for (std::uint64_t k = 1; k <= request.confirm_seeds; ++k) {
    out.confirm_seeds.push_back(request.seed + k);
    out.test_seeds.push_back(request.seed + k);
  }
  std::vector<StrategySpec> specs;
  for (std::size_t i = 0; i < std::min(request.confirm, out.scored); ++i) {
    out.confirmed.push_back({out.rows[i].label, out.rows[i].score, nan, nan});
    specs.push_back(spec_of(out.rows[i]));
  }
  specs.push_back(reference_spec);
  const auto means = mean_scores_over_seeds(training_spaces, comparison_options, specs, out.confirm_seeds);
  std::size_t recommended_row = 0;
  for (std::size_t i = 0; i < out.confirmed.size(); ++i) {
    out.confirmed[i].confirmed = means[i];
    if (means[i] > means[recommended_row]) recommended_row = i;
  }
  out.reference.confirmed = means.back();
  out.recommended = out.confirmed[recommended_row];
  bool better = out.recommended.confirmed > out.reference.confirmed;
  if (testing) {
    const auto test = mean_scores_over_seeds(test_spaces, comparison_options,
                                             {spec_of(out.rows[recommended_row]), reference_spec}, out.test_seeds);
    out.recommended.test = test[0];
    out.reference.test = test[1];
    better = better && out.recommended.test > out.reference.test;
  }
  // Cross-validated, the selection must also beat the defaults on held-out spaces: a gain on the training spaces that
  // does not carry over to a kernel or GPU it was not chosen on is fitting them.
  if (out.cross_validation) better = better && out.cross_validation->mean > out.cross_validation->defaults_mean;
  out.verdict = better ? "adopt" : "keep";
}

HypertuneOutcome Hypertuning::run(const std::vector<TuningListener*>& listeners) {
  State& s = *state_;
  if (s.ran) throw std::logic_error("Hypertuning::run: a job runs once");
  s.ran = true;
  TuningOptions options;
  options.budget = s.request.budget;
  options.seed = s.request.seed;
  options.resumed = s.resumed.results;
  std::unique_ptr<CacheRecorder> recorder;
  if (s.cache) {
    recorder = std::make_unique<CacheRecorder>(
        *s.cache, [&s](const std::string& text) { s.say(JobMessageLevel::loss, "warning: " + text); });
    options.listeners.push_back(recorder.get());
  }
  for (TuningListener* l : listeners) options.listeners.push_back(l);

  HypertuneOutcome out(tune(*s.space, *s.evaluator, *s.meta, options));
  if (s.cache) {
    try {
      s.cache->close();
    } catch (const io::InputError& e) {  // every complete entry is there and resumes; the report is still written
      s.say(JobMessageLevel::loss, fmt::format("warning: {}", e.what()));
    }
  }
  out.resumed = options.resumed.size();
  // Interrupted: what was scored is in the cache (resumable) and reported; no test or confirmation runs.
  out.interrupted = out.result.stop_reason == StopReason::interrupted;
  out.rows = s.rows_of(out.result);
  while (out.scored < out.rows.size() && std::isfinite(out.rows[out.scored].score)) ++out.scored;
  if (out.scored >= 2) {
    std::vector<methodology::ScoredGridSetting> scores;
    for (std::size_t i = 0; i < out.scored; ++i)
      scores.push_back({out.rows[i].label, out.rows[i].settings, out.rows[i].score});
    out.sensitivity = methodology::analyse_sensitivity(scores);
  }
  out.reference.label = s.reference_spec.label;
  out.reference.score = out.reference.confirmed = out.reference.test = std::nan("");
  out.recommended.score = out.recommended.confirmed = out.recommended.test = std::nan("");
  if (s.fold_scheme && out.scored > 0 && !out.interrupted) {
    std::vector<SettingScores> settings;
    std::optional<SettingScores> defaults;
    for (const auto& row : out.rows) {
      if (row.status != Status::ok) continue;
      settings.push_back({row.label, row.space_scores});
      if (s.is_reference(row) && row.space_scores.size() == s.training_spaces.size())
        defaults = settings.back();
    }
    try {
      if (!defaults) {  // outside the grid or its budget: scored now, for comparison only
        const auto report = s.training->run({s.reference_spec});
        defaults.emplace(SettingScores{s.reference_spec.label, {}});
        for (const auto& space : report.spaces) defaults->space_scores.push_back(space.strategies.front().score);
      }
      out.cross_validation = cross_validate(settings, s.training->space_names(), s.folds, *s.fold_scheme, defaults);
    } catch (const std::invalid_argument& e) {
      s.say(JobMessageLevel::warning, std::string("warning: no cross-validation: ") + e.what());
    } catch (const Interrupted&) {
      out.interrupted = true;
    }
  }
  try {
    if (s.testing && out.scored > 0 && !out.interrupted) s.test(out);
  } catch (const Interrupted&) {
    out.interrupted = true;
    out.test_rows.clear();
  }
  try {
    if (s.request.confirm > 0 && out.scored > 0 && !out.interrupted) s.confirm(out);
  } catch (const Interrupted&) {
    out.interrupted = true;
    out.confirmed.clear();
    out.verdict.clear();
  }
  if (!s.request.plot_dir.empty() && out.scored > 0) {
    try {
      write_hypertune_figures(*this, out, s.request.plot_dir);
      out.figures = s.request.plot_dir + "/index.html";
    } catch (const io::InputError& e) {
      out.figures_error = e.what();
    }
  }
  return out;
}

const HypertuneRequest& Hypertuning::request() const { return state_->request; }
const SearchSpace& Hypertuning::space() const { return *state_->space; }
std::size_t Hypertuning::settings_to_score() const {
  const State& s = *state_;
  // Resumed settings count toward the budget (as in tune): a finished run, rerun, scores nothing.
  const std::uint64_t limit = s.request.budget.evaluation_limit(s.space->size());
  const std::uint64_t known = s.resumed.results.size();
  return static_cast<std::size_t>(std::min<std::uint64_t>(limit > known ? limit - known : 0,
                                                          s.space->size() - known));
}
const std::string& Hypertuning::defaults_label() const { return state_->reference_spec.label; }
const std::vector<std::pair<std::string, Value>>& Hypertuning::fixed_hyperparameters() const { return state_->fixed; }
bool Hypertuning::is_reference(const ScoredSettingRow& row) const { return state_->is_reference(row); }
const std::string& Hypertuning::score_measure() const { return state_->measure; }
std::vector<std::string> Hypertuning::training_space_names() const { return state_->space_names; }
std::vector<std::string> Hypertuning::test_space_names() const {
  return state_->testing ? state_->testing->space_names() : std::vector<std::string>{};
}
const std::vector<std::string>& Hypertuning::warnings() const { return state_->hyper.warnings; }

nlohmann::json hypertune_report_json(const Hypertuning& job, const HypertuneOutcome& o) {
  const Hypertuning::State& s = *job.state_;
  const auto training_names = job.training_space_names();
  nlohmann::json out;
  out["strategy"] = s.request.strategy;
  out["meta_strategy"] = s.request.meta_strategy;
  out["hyperparameters"] = nlohmann::json::array();
  for (const auto& p : s.space->problem().parameters) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& v : p.values) values.push_back(io::value_to_json(v));
    out["hyperparameters"].push_back({{"name", p.name}, {"values", values}});
  }
  out["settings_total"] = s.space->size();
  out["defaults_label"] = s.reference_spec.label;
  out["fixed_hyperparameters"] = settings_json(s.fixed);
  out["score_measure"] = s.measure;
  out["training_spaces"] = training_names;
  out["repeats"] = s.request.repeats;
  out["seed"] = s.request.seed;
  out["strategy_time_charged"] = s.request.charge_strategy_time;
  out["evaluations"] = o.result.evaluations;
  out["resumed"] = o.resumed;
  out["stop_reason"] = to_string(o.result.stop_reason);
  out["wall_seconds"] = o.result.wall_seconds;
  out["warnings"] = s.hyper.warnings;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : o.rows) {
    nlohmann::json j{{"label", r.label},
                     {"settings", settings_json(r.settings)},
                     {"status", std::string(to_string(r.status))},
                     {"score", io::number_or_null(r.score)},
                     {"resumed", r.resumed}};
    if (!r.space_scores.empty()) {
      nlohmann::json per = nlohmann::json::object();
      for (std::size_t k = 0; k < r.space_scores.size() && k < training_names.size(); ++k)
        per[training_names[k]] = io::number_or_null(r.space_scores[k]);
      j["space_scores"] = per;
    }
    if (!r.message.empty()) j["message"] = r.message;
    results.push_back(std::move(j));
  }
  out["best"] = o.scored ? results.front() : nlohmann::json(nullptr);
  out["results"] = std::move(results);
  if (s.testing) {
    nlohmann::json t = nlohmann::json::array();
    for (const auto& r : o.test_rows)
      t.push_back({{"role", r.role}, {"label", r.label}, {"train", io::number_or_null(r.train)},
                   {"test", io::number_or_null(r.test)}});
    out["test"] = {{"spaces", job.test_space_names()}, {"rows", t}};
  }
  if (!o.verdict.empty()) {
    nlohmann::json settings = nlohmann::json::array();
    for (const auto& c : o.confirmed)
      settings.push_back(
          {{"label", c.label}, {"score", io::number_or_null(c.score)}, {"confirmed", io::number_or_null(c.confirmed)}});
    const auto pick = [&](const ConfirmedSetting& c) {
      nlohmann::json j{{"label", c.label}, {"confirmed", io::number_or_null(c.confirmed)}};
      if (s.testing) j["test"] = io::number_or_null(c.test);
      return j;
    };
    nlohmann::json c{{"seeds", o.confirm_seeds},
                     {"settings", settings},
                     {"reference", pick(o.reference)},
                     {"recommended", pick(o.recommended)},
                     {"verdict", o.verdict}};
    if (s.testing) c["test_seeds"] = o.test_seeds;
    out["confirmation"] = std::move(c);
  }
  if (o.cross_validation) {
    out["cross_validation"] = cross_validation_json(*o.cross_validation);
  }
  if (o.sensitivity) {
    nlohmann::json h = nlohmann::json::array();
    for (const auto& p : o.sensitivity->hyperparameters)
      h.push_back({{"name", p.name},
                   {"values", p.values},
                   {"kruskal_wallis_h", io::number_or_null(p.kruskal_wallis_h)},
                   {"p_value", io::number_or_null(p.p_value)},
                   {"mutual_information", p.mutual_information}});
    out["sensitivity"] = {{"settings", o.sensitivity->settings},
                          {"mean_score", o.sensitivity->mean_score},
                          {"closest_to_mean", {{"label", o.sensitivity->closest_to_mean.label},
                                               {"score", o.sensitivity->closest_to_mean.score}}},
                          {"hyperparameters", h}};
  }
  if (o.interrupted) out["interrupted"] = true;
  return out;
}

}  // namespace ktune
