// ktune._ktune: the native half of the Python module. It only translates: Python arguments into the library's job
// requests, and the jobs' records into the result dicts Kernel Tuner returns. The Kernel Tuner-shaped API itself
// (tune_kernel, tune_cache, ...) is Python, in python/ktune/.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "ktune/evaluation_record.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/status.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/strategy.hpp"
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

struct SimulationArguments {
  std::string cache_path;
  std::string strategy;
  std::vector<std::string> settings;
  std::optional<std::uint64_t> max_fevals;
  std::optional<double> time_limit;
  std::vector<std::string> objectives;
  std::vector<std::string> restrictions;
  std::vector<std::string> derived;
  py::object keep;  // None, or callable(dict of parameter values) -> bool: Kernel Tuner's callable restrictions
  std::uint64_t seed;
};

// Replays a brute-forced cache (or T4) file with a strategy: Kernel Tuner's simulation mode.
py::dict simulate(const SimulationArguments& a) {
  TuneRequest request;
  request.simulate_path = a.cache_path;
  request.strategy = a.strategy;
  request.settings = a.settings;
  request.budget.max_evaluations = a.max_fevals;
  request.budget.time_limit_seconds = a.time_limit;
  request.objectives = a.objectives;
  request.restrictions = a.restrictions;
  request.derived = a.derived;
  if (!a.keep.is_none()) {
    // Called from the job, which runs without the GIL: every touch of the callable takes it, its last reference
    // included (the request may die inside the job). A Python exception becomes the job's refusal with Python's
    // message, formatted while the GIL is held.
    std::shared_ptr<py::object> keep(new py::object(a.keep), [](py::object* o) {
      py::gil_scoped_acquire gil;
      delete o;
    });
    request.keep = [keep](const Problem& problem, const std::vector<Value>& values) {
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
  request.seed = a.seed;
  std::vector<std::string> messages;
  request.on_message = [&messages](JobMessageLevel, const std::string& text) { messages.push_back(text); };

  std::optional<TuneJob> job;
  std::optional<TuneOutcome> outcome;
  {
    py::gil_scoped_release release;  // the job touches no Python object
    job.emplace(std::move(request));
    outcome.emplace(job->run());
  }
  const Problem& problem = job->space().problem();
  py::list results;
  for (const EvaluationRecord& record : outcome->records) results.append(result_dict(problem, record));

  double simulated_ms = 0;
  for (const EvaluationRecord& record : outcome->records)
    simulated_ms += record.compile_ms + record.verification_ms + record.benchmark_ms;
  py::dict env;
  env["device_name"] = job->evaluator().device_name();
  env["kernel_name"] = job->evaluator().kernel_name();
  env["simulation"] = true;
  env["simulated_time"] = simulated_ms;
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
  return out;
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

  m.def(
      "simulate",
      [](std::string cache_path, std::string strategy, std::vector<std::string> settings,
         std::optional<std::uint64_t> max_fevals, std::optional<double> time_limit, std::vector<std::string> objectives,
         std::vector<std::string> restrictions, std::vector<std::string> derived, py::object keep,
         std::uint64_t seed) {
        return simulate({std::move(cache_path), std::move(strategy), std::move(settings), max_fevals, time_limit,
                         std::move(objectives), std::move(restrictions), std::move(derived), std::move(keep), seed});
      },
      py::arg("cache_path"), py::arg("strategy"), py::arg("settings"), py::arg("max_fevals"), py::arg("time_limit"),
      py::arg("objectives"), py::arg("restrictions"), py::arg("derived"), py::arg("keep"), py::arg("seed"),
      "Replays a brute-forced Kernel Tuner cache or T4 file with a strategy. Returns {parameters, results, env, "
      "best, pareto_front, messages}.");

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
