// Several processes writing one store at once lose nothing; a process killed while writing loses at most the record
// it was adding, and the store stays consistent.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "ktune/store/results_store.hpp"
#include "named_session.hpp"
#include "temp_files.hpp"

namespace ktune::store {
namespace {

using ktune::testing::fresh_temp_path;

using ktune::store::testing::named;

SpaceOrigin origin() {
  SpaceOrigin o;
  o.kernel_name = "k";
  o.device_name = "GPU";
  o.problem_size = 1000;
  std::vector<Value> values;
  for (int i = 0; i < 1000; ++i) values.emplace_back(i);
  o.problem = ProblemBuilder("k").parameter("writer", {0, 1, 2, 3, 4}).parameter("i", values).build();
  o.objectives = {"time"};
  return o;
}

// Record i of a writer: configuration i mod 1000, measured time unique to i.
EvaluationRecord record(int writer, int i) {
  EvaluationRecord r;
  r.config = {Value(writer), Value(i % 1000)};
  r.measurements = {{"time", 1.0 + i * 1e-3, "ms"}};
  r.runtimes_ms = {1.0 + i * 1e-3};
  return r;
}

// A child process: opens the store itself (as another program would) and adds `count` records one at a time,
// writing the number of each committed record to `pipe` after add() returned.
[[noreturn]] void writer_process(const std::string& path, int writer, int count, int pipe = -1) {
  int status = 0;
  try {
    ResultsStore store(path);
    const auto session = store.begin_session(store.space_of(origin()), named("writer " + std::to_string(writer)));
    for (int i = 0; i < count; ++i) {
      store.add(session, record(writer, i));
      if (pipe >= 0 && ::write(pipe, &i, sizeof i) != sizeof i) status = 3;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer %d: %s\n", writer, e.what());
    status = 2;
  }
  std::fflush(stderr);
  ::_exit(status);  // no test-framework or temp-directory clean-up in the child
}

TEST(StoreSafety, FourProcessesTimesAThousandRecordsLoseNothing) {
  const std::string path = fresh_temp_path("concurrent.ktune");
  std::vector<pid_t> children;
  for (int w = 0; w < 4; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) writer_process(path, w, 1000);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const ResultsStore store(path, OpenMode::existing);
  const auto spaces = store.spaces();
  ASSERT_EQ(spaces.size(), 1u);  // all four found one space, none made its own
  const auto records = store.records(spaces[0].id);
  ASSERT_EQ(records.size(), 4000u);
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (const auto& r : records) seen.emplace(r.config[0].as_int(), r.config[1].as_int());
  EXPECT_EQ(seen.size(), 4000u);
  EXPECT_EQ(store.sessions(spaces[0].id).size(), 4u);
}

TEST(StoreSafety, KillNineLosesAtMostTheRecordInFlight) {
  for (int round = 0; round < 3; ++round) {
    const std::string path = fresh_temp_path("killed.ktune");
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      writer_process(path, 4, 1000000, fds[1]);
    }
    ::close(fds[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(200 + 150 * round));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    int committed = -1, i = 0;
    while (::read(fds[0], &i, sizeof i) == sizeof i) committed = i;
    ::close(fds[0]);
    ASSERT_GE(committed, 0) << "the writer committed nothing before it was killed";
    const ResultsStore store(path, OpenMode::existing);
    const auto spaces = store.spaces();
    ASSERT_EQ(spaces.size(), 1u);
    const auto records = store.records(spaces[0].id);
    // Every record whose add() returned is there, in order, plus at most the one in flight.
    ASSERT_GE(records.size(), static_cast<std::size_t>(committed) + 1);
    ASSERT_LE(records.size(), static_cast<std::size_t>(committed) + 2);
    for (std::size_t k = 0; k < records.size(); ++k)
      EXPECT_EQ(records[k].measurements[0].value.as_float(), record(4, static_cast<int>(k)).measurements[0].value.as_float());
    // Still writable after the kill.
    ResultsStore again(path);
    EXPECT_TRUE(again.add(again.begin_session(spaces[0].id, named("after")), record(0, 0)));
  }
}

}  // namespace
}  // namespace ktune::store
