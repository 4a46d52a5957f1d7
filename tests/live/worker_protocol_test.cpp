// The pieces under the live evaluator: the wire encoding of requests and results, KernelRunner's outcomes, and the
// worker process's setup failures and shutdown.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <csignal>

#include "fake_backend.hpp"
#include "live/kernel_run.hpp"
#include "live/worker_process.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

using live::detail::KernelRunner;
using live::detail::RunOutcome;
using live::detail::RunRequest;
using live::detail::RunResult;
using live::detail::WorkerProcess;
using live::detail::WorkerReply;

TEST(WorkerProtocol, RequestRoundTrip) {
  RunRequest q;
  q.compile = false;
  q.kernel_name = "matmul_128";
  q.defines = {{"block_size_x", "128"}, {"float_type", "double"}, {"empty", ""}};
  q.geometry.grid = {7, 8, 9};
  q.geometry.block = {128, 2, 1};
  q.check_run = true;
  q.read_back = {1, 4};
  q.warmup = true;
  q.iterations = 33;
  std::string wire;
  live::detail::encode(q, wire);
  const RunRequest back = live::detail::decode_request(wire);
  EXPECT_EQ(back.compile, false);
  EXPECT_EQ(back.kernel_name, q.kernel_name);
  EXPECT_EQ(back.defines, q.defines);
  EXPECT_EQ(back.geometry.grid, q.geometry.grid);
  EXPECT_EQ(back.geometry.block, q.geometry.block);
  EXPECT_TRUE(back.check_run);
  EXPECT_EQ(back.read_back, q.read_back);
  EXPECT_TRUE(back.warmup);
  EXPECT_EQ(back.iterations, 33u);
  // Every cut is detected, never read past the end.
  for (std::size_t n = 0; n < wire.size(); ++n)
    EXPECT_THROW(live::detail::decode_request(std::string_view(wire).substr(0, n)), std::runtime_error) << n;
  EXPECT_THROW(live::detail::decode_request(wire + "x"), std::runtime_error);
}

TEST(WorkerProtocol, ResultAndDeviceInfoRoundTrip) {
  RunResult r;
  r.outcome = RunOutcome::compile_error;
  r.message = "compilation failed";
  r.log = std::string("line 1\nline 2 with \0 byte", 25);
  r.compile_ms = 12.5;
  r.check_ms = 0.25;
  r.benchmark_ms = 3.75;
  r.runtimes_ms = {1, 2.5, 1e-9};
  r.outputs = {{std::byte{1}, std::byte{2}}, {}, {std::byte{255}}};
  std::string wire;
  live::detail::encode(r, wire);
  const RunResult back = live::detail::decode_result(wire);
  EXPECT_EQ(back.outcome, RunOutcome::compile_error);
  EXPECT_EQ(back.message, r.message);
  EXPECT_EQ(back.log, r.log);
  EXPECT_EQ(back.compile_ms, 12.5);
  EXPECT_EQ(back.check_ms, 0.25);
  EXPECT_EQ(back.benchmark_ms, 3.75);
  EXPECT_EQ(back.runtimes_ms, r.runtimes_ms);
  EXPECT_EQ(back.outputs, r.outputs);
  for (std::size_t n = 0; n < wire.size(); ++n)
    EXPECT_THROW(live::detail::decode_result(std::string_view(wire).substr(0, n)), std::runtime_error) << n;

  live::DeviceInfo info{"dev", "plat", 1024, 49152, 3, {{"driver", "1.2"}, {"units", "80"}}};
  wire.clear();
  live::detail::encode(info, wire);
  const live::DeviceInfo i = live::detail::decode_device_info(wire);
  EXPECT_EQ(i.name, "dev");
  EXPECT_EQ(i.platform, "plat");
  EXPECT_EQ(i.max_threads, 1024u);
  EXPECT_EQ(i.max_local_memory, 49152u);
  EXPECT_EQ(i.device_count, 3u);
  EXPECT_EQ(i.properties, info.properties);
}

std::unique_ptr<KernelRunner> fake_runner(testing::FakeBackendOptions options = {}) {
  auto backend = std::make_unique<testing::FakeBackend>(options);
  // The runner keeps a view of the arguments: they must outlive it.
  static const std::vector<live::KernelArgument> arguments = [] {
    std::vector<live::KernelArgument> a(3);
    a[0].bytes.resize(16);
    a[1].bytes.resize(16);
    a[1].access = live::Access::write_only;
    a[2].type = live::ElementType::int32;
    a[2].scalar = true;
    a[2].bytes.resize(4);
    return a;
  }();
  backend->set_arguments(arguments);
  return std::make_unique<KernelRunner>(std::move(backend), live::KernelSource{"", "", "", {}}, arguments);
}

