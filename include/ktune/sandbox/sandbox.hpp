#pragma once
// A sandbox for code nobody reviewed (a language model's candidate strategy, an --isolate plug-in): a forked process
// that sees a read-only view of the system and a private scratch folder, has no network, an empty environment,
// limits on its resources, a system-call filter, and dies with everything it started.
//
// The layers, each kept when the kernel allows it (available_layers()) and said once on stderr when it does not:
//   user, mount, PID, IPC, UTS and network namespaces: the process is root of a user namespace of its own (so it can
//     build its view without privileges); it sees /usr, /bin, /lib*, /opt and a few files of /etc read-only, /dev's
//     null, zero, full, random and urandom, its own /proc, the paths its caller names read-only or writable, and its
//     scratch folder: a private tmpfs of a bounded size at the path the caller gave. /tmp, $HOME and everything else
//     are absent. It has no network device but a loopback that is down. It runs under PID 1 of a PID namespace of its
//     own, which ends with it: when it ends or is killed, the kernel kills every process it started, setsid() or not.
//   seccomp (with PR_SET_NO_NEW_PRIVS): no sockets, ptrace, mounts, namespaces, kernel keyrings, BPF, module loading,
//     io_uring or terminal input injection (TIOCSTI); after enter_strategy_phase() also no new process and no exec,
//     and a forbidden call ends the process with a report naming it.
//   rlimits: address space, CPU time, processes, open files, file size; no core files. Capabilities dropped.
//   environment: emptied (the strings the process started with are overwritten, so /proc/self/environ is blank
//     too) but PATH, HOME and TMPDIR (the scratch folder), LC_ALL=C and what the caller names; every inherited
//     descriptor closed but those the caller keeps; standard input from /dev/null.
//
// The sandboxed process is a fork, not a new program: it starts with a copy of its parent's memory (the prepared
// search spaces, which is why it is fast). Anything secret in that memory is in the copy too; docs/design.md says
// what ktune does about the API key.
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ktune::sandbox {

struct Limits {
  std::size_t memory_bytes = std::size_t{4} << 30;    // address space (RLIMIT_AS; not set under AddressSanitizer)
  double cpu_seconds = 0;                             // CPU time of the process (RLIMIT_CPU); <= 0: none
  std::size_t processes = 64;                         // processes and threads (RLIMIT_NPROC; with a user namespace)
  std::size_t open_files = 256;                       // descriptors (RLIMIT_NOFILE)
  std::size_t file_bytes = std::size_t{256} << 20;    // any one file written (RLIMIT_FSIZE)
  std::size_t scratch_bytes = std::size_t{512} << 20;  // the scratch folder's tmpfs
};

// The layers that can be had. The names are those of KTUNE_SANDBOX_DISABLE (a comma-separated list, or "all"),
// which turns layers off for testing the degraded mode.
struct Layers {
  bool user_namespace = false;
  bool mount_namespace = false;  // the read-only view and the private scratch
  bool pid_namespace = false;    // the whole tree killed with the process
  bool network_namespace = false;
  bool ipc_namespace = false;
  bool proc = false;             // a /proc of its own inside (a container may refuse to mount one)
  bool seccomp = false;

  // Nothing it runs can reach a network: no network device, or no sockets.
  bool no_network() const { return network_namespace || seccomp; }
  bool complete() const {
    return user_namespace && mount_namespace && pid_namespace && network_namespace && ipc_namespace && proc && seccomp;
  }
  // "mount namespace, seccomp": the ones missing; empty when none is.
  std::string missing() const;
};

// The layers this kernel gives, probed once per process in a child (a few milliseconds), less those
// KTUNE_SANDBOX_DISABLE turns off. The first call writes one line on stderr when one is missing.
const Layers& available_layers();
// The layers a process spawned with `disabled` turned off gets (without a user namespace, only root keeps the other
// namespaces).
Layers effective_layers(const Layers& disabled);

struct Options {
  Limits limits;
  // The process's private writable folder: a tmpfs at this path inside (the path need not exist outside). Without a
  // mount namespace it is this folder itself, which must exist.
  std::string scratch;
  // Files copied into the scratch folder (by name) before the process starts running `body`.
  std::vector<std::string> inputs;
  std::vector<std::string> read_only;  // more paths visible, read-only (ktune's headers, a plug-in's library)
  std::vector<std::string> writable;   // more paths visible and writable (where a compiled library goes)
  // Variables set in its emptied environment (the compiler to use, say); never a secret.
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<int> keep_descriptors;   // open in the process at the same numbers; every other one beyond 2 is closed
  bool allow_processes = true;         // false: enter_strategy_phase() at once (no compiler will run)
  Layers disabled;                     // layers turned off for this process (tests of the degraded mode)
};

// A process started by spawn().
class Process {
 public:
  Process() = default;
  Process(pid_t pid, int report, Limits limits) : pid_(pid), report_(report), limits_(limits) {}
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();  // kills and reaps it if it still runs

  pid_t pid() const { return pid_; }
  // Blocks until it ends; its wait status (as waitpid gives it).
  int wait();
  // Waits at most `seconds` for it to end: its wait status, or nothing while it runs.
  std::optional<int> wait_for(double seconds);
  // Kills it and everything it started.
  void kill();
  // After wait(): why it ended, when the sandbox ended it ("made a forbidden system call: socket", "wrote more than
  // the 256 MiB file size limit", "used up its CPU time limit of 12 s", "could not be set up: ..."); empty when it
  // ended on its own or of a signal the sandbox did not cause.
  std::string sandbox_reason(int status);

 private:
  pid_t pid_ = -1;
  int report_ = -1;
  Limits limits_;
};

// Forks a sandboxed process that runs `body`, which must end the process (std::_Exit or _exit): it never returns.
// Throws std::runtime_error when no process can be started.
Process spawn(const Options& options, const std::function<void()>& body);

// Inside a sandboxed process: from here on no new process (threads are fine), no exec, and a forbidden system call
// ends it with a report. Called before the untrusted code is loaded, so that its static constructors run under it.
// A no-op outside a sandbox or without seccomp.
void enter_strategy_phase();

// Whether this process is a sandboxed one (spawn's child).
bool inside();

// Makes this process's /proc/PID/environ (the environment it started with: an API key) and memory readable only with
// CAP_SYS_PTRACE, which no sandboxed process has: the process is no longer dumpable. For a process that holds a
// secret while code nobody reviewed runs on the machine, in its sandbox or in another one that has no /proc or pid
// namespace of its own (the degraded mode, where every process of the user is visible).
void conceal_this_process();

// Reads the secret in environment variable `name` (an API key) and leaves none of it to another process: the variable
// is removed from the environment (what this process starts, a compiler, a shell, does not inherit it), its
// characters are overwritten in the block this process's /proc/PID/environ shows, and this process is concealed.
// "" when the variable is unset or empty (the process is concealed all the same).
std::string take_secret_from_environment(const std::string& name);

// How many of `threads` may start sandboxed processes at once, for a caller about to start them: the layers are
// probed now, before the threads exist, and under GCC's AddressSanitizer it is 1, as its allocator has no fork
// handler (a fork can copy a lock another thread holds, and the child waits for it forever; glibc's malloc and
// ktune's own registries are fork-safe).
unsigned spawning_threads(unsigned threads);

}  // namespace ktune::sandbox
