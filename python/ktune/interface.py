"""Kernel Tuner's public entry points (``tune_kernel``, ``tune_cache``) over ktune's tuning jobs.

Arguments are translated into a job request for the C++ library and the job's records come back as Kernel Tuner's
result dicts; no tuning rule lives here.
"""
import json
import math
import numbers
import operator
import os
import warnings
from time import perf_counter

import numpy

from ktune import _ktune, live
from ktune.util import config_output_string, error_config, get_config_string

# Kernel Tuner's objective_default_map: objectives whose direction need not be given.
_HIGHER_IS_BETTER = {
    "time": False, "energy": False, "cost": False, "loss": False,
    "fitness": True, "GFLOP/s": True, "TFLOP/s": True, "GB/s": True, "TB/s": True,
    "GFLOPS/W": True, "TFLOPS/W": True, "GFLOP/J": True, "TFLOP/J": True,
}

# strategy_options keys that are neither the budget nor a strategy's hyperparameters (Kernel Tuner's own).
_IGNORED_OPTIONS = ("searchspace_construction_options",)

# Kernel Tuner's strategy_map: every strategy tune_kernel runs by name (ktune's, and pyatf_strategies, Kernel Tuner's
# name for pyATF's techniques), as ktune.strategies.NAME gives it; each has Kernel Tuner's `_options` (its options,
# with their descriptions and defaults). Kernel Tuner's skopt (scikit-optimize, not in Debian) is not among them.
def _strategy_map():
    from ktune.strategies import RegisteredStrategy
    return {name: RegisteredStrategy(name) for name in list(_ktune.strategy_names()) + ["pyatf_strategies"]}


strategy_map = _strategy_map()

# Kernel Tuner's strategies that refuse a starting point (strategy_options['x0']) with a ValueError; the others
# evaluate it first.
_NO_STARTING_POINT = ("brute_force", "random_sample", "bayes_opt", "pyatf_strategies", "adaptive_tabu_greywolf",
                      "hybrid_vndx", "nsga2", "nsga3")

_INT64 = (-2**63, 2**63 - 1)

# Kernel Tuner's pyatf_strategies runs the pyATF technique named by strategy_options['searchtechnique']: pyATF's own
# simulated annealing and differential evolution are ktune's pyatf_* strategies, the others have the same names.
_PYATF_TECHNIQUES = {"simulated_annealing": "pyatf_simulated_annealing",
                     "differential_evolution": "pyatf_differential_evolution", "pattern_search": "pattern_search",
                     "torczon": "torczon", "auc_bandit": "auc_bandit", "round_robin": "round_robin"}


