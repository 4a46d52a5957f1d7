#pragma once
// Kernel Tuner's run_kernel: one configuration of a kernel compiled and run once on its initial arguments, for its
// outputs (a reference answer for tuning, a quick check of one configuration). It runs the way tuning does: planned
// by the same rules (defines, geometry, generated code), in a worker process unless `isolate` is false.
#include <span>
#include <vector>

#include "ktune/live/kernel_argument.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/problem.hpp"
#include "ktune/value.hpp"

namespace ktune::live {

// Every argument of `spec` after the run (scalars and local memory as they were given), in order. `config` holds one
// value per parameter of `problem`. Throws BackendUnavailable when the backend cannot run here,
// std::invalid_argument / io::InputError for a bad specification, and std::runtime_error naming the configuration
// when it does not compile (with the compiler's log), fails to launch, crashes or runs past spec.timeout_s.
std::vector<KernelArgument> run_kernel(const KernelSpecification& spec, const Problem& problem,
                                       std::span<const Value> config, bool isolate = true);

}  // namespace ktune::live
