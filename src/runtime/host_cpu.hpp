#pragma once
// The host CPU's name as /proc/cpuinfo gives it ("model name"), or "unknown CPU": the cpp backend's device name.
// One implementation for the tuner's cpp backend and the runtime's cpp device, since the application selects its
// wisdom by exactly this name.
#include <string>

namespace ktune::runtime {

std::string host_cpu_model_name();

}  // namespace ktune::runtime
