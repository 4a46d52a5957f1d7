#pragma once
// The small interface every live backend implements (cpp, opencl, cuda): device information, compiling one
// configuration of a kernel, the kernel arguments on the device, one timed launch. Everything else (arguments from
// the problem, defines, repetitions, verification, isolation in a worker process, timeouts, results) is the live
// evaluator's job, the same for every backend.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ktune/live/kernel_argument.hpp"

namespace ktune::live {

struct DeviceInfo {
  std::string name;      // "pthread-AMD EPYC ...", "NVIDIA A100-SXM4-40GB", the host CPU for cpp
  std::string platform;  // OpenCL platform, "CUDA 13.0", compiler version for cpp
  std::uint64_t max_threads = 0;           // largest work-group/block (threads); 0: no limit (cpp)
  std::uint64_t max_local_memory = 0;      // bytes of local/shared memory per work-group; 0: unknown
  std::size_t device_count = 1;  // devices this backend can use here (on the platform, for OpenCL): `--devices all`
  std::vector<std::pair<std::string, std::string>> properties;  // anything else worth recording (driver, units...)
};

struct KernelSource {
  std::string code;                           // the whole source text, without our defines
  std::string name;                           // the function or kernel to call
  std::string file;                           // where the code came from, for messages ("" if not a file)
  std::vector<std::string> compiler_options;  // given by the user, passed to the compiler as they are
  // Searched by the code's #include before the user's options: the kernel file's folder (absolute), as a compiler
  // searches the folder of a file it compiles in place (the backends compile a copy elsewhere). Empty for code.
  std::vector<std::string> include_dirs{};
  // CUDA __constant__ variables (by name) and their contents, copied into every compiled module before it runs
  // (Kernel Tuner's cmem_args). Only the cuda backend has constant memory.
  std::vector<std::pair<std::string, std::vector<std::byte>>> constant_memory{};
};

// Prepended to the source as "#define NAME VALUE" lines (and given to compilers that take -D the same way).
using Defines = std::vector<std::pair<std::string, std::string>>;

struct LaunchGeometry {
  std::array<std::uint64_t, 3> grid{1, 1, 1};   // number of blocks / work-groups per dimension
  std::array<std::uint64_t, 3> block{1, 1, 1};  // threads per block / work-items per work-group
};

// The configuration does not compile: `log` keeps the compiler's output (stored in the result's message).
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& what, std::string log) : std::runtime_error(what), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// A launch failed (too many resources, invalid work-group size, a device error).
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The backend cannot work at all (no OpenCL platform, no GPU, no compiler): not a failure of one configuration.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A compiled configuration; owned by the caller, released before the next one is compiled.
class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "cpp", "opencl", "cuda"
  virtual DeviceInfo device_info() const = 0;

  // Allocates the device side of `arguments` and uploads their contents. Called once per run (again after a worker
  // restart); the backend keeps its own copy of what it needs.
  virtual void set_arguments(std::span<const KernelArgument> arguments) = 0;
  // Re-uploads the initial contents of argument i (outputs start from them again before a verification run).
  virtual void reset_argument(std::size_t i) = 0;
  // Copies argument i from the device into `out` (exactly its size in bytes).
  virtual void read_argument(std::size_t i, std::span<std::byte> out) = 0;

  // Compiles one configuration. Throws CompileError with the compiler's log.
  virtual std::unique_ptr<CompiledKernel> compile(const KernelSource& source, const Defines& defines) = 0;
  // Compiling apart from measuring (the live evaluator's compile workers): prebuild() compiles one configuration
  // into files under `dir` (made and later removed by the caller) in any process, with its own backend and no
  // arguments set; load_prebuilt() turns what it returned into a kernel in the measuring process, cheaply. A
  // backend that cannot says so with supports_prebuild() (its configurations are then compiled where measured).
  // prebuild throws CompileError as compile does.
  virtual bool supports_prebuild() const { return false; }
  virtual std::string prebuild(const KernelSource& source, const Defines& defines, const std::string& dir);
  virtual std::unique_ptr<CompiledKernel> load_prebuilt(const KernelSource& source, const std::string& artifact);
  // Runs the kernel once on the current arguments and waits for it; returns its duration in ms (device events, or a
  // steady clock around the call for cpp). Throws LaunchError.
  virtual double launch(CompiledKernel& kernel, const LaunchGeometry& geometry) = 0;
};

struct BackendOptions {
  int platform = 0;           // OpenCL platform index
  int device = 0;             // device index within the platform (OpenCL) or CUDA ordinal
  std::string compiler;       // cpp: the compiler command ("" = $CXX or c++)
  // cpp: the function returns its own time in ms as a float, Kernel Tuner's convention for C, and that is the
  // launch's time (a negative or non-finite value fails the launch); false: a steady clock around the call.
  bool time_from_return = false;
};

// "cpp", "opencl" or "cuda". Throws BackendUnavailable (with the reason) when that backend cannot run here, and
// std::invalid_argument for an unknown name.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options = {});
// The backend names compiled into this build.
std::vector<std::string> available_backends();

}  // namespace ktune::live
