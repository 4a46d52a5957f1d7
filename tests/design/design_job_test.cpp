// The design loop with a scripted language model in process: failures recorded and fed back, the best kept,
// survivors by elitism, a resumed run that neither asks nor scores again what the log holds, determinism, refusals.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ktune/design/design_log.hpp"
#include "ktune/design/resembling_spaces.hpp"
#include "ktune/io/problem_file.hpp"
#include "ktune/jobs/design_job.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {

using namespace ktune;
using namespace ktune::design;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;

const bool kCacheInTemp = [] {
  ::setenv("KTUNE_PLUGIN_CACHE", (temp_dir() / "plugin-cache").c_str(), 1);
  ktune::testing::share_precompiled_plugin_headers();
  return true;
}();

// Replies in order; an empty one throws LlmError (the model is unreachable).
class ScriptedClient final : public LlmClient {
 public:
  explicit ScriptedClient(std::vector<std::string> replies) : replies_(std::move(replies)) {}
  LlmReply complete(const std::vector<ChatMessage>& messages) override {
    asked.push_back(messages.at(1).content);
    if (next_ >= replies_.size() || replies_[next_].empty()) {
      ++next_;
      throw LlmError("scripted: unreachable");
    }
    LlmReply r;
    r.content = replies_[next_++];
    return r;
  }
  std::vector<std::string> asked;

 private:
  std::vector<std::string> replies_;
  std::size_t next_ = 0;
};

std::string strategy(const std::string& name, int sample) {
  return "# Description: " + name + "\n```cpp\n#include <memory>\n#include <ktune/plugin.hpp>\n"
         "#include <ktune/strategy_toolkit.hpp>\nnamespace {\nstruct S final : ktune::Strategy {\n"
         "  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {\n"
         "    for (;;) {\n      std::size_t best = 0; double c = ktune::CostFunction::kInvalidCost;\n"
         "      for (int i = 0; i < " + std::to_string(sample) + "; ++i) {\n"
         "        const std::size_t x = ktune::strategies::fresh_valid_index(space, cost, rng);\n"
         "        const double v = cost(x); if (v < c) { c = v; best = x; } }\n"
         "      for (std::size_t n : space.neighbours(best, ktune::NeighbourMethod::Hamming)) cost(n);\n    }\n  }\n};\n"
         "ktune::StrategyInfo describe() { return {\"" + name + "\", \"d\", {}, "
         "[](const ktune::Hyperparameters&) { return std::make_unique<S>(); }}; }\n}\nKTUNE_STRATEGY_PLUGIN(describe)\n```\n";
}
const std::string kBroken = "# Description: broken\n```cpp\n#include <ktune/plugin.hpp>\nint f() { return missing_name; }\n```";
const std::string kNoCode = "I would rather explain it in words.";

DesignRequest request(const std::string& dir) {
  DesignRequest r;
  r.spaces = {shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz"),
              shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz")};
  r.repeats = 5;
  r.threads = 2;
  r.parents = 2;
  r.offspring = 2;
  r.budget = 6;
  r.seed = 3;
  r.output_dir = (temp_dir() / dir).string();
  return r;
}

std::vector<std::string> script() {
  return {strategy("one", 2), kBroken, strategy("two", 10), kNoCode, strategy("three", 30), strategy("four", 5)};
}

std::size_t count_events(const std::string& log, const std::string& event) {
  std::size_t n = 0;
  for (const auto& r : DesignLog::read(log)) n += r.value("event", "") == event ? 1 : 0;
  return n;
}

TEST(DesignJob, RecordsFailuresFeedsThemBackAndKeepsTheBest) {
  ScriptedClient client(script());
  DesignJob job(request("loop"), client);
  const DesignResult result = job.run();
  ASSERT_EQ(result.candidates.size(), 6u);
  EXPECT_EQ(result.llm_calls, 6u);
  EXPECT_EQ(result.candidates[1].result.stage, "compile");
  EXPECT_EQ(result.candidates[3].result.stage, "reply");
  // The call after a failure repairs it, with its error in the prompt.
  EXPECT_EQ(result.candidates[2].kind, PromptKind::repair);
  EXPECT_EQ(result.candidates[2].parent, 1u);
  EXPECT_NE(client.asked[2].find("missing_name"), std::string::npos);
  EXPECT_EQ(result.candidates[4].kind, PromptKind::repair);
  EXPECT_NE(client.asked[4].find("no code block"), std::string::npos);
  // The best first; the population are the best of all (elitism).
  ASSERT_EQ(result.leaderboard.size(), 4u);
  for (std::size_t i = 1; i < result.leaderboard.size(); ++i)
    EXPECT_GE(result.candidates[result.leaderboard[i - 1]].result.score,
              result.candidates[result.leaderboard[i]].result.score);
  ASSERT_EQ(result.population.size(), 2u);
  EXPECT_EQ(result.population[0], result.leaderboard[0]);
  EXPECT_EQ(result.population[1], result.leaderboard[1]);
  ASSERT_FALSE(result.best_paths.empty());
  std::ifstream best(result.best_paths[0]);
  std::string code((std::istreambuf_iterator<char>(best)), std::istreambuf_iterator<char>());
  EXPECT_NE(code.find("\"" + result.candidates[result.leaderboard[0]].name + "\""), std::string::npos);
  EXPECT_EQ(count_events(result.log_path, "candidate"), 6u);
  EXPECT_EQ(count_events(result.log_path, "reply"), 6u);
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(result.output_dir) / "leaderboard.json"));
}

