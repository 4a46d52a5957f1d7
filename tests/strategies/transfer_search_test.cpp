// Transfer: what the sources say about a space (TransferPrior), which sources belong to a space (same_kernel,
// same_origin), and the transfer search's steps: the sources' best first, the agreement check on spread-out controls,
// the fall-back to cold tuning when the space disagrees, the agreeing sources' prior handed to the strategy after.
#include "ktune/tuning/transfer_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/transfer_prior.hpp"
#include "ktune/tuning/transfer_sources.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {
namespace {
namespace transfer_search_test {

Problem problem(std::vector<Value> bx = {1, 2, 4, 8, 16, 32, 64}) {
  return ProblemBuilder("k")
      .parameter("bx", std::move(bx))
      .parameter("by", {1, 2, 4, 8})
      .parameter("u", {0, 1, 2})
      .build();
}

const SearchSpace& space() {
  static const SearchSpace s = SearchSpace::build(problem());
  return s;
}

// A smooth landscape: fastest at bx=16, by=2, u=1.
double landscape(const std::vector<Value>& v) {
  const double bx = std::log2(v[0].to_double()), by = std::log2(v[1].to_double()), u = v[2].to_double();
  return 1.0 + (bx - 4) * (bx - 4) + 2 * (by - 1) * (by - 1) + 0.5 * (u - 1) * (u - 1);
}

// Every configuration of `source_problem` (in its parameter order), costing `cost(values in k's order)`.
std::shared_ptr<const io::ResultsFile> source(const Problem& source_problem,
                                              const std::function<double(const std::vector<Value>&)>& cost,
                                              std::vector<std::size_t> order = {0, 1, 2}) {
  auto file = std::make_shared<io::ResultsFile>();
  file->problem = source_problem;
  file->kernel_name = "k";
  file->device_name = "source GPU";
  const SearchSpace s = SearchSpace::build(source_problem);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EvaluationRecord r;
    r.config = s.values_at(i);
    std::vector<Value> in_k(3);
    for (std::size_t p = 0; p < 3; ++p) in_k[order[p]] = r.config[p];
    r.measurements.push_back({"time", Value(cost(in_k)), "ms"});
    r.runtimes_ms = {cost(in_k)};
    file->records.push_back(std::move(r));
  }
  return file;
}

std::size_t best_index(const SearchSpace& s) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < s.size(); ++i)
    if (landscape(s.values_at(i)) < landscape(s.values_at(best))) best = i;
  return best;
}

TEST(TransferPrior, ExactMatchesGetTheSourcesQuantilesAndRanking) {
  const TransferPrior prior(space(), {{"same", source(problem(), landscape)}}, "time", true);
  ASSERT_EQ(prior.sources(), 1u);
  EXPECT_EQ(prior.ranking(0).size(), space().size());
  EXPECT_EQ(prior.ranking(0).front(), best_index(space()));
  EXPECT_FLOAT_EQ(prior.quantile(0, best_index(space())), 0.0f);
  for (std::size_t i = 1; i < prior.ranking(0).size(); ++i)
    EXPECT_LE(prior.quantile(0, prior.ranking(0)[i - 1]), prior.quantile(0, prior.ranking(0)[i]));
}

TEST(TransferPrior, ParametersMatchByNameInAnyOrder) {
  const Problem reordered = ProblemBuilder("k")
                                .parameter("u", {0, 1, 2})
                                .parameter("bx", {1, 2, 4, 8, 16, 32, 64})
                                .parameter("by", {1, 2, 4, 8})
                                .build();
  // Source column p holds parameter order[p] of k: u is k's 2, bx k's 0, by k's 1.
  const TransferPrior prior(space(), {{"reordered", source(reordered, landscape, {2, 0, 1})}}, "time", true);
  EXPECT_EQ(prior.ranking(0).front(), best_index(space()));
}

