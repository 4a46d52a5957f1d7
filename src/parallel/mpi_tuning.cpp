#include "ktune/parallel/mpi_tuning.hpp"

#include <chrono>
#include <cmath>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/io/json_value.hpp"
#include "ktune/tuning/concurrent_evaluator.hpp"
#include "ktune/tuning/interruption.hpp"

#ifdef KTUNE_HAVE_MPI
#include <mpi.h>
#endif

namespace ktune::parallel {

#ifdef KTUNE_HAVE_MPI
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Messages: a rank says hello once its job is open (or why it is not), then sends heartbeats while it works and a
// result per configuration; rank 0 sends configurations and, at the end, the release.
enum Tag : int { kHello = 7101, kTask = 7102, kResult = 7103, kHeartbeat = 7104, kRelease = 7105 };
constexpr auto kHeartbeatEvery = std::chrono::seconds(1);
constexpr auto kPoll = std::chrono::milliseconds(1);

// Whether rank 0 lost a rank (its release then tells the others to leave without MPI_Finalize).
std::atomic<bool> a_rank_was_lost{false};

// On rank 0 the devices' threads share MPI one call at a time (MPI_THREAD_SERIALIZED).
std::mutex& mpi_mutex() {
  static std::mutex m;
  return m;
}

void send_bytes(const std::vector<std::uint8_t>& bytes, int to, int tag) {
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

// A message from `source` (or any rank), if one has arrived: who sent it, its tag and its bytes. Takes the MPI lock.
struct Message {
  int source = 0, tag = 0;
  std::vector<std::uint8_t> bytes;
};
std::optional<Message> try_receive(int source) {
  std::lock_guard lock(mpi_mutex());
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  Message m{status.MPI_SOURCE, status.MPI_TAG, std::vector<std::uint8_t>(static_cast<std::size_t>(count))};
  MPI_Recv(m.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return m;
}

// CBOR keeps doubles exactly, NaN and infinities included.
std::vector<std::uint8_t> encode(const json& j) { return json::to_cbor(j); }
json decode(const std::vector<std::uint8_t>& bytes) { return json::from_cbor(bytes); }

json record_to_json(const EvaluationRecord& r) {
  json config = json::array();
  for (const Value& v : r.config) config.push_back(io::value_to_json(v));
  json measurements = json::array();
  for (const Measurement& m : r.measurements) measurements.push_back({m.name, io::value_to_json(m.value), m.unit});
  return {{"config", config},
          {"measurements", measurements},
          {"runtimes_ms", r.runtimes_ms},
          {"times", {r.compile_ms, r.benchmark_ms, r.verification_ms, r.framework_ms}},
          {"status", std::string(to_string(r.status))},
          {"message", r.message},
          {"timestamp", r.timestamp}};
}

EvaluationRecord record_from_json(const json& j) {
  EvaluationRecord r;
  for (const json& v : j.at("config")) r.config.push_back(io::value_from_json(v));
  for (const json& m : j.at("measurements"))
    r.measurements.push_back({m.at(0).get<std::string>(), io::value_from_json(m.at(1)), m.at(2).get<std::string>()});
  r.runtimes_ms = j.at("runtimes_ms").get<std::vector<double>>();
  const auto times = j.at("times").get<std::vector<double>>();
  r.compile_ms = times.at(0);
  r.benchmark_ms = times.at(1);
  r.verification_ms = times.at(2);
  r.framework_ms = times.at(3);
  const auto status = parse_status(j.at("status").get<std::string>());
  if (!status) throw std::runtime_error("unknown status " + j.at("status").get<std::string>());
  r.status = *status;
  r.message = j.at("message").get<std::string>();
  r.timestamp = j.at("timestamp").get<std::string>();
  return r;
}

// Rank 0's view of one measuring rank: sends it a configuration and waits for the result, taking heartbeats as
// signs of life. Silence longer than the timeout, or an error the rank reports, loses the device (DeviceLost): the
// ConcurrentEvaluator gives the configuration to another rank.
class RankEvaluator final : public Evaluator {
 public:
  RankEvaluator(int rank, std::string device, std::vector<Objective> objectives, double timeout_seconds)
      : rank_(rank), device_(std::move(device)), objectives_(std::move(objectives)),
        timeout_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds))) {}

  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return false; }
  std::string device_name() const override { return device_; }

  EvaluationOutcome evaluate(std::size_t index) override {
    {
      std::lock_guard lock(mpi_mutex());
      send_bytes(encode(json(index)), rank_, kTask);
    }
    Clock::time_point heard = Clock::now();
    for (;;) {
      std::optional<Message> message = try_receive(rank_);
      if (message) heard = Clock::now();  // a heartbeat, or the result
      if (message && message->tag == kResult) {
        const json reply = decode(message->bytes);
        if (reply.at("index").get<std::size_t>() != index)
          throw DeviceLost(fmt::format("rank {} answered for configuration {} instead of {}", rank_,
                                       reply.at("index").get<std::size_t>(), index));
        if (reply.contains("error")) throw DeviceLost(fmt::format("rank {}: {}", rank_, reply["error"].get<std::string>()));
        const Status status = *parse_status(reply.at("status").get<std::string>());
        values_ = reply.at("values").get<std::vector<double>>();
        records_[index] = record_from_json(reply.at("record"));
        return {status, values_, reply.at("charged_ms").get<double>()};
      }
      if (stop_requested()) throw Interrupted();
      if (Clock::now() - heard > timeout_) {
        a_rank_was_lost = true;
        throw DeviceLost(fmt::format("rank {} was silent for {:.0f} s (dead?)", rank_,
                                     std::chrono::duration<double>(timeout_).count()));
      }
      std::this_thread::sleep_for(kPoll);
    }
  }

  EvaluationRecord record(std::size_t index) const override {
    const auto it = records_.find(index);
    if (it == records_.end()) throw std::logic_error(fmt::format("configuration {} has not been evaluated", index));
    return it->second;
  }

 private:
  int rank_;
  std::string device_;
  std::vector<Objective> objectives_;
  Clock::duration timeout_;
  std::vector<double> values_;
  std::unordered_map<std::size_t, EvaluationRecord> records_;
};