def _integer(value, what, low, high):
    """An integer argument in [low, high] (numpy integers too), or TypeError/ValueError naming it."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, not {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {value!r}") from None
    if not low <= value <= high:
        raise ValueError(f"{what} must be an integer from {low} to {high}, not {value}")
    return value


def _iterations(value):
    """iterations as the job takes it: a whole number of timed runs (Kernel Tuner's 7 by default) or "auto" /
    "auto:min=3,max=31,precision=0.02,reject=1" (adaptive repetition, docs/live-tuning.md), as text."""
    if isinstance(value, str):
        if value == "auto" or value.startswith("auto:"):
            return value  # the settings are checked by the job, which names what is wrong
        raise ValueError(f"iterations must be an integer or 'auto', not {value!r}")
    return str(_integer(value, "iterations", 1, 2**31 - 1))


def _check_tune_params(tune_params):
    """tune_params as the job takes them: a dict of name -> non-empty list of values (numbers, bools, strings); an
    integer must fit in 64 bits, as the job holds it."""
    if not isinstance(tune_params, dict) or not tune_params:
        raise ValueError("tune_params must be a non-empty dict of parameter name -> list of values")
    for name, values in tune_params.items():
        if not isinstance(name, str):
            raise TypeError(f"tune_params: parameter name {name!r} is not a str")
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
            raise TypeError(f"tune_params['{name}'] must be a list of values, not {type(values).__name__}")
        values = list(values)
        if not values:
            raise ValueError(f"tune_params['{name}'] has no values: nothing could be tuned")
        for value in values:
            if hasattr(value, "item") and not isinstance(value, (str, bytes)):
                value = value.item()  # numpy scalars
            if isinstance(value, numbers.Integral) and not isinstance(value, bool) and \
                    not _INT64[0] <= value <= _INT64[1]:
                raise ValueError(f"tune_params['{name}'] holds {value}, which does not fit in 64 bits (integers from "
                                 "-2**63 to 2**63-1 can be tuned)")


def _refuse_an_empty_space(out, restrictions, tune_params, source):
    """A run whose restrictions leave no configuration: ValueError naming them (Kernel Tuner cannot tune it either)."""
    if out["env"]["search_space_size"] != 0:
        return
    if tune_params is not None and restrictions is not None:
        combinations = math.prod(len(list(v)) for v in tune_params.values())
        raise ValueError(f"the restrictions exclude every one of the {combinations} configurations of tune_params "
                         f"({source}): nothing to tune")
    if restrictions is not None or tune_params is not None:
        given = "restrictions" if tune_params is None else "tune_params" if restrictions is None else \
            "restrictions and tune_params"
        raise ValueError(f"the {given} exclude every configuration of {source}: nothing to tune")
    raise ValueError(f"{source} has no configuration to tune")


def _objectives(objective, objective_higher_is_better, objectives):
    """Kernel Tuner's three ways of naming objectives, as ``NAME:min|max`` texts for the job."""
    if objectives is not None:
        if not isinstance(objectives, dict) or not objectives:
            raise ValueError("objectives must be a non-empty dict of objective name -> higher_is_better")
        names, directions = list(objectives.keys()), list(objectives.values())
    else:
        names = [objective or "time"] if not isinstance(objective, (list, tuple)) else list(objective)
        if objective_higher_is_better is None:
            directions = []
            for name in names:
                if name not in _HIGHER_IS_BETTER:
                    raise ValueError(f"objective '{name}' is not known, so objective_higher_is_better must be given")
                directions.append(_HIGHER_IS_BETTER[name])
        elif isinstance(objective_higher_is_better, (list, tuple)):
            directions = list(objective_higher_is_better)
        else:
            directions = [bool(objective_higher_is_better)] * len(names)
        if len(directions) != len(names):
            raise ValueError(f"{len(names)} objectives but {len(directions)} values of objective_higher_is_better")
    return [f"{name}:{'max' if higher else 'min'}" for name, higher in zip(names, directions)], names


def _python_literal(value):
    """A parameter value as our Python-syntax constraint language writes it."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalars
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    raise TypeError(f"tune_params value {value!r} of type {type(value).__name__} is not a number, bool or string")


def _restrictions(restrictions, tune_params):
    """Kernel Tuner's restrictions as constraint texts and callables: a string or a callable, or a list of them. A
    callable takes a dict of parameter values and returns whether the configuration is allowed. Each tune_params list
    becomes ``name in [...]`` (a script may tune a subset of the values a cache holds)."""
    texts, callables = [], []
    if restrictions is not None:
        if isinstance(restrictions, str) or callable(restrictions):
            restrictions = [restrictions]
        for r in restrictions:
            if isinstance(r, str):
                texts.append(r)
            elif callable(r):
                callables.append(r)
            else:
                raise TypeError(f"restriction {r!r} is neither a string nor a callable")
    for name, values in (tune_params or {}).items():
        texts.append(f"{name} in [{', '.join(_python_literal(v) for v in values)}]")
    keep = None
    if callables:
        def keep(params):
            return all(bool(f(params)) for f in callables)
    return texts, keep


def _split_metrics(metrics, objective_names):
    """Kernel Tuner's metrics: expressions become measurements the job derives from each record (so they can be
    objectives); callables are called on each successful result dict after the run, in order."""
    derived, computed = [], []
    for name, metric in (metrics or {}).items():
        if isinstance(metric, str):
            if computed:
                raise NotImplementedError(
                    f"metric '{name}' is an expression after a callable metric; ktune's Python module evaluates "
                    "expression metrics before callable ones, so put the expressions first")
            derived.append(f"{name}={metric}")
        elif callable(metric):
            if name in objective_names:
                raise NotImplementedError(
                    f"objective '{name}' is a callable metric; ktune's Python module computes callable metrics after "
                    "the run, so an objective must be an expression (a string)")
            computed.append((name, metric))
        else:
            raise TypeError(f"metric '{name}' must be an expression (str) or a callable, not {type(metric).__name__}")
    return derived, computed


def _strategy_object(strategy):
    """(name, native strategy object or None) of tune_kernel's ``strategy``: a name, ``ktune.strategies.NAME``, or a
    custom optimiser (``OptAlgWrapper(optimizer)``, or an OptAlg itself)."""
    from ktune.strategies import RegisteredStrategy
    from ktune.strategies.wrapper import OptAlg, OptAlgWrapper
    from ktune.util import StopCriterionReached
    if isinstance(strategy, str):
        return strategy, None
    if isinstance(strategy, RegisteredStrategy):
        return strategy.name, None
    if isinstance(strategy, OptAlg):
        strategy = OptAlgWrapper(strategy)
    if isinstance(strategy, OptAlgWrapper):
        return strategy.name, (strategy.optimizer, strategy.scaling, StopCriterionReached)
    raise NotImplementedError(
        f"strategy {strategy!r}: ktune runs strategies by name (a string or ktune.strategies.NAME) and custom "
        "optimisers through ktune.strategies.wrapper.OptAlgWrapper(optimizer); a strategy module's tune(searchspace, "
        "runner, tuning_options) uses Kernel Tuner's internals and cannot run here")


def _custom_search_method(path, class_name, options):
    """Kernel Tuner's ``custom_search_method_path``: the optimiser class named ``class_name`` (the strategy) from the
    Python file, made with the options as keyword arguments (all but ``seed``, which stays the run's; these options
    are then used up), wrapped for tuning. ``constraint_aware`` is taken and ignored: a ktune cost function hands a
    custom optimiser valid configurations only."""
    from ktune.file_utils import import_class_from_file
    from ktune.strategies.wrapper import OptAlgWrapper
    path = live.path_argument(path, "strategy_options['custom_search_method_path']")
    if not isinstance(class_name, str) or not class_name.isidentifier():
        raise ValueError(f"with custom_search_method_path, strategy must name the optimiser class in {path}, not "
                         f"{class_name!r}")
    optimizer_class = import_class_from_file(path, class_name)
    options.pop("constraint_aware", None)
    arguments = {k: v for k, v in options.items() if k != "seed"}
    for key in arguments:
        del options[key]
    return OptAlgWrapper(optimizer_class(**arguments))


def _start(x0, strategy, tune_params):
    """Kernel Tuner's strategy option ``x0``, the configuration the search starts from, as the job's list of start
    configurations: it is evaluated first (a dict by parameter name when the tunable parameters are known, else the
    values in the order of the cache's parameters). Kernel Tuner's strategies that take no starting point refuse it
    with ValueError, as there."""
    if x0 is None:
        return None
    name = strategy if isinstance(strategy, str) else getattr(strategy, "name", None)  # ktune.strategies.NAME too
    if name in _NO_STARTING_POINT:
        raise ValueError(f"strategy_options['x0']: Kernel Tuner's {name} takes no starting point")
    if not isinstance(x0, (list, tuple)):
        raise ValueError(f"strategy_options['x0'] must be a list of one value per tunable parameter, not {x0!r}")
    if tune_params is None:
        return [list(x0)]
    if len(x0) != len(tune_params):
        raise ValueError(f"strategy_options['x0'] has {len(x0)} values for the {len(tune_params)} tunable parameters "
                         f"({', '.join(tune_params)})")
    return [dict(zip(tune_params, x0))]


def _strategy_settings(strategy, strategy_options, seed=None):
    """The strategy's name (when None: auto with a budget, else brute_force), native object (custom optimisers),
    budget, hyperparameters and seed from ``strategy_options`` (the ``seed`` argument first, else the option, else 0);
    options the strategy does not have are ignored with a warning, as Kernel Tuner ignores them. ``x0`` is left for
    _start."""
    options = dict(strategy_options or {})
    options.pop("x0", None)
    max_fevals = options.pop("max_fevals", None)
    time_limit = options.pop("time_limit", None)
    if max_fevals is not None and (not isinstance(max_fevals, numbers.Integral) or max_fevals < 1):
        raise ValueError(f"strategy_options['max_fevals'] must be a positive integer, not {max_fevals!r}")
    if max_fevals is not None:
        max_fevals = min(int(max_fevals), 2**64 - 1)  # more than any space holds: no limit
    if time_limit is not None and (not isinstance(time_limit, numbers.Real) or not time_limit >= 0
                                   or not math.isfinite(time_limit)):
        raise ValueError(f"strategy_options['time_limit'] must be a positive number of seconds, not {time_limit!r}")
    if time_limit is not None and time_limit == 0:
        raise RuntimeError(_startup_exceeded(time_limit))
    custom_path = options.pop("custom_search_method_path", None)
    if custom_path is not None:
        strategy = _custom_search_method(custom_path, strategy, options)
    if strategy is None:
        strategy = _ktune.default_strategy(max_fevals, time_limit)
    strategy, strategy_object = _strategy_object(strategy)
    if strategy == "pyatf_strategies":
        technique = options.pop("searchtechnique", "simulated_annealing")
        options.pop("use_searchspace_cache", None)  # Kernel Tuner's cache of pyATF's search space: nothing to cache here
        if technique not in _PYATF_TECHNIQUES:
            raise ValueError(f"strategy_options['searchtechnique'] must be one of {', '.join(_PYATF_TECHNIQUES)}, "
                             f"not {technique!r}")
        strategy = _PYATF_TECHNIQUES[technique]
    option_seed = options.pop("seed", None)
    if seed is not None:
        seed = _integer(seed, "seed", 0, 2**64 - 1)
    elif option_seed is not None:
        seed = _integer(option_seed, "strategy_options['seed']", 0, 2**64 - 1)
    else:
        seed = 0
    # `set`: a published set of values (ktune strategies lists them), overridden by the options beside it.
    known = set() if strategy_object is not None else set(_ktune.strategy_hyperparameters(strategy)) | {"set"}
    settings = []
    for key, value in options.items():
        if key in _IGNORED_OPTIONS:
            continue
        if key not in known:
            warnings.warn(f"strategy '{strategy}' has no option '{key}'; ignored "
                          f"(its options: {', '.join(sorted(known)) or 'none'})", stacklevel=3)
            continue
        if key == "set":
            settings.insert(0, f"set={value}")  # first, so that the options beside it override it
        else:
            settings.append(f"{key}={value}")
    return strategy, settings, max_fevals, time_limit, int(seed), strategy_object


def _startup_exceeded(time_limit):
    # Kernel Tuner's words (its TuningBudget raises them; scripts and tests match "startup time of the tuning process").
    return (f"The startup time of the tuning process has exceeded the time limit of {time_limit:g} s: nothing was "
            f"evaluated; give a larger strategy_options['time_limit']")


def _refuse_a_run_the_time_limit_ended_before_it_began(out, time_limit):
    """Kernel Tuner raises RuntimeError when its time limit is spent before the first evaluation, rather than return
    no results; so does ktune (a run that resumed results from a cache or store returns them)."""
    if time_limit is not None and not out["results"] and out["env"].get("stop_reason") == "time limit":
        raise RuntimeError(_startup_exceeded(time_limit))


def _simulate(cache, strategy, strategy_options, restrictions, tune_params, objective, objective_higher_is_better,
              objectives, seed, verbose, quiet, metrics, store="", transfer=(), wisdom="", dashboard=None,
              avoid_failures=False, started=None):
    if cache is None:
        raise ValueError("simulation_mode needs a cache file (cache=...) to replay")
    path = live.path_argument(cache, "cache")
    if tune_params is not None:
        _check_tune_params(tune_params)
    if not os.path.exists(path) and os.path.exists(path + ".json"):
        path += ".json"  # Kernel Tuner appends .json to a cache name without it
    start = _start((strategy_options or {}).get("x0"), strategy, tune_params)
    strategy, settings, max_fevals, time_limit, seed, strategy_object = \
        _strategy_settings(strategy, strategy_options, seed)
    objective_texts, objective_names = _objectives(objective, objective_higher_is_better, objectives)
    derived, computed = _split_metrics(metrics, objective_names)
    texts, keep = _restrictions(restrictions, tune_params)
    out = _ktune.simulate(path, strategy, settings, max_fevals, time_limit, objective_texts, texts, derived, keep, seed,
                          None, strategy_object, store, list(transfer), wisdom, dashboard, avoid_failures, start)
    _refuse_an_empty_space(out, restrictions, tune_params, path)
    _refuse_a_run_the_time_limit_ended_before_it_began(out, time_limit)
    return _finish(out, computed, objective_names, verbose, quiet, live_run=False, started=started)


def _add_observer_extras(result, parameters, observers):
    key = tuple(result[name] for name in parameters)
    for observer in observers:
        result.update(observer.extras.get(key, {}))


_TIMINGS = ("framework_time", "strategy_time", "compile_time", "verification_time", "benchmark_time")


def _add_total_timings(results, env, started):
    """Kernel Tuner's env totals: each step's time summed over the results (ms), and ``overhead_time``, the rest of
    the time the call took (plus ``simulated_time`` in a replay, whose compile, verification and benchmark times are
    the recorded ones), so that the six add up to it. Not added where a result lacks a step's time, as in Kernel
    Tuner; a time a cache did not record (NaN) counts as 0."""
    if started is None or not all(key in r for r in results for key in _TIMINGS):
        return
    totals = {key: math.fsum(r[key] for r in results if isinstance(r[key], (int, float)) and math.isfinite(r[key]))
              for key in _TIMINGS}
    for key, total in totals.items():
        env["total_" + key] = total
    elapsed = 1000 * (perf_counter() - started) + env.get("simulated_time", 0.0)
    env["overhead_time"] = elapsed - math.fsum(totals.values())


def _finish(out, computed, objective_names, verbose, quiet, live_run, observers=(), started=None):
    """Kernel Tuner's results and env from a job's output, with the callable metrics and the observers' non-numeric
    values added, printed as Kernel Tuner prints them; ``started`` (perf_counter() when the call began) adds the
    totals of the steps' times (_add_total_timings)."""
    results, env = out["results"], out["env"]
    for message in out["messages"]:
        if not message.startswith("the live view: "):  # printed on stderr when it was opened
            warnings.warn(message, stacklevel=4)
    for result in results:
        _add_observer_extras(result, out["parameters"], observers)
        if "__error__" in result:
            result["__error__"] = error_config(result["__error__"])
        else:
            for name, metric in computed:  # in order: a metric may use those before it
                result[name] = metric(result)
    units = {"time": "ms"}
    shown = {name: None for name in out["parameters"]}
    if out["interrupted"]:
        warnings.warn(f"tuning was interrupted (Ctrl-C): returning the {len(results)} results measured so far",
                      stacklevel=4)
    if not quiet:
        if not live_run:
            print(f"Simulating: {env['device_name'] or env['kernel_name']}")
            if verbose:  # replayed results only when asked for, as Kernel Tuner
                for result in results:
                    print(config_output_string(shown, result, units=units))
    if out["best"] is not None:
        best = results[out["best"]]
        env["best_config"] = best
        if not quiet:
            print("best performing configuration:")
            print(get_config_string(best, list(shown) + objective_names, units))
    env["pareto_front"] = [results[i] for i in out["pareto_front"]]
    confirmed = []
    for item in out.get("confirmed", []):
        item = dict(item)
        item["result"] = results[item["result"]]
        confirmed.append(item)
    if confirmed:
        env["confirmed"] = confirmed
        if not quiet:
            print("confirmed (timed again, interleaved; tied = 95% intervals overlap):")
            for item in confirmed:
                if "failure" in item:
                    print(f"  failed: {item['failure']}")
                    continue
                tag = "winner" if item["winner"] else "tied" if item["tied_with_winner"] else "slower"
                low, high = item["interval"]
                print(f"  {tag:<6} {item['time']:.4g} ms [{low:.4g}, {high:.4g}] "
                      f"{get_config_string(item['result'], list(shown), units)}")
    _add_total_timings(results, env, started)
    return results, env


def tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params, grid_div_x=None, grid_div_y=None,
                grid_div_z=None, restrictions=None, answer=None, atol=1e-6, verify=None, verbose=False, lang=None,
                device=0, platform=0, smem_args=None, cmem_args=None, texmem_args=None, compiler=None,
                compiler_options=None, defines=None, log=None, iterations=7, block_size_names=None, quiet=False,
                strategy=None, strategy_options=None, cache=None, metrics=None, simulation_mode=False,
                observers=None, objective=None, objective_higher_is_better=None, objectives=None, seed=None,
                compile_workers=0, devices=None, pending=0, store=None, transfer=None, wisdom=None, confirm_top=0,
                dashboard=False, avoid_failures=False, parallel=None):
    """Kernel Tuner's tune_kernel: returns ``(results, env)``, a list of result dicts and the environment.

    Live (OpenCL, C/C++ and CUDA kernels, each configuration compiled, verified and benchmarked in a worker process),
    or replayed from a brute-forced cache with ``simulation_mode=True``. docs/python.md lists what is supported.
    ``compile_workers`` (ktune's own): processes that compile the strategy's next configurations while one is measured
    (docs/parallel.md). ``devices`` (ktune's own): measure on several devices of the platform at once, a list of
    device indices or ``"all"``; the strategy's batches are spread over them, with the results of one device.
    ``pending`` (ktune's own): a constant liar, so that a strategy that asks one configuration at a time keeps up to
    this many more measuring on the other devices. ``store`` (ktune's own): a results store file (docs/store.md;
    default: the environment's ``KTUNE_STORE``), resumed from and recorded into, shared with ``ktune tune --store``.
    ``transfer`` (ktune's own): results of this kernel measured elsewhere (Kernel Tuner caches, T4 files, results
    stores; a path or a list of paths) that the search starts from (docs/transfer.md), as ``ktune tune --transfer``.
    ``wisdom`` (ktune's own): a wisdom file the winner is added to for the application's runtime
    (docs/integration.md), as ``ktune tune --wisdom``.
    ``iterations`` may be ``"auto"`` (ktune's own): adaptive repetition, 3 to 31 runs per configuration until the time
    is known within 2% or the configuration is clearly slower than the best (docs/live-tuning.md); Kernel Tuner's
    default of 7 fixed runs stays the default here. ``confirm_top`` (ktune's own): time the best K again at the end,
    interleaved; ``env["confirmed"]`` lists them, the winner first, each with its interval and whether it is tied
    with the winner, and ``env["best_config"]`` is the confirmed winner, as ``ktune tune --confirm-top``.
    ``dashboard`` (ktune's own): ``True`` (any free port) or a port number: a live view of the run on
    http://127.0.0.1:PORT/ while it lasts, its address printed on stderr (docs/report.md), as ``ktune tune --dashboard``.
    ``avoid_failures`` (ktune's own): learned failure avoidance, as ``ktune tune --avoid-failures``: configurations
    that the run's failures (and, with ``transfer``, the sources' failures once they repeat here) predict to fail are
    deferred (docs/live-tuning.md); ``env["deferred"]`` counts the answers given without a measurement.
    ``parallel`` (Kernel Tuner 1.4's, else its environment's ``KERNEL_TUNER_PARALLEL``): ``True`` measures on every
    device of the platform at once, an integer N on the first N (``devices`` does the same, by index).
    """
    started = perf_counter()  # env's timing totals add up to the time from here (Kernel Tuner's overhead_time)
    devices = _parallel_devices(parallel, devices, simulation_mode)
    dashboard_port = _dashboard_port(dashboard)
    if not isinstance(avoid_failures, bool):
        raise TypeError(f"avoid_failures must be True or False, not {type(avoid_failures).__name__}")
    store_path = _store_path(store)
    transfer_paths = _transfer_paths(transfer)
    wisdom_path = "" if wisdom is None else live.path_argument(wisdom, "wisdom")
    if simulation_mode:
        return _simulate(cache, strategy, strategy_options, restrictions, tune_params, objective,
                         objective_higher_is_better, objectives, seed, verbose, quiet, metrics, store_path,
                         transfer_paths, wisdom_path, dashboard_port, avoid_failures, started)
    _refuse_unsupported(smem_args=smem_args, texmem_args=texmem_args)
    _check_tune_params(tune_params)
    for forbidden in ("grid_size_x", "grid_size_y", "grid_size_z", "time"):
        if forbidden in tune_params:
            raise ValueError(f"'{forbidden}' cannot be a tunable parameter (Kernel Tuner reserves the name)")
    kernel = _kernel(kernel_name, kernel_source, problem_size, arguments, grid_div_x, grid_div_y, grid_div_z, lang,
                     device, platform, compiler, compiler_options, defines, iterations, block_size_names)
    _constant_memory(cmem_args, kernel)
    start = _start((strategy_options or {}).get("x0"), strategy, tune_params)
    strategy, settings, max_fevals, time_limit, seed, strategy_object = \
        _strategy_settings(strategy, strategy_options, seed)
    objective_texts, objective_names = _objectives(objective, objective_higher_is_better, objectives)
    kernel["metrics"] = _live_metrics(metrics)
    adapters, output_observers, native, unasked = _observers(observers, device, platform, compiler,
                                                             lang or _KERNEL_TUNER_LANGUAGE[kernel["backend"]])
    kernel["observers"], kernel["native_observers"] = adapters, native
    texts, keep = _restrictions(restrictions, None)
    cache_path = ""
    if cache is not None:
        cache_path = live.path_argument(cache, "cache")
        if not cache_path.endswith(".json"):
            cache_path += ".json"  # as Kernel Tuner names its cache files
    device_list, all_devices = _devices(devices)
    printer = None if quiet else _ResultPrinter(tune_params, metrics, adapters)
    out = _ktune.tune_live(kernel_name, [(k, list(v)) for k, v in tune_params.items()], kernel,
                           live.output_check(arguments, answer, atol, verify, output_observers), cache_path, True,
                           strategy, settings, max_fevals, time_limit, objective_texts, texts, keep, seed, printer,
                           strategy_object, _integer(compile_workers, "compile_workers", 0, 2**16), device_list,
                           all_devices, _integer(pending, "pending", 0, 2**16), store_path, transfer_paths,
                           wisdom_path, _integer(confirm_top, "confirm_top", 0, 1000), dashboard_port,
                           avoid_failures, start)
    _refuse_an_empty_space(out, restrictions, tune_params, f"kernel {kernel_name}")
    _refuse_a_run_the_time_limit_ended_before_it_began(out, time_limit)
    results, env = _finish(out, [], objective_names, verbose, quiet, live_run=True, observers=adapters,
                           started=started)
    for result in results:  # as in Kernel Tuner, of the library's observers' measurements only those asked for
        for name in unasked:
            result.pop(name, None)
    return results, env


