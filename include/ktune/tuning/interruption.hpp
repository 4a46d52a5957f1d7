#pragma once
// Stopping a run cleanly when the user asks (Ctrl-C, SIGTERM from a batch system): the request is one flag for the
// whole process, set from a signal handler or by a caller (the Python module, a test). Everything long-running polls
// it: the cost function ends the run as if the budget had ended (stop reason "interrupted"), a live evaluator
// abandons the configuration in flight (its worker is killed; the configuration gets no result, so a resumed run
// measures it again), comparisons skip the runs not yet started. What was measured is kept and written.
#include <exception>

namespace ktune {

// Thrown by an evaluator that abandoned its evaluation because a stop was requested; the cost function turns it
// into the end of the run. Like BudgetExhausted it must not be swallowed by a catch-all.
class Interrupted : public std::exception {
 public:
  const char* what() const noexcept override { return "interrupted"; }
};

bool stop_requested() noexcept;
// The signal that asked to stop (SIGINT, SIGTERM), 0 when asked by a call.
int stop_signal() noexcept;
void request_stop(int signal = 0) noexcept;
void clear_stop_request() noexcept;  // for a caller that goes on after an interrupted run (tests, the Python module)
// The exit status of a process that stopped for `signal` as a shell reports it: 128 + signal (130 for SIGINT).
int interrupted_exit_status(int signal) noexcept;

// While alive: SIGINT and SIGTERM request a stop; a second one ends the process at once, by that signal (the
// worker processes die with it, their leftovers are cleaned by the next run). Restores the previous handlers.
class InterruptHandler {
 public:
  InterruptHandler();
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;
};

}  // namespace ktune
