// ktune._ktune: the native half of the Python module. It only translates: Python arguments into the library's job
// requests, and the jobs' records into the result dicts Kernel Tuner returns. The Kernel Tuner-shaped API itself
// (tune_kernel, tune_cache, ...) is Python, in python/ktune/.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <set>
#include <memory>
#include <stdexcept>
#include <optional>
#include <utility>
#include <span>
#include <string>
#include <vector>

#include "ktune/evaluation_record.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/kernel_tuner_results_file.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/jobs/report_job.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/live/element_type.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/live/launch_observer.hpp"
#include "ktune/live/observer.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/live/run_kernel.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/status.hpp"
#include "ktune/strategy_toolkit.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/trace.hpp"
#include "ktune/version.hpp"

namespace py = pybind11;

namespace {

using namespace ktune;

py::object to_python(const Value& v) {
  switch (v.type()) {
    case ValueType::None: return py::none();
    case ValueType::Bool: return py::bool_(v.as_bool());
    case ValueType::Int: return py::int_(v.as_int());
    case ValueType::Float: return py::float_(v.as_float());
    case ValueType::String: return py::str(v.as_string());
    case ValueType::List: {
      py::list out;
      for (const Value& item : v.as_list()) out.append(to_python(item));
      return out;
    }
  }
  return py::none();
}

// A Python value (bool, int, float, str, a numpy scalar, a list of them) as a Value.
Value from_python(const py::handle& o) {
  if (o.is_none()) return Value();
  if (py::isinstance<py::bool_>(o)) return Value(o.cast<bool>());
  if (py::isinstance<py::int_>(o)) return Value(o.cast<std::int64_t>());
  if (py::isinstance<py::float_>(o)) return Value(o.cast<double>());
  if (py::isinstance<py::str>(o)) return Value(o.cast<std::string>());
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    Value::List items;
    for (const py::handle item : o) items.push_back(from_python(item));
    return Value(std::move(items));
  }
  if (py::hasattr(o, "item")) return from_python(o.attr("item")());  // numpy scalars
  throw py::type_error("a value of type " + std::string(py::str(py::type::of(o).attr("__name__"))) +
                       " is not a number, bool, string or list");
}

// Kernel Tuner's tune_params as the Python layer passes them, [(name, [values])], as the problem's parameters.
std::vector<Parameter> parameters_from_python(const py::list& tune_params) {
  std::vector<Parameter> parameters;
  for (const py::handle item : tune_params) {
    const auto pair = item.cast<py::tuple>();
    Parameter& parameter = parameters.emplace_back();
    parameter.name = pair[0].cast<std::string>();
    for (const py::handle v : pair[1]) parameter.values.push_back(from_python(v));
  }
  return parameters;
}

// A Python object kept by C++ code that runs without the GIL (inside a job): its last reference is dropped with the
// GIL held, wherever that happens.
std::shared_ptr<py::object> keep_alive(py::object o) {
  return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

// A configuration as the dict of parameter values Kernel Tuner's callables take.
py::dict params_dict(const std::vector<std::string>& names, std::span<const Value> values) {
  py::dict params;
  for (std::size_t p = 0; p < values.size() && p < names.size(); ++p) params[py::str(names[p])] = to_python(values[p]);
  return params;
}

std::vector<std::string> parameter_names(const Problem& problem) {
  std::vector<std::string> names;
  for (const auto& p : problem.parameters) names.push_back(p.name);
  return names;
}

// What Python code called back by a job raised that must end the job and reach the caller as itself: a
// KeyboardInterrupt or SystemExit out of any callback (a Ctrl-C that lands while Python code runs is raised there),
// and whatever the verify function raises. The first one is kept and a stop is requested: the job ends as after a
// Ctrl-C (the configuration in flight gets no result, what was measured is recorded and written), then run_job
// raises the kept exception. Also collects what callable metrics raised (their value is NaN), for one warning each.
// Every member is called with the GIL held.
class PythonErrors {
 public:
  // A KeyboardInterrupt, SystemExit or GeneratorExit: a BaseException that is not an Exception.
  static bool ends_the_run(const py::error_already_set& e) { return !e.matches(PyExc_Exception); }

  // Keeps `e` (unless one is kept already) and asks the job to stop.
  void keep(const py::error_already_set& e) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_.emplace(e);
    }
    request_stop(SIGINT);
  }
  // Keeps `e` and abandons the evaluation in flight (the library records nothing for it).
  [[noreturn]] void stop_with(const py::error_already_set& e) {
    keep(e);
    throw Interrupted();
  }
  // Raises the kept exception, if any, as itself (the stop it requested is withdrawn).
  void raise_kept() {
    std::optional<py::error_already_set> e;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      e.swap(error_);
    }
    if (!e) return;
    clear_stop_request();
    throw py::error_already_set(std::move(*e));
  }

  void metric_failed(const std::string& metric, const std::string& configuration, const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& [count, first] = metric_failures_[metric];
    if (count++ == 0) first = configuration + ": " + error;
  }
  // One warning per callable metric that raised.
  std::vector<std::string> metric_warnings() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [metric, failures] : metric_failures_)
      out.push_back("metric '" + metric + "' raised for " + std::to_string(failures.first) + " configuration" +
                    (failures.first == 1 ? "" : "s") + ", whose value of it is nan (first: " + failures.second + ")");
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::optional<py::error_already_set> error_;
  std::map<std::string, std::pair<std::size_t, std::string>> metric_failures_;
};

// Calls a kept Python callable from a job (no GIL held): a KeyboardInterrupt or SystemExit ends the run (above);
// another exception becomes std::runtime_error with its message, formatted while the GIL is held.
template <class... Args>
py::object call_python(const std::shared_ptr<py::object>& f, PythonErrors& errors, const char* what,
                       Args&&... args) {
  try {
    return (*f)(std::forward<Args>(args)...);
  } catch (py::error_already_set& e) {
    if (PythonErrors::ends_the_run(e)) errors.stop_with(e);
    throw std::runtime_error(std::string(what) + " raised " + e.what());
  }
}

// A BenchmarkObserver of the Python layer (ktune.observers' adapter around the user's observer): Kernel Tuner's
// hooks called with the GIL at each timed launch; get_results gives the numeric measurements.
class PythonObserver final : public live::LaunchObserver {
 public:
  PythonObserver(std::shared_ptr<py::object> observer, std::vector<std::string> names,
                 std::shared_ptr<PythonErrors> errors)
      : observer_(std::move(observer)), names_(std::move(names)), errors_(std::move(errors)) {}
  void register_device(const live::DeviceInfo& device) override {
    py::gil_scoped_acquire gil;
    py::dict env;
    for (const auto& [key, value] : device.properties) env[py::str(key)] = value;
    py::dict info;
    info["name"] = device.name;
    info["platform"] = device.platform;
    info["max_threads"] = device.max_threads;
    info["env"] = env;
    hook("register_device", info);
  }
  void register_configuration(std::span<const Value> config) override {
    py::gil_scoped_acquire gil;
    hook("register_configuration", params_dict(names_, config));
  }
  void before_start() override { plain_hook("before_start"); }
  void after_start() override { plain_hook("after_start"); }
  void during() override { plain_hook("during"); }
  void after_finish() override { plain_hook("after_finish"); }
  std::vector<live::Observation> results() override {
    py::gil_scoped_acquire gil;
    const py::object got = hook("get_results");
    std::vector<live::Observation> out;
    for (const auto& [key, value] : got.cast<py::dict>())
      out.push_back({py::str(key).cast<std::string>(), value.cast<double>(), ""});
    return out;
  }

