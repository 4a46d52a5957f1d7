#pragma once
// One step of a live evaluation as the backend side sees it: compile a configuration (or keep the last one), optionally
// run it once on fresh outputs and copy arguments back (verification), then the warm-up and timed launches. The same
// KernelRunner serves the in-process path and the worker process, so both measure exactly the same way; requests and
// results also have a small binary encoding for the worker's socket.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/live/backend.hpp"
#include "ktune/live/observer.hpp"

namespace ktune::live::detail {

struct RunRequest {
  bool compile = true;        // compile kernel_name/defines; false: reuse the kernel compiled by the last request
  std::string kernel_name;
  Defines defines;
  LaunchGeometry geometry;
  bool check_run = false;     // reset the outputs, launch once and copy back the `read_back` arguments
  std::vector<std::uint32_t> read_back;
  bool warmup = false;        // one untimed launch before the timed ones
  std::uint32_t iterations = 0;
};

// input_modified: the kernel wrote to a buffer it declares read-only (its later configurations would see wrong inputs
// and a wrong reference; the buffers are restored before the next configuration).
enum class RunOutcome : std::uint8_t { ok, compile_error, launch_error, error, input_modified };

struct RunResult {
  RunOutcome outcome = RunOutcome::ok;
  std::string message;  // what() of the failure
  std::string log;      // the compiler's output (compile_error)
  double compile_ms = 0, check_ms = 0, benchmark_ms = 0;  // steady-clock time of each step, backend side
  std::vector<double> runtimes_ms;                        // one per timed launch, as the backend reports them
  std::vector<std::vector<std::byte>> outputs;            // the read_back arguments after the check run
  std::vector<Observation> observations;                  // the observers' reports over the timed launches
};

// The step a runner is in, published where its parent can read it after killing it (a timeout): the lost time
// is then charged to that step (compile_time, verification_time or benchmark_time), as Kernel Tuner's fields mean.
enum class Phase : std::uint8_t { idle, compiling, verifying, benchmarking };

// Owns a backend that has its arguments set, the kernel source without its name, and the last compiled kernel.
class KernelRunner {
 public:
  // `arguments`: what the backend's arguments were set from (kept by the caller, outliving the runner): buffers are
  // restored from them at each new configuration, and read-only ones are checked against them after its first run.
  KernelRunner(std::unique_ptr<Backend> backend, KernelSource source, std::span<const KernelArgument> arguments,
               std::vector<std::unique_ptr<Observer>> observers = {});
  // Never throws for a failing kernel: CompileError, LaunchError and other exceptions become the outcome.
  RunResult run(const RunRequest& request);
  const Backend& backend() const { return *backend_; }
  // Where to publish the current Phase (memory shared with the parent); null: nowhere.
  void report_phase_to(std::atomic<std::uint8_t>* phase) { phase_ = phase; }

 private:
  std::unique_ptr<Backend> backend_;
  KernelSource source_;
  // The buffer arguments that are not local memory; those the kernel must not write.
  void set_phase(Phase phase) {
    if (phase_) phase_->store(static_cast<std::uint8_t>(phase), std::memory_order_relaxed);
  }
  void restore_buffers();
  std::string modified_read_only_inputs();  // "" when none changed, else which and where
  std::span<const KernelArgument> arguments_;
  std::unique_ptr<CompiledKernel> kernel_;
  std::vector<std::unique_ptr<Observer>> observers_;
  std::atomic<std::uint8_t>* phase_ = nullptr;
};

// The wire format: little helpers appending to / reading from a byte string. Decoding throws std::runtime_error on a
// malformed message (a protocol bug or a corrupted stream, never a kernel's fault).
void encode(const RunRequest& request, std::string& out);
RunRequest decode_request(std::string_view in);
void encode(const RunResult& result, std::string& out);
RunResult decode_result(std::string_view in);
void encode(const DeviceInfo& info, std::string& out);
DeviceInfo decode_device_info(std::string_view in);

}  // namespace ktune::live::detail
