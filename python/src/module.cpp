// ktune._ktune: the native half of the Python module. It only translates: Python arguments into the library's job
// requests, and the jobs' records into the result dicts Kernel Tuner returns. The Kernel Tuner-shaped API itself
// (tune_kernel, tune_cache, ...) is Python, in python/ktune/.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <csignal>
#include <cmath>
#include <fstream>
#include <sstream>
#include <set>
#include <memory>
#include <stdexcept>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ktune/evaluation_record.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/live/element_type.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/status.hpp"
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
  py::object on_result;  // None, or callable(result dict) for each new result while the job runs
};

void apply(const CommonArguments& a, TuneRequest& request) {
  request.strategy = a.strategy;
  request.settings = a.settings;
  request.budget.max_evaluations = a.max_fevals;
  request.budget.time_limit_seconds = a.time_limit;
  request.objectives = a.objectives;
  request.restrictions = a.restrictions;
  request.seed = a.seed;
  if (!a.keep.is_none()) {
    // Called from the job, which runs without the GIL: every call takes it. A Python exception becomes the job's
    // refusal with Python's message, formatted while the GIL is held.
    request.keep = [keep = keep_alive(a.keep)](const Problem& problem, const std::vector<Value>& values) {
      py::gil_scoped_acquire gil;
      py::dict params;
      for (std::size_t p = 0; p < values.size(); ++p) params[py::str(problem.parameters[p].name)] = to_python(values[p]);
      try {
        return static_cast<bool>(py::bool_((*keep)(params)));
      } catch (py::error_already_set& e) {
        throw std::runtime_error(std::string("a restriction raised ") + e.what());
      }
    };
  }
}

// Sees every evaluation while the job runs: a Ctrl-C pressed meanwhile (Python only notes it while C++ runs)
// becomes a stop request, so the job ends with what it measured; each new result goes to `on_result`, if given (the
// Python layer prints it as Kernel Tuner's logs do).
class PythonListener final : public TuningListener {
 public:
  PythonListener(const TuneJob& job, py::object on_result) : job_(job), on_result_(std::move(on_result)) {}
  void on_evaluation(const CostFunction& cost, std::size_t position) override {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      request_stop(SIGINT);
    }
    const TraceEntry& entry = cost.trace()[position];
    if (on_result_.is_none() || entry.resumed) return;
    try {
      on_result_(result_dict(job_.space().problem(), job_.evaluator().record(entry.index)));
    } catch (py::error_already_set& e) {
      PyErr_WarnEx(PyExc_RuntimeWarning, (std::string("printing a result failed: ") + e.what()).c_str(), 1);
    }
  }

 private:
  const TuneJob& job_;
  py::object on_result_;
};

// Runs the job without the GIL and returns {parameters, results, env, best, pareto_front, messages}.
py::dict run_job(TuneRequest request, py::object on_result) {
  std::vector<std::string> messages;
  request.on_message = [&messages](JobMessageLevel, const std::string& text) { messages.push_back(text); };
  std::optional<TuneJob> job;
  std::optional<TuneOutcome> outcome;
  std::optional<PythonListener> listener;
  {
    py::gil_scoped_release release;  // Python is only called back through keep_alive'd objects, which take the GIL
    job.emplace(std::move(request));
    {
      py::gil_scoped_acquire gil;
      listener.emplace(*job, std::move(on_result));
    }
    outcome.emplace(job->run({&*listener}));
  }
  const bool interrupted = outcome->result.stop_reason == StopReason::interrupted;
  if (interrupted) clear_stop_request();  // the next run in this interpreter starts afresh
  const Problem& problem = job->space().problem();
  py::list results;
  for (const EvaluationRecord& record : outcome->records) results.append(result_dict(problem, record));

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
  env["search_space_size"] = job->space().size();
  env["ktune_version"] = std::string(kVersionString);

  py::dict out;
  py::list parameters;
  for (const auto& p : problem.parameters) parameters.append(p.name);
  out["parameters"] = std::move(parameters);
  out["results"] = std::move(results);
  out["env"] = std::move(env);
  out["best"] = outcome->best ? py::object(py::int_(*outcome->best)) : py::object(py::none());
  py::list front;
  for (std::size_t i : outcome->pareto_front) front.append(i);
  out["pareto_front"] = std::move(front);
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
  apply(common, request);
  return run_job(std::move(request), common.on_result);
}