 private:
  void plain_hook(const char* name) {
    py::gil_scoped_acquire gil;
    hook(name);
  }
  template <class... Args>
  py::object hook(const char* name, Args&&... args) {
    try {
      return observer_->attr(name)(std::forward<Args>(args)...);
    } catch (py::error_already_set& e) {
      if (PythonErrors::ends_the_run(e)) errors_->stop_with(e);
      throw std::runtime_error(std::string(py::str(observer_->attr("name"))) + "." + name + " raised " + e.what());
    }
  }
  std::shared_ptr<py::object> observer_;
  std::vector<std::string> names_;
  std::shared_ptr<PythonErrors> errors_;
};

// Kernel Tuner's CostFunc as a custom optimiser sees it (OptAlg.__call__(func, searchspace)): called with a
// configuration (parameter values in order; with `scaling`, a point of the continuous view, snapped to the nearest
// valid configuration), it returns the cost (the objective, negated when higher is better), sys.float_info.max for
// a failed or invalid configuration, and raises StopCriterionReached when the budget ends.
struct PythonCostFunc {
  const SearchSpace* space;
  CostFunction* cost;
  Rng* rng;
  bool scaling;
  py::object stop;  // the StopCriterionReached class

  double operator()(const py::sequence& x) {
    const std::size_t n = space->num_params();
    if (x.size() != n)
      throw py::value_error("the cost function takes " + std::to_string(n) + " values, one per parameter, not " +
                            std::to_string(x.size()));
    Config config;
    if (scaling) {
      std::vector<double> point;
      for (const py::handle v : x) point.push_back(v.cast<double>());
      config = space->from_continuous(point);
      if (!space->is_valid(config)) {
        const auto repaired = strategies::repair_by_index_distance(*space, config, *rng);
        if (!repaired) return DBL_MAX;
        config = space->config_at(*repaired);
      }
    } else {
      std::vector<Value> values;
      for (const py::handle v : x) values.push_back(from_python(v));
      const auto found = space->config_of(values);
      if (!found) return DBL_MAX;  // a value not in tune_params: as invalid as a configuration the restrictions refuse
      config = *found;
    }
    double result = 0;
    bool exhausted = false;
    {
      py::gil_scoped_release release;  // live evaluations take long, and the listener takes the GIL
      try {
        result = (*cost)(std::span<const std::uint32_t>(config));
      } catch (const BudgetExhausted&) {
        exhausted = true;
      }
    }
    if (exhausted) {
      PyErr_SetString(stop.ptr(), "the tuning budget is spent");
      throw py::error_already_set();
    }
    return std::isfinite(result) && result != CostFunction::kInvalidCost ? result : DBL_MAX;
  }
};

// Kernel Tuner's Searchspace as a custom optimiser uses it: the valid configurations as tuples of values.
struct PythonSearchSpace {
  const SearchSpace* space;
  Rng* rng;
  // `list`, made on first use and kept: Kernel Tuner's is an attribute, and optimisers read it in their loops.
  py::list list_cache = py::list();

  py::tuple values(std::size_t index) const {
    const auto v = space->values_at(index);
    py::tuple t(v.size());
    for (std::size_t p = 0; p < v.size(); ++p) t[p] = to_python(v[p]);
    return t;
  }
  py::list tuples(const std::vector<std::size_t>& indices) const {
    py::list out;
    for (std::size_t i : indices) out.append(values(i));
    return out;
  }
  std::optional<Config> config_of(const py::sequence& x) const {
    if (x.size() != space->num_params()) return std::nullopt;
    std::vector<Value> v;
    for (const py::handle item : x) v.push_back(from_python(item));
    return space->config_of(v);
  }
};

// A custom strategy of the Python layer: `optimizer(func, searchspace)` with the GIL, as Kernel Tuner's OptAlgWrapper
// calls an OptAlg. StopCriterionReached out of it is the budget's end.
class PythonStrategy final : public Strategy {
 public:
  PythonStrategy(std::shared_ptr<py::object> optimizer, bool scaling, py::object stop,
                 std::shared_ptr<PythonErrors> errors)
      : optimizer_(std::move(optimizer)), scaling_(scaling), stop_(keep_alive(std::move(stop))),
        errors_(std::move(errors)) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    py::gil_scoped_acquire gil;
    PythonCostFunc func{&space, &cost, &rng, scaling_, *stop_};
    PythonSearchSpace searchspace{&space, &rng};
    try {
      (*optimizer_)(py::cast(&func, py::return_value_policy::reference),
                    py::cast(&searchspace, py::return_value_policy::reference));
    } catch (py::error_already_set& e) {
      if (e.matches(*stop_)) throw BudgetExhausted();
      if (PythonErrors::ends_the_run(e)) {  // the run ends as the budget's end would end it; run_job raises `e`
        errors_->keep(e);
        throw BudgetExhausted();
      }
      throw std::runtime_error(std::string("the strategy raised ") + e.what());
    }
  }

 private:
  std::shared_ptr<py::object> optimizer_;
  bool scaling_;
  std::shared_ptr<py::object> stop_;
  std::shared_ptr<PythonErrors> errors_;
};

// A record as Kernel Tuner's result dict: the parameters, then the measurements ("time" in ms and "times" for a
// successful run; observer values and metrics), the step times in ms and the timestamp. A failure carries its
// Kernel Tuner error name under "__error__" (the Python layer turns it into an ErrorConfig).
py::dict result_dict(const Problem& problem, const EvaluationRecord& record) {
  py::dict d;
  for (std::size_t p = 0; p < problem.parameters.size(); ++p)
    d[py::str(problem.parameters[p].name)] = to_python(record.config[p]);
  const bool ok = record.status == Status::ok;
  if (ok) {
    if (!record.find("time")) {
      if (const auto t = record.objective("time")) d["time"] = *t;
    }
    py::list times;
    for (double t : record.runtimes_ms) times.append(t);
    d["times"] = std::move(times);
  }
  for (const Measurement& m : record.measurements) d[py::str(m.name)] = to_python(m.value);
  d["compile_time"] = record.compile_ms;
  d["verification_time"] = record.verification_ms;
  d["benchmark_time"] = record.benchmark_ms;
  d["strategy_time"] = record.strategy_ms;
  d["framework_time"] = record.framework_ms;
  d["timestamp"] = record.timestamp;
  if (!ok) d["__error__"] = std::string(kernel_tuner_error(record.status));
  return d;
}

// The parts of a request both modes share: strategy, budget, objectives, restrictions, seed.
struct CommonArguments {
  std::string strategy;
  std::vector<std::string> settings;
  std::optional<std::uint64_t> max_fevals;
  std::optional<double> time_limit;
  std::vector<std::string> objectives;
  std::vector<std::string> restrictions;
  py::object keep;  // None, or callable(dict of parameter values) -> bool: Kernel Tuner's callable restrictions
  std::uint64_t seed = 0;
  // None, or an object told started(device name) once the device is open and result(dict) of each new result.
  py::object on_result;
  // None, or (optimizer, scaling, StopCriterionReached): a custom strategy object of the Python layer.
  py::object strategy_object = py::none();
  std::string store;  // a results store (docs/store.md): resumed from and recorded into; "" none
  std::vector<std::string> transfer;  // transfer sources (docs/transfer.md); empty: none
  std::string wisdom;  // a wisdom file the winner is added to (docs/integration.md); "" none
  std::size_t confirm_top = 0;  // live: the best K timed again at the end (docs/live-tuning.md)
  bool avoid_failures = false;  // learned failure avoidance (docs/live-tuning.md)
  std::optional<int> dashboard = std::nullopt;  // the live view's port (0: any free one); nullopt: none
  // None, or configurations evaluated first (Kernel Tuner's x0): each a dict of parameter -> value, or a list of
  // values in the problem's order.
  py::object start = py::none();
};

