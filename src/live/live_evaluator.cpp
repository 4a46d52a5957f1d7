#include "ktune/live/live_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernel_run.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/interruption.hpp"
#include "live/temporary_directory.hpp"
#include "compile_pool.hpp"
#include "cpu_affinity.hpp"
#include "worker_process.hpp"

namespace ktune::live {
namespace {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// UTC as Kernel Tuner writes it: "2023-06-26 13:07:07.553168+00:00".
std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}+00:00", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
}

// The next request of a configuration whose kernel the worker has compiled (and checked): it only times it.
void time_only(detail::RunRequest& request) {
  request.compile = false;
  request.check_run = false;
  request.read_back.clear();
  request.defines.clear();
  request.code.clear();
  request.prebuilt.clear();
}

std::string config_text(const Problem& problem, std::span<const Value> config) {
  std::string text;
  for (std::size_t p = 0; p < config.size(); ++p)
    text += fmt::format("{}{}={}", p ? ", " : "", problem.parameters[p].name, config[p].repr());
  return text;
}

const KernelSpecification& validated(const KernelSpecification& spec, const Problem& problem) {
  spec.validate(problem);
  return spec;
}

// Kernel Tuner's benchmark loop as the caller's observers see it. What an observer throws is kept (the first
// message): the configuration then fails with it, and the launches go on undisturbed. An observer that throws
// Interrupted (the caller's code was interrupted) is not called again; the evaluation is abandoned once the launch
// has returned (interrupted()), never from inside the worker's round trip.
class ObserverCalls final : public detail::LaunchEvents {
 public:
  explicit ObserverCalls(const std::vector<std::shared_ptr<LaunchObserver>>& observers) : observers_(observers) {}
  void ready() override {
    finish_launch();
    each([](LaunchObserver& o) { o.before_start(); });
  }
  void started() override {
    each([](LaunchObserver& o) { o.after_start(); });
    in_flight_ = true;
  }
  void during() override {
    if (in_flight_) each([](LaunchObserver& o) { o.during(); });
  }
  void finished() override { finish_launch(); }
  template <class F>
  void each(F&& call) {
    for (const auto& o : observers_) {
      if (interrupted_) return;
      try {
        call(*o);
      } catch (const Interrupted&) {
        interrupted_ = true;
      } catch (const std::exception& e) {
        if (error_.empty()) error_ = e.what();
      }
    }
  }
  const std::string& error() const { return error_; }
  void throw_if_interrupted() const {
    if (interrupted_) throw Interrupted();
  }

 private:
  void finish_launch() {
    if (!in_flight_) return;
    in_flight_ = false;
    each([](LaunchObserver& o) { o.after_finish(); });
  }
  const std::vector<std::shared_ptr<LaunchObserver>>& observers_;
  bool in_flight_ = false;
  bool interrupted_ = false;
  std::string error_;
};

// The measurements every evaluation has besides the metrics and accuracy measures (usable as objectives).
constexpr const char* kTimeMeasurements[] = {"time", "compile_time", "verification_time", "benchmark_time"};

}  // namespace

DeviceInfo probe_device(const KernelSpecification& spec, bool isolate,
                        const std::function<std::unique_ptr<Backend>()>& backend_factory) {
  const auto make_backend_here = [&] {
    auto backend = backend_factory ? backend_factory() : make_backend(spec.backend, spec.backend_options);
    if (!backend) throw std::runtime_error("the backend factory returned no backend");
    return backend;
  };
  if (!isolate) return make_backend_here()->device_info();
  const auto make_runner = [&] {
    return std::make_unique<detail::KernelRunner>(make_backend_here(), KernelSource{}, std::span<const KernelArgument>{});
  };
  const detail::WorkerProcess worker(make_runner, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                                      std::chrono::duration<double>(std::max(spec.timeout_s, 30.0))));
  return worker.device_info();
}

struct LiveEvaluator::Pipeline {
  std::unique_ptr<detail::CompilePool> pool;
  std::deque<std::size_t> upcoming;  // announced by prepare(), not yet given to the pool
  std::unordered_map<std::size_t, detail::RunRequest> requests;  // the compile parts of those given to it
};