std::vector<std::string> strings(const py::handle& list) {
  std::vector<std::string> out;
  for (const py::handle item : list) out.push_back(py::str(item));
  return out;
}

// A live run of a kernel given in memory. `kernel` is the normalised form the Python layer makes of tune_kernel's
// arguments (python/ktune/live.py); `verify`, if not None, gets the arguments after a run (bytes for arrays, None
// for scalars) and returns "" when the output is right, else why not.
py::dict tune_live(const std::string& name, const py::list& tune_params, const py::dict& kernel, py::object verify,
                   const std::string& cache_path, bool isolate, const CommonArguments& common) {
  TuneRequest request;
  Problem& problem = request.problem.emplace();
  problem.name = name;
  problem.parameters = parameters_from_python(tune_params);
  problem.block_size_names = strings(kernel["block_size_names"]);

  live::KernelSpecification& spec = request.kernel.emplace();
  spec.backend = kernel["backend"].cast<std::string>();
  spec.kernel_name = kernel["kernel_name"].cast<std::string>();
  spec.kernel_code = kernel["kernel_code"].cast<std::string>();
  spec.kernel_file = kernel["kernel_file"].cast<std::string>();
  spec.compiler_options = strings(kernel["compiler_options"]);
  const auto problem_size = strings(kernel["problem_size"]);
  for (std::size_t d = 0; d < 3 && d < problem_size.size(); ++d) spec.problem_size[d] = problem_size[d];
  spec.block_size_names = problem.block_size_names;
  const auto grid_div = kernel["grid_div"].cast<py::list>();
  for (std::size_t d = 0; d < 3; ++d) spec.grid_div[d] = strings(grid_div[d]);
  spec.iterations = kernel["iterations"].cast<int>();
  spec.backend_options.device = kernel["device"].cast<int>();
  spec.backend_options.platform = kernel["platform"].cast<int>();
  spec.backend_options.compiler = kernel["compiler"].cast<std::string>();
  for (const py::handle m : kernel["metrics"]) {
    const auto pair = m.cast<py::tuple>();
    spec.metrics.push_back({pair[0].cast<std::string>(), pair[1].cast<std::string>(), ""});
  }
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
      const std::string bytes = d["data"].cast<std::string>();  // one copy of the array, shared by every run
      const auto* begin = reinterpret_cast<const std::byte*>(bytes.data());
      arg.fill = live::Fill::data;
      arg.data = std::make_shared<const std::vector<std::byte>>(begin, begin + bytes.size());
      arg.size = std::to_string(d["count"].cast<std::uint64_t>());
    }
    spec.arguments.push_back(std::move(arg));
  }
  if (!verify.is_none()) {
    spec.verification.kind = live::Verification::Kind::callback;
    spec.verification.callback = [verify = keep_alive(std::move(verify))](std::span<const live::KernelArgument> after) {
      py::gil_scoped_acquire gil;
      py::list outputs;
      for (const auto& arg : after) {
        if (arg.scalar || arg.local_memory) outputs.append(py::none());
        else outputs.append(py::bytes(reinterpret_cast<const char*>(arg.bytes.data()), arg.bytes.size()));
      }
      try {
        return (*verify)(outputs).cast<std::string>();
      } catch (py::error_already_set& e) {
        return std::string("verification raised ") + e.what();
      }
    };
  }
  request.cache_path = cache_path;
  request.live.isolate = isolate;
  apply(common, request);
  return run_job(std::move(request), common.on_result);
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
  std::ofstream out(path, std::ios::binary);
  if (!out) throw py::value_error("cannot write " + path);
  write_t4_results(out, tune_params, results, objectives);
  if (!out.flush()) throw py::value_error("cannot write " + path);
}

std::string t4_text(const py::list& tune_params, const py::list& results, const std::vector<std::string>& objectives) {
  std::ostringstream out;
  write_t4_results(out, tune_params, results, objectives);
  return out.str();
}

