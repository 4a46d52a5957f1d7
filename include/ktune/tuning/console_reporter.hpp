#pragma once
// What a person watching a tuning run sees, as Kernel Tuner users know it: a header (what is tuned, where, how),
// one line per evaluated configuration (Kernel Tuner's verbose mode: the parameter values, then the objective with
// its unit and the other measurements, or why it failed), a progress line, and a summary (failures by reason, the
// best configuration with its measurements). A TuningListener, so any job (the CLI, the Python module) can show
// it; lines and progress go to one stream (stderr by default: stdout stays free for results and --json).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ktune/search_space.hpp"
#include "ktune/tuning/budget.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/evaluation_record.hpp"

namespace ktune {

struct ConsoleReporterOptions {
  std::FILE* stream = stderr;
  bool configuration_lines = true;  // one line per evaluated configuration
  bool progress = true;             // the progress line
  // Rewrite the progress line in place (a terminal); otherwise a new progress line every log_interval_seconds.
  // Default: whether `stream` is a terminal.
  std::optional<bool> terminal;
  double log_interval_seconds = 5;
  // Not a terminal: while one configuration takes longer than log_interval_seconds (a long compile or kernel), a
  // line says which one and for how long, so that a log never goes quiet for longer (a background thread that
  // writes with write(2), never holding a stdio lock a forked worker could need).
  bool heartbeat = true;
};

// What the header says.
struct TuningHeader {
  std::string problem;   // name of the problem or kernel
  std::string where;     // "live on <device> (opencl backend)", "simulated from <file>"
  std::string strategy;  // with its settings when not the defaults
  Budget budget;
  std::uint64_t seed = 0;
};

class ConsoleReporter final : public TuningListener {
 public:
  explicit ConsoleReporter(ConsoleReporterOptions options = {});
  ~ConsoleReporter() override;
  ConsoleReporter(const ConsoleReporter&) = delete;
  ConsoleReporter& operator=(const ConsoleReporter&) = delete;

  // The header; `space` gives the number of configurations. Starts the elapsed-time clock.
  void header(const TuningHeader& header, const SearchSpace& space);
  void on_evaluation_start(const CostFunction& cost, std::size_t index) override;
  void on_evaluation(const CostFunction& cost, std::size_t position) override;
  // Ends an in-place progress line (so that what follows starts on a line of its own) and the heartbeat.
  void finish();

  // One configuration as Kernel Tuner prints it: "block_size_x=128, tile=2".
  static std::string configuration_text(const SearchSpace& space, std::size_t index);
  // The record's outcome: "time=0.4321 ms, GFLOP/s=123.4" for a success, "compile failed: <first line>" otherwise.
  static std::string outcome_text(const EvaluationRecord& record, const std::string& first_objective);
  // The unit of an objective as its records give it ("ms" for time and the step times), or "".
  static std::string unit_of(const EvaluationRecord& record, const std::string& name);
  // "12 failed: 3 compile, 2 runtime, 1 timeout, 4 wrong result, 2 invalid", or "none failed".
  static std::string failures_text(const Trace& trace);

 private:
  void print_progress(const CostFunction& cost, bool force);
  void write_line(const std::string& text);
  void heartbeat_loop();
  void stop_heartbeat();

  ConsoleReporterOptions options_;
  bool terminal_ = false;
  bool progress_pending_ = false;  // a progress line is shown in place and needs ending before other output
  std::uint64_t space_size_ = 0;
  Budget budget_;
  std::string unit_;  // of the first objective, once a successful record said it
  bool unit_known_ = false;
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now(), last_progress_{};

  // Shared with the heartbeat thread.
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::string in_flight_;  // the configuration being evaluated, "" between evaluations
  std::size_t in_flight_number_ = 0;
  Clock::time_point in_flight_since_{}, last_line_{};
  std::thread heartbeat_;
};

}  // namespace ktune