TEST(DesignJob, ResumesWithoutAskingOrScoringAgain) {
  DesignRequest r = request("resume");
  {
    std::vector<std::string> first = script();
    first.resize(3);
    first.push_back("");  // the model goes away at the fourth call
    ScriptedClient client(first);
    DesignJob job(r, client);
    EXPECT_THROW(job.run(), LlmError);
  }
  EXPECT_EQ(count_events(r.output_dir + "/design.jsonl", "candidate"), 3u);
  const std::vector<std::string> all = script();
  std::vector<std::string> rest(all.begin() + 3, all.end());
  ScriptedClient client(rest);
  DesignJob job(r, client);
  const DesignResult resumed = job.run();
  EXPECT_EQ(resumed.resumed, 3u);
  EXPECT_EQ(resumed.llm_calls, 3u);
  EXPECT_EQ(client.asked.size(), 3u);
  EXPECT_EQ(count_events(resumed.log_path, "candidate"), 6u);

  // The same as a run that was never interrupted.
  ScriptedClient whole(script());
  const DesignResult straight = DesignJob(request("straight"), whole).run();
  ASSERT_EQ(straight.candidates.size(), resumed.candidates.size());
  for (std::size_t i = 0; i < straight.candidates.size(); ++i) {
    EXPECT_EQ(straight.candidates[i].name, resumed.candidates[i].name);
    EXPECT_EQ(straight.candidates[i].kind, resumed.candidates[i].kind);
    EXPECT_EQ(straight.candidates[i].parent, resumed.candidates[i].parent);
    EXPECT_EQ(straight.candidates[i].result.stage, resumed.candidates[i].result.stage);
    EXPECT_EQ(straight.candidates[i].result.score, resumed.candidates[i].result.score);
  }
  EXPECT_EQ(straight.leaderboard, resumed.leaderboard);
  // Run again when finished: everything from the log, nothing asked.
  ScriptedClient none({});
  const DesignResult again = DesignJob(r, none).run();
  EXPECT_EQ(again.resumed, 6u);
  EXPECT_TRUE(none.asked.empty());
  EXPECT_EQ(again.leaderboard, resumed.leaderboard);
}

TEST(DesignJob, ALongerBudgetContinuesAFinishedRun) {
  DesignRequest r = request("longer");
  r.budget = 4;
  std::vector<std::string> first = script();
  first.resize(4);
  ScriptedClient a(first);
  DesignJob(r, a).run();
  r.budget = 6;
  ScriptedClient b({strategy("five", 3), strategy("six", 7)});
  const DesignResult result = DesignJob(r, b).run();
  EXPECT_EQ(result.candidates.size(), 6u);
  EXPECT_EQ(b.asked.size(), 2u);
}

