#include "ktune/tuning/concurrent_evaluator.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ktune/tuning/interruption.hpp"

namespace ktune {
namespace {

struct Result {
  Status status = Status::ok;
  std::vector<double> values;
  double charged_ms = 0;
  EvaluationRecord record;
  bool interrupted = false;
  std::exception_ptr error;  // the device's evaluator failed otherwise
};

}  // namespace

struct ConcurrentEvaluator::Shared {
  std::vector<std::unique_ptr<Evaluator>> devices;
  std::vector<std::thread> threads;
  mutable std::mutex mutex;
  std::condition_variable work;      // a device waits for the queue
  std::condition_variable finished;  // evaluate() waits for its configuration
  std::deque<std::size_t> queue;
  std::unordered_set<std::size_t> running;
  std::unordered_map<std::size_t, Result> ahead;              // finished, not asked yet
  std::unordered_map<std::size_t, EvaluationRecord> records;  // asked
  std::vector<std::size_t> delivered;
  std::vector<std::string> lost;
  std::vector<bool> lost_reported;  // told to on_lost
  std::function<void(std::size_t, const std::string&)> on_lost;
  std::size_t alive = 0;
  bool shutdown = false;

  void serve(std::size_t device);
  Result measure(std::size_t device, std::size_t index);
};

// One device's loop: the next queued configuration, measured with the lock released.
void ConcurrentEvaluator::Shared::serve(std::size_t device) {
  std::unique_lock lock(mutex);
  for (;;) {
    work.wait(lock, [&] { return shutdown || !queue.empty(); });
    if (shutdown) return;
    const std::size_t index = queue.front();
    queue.pop_front();
    running.insert(index);
    lock.unlock();
    std::optional<Result> result;
    std::string lost_why;
    try {
      result = measure(device, index);
    } catch (const DeviceLost& e) {
      lost_why = e.what();
    }
    lock.lock();
    running.erase(index);
    if (!result) {
      // Its configuration goes first to the devices that remain; this thread ends.
      queue.push_front(index);
      lost[device] = lost_why.empty() ? "lost" : lost_why;
      --alive;
      work.notify_one();
      finished.notify_all();
      return;
    }
    ahead[index] = std::move(*result);
    ++delivered[device];
    finished.notify_all();
  }
}

Result ConcurrentEvaluator::Shared::measure(std::size_t device, std::size_t index) {
  Result r;
  if (stop_requested()) {
    r.interrupted = true;
    return r;
  }
  Evaluator& e = *devices[device];
  try {
    const EvaluationOutcome outcome = e.evaluate(index);
    r.status = outcome.status;
    r.values.assign(outcome.objectives.begin(), outcome.objectives.end());
    r.charged_ms = outcome.charged_ms;
    r.record = e.record(index);
  } catch (const Interrupted&) {
    r.interrupted = true;
  } catch (const DeviceLost&) {
    throw;
  } catch (...) {
    r.error = std::current_exception();
  }
  return r;
}

ConcurrentEvaluator::ConcurrentEvaluator(std::vector<std::unique_ptr<Evaluator>> devices,
                                         std::function<void(std::size_t, const std::string&)> on_lost)
    : shared_(std::make_unique<Shared>()) {
  if (devices.empty()) throw std::invalid_argument("concurrent evaluation needs at least one device");
  for (const auto& d : devices) {
    if (!d) throw std::invalid_argument("concurrent evaluation: a device without an evaluator");
    if (d->objectives() != devices.front()->objectives())
      throw std::invalid_argument("concurrent evaluation: the devices measure different objectives");
  }
  Shared& s = *shared_;
  s.devices = std::move(devices);
  s.delivered.assign(s.devices.size(), 0);
  s.lost.assign(s.devices.size(), "");
  s.lost_reported.assign(s.devices.size(), false);
  s.on_lost = std::move(on_lost);
  s.alive = s.devices.size();
  for (std::size_t d = 0; d < s.devices.size(); ++d) s.threads.emplace_back([&s, d] { s.serve(d); });
}

ConcurrentEvaluator::~ConcurrentEvaluator() {
  {
    std::lock_guard lock(shared_->mutex);
    shared_->shutdown = true;
    shared_->queue.clear();
  }
  shared_->work.notify_all();
  for (auto& t : shared_->threads) t.join();
}

const std::vector<Objective>& ConcurrentEvaluator::objectives() const { return shared_->devices.front()->objectives(); }
bool ConcurrentEvaluator::simulated() const { return shared_->devices.front()->simulated(); }
std::string ConcurrentEvaluator::device_name() const { return shared_->devices.front()->device_name(); }
std::string ConcurrentEvaluator::kernel_name() const { return shared_->devices.front()->kernel_name(); }
std::size_t ConcurrentEvaluator::device_count() const { return shared_->devices.size(); }
Evaluator& ConcurrentEvaluator::device(std::size_t i) const { return *shared_->devices.at(i); }

EvaluationOutcome ConcurrentEvaluator::evaluate(std::size_t index) {
  Shared& s = *shared_;
  std::unique_lock lock(s.mutex);
  if (!s.ahead.contains(index) && !s.running.contains(index)) {
    // Asked now: it goes before what was only announced.
    if (const auto it = std::find(s.queue.begin(), s.queue.end(), index); it != s.queue.end()) s.queue.erase(it);
    s.queue.push_front(index);
    s.work.notify_one();
  }
  s.finished.wait(lock, [&] { return s.ahead.contains(index) || s.alive == 0; });
  // Devices lost meanwhile are told here, on the caller's thread (callbacks need not be thread-safe).
  std::vector<std::pair<std::size_t, std::string>> newly_lost;
  for (std::size_t d = 0; d < s.lost.size(); ++d)
    if (!s.lost[d].empty() && !s.lost_reported[d]) {
      s.lost_reported[d] = true;
      newly_lost.emplace_back(d, s.lost[d]);
    }
  if (!newly_lost.empty() && s.on_lost) {
    lock.unlock();
    for (const auto& [d, why] : newly_lost) s.on_lost(d, why);
    lock.lock();
  }
  const auto it = s.ahead.find(index);
  if (it == s.ahead.end()) {
    std::string why;
    for (std::size_t d = 0; d < s.lost.size(); ++d) why += fmt::format("{}device {}: {}", d ? "; " : "", d, s.lost[d]);
    throw std::runtime_error("every device was lost (" + why + ")");
  }
  Result r = std::move(it->second);
  s.ahead.erase(it);
  if (r.interrupted) throw Interrupted();
  if (r.error) std::rethrow_exception(r.error);
  s.records[index] = std::move(r.record);
  values_ = std::move(r.values);
  return {r.status, values_, r.charged_ms};
}

void ConcurrentEvaluator::prepare(std::span<const std::size_t> upcoming) {
  Shared& s = *shared_;
  {
    std::lock_guard lock(s.mutex);
    s.queue.clear();
    for (std::size_t index : upcoming)
      if (!s.ahead.contains(index) && !s.running.contains(index) && !s.records.contains(index) &&
          std::find(s.queue.begin(), s.queue.end(), index) == s.queue.end())
        s.queue.push_back(index);
  }
  s.work.notify_all();
}

EvaluationRecord ConcurrentEvaluator::record(std::size_t index) const {
  std::lock_guard lock(shared_->mutex);
  const auto it = shared_->records.find(index);
  if (it == shared_->records.end()) throw std::logic_error(fmt::format("configuration {} has not been evaluated", index));
  return it->second;
}

std::vector<std::size_t> ConcurrentEvaluator::evaluations_per_device() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->delivered;
}

std::vector<std::string> ConcurrentEvaluator::lost_devices() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->lost;
}

std::size_t ConcurrentEvaluator::unused_evaluations() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->ahead.size();
}

}  // namespace ktune
