// Hyperparameter tuning ("tuning the tuner"): hyperparameter spaces from benchmark_hub's T1 files and from the
// declared ranges, labels that `compare` reads back, the evaluator that scores settings (the same score as
// `compare` gives the same label, whatever the threads), and meta-strategies on Kernel Tuner's own brute-forced
// hyperparameter scores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <fstream>
#include <set>
#include <string>

#include "ktune/io/input_error.hpp"
#include "ktune/methodology/baseline.hpp"
#include "ktune/methodology/space_statistics.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/hyperparameter_evaluator.hpp"
#include "ktune/methodology/hyperparameter_space.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace ktune::methodology {
namespace {

using testing::shared_path;

std::string algorithm_file(const std::string& strategy) {
  return shared_path("data/benchmark_hub/hyperparametertuning/algorithms/metatuning_" + strategy + ".json");
}

std::string hub_cache(const std::string& app, const std::string& gpu) {
  return shared_path("data/benchmark_hub/cachefiles/" + app + "/" + gpu + "_T4.json.gz");
}

const StrategyInfo& info(const std::string& name) {
  const StrategyInfo* s = find_strategy(name);
  EXPECT_NE(s, nullptr) << name;
  return *s;
}

std::string reprs(const std::vector<Value>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : " ") + v.repr();
  return out;
}

std::size_t settings_of(const HyperparameterSpace& h) { return SearchSpace::build(h.problem).size(); }

TEST(HyperparameterSpace, ReadsBenchmarkHubGrids) {
  const auto ga = read_hyperparameter_space(algorithm_file("genetic_algorithm"), info("genetic_algorithm"));
  EXPECT_TRUE(ga.warnings.empty());
  EXPECT_EQ(settings_of(ga), 108u);  // the paper's grid
  ASSERT_EQ(ga.problem.parameters.size(), 4u);
  EXPECT_EQ(ga.problem.parameters[0].name, "method");
  EXPECT_EQ(settings_of(read_hyperparameter_space(algorithm_file("diff_evo"), info("diff_evo"))), 90u);
  EXPECT_EQ(settings_of(read_hyperparameter_space(algorithm_file("firefly_algorithm"), info("firefly_algorithm"))), 243u);
}

TEST(HyperparameterSpace, BenchmarkHubQuirksAreReadWithAWarning) {
  // metatuning_pso.json lists popsize twice, identically.
  const auto pso = read_hyperparameter_space(algorithm_file("pso"), info("pso"));
  EXPECT_EQ(settings_of(pso), 81u);
  ASSERT_EQ(pso.warnings.size(), 1u);
  EXPECT_NE(pso.warnings[0].find("'popsize' is declared twice"), std::string::npos) << pso.warnings[0];
  // metatuning_simulated_annealing.json declares Type int for T = [0.5, 1.0, 1.5]: read as the declared floats.
  const auto sa = read_hyperparameter_space(algorithm_file("simulated_annealing"), info("simulated_annealing"));
  EXPECT_EQ(settings_of(sa), 81u);
  ASSERT_EQ(sa.warnings.size(), 3u);  // T, T_min, alpha; maxiter is an int
  EXPECT_NE(sa.warnings[0].find("TuningParameters[0].Type: 'int' for 'T', which strategy 'simulated_annealing' declares float"),
            std::string::npos)
      << sa.warnings[0];
  ASSERT_EQ(sa.problem.parameters[0].name, "T");
  EXPECT_TRUE(sa.problem.parameters[0].values[0].is_float());
  EXPECT_EQ(sa.problem.parameters[0].values[0].as_float(), 0.5);
  EXPECT_TRUE(sa.problem.parameters[3].values[0].is_int());
}

// Kernel Tuner's dual_annealing grid names eight scipy local methods; every one is one of ours.
TEST(HyperparameterSpace, BenchmarkHubsDualAnnealingGridIsReadWithEveryMethod) {
  const auto grid = read_hyperparameter_space(algorithm_file("dual_annealing"), info("dual_annealing"));
  ASSERT_EQ(grid.problem.parameters.size(), 1u);
  EXPECT_EQ(grid.problem.parameters[0].values.size(), 8u);
  for (const auto& v : grid.problem.parameters[0].values)
    EXPECT_NO_THROW(make_strategy("dual_annealing", {{"method", v}})) << v.str();
}

