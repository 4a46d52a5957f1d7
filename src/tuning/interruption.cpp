#include "ktune/tuning/interruption.hpp"

#include <signal.h>

#include <atomic>

namespace ktune {
namespace {

// Lock-free atomics are async-signal-safe; the handler touches nothing else.
std::atomic<int> g_requests{0};
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct sigaction g_previous_int, g_previous_term;

extern "C" void on_stop_signal(int signal) {
  if (g_requests.fetch_add(1) > 0) {
    // The second request: leave at once, by the signal, as the user expects of a second Ctrl-C.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    return;
  }
  g_signal.store(signal);
}

}  // namespace

bool stop_requested() noexcept { return g_requests.load(std::memory_order_relaxed) > 0; }
int stop_signal() noexcept { return g_signal.load(); }

void request_stop(int signal) noexcept {
  g_signal.store(signal);
  g_requests.fetch_add(1);
}

void clear_stop_request() noexcept {
  g_requests.store(0);
  g_signal.store(0);
}

int interrupted_exit_status(int signal) noexcept { return 128 + (signal > 0 ? signal : SIGINT); }

InterruptHandler::InterruptHandler() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking wait returns EINTR and looks at the flag
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptHandler::~InterruptHandler() {
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
}

}  // namespace ktune
