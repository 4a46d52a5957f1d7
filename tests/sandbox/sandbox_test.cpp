// The sandbox for unreviewed code (ktune/sandbox/sandbox.hpp): each test runs a body that tries one thing a hostile
// plug-in would, and checks that it was stopped, that the process ended with a clear reason where the sandbox ended
// it, and that nothing of it is left.
#include "ktune/sandbox/sandbox.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "loopback_listener.hpp"

namespace ktune::sandbox {
namespace {

namespace fs = std::filesystem;

// A folder of the test's own, removed after it.
struct TempFolder {
  fs::path path;
  TempFolder() {
    std::string name = (fs::temp_directory_path() / "ktune-sandbox-test-XXXXXX").string();
    path = ::mkdtemp(name.data());
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The parent's environment as a process inside would look for it.
std::string fmt_parent_environ() { return "/proc/" + std::to_string(::getppid()) + "/environ"; }

// "" when it cannot be read: libstdc++ throws when a read fails after the open, as reading /proc/PID/stat does when
// the process ends in between.
std::string read_file(const fs::path& p) {
  try {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  } catch (const std::exception&) {
    return {};
  }
}

// Runs `body` sandboxed; what it writes on its descriptor `out` comes back in `said`.
struct Outcome {
  int status = 0;
  std::string said, reason;
  bool exited(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
};

Outcome run(Options options, const std::function<void(int out)>& body) {
  int channel[2];
  EXPECT_EQ(::pipe2(channel, O_CLOEXEC), 0);
  options.keep_descriptors.push_back(channel[1]);
  const int out = channel[1];
  Process process = spawn(options, [&] {
    body(out);
    ::_exit(0);
  });
  ::close(channel[1]);
  Outcome o;
  char buffer[4096];
  for (ssize_t n; (n = ::read(channel[0], buffer, sizeof buffer)) > 0;)
    o.said.append(buffer, static_cast<std::size_t>(n));
  ::close(channel[0]);
  o.status = process.wait();
  o.reason = process.sandbox_reason(o.status);
  return o;
}

void say(int fd, const std::string& text) { (void)!::write(fd, text.data(), text.size()); }

class Sandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    options.scratch = (scratch_parent.path / "scratch").string();
    fs::create_directories(options.scratch);
  }
  TempFolder scratch_parent, outside;
  Options options;
};

TEST_F(Sandbox, OrdinaryWorkInTheScratchFolderRuns) {
  const fs::path input = outside.path / "input.txt";
  std::ofstream(input) << "forty-two";
  options.inputs = {input.string()};
  const std::string scratch = options.scratch;
  const Outcome o = run(options, [&](int out) {
    std::ofstream(scratch + "/note.txt") << "made inside";
    say(out, read_file(scratch + "/note.txt") + "|" + read_file(scratch + "/input.txt") + "|" +
                 (std::getenv("HOME") ? std::getenv("HOME") : ""));
  });
  EXPECT_TRUE(o.exited(0)) << o.reason;
  EXPECT_EQ(o.said, "made inside|forty-two|" + scratch);
  if (available_layers().mount_namespace) {
    EXPECT_FALSE(fs::exists(fs::path(scratch) / "note.txt"));  // a private tmpfs
  }
}

TEST_F(Sandbox, FilesOutsideTheScratchFolderCannotBeReadOrWritten) {
  if (!available_layers().mount_namespace) GTEST_SKIP() << "no mount namespace here";
  const fs::path secret = outside.path / "secret.txt";
  std::ofstream(secret) << "planted-secret-1234";
  const std::string target = (outside.path / "written.txt").string();
  const Outcome o = run(options, [&](int out) {
    say(out, read_file(secret));
    std::ofstream(target) << "escaped";
    std::ofstream("/tmp/ktune-sandbox-escape") << "escaped";
    std::ofstream("/usr/ktune-sandbox-escape") << "escaped";
    say(out, fs::exists("/etc/shadow") ? "shadow-visible" : "");
    say(out, fs::exists("/root") || fs::exists("/home") ? "home-visible" : "");
  });
  EXPECT_TRUE(o.exited(0)) << o.reason;
  EXPECT_EQ(o.said, "");
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists("/tmp/ktune-sandbox-escape"));
  EXPECT_FALSE(fs::exists("/usr/ktune-sandbox-escape"));
}

TEST_F(Sandbox, TheEnvironmentHoldsNoneOfTheCallersVariables) {
  ::setenv("KTUNE_SANDBOX_TEST_KEY", "sk-test-secret-5678", 1);
  const Outcome o = run(options, [&](int out) {
    say(out, std::getenv("KTUNE_SANDBOX_TEST_KEY") ? "getenv" : "");
    if (read_file("/proc/self/environ").find("sk-test-secret") != std::string::npos) say(out, "self-environ");
    if (read_file(fmt_parent_environ()).find("sk-test-secret") != std::string::npos) say(out, "parent-environ");
  });
  ::unsetenv("KTUNE_SANDBOX_TEST_KEY");
  EXPECT_TRUE(o.exited(0)) << o.reason;
  EXPECT_EQ(o.said, "");
}

TEST_F(Sandbox, NoConnectionToALocalListener) {
  const ktune::testing::LoopbackListener listener;
  const sockaddr_in address = listener.address;
  const auto try_connect = [address](int out) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0 && ::connect(s, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) say(out, "connected");
  };
  // While a compiler may run, the call fails; once untrusted code runs, it ends the process.
  Outcome o = run(options, try_connect);
  EXPECT_EQ(o.said, "");
  options.allow_processes = false;
  o = run(options, try_connect);
  EXPECT_EQ(o.said, "");
  if (available_layers().seccomp) {
    EXPECT_EQ(o.reason, "made a system call the sandbox forbids: socket");
  }
}

TEST_F(Sandbox, UntrustedCodeStartsNoProcess) {
  if (!available_layers().seccomp) GTEST_SKIP() << "no seccomp here";
  options.allow_processes = false;
  Outcome o = run(options, [](int out) {
    if (std::system("echo escaped > /dev/null") == 0) say(out, "system");
  });
  EXPECT_EQ(o.said, "");
  EXPECT_NE(o.reason.find("made a system call the sandbox forbids"), std::string::npos) << o.reason;
  o = run(options, [](int out) {
    if (::fork() == 0) ::_exit(0);
    say(out, "forked");
  });
  EXPECT_EQ(o.said, "");
  EXPECT_NE(o.reason.find("forbids"), std::string::npos) << o.reason;
  // Threads are fine.
  o = run(options, [](int out) {
    std::thread t([out] { say(out, "thread"); });
    t.join();
  });
  EXPECT_EQ(o.said, "thread");
  EXPECT_TRUE(o.exited(0)) << o.reason;
}

// The live processes (not zombies waiting to be reaped) whose name is `name` (prctl PR_SET_NAME).
int processes_named(const std::string& name) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    if (entry.path().filename().string().find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(entry.path() / "stat");
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size()) continue;
    n += stat.substr(open + 1, close - open - 1) == name && stat[close + 2] != 'Z';
  }
  return n;
}

