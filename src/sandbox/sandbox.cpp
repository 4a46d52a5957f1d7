#include "ktune/sandbox/sandbox.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sandbox/file_view.hpp"
#include "sandbox/namespaces.hpp"
#include "sandbox/syscall_filter.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define KTUNE_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KTUNE_ADDRESS_SANITIZER 1
#endif
#endif

extern char** environ;

namespace ktune::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr int kSetupFailed = 121;  // exit status of a process whose sandbox could not be built (its report says why)

bool g_inside = false;
bool g_seccomp = false;
int g_report = -1;

void report(int fd, const std::string& text) {
  const std::string line = text + "\n";
  (void)!::write(fd, line.data(), line.size());
}

[[noreturn]] void setup_failed(int fd, const std::string& why) {
  report(fd, "could not be set up: " + why);
  ::_exit(kSetupFailed);
}

// Where the strings the process started its environment with are (what /proc/PID/environ shows): read by the caller,
// wiped by the sandboxed process, which may have no /proc.
struct Region {
  std::uintptr_t start = 0, end = 0;
};

Region environment_region() {
  std::ifstream stat("/proc/self/stat");
  const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces): env_start and env_end are fields 50 and 51.
  Region region;
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 > text.size()) return region;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int number = 3; fields >> field; ++number) {
    if (number == 50) region.start = std::strtoull(field.c_str(), nullptr, 10);
    if (number == 51) region.end = std::strtoull(field.c_str(), nullptr, 10);
  }
  if (region.end <= region.start || region.end - region.start > (std::size_t{64} << 20)) region = {};
  return region;
}

Region g_environment;  // set by spawn() before it forks

// Overwrites the strings the process started with, then empties the environment.
void wipe_environment(Region region, const Options& options) {
  const std::string& scratch = options.scratch;
  if (region.start) std::memset(reinterpret_cast<void*>(region.start), 0, region.end - region.start);
  ::clearenv();
  ::setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
  ::setenv("HOME", scratch.c_str(), 1);
  ::setenv("TMPDIR", scratch.c_str(), 1);
  ::setenv("LC_ALL", "C", 1);
  for (const auto& [name, value] : options.environment) ::setenv(name.c_str(), value.c_str(), 1);
}

void set_limit(int resource, rlim_t soft, rlim_t hard) {
  const rlimit limit{soft, hard};
  (void)::setrlimit(resource, &limit);
}

void set_limits(const Limits& limits, bool user_namespace) {
#ifndef KTUNE_ADDRESS_SANITIZER
  // AddressSanitizer reserves terabytes of address space: a limit on it would stop the process, not the code.
  set_limit(RLIMIT_AS, limits.memory_bytes, limits.memory_bytes);
#endif
  if (limits.cpu_seconds > 0) {
    const auto seconds = static_cast<rlim_t>(std::ceil(limits.cpu_seconds));
    set_limit(RLIMIT_CPU, seconds, seconds + 1);  // SIGXCPU, then SIGKILL a second later
  }
  // RLIMIT_NPROC counts every process of the user; in a user namespace of its own, only the sandbox's.
  if (user_namespace) set_limit(RLIMIT_NPROC, limits.processes, limits.processes);
  set_limit(RLIMIT_NOFILE, limits.open_files, limits.open_files);
  set_limit(RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes);
  set_limit(RLIMIT_CORE, 0, 0);
}

// No capabilities left, none regained by exec (root or not).
void drop_capabilities() {
  (void)::prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                       SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED);
  for (int cap = 0; cap < 64; ++cap) (void)::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  (void)::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  (void)::syscall(SYS_capset, &header, data);
}

// Closes every descriptor above 2 but `keep`.
void close_descriptors(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
  for (int fd : keep) {
    if (fd < static_cast<int>(from)) continue;
    if (static_cast<unsigned>(fd) > from) ::syscall(SYS_close_range, from, static_cast<unsigned>(fd) - 1, 0);
    from = static_cast<unsigned>(fd) + 1;
  }
  ::syscall(SYS_close_range, from, ~0u, 0);
}

