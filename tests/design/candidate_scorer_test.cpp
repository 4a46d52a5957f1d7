// Scoring generated strategies in a worker: the prompt's example works and scores like itself every time; each way a
// candidate can fail is an outcome with its message, and the caller goes on.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "ktune/design/candidate_scorer.hpp"
#include "ktune/design/design_prompts.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {
namespace candidate_scorer_test {

using namespace ktune;
using namespace ktune::design;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;
using ktune::testing::write_temp;

const bool kCacheInTemp = [] {
  ::setenv("KTUNE_PLUGIN_CACHE", (temp_dir() / "plugin-cache").c_str(), 1);
  ktune::testing::share_precompiled_plugin_headers();
  return true;
}();

const methodology::Comparison& spaces() {
  static const methodology::Comparison comparison = [] {
    methodology::ComparisonOptions options;
    options.repeats = 5;
    options.threads = 2;
    return methodology::Comparison(
        methodology::load_spaces({shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz"),
                                  shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz")}),
        options);
  }();
  return comparison;
}

std::string candidate(const std::string& file, const std::string& body) {
  return write_temp(file, "#include <memory>\n#include <stdexcept>\n#include <ktune/plugin.hpp>\n"
                          "#include <ktune/strategy_toolkit.hpp>\nnamespace {\n"
                          "struct S final : ktune::Strategy {\n"
                          "  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) "
                          "override {\n" + body + "\n  }\n};\n"
                          "ktune::StrategyInfo describe() { return {\"" + file + "\", \"test\", {}, "
                          "[](const ktune::Hyperparameters&) { return std::make_unique<S>(); }}; }\n"
                          "}\nKTUNE_STRATEGY_PLUGIN(describe)\n");
}

TEST(CandidateScorer, ScoresThePromptsExampleTheSameEveryTime) {
  const std::string path = write_temp("example.cpp", example_strategy_source());
  const CandidateScorer scorer(spaces(), {});
  const CandidateScore a = scorer.score(path);
  ASSERT_TRUE(a.ok) << a.stage << ": " << a.error;
  EXPECT_EQ(a.stage, "scored");
  EXPECT_EQ(a.declared_name, "restarting_hill_climb");
  ASSERT_EQ(a.per_space.size(), 2u);
  EXPECT_GT(a.score, -1.0);
  EXPECT_LE(a.score, 1.0);
  EXPECT_GT(a.compile_seconds, 0.0);
  // The same code under another file name: the same runs (seeds do not depend on the path), the same score.
  const CandidateScore b = scorer.score(write_temp("renamed.cpp", example_strategy_source()));
  ASSERT_TRUE(b.ok);
  EXPECT_EQ(a.score, b.score);
  EXPECT_EQ(a.per_space, b.per_space);
}

TEST(CandidateScorer, TellsACompileError) {
  const CandidateScore s = CandidateScorer(spaces(), {}).score(candidate("broken.cpp", "no_such_function(cost);"));
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.stage, "compile");
  EXPECT_NE(s.error.find("does not compile"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("no_such_function"), std::string::npos) << s.error;
}

TEST(CandidateScorer, TellsAThrow) {
  const CandidateScore s =
      CandidateScorer(spaces(), {}).score(candidate("thrower.cpp", "cost(0); throw std::runtime_error(\"gave up\");"));
  EXPECT_EQ(s.stage, "run");
  EXPECT_NE(s.error.find("gave up"), std::string::npos) << s.error;
}

TEST(CandidateScorer, TellsACrash) {
  const CandidateScore s =
      CandidateScorer(spaces(), {}).score(candidate("crasher.cpp", "cost(0); volatile int* p = nullptr; *p = 1;"));
  EXPECT_EQ(s.stage, "crash");
  // A signal; under AddressSanitizer, its report and exit status.
  EXPECT_NE(s.error.find("the strategy crashed"), std::string::npos) << s.error;
  EXPECT_TRUE(s.error.find("signal 11") != std::string::npos || s.error.find("SEGV") != std::string::npos) << s.error;
}

TEST(CandidateScorer, StopsAnEndlessLoopAtItsLimit) {
  ScoringLimits limits;
  limits.run_seconds = 1;
  const CandidateScore s = CandidateScorer(spaces(), limits)
                               .score(candidate("endless.cpp", "volatile unsigned long n = 0; for (;;) n = n + 1;"));
  EXPECT_EQ(s.stage, "timeout");
  EXPECT_NE(s.error.find("1 s limit"), std::string::npos) << s.error;
  EXPECT_LT(s.wall_seconds, 30.0);
}

TEST(CandidateScorer, TellsAFileThatIsNoPlugin) {
  const CandidateScore s = CandidateScorer(spaces(), {}).score(write_temp("plain.cpp", "int f() { return 1; }\n"));
  EXPECT_EQ(s.stage, "compile");
  EXPECT_NE(s.error.find("not a ktune strategy plug-in"), std::string::npos) << s.error;
}

// A candidate with two hyperparameters: `search` (default false) and `stride` in [1, 4]; `defaults` is what it does
// without searching, then it samples at random.
std::string tunable(const std::string& file, const std::string& defaults) {
  return write_temp(
      file,
      "#include <memory>\n#include <ktune/plugin.hpp>\n#include <ktune/strategy_toolkit.hpp>\nnamespace {\n"
      "struct S final : ktune::Strategy {\n"
      "  bool search; std::int64_t stride;\n"
      "  S(bool s, std::int64_t k) : search(s), stride(k) {}\n"
      "  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {\n"
      "    if (!search) {\n" + defaults + "\n    }\n"
      "    for (std::size_t i = 0; i < space.size(); ++i)\n"
      "      (void)cost((ktune::strategies::fresh_valid_index(space, cost, rng) + static_cast<std::size_t>(stride) - 1)"
      " % space.size());\n"
      "  }\n"
      "};\n"
      "ktune::StrategyInfo describe() {\n"
      "  return {\"tunable\", \"test\",\n"
      "          {{\"search\", ktune::HyperparameterType::Bool, ktune::Value(false), {}, {}, {}, \"search at all\"},\n"
      "           {\"stride\", ktune::HyperparameterType::Int, ktune::Value(1), 1.0, 4.0, {}, \"an offset\"}},\n"
      "          [](const ktune::Hyperparameters& h) {\n"
      "            return std::make_unique<S>(h.get_bool(\"search\"), h.get_int(\"stride\"));\n"
      "          }};\n"
      "}\n"
      "}\nKTUNE_STRATEGY_PLUGIN(describe)\n");
}

// In-the-loop hyperparameter optimisation: the defaults and drawn settings are scored, the best is kept, and scoring
// again with that setting alone (validation) gives the same score.
TEST(CandidateScorer, TunesTheDeclaredHyperparametersAndKeepsTheBestSetting) {
  const std::string path = tunable("tunable.cpp", "for (std::size_t i = 0; i < space.size(); ++i) (void)cost(i);");
  const CandidateScorer scorer(spaces(), {}, {}, HyperparameterSearch{6, 3});
  const CandidateScore tuned = scorer.score(path);
  ASSERT_TRUE(tuned.ok) << tuned.stage << ": " << tuned.error;
  EXPECT_EQ(tuned.settings_scored, 6u);
  ASSERT_TRUE(tuned.default_score);
  EXPECT_GE(tuned.score, *tuned.default_score);
  ASSERT_EQ(tuned.settings.size(), 2u);
  EXPECT_EQ(tuned.settings[0].rfind("search=", 0), 0u);
  EXPECT_EQ(tuned.settings[1].rfind("stride=", 0), 0u);
  // Scored again with the setting found: the same runs, the same score; no search.
  const CandidateScore again = scorer.score(path, tuned.settings);
  ASSERT_TRUE(again.ok) << again.stage << ": " << again.error;
  EXPECT_EQ(again.settings_scored, 1u);
  EXPECT_FALSE(again.default_score);
  EXPECT_EQ(again.settings, tuned.settings);
  EXPECT_DOUBLE_EQ(again.score, tuned.score);
  EXPECT_EQ(again.per_space, tuned.per_space);
  // Without a search the defaults are scored: the same as the search's defaults.
  const CandidateScore plain = CandidateScorer(spaces(), {}).score(path);
  ASSERT_TRUE(plain.ok);
  EXPECT_TRUE(plain.settings.empty());
  EXPECT_DOUBLE_EQ(plain.score, *tuned.default_score);
}

// Settings whose runs cannot be scored cost themselves only: defaults that stop after one evaluation fail, a drawn
// setting that searches is the candidate's score.
TEST(CandidateScorer, ASettingThatCannotBeScoredCostsItselfOnly) {
  const std::string path = tunable("stops_early.cpp", "(void)cost(0); return;");
  const CandidateScore plain = CandidateScorer(spaces(), {}).score(path);
  EXPECT_FALSE(plain.ok);
  EXPECT_EQ(plain.stage, "run");
  const CandidateScore tuned = CandidateScorer(spaces(), {}, {}, HyperparameterSearch{6, 3}).score(path);
  ASSERT_TRUE(tuned.ok) << tuned.stage << ": " << tuned.error;
  EXPECT_FALSE(tuned.default_score);
  ASSERT_FALSE(tuned.settings.empty());
  EXPECT_EQ(tuned.settings[0], "search=true");
}

}  // namespace candidate_scorer_test
}  // namespace