TEST(TransferPrior, FailuresRankLastAndValuesTheSourceLacksArePredicted) {
  auto file = std::const_pointer_cast<io::ResultsFile>(
      source(problem({1, 2, 4, 8, 16, 32}), landscape));  // no bx=64 in the source
  file->records[0].status = Status::runtime_failed;
  file->records[0].measurements.clear();
  const TransferPrior prior(space(), {{"partial", file}}, "time", true);
  const auto failed = space().config_of(file->records[0].config);
  ASSERT_TRUE(failed);
  EXPECT_FLOAT_EQ(prior.quantile(0, *space().index_of(*failed)), 1.0f);
  // bx=64 is predicted from bx=32, its nearest: the best u and by at bx=64 rank before the worst at bx=64.
  const auto good = space().config_of({Value(64), Value(2), Value(1)});
  const auto bad = space().config_of({Value(64), Value(8), Value(0)});
  ASSERT_TRUE(good && bad);
  EXPECT_LT(prior.quantile(0, *space().index_of(*good)), prior.quantile(0, *space().index_of(*bad)));
  for (std::size_t i : prior.ranking(0)) EXPECT_NE(space().values_at(i)[0].to_double(), 64.0);
}

TEST(TransferPrior, RefusesASourceOfOtherParametersOrWithoutResults) {
  const Problem other = ProblemBuilder("k").parameter("bx", {1, 2}).parameter("by", {1}).parameter("v", {0}).build();
  try {
    TransferPrior(space(), {{"other.json", source(other, [](const auto&) { return 1.0; })}}, "time", true);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("other.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'u'"), std::string::npos) << e.what();
  }
  auto empty = std::make_shared<io::ResultsFile>();
  empty->problem = problem();
  EXPECT_THROW(TransferPrior(space(), {{"empty.json", empty}}, "time", true), std::invalid_argument);
}

TEST(TransferSources, SameKernelAndSameOrigin) {
  io::ResultsFile a100;
  a100.problem = problem();
  a100.kernel_name = "k";
  a100.device_name = "NVIDIA A100-PCIE-40GB";
  a100.problem_size = nlohmann::json::array({4096, 4096});
  io::ResultsFile a100_t4 = a100;  // T4 files name no device: the file name does
  a100_t4.device_name.clear();
  a100_t4.problem_size = nullptr;
  io::ResultsFile a4000 = a100;
  a4000.device_name = "NVIDIA RTX A4000";
  io::ResultsFile a100_small = a100;
  a100_small.problem_size = nlohmann::json::array({1024, 1024});

  EXPECT_TRUE(same_kernel(a4000, problem(), "k"));
  EXPECT_TRUE(same_kernel(a4000, problem(), ""));
  EXPECT_FALSE(same_kernel(a4000, problem(), "other_kernel"));
  EXPECT_FALSE(same_kernel(a4000, ProblemBuilder("k").parameter("bx", {1}).build(), "k"));

  EXPECT_TRUE(same_origin("d/A100.json.gz", a100, "d/A100.json.gz", a100));
  EXPECT_TRUE(same_origin("d/A100.json.gz", a100, "d/A100_T4.json.gz", a100_t4));
  EXPECT_FALSE(same_origin("d/A100.json.gz", a100, "d/A4000.json.gz", a4000));
  EXPECT_FALSE(same_origin("d/A100.json.gz", a100, "d/A100_1024.json", a100_small));  // another problem size
}