// Ends this process as `status` (a wait status) says its child ended: the same exit status, or the same signal.
[[noreturn]] void end_as(int status) {
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  const int signal = WTERMSIG(status);
  set_limit(RLIMIT_CORE, 0, 0);
  ::signal(signal, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::kill(::getpid(), signal);
  ::_exit(128 + signal);
}

// The sandboxed process itself, which runs `body`.
[[noreturn]] void run_worker(const Options& options, const Layers& layers, int report_fd,
                             const std::function<void()>& body) {
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  wipe_environment(g_environment, options);
  if (::chdir(options.scratch.c_str()) != 0)
    setup_failed(report_fd, "cannot enter the scratch folder " + options.scratch);
  set_limits(options.limits, layers.user_namespace);
  drop_capabilities();
  g_inside = true;
  g_report = report_fd;
  g_seccomp = layers.seccomp;
  if (layers.seccomp) {
    if (const std::string e = detail::install_base_filter(); !e.empty()) setup_failed(report_fd, e);
  } else {
    (void)::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  }
  if (!options.allow_processes) enter_strategy_phase();
  body();
  ::_exit(0);
}

// The first process inside (PID 1 of the new namespace when there is one): builds the view, starts the sandboxed
// process and waits for it, reaping whatever else ends. It cannot run `body` itself: PID 1 of a namespace ignores
// the signals the limits send (SIGXFSZ, SIGXCPU). It tells the keeper how the process ended on `status_fd`.
[[noreturn]] void run_init(const Options& options, const Layers& layers, int report_fd, int alive, int status_fd,
                           const std::function<void()>& body) {
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The keeper may have been killed before the line above: then this ends now.
  pollfd p{alive, POLLIN, 0};
  if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR))) ::_exit(kSetupFailed);
  std::vector<int> keep = options.keep_descriptors;
  keep.push_back(report_fd);
  keep.push_back(status_fd);
  keep.push_back(alive);
  close_descriptors(keep);
  if (const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC); null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::close(null);
  }
  if (layers.mount_namespace) {
    if (const std::string e = detail::build_file_view(options, layers.proc); !e.empty())
      setup_failed(report_fd, e);
  } else {
    // No view: the scratch folder is the real one, and the inputs are copied into it.
    std::error_code ec;
    fs::create_directories(options.scratch, ec);
    for (const auto& input : options.inputs) {
      fs::copy_file(input, fs::path(options.scratch) / fs::path(input).filename(), fs::copy_options::overwrite_existing,
                    ec);
      if (ec) setup_failed(report_fd, fmt::format("cannot copy {} into the scratch folder: {}", input, ec.message()));
    }
  }
  if (layers.ipc_namespace) (void)::sethostname("ktune-sandbox", 13);
  const pid_t worker = ::fork();
  if (worker < 0) setup_failed(report_fd, fmt::format("fork: {}", std::strerror(errno)));
  if (worker == 0) {
    ::close(status_fd);
    ::close(alive);
    run_worker(options, layers, report_fd, body);
  }
  // Only the keeper's channel stays open here: the caller sees the end of its descriptors when the worker ends.
  close_descriptors({status_fd, alive});
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(signal, SIG_IGN);
  int status = 0;
  for (;;) {
    int s = 0;
    const pid_t ended = ::waitpid(-1, &s, 0);
    if (ended == worker) {
      status = s;
      break;
    }
    if (ended < 0 && errno != EINTR) break;
  }
  (void)!::write(status_fd, &status, sizeof status);
  ::_exit(0);  // and with it, in a PID namespace, everything the worker left running
}