def _dashboard_port(dashboard):
    """tune_kernel's dashboard as the native job takes it: None (none), 0 (any free port) or the port."""
    if dashboard is None or dashboard is False:
        return None
    if dashboard is True:
        return 0
    return _integer(dashboard, "dashboard", 0, 65535)


def _transfer_paths(transfer):
    """The transfer sources as the native job takes them: a list of paths (none: empty)."""
    if transfer is None:
        return []
    if isinstance(transfer, (str, os.PathLike)):
        transfer = [transfer]
    try:
        items = list(transfer)
    except TypeError:
        raise TypeError(f"transfer must be a path or a list of paths, not {type(transfer).__name__}") from None
    return [live.path_argument(item, "transfer") for item in items]


def _store_path(store):
    """The results store as the native job takes it: the argument, else $KTUNE_STORE, else none ("")."""
    if store is None:
        return os.environ.get("KTUNE_STORE", "")
    return live.path_argument(store, "store")


def _parallel_devices(parallel, devices, simulation_mode):
    """``devices`` with Kernel Tuner's ``parallel`` (True: every device; N: the first N; None: True when the
    environment's KERNEL_TUNER_PARALLEL is set and not empty, as Kernel Tuner reads it) taken into it."""
    if parallel is None:
        parallel = bool(os.environ.get("KERNEL_TUNER_PARALLEL"))
        if parallel and devices is not None:
            return devices  # an explicit devices= wins over the environment
    if isinstance(parallel, bool) or parallel is None:
        count = "all" if parallel else None
    else:
        try:
            count = operator.index(parallel)
        except TypeError:
            raise TypeError(f"parallel must be True, False or a number of devices, not {parallel!r}") from None
        if count < 1:
            raise ValueError(f"parallel: {count} devices (expected at least 1, or True for all)")
    if count is None:
        return devices
    if simulation_mode:
        raise ValueError("Enabling `parallel` and `simulation_mode` together is not supported")
    if devices is not None:
        raise ValueError("give parallel or devices, not both (devices names the device indices itself)")
    return "all" if count == "all" else list(range(count))


