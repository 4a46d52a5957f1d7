"""tune_cache and tune_kernel(simulation_mode=True): Kernel Tuner's simulation from a brute-forced cache, with
Kernel Tuner's result dicts, its objectives, strategy_options and restrictions, and errors as Python exceptions."""
import gzip
import json
import subprocess
import time
import warnings

import pytest

import ktune
from conftest import first_listings, shared_path
from ktune.util import ErrorConfig, InvalidConfig, get_config_string

TIMING_KEYS = {"time", "times", "compile_time", "verification_time", "benchmark_time", "strategy_time",
               "framework_time", "timestamp"}


def parameters_of(cache_path):
    """tune_params_keys of a Kernel Tuner cache file (plain or gzip)."""
    opener = gzip.open if cache_path.endswith(".gz") else open
    with opener(cache_path, "rt") as f:
        return json.load(f)["tune_params_keys"]


def test_tune_cache_brute_force_replays_every_recorded_configuration(convolution_cache):
    results, env = ktune.tune_cache(convolution_cache, quiet=True)
    assert env["simulation"] is True
    assert "device_name" in env
    assert len(results) == env["search_space_size"] > 100
    ok = [r for r in results if "__error__" not in r]
    assert ok
    names = parameters_of(convolution_cache)
    for r in ok:
        assert TIMING_KEYS <= set(r)
        assert isinstance(r["time"], float) and r["time"] > 0
        assert isinstance(r["times"], list) and r["times"]
        for name in names:
            assert name in r
    best = min(ok, key=lambda r: r["time"])
    assert env["best_config"] == best
    json.dumps(results)  # plain Python values, as scripts json.dump them


def test_failures_carry_kernel_tuner_error_configs(time_energy_cache):
    results, _ = ktune.tune_cache(time_energy_cache, quiet=True)
    failed = [r for r in results if "__error__" in r]
    for r in failed:
        assert isinstance(r["__error__"], ErrorConfig)
        assert str(r["__error__"]) in {"InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig"}
    assert str(InvalidConfig()) == "InvalidConfig"


def test_same_seed_same_results_and_max_fevals_counts_unique_configurations(convolution_cache):
    options = {"max_fevals": 50}
    a, _ = ktune.tune_cache(convolution_cache, strategy="genetic_algorithm", strategy_options=options, seed=3,
                            quiet=True)
    b, _ = ktune.tune_cache(convolution_cache, strategy="genetic_algorithm", strategy_options=options, seed=3,
                            quiet=True)
    names = parameters_of(convolution_cache)
    assert [get_config_string(r, names) for r in a] == [get_config_string(r, names) for r in b]
    # Revisits are listed, as Kernel Tuner lists them, with no step times (they cost nothing).
    assert len({get_config_string(r, names) for r in a}) == 50 < len(a)
    revisits = [r for i, r in enumerate(a) if get_config_string(r, names) in
                {get_config_string(q, names) for q in a[:i]}]
    assert revisits and all(r["compile_time"] == r["benchmark_time"] == r["strategy_time"] == 0 for r in revisits)