TEST(TransferSources, ACacheAndItsT4TwinAreOneSource) {
  auto cache = std::const_pointer_cast<io::ResultsFile>(source(problem(), landscape));
  cache->device_name = "NVIDIA A100-PCIE-40GB";
  cache->problem_size = nlohmann::json::array({4096, 4096});
  auto t4 = std::make_shared<io::ResultsFile>(*cache);  // T4 files name no device or size
  t4->device_name.clear();
  t4->problem_size = nullptr;
  auto a4000 = std::make_shared<io::ResultsFile>(*cache);
  a4000->device_name = "NVIDIA RTX A4000";
  const std::vector<TransferSource> merged =
      merge_same_device({{"d/A100.json.gz", cache}, {"d/A4000.json.gz", a4000}, {"d/A100_T4.json.gz", t4}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].name, "d/A100.json.gz + d/A100_T4.json.gz");
  EXPECT_EQ(merged[0].results->records.size(), cache->records.size());  // each configuration once
  EXPECT_EQ(merged[0].results->device_name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(merged[1].name, "d/A4000.json.gz");
  EXPECT_EQ(merged[1].results, a4000);  // alone: as it was
  // Twins or not, the prior is the same: one ranking per device.
  const TransferPrior once(space(), {{"d/A100.json.gz", cache}, {"d/A4000.json.gz", a4000}}, "time", true);
  const TransferPrior twins(space(), merged, "time", true);
  ASSERT_EQ(twins.sources(), once.sources());
  for (std::size_t s = 0; s < once.sources(); ++s) EXPECT_EQ(twins.ranking(s), once.ranking(s));
}

TEST(TransferSources, TwoDevicesWithOneFileNameStayApart) {
  auto a100 = std::const_pointer_cast<io::ResultsFile>(source(problem(), landscape));
  a100->device_name = "NVIDIA A100-PCIE-40GB";
  auto a4000 = std::make_shared<io::ResultsFile>(*a100);
  a4000->device_name = "NVIDIA RTX A4000";
  auto small = std::make_shared<io::ResultsFile>(*a100);  // the A100 at another problem size
  a100->problem_size = nlohmann::json::array({4096, 4096});
  small->problem_size = nlohmann::json::array({1024, 1024});
  EXPECT_EQ(merge_same_device({{"a/results.json", a100}, {"b/results.json", a4000}, {"c/A100.json", small}}).size(),
            3u);
}

TEST(TransferSources, TwoPartialRunsOfOneDeviceMergeIntoTheirUnion) {
  // Run 1 measured bx <= 8 with one failure; run 2 (parameters in another order) bx >= 8 and what failed in run 1.
  auto all = source(problem(), landscape);
  auto run1 = std::make_shared<io::ResultsFile>(*all), run2 = std::make_shared<io::ResultsFile>(*all);
  run1->records.clear();
  run2->records.clear();
  run2->problem = ProblemBuilder("k")
                      .parameter("u", {0, 1, 2})
                      .parameter("by", {1, 2, 4, 8})
                      .parameter("bx", {8, 16, 32, 64, 128})
                      .build();
  for (const EvaluationRecord& r : all->records)
    if (r.config[0].to_double() <= 8) run1->records.push_back(r);
  run1->records[0].status = Status::compile_failed;
  run1->records[0].measurements.clear();
  const std::vector<Value> failed = run1->records[0].config;
  for (const EvaluationRecord& r : all->records) {
    if (r.config[0].to_double() < 8 && !std::equal(failed.begin(), failed.end(), r.config.begin(), same_value))
      continue;
    EvaluationRecord moved = r;
    moved.config = {r.config[2], r.config[1], r.config[0]};
    run2->records.push_back(std::move(moved));
  }
  EvaluationRecord beyond = run2->records.back();  // a value run 1 never declared
  beyond.config[2] = Value(128);
  run2->records.push_back(beyond);

  const auto merged = merge_same_device({{"first/gpu.json", run1}, {"second/gpu.json", run2}});
  ASSERT_EQ(merged.size(), 1u);
  const io::ResultsFile& m = *merged[0].results;
  EXPECT_EQ(m.records.size(), all->records.size() + 1);
  EXPECT_EQ(m.problem.parameters[0].name, "bx");
  EXPECT_EQ(m.problem.parameters[0].values.back().to_double(), 128.0);
  for (const EvaluationRecord& r : m.records) EXPECT_EQ(r.status, Status::ok);  // run 2 ran what failed in run 1
  const auto ran = std::find_if(m.records.begin(), m.records.end(), [&](const EvaluationRecord& r) {
    return std::equal(failed.begin(), failed.end(), r.config.begin(), same_value);
  });
  ASSERT_NE(ran, m.records.end());
  EXPECT_TRUE(ran->objective("time"));
}

// Test strategies for the hand-over: they say they ran, and what prior they got.
struct Seen {
  bool cold = false, agreed = false;
  std::size_t evaluations_before = 0;
  PriorColumns prior;
};

class Marker final : public Strategy {
 public:
  Marker(Seen& seen, bool cold, PriorColumns prior = {}) : seen_(seen), cold_(cold), prior_(std::move(prior)) {}
  void run(const SearchSpace&, CostFunction& cost, Rng&) override {
    (cold_ ? seen_.cold : seen_.agreed) = true;
    seen_.evaluations_before = cost.evaluations();
    seen_.prior = prior_;
  }

 private:
  Seen& seen_;
  bool cold_;
  PriorColumns prior_;
};

std::vector<std::size_t> run_transfer(std::shared_ptr<const TransferPrior> prior, Seen& seen,
                                      TransferSettings settings = {}) {
  testing::FakeEvaluator eval(
      space(), [](std::size_t i) { return landscape(space().values_at(i)); }, [](std::size_t) { return 10.0; });
  auto strategy = make_transfer_search(
      std::move(prior), settings, [&seen](auto p) { return std::make_unique<Marker>(seen, false, std::move(p)); },
      std::make_unique<Marker>(seen, true));
  TuningOptions options;
  options.seed = 3;
  const TuningResult r = tune(space(), eval, *strategy, options);
  std::vector<std::size_t> trace;
  for (std::size_t i = 0; i < r.trace.size(); ++i) trace.push_back(r.trace[i].index);
  return trace;
}

TEST(TransferSearch, AnAgreeingSourceLeadsAndItsPriorIsHandedOver) {
  auto prior = std::make_shared<const TransferPrior>(
      space(), std::vector<TransferSource>{{"same", source(problem(), landscape)}}, "time", true);
  Seen seen;
  const TransferSettings settings;
  const auto trace = run_transfer(prior, seen, settings);
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(trace.front(), best_index(space()));  // the source's best, first
  EXPECT_TRUE(seen.agreed);
  EXPECT_FALSE(seen.cold);
  EXPECT_EQ(seen.evaluations_before, settings.opening_for(1) + settings.control + settings.guided);
  // The guided step took the source's next best.
  for (std::size_t g = 0; g < settings.guided; ++g)
    EXPECT_LE(prior->quantile(0, trace[settings.opening_for(1) + settings.control + g]), 0.05f);
  ASSERT_EQ(seen.prior.size(), 1u);
  EXPECT_EQ(std::min_element(seen.prior[0]->begin(), seen.prior[0]->end()) - seen.prior[0]->begin(),
            static_cast<std::ptrdiff_t>(best_index(space())));
}

// Three devices, each with its own best: all three bests open the run whatever the order of the files (with an
// opening of 2 the third file's best waited for the guided step, or never came).
TEST(TransferSearch, EverySourcesBestOpensTheRunInAnyOrder) {
  auto shifted = [](double dx, double dy) {
    return [dx, dy](const std::vector<Value>& v) {
      const double bx = std::log2(v[0].to_double()), by = std::log2(v[1].to_double());
      return 1.0 + (bx - dx) * (bx - dx) + (by - dy) * (by - dy) + 0.1 * v[2].to_double();
    };
  };
  const std::vector<TransferSource> sources{{"a", source(problem(), shifted(4, 1))},
                                            {"b", source(problem(), shifted(3, 1))},
                                            {"c", source(problem(), shifted(4, 2))}};
  std::vector<std::size_t> bests;
  for (const TransferSource& s : sources)
    bests.push_back(TransferPrior(space(), {s}, "time", true).ranking(0).front());
  for (const auto& order : std::vector<std::vector<std::size_t>>{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}) {
    std::vector<TransferSource> given;
    for (std::size_t k : order) given.push_back(sources[k]);
    Seen seen;
    const auto trace =
        run_transfer(std::make_shared<const TransferPrior>(space(), given, "time", true), seen, TransferSettings{});
    ASSERT_GE(trace.size(), 3u);
    std::vector<std::size_t> first(trace.begin(), trace.begin() + 3), expected = bests;
    std::sort(first.begin(), first.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(first, expected);
  }
}

TEST(TransferSearch, AnInvertedSourceFallsBackToColdTuningAfterTheControls) {
  auto prior = std::make_shared<const TransferPrior>(
      space(),
      std::vector<TransferSource>{{"inverted", source(problem(), [](const auto& v) { return 100 - landscape(v); })}},
      "time", true);
  Seen seen;
  const TransferSettings settings;
  const auto trace = run_transfer(prior, seen, settings);
  EXPECT_TRUE(seen.cold);
  EXPECT_FALSE(seen.agreed);
  EXPECT_EQ(seen.evaluations_before, settings.opening_for(1) + settings.control);
}

TEST(TransferSearch, WithoutSourcesItIsTheColdStrategy) {
  Seen seen;
  run_transfer(nullptr, seen);
  EXPECT_TRUE(seen.cold);
  EXPECT_EQ(seen.evaluations_before, 0u);
}

TEST(TransferSearch, RunsWithinTinyBudgetsAndIsReproducible) {
  auto prior = std::make_shared<const TransferPrior>(
      space(), std::vector<TransferSource>{{"same", source(problem(), landscape)}}, "time", true);
  for (std::uint64_t n : {1u, 2u, 5u}) {
    testing::FakeEvaluator eval(
        space(), [](std::size_t i) { return landscape(space().values_at(i)); }, [](std::size_t) { return 10.0; });
    auto strategy = make_transfer_search(prior, {}, "auto", {});
    TuningOptions options;
    options.seed = 9;
    options.budget.max_evaluations = n;
    const TuningResult a = tune(space(), eval, *strategy, options);
    EXPECT_EQ(a.trace.size(), n);
    EXPECT_EQ(a.trace[0].index, best_index(space()));
    auto again = make_transfer_search(prior, {}, "auto", {});
    const TuningResult b = tune(space(), eval, *again, options);
    ASSERT_EQ(b.trace.size(), n);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(a.trace[i].index, b.trace[i].index);
  }
}

TEST(TransferSearch, SettingsAreParsedWithClearErrors) {
  TransferSettings s;
  apply_transfer_settings(
      s, {"opening=2", "control=0", "guided=5", "min_agreement=0.5", "sharpness=2", "agreed=hybrid_vndx"});
  EXPECT_EQ(s.opening, 2u);
  EXPECT_EQ(s.opening_for(3), 2u);  // set: exactly
  apply_transfer_settings(s, {"opening=sources"});
  EXPECT_EQ(s.opening_for(1), 2u);
  EXPECT_EQ(s.opening_for(3), 3u);
  EXPECT_EQ(s.opening_for(9), TransferSettings::kOpeningSources);
  EXPECT_EQ(s.control, 0u);
  EXPECT_EQ(s.guided, 5u);
  EXPECT_DOUBLE_EQ(s.min_agreement, 0.5);
  EXPECT_DOUBLE_EQ(s.sharpness, 2);
  EXPECT_EQ(s.agreed, "hybrid_vndx");
  for (const char* bad : {"opening", "opening=-1", "opening=2x", "colour=1", "agreed=no_such_strategy"}) {
    try {
      apply_transfer_settings(s, {bad});
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

}  // namespace transfer_search_test
}  // namespace
}  // namespace ktune