def _devices(devices):
    """``devices`` as the native job takes it: (indices, all)."""
    if devices is None:
        return [], False
    if isinstance(devices, str):
        if devices != "all":
            raise ValueError(f"devices: {devices!r} is not a list of device indices or 'all'")
        return [], True
    try:
        indices = [operator.index(d) for d in devices]
    except TypeError:
        raise ValueError(f"devices: {devices!r} is not a list of device indices or 'all'") from None
    if any(d < 0 for d in indices):
        raise ValueError(f"devices: {devices!r} holds a negative index")
    if any(d > 2**31 - 1 for d in indices):
        raise ValueError(f"devices: {devices!r} holds an index beyond any device")
    return indices, False


def _constant_memory(cmem_args, kernel):
    """Kernel Tuner's cmem_args ({name: numpy array or scalar}) as the native job takes them, for a CUDA kernel (as
    in Kernel Tuner, no other backend has constant memory)."""
    if not cmem_args:
        return
    if not isinstance(cmem_args, dict):
        raise TypeError(f"cmem_args must be a dict of __constant__ variable name -> numpy array, not "
                        f"{type(cmem_args).__name__}")
    if kernel["backend"] != "cuda":
        raise NotImplementedError(f"cmem_args: constant memory is CUDA's (this kernel runs on the {kernel['backend']} "
                                  "backend), as in Kernel Tuner")
    out = []
    for name, value in cmem_args.items():
        if not isinstance(name, str) or not isinstance(value, (numpy.ndarray, numpy.generic)):
            raise TypeError(f"cmem_args: '{name}' must map a variable name to a numpy array or numpy scalar, not "
                            f"{type(value).__name__}")
        out.append((name, numpy.ascontiguousarray(value).tobytes()))
    kernel["constant_memory"] = out


