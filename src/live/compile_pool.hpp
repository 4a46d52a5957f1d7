#pragma once
// Compile workers: processes that compile configurations ahead of their measurement (Backend::prebuild), on the cores
// the measuring worker does not use, so that a live run overlaps compiling the next configurations with measuring the
// current one. Each worker is forked with its own backend (no arguments, no device buffers) before any backend exists
// in the parent, pinned to its cores, and serves one compile at a time over a socketpair; its compiled files go into a
// directory per configuration that the pool removes once the configuration was measured.
//
// The pool never measures and never decides a result: a configuration it compiled is loaded and measured by the
// measuring worker as usual (its compile time is the worker's), and one it could not compile carries the compiler's
// log like a compile in the measuring worker. A worker that dies or passes the time limit is replaced; its
// configuration is then compiled where it is measured. Deterministic: which configurations are measured, and in which
// order, does not depend on the pool.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel_run.hpp"
#include "temporary_directory.hpp"

namespace ktune::live::detail {

struct Prebuilt {
  bool ok = false;
  std::string artifact;         // ok: what Backend::load_prebuilt takes
  std::string message, log;     // !ok: the CompileError
  double compile_ms = 0;        // the worker's compile time
};

class CompilePool {
 public:
  // `cpus`: the cores the workers may use (empty: any). `timeout_s`: the limit of one compile.
  CompilePool(std::size_t workers, std::function<std::unique_ptr<Backend>()> factory, KernelSource source,
              std::vector<int> cpus, double timeout_s);
  ~CompilePool();  // kills the workers, removes every directory
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  std::size_t workers() const { return workers_.size(); }
  // The workers' backend cannot compile apart from measuring (or the workers could not start): unusable.
  bool broken() const { return broken_; }
  // Whether `index` is queued, compiling or compiled and not taken yet.
  bool has(std::size_t index) const;
  // Queues the compile of configuration `index` (request: its code, kernel name and defines); started as soon as a
  // worker is free. At most `limit` are kept ahead (queued, compiling or waiting to be measured): more are refused.
  bool submit(std::size_t index, const RunRequest& request);
  // Collects finished compiles and starts queued ones; never blocks.
  void pump();
  // The compile of `index`: waits for it (starting it first if it is still queued). nullopt when it was not
  // submitted, or its worker was lost (then compile it where it is measured).
  std::optional<Prebuilt> take(std::size_t index);
  // The configuration was measured: its directory goes.
  void release(std::size_t index);
  // Forgets the queued compiles not started (the run ends).
  void clear_queue();
  std::size_t limit() const { return limit_; }

 private:
  struct Worker {
    pid_t pid = -1;
    int fd = -1;
    std::optional<std::size_t> busy;  // the configuration it compiles
    std::chrono::steady_clock::time_point deadline;
  };
  void start_worker(Worker& w);
  void stop_worker(Worker& w);
  void dispatch();
  bool collect(Worker& w, int timeout_ms);  // reads a finished compile; false if none within the timeout

  std::function<std::unique_ptr<Backend>()> factory_;
  KernelSource source_;
  std::vector<int> cpus_;
  double timeout_s_;
  std::size_t limit_;
  std::vector<Worker> workers_;
  std::deque<std::pair<std::size_t, RunRequest>> queue_;
  std::map<std::size_t, Prebuilt> done_;
  std::map<std::size_t, std::filesystem::path> directories_;
  std::unique_ptr<TemporaryDirectory> root_;
  bool broken_ = false;  // the workers cannot compile at all (their backend failed): compile where measured
};

}  // namespace ktune::live::detail