void apply(const CommonArguments& a, TuneRequest& request, const std::shared_ptr<PythonErrors>& errors) {
  request.strategy = a.strategy;
  request.settings = a.settings;
  if (!a.strategy_object.is_none()) {
    const auto t = a.strategy_object.cast<py::tuple>();
    request.strategy_object =
        std::make_shared<PythonStrategy>(keep_alive(t[0]), t[1].cast<bool>(),
                                         py::reinterpret_borrow<py::object>(t[2]), errors);
  }
  request.budget.max_evaluations = a.max_fevals;
  request.budget.time_limit_seconds = a.time_limit;
  request.objectives = a.objectives;
  request.restrictions = a.restrictions;
  request.seed = a.seed;
  request.store_path = a.store;
  request.transfer = a.transfer;
  request.wisdom_path = a.wisdom;
  request.confirm_top = a.confirm_top;
  request.avoid_failures = a.avoid_failures;
  request.dashboard_port = a.dashboard;
  if (!a.start.is_none())
    for (const py::handle configuration : a.start) {
      TuneRequest::StartConfiguration c;
      if (py::isinstance<py::dict>(configuration)) {
        for (const auto& [name, value] : configuration.cast<py::dict>()) {
          c.names.push_back(py::str(name).cast<std::string>());
          c.values.push_back(from_python(value));
        }
      } else {
        for (const py::handle v : configuration) c.values.push_back(from_python(v));
      }
      request.start.push_back(std::move(c));
    }
  if (!a.keep.is_none()) {
    // Called from the job, which runs without the GIL: every call takes it. A Python exception becomes the job's
    // refusal with Python's message, formatted while the GIL is held.
    request.keep = [keep = keep_alive(a.keep), errors](const Problem& problem, const std::vector<Value>& values) {
      py::gil_scoped_acquire gil;
      const py::dict params = params_dict(parameter_names(problem), values);
      return static_cast<bool>(py::bool_(call_python(keep, *errors, "a restriction", params)));
    };
  }
}

// Sees every evaluation while the job runs: a Ctrl-C pressed meanwhile (Python only notes it while C++ runs)
// becomes a stop request, so the job ends with what it measured; each new result goes to `on_result.result(dict)`,
// if given (the Python layer prints it as Kernel Tuner's logs do).
// It also times each evaluation as it happens, for a replay's records (see replay_times).
class PythonListener final : public TuningListener {
 public:
  PythonListener(const TuneJob& job, py::object on_result, std::shared_ptr<PythonErrors> errors)
      : job_(job), on_result_(std::move(on_result)), errors_(std::move(errors)) {}
  void on_evaluation_start(const CostFunction&, std::size_t) override { started_ = std::chrono::steady_clock::now(); }
  void on_revisit(const CostFunction&, std::size_t position) override {
    if (revisits_ < kListedRevisits) requests_.push_back(position);
    ++revisits_;
  }
  // Revisits beyond this many are not listed (firefly, pso, dual_annealing without a budget revisit over 100 000
  // times on gemm; each listing is a dict of a kilobyte or more in Python); said in the run's messages.
  static constexpr std::size_t kListedRevisits = std::size_t{1} << 15;
  std::size_t revisits() const { return revisits_; }
  void on_evaluation(const CostFunction& cost, std::size_t position) override {
    const auto ended = std::chrono::steady_clock::now();
    const TraceEntry& entry = cost.trace()[position];
    if (!entry.resumed) requests_.push_back(position);
    if (started_ && !entry.resumed) {
      if (times_.size() <= position) times_.resize(position + 1, {NAN, NAN});
      times_[position] = {std::chrono::duration<double, std::milli>(ended - *started_).count(), entry.strategy_ms};
    }
    started_.reset();
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      request_stop(SIGINT);
    }
    if (on_result_.is_none() || entry.resumed) return;
    try {
      on_result_.attr("result")(result_dict(job_.space().problem(), job_.evaluator().record(entry.index)));
    } catch (py::error_already_set& e) {
      if (PythonErrors::ends_the_run(e)) errors_->keep(e);  // the result is recorded; the next one is not started
      else PyErr_WarnEx(PyExc_RuntimeWarning, (std::string("printing a result failed: ") + e.what()).c_str(), 1);
    }
  }

  // The trace positions of the results in Kernel Tuner's order: those resumed from a cache or store first (the
  // first `resumed` positions; the strategy's first request of one is that listing), then every request of the
  // strategy as it came, revisits included; a position no request reached (none should) is added at the end, so
  // that nothing measured is left out.
  std::vector<std::size_t> listing(std::size_t positions, std::size_t resumed) const {
    resumed = std::min(resumed, positions);
    std::vector<std::size_t> order;
    std::vector<char> listed(positions, 0);
    for (std::size_t p = 0; p < resumed; ++p) order.push_back(p), listed[p] = 1;
    std::vector<char> asked(resumed, 0);
    for (std::size_t p : requests_) {
      if (p >= positions) continue;
      if (p < resumed && !asked[p]) {
        asked[p] = 1;
        continue;
      }
      order.push_back(p), listed[p] = 1;
    }
    for (std::size_t p = 0; p < positions; ++p)
      if (!listed[p]) order.push_back(p);
    return order;
  }

  // A replay's records carry the recorded run's framework and strategy times; Kernel Tuner's simulation mode reports
  // those of the replay itself (its compile, verification and benchmark times stay the recorded ones, summed in
  // env["simulated_time"]), so that its env totals add up to the time the replay took. Measured per trace position:
  // the evaluation's own time (the framework's) and the strategy's time before it asked. NaN: not measured.
  void replay_times(std::size_t position, py::dict& result) const {
    if (position >= times_.size() || std::isnan(times_[position].first)) return;
    result["framework_time"] = times_[position].first;
    result["strategy_time"] = times_[position].second;
  }

 private:
  const TuneJob& job_;
  py::object on_result_;
  std::shared_ptr<PythonErrors> errors_;
  std::optional<std::chrono::steady_clock::time_point> started_;
  std::vector<std::pair<double, double>> times_;  // per trace position: framework ms, strategy ms
  std::vector<std::size_t> requests_;               // trace positions, one per request (new or revisit)
  std::size_t revisits_ = 0;
};