TEST(HyperparameterSpace, ValuesTheStrategyRejectsAreInputErrors) {
  const auto write = [&](const std::string& body) {
    return testing::write_temp("hyper.json", R"({"ConfigurationSpace": {"TuningParameters": [)" + body + "]}}");
  };
  try {
    read_hyperparameter_space(write(R"({"Name": "method", "Type": "string", "Values": "['COBYLA', 'dogleg']"})"),
                              info("dual_annealing"));
    FAIL() << "no error";
  } catch (const io::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("hyper.json"), std::string::npos) << what;
    EXPECT_NE(what.find("TuningParameters[0].Values"), std::string::npos) << what;
    EXPECT_NE(what.find("'dogleg'"), std::string::npos) << what;
  }
  const auto message = [&](const std::string& body) {
    try {
      read_hyperparameter_space(write(body), info("genetic_algorithm"));
    } catch (const io::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"Name": "popsiz", "Type": "int", "Values": "[1, 2]"})").find("its hyperparameters: popsize"),
            std::string::npos);
  EXPECT_NE(message(R"({"Name": "popsize", "Type": "int", "Values": "[0, 2]"})").find("value 0 at position 1"),
            std::string::npos);
  EXPECT_NE(message(R"({"Name": "popsize", "Type": "int", "Values": "[4]"}, {"Name": "popsize", "Type": "int", "Values": "[8]"})")
                .find("declared twice with different values"),
            std::string::npos);
  EXPECT_NE(message(R"({"Name": "popsize", "Type": "int", "Values": "[]"})").find("non-empty list"), std::string::npos);
  // A JSON array is fine too, and conditions constrain the grid.
  const auto path = testing::write_temp("conditions.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "popsize", "Type": "int", "Values": [4, 8, 16]}, {"Name": "maxiter", "Type": "int", "Values": "[10, 20]"}],
      "Conditions": [{"Expression": "popsize * maxiter <= 160", "Parameters": ["popsize", "maxiter"]}]}})");
  EXPECT_EQ(settings_of(read_hyperparameter_space(path, info("genetic_algorithm"))), 5u);  // 16 x 20 is out
}

TEST(HyperparameterSpace, DefaultGridAroundTheDeclaredDefaults) {
  for (const auto& s : strategy_registry()) {
    if (s.hyperparameters.empty()) {
      EXPECT_THROW(default_hyperparameter_space(s), std::invalid_argument) << s.name;
      continue;
    }
    SCOPED_TRACE(s.name);
    const auto grid = default_hyperparameter_space(s);
    ASSERT_EQ(grid.problem.parameters.size(), s.hyperparameters.size());
    for (std::size_t i = 0; i < s.hyperparameters.size(); ++i) {
      const auto& values = grid.problem.parameters[i].values;
      // The default is always in, and every value is accepted by the strategy.
      EXPECT_TRUE(std::any_of(values.begin(), values.end(),
                              [&](const Value& v) { return v.to_double() == s.hyperparameters[i].default_value.to_double() ||
                                                           (v.is_string() && v.str() == s.hyperparameters[i].default_value.str()); }))
          << s.hyperparameters[i].name;
      for (const auto& v : values) EXPECT_NO_THROW(Hyperparameters::resolve(s.name, s.hyperparameters, {{s.hyperparameters[i].name, v}}));
    }
  }
  // Half, the default and double, in range: GA's popsize (an int, rounded) and DE's CR (at most 1).
  const auto ga = default_hyperparameter_space(info("genetic_algorithm"));
  const auto& ga_spec = info("genetic_algorithm").hyperparameters[0];
  ASSERT_EQ(ga_spec.name, "popsize");
  const std::int64_t p = ga_spec.default_value.as_int();
  EXPECT_EQ(reprs(ga.problem.parameters[0].values), reprs({Value(static_cast<std::int64_t>(std::round(p / 2.0))), Value(p), Value(2 * p)}));
  const auto de = default_hyperparameter_space(info("diff_evo"));
  ASSERT_EQ(de.problem.parameters[4].name, "CR");
  const double cr = info("diff_evo").hyperparameters[4].default_value.as_float();
  std::vector<Value> expected{Value(cr / 2), Value(cr)};
  if (2 * cr <= 1) expected.push_back(Value(2 * cr));
  EXPECT_EQ(reprs(de.problem.parameters[4].values), reprs(expected));
}

