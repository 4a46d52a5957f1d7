#include "ktune/tuning/console_reporter.hpp"

#include <unistd.h>

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace ktune {

namespace {

std::string number_text(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : fmt::format("{}", v); }

std::string duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto s = static_cast<long long>(seconds);
  if (seconds < 3600) return fmt::format("{}:{:02} min", s / 60, s % 60);
  return fmt::format("{}:{:02} h", s / 3600, s % 3600 / 60);
}

// The words a person reads for a failure (the --json spelling is to_string(status)).
const char* failure_words(Status status) {
  switch (status) {
    case Status::compile_failed: return "compile";
    case Status::runtime_failed: return "runtime";
    case Status::timeout: return "timeout";
    case Status::verification_failed: return "wrong result";
    case Status::invalid: return "invalid";
    case Status::ok: break;
  }
  return "ok";
}

// The first non-blank line of a failure message, shortened: the whole text is in the CSV results.
std::string first_line(const std::string& message) {
  std::size_t begin = 0;
  while (begin < message.size()) {
    std::size_t end = message.find('\n', begin);
    if (end == std::string::npos) end = message.size();
    std::string line = message.substr(begin, end - begin);
    const auto first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos) {
      line = line.substr(first);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
      if (line.size() > 160) line = line.substr(0, 157) + "...";
      return line;
    }
    begin = end + 1;
  }
  return "";
}

}  // namespace

ConsoleReporter::ConsoleReporter(ConsoleReporterOptions options) : options_(options) {
  terminal_ = options_.terminal ? *options_.terminal : ::isatty(::fileno(options_.stream)) != 0;
}

ConsoleReporter::~ConsoleReporter() { stop_heartbeat(); }

void ConsoleReporter::stop_heartbeat() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

void ConsoleReporter::heartbeat_loop() {
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.log_interval_seconds));
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (stopping_ || in_flight_.empty()) continue;
    const auto now = Clock::now();
    if (now - last_line_ < interval || now - in_flight_since_ < interval) continue;
    last_line_ = now;
    const std::string text = fmt::format(
        "  evaluation {} still running after {}: {}\n", in_flight_number_,
        duration_text(std::chrono::duration<double>(now - in_flight_since_).count()), in_flight_);
    // write(2), not stdio: a worker forked meanwhile must not inherit a locked FILE.
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(::fileno(options_.stream), text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
  }
}

void ConsoleReporter::on_evaluation_start(const CostFunction& cost, std::size_t index) {
  if (!heartbeat_.joinable()) return;
  std::lock_guard lock(mutex_);
  in_flight_ = configuration_text(cost.space(), index);
  in_flight_number_ = cost.evaluations() + 1;
  in_flight_since_ = Clock::now();
}

std::string ConsoleReporter::configuration_text(const SearchSpace& space, std::size_t index) {
  const auto values = space.values_at(index);
  std::string text;
  for (std::size_t p = 0; p < values.size(); ++p)
    text += fmt::format("{}{}={}", p ? ", " : "", space.param_name(p), values[p].repr());
  return text;
}

std::string ConsoleReporter::unit_of(const EvaluationRecord& record, const std::string& name) {
  if (const Measurement* m = record.find(name); m && !m->unit.empty()) return m->unit;
  // Kernel Tuner's time fields are milliseconds.
  if (name == "time" || name == "compile_time" || name == "benchmark_time" || name == "verification_time" ||
      name == "framework_time")
    return "ms";
  return "";
}

std::string ConsoleReporter::outcome_text(const EvaluationRecord& record, const std::string& first_objective) {
  if (record.status != Status::ok) {
    const std::string why = first_line(record.message);
    const char* what = record.status == Status::compile_failed   ? "compile failed"
                       : record.status == Status::runtime_failed ? "runtime failed"
                       : record.status == Status::timeout        ? "timed out"
                                                                 : failure_words(record.status);
    return fmt::format("{}{}{}", what, why.empty() ? "" : ": ", why);
  }
  const auto with_unit = [&](const std::string& name, const std::string& value) {
    const std::string unit = unit_of(record, name);
    return fmt::format("{}={}{}{}", name, value, unit.empty() ? "" : " ", unit);
  };
  std::string text;
  if (const auto v = record.objective(first_objective)) text = with_unit(first_objective, number_text(*v));
  for (const Measurement& m : record.measurements) {
    if (m.name == first_objective) continue;
    text += text.empty() ? "" : ", ";
    text += with_unit(m.name, m.value.is_numeric() ? number_text(m.value.to_double()) : m.value.repr());
  }
  return text;
}