def test_same_results_as_the_cli(convolution_cache, ktune_binary, tmp_path):
    results, env = ktune.tune_cache(convolution_cache, strategy="simulated_annealing",
                                    strategy_options={"max_fevals": 60, "T": 0.5}, seed=5, quiet=True)
    out = subprocess.run([ktune_binary, "tune", "--simulate", convolution_cache, "--strategy", "simulated_annealing",
                          "--set", "T=0.5", "--max-fevals", "60", "--seed", "5", "--json", "--trace"],
                         check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    cli_trace = report["trace"]
    evaluated = first_listings(results, parameters_of(convolution_cache))
    assert len(cli_trace) == len(evaluated) == 60 < len(results)  # simulated annealing revisits
    for mine, theirs in zip(evaluated, cli_trace):
        assert mine["time"] == pytest.approx(theirs["values"][0], rel=1e-12)
    assert env["strategy_options"]["T"] == 0.5


def test_tune_params_and_restrictions_narrow_the_replay(convolution_cache):
    all_results, _ = ktune.tune_cache(convolution_cache, quiet=True)
    restrictions = ["block_size_x == 32", "tile_size_y <= 2"]
    results, env = ktune.tune_cache(convolution_cache, restrictions=restrictions, quiet=True)
    expected = [r for r in all_results if r["block_size_x"] == 32 and r["tile_size_y"] <= 2]
    assert 0 < len(results) == len(expected) < len(all_results)
    assert all(r["block_size_x"] == 32 and r["tile_size_y"] <= 2 for r in results)
    # A script's tune_params may hold a subset of the cache's values (Kernel Tuner does not compare them).
    tune_params = {"block_size_x": [16, 32], "block_size_y": [1, 2, 4, 8, 16, 32], "tile_size_x": [1, 2, 4, 8],
                   "tile_size_y": [1, 2, 4, 8], "read_only": [0, 1], "use_padding": [0, 1]}
    subset, _ = ktune.tune_kernel("convolution_kernel", "", (4096, 4096), [], tune_params, simulation_mode=True,
                                  cache=convolution_cache, quiet=True)
    assert subset and all(r["block_size_x"] in (16, 32) for r in subset)


def test_objectives_and_directions(time_energy_cache):
    results, env = ktune.tune_cache(time_energy_cache, objective="energy", objective_higher_is_better=False,
                                    quiet=True)
    assert env["objective"] == ["energy"]
    ok = [r for r in results if "__error__" not in r]
    assert env["best_config"]["energy"] == min(r["energy"] for r in ok)
    _, env = ktune.tune_cache(time_energy_cache, objectives={"time": False, "energy": False}, quiet=True)
    front = env["pareto_front"]
    assert front
    for p in front:  # nothing on the front is dominated
        assert not any(r["time"] <= p["time"] and r["energy"] <= p["energy"] and
                       (r["time"] < p["time"] or r["energy"] < p["energy"]) for r in ok)
    with pytest.raises(ValueError, match="objective_higher_is_better"):
        ktune.tune_cache(time_energy_cache, objective="joules", quiet=True)


def test_bad_input_raises_with_the_cli_message(convolution_cache, tmp_path):
    with pytest.raises(ktune.JobError, match="no_such_parameter"):
        ktune.tune_cache(convolution_cache, restrictions=["no_such_parameter > 1"], quiet=True)
    with pytest.raises(ValueError, match="missing.json"):
        ktune.tune_cache(str(tmp_path / "missing.json"), quiet=True)
    with pytest.raises(ValueError, match="no_such_strategy"):
        ktune.tune_cache(convolution_cache, strategy="no_such_strategy", quiet=True)
    with pytest.raises(ValueError, match="popsize"):
        ktune.tune_cache(convolution_cache, strategy="genetic_algorithm", strategy_options={"popsize": -3},
                         quiet=True)
    with pytest.raises(ValueError, match="max_fevals"):
        ktune.tune_cache(convolution_cache, strategy_options={"max_fevals": 0}, quiet=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 5, "bogus": 1},
                         quiet=True)
    assert any("bogus" in str(w.message) for w in caught)


def test_printing_follows_verbose_and_quiet(convolution_cache, capsys):
    ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 3}, quiet=True)
    assert capsys.readouterr().out == ""
    ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 3})
    out = capsys.readouterr().out
    assert "best performing configuration:" in out and "time=" in out and "ms" in out
    ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 3}, verbose=True)
    lines = [l for l in capsys.readouterr().out.splitlines() if l.startswith("block_size_x=")]
    assert len(lines) >= 3 + 1  # each result, then the best


def test_metrics_expressions_are_objectives_and_callables_are_added_to_results(convolution_cache):
    metrics = {"threads": "block_size_x * block_size_y",
               "us": lambda p: p["time"] * 1000,
               "us_per_thread": lambda p: p["us"] / p["threads"]}
    results, env = ktune.tune_cache(convolution_cache, metrics=metrics, objective="threads",
                                    objective_higher_is_better=True, quiet=True)
    ok = [r for r in results if "__error__" not in r]
    assert ok
    for r in ok:
        assert r["threads"] == r["block_size_x"] * r["block_size_y"]
        assert r["us"] == pytest.approx(r["time"] * 1000)
        assert r["us_per_thread"] == pytest.approx(r["us"] / r["threads"])
    assert env["best_config"]["threads"] == max(r["threads"] for r in ok)
    with pytest.raises(NotImplementedError, match="callable metric"):
        ktune.tune_cache(convolution_cache, metrics={"f": lambda p: 1.0}, objective="f",
                         objective_higher_is_better=True, quiet=True)
    with pytest.raises(ValueError, match="block_size_w"):
        ktune.tune_cache(convolution_cache, metrics={"bad": "block_size_w * 2"}, quiet=True)


def test_callable_restrictions_are_honoured_and_their_errors_raised(convolution_cache):
    seen = []

    def wide_blocks(p):
        seen.append(p)
        return p["block_size_x"] >= 64

    results, env = ktune.tune_cache(convolution_cache, restrictions=["tile_size_y <= 2", wide_blocks], quiet=True)
    assert results and all(r["block_size_x"] >= 64 and r["tile_size_y"] <= 2 for r in results)
    assert seen and set(seen[0]) == set(parameters_of(convolution_cache))
    assert all(p["tile_size_y"] <= 2 for p in seen)  # expressions first: the callable sees what they allow
    alone, _ = ktune.tune_cache(convolution_cache, restrictions=lambda p: p["block_size_y"] == 4, quiet=True)
    assert alone and all(r["block_size_y"] == 4 for r in alone)

    def broken(p):
        raise KeyError("no_such_parameter")

    with pytest.raises(ktune.JobError, match="no_such_parameter"):
        ktune.tune_cache(convolution_cache, restrictions=[broken], quiet=True)