TEST(StrategyLabel, ReadsBackAsTheSameSettings) {
  const std::vector<std::pair<std::string, Value>> settings{
      {"method", Value("uniform")}, {"popsize", Value(10)}, {"sampling", Value("random")}, {"constraint_aware", Value(false)}};
  const std::string label = strategy_label("genetic_algorithm", settings);
  EXPECT_EQ(label, "genetic_algorithm:method=uniform,popsize=10,sampling=random,constraint_aware=False");
  const auto spec = parse_strategy_spec(label);
  ASSERT_EQ(spec.hyperparameters.size(), settings.size());
  for (std::size_t i = 0; i < settings.size(); ++i) EXPECT_TRUE(same_value(spec.hyperparameters[i].second, settings[i].second));
  const auto f = strategy_label("firefly_algorithm", {{"B0", Value(1.0)}, {"alpha", Value(0.25)}});
  EXPECT_EQ(f, "firefly_algorithm:B0=1.0,alpha=0.25");
  EXPECT_TRUE(parse_strategy_spec(f).hyperparameters[0].second.is_float());
}

// Two small training spaces, few repeats: quick, and enough to check the plumbing exactly.
std::vector<ComparisonSpace> two_spaces() {
  return load_spaces({hub_cache("convolution_milo", "MI250X"), hub_cache("dedispersion_milo", "A4000")});
}

TEST(HyperparameterEvaluator, ScoresAsCompareScoresTheSameLabelWhateverTheThreads) {
  // bayes_opt checks explorationfactor when it is made: "x" is a setting it rejects.
  const Problem h = ProblemBuilder("h")
                        .parameter("popsize", {5, 10})
                        .parameter("explorationfactor", {"CV", "x"})
                        .max_threads(std::nullopt)
                        .build();
  const SearchSpace space = SearchSpace::build(h);
  ASSERT_EQ(space.size(), 4u);
  ComparisonOptions o;
  o.repeats = 3;
  o.seed = 7;
  const auto spaces = two_spaces();
  const Comparison training(spaces, o);
  HyperparameterEvaluator evaluator(space, "bayes_opt", training);
  EXPECT_EQ(evaluator.objectives().front().name, "score");
  EXPECT_TRUE(evaluator.objectives().front().higher_is_better);

  std::set<std::string> invalid;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto outcome = evaluator.evaluate(i);
    const ScoredSetting& s = *evaluator.scored(i);
    EXPECT_GT(outcome.charged_ms, 0.0);
    if (outcome.status == Status::invalid) {
      // The setting costs its time only, and says why.
      invalid.insert(s.label);
      EXPECT_NE(s.message.find("explorationfactor"), std::string::npos) << s.message;
      EXPECT_TRUE(std::isnan(outcome.objectives[0]));
      continue;
    }
    ASSERT_EQ(outcome.status, Status::ok) << s.message;
    EXPECT_EQ(outcome.objectives[0], s.score);
    ASSERT_EQ(s.space_scores.size(), 2u);
    EXPECT_NEAR(s.score, (s.space_scores[0] + s.space_scores[1]) / 2, 1e-12);
    // The same label in `compare` runs the same seeds: the same score, on one thread too.
    ComparisonOptions one = o;
    one.threads = 1;
    EXPECT_EQ(compare(spaces, {parse_strategy_spec(s.label)}, one).aggregate[0].score, s.score) << s.label;
    const EvaluationRecord r = evaluator.record(i);
    EXPECT_EQ(r.objective("score").value(), s.score);
    ASSERT_NE(r.find("score_MI250X_convolution_milo"), nullptr);
    EXPECT_EQ(r.find("score_A4000_dedispersion_milo")->value.to_double(), s.space_scores[1]);
    EXPECT_EQ(r.charged_ms(), s.wall_ms);
  }
  EXPECT_EQ(invalid, (std::set<std::string>{"bayes_opt:popsize=5,explorationfactor=x", "bayes_opt:popsize=10,explorationfactor=x"}));
  EXPECT_EQ(evaluator.scored(99), nullptr);
}

TEST(HyperparameterEvaluator, AMetaStrategySearchesTheSettingsThroughTheTuningLoop) {
  const auto hyper = read_hyperparameter_space(algorithm_file("genetic_algorithm"), info("genetic_algorithm"));
  const SearchSpace space = SearchSpace::build(hyper.problem);
  ComparisonOptions o;
  o.repeats = 2;
  const auto spaces = two_spaces();
  const Comparison training(spaces, o);
  auto run = [&](std::uint64_t seed) {
    HyperparameterEvaluator evaluator(space, "genetic_algorithm", training);
    auto meta = make_strategy("random_sample");
    TuningOptions t;
    t.seed = seed;
    t.budget.max_evaluations = 5;
    return tune(space, evaluator, *meta, t);
  };
  const TuningResult a = run(1), b = run(1);
  ASSERT_EQ(a.evaluations, 5u);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < a.trace.size(); ++i) {
    EXPECT_EQ(a.trace[i].index, b.trace[i].index);
    EXPECT_EQ(a.trace.values(i)[0], b.trace.values(i)[0]);  // deterministic scores
  }
  ASSERT_TRUE(a.trace.best());
  for (std::size_t i = 0; i < a.trace.size(); ++i) EXPECT_LE(a.trace.values(i)[0], a.trace.values(*a.trace.best())[0]);
}

