#pragma once
// Progress of a long verb on stderr: on a terminal one line rewritten in place (at most four times a second); in a
// log (batch job, CI) a new line at most every five seconds, so a log shows the run is alive without flooding it.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/format.h>

namespace ktune::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled), terminal_(::isatty(STDERR_FILENO) != 0) {}

  // Shows `text` (no line end) if enough time has passed since the last line, or when `force`.
  void show(const std::string& text, bool force = false) {
    if (!enabled_) return;
    const auto now = Clock::now();
    const auto gap = terminal_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000);
    if (!force && shown_ && now - last_ < gap) return;
    last_ = now;
    shown_ = true;
    if (terminal_) {
      std::fprintf(stderr, "\r%s\033[K", text.c_str());  // \033[K: clear what a longer earlier line left
      pending_newline_ = true;
    } else {
      std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
  }
  // Ends the in-place line, so that what follows starts on a line of its own.
  void finish() {
    if (pending_newline_) std::fputc('\n', stderr);
    pending_newline_ = false;
  }
  // Before other output to stderr on a terminal: end the in-place line first.
  void interrupt_line() { finish(); }

  bool enabled() const { return enabled_; }
  bool terminal() const { return terminal_; }
  double elapsed_seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // "12 of 150 runs, 3.1 s, about 35 s left"
  std::string count_text(std::size_t done, std::size_t total, const char* unit) const {
    const double elapsed = elapsed_seconds();
    std::string text = fmt::format("{} of {} {}, {}", done, total, unit, duration_text(elapsed));
    if (done > 0 && done < total)
      text += fmt::format(", about {} left", duration_text(elapsed / static_cast<double>(done) *
                                                           static_cast<double>(total - done)));
    return text;
  }
  static std::string duration_text(double seconds) {
    if (seconds < 60) return fmt::format("{:.1f} s", seconds);
    if (seconds < 3600) return fmt::format("{}:{:02} min", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
    return fmt::format("{}:{:02} h", static_cast<int>(seconds) / 3600, static_cast<int>(seconds) % 3600 / 60);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_, terminal_;
  bool shown_ = false, pending_newline_ = false;
  Clock::time_point start_ = Clock::now(), last_{};
};

}  // namespace ktune::cli