def test_store_output_file_writes_t4_that_replays_the_same(convolution_cache, tmp_path):
    from ktune.file_utils import store_metadata_file, store_output_file
    results, _ = ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 40},
                                  seed=2, quiet=True)
    names = parameters_of(convolution_cache)
    tune_params = {}
    for r in results:
        for name in names:
            tune_params.setdefault(name, [])
            if r[name] not in tune_params[name]:
                tune_params[name].append(r[name])
    store_output_file(str(tmp_path / "out"), results, tune_params)
    with open(tmp_path / "out.json") as f:
        document = json.load(f)
    assert document["schema_version"] == "1.0.0" and len(document["results"]) == len(results)
    first = document["results"][0]
    assert set(first["configuration"]) == set(names) and first["objectives"] == ["time"]
    replayed, _ = ktune.tune_cache(str(tmp_path / "out.json"), quiet=True)
    key = lambda r: get_config_string(r, names)
    assert sorted((key(r), r.get("time")) for r in replayed) == sorted((key(r), r.get("time")) for r in results)
    store_metadata_file(str(tmp_path / "meta"))
    with open(tmp_path / "meta.json") as f:
        assert json.load(f)["metadata"]["environment"]["requirements"][0].startswith("ktune==")


def test_tune_kernel_t1_replays_a_cache_and_returns_t4():
    t1 = shared_path("data/kernel_tuner/test_cache_file_T1_input.json")
    cache = shared_path("data/kernel_tuner/test_cache_file.json")
    metadata, t4 = ktune.tune_kernel_T1(t1, cache_filepath=cache, simulation_mode=True,
                                        strategy_options={"max_fevals": 10})
    assert metadata["schema_version"] == "1.0.0"
    assert t4["schema_version"] == "1.0.0" and 0 < len(t4["results"]) <= 10
    for result in t4["results"]:
        assert {"configuration", "times", "invalidity", "correctness", "measurements"} <= set(result)
    results, env = ktune.tune_kernel_T1(t1, cache_filepath=cache, simulation_mode=True, output_T4=False,
                                        strategy="random_sample", strategy_options={"max_fevals": 5})
    assert len(results) == 5 and env["strategy"] == "random_sample"


def test_kernel_tuners_pyatf_strategies_run_pyatfs_techniques(convolution_cache):
    names = parameters_of(convolution_cache)
    for technique in ("simulated_annealing", "differential_evolution", "torczon"):
        options = {"searchtechnique": technique, "max_fevals": 12, "use_searchspace_cache": True}
        results, env = ktune.tune_cache(convolution_cache, strategy="pyatf_strategies", strategy_options=options,
                                        quiet=True)
        assert len({get_config_string(r, names) for r in results}) == 12
        again, _ = ktune.tune_cache(convolution_cache, strategy=ktune.strategies.pyatf_strategies,
                                    strategy_options=dict(options), quiet=True)
        assert [get_config_string(r, names) for r in again] == [get_config_string(r, names) for r in results]
    with pytest.raises(ValueError, match="searchtechnique"):
        ktune.tune_cache(convolution_cache, strategy="pyatf_strategies",
                         strategy_options={"searchtechnique": "opentuner", "max_fevals": 5}, quiet=True)


def test_a_published_set_of_hyperparameters_and_options_beside_it(convolution_cache):
    options = {"max_fevals": 10, "c1": 2.0, "set": "kernel_tuner"}
    _, env = ktune.tune_cache(convolution_cache, strategy="pso", strategy_options=options, quiet=True)
    assert env["strategy_options"]["popsize"] == 50  # Kernel Tuner's, from the set
    assert env["strategy_options"]["c1"] == 2.0      # the option beside it wins, wherever it is written
    with pytest.raises(ValueError, match="kernel_tuner"):
        ktune.tune_cache(convolution_cache, strategy="pso", strategy_options={"set": "table4"}, quiet=True)


