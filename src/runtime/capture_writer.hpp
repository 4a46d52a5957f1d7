#pragma once
// Writes one captured launch (ktune/runtime/capture.hpp has the files and their layout).
#include <span>
#include <string>

#include "ktune/runtime/argument.hpp"
#include "ktune/runtime/device.hpp"
#include "ktune/runtime/kernel.hpp"

namespace ktune::runtime {

struct CaptureRequest {
  const KernelDefinition& definition;
  Device& device;
  const std::string& source;
  const Choice& reference;            // the default configuration at the launch's problem size
  CompiledKernel& reference_kernel;   // compiled
  std::span<const Argument> arguments;
  const CppCall& call;
  const std::string& directory;
  bool first;                         // the kernel's first capture: NAME.t1.json, else NAME.<size>.t1.json
};

// Snapshots the inputs, runs the reference configuration on copies, writes the files; returns the T1 file's path.
// std::runtime_error naming the file that could not be written.
std::string write_capture(const CaptureRequest& request);

}  // namespace ktune::runtime