TEST(DesignJob, RefusesALogOfAnotherRun) {
  DesignRequest r = request("other");
  r.budget = 1;
  ScriptedClient a({strategy("one", 2)});
  DesignJob(r, a).run();
  r.seed = 4;
  ScriptedClient b({strategy("one", 2)});
  DesignJob job(r, b);
  try {
    job.run();
    FAIL() << "a log of another seed was resumed";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("other settings"), std::string::npos) << e.what();
  }
  r.restart = true;
  ScriptedClient c({strategy("one", 2)});
  EXPECT_EQ(DesignJob(r, c).run().candidates.size(), 1u);
}

// In-the-loop hyperparameter optimisation: the prompt asks for declared hyperparameters, the candidate's best setting
// is kept in its result and the log, validation scores it with that setting, and a log of a run without the search
// is not resumed by one with it.
TEST(DesignJob, TunesEachCandidatesHyperparametersWhenAsked) {
  DesignRequest r = request("hpo");
  r.budget = 1;
  r.hyperparameter_settings = 4;
  r.validation_spaces = {shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz")};
  const std::string tunable =
      "# Description: sampled hill climbing\n```cpp\n#include <memory>\n#include <ktune/plugin.hpp>\n"
      "#include <ktune/strategy_toolkit.hpp>\nnamespace {\nstruct S final : ktune::Strategy {\n"
      "  std::int64_t sample; explicit S(std::int64_t s) : sample(s) {}\n"
      "  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {\n"
      "    for (;;) {\n      std::size_t best = 0; double c = ktune::CostFunction::kInvalidCost;\n"
      "      for (std::int64_t i = 0; i < sample; ++i) {\n"
      "        const std::size_t x = ktune::strategies::fresh_valid_index(space, cost, rng);\n"
      "        const double v = cost(x); if (v < c) { c = v; best = x; } }\n"
      "      for (std::size_t n : space.neighbours(best, ktune::NeighbourMethod::Hamming)) cost(n);\n    }\n  }\n};\n"
      "ktune::StrategyInfo describe() { return {\"sampled\", \"d\", "
      "{{\"sample\", ktune::HyperparameterType::Int, ktune::Value(2), 1.0, 40.0, {}, \"samples per round\"}}, "
      "[](const ktune::Hyperparameters& h) { return std::make_unique<S>(h.get_int(\"sample\")); }}; }\n}\n"
      "KTUNE_STRATEGY_PLUGIN(describe)\n```\n";
  ScriptedClient client({tunable});
  const DesignResult result = DesignJob(r, client).run();
  ASSERT_EQ(client.asked.size(), 1u);
  EXPECT_NE(client.asked[0].find("## Hyperparameters"), std::string::npos);
  ASSERT_EQ(result.candidates.size(), 1u);
  const CandidateScore& scored = result.candidates[0].result;
  ASSERT_TRUE(scored.ok) << scored.stage << ": " << scored.error;
  EXPECT_EQ(scored.settings_scored, 4u);
  ASSERT_TRUE(scored.default_score);
  EXPECT_GE(scored.score, *scored.default_score);
  ASSERT_EQ(scored.settings.size(), 1u);
  EXPECT_EQ(scored.settings[0].rfind("sample=", 0), 0u);
  EXPECT_TRUE(result.candidates[0].validation_score);
  bool logged = false;
  for (const auto& record : DesignLog::read(result.log_path))
    if (record.value("event", "") == "candidate")
      logged = record.at("result").at("settings") == nlohmann::json(scored.settings);
  EXPECT_TRUE(logged);
  r.hyperparameter_settings = 0;
  ScriptedClient again({tunable});
  EXPECT_THROW(DesignJob(r, again).run(), JobError);
}

TEST(DesignJob, OnePlusOneWithoutElitismKeepsTheLatestOffspring) {
  DesignRequest r = request("comma");
  r.parents = r.offspring = 1;
  r.elitism = false;
  r.budget = 3;
  r.selection = ParentSelection::tournament;
  ScriptedClient client({strategy("a", 30), strategy("b", 2), strategy("c", 10)});
  const DesignResult result = DesignJob(r, client).run();
  ASSERT_EQ(result.population.size(), 1u);
  EXPECT_EQ(result.population[0], 2u);  // (1, 1): the last offspring survives whatever it scored
  EXPECT_EQ(result.candidates[1].parent, 0u);
  EXPECT_EQ(result.candidates[2].parent, 1u);
}

TEST(DesignJob, ShowsTheProblemWhenAsked) {
  DesignRequest r = request("problem");
  r.budget = 1;
  r.problem_info = shared_path("data/benchmark_hub/t1/convolution_milo.json");
  if (!std::filesystem::exists(r.problem_info)) GTEST_SKIP() << r.problem_info;
  ScriptedClient client({strategy("one", 2)});
  DesignJob(r, client).run();
  ASSERT_EQ(client.asked.size(), 1u);
  EXPECT_NE(client.asked[0].find("T1 file"), std::string::npos);
  EXPECT_NE(client.asked[0].find("the budget is about"), std::string::npos);
}

TEST(DesignJob, RefusesBadRequests) {
  ScriptedClient client({});
  DesignRequest r = request("bad");
  r.spaces.clear();
  EXPECT_THROW(DesignJob(r, client), JobError);
  r = request("bad");
  r.spaces.push_back("/no/such/space.json.gz");
  EXPECT_THROW(DesignJob(r, client), JobError);
  r = request("bad");
  r.mutations = {PromptKind::repair};
  EXPECT_THROW(DesignJob(r, client), JobError);
}

}  // namespace