LiveEvaluator::LiveEvaluator(const Problem& problem, const SearchSpace& space, KernelSpecification spec,
                             LiveEvaluatorOptions options)
    : problem_(problem),
      space_(space),
      spec_(std::move(spec)),
      objectives_(std::move(options.objectives)),
      isolate_(options.isolate),
      factory_(std::move(options.backend_factory)),
      planner_(validated(spec_, problem_), problem_) {
  if (objectives_.empty()) objectives_ = {Objective{"time", false}};
  remove_orphaned_temporary_directories();  // left by runs that were killed (kill -9)

  // Every objective must be something an evaluation measures.
  std::set<std::string, std::less<>> known(std::begin(kTimeMeasurements), std::end(kTimeMeasurements));
  for (const auto& m : spec_.metrics) known.insert(m.name);
  for (const auto& a : spec_.accuracy) known.insert(a.name);
  // Observers are probed here, then made again where the kernel runs (the worker after its fork).
  observer_options_ = options.observer_options;
  observer_options_.device = spec_.backend_options.device;
  on_worker_output_ = std::move(options.on_worker_output);
  for (const auto& name : options.observers) {
    if (std::find(observers_.begin(), observers_.end(), name) != observers_.end()) continue;
    std::string why_not;
    if (auto observer = make_observer(name, observer_options_, why_not)) {
      observers_.push_back(name);
      for (auto& measured : observer->measurement_names()) known.insert(std::move(measured));
    } else {
      observer_notes_.push_back(name + ": " + why_not);
    }
  }
  // Observers measure over one fixed series of launches: with them, the fixed number of runs.
  if (spec_.repetition.adaptive && (!observers_.empty() || !spec_.launch_observers.empty())) {
    spec_.repetition.adaptive = false;
    repetition_note_ = fmt::format("adaptive repetition is off with observers: {} runs each", spec_.repetition.runs);
  }
  // Early rejection compares times: only when the time is what is minimised.
  reject_on_time_ = time_is_the_objective(objectives_);
  // What the caller's observers report is known only once they report.
  for (const auto& o : objectives_)
    if (!known.count(o.name) && spec_.launch_observers.empty())
      throw std::invalid_argument(fmt::format("objective '{}' is not measured; measured: {}{}", o.name,
                                              fmt::join(known, ", "),
                                              observer_notes_.empty()
                                                  ? std::string()
                                                  : fmt::format(" (not observing: {})", fmt::join(observer_notes_, "; "))));

  if (!factory_) {
    factory_ = [name = spec_.backend, backend_options = spec_.backend_options] {
      return make_backend(name, backend_options);
    };
  }
  arguments_ = make_arguments(spec_, problem_);
  source_ = load_source(spec_, arguments_);

  // Verification: what to read back after the check run, and what to compare it with.
  const auto& v = spec_.verification;
  auto argument_index = [&](const std::string& name, const char* what) -> std::uint32_t {
    for (std::size_t i = 0; i < arguments_.size(); ++i)
      if (arguments_[i].name == name) {
        if (!arguments_[i].is_output())
          throw std::invalid_argument(fmt::format("{} '{}' is not an output argument", what, name));
        return static_cast<std::uint32_t>(i);
      }
    throw std::invalid_argument(fmt::format("{} '{}' is not an argument of the kernel", what, name));
  };
  switch (v.kind) {
    case Verification::Kind::none:
      break;
    case Verification::Kind::callback:
      if (!v.callback) throw std::invalid_argument("verification by callback without a callback");
      for (std::size_t i = 0; i < arguments_.size(); ++i)
        if (!arguments_[i].scalar && !arguments_[i].local_memory) read_back_.push_back(static_cast<std::uint32_t>(i));
      expected_.resize(read_back_.size());
      break;
    case Verification::Kind::configuration:
      for (std::size_t i = 0; i < arguments_.size(); ++i)
        if (arguments_[i].is_output()) read_back_.push_back(static_cast<std::uint32_t>(i));
      expected_.resize(read_back_.size());  // filled by the reference run below
      break;
    case Verification::Kind::files:
      for (const auto& [name, path] : v.files) {
        const std::uint32_t i = argument_index(name, "reference file for");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw io::InputError(path, "", fmt::format("cannot read the reference output of '{}'", name));
        std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        KernelArgument expected = arguments_[i];
        if (data.size() != expected.bytes.size())
          throw io::InputError(path, "", fmt::format("the reference output of '{}' has {} bytes, the argument {}", name,
                                                     data.size(), expected.bytes.size()));
        std::transform(data.begin(), data.end(), expected.bytes.begin(), [](char c) { return static_cast<std::byte>(c); });
        read_back_.push_back(i);
        expected_.push_back(std::move(expected));
      }
      break;
  }
  tolerance_check_.assign(read_back_.size(), true);
  for (const auto& a : spec_.accuracy) {
    if (canonical_accuracy_metric(a.metric).empty())
      throw std::invalid_argument(fmt::format("accuracy measure '{}': unknown metric '{}' (known: {})", a.name, a.metric,
                                              fmt::join(accuracy_metric_names(), ", ")));
    const std::uint32_t i = argument_index(a.argument, "accuracy measure of");
    const auto at = std::find(read_back_.begin(), read_back_.end(), i);
    if (at == read_back_.end() || v.kind == Verification::Kind::callback)
      throw std::invalid_argument(fmt::format("accuracy measure '{}' needs a reference output of '{}' (a reference "
                                              "configuration or a reference file)", a.name, a.argument));
    const auto position = static_cast<std::size_t>(at - read_back_.begin());
    accuracy_position_.push_back(position);
    tolerance_check_[position] = false;
  }
  verify_ = v.kind != Verification::Kind::none;

  // Compile workers: on a CPU device the measuring worker keeps the first cores and the compile workers get the last
  // ones, so that compiling never shares a core with a measurement.
  std::vector<int> compile_cpus;
  if (options.compile_workers > 0 && isolate_) {
    const std::vector<int> cpus = detail::allowed_cpus();
    const bool cpu_device = spec_.backend == "cpp";
    if (cpu_device && cpus.size() > 1) {
      const std::size_t k = std::min(options.compile_workers, cpus.size() - 1);
      measuring_cpus_.assign(cpus.begin(), cpus.end() - static_cast<std::ptrdiff_t>(k));
      compile_cpus.assign(cpus.end() - static_cast<std::ptrdiff_t>(k), cpus.end());
    }
  }
  start_backend(setup_deadline());
  if (options.compile_workers > 0 && isolate_) {
    auto pool = std::make_unique<detail::CompilePool>(options.compile_workers, factory_, source_, compile_cpus,
                                                      std::max(spec_.timeout_s, 30.0));
    if (pool->workers() > 0 && !pool->broken()) {
      pipeline_ = std::make_unique<Pipeline>();
      pipeline_->pool = std::move(pool);
    } else {
      measuring_cpus_.clear();  // nothing compiles beside the measurements: the worker may use every core again
      start_backend(setup_deadline());
    }
  }
  for (const auto& o : spec_.launch_observers) o->register_device(device_info_);
  if (v.kind == Verification::Kind::configuration) run_reference_configuration();
}

