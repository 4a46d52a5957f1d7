#pragma once
// Entering the sandbox's namespaces from a single-threaded process (a fork's child).
namespace ktune::sandbox::detail {

// unshare(`flags`), with a user namespace first when `user` (the process becomes its root, mapped to the caller's
// user and group outside). False when the kernel refuses; errno says why.
bool enter_namespaces(bool user, int flags);

}  // namespace ktune::sandbox::detail