// The process between the caller and the sandbox: it enters the namespaces (so that the first process started in
// them is PID 1 of the new one), then waits and ends as the sandboxed process did. Killing it kills the first
// process inside (its parent-death signal), and with it the namespace.
[[noreturn]] void run_keeper(const Options& options, const Layers& layers, int report_fd, pid_t caller,
                             const std::function<void()>& body) {
  ::setpgid(0, 0);
  conceal_this_process();  // its /proc/PID/environ is ktune's (see spawn)
  (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != caller) ::_exit(kSetupFailed);
  int flags = 0;
  if (layers.mount_namespace) flags |= CLONE_NEWNS;
  if (layers.pid_namespace) flags |= CLONE_NEWPID;
  if (layers.network_namespace) flags |= CLONE_NEWNET;
  if (layers.ipc_namespace) flags |= CLONE_NEWIPC | CLONE_NEWUTS;
  if ((flags || layers.user_namespace) && !detail::enter_namespaces(layers.user_namespace, flags))
    setup_failed(report_fd, fmt::format("entering the namespaces: {}", std::strerror(errno)));
  int alive[2], status_pipe[2];
  if (::pipe2(alive, O_CLOEXEC) != 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0) setup_failed(report_fd, "pipe");
  const pid_t init = ::fork();
  if (init < 0) setup_failed(report_fd, fmt::format("fork: {}", std::strerror(errno)));
  if (init == 0) {
    ::close(alive[1]);
    ::close(status_pipe[0]);
    run_init(options, layers, report_fd, alive[0], status_pipe[1], body);
  }
  ::close(alive[0]);
  ::close(status_pipe[1]);
  close_descriptors({alive[1], status_pipe[0]});
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(signal, SIG_IGN);
  int status = 0;
  const bool told = ::read(status_pipe[0], &status, sizeof status) == static_cast<ssize_t>(sizeof status);
  int init_status = 0;
  while (::waitpid(init, &init_status, 0) < 0 && errno == EINTR) {
  }
  end_as(told ? status : init_status);
}

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

}  // namespace

Process::Process(Process&& other) noexcept : pid_(other.pid_), report_(other.report_), limits_(other.limits_) {
  other.pid_ = -1;
  other.report_ = -1;
}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    this->~Process();
    pid_ = other.pid_;
    report_ = other.report_;
    limits_ = other.limits_;
    other.pid_ = -1;
    other.report_ = -1;
  }
  return *this;
}

Process::~Process() {
  if (pid_ > 0) {
    kill();
    (void)wait();
  }
  if (report_ >= 0) ::close(report_);
}

int Process::wait() {
  int status = 0;
  if (pid_ <= 0) return status;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-pid_, SIGKILL);  // without a PID namespace: what it left in its process group
  pid_ = -1;
  return status;
}

std::optional<int> Process::wait_for(double seconds) {
  if (pid_ <= 0) return 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int status = 0;
    const pid_t ended = ::waitpid(pid_, &status, WNOHANG);
    if (ended == pid_) {
      ::kill(-pid_, SIGKILL);
      pid_ = -1;
      return status;
    }
    if (ended < 0 && errno != EINTR) return std::nullopt;
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    ::usleep(5000);
  }
}

void Process::kill() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
}

std::string Process::sandbox_reason(int status) {
  std::string text;
  if (report_ >= 0) {
    ::fcntl(report_, F_SETFL, O_NONBLOCK);
    char buffer[1024];
    for (ssize_t n; text.size() < 4096 && (n = ::read(report_, buffer, sizeof buffer)) > 0;)
      text.append(buffer, static_cast<std::size_t>(n));
  }
  const auto line_after = [&](const std::string& prefix) -> std::string {
    const auto at = text.find(prefix);
    if (at == std::string::npos) return {};
    const auto end = text.find('\n', at);
    return text.substr(at + prefix.size(), end == std::string::npos ? std::string::npos : end - at - prefix.size());
  };
  if (const auto call = line_after("forbidden system call: "); !call.empty() && WIFEXITED(status))
    return "made a system call the sandbox forbids: " + call;
  if (const auto why = line_after("could not be set up: "); !why.empty() && WIFEXITED(status))
    return "could not start: its sandbox could not be set up: " + why;
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGXFSZ)
      return fmt::format("wrote a file larger than the sandbox's limit of {} MiB", limits_.file_bytes >> 20);
    if (signal == SIGXCPU)
      return fmt::format("used up the sandbox's CPU time limit of {:g} s", limits_.cpu_seconds);
    // A call made with every signal blocked (as posix_spawn does around clone) cannot be caught to be named.
    if (signal == SIGSYS) return "made a system call the sandbox forbids";
  }
  return {};
}