LiveEvaluator::~LiveEvaluator() = default;

std::size_t LiveEvaluator::compile_workers() const { return pipeline_ ? pipeline_->pool->workers() : 0; }

void LiveEvaluator::prepare(std::span<const std::size_t> upcoming) {
  if (!pipeline_) return;
  pipeline_->pool->clear_queue();
  for (auto it = pipeline_->requests.begin(); it != pipeline_->requests.end();)
    it = pipeline_->pool->has(it->first) ? std::next(it) : pipeline_->requests.erase(it);
  pipeline_->upcoming.assign(upcoming.begin(), upcoming.end());
  top_up_compiles();
}

// Gives the pool the next announced configurations, as many as it keeps ahead. Their compile requests are made here
// (the caller's code generated once, in this process); one that cannot be planned is left to evaluate() to report.
void LiveEvaluator::top_up_compiles() {
  auto& p = *pipeline_;
  p.pool->pump();
  while (!p.upcoming.empty()) {
    const std::size_t index = p.upcoming.front();
    if (p.pool->has(index) || records_.count(index)) {
      p.upcoming.pop_front();
      continue;
    }
    const std::vector<Value> config = space_.values_at(index);
    detail::RunRequest request;
    try {
      LaunchPlan plan = planner_.plan(config);
      const auto& block = plan.geometry.block;
      if (device_info_.max_threads != 0 && block[0] * block[1] * block[2] > device_info_.max_threads) {
        p.upcoming.pop_front();
        continue;
      }
      request.code = apply_caller_code(spec_, config, plan);
      request.kernel_name = plan.kernel_name;
      request.defines = std::move(plan.defines);
      request.geometry = plan.geometry;
    } catch (const Interrupted&) {
      return;  // the caller's code was interrupted: the run stops, nothing more is compiled ahead
    } catch (const std::exception&) {
      p.upcoming.pop_front();
      continue;
    }
    if (!p.pool->submit(index, request)) break;  // enough ahead
    p.requests[index] = std::move(request);
    p.upcoming.pop_front();
  }
}