def _refuse_unsupported(**options):
    for name, value in options.items():
        if value:
            raise NotImplementedError(f"{name} is not supported yet by ktune's Python module (Kernel Tuner supports it "
                                      "for CUDA only)")


def _kernel(kernel_name, kernel_source, problem_size, arguments, grid_div_x, grid_div_y, grid_div_z, lang, device,
            platform, compiler, compiler_options, defines, iterations, block_size_names):
    """The kernel as the native job takes it (``_ktune.tune_live`` and ``run_kernel``)."""
    if not isinstance(kernel_name, str) or not kernel_name:
        raise TypeError(f"kernel_name must be the name of the kernel function (a non-empty str), not {kernel_name!r}")
    if compiler_options is not None and (isinstance(compiler_options, (str, bytes))
                                         or not isinstance(compiler_options, (list, tuple))
                                         or not all(isinstance(o, str) for o in compiler_options)):
        raise TypeError(f"compiler_options must be a list of strings, one per option (['-O3', '-fopenmp']), not "
                        f"{compiler_options!r}")
    if compiler is not None and not isinstance(compiler, str):
        raise TypeError(f"compiler must be the compiler's name or path (a str), not {compiler!r}")
    source = live.kernel_source(kernel_source, kernel_name, lang)
    names = live.block_size_names(block_size_names)
    backend = live.backend(lang, source["code"])
    options = list(compiler_options or [])
    options += [f"-I{folder}" for folder in source["include_dirs"] if f"-I{folder}" not in options]
    return {
        "backend": backend, "kernel_name": kernel_name, "kernel_code": source["code"],
        "kernel_file": source["file"], "generate_code": source["generate_code"], "defines": live.defines(defines),
        "time_from_return": backend == "cpp" and live.returns_its_time(source["code"], kernel_name),
        "compiler_options": options, "compiler": compiler or "",
        "problem_size": live.problem_size(problem_size),
        "problem_size_dimensions": live.problem_size_dimensions(problem_size), "block_size_names": names,
        "grid_div": [live.grid_div(grid_div_x, names[0]), live.grid_div(grid_div_y, names[1]),
                     live.grid_div(grid_div_z, names[2])],
        "iterations": _iterations(iterations),
        "device": _integer(device, "device", 0, 2**31 - 1), "platform": _integer(platform, "platform", 0, 2**31 - 1),
        "metrics": [],
        "arguments": live.arguments(arguments),
    }