json space_fingerprint(const SearchSpace& space) {
  const auto& max_threads = space.problem().max_threads;
  return {{"space_size", space.size()}, {"max_threads", max_threads ? json(*max_threads) : json(nullptr)}};
}

}  // namespace
#endif

std::function<std::vector<RemoteDevice>(const SearchSpace&, const std::vector<Objective>&)> mpi_rank_devices(
    const MpiSession& session, MpiTuneOptions options) {
  if (!session.active() || session.rank() != 0)
    throw std::logic_error("mpi_rank_devices: for rank 0 of an MPI session with several ranks");
#ifdef KTUNE_HAVE_MPI
  if (!session.serialized_threads())
    throw std::runtime_error("this MPI cannot be called from several threads (MPI_THREAD_SERIALIZED): a live tune "
                             "cannot be shared between ranks");
  return [&session, options](const SearchSpace& space, const std::vector<Objective>& objectives) {
    const auto note = [&](const std::string& text) {
      if (options.on_note) options.on_note(text);
    };
    const auto timeout = std::chrono::duration<double>(options.rank_timeout_seconds);
    const json expected = space_fingerprint(space);
    std::vector<Clock::time_point> heard(static_cast<std::size_t>(session.size()), Clock::now());
    std::vector<std::optional<json>> hello(static_cast<std::size_t>(session.size()));
    std::size_t waiting = static_cast<std::size_t>(session.size() - 1);
    while (waiting > 0) {
      if (const std::optional<Message> message = try_receive(MPI_ANY_SOURCE)) {
        const auto r = static_cast<std::size_t>(message->source);
        heard[r] = Clock::now();
        if (message->tag == kHello && !hello[r]) {
          hello[r] = decode(message->bytes);
          --waiting;
        }
        continue;
      }
      if (stop_requested()) throw Interrupted();
      for (std::size_t r = 1; r < hello.size(); ++r) {
        if (hello[r] || Clock::now() - heard[r] <= timeout) continue;
        hello[r] = json{{"error", fmt::format("silent for {:.0f} s while opening its device (dead?)", timeout.count())}};
        a_rank_was_lost = true;
        --waiting;
      }
      std::this_thread::sleep_for(kPoll);
    }
    std::vector<RemoteDevice> devices;
    for (std::size_t r = 1; r < hello.size(); ++r) {
      const json& h = *hello[r];
      if (h.contains("error")) {
        note(fmt::format("note: rank {} cannot measure: {}", r, h["error"].get<std::string>()));
        continue;
      }
      if (h.at("space") != expected) {
        note(fmt::format("note: rank {} built another space ({} configurations, block-size limit {}; here {}, {}): "
                         "left out",
                         r, h["space"]["space_size"].dump(), h["space"]["max_threads"].dump(),
                         expected["space_size"].dump(), expected["max_threads"].dump()));
        continue;
      }
      devices.push_back({fmt::format("rank {}", r),
                         std::make_unique<RankEvaluator>(static_cast<int>(r), h.at("device_name").get<std::string>(),
                                                         objectives, options.rank_timeout_seconds)});
    }
    if (devices.empty()) throw std::runtime_error("no rank can measure (see the notes above)");
    return devices;
  };
#else
  (void)options;
  throw std::logic_error("mpi_rank_devices: ktune was built without MPI");
#endif
}