TEST(KernelRunner, OutcomesOfEachStep) {
  auto runner = fake_runner(testing::fake_options({2, 3}));
  RunRequest q;
  q.kernel_name = "compile_error";
  RunResult r = runner->run(q);
  EXPECT_EQ(r.outcome, RunOutcome::compile_error);
  EXPECT_EQ(r.log, "fake.cpp:3:1: error: expected ';'");
  // Nothing compiled: a request to reuse the kernel is an error, not a crash.
  q.compile = false;
  q.iterations = 1;
  EXPECT_EQ(runner->run(q).outcome, RunOutcome::error);

  q.compile = true;
  q.kernel_name = "correct";
  q.check_run = true;
  q.read_back = {1};
  q.warmup = true;
  q.iterations = 3;
  r = runner->run(q);
  ASSERT_EQ(r.outcome, RunOutcome::ok) << r.message;
  EXPECT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].size(), 16u);
  // Check run 2, warm-up 3, then 2, 3, 2.
  EXPECT_EQ(r.runtimes_ms, (std::vector<double>{2, 3, 2}));

  q.kernel_name = "launch_error";
  r = runner->run(q);
  EXPECT_EQ(r.outcome, RunOutcome::launch_error);
  EXPECT_TRUE(r.runtimes_ms.empty());
  EXPECT_TRUE(r.outputs.empty());
}

TEST(WorkerProcessTest, SetupFailuresAreReported) {
  const auto deadline = [] { return WorkerProcess::Clock::now() + std::chrono::seconds(10); };
  const std::string thrown = testing::error_of<std::runtime_error>([&] {
    WorkerProcess w([]() -> std::unique_ptr<KernelRunner> { throw std::runtime_error("no arguments today"); }, deadline());
  });
  EXPECT_EQ(thrown, "no arguments today");
  const std::string crashed = testing::error_of<std::runtime_error>([&] {
    WorkerProcess w([]() -> std::unique_ptr<KernelRunner> { std::raise(SIGSEGV); return nullptr; }, deadline());
  });
  EXPECT_EQ(crashed, "the worker process died setting up the backend: worker killed by SIGSEGV");
  const std::string slow = testing::error_of<std::runtime_error>([&] {
    WorkerProcess w([]() -> std::unique_ptr<KernelRunner> { for (;;) ::pause(); },
                    WorkerProcess::Clock::now() + std::chrono::milliseconds(200));
  });
  EXPECT_EQ(slow, "the worker process did not finish setting up the backend in time");
}

TEST(WorkerProcessTest, ServesUntilClosedAndLeavesNoZombie) {
  pid_t pid = -1;
  {
    WorkerProcess w([] { return fake_runner(); }, WorkerProcess::Clock::now() + std::chrono::seconds(10));
    EXPECT_EQ(w.device_info().name, "fake device");
    pid = w.pid();
    RunRequest q;
    q.kernel_name = "correct";
    q.iterations = 2;
    for (int i = 0; i < 3; ++i) {
      const WorkerReply reply = w.run(q, WorkerProcess::Clock::now() + std::chrono::seconds(10));
      ASSERT_EQ(reply.kind, WorkerReply::Kind::result);
      EXPECT_EQ(reply.result.outcome, RunOutcome::ok);
      EXPECT_EQ(reply.result.runtimes_ms.size(), 2u);
    }
    EXPECT_TRUE(w.alive());
  }
  // Reaped by the destructor: the pid is no child of ours any more.
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(WorkerProcessTest, TimeoutKillsTheWorker) {
  WorkerProcess w([] { return fake_runner(); }, WorkerProcess::Clock::now() + std::chrono::seconds(10));
  const pid_t pid = w.pid();
  RunRequest q;
  q.kernel_name = "hang";
  q.iterations = 1;
  const auto start = WorkerProcess::Clock::now();
  const WorkerReply reply = w.run(q, start + std::chrono::milliseconds(300));
  const double waited = std::chrono::duration<double>(WorkerProcess::Clock::now() - start).count();
  EXPECT_EQ(reply.kind, WorkerReply::Kind::timeout);
  EXPECT_GE(waited, 0.29);
  EXPECT_LT(waited, 5.0);
  EXPECT_FALSE(w.alive());
  EXPECT_EQ(::kill(pid, 0), -1) << "the worker still exists";
}

}  // namespace
}  // namespace ktune