// Runs the job without the GIL and returns {parameters, results, env, best, pareto_front, messages}. What a callback
// raised that ends the run (PythonErrors) is raised here, once the job has ended, instead of the job's outcome or its
// error (a JobError made of it).
py::dict run_job(TuneRequest request, py::object on_result, const std::shared_ptr<PythonErrors>& errors) {
  std::vector<std::string> messages;
  request.on_message = [&messages](JobMessageLevel, const std::string& text) {
    // The live view's address is needed while the run goes, not in the messages it returns.
    if (text.rfind("the live view: ", 0) == 0) {
      std::fprintf(stderr, "ktune: %s\n", text.c_str());
      std::fflush(stderr);
    }
    messages.push_back(text);
  };
  std::optional<TuneJob> job;
  std::optional<TuneOutcome> outcome;
  std::optional<PythonListener> listener;
  try {
    py::gil_scoped_release release;  // Python is only called back through keep_alive'd objects, which take the GIL
    job.emplace(std::move(request));
    {
      py::gil_scoped_acquire gil;
      if (!on_result.is_none()) on_result.attr("started")(job->evaluator().device_name());
      listener.emplace(*job, std::move(on_result), errors);
    }
    outcome.emplace(job->run({&*listener}));
  } catch (...) {
    errors->raise_kept();
    throw;
  }
  errors->raise_kept();
  for (const auto& warning : errors->metric_warnings()) messages.push_back(warning);
  // The wisdom (the only output a Python request names): a failure is said, the results are returned all the same.
  for (const auto& why : job->write_outputs(*outcome)) messages.push_back("the wisdom was not written: " + why);
  const bool interrupted = outcome->result.stop_reason == StopReason::interrupted;
  if (interrupted) clear_stop_request();  // the next run in this interpreter starts afresh
  const Problem& problem = job->space().problem();
  if (listener->revisits() > PythonListener::kListedRevisits)
    messages.push_back("the strategy asked " + std::to_string(listener->revisits()) +
                       " times for configurations it had evaluated; the first " +
                       std::to_string(PythonListener::kListedRevisits) + " of those revisits are listed in the results");
  // One result per request, as Kernel Tuner lists them: a revisit repeats the result with no compile, verification,
  // benchmark, framework or strategy time (it cost nothing; Kernel Tuner's simulation zeroes them too). best,
  // pareto_front and confirmed name the first listing of a position.
  constexpr std::size_t not_listed = static_cast<std::size_t>(-1);
  py::list results;
  std::vector<std::size_t> first_listed(outcome->records.size(), not_listed);
  for (std::size_t position : listener->listing(outcome->records.size(), outcome->resumed)) {
    py::dict result = result_dict(problem, outcome->records[position]);
    if (first_listed[position] == not_listed) {
      if (!job->live()) listener->replay_times(position, result);
      first_listed[position] = results.size();
    } else {
      for (const char* step : {"compile_time", "verification_time", "benchmark_time", "framework_time",
                               "strategy_time"})
        result[step] = 0.0;
    }
    results.append(std::move(result));
  }

  py::dict env;
  env["device_name"] = job->evaluator().device_name();
  env["kernel_name"] = job->evaluator().kernel_name();
  env["simulation"] = !job->live();
  if (!job->live()) {
    double simulated_ms = 0;
    for (const EvaluationRecord& record : outcome->records)
      simulated_ms += record.compile_ms + record.verification_ms + record.benchmark_ms;
    env["simulated_time"] = simulated_ms;
  }
  env["strategy"] = job->request().strategy;
  py::dict hyperparameters;
  for (const auto& [name, value] : job->hyperparameters()) hyperparameters[py::str(name)] = to_python(value);
  env["strategy_options"] = std::move(hyperparameters);
  py::list objective_names;
  for (const auto& o : job->objectives()) objective_names.append(o.name);
  env["objective"] = std::move(objective_names);
  env["stop_reason"] = std::string(to_string(outcome->result.stop_reason));
  if (job->request().avoid_failures) env["deferred"] = outcome->result.deferred;
  env["search_space_size"] = job->space().size();
  env["ktune_version"] = std::string(kVersionString);

  py::dict out;
  py::list parameters;
  for (const auto& p : problem.parameters) parameters.append(p.name);
  out["parameters"] = std::move(parameters);
  out["results"] = std::move(results);
  out["env"] = std::move(env);
  out["best"] = outcome->best ? py::object(py::int_(first_listed[*outcome->best])) : py::object(py::none());
  py::list front;
  for (std::size_t i : outcome->pareto_front) front.append(first_listed[i]);
  out["pareto_front"] = std::move(front);
  // The confirmation: each configuration timed again, the winner first (its position in results, its interval).
  py::list confirmed;
  for (const ConfirmedConfiguration& c : outcome->confirmed) {
    py::dict item;
    item["result"] = first_listed[c.position];
    if (!c.failure.empty()) {
      item["failure"] = c.failure;
    } else {
      item["time"] = c.summary.value;
      item["interval"] = py::make_tuple(c.summary.low, c.summary.high);
      item["runs"] = c.summary.runs;
      item["outliers"] = c.summary.outliers;
      item["spread"] = c.summary.spread;
      item["winner"] = c.winner;
      item["tied_with_winner"] = c.tied;
    }
    confirmed.append(std::move(item));
  }
  out["confirmed"] = std::move(confirmed);
  py::list notes;
  for (const auto& m : messages) notes.append(m);
  out["messages"] = std::move(notes);
  out["interrupted"] = interrupted;
  return out;
}

// Kernel Tuner's simulation mode: replays a brute-forced cache (or T4) file with a strategy.
py::dict simulate(std::string cache_path, std::vector<std::string> derived, const CommonArguments& common) {
  TuneRequest request;
  request.simulate_path = std::move(cache_path);
  request.derived = std::move(derived);
  const auto errors = std::make_shared<PythonErrors>();
  apply(common, request, errors);
  return run_job(std::move(request), common.on_result, errors);
}

std::vector<std::string> strings(const py::handle& list) {
  std::vector<std::string> out;
  for (const py::handle item : list) out.push_back(py::str(item));
  return out;
}