// A run described by files, as `ktune tune` takes them: a T1 problem (live, or the space of a simulation) and a
// results file to replay.
py::dict tune_files(std::string problem_path, std::string simulate_path, std::string cache_path,
                    std::optional<int> iterations, std::optional<int> device, const CommonArguments& common) {
  TuneRequest request;
  request.problem_path = std::move(problem_path);
  request.simulate_path = std::move(simulate_path);
  request.cache_path = std::move(cache_path);
  request.live.iterations = iterations;
  request.live.device = device;
  apply(common, request);
  return run_job(std::move(request), common.on_result);
}

}  // namespace

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
                         std::uint64_t seed, py::object on_result) {
    return CommonArguments{std::move(strategy),   std::move(settings),     max_fevals,      time_limit,
                           std::move(objectives), std::move(restrictions), std::move(keep), seed,
                           std::move(on_result)};
  };
  m.def(
      "simulate",
      [common](std::string cache_path, std::string strategy, std::vector<std::string> settings,
               std::optional<std::uint64_t> max_fevals, std::optional<double> time_limit,
               std::vector<std::string> objectives, std::vector<std::string> restrictions,
               std::vector<std::string> derived, py::object keep, std::uint64_t seed, py::object on_result) {
        return simulate(std::move(cache_path), std::move(derived),
                        common(std::move(strategy), std::move(settings), max_fevals, time_limit, std::move(objectives),
                               std::move(restrictions), std::move(keep), seed, std::move(on_result)));
      },
      py::arg("cache_path"), py::arg("strategy"), py::arg("settings"), py::arg("max_fevals"), py::arg("time_limit"),
      py::arg("objectives"), py::arg("restrictions"), py::arg("derived"), py::arg("keep"), py::arg("seed"),
      py::arg("on_result") = py::none(),
      "Replays a brute-forced Kernel Tuner cache or T4 file with a strategy. Returns {parameters, results, env, "
      "best, pareto_front, messages}.");
  m.def(
      "tune_live",
      [common](std::string name, py::list tune_params, py::dict kernel, py::object verify, std::string cache_path,
               bool isolate, std::string strategy, std::vector<std::string> settings,
               std::optional<std::uint64_t> max_fevals, std::optional<double> time_limit,
               std::vector<std::string> objectives, std::vector<std::string> restrictions, py::object keep,
               std::uint64_t seed, py::object on_result) {
        return tune_live(name, tune_params, kernel, std::move(verify), cache_path, isolate,
                         common(std::move(strategy), std::move(settings), max_fevals, time_limit, std::move(objectives),
                                std::move(restrictions), std::move(keep), seed, std::move(on_result)));
      },
      py::arg("name"), py::arg("tune_params"), py::arg("kernel"), py::arg("verify"), py::arg("cache_path"),
      py::arg("isolate"), py::arg("strategy"), py::arg("settings"), py::arg("max_fevals"), py::arg("time_limit"),
      py::arg("objectives"), py::arg("restrictions"), py::arg("keep"), py::arg("seed"), py::arg("on_result") = py::none(),
      "Tunes a kernel given in memory, live. Returns what simulate returns.");

  m.def("write_t4", &write_t4, py::arg("path"), py::arg("tune_params"), py::arg("results"), py::arg("objectives"),
        "Writes result dicts as a T4 results file.");
  m.def("t4_text", &t4_text, py::arg("tune_params"), py::arg("results"), py::arg("objectives"),
        "Result dicts as the text of a T4 results file.");
  m.def(
      "tune_files",
      [common](std::string problem_path, std::string simulate_path, std::string cache_path,
               std::optional<int> iterations, std::optional<int> device, std::string strategy,
               std::vector<std::string> settings, std::optional<std::uint64_t> max_fevals,
               std::optional<double> time_limit, std::vector<std::string> objectives, std::uint64_t seed) {
        return tune_files(std::move(problem_path), std::move(simulate_path), std::move(cache_path), iterations, device,
                          common(std::move(strategy), std::move(settings), max_fevals, time_limit,
                                 std::move(objectives), {}, py::none(), seed, py::none()));
      },
      py::arg("problem_path"), py::arg("simulate_path"), py::arg("cache_path"), py::arg("iterations"),
      py::arg("device"), py::arg("strategy"), py::arg("settings"), py::arg("max_fevals"), py::arg("time_limit"),
      py::arg("objectives"), py::arg("seed"), "A run of a T1 file, live or replaying a results file.");
  m.def("strategy_names", [] {
    std::vector<std::string> names;
    for (const auto& info : strategy_registry()) names.push_back(info.name);
    return names;
  });
  m.def("strategy_hyperparameters", [](const std::string& name) {
    const StrategyInfo* info = find_strategy(name);
    if (!info) throw py::value_error("unknown strategy '" + name + "'");
    std::vector<std::string> names;
    for (const auto& spec : info->hyperparameters) names.push_back(spec.name);
    return names;
  });
}
