#pragma once
// ktune's runtime: what an application links (ktune::runtime, pkg-config ktune-runtime) to use tuned kernels.
// Small on purpose: the C++ standard library, OpenCL and dlopen; none of the tuner or its dependencies.
//
//   Wisdom          the best configurations per kernel, device and problem size, and the rules that select one
//   KernelDefinition a tunable kernel as the application describes it (parameters, defaults, geometry)
//   Kernel          selects, compiles once per configuration, launches; captures calls for tuning (KTUNE_CAPTURE)
//   cpp_device(), opencl_device(), cuda_device()  where kernels run; ktune/runtime/opencl.hpp and
//                   ktune/runtime/cuda.hpp for the application's own context and device memory
// docs/integration.md has the whole loop: capture, tune, wisdom, run.
#include "ktune/runtime/argument.hpp"
#include "ktune/runtime/capture.hpp"
#include "ktune/runtime/cuda.hpp"
#include "ktune/runtime/device.hpp"
#include "ktune/runtime/kernel.hpp"
#include "ktune/runtime/kernel_definition.hpp"
#include "ktune/runtime/wisdom.hpp"
