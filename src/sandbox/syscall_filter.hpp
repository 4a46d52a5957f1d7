#pragma once
// The sandbox's seccomp filters (libseccomp), installed with PR_SET_NO_NEW_PRIVS. Filters stack and only tighten: the
// base filter holds for the whole sandboxed process (a compiler included), the strategy filter is added before the
// untrusted code is loaded.
#include <string>

namespace ktune::sandbox::detail {

// Refuses (EPERM) what neither a compiler nor a strategy needs: sockets, ptrace and reading other processes' memory,
// mounts and namespaces, kernel keyrings, BPF, perf events, userfaultfd, io_uring, modules, reboot, clock setting,
// terminal input injection. Returns an error text, empty on success.
std::string install_base_filter();

// Adds: no new process (clone without CLONE_THREAD, fork, vfork), no exec, and every call the base filter refuses
// now ends the process: a SIGSYS handler writes "forbidden system call: NAME" on `report_fd` and exits. clone3 is
// refused with ENOSYS, so that the C library creates threads with clone, whose flags a filter can read.
std::string install_strategy_filter(int report_fd);

}  // namespace ktune::sandbox::detail