// The first set-up and every restart get the same time: a configuration's timeout, at least 30 s.
LiveEvaluator::Clock::time_point LiveEvaluator::setup_deadline() const {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(spec_.timeout_s, 30.0)));
}

void LiveEvaluator::start_backend(Clock::time_point deadline) {
  // In the worker this runs after the fork: the backend and its device state exist only there.
  auto make_runner = [&] {
    detail::pin_to_cpus(measuring_cpus_);  // only ever in the worker: measuring_cpus_ is set for isolated runs only
    auto backend = factory_();
    if (!backend) throw std::runtime_error("the backend factory returned no backend");
    backend->set_arguments(arguments_);
    std::vector<std::unique_ptr<Observer>> observers;
    for (const auto& name : observers_) {
      std::string why_not;
      auto observer = make_observer(name, observer_options_, why_not);
      if (!observer) throw std::runtime_error(fmt::format("observer {}: {}", name, why_not));
      observers.push_back(std::move(observer));
    }
    return std::make_unique<detail::KernelRunner>(std::move(backend), source_, arguments_, std::move(observers));
  };
  if (isolate_) {
    worker_.reset();
    worker_ = std::make_unique<detail::WorkerProcess>(make_runner, deadline);
    device_info_ = worker_->device_info();
    ++workers_started_;
  } else {
    in_process_ = make_runner();
    device_info_ = in_process_->backend().device_info();
  }
}