TEST_F(Sandbox, NoDaemonOutlivesTheProcess) {
  if (!available_layers().pid_namespace) GTEST_SKIP() << "no PID namespace here";
  const Outcome o = run(options, [](int out) {
    for (int i = 0; i < 3; ++i)
      if (::fork() == 0) {
        ::setsid();
        if (::fork() == 0) {
          ::prctl(PR_SET_NAME, "ktune-daemon-t");
          for (;;) ::pause();
        }
        ::_exit(0);
      }
    say(out, "started");
  });
  EXPECT_EQ(o.said, "started");
  for (int i = 0; i < 50 && processes_named("ktune-daemon-t") > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(processes_named("ktune-daemon-t"), 0);
}

TEST_F(Sandbox, KillingItEndsEverythingItStarted) {
  if (!available_layers().pid_namespace) GTEST_SKIP() << "no PID namespace here";
  Process process = spawn(options, [] {
    if (::fork() == 0) {
      ::setsid();
      ::prctl(PR_SET_NAME, "ktune-daemon-k");
      for (;;) ::pause();
    }
    ::prctl(PR_SET_NAME, "ktune-daemon-k");
    for (;;) ::pause();
  });
  for (int i = 0; i < 100 && processes_named("ktune-daemon-k") < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(processes_named("ktune-daemon-k"), 2);
  process.kill();
  process.wait();
  for (int i = 0; i < 50 && processes_named("ktune-daemon-k") > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(processes_named("ktune-daemon-k"), 0);
}

TEST_F(Sandbox, AHugeFileIsStoppedAtTheFileSizeLimit) {
  options.limits.file_bytes = std::size_t{8} << 20;
  const std::string scratch = options.scratch;
  const Outcome o = run(options, [&](int) {
    std::FILE* f = std::fopen((scratch + "/big").c_str(), "wb");
    static char block[1 << 16];
    for (long i = 0; f && i < (10L << 30) / static_cast<long>(sizeof block); ++i)
      if (std::fwrite(block, 1, sizeof block, f) != sizeof block) break;
  });
  EXPECT_EQ(o.reason, "wrote a file larger than the sandbox's limit of 8 MiB") << o.status;
}

TEST_F(Sandbox, AnEndlessLoopIsStoppedAtTheCpuLimit) {
  options.limits.cpu_seconds = 1;
  const Outcome o = run(options, [](int) {
    for (unsigned long i = 0;; ++i) asm volatile("" : "+r"(i));  // a loop the compiler keeps
  });
  EXPECT_EQ(o.reason, "used up the sandbox's CPU time limit of 1 s");
}

#if !defined(__SANITIZE_ADDRESS__)
TEST_F(Sandbox, AllocatingTenGigabytesFails) {
  options.limits.memory_bytes = std::size_t{1} << 30;
  const Outcome o = run(options, [](int out) {
    try {
      std::vector<char> v(std::size_t{10} << 30, 1);
      say(out, "allocated");
    } catch (const std::bad_alloc&) {
      say(out, "bad_alloc");
    }
  });
  EXPECT_EQ(o.said, "bad_alloc");
}
#endif

// The degraded mode: with a layer forced off, what is left still holds and nothing claims more.
TEST_F(Sandbox, WithoutNamespacesTheEnvironmentAndLimitsStillHold) {
  options.disabled = Layers{true, true, true, true, true, true, false};
  options.allow_processes = false;
  ::setenv("KTUNE_SANDBOX_TEST_KEY", "sk-test-secret-5678", 1);
  const std::string scratch = options.scratch;
  const Outcome o = run(options, [&](int out) {
    say(out, std::getenv("KTUNE_SANDBOX_TEST_KEY") ? "getenv " : "");
    std::ofstream(scratch + "/note.txt") << "x";
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0) say(out, "socket ");
  });
  ::unsetenv("KTUNE_SANDBOX_TEST_KEY");
  EXPECT_EQ(o.said, "");
  EXPECT_TRUE(fs::exists(fs::path(scratch) / "note.txt"));  // no private tmpfs: the folder itself
  if (available_layers().seccomp) {
    EXPECT_EQ(o.reason, "made a system call the sandbox forbids: socket");
  }
}

TEST_F(Sandbox, WithoutSeccompANetworkNamespaceStillKeepsItOffTheNetwork) {
  if (!available_layers().network_namespace) GTEST_SKIP() << "no network namespace here";
  options.disabled.seccomp = true;
  options.allow_processes = false;
  const ktune::testing::LoopbackListener listener;
  const sockaddr_in address = listener.address;
  const Outcome o = run(options, [address](int out) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    say(out, s >= 0 ? "socket " : "");
    if (::connect(s, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) say(out, "connected");
  });
  EXPECT_EQ(o.said, "socket ");  // no filter: the call works, the network is not there
  EXPECT_EQ(o.reason, "");
}

// An ordinary user's sandbox: every layer the probe found, and the process starts. (A non-dumpable process, as the
// sandbox's keeper is, could not write its own user namespace maps as anyone but root.) Run as root, the test runs
// itself again as nobody.
TEST_F(Sandbox, AnOrdinaryUsersSandboxStartsWithTheLayersItsProbeFound) {
  constexpr int kCannotRunAsNobody = 99;
  if (::geteuid() == 0 && !std::getenv("KTUNE_SANDBOX_TEST_AS_NOBODY")) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::setenv("KTUNE_SANDBOX_TEST_AS_NOBODY", "1", 1);
      if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(kCannotRunAsNobody);
      const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
      const std::string filter = std::string("--gtest_filter=") + test->test_suite_name() + "." + test->name();
      ::execl("/proc/self/exe", "sandbox_test_as_nobody", filter.c_str(), static_cast<char*>(nullptr));
      ::_exit(kCannotRunAsNobody);  // the test binary is in a folder nobody may enter
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (WIFEXITED(status) && WEXITSTATUS(status) == kCannotRunAsNobody) GTEST_SKIP() << "cannot run as nobody here";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the test as nobody failed (its output is above)";
    return;
  }
  const Layers layers = available_layers();
  const std::string scratch = options.scratch;
  const Outcome o = run(options, [&](int out) {
    std::ofstream(scratch + "/note.txt") << "inside";
    say(out, read_file(scratch + "/note.txt"));
  });
  EXPECT_TRUE(o.exited(0)) << o.reason;
  EXPECT_EQ(o.said, "inside");
  if (layers.mount_namespace) {
    EXPECT_FALSE(fs::exists(fs::path(scratch) / "note.txt"));  // a private tmpfs
  }
}

}  // namespace
}  // namespace ktune::sandbox

namespace ktune::sandbox {
namespace {

// A secret read from the environment is left to no other process: not inherited by what this process starts, and
// this process is no longer dumpable (its /proc/PID/environ is then unreadable to the user's other processes). In a
// child, so that the test process keeps its environment and stays dumpable.
TEST(TakeSecret, NoProcessStartedAfterwardsSeesIt) {
  ::setenv("KTUNE_TEST_SECRET", "sk-take-me-6d2a", 1);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string secret = take_secret_from_environment("KTUNE_TEST_SECRET");
    if (secret != "sk-take-me-6d2a") ::_exit(10);
    if (std::getenv("KTUNE_TEST_SECRET")) ::_exit(11);
    if (::prctl(PR_GET_DUMPABLE) != 0) ::_exit(12);
    // A shell started now does not have it.
    if (std::system("test -z \"${KTUNE_TEST_SECRET+set}\"") != 0) ::_exit(13);
    if (!take_secret_from_environment("KTUNE_TEST_SECRET").empty()) ::_exit(14);  // taken: nothing left
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ::unsetenv("KTUNE_TEST_SECRET");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace ktune::sandbox
