// ResultsStore: spaces and sessions, records kept bit for bit, duplicates kept once, best by the main objective,
// clear errors for what is no store.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "../io/results_expectations.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/store/results_store.hpp"
#include "named_session.hpp"
#include "temp_files.hpp"

namespace ktune::store {
namespace {

using ktune::testing::error_of;
using ktune::testing::fresh_temp_path;

using ktune::store::testing::named;

SpaceOrigin small_origin() {
  SpaceOrigin o;
  o.kernel_name = "k";
  o.device_name = "GPU";
  o.problem_size = nlohmann::json::array({100, 2});
  o.problem = ProblemBuilder("k").parameter("bx", {32, 64}).parameter("alg", {"a", "b"}).parameter("f", {true, 2.5}).build();
  o.objectives = {"time"};
  o.provenance = {{"backend", "cuda"}, {"kernel_source_hash", "fnv1a64:0123"}};
  return o;
}

EvaluationRecord record(const Problem& p, std::size_t bx, std::size_t alg, std::size_t f, double time) {
  EvaluationRecord r;
  r.config = {p.parameters[0].values[bx], p.parameters[1].values[alg], p.parameters[2].values[f]};
  r.measurements = {{"time", time, "ms"}};
  r.runtimes_ms = {time, time};
  r.timestamp = "2024-01-01 00:00:00+00:00";
  return r;
}

TEST(ResultsStore, KeepsEveryFieldBitForBit) {
  const std::string path = fresh_temp_path("exact.ktune");
  const SpaceOrigin origin = small_origin();
  EvaluationRecord odd = record(origin.problem, 0, 0, 1, 1.0);
  odd.measurements = {{"energy", -INFINITY, ""}, {"nan", NAN, "J"}, {"readings", Value::List{1.5, std::int64_t{2}, "x", 1e300}, ""},
                      {"flag", true, ""}, {"nothing", Value(), ""}, {"whole", 3.0, ""}, {"int", std::int64_t{3}, ""},
                      {"error", "RuntimeFailedConfig", ""}};
  odd.runtimes_ms = {5e-324, 1e-300, 0.1 + 0.2, 123456789.123456789, NAN, INFINITY, -0.0};
  odd.strategy_ms = -0.0;
  odd.verification_ms = 1e16;
  odd.compile_ms = NAN;
  odd.framework_ms = -INFINITY;
  odd.clock_ms = 12.5;
  EvaluationRecord failed = record(origin.problem, 1, 1, 0, 0);
  failed.status = Status::compile_failed;
  failed.message = "error: 'x' undeclared\n  at line 3 \"quoted\" ünïcödé";
  failed.measurements.clear();
  failed.runtimes_ms.clear();
  {
    ResultsStore store(path);
    const auto space = store.space_of(origin);
    const auto session = store.begin_session(space, named("test", "random_sample", 7));
    EXPECT_TRUE(store.add(session, odd));
    EXPECT_TRUE(store.add(session, failed));
  }
  const ResultsStore store(path, OpenMode::existing);
  const auto spaces = store.spaces();
  ASSERT_EQ(spaces.size(), 1u);
  const auto records = store.records(spaces[0].id);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_SAME_RECORD(records[0], odd);
  EXPECT_SAME_RECORD(records[1], failed);
  EXPECT_EQ(records[0].clock_ms, 12.5);
  EXPECT_TRUE(std::signbit(records[0].runtimes_ms[6]));
  EXPECT_TRUE(records[0].measurements[5].value.is_float());
  EXPECT_TRUE(records[0].measurements[6].value.is_int());
  EXPECT_EQ(spaces[0].origin.problem_size, origin.problem_size);
  EXPECT_EQ(spaces[0].origin.provenance, origin.provenance);
  EXPECT_EQ(spaces[0].records, 2u);
  EXPECT_EQ(spaces[0].ok_records, 1u);
  const auto sessions = store.sessions(spaces[0].id);
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].info.strategy, "random_sample");
  EXPECT_EQ(sessions[0].info.seed, std::optional<std::uint64_t>(7));
  EXPECT_FALSE(sessions[0].info.ktune_version.empty());
  EXPECT_FALSE(sessions[0].info.started.empty());
}