std::string ConsoleReporter::failures_text(const Trace& trace) {
  std::map<Status, std::size_t> counts;
  std::size_t failed = 0;
  for (const TraceEntry& e : trace.entries())
    if (e.status != Status::ok) {
      ++counts[e.status];
      ++failed;
    }
  if (failed == 0) return "none failed";
  std::string text = fmt::format("{} failed:", failed);
  bool first = true;
  for (const Status s : {Status::compile_failed, Status::runtime_failed, Status::timeout, Status::verification_failed,
                         Status::invalid}) {
    if (!counts.count(s)) continue;
    text += fmt::format("{} {} {}", first ? "" : ",", counts[s], failure_words(s));
    first = false;
  }
  return text;
}

void ConsoleReporter::write_line(const std::string& text) {
  last_line_ = Clock::now();
  if (progress_pending_) {  // the in-place progress line gives way, and is drawn again below the new line
    std::fputs("\r\033[K", options_.stream);
    progress_pending_ = false;
  }
  std::fputs(text.c_str(), options_.stream);
  std::fputc('\n', options_.stream);
}

void ConsoleReporter::header(const TuningHeader& header, const SearchSpace& space) {
  start_ = Clock::now();
  space_size_ = space.size();
  budget_ = header.budget;
  write_line(fmt::format("ktune: tuning {} ({} configurations) {}", header.problem, space.size(), header.where));
  write_line(fmt::format("  strategy {}, budget {}, seed {}", header.strategy, header.budget.describe(), header.seed));
  std::fflush(options_.stream);
  if (!terminal_ && options_.heartbeat && options_.log_interval_seconds >= 0.5 && !heartbeat_.joinable())
    heartbeat_ = std::thread([this] { heartbeat_loop(); });
}

void ConsoleReporter::on_evaluation(const CostFunction& cost, std::size_t position) {
  std::lock_guard lock(mutex_);  // the heartbeat thread writes too
  in_flight_.clear();
  const TraceEntry& entry = cost.trace()[position];
  const std::string& objective = cost.objectives().front().name;
  if (options_.configuration_lines || (!unit_known_ && entry.status == Status::ok)) {
    const EvaluationRecord record = cost.evaluator().record(entry.index);
    if (!unit_known_ && record.status == Status::ok) {  // the first success tells the objective's unit
      unit_ = unit_of(record, objective);
      unit_known_ = true;
    }
    if (options_.configuration_lines)
      write_line(fmt::format("{:>6}  {}, {}", position + 1, configuration_text(cost.space(), entry.index),
                             outcome_text(record, objective)));
  }
  print_progress(cost, options_.configuration_lines);
  std::fflush(options_.stream);
}

void ConsoleReporter::print_progress(const CostFunction& cost, bool force) {
  if (!options_.progress) return;
  const auto now = Clock::now();
  const auto gap = terminal_ ? std::chrono::milliseconds(250)
                             : std::chrono::milliseconds(static_cast<long long>(options_.log_interval_seconds * 1000));
  // In a log, a progress line only every few seconds (the configuration lines already say it is alive).
  if (!terminal_ && now - last_progress_ < gap) return;
  if (terminal_ && !force && now - last_progress_ < gap) return;
  last_progress_ = now;

  const std::uint64_t limit = budget_.evaluation_limit(space_size_);
  // Resumed results that count toward the budget are part of the count (they are in the limit's reckoning).
  const std::uint64_t counted_resumed = cost.budget_used() - cost.evaluations();
  std::string text = fmt::format("  {} of {} evaluations", cost.budget_used(), limit);
  if (counted_resumed > 0) text += fmt::format(" ({} resumed)", counted_resumed);
  const Trace& trace = cost.trace();
  if (const auto best = trace.best())
    text += fmt::format(" | best {} {}{}{}", trace.objectives().front().name, number_text(trace.values(*best).front()),
                        unit_.empty() ? "" : " ", unit_);
  else
    text += " | no valid configuration yet";
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  text += fmt::format(" | {} elapsed", duration_text(elapsed));
  const double spent = cost.budget_spent_fraction();
  if (spent > 0 && spent < 1) text += fmt::format(", about {} left", duration_text(elapsed * (1 - spent) / spent));
  if (terminal_) {
    std::fputs(("\r" + text + "\033[K").c_str(), options_.stream);
    progress_pending_ = true;
  } else {
    write_line(text);
  }
}

void ConsoleReporter::finish() {
  stop_heartbeat();
  if (progress_pending_) std::fputc('\n', options_.stream);
  progress_pending_ = false;
  std::fflush(options_.stream);
}

}  // namespace ktune