namespace {

TEST(ResemblingSpaces, RanksTheSameKernelFirst) {
  const std::string caches = shared_path("data/benchmark_hub/cachefiles/");
  const Problem convolution = io::read_problem_file(shared_path("data/benchmark_hub/t1/convolution_milo.json")).problem;
  const std::vector<std::string> candidates = {caches + "pnpoly/RTX_3090.json.gz",
                                               caches + "dedispersion_milo/A100.json.gz",
                                               caches + "convolution_milo/A4000.json.gz"};
  const auto ranked = design::rank_by_resemblance(convolution, candidates);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].path, candidates[2]);
  EXPECT_GT(ranked[0].similarity, ranked[1].similarity);
  EXPECT_DOUBLE_EQ(design::problem_similarity(convolution, convolution), 1.0);
  Problem other;
  other.parameters.push_back({"unrelated", {Value(std::int64_t{1}), Value(std::int64_t{2})}});
  EXPECT_LT(design::problem_similarity(convolution, other), 0.4);
}

TEST(DesignJob, ForAProblemScoresOnTheSpacesMostLikeIt) {
  DesignRequest r = request("for_t1");
  r.for_problem = shared_path("data/benchmark_hub/t1/dedispersion_milo.json");
  r.spaces = {shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz"),
              shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz"),
              shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz")};
  r.similar = 1;
  r.budget = 1;
  ScriptedClient client({strategy("one", 2)});
  const DesignResult result = DesignJob(r, client).run();
  ASSERT_EQ(result.training_spaces.size(), 1u);
  EXPECT_EQ(result.training_spaces[0], r.spaces[1]);
  EXPECT_NE(result.space_choice.find("most like it"), std::string::npos);
  EXPECT_NE(client.asked[0].find("dedispersion"), std::string::npos);  // the T1 file is in the prompt
}

TEST(DesignJob, ForACacheScoresOnItAndTunesWithTheBest) {
  DesignRequest r = request("for_cache");
  r.for_problem = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz");
  r.spaces.clear();
  r.budget = 2;
  r.tune_budget = Budget{};
  r.tune_budget->max_evaluations = 30;
  ScriptedClient client({strategy("one", 2), strategy("two", 8)});
  const DesignResult result = DesignJob(r, client).run();
  EXPECT_EQ(result.training_spaces, std::vector<std::string>{r.for_problem});
  EXPECT_NE(result.space_choice.find("its own earlier results"), std::string::npos);
  ASSERT_TRUE(result.tuned.has_value());
  EXPECT_EQ((*result.tuned)["evaluations"], 30);
  EXPECT_NE(result.tuned_summary.find("30 evaluations"), std::string::npos);
}

TEST(DesignJob, ForAProblemWithoutResultsOrSpacesIsRefused) {
  DesignRequest r = request("for_nothing");
  r.for_problem = shared_path("data/benchmark_hub/t1/dedispersion_milo.json");
  r.spaces.clear();
  ScriptedClient client({});
  try {
    DesignJob job(r, client);
    FAIL();
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("no earlier results"), std::string::npos) << e.what();
  }
}

}  // namespace
