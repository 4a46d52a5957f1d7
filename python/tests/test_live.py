"""tune_kernel live: OpenCL kernels on PoCL and C kernels through the system compiler, with Kernel Tuner's
arguments, answer/verify, restrictions, metrics, caches and result dicts. Skipped where no backend runs."""
import json
import os

import numpy
import pytest

import ktune
from ktune.util import ErrorConfig

VECTOR_ADD_CL = """
__kernel void vector_add(__global float *c, __global const float *a, __global const float *b, int n) {
    int i = get_global_id(0);
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
"""

VECTOR_ADD_C = """
void vector_add(float *c, const float *a, const float *b, int n) {
    for (int i = 0; i < n; i += unroll)
        for (int j = i; j < i + unroll && j < n; j++)
            c[j] = a[j] + b[j];
}
"""

KEYS = {"time", "times", "compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time",
        "timestamp"}


def data(size=4096):
    rng = numpy.random.default_rng(1)
    a = rng.random(size, dtype=numpy.float32)
    b = rng.random(size, dtype=numpy.float32)
    return a, b, numpy.zeros_like(a), numpy.int32(size)


def call_or_skip(function, *args, **kwargs):
    """function(*args, **kwargs) (tune_kernel, run_kernel), the test skipped where its backend is not available."""
    try:
        return function(*args, **kwargs)
    except ktune.JobError as e:
        if "not available here" in str(e):
            pytest.skip(str(e))
        raise


def run_or_skip(*args, **kwargs):
    return call_or_skip(ktune.tune_kernel, *args, **kwargs)


def test_opencl_vector_add_with_answer(capsys):
    a, b, c, n = data()
    tune_params = {"block_size_x": [32, 64, 128]}
    results, env = run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params,
                               answer=[a + b, None, None, None], iterations=3)
    assert len(results) == 3
    for r in results:
        assert "__error__" not in r
        assert KEYS <= set(r) and len(r["times"]) == 3 and r["time"] > 0
    assert env["simulation"] is False and env["device_name"]
    assert env["best_config"]["time"] == min(r["time"] for r in results)
    out = capsys.readouterr().out
    assert out.startswith("Using: ") and "block_size_x=64, time=" in out and "best performing configuration:" in out
    json.dumps(results)
    assert not c.any()  # the caller's arrays are not written to


def test_several_devices_give_the_results_of_one(monkeypatch):
    # PoCL shows the CPU as two devices; a Python verify function is called from both devices' threads.
    monkeypatch.setenv("POCL_DEVICES", "pthread pthread")
    a, b, c, n = data()
    tune_params = {"block_size_x": [16, 32, 64, 128], "tile": [1, 2, 4]}
    checked = []

    def verify(expected, answer, atol=None):
        checked.append(1)
        return numpy.allclose(answer[0], a + b)

    kwargs = dict(answer=[a + b, None, None, None], verify=verify, iterations=2, quiet=True,
                  strategy="brute_force")
    one, _ = run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, **kwargs)
    two, env = run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, devices=[0, 1], **kwargs)
    strip = lambda rs: [{k: r[k] for k in tune_params} for r in rs]
    assert strip(two) == strip(one) and len(two) == 12
    assert all("__error__" not in r for r in two)
    assert len(checked) == 24
    # A one-at-a-time strategy with a constant liar on two devices: every configuration it asked for is measured
    # once and recorded with its measurement (live times differ between runs, so its path does too).
    liar = dict(kwargs, strategy="simulated_annealing", strategy_options={"max_fevals": 8}, seed=3, pending=1)
    liar_two, _ = run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, devices=[0, 1], **liar)
    assert len({tuple(sorted(r.items())) for r in strip(liar_two)}) == 8
    assert all("__error__" not in r and r["time"] > 0 for r in liar_two)
    with pytest.raises(ValueError, match="devices"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, devices="both")
    with pytest.raises(ktune.JobError, match="there is no device 7"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, devices=[0, 7])


def test_kernel_tuners_parallel_measures_on_several_devices(monkeypatch):
    """Kernel Tuner 1.4's parallel=True / N / $KERNEL_TUNER_PARALLEL: every device, or the first N."""
    monkeypatch.setenv("POCL_DEVICES", "pthread pthread")
    a, b, c, n = data()
    tune_params = {"block_size_x": [16, 32, 64, 128]}
    kwargs = dict(answer=[a + b, None, None, None], iterations=1, quiet=True, strategy="brute_force")
    every, _ = run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, parallel=True, **kwargs)
    assert [r["block_size_x"] for r in every] == [16, 32, 64, 128] and all("__error__" not in r for r in every)
    with pytest.raises(ktune.JobError, match="there is no device 2"):  # the first three of two devices
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, parallel=3, **kwargs)
    with pytest.raises(ValueError, match="parallel or devices, not both"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, parallel=2, devices=[0],
                          **kwargs)
    with pytest.raises(ValueError, match="`parallel` and `simulation_mode` together"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, parallel=True,
                          simulation_mode=True, cache="unused")
    monkeypatch.setenv("KERNEL_TUNER_PARALLEL", "1")
    with pytest.raises(ValueError, match="`parallel` and `simulation_mode` together"):  # the environment's parallel
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, simulation_mode=True,
                          cache="unused")
    with pytest.raises(ktune.JobError, match="there is no device 7"):  # devices= wins over the environment
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], tune_params, devices=[0, 7], **kwargs)


