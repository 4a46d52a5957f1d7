// Which sandbox layers this kernel gives: tried once, in a child, with the calls spawn() makes.
#include <sched.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>


#include "ktune/sandbox/sandbox.hpp"
#include "sandbox/namespaces.hpp"

namespace ktune::sandbox {
namespace {

enum Bit : unsigned {
  kUser = 1, kMount = 2, kPid = 4, kNetwork = 8, kIpc = 16, kProc = 32, kSeccomp = 64,
};

// Runs in the probe's child: the bits of the layers that worked. It allocates no memory (see the seccomp probe).
unsigned probe_in_child() {
  unsigned bits = 0;
  conceal_this_process();  // as the sandbox's keeper is when it enters them
  const int all = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
  if (detail::enter_namespaces(true, all)) {
    bits |= kUser | kMount | kPid | kNetwork | kIpc;
  } else {
    // No user namespace (or none allowed): root may still have the others; anyone else has none of them.
    for (const auto& [flag, bit] : {std::pair{CLONE_NEWNS, kMount}, {CLONE_NEWPID, kPid}, {CLONE_NEWNET, kNetwork},
                                    {CLONE_NEWIPC | CLONE_NEWUTS, kIpc}})
      if (::unshare(flag) == 0) bits |= bit;
  }
  if (bits & kMount) {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m") != 0)
      bits &= ~kMount;
  }
  if ((bits & kMount) && (bits & kPid)) {
    // A new /proc needs a process inside the new PID namespace.
    const pid_t child = ::fork();
    if (child == 0) ::_exit(::mount("proc", "/tmp", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0 ? 0 : 1);
    int status = 0;
    if (child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      bits |= kProc;
  }
  // A filter that allows everything, written out rather than built with libseccomp: this child allocates nothing,
  // so a fork from a thread while another holds an allocator's lock cannot leave it waiting.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
    sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    const sock_fprog program{1, allow};
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) == 0) bits |= kSeccomp;
  }
  return bits;
}

unsigned probe() {
  int channel[2];
  if (::pipe2(channel, O_CLOEXEC) != 0) return 0;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(channel[0]);
    ::close(channel[1]);
    return 0;
  }
  if (pid == 0) {
    ::close(channel[0]);
    const unsigned bits = probe_in_child();
    (void)!::write(channel[1], &bits, sizeof bits);
    ::_exit(0);
  }
  ::close(channel[1]);
  unsigned bits = 0;
  if (::read(channel[0], &bits, sizeof bits) != static_cast<ssize_t>(sizeof bits)) bits = 0;
  ::close(channel[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return bits;
}

// KTUNE_SANDBOX_DISABLE: "mount,seccomp", or "all".
unsigned disabled_by_environment() {
  const char* text = std::getenv("KTUNE_SANDBOX_DISABLE");
  if (!text) return 0;
  unsigned bits = 0;
  std::string list = text;
  for (std::size_t pos = 0; pos <= list.size();) {
    const std::size_t end = std::min(list.find(',', pos), list.size());
    const std::string name = list.substr(pos, end - pos);
    pos = end + 1;
    if (name == "all") bits = ~0u;
    else if (name == "user") bits |= kUser;
    else if (name == "mount") bits |= kMount;
    else if (name == "pid") bits |= kPid;
    else if (name == "network") bits |= kNetwork;
    else if (name == "ipc") bits |= kIpc;
    else if (name == "proc") bits |= kProc;
    else if (name == "seccomp") bits |= kSeccomp;
    else if (!name.empty())
      std::fprintf(stderr, "ktune: KTUNE_SANDBOX_DISABLE: '%s' is no sandbox layer (user, mount, pid, network, ipc, "
                           "proc, seccomp, all)\n", name.c_str());
  }
  return bits;
}

Layers layers_of(unsigned bits) {
  Layers l;
  l.user_namespace = bits & kUser;
  l.mount_namespace = bits & kMount;
  l.pid_namespace = bits & kPid;
  l.network_namespace = bits & kNetwork;
  l.ipc_namespace = bits & kIpc;
  l.proc = (bits & kProc) && l.mount_namespace && l.pid_namespace;
  l.seccomp = bits & kSeccomp;
  return l;
}

}  // namespace

std::string Layers::missing() const {
  std::string out;
  const auto add = [&](bool have, const char* name) {
    if (!have) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  add(user_namespace, "user namespace");
  add(mount_namespace, "mount namespace (read-only view, private scratch)");
  add(pid_namespace, "PID namespace (whole-tree kill)");
  add(network_namespace, "network namespace");
  add(ipc_namespace, "IPC namespace");
  add(proc, "private /proc");
  add(seccomp, "seccomp system-call filter");
  return out;
}

const Layers& available_layers() {
  static const Layers layers = [] {
    unsigned bits = probe();
    // Without a user namespace only root (whose other namespaces need no user namespace) keeps the rest.
    if ((disabled_by_environment() & kUser) && ::geteuid() != 0) bits &= ~(kMount | kPid | kNetwork | kIpc | kProc);
    const unsigned off = disabled_by_environment();
    Layers l = layers_of(bits & ~off);
    if (!l.complete())
      std::fprintf(stderr, "ktune: sandbox for unreviewed code: no %s %s; running with the layers left "
                           "(docs/design.md, \"Sandbox\")\n",
                   l.missing().c_str(), off ? "(this system's, less KTUNE_SANDBOX_DISABLE)" : "on this system");
    return l;
  }();
  return layers;
}

}  // namespace ktune::sandbox