def _live_metrics(metrics):
    """Kernel Tuner's metrics for a live run, in order: expressions (strings) and callables of the result dict, each
    computed by the job right after its configuration's measurements (so any of them can be the objective)."""
    out = []
    for name, metric in (metrics or {}).items():
        if not isinstance(metric, str) and not callable(metric):
            raise TypeError(f"metric '{name}' must be an expression (str) or a callable, not {type(metric).__name__}")
        out.append((str(name), metric))
    return out


# Kernel Tuner's name of the language of each backend, as its observer factories receive it when lang is not given.
_KERNEL_TUNER_LANGUAGE = {"cpp": "C", "opencl": "OpenCL", "cuda": "CUDA"}


def _observers(observers, device, platform, compiler, lang):
    """tune_kernel's observers: (adapters of BenchmarkObservers, OutputObservers, names of the library's observers,
    the names those measure that no observer asked for).
    A callable that is not an observer is a factory called with dict(device, platform, compiler, lang), as in Kernel
    Tuner (``lang`` as given, else the language of the kernel's code)."""
    from ktune.observers import BenchmarkObserver, OutputObserver
    from ktune.observers.register import RegisterObserver
    adapters, outputs, native, measured, asked = [], [], [], set(), set()
    for observer in observers or []:
        if not isinstance(observer, BenchmarkObserver) and not hasattr(observer, "native_name") and callable(observer):
            observer = observer(dict(device=device, platform=platform, compiler=compiler, lang=lang))
        if isinstance(observer, RegisterObserver):
            raise NotImplementedError(f"RegisterObserver on a {lang} kernel: {RegisterObserver.unsupported}")
        if hasattr(observer, "native_name"):  # measured by the library itself (NVML's energy counter)
            why_not = _ktune.observer_unavailable(observer.native_name)
            if why_not:
                raise RuntimeError(f"{type(observer).__name__} cannot observe on this machine: {why_not}")
            native.append(observer.native_name)
            measured.update(observer.native_measurements)
            asked.update(observer.observables)
        elif isinstance(observer, OutputObserver):
            # It sees the verification run's outputs, and is a BenchmarkObserver as well: its get_results after the
            # timed launches become measurements (Kernel Tuner's AccuracyObserver reports its error so).
            outputs.append(observer)
            adapters.append(live.ObserverAdapter(observer))
        elif isinstance(observer, BenchmarkObserver):
            adapters.append(live.ObserverAdapter(observer))
        else:
            raise TypeError(f"observer {observer!r} is not a BenchmarkObserver (ktune.observers.BenchmarkObserver)")
    return adapters, outputs, native, measured - asked