TEST(HyperparameterEvaluator, HyperparametersOutsideTheGridAreFixedAndRecorded) {
  const auto& ga = info("genetic_algorithm");
  const Problem grid = ProblemBuilder("g").parameter("popsize", {8, 16}).max_threads(std::nullopt).build();
  // Outside the grid: the defaults, or the values of a given base.
  const auto defaults = fixed_hyperparameters(ga, grid);
  ASSERT_EQ(defaults.size(), ga.hyperparameters.size() - 1);
  EXPECT_EQ(defaults[0].first, "maxiter");
  const auto fixed = fixed_hyperparameters(ga, grid, {{"elitism", Value(0)}, {"popsize", Value(99)}});
  const auto elitism = std::find_if(fixed.begin(), fixed.end(), [](const auto& f) { return f.first == "elitism"; });
  ASSERT_NE(elitism, fixed.end());
  EXPECT_EQ(elitism->second.as_int(), 0);
  EXPECT_EQ(settings_text({{"a", Value(1)}, {"b", Value(0.5)}, {"c", Value("x")}}), "a=1,b=0.5,c=x");

  ComparisonOptions o;
  o.repeats = 2;
  const auto spaces = two_spaces();
  const Comparison training(spaces, o);
  const SearchSpace space = SearchSpace::build(grid);
  HyperparameterEvaluator evaluator(space, "genetic_algorithm", training, fixed);
  ASSERT_EQ(evaluator.evaluate(0).status, Status::ok);
  const ScoredSetting& s = *evaluator.scored(0);
  EXPECT_EQ(s.label, "genetic_algorithm:popsize=8");
  // The label seeds the runs; the settings are the grid's and the fixed ones.
  StrategySpec full{s.label, "genetic_algorithm", {{"popsize", Value(8)}}};
  full.hyperparameters.insert(full.hyperparameters.end(), fixed.begin(), fixed.end());
  EXPECT_EQ(score_settings(training, {full}).front(), s.score);
  const EvaluationRecord r = evaluator.record(0);
  ASSERT_NE(r.find("fixed_hyperparameters"), nullptr);
  EXPECT_EQ(r.find("fixed_hyperparameters")->value.as_string(), settings_text(fixed));
  EXPECT_NE(settings_text(fixed).find("elitism=0"), std::string::npos);
}

TEST(HyperparameterEvaluator, MeanScoresOverSeedsAreMeansOfComparisonsWithThoseSeeds) {
  ComparisonOptions o;
  o.repeats = 2;
  const auto spaces = two_spaces();
  const std::vector<StrategySpec> settings{parse_strategy_spec("random_sample"),
                                           parse_strategy_spec("genetic_algorithm:popsize=10")};
  const auto means = mean_scores_over_seeds(spaces, o, settings, {3, 4});
  ASSERT_EQ(means.size(), 2u);
  for (std::size_t i = 0; i < settings.size(); ++i) {
    double sum = 0;
    for (std::uint64_t seed : {3u, 4u}) {
      ComparisonOptions with = o;
      with.seed = seed;
      sum += compare(spaces, {settings[i]}, with).aggregate[0].score;
    }
    EXPECT_NEAR(means[i], sum / 2, 1e-12) << settings[i].label;
  }
  EXPECT_THROW(mean_scores_over_seeds(spaces, o, settings, {}), std::invalid_argument);
}

std::string hyper_cache(const std::string& strategy) {
  return shared_path("data/benchmark_hub/hyperparametertuning/cachefiles/hyperparamtuning_paper_bruteforce_" + strategy +
                     ".json");
}

// Kernel Tuner's dual_annealing cache has 8 settings: the reference's baseline (one rank optimistic) reaches the
// optimum after 3 draws, inside the time range, so P divides by zero. The reference raises; so do we, naming the
// space, instead of scoring 1e12 from a rounding residue.
TEST(MetaStrategies, ASpaceTooSmallForTheMethodologyIsAClearError) {
  const auto spaces = load_spaces({hyper_cache("dual_annealing")});
  const std::string what = testing::error_of<std::invalid_argument>(
      [&] { compare(spaces, {parse_strategy_spec("random_sample")}, ComparisonOptions{}); });
  EXPECT_NE(what.find("hyperparamtuning_paper_bruteforce_dual_annealing"), std::string::npos) << what;
  EXPECT_NE(what.find("division by zero"), std::string::npos) << what;
  // Found when the spaces are prepared, before any strategy runs.
  EXPECT_THROW(Comparison(spaces, ComparisonOptions{}), std::invalid_argument);
}