def test_a_wrong_result_costs_its_configuration_and_tuning_goes_on():
    a, b, c, n = data()
    kernel = VECTOR_ADD_CL.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + (block_size_x == 64 ? 1.0f : 0.0f);")
    results, env = run_or_skip("vector_add", kernel, int(n), [c, a, b, n], {"block_size_x": [32, 64, 128]},
                               answer=[a + b, None, None, None], quiet=True, iterations=2)
    bad = [r for r in results if r["block_size_x"] == 64]
    assert len(bad) == 1 and isinstance(bad[0]["__error__"], ErrorConfig)
    assert all("__error__" not in r for r in results if r["block_size_x"] != 64)
    assert env["best_config"]["block_size_x"] != 64


def test_verify_restrictions_metrics_and_objective():
    a, b, c, n = data()
    seen = []

    def verify(answer, result, atol=None):
        seen.append(atol)
        return numpy.allclose(result[0], a + b, atol=atol)

    results, env = run_or_skip(
        "vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], {"block_size_x": [16, 32, 64, 128], "dummy": [1, 2]},
        restrictions=["block_size_x >= 32", lambda p: p["dummy"] == 1], verify=verify, atol=1e-5, quiet=True,
        iterations=2, metrics={"GB/s": "3 * 4 * 4096 / (time / 1e3) / 1e9", "half": lambda p: p["GB/s"] / 2},
        objective="GB/s")
    assert sorted(r["block_size_x"] for r in results) == [32, 64, 128]
    assert all(r["dummy"] == 1 for r in results)
    assert seen and all(x == 1e-5 for x in seen)
    for r in results:
        assert r["GB/s"] == pytest.approx(3 * 4 * 4096 / (r["time"] / 1e3) / 1e9)
        assert r["half"] == pytest.approx(r["GB/s"] / 2)
    assert env["best_config"]["GB/s"] == max(r["GB/s"] for r in results)


def test_c_kernel_with_compiler_options_and_a_cache_that_resumes(tmp_path):
    a, b, c, n = data(10000)
    cache = tmp_path / "vector_add_cache"
    kwargs = dict(answer=[a + b, None, None, None], compiler_options=["-O2"], quiet=True, iterations=2,
                  cache=str(cache), lang="C")
    first, _ = run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1, 2, 4]}, **kwargs)
    assert len(first) == 3 and all("__error__" not in r for r in first)
    with open(str(cache) + ".json") as f:
        document = json.load(f)  # Kernel Tuner's layout, closed
    assert document["tune_params_keys"] == ["unroll"] and len(document["cache"]) == 3
    # Resumed: nothing is measured again, the cached results come back.
    again, _ = run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1, 2, 4]}, **kwargs)
    assert sorted(r["unroll"] for r in again) == [1, 2, 4]
    assert [r["time"] for r in sorted(again, key=lambda r: r["unroll"])] == \
        [r["time"] for r in sorted(first, key=lambda r: r["unroll"])]


def test_adaptive_repetition_and_a_confirmed_winner(capsys):
    a, b, c, n = data(10000)
    results, env = run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1, 2, 4]},
                               answer=[a + b, None, None, None], lang="C", iterations="auto", confirm_top=2)
    for r in results:
        assert 3 <= r["time_runs"] == len(r["times"]) <= 31
        assert r["time_ci_low"] <= r["time"] <= r["time_ci_high"]
        assert r["time_rejected"] in (0, 1) and r["time_outliers"] >= 0
    confirmed = env["confirmed"]
    assert len(confirmed) == 2 and confirmed[0]["winner"] and confirmed[0]["tied_with_winner"]
    assert confirmed[0]["runs"] == 15 and confirmed[0]["interval"][0] <= confirmed[0]["time"]
    assert confirmed[0]["time"] <= confirmed[1]["time"]
    assert env["best_config"] is confirmed[0]["result"]
    assert "confirmed (timed again, interleaved" in capsys.readouterr().out
    with pytest.raises(ValueError, match="min=1"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1]}, lang="C",
                          iterations="auto:min=1", quiet=True)
    with pytest.raises(ValueError, match="integer or 'auto'"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1]}, lang="C",
                          iterations="often", quiet=True)