class _ResultPrinter:
    """Prints a live run as Kernel Tuner does: the device, then each result as it arrives."""

    def __init__(self, tune_params, metrics, observers):
        self.shown = {name: None for name in tune_params}
        self.metrics = {name: None for name in (metrics or {})}
        self.parameters = list(tune_params)
        self.observers = observers

    def started(self, device_name):
        print(f"Using: {device_name}", flush=True)

    def result(self, result):
        _add_observer_extras(result, self.parameters, self.observers)
        print(config_output_string(self.shown, result, self.metrics, units={"time": "ms"}), flush=True)


def run_kernel(kernel_name, kernel_source, problem_size, arguments, params, grid_div_x=None, grid_div_y=None,
               grid_div_z=None, lang=None, device=0, platform=0, smem_args=None, cmem_args=None, texmem_args=None,
               compiler=None, compiler_options=None, defines=None, block_size_names=None, quiet=False, log=None):
    """Kernel Tuner's run_kernel: compiles the configuration ``params`` (one value per name), runs it once on the
    arguments and returns the arguments after the run (numpy arrays shaped and typed like the inputs; scalars as
    given). The caller's arrays are not written. Raises ``ktune.JobError`` when it does not compile or run."""
    _refuse_unsupported(smem_args=smem_args, texmem_args=texmem_args)
    if not isinstance(params, dict):
        raise TypeError("params must be a dict of parameter name -> value")
    kernel = _kernel(kernel_name, kernel_source, problem_size, arguments, grid_div_x, grid_div_y, grid_div_z, lang,
                     device, platform, compiler, compiler_options, defines, 1, block_size_names)
    _constant_memory(cmem_args, kernel)
    after = _ktune.run_kernel(kernel_name, list(params.items()), kernel)
    return live.outputs_as_arrays(list(arguments), after)


