#pragma once
// The cores this process may run on, and pinning the calling process to some of them: the measuring worker and the
// compile workers of a pipelined live run (LiveEvaluatorOptions::compile_workers) use disjoint cores.
#include <sched.h>

#include <vector>

namespace ktune::live::detail {

// The cores of this process's affinity mask, ascending (empty if it cannot be read).
inline std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Pins the calling process (and what it starts later) to `cpus`; nothing when empty.
inline void pin_to_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  ::sched_setaffinity(0, sizeof set, &set);
}

}  // namespace ktune::live::detail