Layers effective_layers(const Layers& off) {
  Layers layers = available_layers();
  layers.user_namespace &= !off.user_namespace;
  // Without a user namespace only root can have the other namespaces.
  if (!layers.user_namespace && ::geteuid() != 0)
    layers = Layers{false, false, false, false, false, false, layers.seccomp};
  layers.mount_namespace &= !off.mount_namespace;
  layers.pid_namespace &= !off.pid_namespace;
  layers.network_namespace &= !off.network_namespace;
  layers.ipc_namespace &= !off.ipc_namespace;
  layers.proc &= !off.proc && layers.mount_namespace && layers.pid_namespace;
  layers.seccomp &= !off.seccomp;
  return layers;
}

Process spawn(const Options& given, const std::function<void()>& body) {
  const Layers layers = effective_layers(given.disabled);

  Options options = given;
  if (options.scratch.empty()) throw std::runtime_error("a sandbox needs a scratch folder");
  options.scratch = absolute(options.scratch);
  for (auto* list : {&options.inputs, &options.read_only, &options.writable})
    for (auto& path : *list) path = absolute(path);

  int report_pipe[2];
  if (::pipe2(report_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("cannot start a sandboxed process: pipe: {}", std::strerror(errno)));
  const pid_t caller = ::getpid();
  // Without a /proc of its own the process sees ktune's: /proc/PID/environ of ktune and of the sandbox's own keeper
  // would show the environment ktune started with (the API key). A process that is not dumpable has those files
  // readable by root's capabilities only, which the sandboxed process does not have.
  if (!layers.proc) conceal_this_process();
  static const Region environment = environment_region();
  g_environment = environment;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int saved = errno;
    ::close(report_pipe[0]);
    ::close(report_pipe[1]);
    throw std::runtime_error(fmt::format("cannot start a sandboxed process: {}", std::strerror(saved)));
  }
  if (pid == 0) {
    ::close(report_pipe[0]);
    // A crash is the process's end, reported by its signal: no handler of the caller's (a sanitizer's) catches it.
    // The limits' signals end it too, whatever the caller ignores (ktune ignores SIGXFSZ to see EFBIG).
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGINT, SIGTERM, SIGXFSZ, SIGXCPU, SIGSYS})
      ::signal(signal, SIG_DFL);
    run_keeper(options, layers, report_pipe[1], caller, body);
  }
  ::setpgid(pid, pid);  // also here, so that the group exists whichever process runs first
  ::close(report_pipe[1]);
  return Process(pid, report_pipe[0], options.limits);
}

void enter_strategy_phase() {
  if (!g_inside || !g_seccomp) return;
  if (const std::string e = detail::install_strategy_filter(g_report); !e.empty()) setup_failed(g_report, e);
}

bool inside() { return g_inside; }

void conceal_this_process() { (void)::prctl(PR_SET_DUMPABLE, 0); }

std::string take_secret_from_environment(const std::string& name) {
  std::string secret;
  if (char* value = std::getenv(name.c_str()); value && *value) {
    secret = value;
    std::fill(value, value + secret.size(), '\0');  // in the starting block when it was set before the process began
  }
  ::unsetenv(name.c_str());
  conceal_this_process();
  return secret;
}

unsigned spawning_threads(unsigned threads) {
  (void)available_layers();
#ifdef KTUNE_ADDRESS_SANITIZER
  (void)threads;
  return 1;
#else
  return threads;
#endif
}

}  // namespace ktune::sandbox