def test_env_totals_add_up_to_the_time_the_replay_took(convolution_cache):
    # Kernel Tuner's test_simulation_runner: every total and overhead_time positive, and with simulated_time they
    # add up to the call's wall time plus the simulated time, within 10 ms. The records' compile, verification and
    # benchmark times are the recorded ones; their framework and strategy times are the replay's own.
    start = time.perf_counter()
    results, env = ktune.tune_cache(convolution_cache, strategy="random_sample",
                                    strategy_options={"max_fevals": 50}, quiet=True)
    actual_ms = (time.perf_counter() - start) * 1e3
    timings = ["total_framework_time", "total_strategy_time", "total_compile_time", "total_benchmark_time",
               "overhead_time"]
    assert all(env[key] > 0.0 for key in timings), {key: env[key] for key in timings}
    recorded = sum(env[key] for key in timings) + env["total_verification_time"]
    assert recorded - env["simulated_time"] > 0
    assert 0 <= actual_ms + env["simulated_time"] - recorded < 10
    with gzip.open(convolution_cache, "rt") as f:
        cache = json.load(f)["cache"]
    names = parameters_of(convolution_cache)
    for r in results:
        entry = cache[",".join(str(r[name]) for name in names)]
        assert r["compile_time"] == pytest.approx(entry["compile_time"])
        assert r["framework_time"] < actual_ms  # the replay's own, not the recorded run's


def test_a_starting_point_x0_is_evaluated_first(convolution_cache):
    """Kernel Tuner's strategy option x0 (its test_strategies): the search starts from it, so it is the first result;
    its values follow tune_params, whose order need not be the cache's."""
    names = parameters_of(convolution_cache)
    results, _ = ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 20},
                                  quiet=True)
    x = results[-1]  # a configuration the cache holds
    tune_params = {name: sorted({r[name] for r in results} | {x[name]}) for name in reversed(names)}
    x0 = [x[name] for name in tune_params]
    for strategy in ("pso", "genetic_algorithm", "simulated_annealing", "greedy_ils", "basinhopping", "auto"):
        results, _ = ktune.tune_kernel("convolution_kernel", "", (4096, 4096), [], tune_params, simulation_mode=True,
                                       cache=convolution_cache, strategy=strategy, quiet=True,
                                       strategy_options={"max_fevals": 10, "x0": x0})
        assert [results[0][name] for name in tune_params] == x0, strategy
        assert len(results) >= 10
    # tune_cache: x0 in the order of the cache's parameters.
    results, _ = ktune.tune_cache(convolution_cache, strategy="pso", strategy_options={"max_fevals": 5,
                                                                                      "x0": [x[n] for n in names]},
                                  quiet=True)
    assert [results[0][n] for n in names] == [x[n] for n in names]


def test_a_starting_point_is_refused_where_kernel_tuner_refuses_it_or_it_is_not_in_the_space(convolution_cache):
    names = parameters_of(convolution_cache)
    results, _ = ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 1},
                                  quiet=True)
    x0 = [results[0][n] for n in names]
    for strategy in ("brute_force", "random_sample", "bayes_opt", "hybrid_vndx", "adaptive_tabu_greywolf", "nsga2"):
        with pytest.raises(ValueError, match="x0"):
            ktune.tune_cache(convolution_cache, strategy=strategy, strategy_options={"max_fevals": 5, "x0": x0},
                             quiet=True)
    with pytest.raises(ValueError, match="brute_force takes no starting point"):
        ktune.tune_cache(convolution_cache, strategy=ktune.strategies.brute_force, strategy_options={"x0": x0},
                         quiet=True)
    with pytest.raises(ValueError, match="x0"):
        ktune.tune_cache(convolution_cache, strategy="pso", strategy_options={"x0": 16}, quiet=True)
    with pytest.raises(ktune.JobError, match="start configuration 1 .*: 9 values for the 10 parameters"):
        ktune.tune_cache(convolution_cache, strategy="pso", strategy_options={"max_fevals": 5, "x0": x0[:-1]},
                         quiet=True)
    with pytest.raises(ktune.JobError, match="7 is not a value of parameter 'block_size_x'"):
        ktune.tune_cache(convolution_cache, strategy="pso", strategy_options={"max_fevals": 5, "x0": [7] + x0[1:]},
                         quiet=True)
    # A configuration the restrictions leave out.
    with pytest.raises(ktune.JobError, match="not in the search space"):
        ktune.tune_cache(convolution_cache, strategy="pso", restrictions=[f"block_size_x != {x0[0]}"],
                         strategy_options={"max_fevals": 5, "x0": x0}, quiet=True)


def test_kernel_tuners_strategy_map_names_every_strategy_with_its_options():
    from ktune.interface import strategy_map
    assert {"brute_force", "pso", "genetic_algorithm", "bayes_opt", "pyatf_strategies", "auto"} <= set(strategy_map)
    options = strategy_map["genetic_algorithm"]._options
    assert "popsize" in options and len(options["popsize"]) == 2
    assert "neighbor" not in options and "neighbor" in strategy_map["greedy_mls"]._options
    results, _ = ktune.tune_cache(shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz"),
                                  strategy=strategy_map["pso"], strategy_options={"max_fevals": 3}, quiet=True)
    assert len(results) == 3