void LiveEvaluator::show_worker_output(const std::vector<Value>& config, const std::string& output) const {
  std::string configuration;
  for (std::size_t p = 0; p < config.size(); ++p)
    configuration += fmt::format("{}{}={}", p ? ", " : "", problem_.parameters[p].name, config[p].repr());
  if (on_worker_output_) {
    on_worker_output_(configuration, output);
    return;
  }
  std::string text;
  std::size_t begin = 0;
  while (begin < output.size()) {
    std::size_t end = output.find('\n', begin);
    if (end == std::string::npos) end = output.size();
    text += fmt::format("[{}] {}\n", configuration, std::string_view(output).substr(begin, end - begin));
    begin = end + 1;
  }
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

detail::WorkerReply LiveEvaluator::run(const detail::RunRequest& request, Clock::time_point deadline,
                                       detail::LaunchEvents* events) {
  if (isolate_) {
    detail::WorkerReply reply = worker_->run(request, deadline, events);
    // Abandoned: the next evaluation (of a resumed run) starts a fresh worker.
    if (reply.kind == detail::WorkerReply::Kind::interrupted) throw Interrupted();
    return reply;
  }
  // In process: no deadline can be enforced (the kernel runs on this thread), and the caller's observers are told
  // before and after each launch, never during it.
  detail::WorkerReply reply;
  if (events && request.observe_launches) {
    in_process_->set_launch_hook([events](detail::LaunchEvent event) {
      if (event == detail::LaunchEvent::ready) events->ready();
      else events->started();
    });
  }
  reply.result = in_process_->run(request);
  if (events && request.observe_launches) {
    events->finished();
    in_process_->set_launch_hook({});
  }
  return reply;
}

void LiveEvaluator::run_reference_configuration() {
  const auto& wanted = spec_.verification.configuration;
  std::vector<Value> config;
  for (const auto& p : problem_.parameters) {
    const auto it = wanted.find(p.name);
    if (it == wanted.end())
      throw std::invalid_argument(fmt::format("the reference configuration has no value for parameter '{}'", p.name));
    config.push_back(it->second);
  }
  for (const auto& [name, value] : wanted)
    if (!problem_.parameter_index(name))
      throw std::invalid_argument(fmt::format("the reference configuration names '{}', which is not a parameter", name));

  const std::string which = config_text(problem_, config);
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("the reference configuration ({}) failed: {}", which, why));
  };
  LaunchPlan plan;
  try {
    plan = planner_.plan(config);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  detail::RunRequest request;
  try {
    request.code = apply_caller_code(spec_, config, plan);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    fail(fmt::format("generating the kernel's code failed: {}", e.what()));
  }
  request.kernel_name = plan.kernel_name;
  request.defines = plan.defines;
  request.geometry = plan.geometry;
  request.check_run = true;
  request.read_back = read_back_;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec_.timeout_s));
  detail::WorkerReply reply = run(request, deadline);
  if (reply.kind == detail::WorkerReply::Kind::timeout) {
    start_backend(setup_deadline());
    fail(fmt::format("timeout after {:g} s", spec_.timeout_s));
  }
  if (reply.kind == detail::WorkerReply::Kind::died) {
    start_backend(setup_deadline());
    fail(reply.message);
  }
  const auto& r = reply.result;
  if (r.outcome == detail::RunOutcome::compile_error) fail(r.message + (r.log.empty() ? "" : "\n" + r.log));
  if (r.outcome != detail::RunOutcome::ok) fail(r.message);
  for (std::size_t j = 0; j < read_back_.size(); ++j) {
    KernelArgument expected = arguments_[read_back_[j]];
    expected.bytes = r.outputs.at(j);
    expected_[j] = std::move(expected);
  }
}

std::string LiveEvaluator::check_outputs(const std::vector<std::vector<std::byte>>& outputs,
                                         std::map<std::string, double, std::less<>>& measurements) const {
  if (outputs.size() != read_back_.size()) return "the backend returned the wrong number of outputs";
  for (std::size_t k = 0; k < spec_.accuracy.size(); ++k) {
    const auto& a = spec_.accuracy[k];
    const std::size_t j = accuracy_position_[k];
    measurements[a.name] = accuracy_error(a.metric, *expected_[j], arguments_[read_back_[j]].type, outputs[j]);
  }
  if (spec_.verification.kind == Verification::Kind::callback) {
    std::vector<KernelArgument> after = arguments_;
    for (std::size_t j = 0; j < read_back_.size(); ++j) after[read_back_[j]].bytes = outputs[j];
    return spec_.verification.callback(after);
  }
  for (std::size_t j = 0; j < read_back_.size(); ++j) {
    if (!expected_[j] || !tolerance_check_[j]) continue;
    const std::uint32_t i = read_back_[j];
    const auto& s = spec_.arguments[i];
    std::string message = compare_output(*expected_[j], outputs[j], s.atol.value_or(spec_.verification.atol),
                                         s.rtol.value_or(spec_.verification.rtol));
    if (!message.empty()) return message;
  }
  return "";
}