// The exact baseline is the value at the expected rank of the best of M draws without replacement: enumerate every
// M-subset for the expected rank.
TEST(ExactBaseline, IsTheValueAtTheExpectedRankOfTheBestOfMDraws) {
  const std::vector<double> values{5.0, 3.5, 9.0, 1.0, 7.25, 2.0, 8.0};  // minimised
  const auto stats = SpaceStatistics::from_values("seven", values, std::vector<double>(values.size(), 1.0), true);
  std::vector<double> worst_to_best = values;
  std::sort(worst_to_best.begin(), worst_to_best.end(), std::greater<>());
  const RandomSearchBaseline exact(stats, BaselineKind::exact), reference(stats);
  const std::size_t n = values.size();
  for (long m = 1; m <= static_cast<long>(n); ++m) {
    double rank_sum = 0;  // 0-based rank of the best, worst first
    std::size_t subsets = 0;
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      if (__builtin_popcount(mask) != m) continue;
      double best = 1e300;
      for (std::size_t i = 0; i < n; ++i)
        if (mask >> i & 1u) best = std::min(best, values[i]);
      rank_sum += static_cast<double>(std::find(worst_to_best.begin(), worst_to_best.end(), best) - worst_to_best.begin());
      ++subsets;
    }
    const double rank = rank_sum / static_cast<double>(subsets);
    const auto lo = static_cast<std::size_t>(rank);
    const double expected = lo + 1 < n ? worst_to_best[lo] + (rank - static_cast<double>(lo)) * (worst_to_best[lo + 1] - worst_to_best[lo])
                                       : worst_to_best[lo];
    EXPECT_NEAR(exact.after_draws(m), expected, 1e-12) << m;
  }
  // The reference's index is one rank further: after 3 of 7 draws it claims the optimum (1.0); the expected rank
  // is the second best (2.0).
  EXPECT_EQ(reference.after_draws(3), 1.0);
  EXPECT_NEAR(exact.after_draws(3), 2.0, 1e-12);
}

// The paper's §IV-C: our strategies as meta-strategies on Kernel Tuner's brute-forced hyperparameter scores (real
// data, objective score, maximised; the five caches the methodology can score). Against the reference's baseline,
// one rank optimistic, random search itself scores about -0.19 on these 81-243 settings and most strategies stay
// below 0 while beating random search; against the exact baseline the majority is positive.
TEST(MetaStrategies, OnKernelTunersHyperparameterCaches) {
  std::vector<std::string> paths;
  for (const char* s : {"diff_evo", "firefly_algorithm", "genetic_algorithm", "pso", "simulated_annealing"})
    paths.push_back(hyper_cache(s));
  const auto spaces = load_spaces(paths);
  std::vector<StrategySpec> metas;
  for (const char* s : {"genetic_algorithm", "pso", "simulated_annealing", "diff_evo", "firefly_algorithm",
                        "dual_annealing", "hybrid_vndx", "greedy_ils", "bayes_opt", "random_sample"})
    metas.push_back(parse_strategy_spec(s));
  ComparisonOptions o;
  o.repeats = 25;
  for (const BaselineKind kind : {BaselineKind::reference, BaselineKind::exact}) {
    o.baseline = kind;
    const auto report = compare(spaces, metas, o);
    double random = 0;
    for (const auto& a : report.aggregate)
      if (a.strategy == "random_sample") random = a.score;
    int positive = 0, above_random = 0, ours = 0;
    for (const auto& a : report.aggregate) {
      if (a.strategy == "random_sample") continue;
      ++ours;
      positive += a.score > 0;
      above_random += a.score > random;
    }
    SCOPED_TRACE(kind == BaselineKind::exact ? "exact" : "reference");
    EXPECT_EQ(above_random, ours) << "every meta-strategy beats random search run the same way";
    if (kind == BaselineKind::reference)
      EXPECT_LT(random, -0.1) << "the reference's optimistic baseline on small spaces";
    else
      EXPECT_LT(std::abs(random), 0.1) << "random search against an unbiased random-search baseline";
    // The issue's criterion, under both baselines. Before the population strategies shrank their populations on
    // small spaces (strategies/toolkit.hpp) this was 4 of 9 under the reference's baseline.
    EXPECT_GT(2 * positive, ours) << positive << " of " << ours << " meta-strategies score above 0";
  }
}

}  // namespace
}  // namespace ktune::methodology