// The kernel specification of the normalised form the Python layer makes of tune_kernel's arguments
// (python/ktune/live.py): `verify`, if not None, gets the arguments after a run (bytes for arrays, None for scalars)
// and returns "" when the output is right, else why not. Callables (code generator, defines, metrics, observers) are
// called back with the GIL.
live::KernelSpecification kernel_specification(const py::dict& kernel, const Problem& problem, py::object verify,
                                               const std::shared_ptr<PythonErrors>& errors) {
  const std::vector<std::string> names = parameter_names(problem);
  live::KernelSpecification spec;
  spec.backend = kernel["backend"].cast<std::string>();
  spec.kernel_name = kernel["kernel_name"].cast<std::string>();
  spec.kernel_code = kernel["kernel_code"].cast<std::string>();
  spec.kernel_file = kernel["kernel_file"].cast<std::string>();
  spec.compiler_options = strings(kernel["compiler_options"]);
  if (kernel.contains("constant_memory"))
    for (const py::handle item : kernel["constant_memory"].cast<py::list>()) {
      const auto pair = item.cast<py::tuple>();
      const std::string bytes = pair[1].cast<py::bytes>();
      const auto* data = reinterpret_cast<const std::byte*>(bytes.data());
      spec.constant_memory.emplace_back(pair[0].cast<std::string>(), std::vector<std::byte>(data, data + bytes.size()));
    }
  const auto problem_size = strings(kernel["problem_size"]);
  for (std::size_t d = 0; d < 3 && d < problem_size.size(); ++d) spec.problem_size[d] = problem_size[d];
  // Kernel Tuner's cache records the problem size in the caller's form (100000, not ["100000", "1", "1"]).
  if (kernel.contains("problem_size_dimensions"))
    spec.problem_size_dimensions = kernel["problem_size_dimensions"].cast<int>();
  spec.block_size_names = problem.block_size_names;
  const auto grid_div = kernel["grid_div"].cast<py::list>();
  for (std::size_t d = 0; d < 3; ++d) spec.grid_div[d] = strings(grid_div[d]);
  spec.repetition = RepetitionPolicy::parse(kernel["iterations"].cast<std::string>());
  spec.backend_options.device = kernel["device"].cast<int>();
  spec.backend_options.platform = kernel["platform"].cast<int>();
  spec.backend_options.compiler = kernel["compiler"].cast<std::string>();
  spec.backend_options.time_from_return = kernel.contains("time_from_return") && kernel["time_from_return"].cast<bool>();
  if (kernel.contains("generate_code") && !kernel["generate_code"].is_none()) {
    spec.generate_code = [f = keep_alive(kernel["generate_code"]), names, errors](std::span<const Value> config) {
      py::gil_scoped_acquire gil;
      return py::str(call_python(f, *errors, "the kernel_source generator", params_dict(names, config)))
          .cast<std::string>();
    };
  }
  if (kernel.contains("defines") && !kernel["defines"].is_none()) {
    spec.generate_defines = [f = keep_alive(kernel["defines"]), names, errors](std::span<const Value> config) {
      py::gil_scoped_acquire gil;
      live::Defines defines;
      for (const py::handle pair : call_python(f, *errors, "defines", params_dict(names, config))) {
        const auto t = pair.cast<py::tuple>();
        defines.emplace_back(py::str(t[0]).cast<std::string>(), py::str(t[1]).cast<std::string>());
      }
      return defines;
    };
  }
  for (const py::handle m : kernel["metrics"]) {
    const auto pair = m.cast<py::tuple>();
    live::Metric metric{pair[0].cast<std::string>(), "", ""};
    if (py::isinstance<py::str>(pair[1])) {
      metric.expression = pair[1].cast<std::string>();
    } else {  // Kernel Tuner's callable metric: a dict of the parameters and the measurements so far
      // What it raises or a value that is no number makes its value NaN, and a warning after the run.
      metric.code = [f = keep_alive(py::reinterpret_borrow<py::object>(pair[1])), names, name = metric.name, errors](
                        std::span<const Value> config, const live::MeasurementMap& measured) {
        py::gil_scoped_acquire gil;
        py::dict p = params_dict(names, config);
        for (const auto& [key, value] : measured) p[py::str(key)] = value;
        std::string failure;
        try {
          const py::object v = (*f)(p);
          try {
            return v.cast<double>();
          } catch (const py::cast_error&) {
            failure = "returned " + std::string(py::repr(v)) + ", not a number";
          }
        } catch (py::error_already_set& e) {
          if (PythonErrors::ends_the_run(e)) errors->stop_with(e);
          failure = std::string("raised ") + e.what();
        }
        std::string configuration;
        for (std::size_t i = 0; i < config.size() && i < names.size(); ++i)
          configuration += (i ? ", " : "") + names[i] + "=" + config[i].repr();
        errors->metric_failed(name, configuration, failure);
        throw std::runtime_error(failure);
      };
    }
    spec.metrics.push_back(std::move(metric));
  }
  if (kernel.contains("observers"))
    for (const py::handle o : kernel["observers"])
      spec.launch_observers.push_back(
          std::make_shared<PythonObserver>(keep_alive(py::reinterpret_borrow<py::object>(o)), names, errors));
  for (const py::handle a : kernel["arguments"]) {
    const auto d = a.cast<py::dict>();
    live::ArgumentSpecification arg;
    arg.name = d["name"].cast<std::string>();
    const std::string type_name = d["type"].cast<std::string>();
    const auto type = live::parse_element_type(type_name);
    if (!type) throw py::type_error("argument '" + arg.name + "': element type " + type_name + " is not supported");
    arg.type = *type;
    arg.scalar = d["scalar"].cast<bool>();
    if (arg.scalar) {
      arg.fill_value = d["value"].cast<double>();
    } else {
      // The array's own memory, read in place through the buffer protocol (the job keeps the array alive and copies
      // it once into the run's arguments).
      const py::object array = d["data"];
      const py::buffer_info buffer = py::buffer(array).request();
      arg.fill = live::Fill::data;
      arg.data = std::span<const std::byte>(static_cast<const std::byte*>(buffer.ptr),
                                            static_cast<std::size_t>(buffer.size * buffer.itemsize));
      arg.data_owner = keep_alive(array);
      arg.size = std::to_string(d["count"].cast<std::uint64_t>());
    }
    spec.arguments.push_back(std::move(arg));
  }
  if (!verify.is_none()) {
    spec.verification.kind = live::Verification::Kind::callback;
    // What the check raises ends the run and is raised by tune_kernel (a verify function that raises is a broken
    // script, as in Kernel Tuner, not a wrong result); OutputObservers' failures come back as a wrong result.
    spec.verification.callback = [verify = keep_alive(std::move(verify)),
                                  errors](std::span<const live::KernelArgument> after) {
      py::gil_scoped_acquire gil;
      py::list outputs;
      for (const auto& arg : after) {
        if (arg.scalar || arg.local_memory) outputs.append(py::none());
        else outputs.append(py::bytes(reinterpret_cast<const char*>(arg.bytes.data()), arg.bytes.size()));
      }
      try {
        return (*verify)(outputs).cast<std::string>();
      } catch (py::error_already_set& e) {
        errors->stop_with(e);
      }
    };
  }
  return spec;
}

Problem live_problem(const std::string& name, const py::list& tune_params, const py::dict& kernel) {
  Problem problem;
  problem.name = name;
  problem.parameters = parameters_from_python(tune_params);
  problem.block_size_names = strings(kernel["block_size_names"]);
  return problem;
}

// A live run of a kernel given in memory.
py::dict tune_live(const std::string& name, const py::list& tune_params, const py::dict& kernel, py::object verify,
                   const std::string& cache_path, bool isolate, const CommonArguments& common,
                   std::size_t compile_workers, std::vector<int> devices, bool all_devices, std::size_t pending) {
  TuneRequest request;
  const auto errors = std::make_shared<PythonErrors>();
  const Problem& problem = request.problem.emplace(live_problem(name, tune_params, kernel));
  request.kernel.emplace(kernel_specification(kernel, problem, std::move(verify), errors));
  if (kernel.contains("native_observers")) request.live.observers = strings(kernel["native_observers"]);
  request.cache_path = cache_path;
  request.live.isolate = isolate;
  request.live.compile_workers = compile_workers;
  request.live.devices = std::move(devices);
  request.live.all_devices = all_devices;
  request.pending_evaluations = pending;
  apply(common, request, errors);
  return run_job(std::move(request), common.on_result, errors);
}

// What `run` returns, a live run's errors as JobError: a backend unavailable here or a run that failed (input), a
// bad specification (request).
template <class Run>
auto as_job_errors(Run&& run) {
  try {
    return run();
  } catch (const live::BackendUnavailable& e) {
    throw JobError(JobError::Kind::input, e.what());
  } catch (const std::invalid_argument& e) {
    throw JobError(JobError::Kind::request, e.what());
  } catch (const std::runtime_error& e) {
    throw JobError(JobError::Kind::input, e.what());
  }
}

// The problem of one configuration (`params`: [(name, value)]), each parameter with its one value.
Problem one_configuration(const std::string& name, const py::list& params, const py::dict& kernel) {
  py::list tune_params;
  for (const py::handle item : params) {
    const auto pair = item.cast<py::tuple>();
    tune_params.append(py::make_tuple(pair[0], py::make_tuple(pair[1])));
  }
  return live_problem(name, tune_params, kernel);
}

// Kernel Tuner's run_kernel: one configuration (`params`: [(name, value)]) run once; every argument after the run,
// as bytes (None for scalars). Errors are JobError with the library's message.
py::list run_kernel(const std::string& name, const py::list& params, const py::dict& kernel) {
  const Problem problem = one_configuration(name, params, kernel);
  const auto errors = std::make_shared<PythonErrors>();
  const live::KernelSpecification spec = kernel_specification(kernel, problem, py::none(), errors);
  std::vector<Value> config;
  for (const auto& p : problem.parameters) config.push_back(p.values.at(0));
  std::vector<live::KernelArgument> after;
  try {
    py::gil_scoped_release release;
    after = as_job_errors([&] { return live::run_kernel(spec, problem, config); });
  } catch (...) {
    errors->raise_kept();  // a KeyboardInterrupt or SystemExit in the code generator or defines
    throw;
  }
  py::list out;
  for (const auto& arg : after) {
    if (arg.scalar || arg.local_memory) out.append(py::none());
    else out.append(py::bytes(reinterpret_cast<const char*>(arg.bytes.data()), arg.bytes.size()));
  }
  return out;
}