EvaluationRecord LiveEvaluator::evaluate_config(const std::vector<Value>& config, const detail::RunRequest* prepared,
                                               const detail::Prebuilt* prebuilt) {
  const auto start = Clock::now();
  EvaluationRecord rec;
  rec.config = config;
  rec.timestamp = utc_timestamp();
  values_.assign(objectives_.size(), std::nan(""));
  double backend_ms = 0;  // time accounted to compile/verification/benchmark; the rest is framework
  const auto finish = [&](Status status, std::string message) {
    rec.status = status;
    rec.message = std::move(message);
    if (status != Status::ok) values_.assign(objectives_.size(), std::nan(""));
    rec.framework_ms = std::max(0.0, ms_between(start, Clock::now()) - backend_ms);
    return rec;
  };

  LaunchPlan plan;
  try {
    plan = planner_.plan(config);
  } catch (const std::invalid_argument& e) {
    return finish(Status::invalid, e.what());
  }
  const auto& block = plan.geometry.block;
  const std::uint64_t threads = block[0] * block[1] * block[2];
  if (device_info_.max_threads != 0 && threads > device_info_.max_threads)
    return finish(Status::invalid, fmt::format("a block of {} threads exceeds the device's maximum of {}", threads,
                                               device_info_.max_threads));

  // The caller's code for this configuration (generated source, defines): its failure costs the configuration.
  std::string generated_code;
  if (prepared) {  // made once by prepare(): the caller's code is not run twice
    generated_code = prepared->code;
    plan.kernel_name = prepared->kernel_name;
    plan.defines = prepared->defines;
    plan.geometry = prepared->geometry;
  } else {
    try {
      generated_code = apply_caller_code(spec_, config, plan);
    } catch (const Interrupted&) {
      throw;  // the caller's code was interrupted: no result for this configuration
    } catch (const std::exception& e) {
      return finish(Status::compile_failed, fmt::format("generating the kernel's code failed: {}", e.what()));
    }
  }
  if (prebuilt) {  // a compile worker's build: its time is this configuration's compile time
    rec.compile_ms += prebuilt->compile_ms;
    backend_ms += prebuilt->compile_ms;
    if (!prebuilt->ok)
      return finish(Status::compile_failed,
                    prebuilt->log.empty() ? prebuilt->message : prebuilt->message + "\n" + prebuilt->log);
  }

  if (isolate_ && (!worker_ || !worker_->alive())) {
    // A fresh worker after a crash or timeout. Setting the backend up again can fail or take too long (a saturated
    // machine, a device that went away): that costs this configuration, and the next one tries again; only
    // kWorkerRestarts failures in a row end the run.
    try {
      start_backend(setup_deadline());
      failed_restarts_ = 0;
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      if (++failed_restarts_ >= kWorkerRestarts)
        throw std::runtime_error(
            fmt::format("the worker process could not be started again ({} tries in a row): {}", failed_restarts_,
                        e.what()));
      return finish(Status::runtime_failed, fmt::format("the worker process could not be started again: {}", e.what()));
    }
  }
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec_.timeout_s));

  // One round trip: the kernel's steps happen in the worker; what it reports is the backend's time, the rest of the
  // round trip (messages, copies) is ours. A lost worker reports nothing: its whole round trip counts as running.
  std::vector<Observation> observed;
  ObserverCalls observer_calls(spec_.launch_observers);
  const auto send = [&](const detail::RunRequest& request) -> std::optional<std::pair<Status, std::string>> {
    detail::WorkerReply reply = run(request, deadline, &observer_calls);
    observer_calls.throw_if_interrupted();
    if (!reply.output.empty()) show_worker_output(config, reply.output);
    if (reply.kind != detail::WorkerReply::Kind::result) {
      // A lost worker's request: each step's time (the worker published them) goes to that step's field; the
      // rest of the round trip (restoring inputs, messages) is framework time.
      const auto& spent = reply.spent_ms;
      using detail::Phase;
      rec.compile_ms += spent[static_cast<int>(Phase::compiling)];
      rec.verification_ms += spent[static_cast<int>(Phase::verifying)];
      rec.benchmark_ms += spent[static_cast<int>(Phase::benchmarking)];
      backend_ms += spent[static_cast<int>(Phase::compiling)] + spent[static_cast<int>(Phase::verifying)] +
                    spent[static_cast<int>(Phase::benchmarking)];
      if (reply.kind == detail::WorkerReply::Kind::timeout)
        return std::pair{Status::timeout, fmt::format("timeout after {:g} s", spec_.timeout_s)};
      return std::pair{Status::runtime_failed, reply.message};
    }
    detail::RunResult& r = reply.result;
    rec.compile_ms += r.compile_ms;
    rec.verification_ms += r.check_ms;
    rec.benchmark_ms += r.benchmark_ms;
    backend_ms += r.compile_ms + r.check_ms + r.benchmark_ms;
    rec.runtimes_ms.insert(rec.runtimes_ms.end(), r.runtimes_ms.begin(), r.runtimes_ms.end());
    observed.insert(observed.end(), r.observations.begin(), r.observations.end());
    switch (r.outcome) {
      case detail::RunOutcome::ok:
        break;
      case detail::RunOutcome::compile_error:
        return std::pair{Status::compile_failed, r.log.empty() ? r.message : r.message + "\n" + r.log};
      case detail::RunOutcome::launch_error:
      case detail::RunOutcome::error:
        return std::pair{Status::runtime_failed, r.message};
      case detail::RunOutcome::input_modified:  // its outputs cannot be trusted: a wrong result
        return std::pair{Status::verification_failed, r.message};
    }
    if (request.check_run) {
      const auto compare_start = Clock::now();
      std::string wrong = check_outputs(r.outputs, measurements_);
      const double compare_ms = ms_between(compare_start, Clock::now());
      rec.verification_ms += compare_ms;
      backend_ms += compare_ms;
      if (!wrong.empty()) return std::pair{Status::verification_failed, std::move(wrong)};
    }
    return std::nullopt;
  };

  measurements_.clear();
  detail::RunRequest request;
  request.code = std::move(generated_code);
  request.kernel_name = plan.kernel_name;
  request.defines = std::move(plan.defines);
  request.geometry = plan.geometry;
  if (prebuilt) request.prebuilt = prebuilt->artifact;
  if (verify_) {
    // Verify first: a wrong configuration is not benchmarked.
    request.check_run = true;
    request.read_back = read_back_;
    if (auto failed = send(request)) return finish(failed->first, std::move(failed->second));
    time_only(request);
  }
  const RepetitionPolicy& repetition = spec_.repetition;
  request.warmup = spec_.warmup;
  request.iterations = static_cast<std::uint32_t>(repetition.adaptive ? repetition.min_runs : repetition.runs);
  request.observe_launches = !spec_.launch_observers.empty();
  if (request.observe_launches) observer_calls.each([&](LaunchObserver& o) { o.register_configuration(config); });
  observer_calls.throw_if_interrupted();
  if (auto failed = send(request)) return finish(failed->first, std::move(failed->second));
  RunSummary summary = summarize_runs(rec.runtimes_ms, spec_.statistic, repetition.adaptive);
  RepetitionDecision decision = RepetitionDecision::capped;
  if (repetition.adaptive) {
    // More runs of the compiled kernel, a few at a time, until the runs so far decide (ktune/repetition.hpp).
    time_only(request);
    request.warmup = false;
    const RunSummary* best = reject_on_time_ && best_time_ ? &*best_time_ : nullptr;
    while ((decision = decide(repetition, summary, best, typical_spread_.value())) == RepetitionDecision::more) {
      request.iterations = static_cast<std::uint32_t>(next_runs(repetition, summary.runs));
      if (auto failed = send(request)) return finish(failed->first, std::move(failed->second));
      summary = summarize_runs(rec.runtimes_ms, spec_.statistic, true);
    }
  }
  observer_calls.each([&](LaunchObserver& o) {
    for (auto& observation : o.results()) observed.push_back(std::move(observation));
  });
  observer_calls.throw_if_interrupted();
  if (!observer_calls.error().empty())
    return finish(Status::runtime_failed, fmt::format("an observer failed: {}", observer_calls.error()));

  auto& m = measurements_;
  m["time"] = summary.value;
  m["compile_time"] = rec.compile_ms;
  m["verification_time"] = rec.verification_ms;
  m["benchmark_time"] = rec.benchmark_ms;
  rec.measurements.push_back({"time", Value(m["time"]), "ms"});
  // How well the time is known: the runs, the 95% interval, the relative spread; with adaptive repetition also the
  // outliers left out and whether it stopped early as clearly slower than the best (docs/live-tuning.md).
  rec.measurements.push_back({"time_runs", Value(static_cast<std::int64_t>(summary.runs)), ""});
  rec.measurements.push_back({"time_ci_low", Value(summary.low), "ms"});
  rec.measurements.push_back({"time_ci_high", Value(summary.high), "ms"});
  rec.measurements.push_back({"time_spread", Value(summary.spread), ""});
  if (repetition.adaptive) {
    rec.measurements.push_back({"time_outliers", Value(static_cast<std::int64_t>(summary.outliers)), ""});
    rec.measurements.push_back(
        {"time_rejected", Value(static_cast<std::int64_t>(decision == RepetitionDecision::rejected)), ""});
  }
  for (const auto& a : spec_.accuracy) rec.measurements.push_back({a.name, Value(m[a.name]), ""});
  for (auto& o : observed) {  // before the metrics, which may use them (e.g. GFLOP/J)
    m[o.name] = o.value;
    rec.measurements.push_back({o.name, Value(o.value), o.unit});
  }
  for (const auto& metric : spec_.metrics) {
    double value = std::nan("");
    try {
      value = evaluate_metric(metric, problem_, config, m);
    } catch (const std::invalid_argument&) {
      // Not computable for this configuration (e.g. a division by a zero parameter): NaN, and if it is an
      // objective, the configuration cannot be ranked (below).
    }
    m[metric.name] = value;
    rec.measurements.push_back({metric.name, Value(value), metric.unit});
  }
  for (std::size_t j = 0; j < objectives_.size(); ++j) {
    const double value = m[objectives_[j].name];
    if (!std::isfinite(value))
      return finish(Status::runtime_failed, fmt::format("objective '{}' is not a finite number ({})", objectives_[j].name, value));
    values_[j] = value;
  }
  if (!best_time_ || summary.value < best_time_->value) best_time_ = summary;
  typical_spread_.add(summary);
  return finish(Status::ok, "");
}