void release_ranks(const MpiSession& session) {
#ifdef KTUNE_HAVE_MPI
  if (!session.active() || session.rank() != 0) return;
  std::lock_guard lock(mpi_mutex());
  const std::uint8_t lost = a_rank_was_lost ? 1 : 0;
  for (int r = 1; r < session.size(); ++r) MPI_Send(&lost, 1, MPI_BYTE, r, kRelease, MPI_COMM_WORLD);
  if (lost) session.leave_without_finalize();
#else
  (void)session;
#endif
}

int serve_rank(const MpiSession& session, const std::function<std::unique_ptr<TuneJob>()>& open) {
#ifdef KTUNE_HAVE_MPI
  if (!session.active() || session.rank() == 0)
    throw std::logic_error("serve_rank: for the ranks other than 0 of an MPI session");
  // Opening and measuring stay on this thread: the live evaluator's worker processes die with the thread that
  // forked them (PR_SET_PDEATHSIG). A second thread tells rank 0 that this rank lives while it is busy.
  std::atomic<bool> busy{true}, done{false};
  std::thread heartbeats([&] {
    Clock::time_point last = Clock::now();
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!busy || Clock::now() - last < kHeartbeatEvery) continue;
      std::lock_guard lock(mpi_mutex());
      const std::uint8_t byte = 0;
      MPI_Send(&byte, 1, MPI_BYTE, 0, kHeartbeat, MPI_COMM_WORLD);
      last = Clock::now();
    }
  });
  const auto send = [](const json& message, int tag) {
    std::lock_guard lock(mpi_mutex());
    send_bytes(encode(message), 0, tag);
  };

  std::unique_ptr<TuneJob> job;
  json hello;
  try {
    if (!session.serialized_threads())
      throw std::runtime_error("this MPI cannot be called from several threads (MPI_THREAD_SERIALIZED)");
    job = open();
    hello = {{"device_name", job->measuring_evaluator().device_name()}, {"space", space_fingerprint(job->space())}};
  } catch (const std::exception& e) {
    hello = {{"error", e.what()}};
  }
  busy = false;
  send(hello, kHello);

  // A rank that could not open its job still waits for the release: exiting early (or with an error status) would
  // make the launcher end every rank.
  Evaluator* evaluator = job ? &job->measuring_evaluator() : nullptr;
  for (;;) {
    const std::optional<Message> message = try_receive(0);
    if (message && message->tag == kRelease) {
      if (!message->bytes.empty() && message->bytes[0] == 1) session.leave_without_finalize();
      break;
    }
    if (!message || message->tag != kTask || !evaluator) {
      std::this_thread::sleep_for(kPoll);
      continue;
    }
    const auto index = decode(message->bytes).get<std::size_t>();
    busy = true;
    json reply = {{"index", index}};
    try {
      const EvaluationOutcome outcome = evaluator->evaluate(index);
      reply["status"] = std::string(to_string(outcome.status));
      reply["values"] = std::vector<double>(outcome.objectives.begin(), outcome.objectives.end());
      reply["charged_ms"] = outcome.charged_ms;
      reply["record"] = record_to_json(evaluator->record(index));
    } catch (const Interrupted&) {
      reply["error"] = "interrupted";
    } catch (const std::exception& e) {
      reply["error"] = e.what();
    }
    busy = false;
    send(reply, kResult);
  }
  done = true;
  heartbeats.join();
  return 0;
#else
  (void)session;
  (void)open;
  throw std::logic_error("serve_rank: ktune was built without MPI");
#endif
}

}  // namespace ktune::parallel