def test_bad_arguments_raise_python_exceptions():
    a, b, c, n = data()
    with pytest.raises(TypeError, match="argument 4"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, 4096, [c, a, b, 4096], {"block_size_x": [32]})
    with pytest.raises(ValueError, match="time"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, 4096, [c, a, b, n], {"time": [1]})
    with pytest.raises(ValueError, match="answer has 2 elements"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, 4096, [c, a, b, n], {"block_size_x": [32]}, answer=[a, b])
    with pytest.raises(ktune.JobError, match="no_such_name"):
        run_or_skip("vector_add", VECTOR_ADD_CL, "no_such_name * 2", [c, a, b, n], {"block_size_x": [32]},
                    quiet=True)


def test_ctrl_c_ends_the_run_with_what_was_measured(tmp_path):
    """A SIGINT while a live run goes on stops it after the configuration in flight; tune_kernel returns the results
    measured so far with a warning, and the cache holds them."""
    import signal
    import subprocess
    import sys
    import time
    script = tmp_path / "long_run.py"
    script.write_text(f"""
import numpy, warnings, ktune
warnings.simplefilter("always")
a = numpy.ones(1000, dtype=numpy.float32)
args = [numpy.zeros_like(a), a, a, numpy.int32(1000)]
results, env = ktune.tune_kernel("vector_add", {VECTOR_ADD_C!r}, 1000, args, {{"unroll": list(range(1, 200))}},
                                 lang="C", quiet=True, iterations=1, cache={str(tmp_path / 'cache')!r})
print("RESULTS", len(results), env["stop_reason"], flush=True)
""")
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                   [str(__import__("pathlib").Path(ktune.__file__).resolve().parents[1])] +
                                   [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                    if p])))
    cache = tmp_path / "cache.json"
    deadline = time.time() + 120
    while time.time() < deadline and (not cache.exists() or cache.read_text().count('"unroll"') < 4):
        time.sleep(0.2)  # at least a few results measured
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    if "not available here" in err:
        pytest.skip(err)
    assert process.returncode == 0, err
    line = [l for l in out.splitlines() if l.startswith("RESULTS")][0].split()
    assert 0 < int(line[1]) < 199 and line[2] == "interrupted"
    assert "interrupted" in err


def test_tune_kernel_t1_live_with_the_files_search_and_budget(tmp_path):
    import shutil
    from conftest import ROOT
    for source in (ROOT / "examples/vector_add").iterdir():  # the T1 file names its kernel file relative to itself
        if source.is_file():
            shutil.copy(source, tmp_path / source.name)
    with open(tmp_path / "vector_add_opencl.json") as f:
        document = json.load(f)
    document["Search"] = {"Name": "random_sample", "Attributes": []}
    document["Budget"] = [{"Type": "ConfigurationCount", "BudgetValue": 2}]
    (tmp_path / "vector_add_opencl.json").write_text(json.dumps(document))
    try:
        results, env = ktune.tune_kernel_T1(str(tmp_path / "vector_add_opencl.json"), output_T4=False, iterations=2)
    except ktune.JobError as e:
        if "not available here" in str(e):
            pytest.skip(str(e))
        raise
    assert len(results) == 2 and env["strategy"] == "random_sample" and env["simulation"] is False
    assert all("__error__" not in r for r in results)


def test_env_totals_add_up_to_the_time_tune_kernel_took():
    # Kernel Tuner's test_time_keeping (there on CUDA): every total and overhead_time positive, and together they are
    # the wall time of the call, within 10 ms.
    import time
    a, b, c, n = data()
    start = time.perf_counter()
    results, env = run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1, 2, 4, 8, 16, 32]},
                               lang="C", answer=[a + b, None, None, None], strategy="genetic_algorithm",
                               strategy_options={"method": "uniform", "popsize": 5, "maxiter": 50,
                                                 "mutation_chance": 1, "max_fevals": 6},
                               iterations=3, quiet=True)
    wall_ms = (time.perf_counter() - start) * 1e3
    assert len({r["unroll"] for r in results}) == 6  # and the genetic algorithm's revisits, listed as in Kernel Tuner
    timings = ["total_framework_time", "total_strategy_time", "total_compile_time", "total_verification_time",
               "total_benchmark_time", "overhead_time"]
    assert all(env[key] > 0.0 for key in timings), {key: env[key] for key in timings}
    recorded = sum(env[key] for key in timings)
    assert 0 < recorded < wall_ms and wall_ms - recorded < 10


def test_a_starting_point_x0_is_measured_first_live():
    a, b, c, n = data(2048)
    tune_params = {"unroll": [1, 2, 4, 8], "block": [1, 2, 3]}
    results, _ = run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], tune_params, lang="C", quiet=True,
                             iterations=1, strategy="pso",
                             strategy_options={"max_fevals": 3, "x0": [8, 3], "seed": 2})
    assert (results[0]["unroll"], results[0]["block"]) == (8, 3)
    assert len({(r["unroll"], r["block"]) for r in results}) == 3