EvaluationOutcome LiveEvaluator::evaluate(std::size_t index) {
  std::optional<detail::Prebuilt> prebuilt;
  const detail::RunRequest* prepared = nullptr;
  if (pipeline_) {
    auto& p = *pipeline_;
    if (const auto it = std::find(p.upcoming.begin(), p.upcoming.end(), index); it != p.upcoming.end())
      p.upcoming.erase(it);
    top_up_compiles();  // the workers compile the next ones while this one waits and is measured
    if (p.pool->has(index)) prebuilt = p.pool->take(index);
    if (const auto it = p.requests.find(index); it != p.requests.end()) prepared = &it->second;
    if (prebuilt && prebuilt->ok) ++prebuilt_count_;
  }
  EvaluationRecord rec = evaluate_config(space_.values_at(index), prepared, prebuilt ? &*prebuilt : nullptr);
  if (pipeline_) {
    pipeline_->pool->release(index);
    pipeline_->requests.erase(index);
    top_up_compiles();
  }
  const double charged = rec.charged_ms();
  const Status status = rec.status;
  records_[index] = std::move(rec);
  return {status, values_, charged};
}

std::vector<double> LiveEvaluator::time_again(std::size_t index, int runs, std::string* why) {
  // The spec, verification and best-so-far are this evaluator's state: changed for this one measurement only.
  struct Restore {
    LiveEvaluator& e;
    RepetitionPolicy repetition;
    bool verify;
    std::optional<RunSummary> best;
    TypicalSpread typical;
    std::vector<double> values;
    std::map<std::string, double, std::less<>> measurements;
    ~Restore() {
      e.spec_.repetition = repetition;
      e.verify_ = verify;
      e.best_time_ = best;
      e.typical_spread_ = typical;
      e.values_ = std::move(values);
      e.measurements_ = std::move(measurements);
    }
  } restore{*this, spec_.repetition, verify_, best_time_, typical_spread_, values_, measurements_};
  spec_.repetition = RepetitionPolicy{.adaptive = false, .runs = runs};
  verify_ = false;
  EvaluationRecord rec = evaluate_config(space_.values_at(index));
  if (rec.status != Status::ok) {
    if (why) *why = fmt::format("{}: {}", to_string(rec.status), rec.message);
    return {};
  }
  return std::move(rec.runtimes_ms);
}

EvaluationRecord LiveEvaluator::record(std::size_t index) const {
  const auto it = records_.find(index);
  if (it == records_.end()) throw std::logic_error(fmt::format("configuration {} has not been evaluated", index));
  return it->second;
}

}  // namespace ktune::live