// The device run_kernel would run the kernel on: its name as tuning's env["device_name"] has it.
std::string kernel_device_name(const std::string& name, const py::list& params, const py::dict& kernel) {
  const Problem problem = one_configuration(name, params, kernel);
  const auto errors = std::make_shared<PythonErrors>();
  const live::KernelSpecification spec = kernel_specification(kernel, problem, py::none(), errors);
  py::gil_scoped_release release;
  return as_job_errors([&] {
    spec.validate(problem);
    return live::probe_device(spec).name;
  });
}

// Result dicts (as tune_kernel returns them) written as T4 results by the library's writer (Kernel Tuner's
// file_utils.store_output_file and get_t4_results). Every key that is not a parameter or one of Kernel Tuner's time
// fields is a measurement; "__error__" gives the status.
void write_t4_results(std::ostream& out, const py::list& tune_params, const py::list& results,
                      const std::vector<std::string>& objectives) {
  Problem problem;
  problem.name = "results";
  problem.parameters = parameters_from_python(tune_params);
  static const std::set<std::string, std::less<>> kTimeFields = {
      "times", "compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time", "timestamp",
      "__error__"};
  std::vector<EvaluationRecord> records;
  std::size_t position = 0;
  for (const py::handle item : results) {
    ++position;
    const auto d = item.cast<py::dict>();
    EvaluationRecord r;
    for (const auto& p : problem.parameters) {
      if (!d.contains(p.name))
        throw py::value_error("result " + std::to_string(position) + " has no parameter '" + p.name + "'");
      r.config.push_back(from_python(d[py::str(p.name)]));
    }
    const auto number = [&](const char* key) { return d.contains(key) ? d[key].cast<double>() : 0.0; };
    r.compile_ms = number("compile_time");
    r.verification_ms = number("verification_time");
    r.benchmark_ms = number("benchmark_time");
    r.strategy_ms = number("strategy_time");
    r.framework_ms = number("framework_time");
    if (d.contains("timestamp")) r.timestamp = py::str(d["timestamp"]);
    if (d.contains("times")) r.runtimes_ms = d["times"].cast<std::vector<double>>();
    if (d.contains("__error__")) {
      const std::string error = py::str(d["__error__"]);
      r.status = status_from_kernel_tuner_error(error).value_or(Status::runtime_failed);
      r.message = error;
    }
    for (const auto& [key, value] : d) {
      const std::string name = py::str(key);
      if (kTimeFields.count(name) || problem.parameter_index(name)) continue;
      r.measurements.push_back({name, from_python(value), name.rfind("time", 0) == 0 ? "ms" : ""});
    }
    records.push_back(std::move(r));
  }
  io::write_t4_results(out, problem, records, objectives);
}

void write_t4(const std::string& path, const py::list& tune_params, const py::list& results,
              const std::vector<std::string>& objectives) {
  // Atomically, as every output of ktune's (io/output_file.hpp): a kill or a full disk keeps the previous file.
  std::ostringstream text;
  write_t4_results(text, tune_params, results, objectives);
  try {
    io::write_file_atomically(path, std::move(text).str());
  } catch (const io::InputError& e) {
    throw py::value_error(e.what());
  }
}

std::string t4_text(const py::list& tune_params, const py::list& results, const std::vector<std::string>& objectives) {
  std::ostringstream out;
  write_t4_results(out, tune_params, results, objectives);
  return out.str();
}

// A run described by files, as `ktune tune` takes them: a T1 problem (live, or the space of a simulation) and a
// results file to replay.
py::dict tune_files(std::string problem_path, std::string simulate_path, std::string cache_path,
                    std::optional<std::string> iterations, std::optional<int> device, const CommonArguments& common) {
  TuneRequest request;
  request.problem_path = std::move(problem_path);
  request.simulate_path = std::move(simulate_path);
  request.cache_path = std::move(cache_path);
  request.live.iterations = iterations;
  request.live.device = device;
  const auto errors = std::make_shared<PythonErrors>();
  apply(common, request, errors);
  return run_job(std::move(request), common.on_result, errors);
}

}  // namespace

// kernel_tuner.integration (python/ktune/integration.py): the rules are the library's; documents cross as JSON text.
// Bad input is a ValueError, as Kernel Tuner raises.
template <typename Function>
auto as_value_error(Function&& function) -> decltype(function()) {
  try {
    return function();
  } catch (const io::InputError& e) {
    throw py::value_error(e.what());
  } catch (const nlohmann::json::exception& e) {
    throw py::value_error(e.what());
  }
}

io::KernelTunerResultsFile parse_results_text(const std::string& text, const std::string& where) {
  return io::parse_kernel_tuner_results_text(text, where);
}

void add_integration_functions(py::module_& m) {
  m.def(
      "integration_store_results",
      [](const std::string& path, const std::string& kernel_name, std::optional<std::string> kernel_string,
         std::vector<std::string> parameters, const std::string& problem_size, const std::string& results_json,
         const std::string& device_name, double top, std::optional<std::string> objective,
         std::optional<bool> higher_is_better) {
        as_value_error([&] {
          io::StoreResultsRequest request;
          const io::KernelTunerObjective chosen = io::kernel_tuner_objective(objective, higher_is_better);
          request.kernel_name = kernel_name;
          request.kernel_string = std::move(kernel_string);
          request.problem_size = problem_size;
          request.device_name = device_name;
          request.top = top;
          request.objective = objective;
          request.higher_is_better = higher_is_better;
          request.results =
              io::kernel_tuner_results_of(nlohmann::ordered_json::parse(results_json), chosen.name, parameters);
          request.parameters = std::move(parameters);
          io::store_results_file(path, request);
        });
      },
      py::arg("results_filename"), py::arg("kernel_name"), py::arg("kernel_string"), py::arg("parameters"),
      py::arg("problem_size"), py::arg("results_json"), py::arg("device_name"), py::arg("top"), py::arg("objective"),
      py::arg("objective_higher_is_better"));
  m.def(
      "integration_read",
      [](const std::string& text, const std::string& where) {
        return as_value_error([&] {
          const io::KernelTunerResultsFile file = parse_results_text(text, where);
          nlohmann::ordered_json out = {{"kernel_name", file.kernel_name},
                                        {"tunable_parameters", file.parameters},
                                        {"objective", file.objective},
                                        {"version_number", "1.0"},
                                        {"objective_higher_is_better", file.higher_is_better},
                                        {"kernel_string", file.kernel_string.value_or("")}};
          nlohmann::ordered_json data = nlohmann::ordered_json::array();
          for (const auto& e : file.entries) data.push_back(e.json);
          return nlohmann::ordered_json{{"meta", std::move(out)}, {"data", std::move(data)}}.dump();
        });
      },
      py::arg("text"), py::arg("where"));
  m.def(
      "integration_best_config",
      [](const std::string& text, const std::string& where, const std::string& gpu_name,
         std::optional<std::string> problem_size) {
        return as_value_error(
            [&] { return io::best_configuration(parse_results_text(text, where), gpu_name, problem_size).dump(); });
      },
      py::arg("text"), py::arg("where"), py::arg("gpu_name"), py::arg("problem_size"));
  m.def(
      "integration_device_targets",
      [](const std::string& header_path, const std::string& results_path, std::optional<std::string> objective,
         std::optional<bool> higher_is_better) {
        as_value_error([&] {
          const io::KernelTunerObjective chosen = io::kernel_tuner_objective(objective, higher_is_better);
          const io::KernelTunerResultsFile file = io::read_kernel_tuner_results_file(results_path);
          if (objective && chosen.name != file.objective)
            throw py::value_error("Mismatch between given objective '" + chosen.name + "' and results file " +
                                  results_path + " ('" + file.objective + "')");
          io::write_file_atomically(header_path, io::device_targets_header(file));
        });
      },
      py::arg("header_filename"), py::arg("results_filename"), py::arg("objective"),
      py::arg("objective_higher_is_better"));
}

