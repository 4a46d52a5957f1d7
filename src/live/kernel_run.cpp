#include "kernel_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "milliseconds_since.hpp"
#include "unroll_pragmas.hpp"

namespace ktune::live::detail {
namespace {

using Clock = std::chrono::steady_clock;
// Both ends are the same binary on the same machine (a fork), so host byte order and sizes are fine.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  template <class T>
  void pod(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void str(std::string_view s) {
    pod<std::uint64_t>(s.size());
    out_.append(s);
  }
  void bytes(std::span<const std::byte> b) {
    pod<std::uint64_t>(b.size());
    out_.append(reinterpret_cast<const char*>(b.data()), b.size());
  }

 private:
  std::string& out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T pod() {
    T value;
    need(sizeof value);
    std::memcpy(&value, in_.data() + pos_, sizeof value);
    pos_ += sizeof value;
    return value;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    need(n);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::vector<std::byte> bytes() {
    const auto n = pod<std::uint64_t>();
    need(n);
    std::vector<std::byte> b(n);
    if (n) std::memcpy(b.data(), in_.data() + pos_, n);
    pos_ += n;
    return b;
  }
  std::size_t count() {  // a length that must be plausible for what follows (at least one byte per element)
    const auto n = pod<std::uint64_t>();
    if (n > in_.size() - pos_) throw std::runtime_error("worker protocol: bad element count");
    return n;
  }
  void end() const {
    if (pos_ != in_.size()) throw std::runtime_error("worker protocol: trailing bytes in a message");
  }

 private:
  void need(std::size_t n) const {
    if (n > in_.size() - pos_) throw std::runtime_error("worker protocol: message cut short");
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace

KernelRunner::KernelRunner(std::unique_ptr<Backend> backend, KernelSource source,
                           std::span<const KernelArgument> arguments, std::vector<std::unique_ptr<Observer>> observers)
    : backend_(std::move(backend)), source_(std::move(source)), arguments_(arguments), observers_(std::move(observers)) {}

void KernelRunner::restore_buffers() {
  for (std::size_t i = 0; i < arguments_.size(); ++i)
    if (!arguments_[i].scalar && !arguments_[i].local_memory) backend_->reset_argument(i);
}

std::string KernelRunner::modified_read_only_inputs() {
  std::string modified;
  std::vector<std::byte> now;
  for (std::size_t i = 0; i < arguments_.size(); ++i) {
    const KernelArgument& a = arguments_[i];
    if (a.scalar || a.local_memory || a.access != Access::read_only || a.bytes.empty()) continue;
    now.resize(a.bytes.size());
    backend_->read_argument(i, now);
    const auto differs = std::mismatch(now.begin(), now.end(), a.bytes.begin());
    if (differs.first == now.end()) continue;
    const std::size_t byte = static_cast<std::size_t>(differs.first - now.begin());
    const std::size_t width = std::max<std::size_t>(1, element_size(a.type));
    modified += fmt::format("{}'{}' (first at element {})", modified.empty() ? "" : ", ", a.name, byte / width);
  }
  return modified;
}

RunResult KernelRunner::run(const RunRequest& request) {
  RunResult result;
  // Which step failed decides the outcome: compiling, or launching (the check run and the benchmark).
  bool compiling = false;
  Clock::time_point compile_start;
  if (board_) board_->begin();
  try {
    // Each configuration starts from the original inputs, whatever the previous one did to them.
    if (request.compile || request.check_run) restore_buffers();
    if (request.compile) {
      compiling = true;
      set_phase(Phase::compiling);
      kernel_.reset();  // the previous configuration is released before the next is built
      source_.name = request.kernel_name;
      compile_start = Clock::now();
      const KernelSource prepared = source_for(source_, request);
      kernel_ = request.prebuilt.empty() ? backend_->compile(prepared, request.defines)
                                         : backend_->load_prebuilt(prepared, request.prebuilt);
      result.compile_ms = ms_since(compile_start);
      compiling = false;
    }
    if (!kernel_) throw std::logic_error("no compiled kernel to run");
    if (request.check_run) {
      set_phase(Phase::verifying);
      const auto start = Clock::now();
      backend_->launch(*kernel_, request.geometry);
      for (std::uint32_t i : request.read_back) {
        if (i >= arguments_.size()) throw std::logic_error("read_back index out of range");
        std::vector<std::byte> out(arguments_[i].bytes.size());
        backend_->read_argument(i, out);
        result.outputs.push_back(std::move(out));
      }
      if (std::string modified = modified_read_only_inputs(); !modified.empty()) {
        result.outcome = RunOutcome::input_modified;
        result.message = "the kernel wrote to " + modified + ", declared read-only";
      }
      result.check_ms = ms_since(start);
    }
    if ((request.warmup || request.iterations > 0) && result.outcome == RunOutcome::ok) {
      set_phase(Phase::benchmarking);
      const auto start = Clock::now();
      if (request.warmup) backend_->launch(*kernel_, request.geometry);
      result.runtimes_ms.reserve(request.iterations);
      const bool observe = request.iterations > 0 && !observers_.empty();
      if (observe)
        for (auto& o : observers_) o->start();
      const auto timed_start = Clock::now();
      const bool hook = request.observe_launches && launch_hook_;
      for (std::uint32_t k = 0; k < request.iterations; ++k) {
        if (hook) {
          launch_hook_(LaunchEvent::ready);  // returns once the caller's observers are ready
          launch_hook_(LaunchEvent::started);
        }
        result.runtimes_ms.push_back(backend_->launch(*kernel_, request.geometry));
      }
      const double timed_ms = ms_since(timed_start);
      if (observe)
        for (auto& o : observers_)
          for (auto& observation : o->stop(request.iterations, timed_ms))
            result.observations.push_back(std::move(observation));
      result.benchmark_ms = ms_since(start);
      // Without a check run (no verification), the configuration's first request is the one to check.
      if (request.compile && !request.check_run && result.outcome == RunOutcome::ok)
        if (std::string modified = modified_read_only_inputs(); !modified.empty()) {
          result.outcome = RunOutcome::input_modified;
          result.message = "the kernel wrote to " + modified + ", declared read-only";
        }
    }
  } catch (const CompileError& e) {
    result.compile_ms = ms_since(compile_start);  // a failed compile took its time too
    result.outcome = RunOutcome::compile_error;
    result.message = e.what();
    result.log = e.log();
  } catch (const LaunchError& e) {
    result.outcome = RunOutcome::launch_error;
    result.message = e.what();
  } catch (const std::exception& e) {
    if (compiling) result.compile_ms = ms_since(compile_start);
    result.outcome = compiling ? RunOutcome::compile_error : RunOutcome::error;
    result.message = e.what();
  }
  set_phase(Phase::idle);
  if (result.outcome != RunOutcome::ok) {
    if (result.outcome == RunOutcome::compile_error) kernel_.reset();
    result.runtimes_ms.clear();
    result.outputs.clear();
    result.observations.clear();
  }
  return result;
}

KernelSource source_for(const KernelSource& base, const RunRequest& request) {
  KernelSource prepared = base;
  prepared.name = request.kernel_name;
  if (!request.code.empty()) prepared.code = request.code;
  prepared.code = blank_zero_unroll_pragmas(std::move(prepared.code), request.defines);
  return prepared;
}

void encode(const RunRequest& r, std::string& out) {
  Writer w(out);
  w.pod<std::uint8_t>(r.compile);
  w.str(r.code);
  w.str(r.kernel_name);
  w.pod<std::uint64_t>(r.defines.size());
  for (const auto& [name, value] : r.defines) {
    w.str(name);
    w.str(value);
  }
  for (auto v : r.geometry.grid) w.pod(v);
  for (auto v : r.geometry.block) w.pod(v);
  w.pod<std::uint8_t>(r.check_run);
  w.pod<std::uint64_t>(r.read_back.size());
  for (auto i : r.read_back) w.pod(i);
  w.pod<std::uint8_t>(r.warmup);
  w.pod(r.iterations);
  w.pod<std::uint8_t>(r.observe_launches);
  w.str(r.prebuilt);
}

RunRequest decode_request(std::string_view in) {
  Reader r(in);
  RunRequest q;
  q.compile = r.pod<std::uint8_t>() != 0;
  q.code = r.str();
  q.kernel_name = r.str();
  for (std::size_t n = r.count(); n > 0; --n) {
    std::string name = r.str();
    q.defines.emplace_back(std::move(name), r.str());
  }
  for (auto& v : q.geometry.grid) v = r.pod<std::uint64_t>();
  for (auto& v : q.geometry.block) v = r.pod<std::uint64_t>();
  q.check_run = r.pod<std::uint8_t>() != 0;
  for (std::size_t n = r.count(); n > 0; --n) q.read_back.push_back(r.pod<std::uint32_t>());
  q.warmup = r.pod<std::uint8_t>() != 0;
  q.iterations = r.pod<std::uint32_t>();
  q.observe_launches = r.pod<std::uint8_t>() != 0;
  q.prebuilt = r.str();
  r.end();
  return q;
}

void encode(const RunResult& res, std::string& out) {
  Writer w(out);
  w.pod(res.outcome);
  w.str(res.message);
  w.str(res.log);
  w.pod(res.compile_ms);
  w.pod(res.check_ms);
  w.pod(res.benchmark_ms);
  w.pod<std::uint64_t>(res.runtimes_ms.size());
  for (double t : res.runtimes_ms) w.pod(t);
  w.pod<std::uint64_t>(res.outputs.size());
  for (const auto& o : res.outputs) w.bytes(o);
  w.pod<std::uint64_t>(res.observations.size());
  for (const auto& o : res.observations) {
    w.str(o.name);
    w.pod(o.value);
    w.str(o.unit);
  }
}

RunResult decode_result(std::string_view in) {
  Reader r(in);
  RunResult res;
  const auto outcome = r.pod<std::uint8_t>();
  if (outcome > static_cast<std::uint8_t>(RunOutcome::input_modified)) throw std::runtime_error("worker protocol: bad outcome");
  res.outcome = static_cast<RunOutcome>(outcome);
  res.message = r.str();
  res.log = r.str();
  res.compile_ms = r.pod<double>();
  res.check_ms = r.pod<double>();
  res.benchmark_ms = r.pod<double>();
  for (std::size_t n = r.count(); n > 0; --n) res.runtimes_ms.push_back(r.pod<double>());
  for (std::size_t n = r.count(); n > 0; --n) res.outputs.push_back(r.bytes());
  for (std::size_t n = r.count(); n > 0; --n) {
    Observation o;
    o.name = r.str();
    o.value = r.pod<double>();
    o.unit = r.str();
    res.observations.push_back(std::move(o));
  }
  r.end();
  return res;
}

void encode(const DeviceInfo& info, std::string& out) {
  Writer w(out);
  w.str(info.name);
  w.str(info.platform);
  w.pod(info.max_threads);
  w.pod(info.max_local_memory);
  w.pod<std::uint64_t>(info.device_count);
  w.pod<std::uint64_t>(info.properties.size());
  for (const auto& [k, v] : info.properties) {
    w.str(k);
    w.str(v);
  }
}

DeviceInfo decode_device_info(std::string_view in) {
  Reader r(in);
  DeviceInfo info;
  info.name = r.str();
  info.platform = r.str();
  info.max_threads = r.pod<std::uint64_t>();
  info.max_local_memory = r.pod<std::uint64_t>();
  info.device_count = static_cast<std::size_t>(r.pod<std::uint64_t>());
  for (std::size_t n = r.count(); n > 0; --n) {
    std::string k = r.str();
    info.properties.emplace_back(std::move(k), r.str());
  }
  r.end();
  return info;
}

}  // namespace ktune::live::detail