TEST(ResultsStore, OneSpacePerOriginAndIdenticalRecordsOnce) {
  ResultsStore store(fresh_temp_path("spaces.ktune"));
  SpaceOrigin origin = small_origin();
  const auto a = store.space_of(origin);
  EXPECT_EQ(store.space_of(origin), a);
  origin.device_name = "other GPU";
  const auto b = store.space_of(origin);
  EXPECT_NE(a, b);
  const auto session = store.begin_session(a, named("test"));
  const auto r = record(origin.problem, 0, 1, 0, 2.0);
  EXPECT_TRUE(store.add(session, r));
  EXPECT_FALSE(store.add(session, r));  // the same record again
  auto again = r;
  again.timestamp = "2024-01-02 00:00:00+00:00";  // measured again: a record of its own
  EXPECT_TRUE(store.add(session, again));
  EXPECT_EQ(store.records(a).size(), 2u);
  EXPECT_EQ(store.records(b).size(), 0u);
}

TEST(ResultsStore, BestByTheMainObjectiveInItsDirection) {
  ResultsStore store(fresh_temp_path("best.ktune"));
  SpaceOrigin origin = small_origin();
  const auto session = store.begin_session(store.space_of(origin), named("test"));
  std::vector<EvaluationRecord> records = {record(origin.problem, 0, 0, 0, 3.0), record(origin.problem, 0, 1, 0, 1.5),
                                           record(origin.problem, 1, 0, 0, 2.0)};
  auto failed = record(origin.problem, 1, 1, 1, 0.1);
  failed.status = Status::runtime_failed;  // never best, whatever it measured
  records.push_back(failed);
  EXPECT_EQ(store.add_all(session, records), 4u);
  const auto best = store.best(store.space_of(origin), 2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].value, 1.5);
  EXPECT_EQ(best[1].value, 2.0);

  origin.objectives = {"GFLOP/s"};  // maximised
  const auto space = store.space_of(origin);
  const auto s2 = store.begin_session(space, named("test"));
  auto slow = record(origin.problem, 0, 0, 0, 1);
  slow.measurements.push_back({"GFLOP/s", 10.0, ""});
  auto fast = record(origin.problem, 0, 1, 0, 1);
  fast.measurements.push_back({"GFLOP/s", 20.0, ""});
  store.add(s2, slow);
  store.add(s2, fast);
  const auto top = store.best(space, 5);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].value, 20.0);
  EXPECT_EQ(top[1].value, 10.0);
}

TEST(ResultsStore, RefusesRecordsThatDoNotFit) {
  ResultsStore store(fresh_temp_path("fit.ktune"));
  const SpaceOrigin origin = small_origin();
  const auto session = store.begin_session(store.space_of(origin), named("test"));
  EvaluationRecord r = record(origin.problem, 0, 0, 0, 1);
  r.config[0] = std::int64_t{48};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { store.add(session, r); }), "bx = 48 is not a declared value");
  r.config.pop_back();
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { store.add(session, r); }), "a record of 2 values for a space of 3");
}

TEST(ResultsStore, ClearErrorsForWhatIsNoStore) {
  const std::string text = ktune::testing::write_temp("not_a_store.ktune", "{\"cache\": {}}\n plus some more text here");
  EXPECT_CONTAINS(error_of<io::InputError>([&] { ResultsStore s(text); }), text + ": not a ktune results store");
  const std::string missing = fresh_temp_path("missing.ktune");
  EXPECT_CONTAINS(error_of<io::InputError>([&] { ResultsStore s(missing, OpenMode::existing); }),
                  missing + ": no such results store");
  EXPECT_CONTAINS(error_of<io::InputError>([&] { ResultsStore s("/nonexistent/dir/s.ktune"); }),
                  "/nonexistent/dir/s.ktune: cannot open the results store");
  ResultsStore store(fresh_temp_path("ids.ktune"));
  EXPECT_CONTAINS(error_of<io::InputError>([&] { (void)store.space(42); }), "no space 42 in the store");
}

}  // namespace
}  // namespace ktune::store