PYBIND11_MODULE(_ktune, m) {
  m.doc() = "ktune's native core (use the ktune package, not this module)";
  m.attr("__version__") = std::string(kVersionString);
  // A refused request or bad input: the message is the CLI's. ValueError, as Kernel Tuner raises for bad input.
  static py::exception<JobError> job_error(m, "JobError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const JobError& e) {
      job_error(e.what());
    } catch (const HyperparameterError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  const auto common = [](std::string strategy, std::vector<std::string> settings,
                         std::optional<std::uint64_t> max_fevals, std::optional<double> time_limit,
                         std::vector<std::string> objectives, std::vector<std::string> restrictions, py::object keep,
                         std::uint64_t seed, py::object on_result, py::object strategy_object) {
    return CommonArguments{std::move(strategy),   std::move(settings),     max_fevals,      time_limit,
                           std::move(objectives), std::move(restrictions), std::move(keep), seed,
                           std::move(on_result),  std::move(strategy_object), std::string(), {},
                           std::string()};
  };
  m.def(
      "simulate",
      [common](std::string cache_path, std::string strategy, std::vector<std::string> settings,
               std::optional<std::uint64_t> max_fevals, std::optional<double> time_limit,
               std::vector<std::string> objectives, std::vector<std::string> restrictions,
               std::vector<std::string> derived, py::object keep, std::uint64_t seed, py::object on_result,
               py::object strategy_object, std::string store, std::vector<std::string> transfer,
               std::string wisdom, std::optional<int> dashboard, bool avoid_failures, py::object start) {
        auto arguments = common(std::move(strategy), std::move(settings), max_fevals, time_limit,
                                std::move(objectives), std::move(restrictions), std::move(keep), seed,
                                std::move(on_result), std::move(strategy_object));
        arguments.store = std::move(store);
        arguments.transfer = std::move(transfer);
        arguments.wisdom = std::move(wisdom);
        arguments.dashboard = dashboard;
        arguments.avoid_failures = avoid_failures;
        arguments.start = std::move(start);
        return simulate(std::move(cache_path), std::move(derived), arguments);
      },
      py::arg("cache_path"), py::arg("strategy"), py::arg("settings"), py::arg("max_fevals"), py::arg("time_limit"),
      py::arg("objectives"), py::arg("restrictions"), py::arg("derived"), py::arg("keep"), py::arg("seed"),
      py::arg("on_result") = py::none(), py::arg("strategy_object") = py::none(), py::arg("store") = "",
      py::arg("transfer") = std::vector<std::string>{}, py::arg("wisdom") = "", py::arg("dashboard") = py::none(),
      py::arg("avoid_failures") = false, py::arg("start") = py::none(),
      "Replays a brute-forced Kernel Tuner cache or T4 file with a strategy. Returns {parameters, results, env, "
      "best, pareto_front, messages}.");
  m.def(
      "tune_live",
      [common](std::string name, py::list tune_params, py::dict kernel, py::object verify, std::string cache_path,
               bool isolate, std::string strategy, std::vector<std::string> settings,
               std::optional<std::uint64_t> max_fevals, std::optional<double> time_limit,
               std::vector<std::string> objectives, std::vector<std::string> restrictions, py::object keep,
               std::uint64_t seed, py::object on_result, py::object strategy_object, std::size_t compile_workers,
               std::vector<int> devices, bool all_devices, std::size_t pending, std::string store,
               std::vector<std::string> transfer, std::string wisdom, std::size_t confirm_top,
               std::optional<int> dashboard, bool avoid_failures, py::object start) {
        auto arguments = common(std::move(strategy), std::move(settings), max_fevals, time_limit,
                                std::move(objectives), std::move(restrictions), std::move(keep), seed,
                                std::move(on_result), std::move(strategy_object));
        arguments.store = std::move(store);
        arguments.transfer = std::move(transfer);
        arguments.wisdom = std::move(wisdom);
        arguments.confirm_top = confirm_top;
        arguments.dashboard = dashboard;
        arguments.avoid_failures = avoid_failures;
        arguments.start = std::move(start);
        return tune_live(name, tune_params, kernel, std::move(verify), cache_path, isolate, arguments,
                         compile_workers, std::move(devices), all_devices, pending);
      },
      py::arg("name"), py::arg("tune_params"), py::arg("kernel"), py::arg("verify"), py::arg("cache_path"),
      py::arg("isolate"), py::arg("strategy"), py::arg("settings"), py::arg("max_fevals"), py::arg("time_limit"),
      py::arg("objectives"), py::arg("restrictions"), py::arg("keep"), py::arg("seed"), py::arg("on_result") = py::none(),
      py::arg("strategy_object") = py::none(), py::arg("compile_workers") = 0,
      py::arg("devices") = std::vector<int>{}, py::arg("all_devices") = false, py::arg("pending") = 0,
      py::arg("store") = "", py::arg("transfer") = std::vector<std::string>{}, py::arg("wisdom") = "",
      py::arg("confirm_top") = 0, py::arg("dashboard") = py::none(), py::arg("avoid_failures") = false,
      py::arg("start") = py::none(), "Tunes a kernel given in memory, live. Returns what simulate returns.");
  m.def(
      "report",
      [](std::vector<std::string> results, std::string html, std::vector<std::string> objectives, std::size_t top,
         std::string title) {
        ReportRequest request;
        request.inputs = std::move(results);
        request.html_dir = std::move(html);
        request.objectives = std::move(objectives);
        request.top = top;
        request.title = std::move(title);
        ReportResult result;
        {
          py::gil_scoped_release release;
          result = run_report(request);
        }
        return py::module_::import("json").attr("loads")(report_result_json(result).dump());
      },
      py::arg("results"), py::arg("html"), py::arg("objectives"), py::arg("top"), py::arg("title"),
      "Writes the report pages of results files (ktune report --html). Returns {pages, items}.");

  m.def("write_t4", &write_t4, py::arg("path"), py::arg("tune_params"), py::arg("results"), py::arg("objectives"),
        "Writes result dicts as a T4 results file.");
  m.def("t4_text", &t4_text, py::arg("tune_params"), py::arg("results"), py::arg("objectives"),
        "Result dicts as the text of a T4 results file.");
  m.def(
      "tune_files",
      [common](std::string problem_path, std::string simulate_path, std::string cache_path,
               std::optional<std::string> iterations, std::optional<int> device, std::string strategy,
               std::vector<std::string> settings, std::optional<std::uint64_t> max_fevals,
               std::optional<double> time_limit, std::vector<std::string> objectives, std::uint64_t seed,
               py::object strategy_object, py::object start) {
        auto arguments = common(std::move(strategy), std::move(settings), max_fevals, time_limit,
                                std::move(objectives), {}, py::none(), seed, py::none(), std::move(strategy_object));
        arguments.start = std::move(start);
        return tune_files(std::move(problem_path), std::move(simulate_path), std::move(cache_path), iterations, device,
                          arguments);
      },
      py::arg("problem_path"), py::arg("simulate_path"), py::arg("cache_path"), py::arg("iterations"),
      py::arg("device"), py::arg("strategy"), py::arg("settings"), py::arg("max_fevals"), py::arg("time_limit"),
      py::arg("objectives"), py::arg("seed"), py::arg("strategy_object") = py::none(), py::arg("start") = py::none(),
      "A run of a T1 file, live or replaying a results file.");
  m.def(
      "observer_unavailable",
      [](const std::string& name) {
        std::string why_not;
        return live::make_observer(name, {}, why_not) ? std::string() : why_not;
      },
      py::arg("name"), "Why the library's observer NAME cannot observe on this machine (\"\" when it can).");
  m.def("run_kernel", &run_kernel, py::arg("name"), py::arg("params"), py::arg("kernel"),
        "Runs one configuration once; every argument after the run (bytes, None for scalars).");
  m.def("kernel_device_name", &kernel_device_name, py::arg("name"), py::arg("params"), py::arg("kernel"),
        "The name of the device the kernel runs on, as tuning records it.");

  py::class_<PythonCostFunc>(m, "CostFunc", "Kernel Tuner's cost function as a custom optimiser calls it")
      .def("__call__", &PythonCostFunc::operator(), py::arg("x"))
      .def_property_readonly("budget_spent_fraction",
                             [](const PythonCostFunc& f) { return f.cost->budget_spent_fraction(); })
      .def_property_readonly("evaluations", [](const PythonCostFunc& f) { return f.cost->evaluations(); });
  py::class_<PythonSearchSpace>(m, "Searchspace", "the valid configurations, as a custom optimiser sees them")
      .def_property_readonly("size", [](const PythonSearchSpace& s) { return s.space->size(); })
      .def_property_readonly("num_params", [](const PythonSearchSpace& s) { return s.space->num_params(); })
      .def("__len__", [](const PythonSearchSpace& s) { return s.space->size(); })
      .def_property_readonly("param_names",
                             [](const PythonSearchSpace& s) { return parameter_names(s.space->problem()); })
      .def_property_readonly("tune_params",
                             [](const PythonSearchSpace& s) {
                               py::dict d;
                               for (const auto& p : s.space->problem().parameters) {
                                 py::list values;
                                 for (const Value& v : p.values) values.append(to_python(v));
                                 d[py::str(p.name)] = values;
                               }
                               return d;
                             })
      .def_property_readonly("params_values",
                             [](const PythonSearchSpace& s) {
                               py::list out;
                               for (const auto& p : s.space->problem().parameters) {
                                 py::tuple values(p.values.size());
                                 for (std::size_t i = 0; i < p.values.size(); ++i) values[i] = to_python(p.values[i]);
                                 out.append(values);
                               }
                               return py::tuple(out);
                             })
      .def_property_readonly("list",
                             [](PythonSearchSpace& s) {
                               if (py::len(s.list_cache) != s.space->size()) {  // not made yet (or emptied by the caller)
                                 s.list_cache = py::list();
                                 for (std::size_t i = 0; i < s.space->size(); ++i) s.list_cache.append(s.values(i));
                               }
                               return s.list_cache;
                             })
      .def("get_list_dict",
           [](const PythonSearchSpace& s) {
             py::dict out;  // configuration -> its position in `list`
             for (std::size_t i = 0; i < s.space->size(); ++i) out[s.values(i)] = i;
             return out;
           })
      .def(
          "get_param_configs_at_indices",
          [](const PythonSearchSpace& s, const std::vector<std::size_t>& indices) {
            for (std::size_t i : indices)
              if (i >= s.space->size())
                throw py::index_error("configuration index " + std::to_string(i) + " is beyond the " +
                                      std::to_string(s.space->size()) + " configurations");
            return s.tuples(indices);
          },
          py::arg("indices"))
      .def(
          "get_param_indices",
          [](const PythonSearchSpace& s, const py::sequence& x) {
            const auto config = s.config_of(x);
            if (!config) throw py::value_error("not a valid configuration of this search space");
            return py::tuple(py::cast(std::vector<std::uint32_t>(config->begin(), config->end())));
          },
          py::arg("param_config"), "each parameter's position in its list of values")
      .def(
          "get_random_sample_indices",
          [](const PythonSearchSpace& s, std::size_t n) {
            return s.space->random_sample(std::min(n, s.space->size()), *s.rng);
          },
          py::arg("num_samples"), "positions in `list` of distinct valid configurations, as get_random_sample draws")
      .def("is_param_config_valid",
           [](const PythonSearchSpace& s, const py::sequence& x) { return s.config_of(x).has_value(); },
           py::arg("param_config"))
      .def(
          "get_random_sample",
          [](const PythonSearchSpace& s, std::size_t n) {
            return s.tuples(s.space->random_sample(std::min(n, s.space->size()), *s.rng));
          },
          py::arg("num_samples"), "distinct valid configurations, uniformly at random from the job's seeded generator")
      .def(
          "get_neighbors",
          [](const PythonSearchSpace& s, const py::sequence& x, const std::optional<std::string>& method) {
            const auto m = parse_neighbour_method(method.value_or("Hamming"));
            if (!m) throw py::value_error("unknown neighbor_method '" + *method + "'");
            const auto config = s.config_of(x);
            if (!config) {  // an invalid configuration still has valid neighbours: by its value indices
              std::vector<std::uint32_t> indices;
              std::size_t p = 0;
              for (const py::handle item : x) {
                const auto& values = s.space->param_values(p++);
                const Value wanted = from_python(item);
                const auto it = std::find_if(values.begin(), values.end(),
                                             [&](const Value& v) { return python_equal(v, wanted); });
                indices.push_back(it == values.end() ? UINT32_MAX : static_cast<std::uint32_t>(it - values.begin()));
              }
              return s.tuples(s.space->neighbours(indices, *m));
            }
            return s.tuples(s.space->neighbours(*config, *m));
          },
          py::arg("param_config"), py::arg("neighbor_method") = py::none());

  m.def(
      "default_strategy",
      [](std::optional<std::uint64_t> max_fevals, std::optional<double> time_limit) {
        Budget budget;
        budget.max_evaluations = max_fevals;
        budget.time_limit_seconds = time_limit;
        return default_strategy(budget);
      },
      py::arg("max_fevals"), py::arg("time_limit"),
      "The strategy a run without one uses: auto with a budget, else brute_force.");
  add_integration_functions(m);
  m.def("strategy_names", [] {
    std::vector<std::string> names;
    for (const auto& info : strategy_registry()) names.push_back(info.name);
    return names;
  });
  m.def("strategy_options", [](const std::string& name) {
    // Kernel Tuner's _options of a strategy module: name -> (description, default).
    const StrategyInfo* info = find_strategy(name);
    if (!info) throw py::value_error("unknown strategy '" + name + "'");
    py::dict options;
    for (const auto& spec : info->hyperparameters)
      options[py::str(spec.name)] = py::make_tuple(spec.description, to_python(spec.default_value));
    return options;
  });
  m.def("strategy_hyperparameters", [](const std::string& name) {
    const StrategyInfo* info = find_strategy(name);
    if (!info) throw py::value_error("unknown strategy '" + name + "'");
    std::vector<std::string> names;
    for (const auto& spec : info->hyperparameters) names.push_back(spec.name);
    return names;
  });
}
