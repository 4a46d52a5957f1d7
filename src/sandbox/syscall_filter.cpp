#include "sandbox/syscall_filter.hpp"

#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ktune::sandbox::detail {
namespace {

// What a compiler and a strategy never need. Names, not numbers: libseccomp resolves them for the architecture and
// skips the ones it does not have.
constexpr const char* kRefused[] = {
    "socket", "connect", "bind", "listen", "accept", "accept4",
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_tree", "move_mount", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff",
    "syslog", "acct", "quotactl", "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm", "uselib",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "vhangup",
    "fanotify_init", "lookup_dcookie",
};
constexpr const char* kProcessCreation[] = {"fork", "vfork", "execve", "execveat"};

// The SIGSYS handler's table and channel, filled before the filter is installed (the handler only reads them).
constexpr int kMaxNames = 128;
struct NamedCall {
  int number;
  const char* name;
};
NamedCall g_names[kMaxNames];
int g_name_count = 0;
int g_report_fd = -1;

void remember(int number, const char* name) {
  if (number >= 0 && g_name_count < kMaxNames) g_names[g_name_count++] = {number, name};
}

// The line is written with one write(): two threads stopped at the same moment would otherwise interleave their
// pieces ("forbidden system call: forbidden system call: socket"). A pipe keeps writes up to PIPE_BUF whole.
void on_forbidden_call(int, siginfo_t* info, void*) {
  const char* name = "?";
  for (int i = 0; i < g_name_count; ++i)
    if (g_names[i].number == info->si_syscall) name = g_names[i].name;
  char line[128];
  std::size_t n = 0;
  for (const char* part : {"forbidden system call: ", name, "\n"})
    for (const char* c = part; *c != '\0' && n < sizeof line; ++c) line[n++] = *c;
  if (g_report_fd >= 0) (void)!::write(g_report_fd, line, n);
  ::_exit(125);
}

std::string failed(const char* what, int rc) { return std::string(what) + ": " + std::strerror(-rc); }

class Filter {
 public:
  explicit Filter(std::uint32_t default_action) : ctx_(seccomp_init(default_action)) {}
  ~Filter() {
    if (ctx_) seccomp_release(ctx_);
  }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  scmp_filter_ctx get() const { return ctx_; }

 private:
  scmp_filter_ctx ctx_;
};

// Adds `action` for each of `names` this architecture has.
template <std::size_t N>
int add_all(scmp_filter_ctx ctx, std::uint32_t action, const char* const (&names)[N], bool record) {
  for (const char* name : names) {
    const int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR || number < 0) continue;  // not on this architecture
    if (const int rc = seccomp_rule_add(ctx, action, number, 0); rc < 0) return rc;
    if (record) remember(number, name);
  }
  return 0;
}

int add_terminal_rules(scmp_filter_ctx ctx, std::uint32_t action) {
  // Typing into the user's terminal (TIOCSTI) or its console (TIOCLINUX).
  // (Comparisons spelled out: libseccomp's SCMP_A* macros are C compound literals.)
  for (unsigned long request : {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    const scmp_arg_cmp is_request{1, SCMP_CMP_EQ, request, 0};
    if (const int rc = seccomp_rule_add_array(ctx, action, SCMP_SYS(ioctl), 1, &is_request); rc < 0) return rc;
  }
  return 0;
}

}  // namespace

std::string install_base_filter() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
  Filter filter(SCMP_ACT_ALLOW);
  if (!filter.get()) return "seccomp_init failed";
  (void)seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_NNP, 0);  // set above, once
  if (const int rc = add_all(filter.get(), SCMP_ACT_ERRNO(EPERM), kRefused, false); rc < 0)
    return failed("seccomp rule", rc);
  if (const int rc = add_terminal_rules(filter.get(), SCMP_ACT_ERRNO(EPERM)); rc < 0) return failed("seccomp rule", rc);
  if (const int rc = seccomp_load(filter.get()); rc < 0) return failed("seccomp_load", rc);
  return {};
}

std::string install_strategy_filter(int report_fd) {
  g_report_fd = report_fd;
  g_name_count = 0;
  remember(SCMP_SYS(clone), "clone (a new process)");
  remember(SCMP_SYS(ioctl), "ioctl (TIOCSTI)");
  struct sigaction action {};
  action.sa_sigaction = on_forbidden_call;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGSYS, &action, nullptr) != 0) return std::string("sigaction: ") + std::strerror(errno);
  sigset_t sys;
  sigemptyset(&sys);
  sigaddset(&sys, SIGSYS);
  ::sigprocmask(SIG_UNBLOCK, &sys, nullptr);

  Filter filter(SCMP_ACT_ALLOW);
  if (!filter.get()) return "seccomp_init failed";
  (void)seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_NNP, 0);
  int rc = add_all(filter.get(), SCMP_ACT_TRAP, kRefused, true);
  if (rc >= 0) rc = add_all(filter.get(), SCMP_ACT_TRAP, kProcessCreation, true);
  if (rc >= 0) rc = add_terminal_rules(filter.get(), SCMP_ACT_TRAP);
  // A thread shares its process; anything else clone makes is a new process.
  const scmp_arg_cmp no_thread{0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0};
  if (rc >= 0) rc = seccomp_rule_add_array(filter.get(), SCMP_ACT_TRAP, SCMP_SYS(clone), 1, &no_thread);
  if (rc >= 0) {
    const int clone3 = seccomp_syscall_resolve_name("clone3");
    if (clone3 != __NR_SCMP_ERROR && clone3 >= 0)
      rc = seccomp_rule_add(filter.get(), SCMP_ACT_ERRNO(ENOSYS), clone3, 0);
  }
  if (rc < 0) return failed("seccomp rule", rc);
  if (rc = seccomp_load(filter.get()); rc < 0) return failed("seccomp_load", rc);
  return {};
}

}  // namespace ktune::sandbox::detail
