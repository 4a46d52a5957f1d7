#pragma once
// One step of a live evaluation as the backend side sees it: compile a configuration (or keep the last one), optionally
// run it once on fresh outputs and copy arguments back (verification), then the warm-up and timed launches. The same
// KernelRunner serves the in-process path and the worker process, so both measure exactly the same way; requests and
// results also have a small binary encoding for the worker's socket.
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
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
  std::string code;           // the source to compile (a generated one); empty: the runner's own source
  std::string kernel_name;
  Defines defines;
  LaunchGeometry geometry;
  bool check_run = false;     // reset the outputs, launch once and copy back the `read_back` arguments
  std::vector<std::uint32_t> read_back;
  bool warmup = false;        // one untimed launch before the timed ones
  std::uint32_t iterations = 0;
  bool observe_launches = false;  // tell the launch hook of each timed launch (the caller's LaunchObservers)
  // Compiled already by a compile worker (Backend::prebuild): what to load instead of compiling ("" : compile).
  std::string prebuilt;
};

// The source a request compiles: `base` with the request's kernel name and generated code, and Kernel Tuner's
// loop_unroll_factor rule applied (what the runner compiles and a compile worker prebuilds alike).
KernelSource source_for(const KernelSource& base, const RunRequest& request);

// The timed launches as the caller's observers see them: `ready` before each launch (the runner waits for the hook
// to return), `started` right before the backend's launch call.
enum class LaunchEvent : std::uint8_t { ready, started };

// The caller's side of observed launches: what ready/started mean to its observers, polled while a launch runs (when
// it runs elsewhere: the worker), and told when the last one finished. Implementations do not throw.
class LaunchEvents {
 public:
  virtual ~LaunchEvents() = default;
  virtual void ready() = 0;
  virtual void started() = 0;
  virtual void during() = 0;
  virtual void finished() = 0;
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
// is then charged to the steps it was spent in (compile_time, verification_time, benchmark_time), as Kernel Tuner's
// fields mean.
enum class Phase : std::uint8_t { idle, compiling, verifying, benchmarking };

// The steps of the current request as the runner goes through them, in memory shared with the parent: the step in
// flight, when it began, and the time of the steps already done. Times are steady_clock (CLOCK_MONOTONIC, the same
// clock in every process of the machine) in nanoseconds.
struct PhaseBoard {
  std::atomic<std::uint8_t> phase{static_cast<std::uint8_t>(Phase::idle)};
  std::atomic<std::int64_t> since_ns{0};
  std::atomic<std::int64_t> spent_ns[4] = {};  // per Phase, of the current request

  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // A new request: nothing spent yet.
  void begin() {
    for (auto& s : spent_ns) s.store(0, std::memory_order_relaxed);
    since_ns.store(now_ns(), std::memory_order_relaxed);
    phase.store(static_cast<std::uint8_t>(Phase::idle), std::memory_order_release);
  }
  void enter(Phase next) {
    const std::int64_t now = now_ns();
    const auto current = phase.load(std::memory_order_relaxed);
    spent_ns[current & 3].fetch_add(now - since_ns.load(std::memory_order_relaxed), std::memory_order_relaxed);
    since_ns.store(now, std::memory_order_relaxed);
    phase.store(static_cast<std::uint8_t>(next), std::memory_order_release);
  }
  // Milliseconds per Phase of the current request up to now, the step in flight included (read by the parent after
  // the runner was killed, so nothing moves while it reads).
  std::array<double, 4> spent_ms() const {
    std::array<double, 4> ms{};
    for (std::size_t i = 0; i < 4; ++i) ms[i] = static_cast<double>(spent_ns[i].load(std::memory_order_acquire)) / 1e6;
    const auto current = phase.load(std::memory_order_acquire) & 3;
    ms[current] += static_cast<double>(now_ns() - since_ns.load(std::memory_order_acquire)) / 1e6;
    return ms;
  }
};

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
  // Where to publish the steps (memory shared with the parent); null: nowhere.
  void report_phase_to(PhaseBoard* board) { board_ = board; }
  // Called at each timed launch of a request that observes launches.
  void set_launch_hook(std::function<void(LaunchEvent)> hook) { launch_hook_ = std::move(hook); }

 private:
  std::unique_ptr<Backend> backend_;
  KernelSource source_;
  // The buffer arguments that are not local memory; those the kernel must not write.
  void set_phase(Phase phase) {
    if (board_) board_->enter(phase);
  }
  void restore_buffers();
  std::string modified_read_only_inputs();  // "" when none changed, else which and where
  std::span<const KernelArgument> arguments_;
  std::unique_ptr<CompiledKernel> kernel_;
  std::vector<std::unique_ptr<Observer>> observers_;
  PhaseBoard* board_ = nullptr;
  std::function<void(LaunchEvent)> launch_hook_;
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