def tune_cache(cache_path, restrictions=None, **kwargs):
    """Kernel Tuner's tune_cache: tunes in simulation from a brute-forced cache file (Kernel Tuner cache or T4) with
    its own parameters; ``restrictions`` narrow it further. Takes tune_kernel's keyword arguments."""
    started = perf_counter()
    unknown = set(kwargs) - {"strategy", "strategy_options", "tune_params", "objective", "objective_higher_is_better",
                             "objectives", "seed", "verbose", "quiet", "metrics", "simulation_mode", "kernel_name",
                             "problem_size", "cache"}
    if unknown:
        raise TypeError(f"tune_cache() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    return _simulate(cache_path, kwargs.get("strategy"), kwargs.get("strategy_options"), restrictions,
                     kwargs.get("tune_params"), kwargs.get("objective"), kwargs.get("objective_higher_is_better"),
                     kwargs.get("objectives"), kwargs.get("seed"), kwargs.get("verbose", False),
                     kwargs.get("quiet", False), kwargs.get("metrics"), started=started)


def tune_kernel_T1(input_filepath, cache_filepath=None, objective="time", objective_higher_is_better=False,
                   simulation_mode=False, output_T4=True, iterations=7, device=None, strategy=None,
                   strategy_options=None):
    """Kernel Tuner's tune_kernel_T1: tunes what a T1 file describes, live, or replaying ``cache_filepath`` (else the
    file's KernelSpecification.SimulationInput) with ``simulation_mode``. The file's Search (strategy and its
    attributes) and Budget (ConfigurationCount, TuningDuration) apply unless given here. Returns
    ``(T4 metadata, T4 results)`` as dicts with ``output_T4``, else ``(results, env)``."""
    started = perf_counter()
    path = live.path_argument(input_filepath, "input_filepath")
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    options = dict(strategy_options or {})
    search = document.get("Search") or {}
    if strategy is None and search.get("Name"):
        strategy = search["Name"]
        for attribute in search.get("Attributes") or []:
            options.setdefault(attribute["Name"], attribute["Value"])
    for budget in document.get("Budget") or []:
        kind, value = budget.get("Type"), budget.get("BudgetValue")
        if kind == "ConfigurationCount":
            options.setdefault("max_fevals", int(value))
        elif kind == "TuningDuration":
            options.setdefault("time_limit", float(value))
        elif kind == "ConfigurationFraction":
            raise NotImplementedError("Budget ConfigurationFraction is not supported (nor by Kernel Tuner)")
    start = _start(options.get("x0"), strategy, None)  # in the order of the file's parameters
    strategy, settings, max_fevals, time_limit, seed, strategy_object = _strategy_settings(strategy, options)
    objective_texts, objective_names = _objectives(objective, objective_higher_is_better, None)
    simulate_path = ""
    if simulation_mode:
        simulate_path = live.path_argument(cache_filepath, "cache_filepath") if cache_filepath is not None else \
            (document.get("KernelSpecification") or {}).get("SimulationInput", "")
        if not simulate_path:
            raise ValueError("simulation_mode needs cache_filepath or a KernelSpecification.SimulationInput")
        if not os.path.isabs(simulate_path) and not os.path.exists(simulate_path):
            simulate_path = os.path.join(os.path.dirname(path), simulate_path)
    cache_path = "" if simulation_mode or cache_filepath is None else live.path_argument(cache_filepath,
                                                                                          "cache_filepath")
    # A replay takes iterations only as adaptive repetition to replay ("auto"); Kernel Tuner's 7 is what was recorded.
    replayed = None if simulation_mode and not str(iterations).startswith("auto") else _iterations(iterations)
    # Kernel Tuner passes a device name here (the T1 file's Device.Name by default): a replay's device is the
    # recording's, so a name is taken and not used; live, the device is chosen by its index.
    if isinstance(device, str):
        if not simulation_mode:
            raise ValueError(f"device {device!r}: a live tune_kernel_T1 takes the device's index (0, 1, ...), or None "
                             "for the T1 file's Device.DeviceId")
        device = None
    out = _ktune.tune_files(path, simulate_path, cache_path, replayed,
                            None if device is None else _integer(device, "device", 0, 2**31 - 1), strategy, settings,
                            max_fevals, time_limit, objective_texts, seed, strategy_object, start)
    _refuse_a_run_the_time_limit_ended_before_it_began(out, time_limit)
    results, env = _finish(out, [], objective_names, False, True, live_run=not simulation_mode, started=started)
    if not output_T4:
        return results, env
    tune_params = {name: [] for name in out["parameters"]}
    for r in results:
        for name in tune_params:
            if r[name] not in tune_params[name]:
                tune_params[name].append(r[name])
    t4 = json.loads(_ktune.t4_text([(k, v) for k, v in tune_params.items()], results, objective_names))
    from ktune.file_utils import get_t4_metadata
    return get_t4_metadata(), t4
