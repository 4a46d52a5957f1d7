#pragma once
// The sandbox's view of the file system, built inside a new mount namespace by the process that will live in it.
#include <string>
#include <vector>

#include "ktune/sandbox/sandbox.hpp"

namespace ktune::sandbox::detail {

// Replaces the process's root by a read-only view: /usr, /bin, /sbin, /lib*, /opt and /etc's loader and alternatives
// files from the system; /dev's harmless nodes; an empty read-only /tmp; `options.read_only` and `options.writable`
// at their own paths; the scratch folder as a tmpfs of `limits.scratch_bytes` holding copies of `options.inputs`;
// /proc when `mount_proc` (a new one: this process must be in a PID namespace of its own; where the kernel refuses
// it, the view has none, as the probe found). Every path in `options` is absolute. Returns an error text naming the
// step that failed, empty on success.
std::string build_file_view(const Options& options, bool mount_proc);

}  // namespace ktune::sandbox::detail
