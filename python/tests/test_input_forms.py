"""tune_kernel's input forms beyond plain code and names: code generators, defines, auxiliary files, run_kernel,
observers (Python BenchmarkObservers called at every timed launch), callable metrics as objectives, custom
optimisers, strategies as objects and Kernel Tuner's C convention of a function that returns its own time."""
import os
import sys

import numpy
import pytest

import ktune
from ktune.observers import BenchmarkObserver, OutputObserver
from ktune.strategies.wrapper import OptAlg, OptAlgWrapper
from ktune.util import StopCriterionReached

from test_live import VECTOR_ADD_C, VECTOR_ADD_CL, data, run_or_skip


def test_a_code_generator_makes_each_configurations_source():
    a, b, c, n = data()
    asked = []

    def generator(params):
        asked.append(dict(params))
        return VECTOR_ADD_CL.replace("get_global_id(0)", f"get_local_id(0) + get_group_id(0) * {params['block_size_x']}")

    results, _ = run_or_skip("vector_add", generator, int(n), [c, a, b, n], {"block_size_x": [32, 64]},
                             answer=[a + b, None, None, None], lang="OpenCL", iterations=2, quiet=True)
    assert [r["block_size_x"] for r in results] == [32, 64] and all("__error__" not in r for r in results)
    assert {p["block_size_x"] for p in asked} == {32, 64}
    with pytest.raises(ValueError, match="give lang"):
        ktune.tune_kernel("vector_add", generator, int(n), [c, a, b, n], {"block_size_x": [32]})


def test_a_generator_that_raises_costs_its_configuration():
    a, b, c, n = data()

    def generator(params):
        if params["block_size_x"] == 64:
            raise RuntimeError("no code for 64")
        return VECTOR_ADD_CL

    results, env = run_or_skip("vector_add", generator, int(n), [c, a, b, n], {"block_size_x": [32, 64]},
                               lang="OpenCL", iterations=1, quiet=True)
    failed = [r for r in results if "__error__" in r]
    assert [r["block_size_x"] for r in failed] == [64] and str(failed[0]["__error__"]) == "CompilationFailedConfig"
    assert env["best_config"]["block_size_x"] == 32


def test_defines_replace_the_parameters_defines():
    a, b, c, n = data()
    kernel = VECTOR_ADD_CL.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + OFFSET;")
    results, _ = run_or_skip("vector_add", kernel, int(n), [c, a, b, n], {"block_size_x": [32, 64]},
                             defines={"OFFSET": lambda p: p["block_size_x"] // 32, "UNUSED": "1"},
                             answer=[a + b + 1, None, None, None], iterations=1, quiet=True)
    ok = {r["block_size_x"]: "__error__" not in r for r in results}
    assert ok == {32: True, 64: False}  # OFFSET is 1 for 32 only
    # with custom defines, block_size_x is not defined: code using it does not compile
    results, _ = run_or_skip("vector_add", VECTOR_ADD_CL.replace("a[i] + b[i]", "a[i] + b[i] * block_size_x"),
                             int(n), [c, a, b, n], {"block_size_x": [32]}, defines={}, iterations=1, quiet=True)
    assert str(results[0]["__error__"]) == "CompilationFailedConfig"


def test_auxiliary_files_are_found_by_include(tmp_path):
    a, b, c, n = data()
    (tmp_path / "helper.cl").write_text("float add(float x, float y) { return x + y; }\n")
    (tmp_path / "main.cl").write_text('#include "helper.cl"\n' + VECTOR_ADD_CL.replace("a[i] + b[i]", "add(a[i], b[i])"))
    results, _ = run_or_skip("vector_add", [str(tmp_path / "main.cl"), str(tmp_path / "helper.cl")], int(n),
                             [c, a, b, n], {"block_size_x": [32]}, answer=[a + b, None, None, None], iterations=1,
                             quiet=True)
    assert "__error__" not in results[0]


def test_run_kernel_returns_the_outputs():
    a, b, c, n = data()
    try:
        out = ktune.run_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], {"block_size_x": 64})
    except ktune.JobError as e:
        if "not available here" in str(e):
            pytest.skip(str(e))
        raise
    assert len(out) == 4 and out[0].dtype == numpy.float32 and out[0].shape == c.shape
    assert numpy.allclose(out[0], a + b) and out[3] == n
    assert not c.any()  # the caller's arrays are not written
    with pytest.raises(ktune.JobError, match="block_size_x=64"):
        ktune.run_kernel("vector_add", VECTOR_ADD_CL.replace("int n)", "int n) { syntax error"), int(n),
                         [c, a, b, n], {"block_size_x": 64})


class CountingObserver(BenchmarkObserver):
    """Counts Kernel Tuner's hooks; reports launches, a derived number and a non-numeric list."""

    def __init__(self):
        self.device = None
        self.calls = []
        self.configurations = []

    def register_device(self, dev):
        self.device = dev

    def register_configuration(self, params):
        self.configurations.append(dict(params))
        self.calls = []

    def before_start(self):
        self.calls.append("before")

    def after_start(self):
        self.calls.append("start")

    def during(self):
        if self.calls[-1] != "during":
            self.calls.append("during")

    def after_finish(self):
        self.calls.append("finish")

    def get_results(self):
        launches = self.calls.count("before")
        return {"launches": launches, "fake_energy": 2.0 * self.configurations[-1]["block_size_x"],
                "order": list(self.calls)}


def test_observers_see_every_timed_launch_and_their_numbers_can_be_objectives():
    a, b, c, n = data()
    observer = CountingObserver()
    metrics = {"per_launch": lambda p: p["fake_energy"] / p["launches"]}
    results, env = run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], {"block_size_x": [32, 64, 128]},
                               observers=[observer], metrics=metrics, objective="per_launch",
                               objective_higher_is_better=True, iterations=4, quiet=True)
    assert observer.device is not None and observer.device.name == env["device_name"]
    assert [p["block_size_x"] for p in observer.configurations] == [32, 64, 128]
    for r in results:
        assert r["launches"] == 4
        assert r["per_launch"] == pytest.approx(2.0 * r["block_size_x"] / 4)
        order = [x for x in r["order"] if x != "during"]
        assert order == ["before", "start", "finish"] * 4
    assert env["best_config"]["block_size_x"] == 128  # the objective is the callable metric, maximised


def test_an_observer_that_raises_costs_its_configuration():
    a, b, c, n = data()

    class Failing(CountingObserver):
        def get_results(self):
            if self.configurations[-1]["block_size_x"] == 64:
                raise ValueError("sensor unplugged")
            return {}

    results, env = run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], {"block_size_x": [32, 64]},
                               observers=[Failing()], iterations=1, quiet=True)
    assert ["__error__" in r for r in results] == [False, True]


def test_output_observers_see_the_verification_run():
    a, b, c, n = data()

    class Outputs(OutputObserver):
        def __init__(self):
            self.seen = []

        def process_output(self, answer, output):
            self.seen.append(float(numpy.abs(output[0] - answer[0]).max()))

        def get_results(self):
            return {}

    observer = Outputs()
    run_or_skip("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], {"block_size_x": [32, 64]},
                answer=[a + b, None, None, None], observers=[observer], iterations=1, quiet=True)
    assert observer.seen == [0.0, 0.0]


def test_nvml_observer_says_why_it_cannot_observe_here(monkeypatch):
    from ktune.observers.nvml import NVMLObserver
    with pytest.raises(NotImplementedError, match="gr_voltage"):
        NVMLObserver(["nvml_energy", "gr_voltage"])
    with pytest.raises(ValueError, match="Observable fan_speed not in supported"):  # as Kernel Tuner
        NVMLObserver(["fan_speed"])
    monkeypatch.delenv("KTUNE_NVML_LIBRARY", raising=False)
    if not ktune._ktune.observer_unavailable("nvml"):
        pytest.skip("this machine has NVML")
    a, b, c, n = data()
    with pytest.raises(RuntimeError, match="NVMLObserver cannot observe on this machine"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], {"block_size_x": [32]},
                          observers=[NVMLObserver(["nvml_energy"])])


def test_nvml_observer_gives_the_observables_asked_for(monkeypatch):
    """Kernel Tuner's NVMLObserver example (energy and temperature, and a metric of the energy) on the stand-in NVML
    library of tests/support/fake_nvml: 100 W, 60-64 C, graphics clock 1410 MHz."""
    from ktune.observers.nvml import NVMLObserver
    fake = os.environ.get("KTUNE_FAKE_NVML")
    if not fake:
        pytest.skip("the stand-in NVML library is given by ctest (KTUNE_FAKE_NVML)")
    monkeypatch.setenv("KTUNE_NVML_LIBRARY", fake)
    a, b, c, n = data()
    results, env = run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1, 4]},
                               observers=[NVMLObserver(["nvml_energy", "temperature", "core_freq"])],
                               metrics={"GFLOPS/W": lambda p: (int(n) / 1e9) / p["nvml_energy"]}, iterations=3,
                               quiet=True)
    assert len(results) == 2
    for r in results:
        assert "__error__" not in r, r
        assert 60 <= r["temperature"] <= 64 and r["core_freq"] == 1410 and r["nvml_energy"] > 0
        assert r["GFLOPS/W"] > 0
        assert "nvml_power" not in r and "mem_freq" not in r  # not asked for


class RandomWalk(OptAlg):
    """A small custom optimiser: random samples, then Hamming neighbours of the best, until the budget ends."""

    def __call__(self, func, searchspace):
        best, best_cost = None, sys.float_info.max
        for config in searchspace.get_random_sample(3):
            cost = func(config)
            if cost < best_cost:
                best, best_cost = config, cost
        while True:
            for neighbour in searchspace.get_neighbors(best, neighbor_method="Hamming"):
                cost = func(neighbour)
                if cost < best_cost:
                    best, best_cost = neighbour, cost


def test_a_custom_optimiser_tunes_in_simulation(convolution_cache):
    names = []

    class Recording(RandomWalk):
        def __call__(self, func, searchspace):
            names[:] = searchspace.param_names
            assert len(searchspace.list) == searchspace.size == len(searchspace)
            return super().__call__(func, searchspace)

    runs = [ktune.tune_cache(convolution_cache, strategy=OptAlgWrapper(Recording()),
                             strategy_options={"max_fevals": 25, "seed": 3}, quiet=True) for _ in range(2)]
    results, env = runs[0]
    assert env["strategy"] == "Recording" and env["stop_reason"] == "max evaluations"
    assert len({tuple(r[k] for k in names) for r in results}) == 25
    assert [r["time"] for r in runs[0][0]] == [r["time"] for r in runs[1][0]]  # the seed reproduces the run
    other, _ = ktune.tune_cache(convolution_cache, strategy=OptAlgWrapper(Recording()),
                                strategy_options={"max_fevals": 25, "seed": 4}, quiet=True)
    assert [r["time"] for r in other] != [r["time"] for r in results]


def test_a_custom_optimiser_sees_invalid_configurations_as_the_penalty(convolution_cache):
    costs = []

    class Probe(OptAlg):
        def __call__(self, func, searchspace):
            valid = searchspace.get_random_sample(1)[0]
            assert searchspace.is_param_config_valid(valid)
            costs.append(func(valid))
            costs.append(func(tuple(-1 for _ in valid)))  # not a value of any parameter
            with pytest.raises(ValueError, match="one per parameter"):
                func(valid[:-1])
            while True:
                func(searchspace.get_random_sample(1)[0])

    results, _ = ktune.tune_cache(convolution_cache, strategy=Probe(), strategy_options={"max_fevals": 5}, quiet=True)
    assert costs[0] < sys.float_info.max and costs[1] == sys.float_info.max
    assert len({tuple(r.values())[:3] for r in results}) <= 5


def test_a_custom_optimiser_error_is_raised_not_swallowed(convolution_cache):
    class Broken(OptAlg):
        def __call__(self, func, searchspace):
            raise KeyError("bug in my optimiser")

    with pytest.raises(RuntimeError, match="bug in my optimiser"):
        ktune.tune_cache(convolution_cache, strategy=Broken(), quiet=True)


def test_strategies_by_module_name(convolution_cache):
    import ktune as kernel_tuner  # as a script using kernel_tuner.strategies.NAME without importing it
    assert kernel_tuner.strategies.minimize.name == "minimize"
    by_name, _ = ktune.tune_cache(convolution_cache, strategy="genetic_algorithm",
                                  strategy_options={"max_fevals": 20}, quiet=True)
    by_object, env = ktune.tune_cache(convolution_cache, strategy=ktune.strategies.genetic_algorithm,
                                      strategy_options={"max_fevals": 20}, quiet=True)
    assert [r["time"] for r in by_name] == [r["time"] for r in by_object]
    assert env["strategy"] == "genetic_algorithm"
    with pytest.raises(AttributeError, match="no strategy 'no_such'"):
        ktune.strategies.no_such


def test_c_functions_returning_float_report_their_own_time():
    a, b, c, n = data()
    kernel = "float vector_add(float *c, const float *a, const float *b, int n) {\n" \
             "    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];\n    return 1.5f * unroll;\n}\n"
    results, _ = run_or_skip("vector_add", kernel, int(n), [c, a, b, n], {"unroll": [1, 2]}, lang="C",
                             answer=[a + b, None, None, None], iterations=3, quiet=True)
    assert [r["times"] for r in results] == [[1.5] * 3, [3.0] * 3]
    # a void function is timed by ktune
    results, _ = run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1]}, lang="C",
                             iterations=2, quiet=True)
    assert results[0]["time"] > 0 and results[0]["times"] != [1.5, 1.5]


def test_a_scaling_optimiser_works_in_the_continuous_view(convolution_cache):
    points = []

    class Scaled(OptAlg):
        def __init__(self):
            super().__init__()
            self.costfunc_kwargs = {"scaling": True, "snap": True}

        def __call__(self, func, searchspace):
            n = len(searchspace.param_names)
            for step in range(1000):
                x = [((step * 7 + 3 * p) % 11) / 10 for p in range(n)]
                points.append(x)
                assert func(x) < sys.float_info.max  # snapped to a valid configuration

    results, env = ktune.tune_cache(convolution_cache, strategy=OptAlgWrapper(Scaled()),
                                    strategy_options={"max_fevals": 10}, quiet=True)
    assert env["stop_reason"] == "max evaluations" and len(points) >= 10


def test_without_a_strategy_a_budget_uses_auto_and_none_brute_force(convolution_cache):
    _, env = ktune.tune_cache(convolution_cache, strategy_options={"max_fevals": 20}, quiet=True)
    assert env["strategy"] == "auto"
    results, env = ktune.tune_cache(convolution_cache, quiet=True)
    assert env["strategy"] == "brute_force" and len(results) == env["search_space_size"]


def test_float16_arrays_pass_as_their_raw_bits():
    a = numpy.arange(8, dtype=numpy.float16)
    b = numpy.zeros(8, dtype=numpy.float32)
    code = "#include <stdint.h>\nvoid f(const uint16_t *a, float *b, int n) { for (int i = 0; i < n; i++) b[i] = a[i]; }"
    out = ktune.run_kernel("f", code, 8, [a, b, numpy.int32(8)], {"block_size_x": 1}, lang="C")
    assert out[0].dtype == numpy.float16 and list(out[0]) == list(a)
    assert list(out[1]) == list(a.view(numpy.uint16).astype(numpy.float32))  # the kernel saw the half's bits


def test_compile_workers_measure_the_same_configurations_in_the_same_order():
    a, b, c, n = data()
    params = {"unroll": [1, 2, 4], "variant": [0, 1]}
    kernel = "void vector_add(float *c, const float *a, const float *b, int n) {\n" \
             "#if variant == 1\n  does not compile;\n#endif\n" \
             "    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];\n}\n"
    runs = []
    for workers in (0, 1):
        results, env = run_or_skip("vector_add", kernel, int(n), [c, a, b, n], params, lang="C",
                                   answer=[a + b, None, None, None], iterations=2, quiet=True,
                                   compile_workers=workers)
        runs.append(([(r["unroll"], r["variant"], "time" in r and r["time"] != float("inf")) for r in results], env))
    assert runs[0][0] == runs[1][0]
    assert [ok for _, _, ok in runs[0][0]] == [True, False] * 3


def test_a_custom_optimiser_sees_kernel_tuners_searchspace_helpers(convolution_cache):
    seen = {}

    class Probe(OptAlg):
        def __call__(self, func, searchspace):
            listing = searchspace.get_list_dict()
            seen["num_params"] = searchspace.num_params == len(searchspace.param_names) > 1
            seen["positions"] = all(listing[c] == i for i, c in enumerate(searchspace.list))
            some = searchspace.get_random_sample_indices(5)
            configs = searchspace.get_param_configs_at_indices(some)
            seen["indices"] = [searchspace.list[i] for i in some] == configs and len(set(some)) == 5
            first = searchspace.list[0]
            seen["value_positions"] = all(searchspace.params_values[p][v] == first[p]
                                          for p, v in enumerate(searchspace.get_param_indices(first)))
            with pytest.raises(IndexError, match="beyond"):
                searchspace.get_param_configs_at_indices([searchspace.size])
            for config in configs:
                func(config)

    results, _ = ktune.tune_cache(convolution_cache, strategy=OptAlgWrapper(Probe()), quiet=True)
    assert seen == {"num_params": True, "positions": True, "indices": True, "value_positions": True}
    assert len(results) == 5


OPTIMISER_FILE = '''
from ktune.strategies.wrapper import OptAlg

class FirstN(OptAlg):
    """Asks the first `count` configurations, the first one twice."""
    def __init__(self, count=3):
        super().__init__()
        self.count = count

    def __call__(self, func, searchspace):
        func(searchspace.list[0])
        for config in searchspace.list[:self.count]:
            func(config)
'''


def test_a_custom_optimiser_from_a_file_by_class_name(convolution_cache, tmp_path):
    # Kernel Tuner's custom_search_method_path (its tune_kernel_T1 takes custom optimisers this way): the class named
    # by `strategy`, made with the other options; a revisit is listed again, as Kernel Tuner lists it.
    path = tmp_path / "first_n.py"
    path.write_text(OPTIMISER_FILE)
    results, env = ktune.tune_cache(convolution_cache, strategy="FirstN",
                                    strategy_options={"custom_search_method_path": str(path), "count": 4,
                                                      "constraint_aware": False}, quiet=True)
    assert env["strategy"] == "FirstN" and len(results) == 5
    assert results[1] == {**results[0], **{k: 0.0 for k in ("compile_time", "verification_time", "benchmark_time",
                                                            "framework_time", "strategy_time")}}
    with pytest.raises(ValueError, match="defines no class Missing"):
        ktune.tune_cache(convolution_cache, strategy="Missing",
                         strategy_options={"custom_search_method_path": str(path)}, quiet=True)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ktune.tune_cache(convolution_cache, strategy="FirstN",
                         strategy_options={"custom_search_method_path": str(tmp_path / "none.py")}, quiet=True)


def test_an_observer_factory_gets_the_kernels_language_and_register_observer_is_refused():
    # Kernel Tuner's test_lambda_observer: without lang, the factory's args name the language of the code ("C").
    from ktune.observers.register import RegisterObserver
    a, b, c, n = data(256)
    got = []

    class Args(BenchmarkObserver):
        def __init__(self, args):
            got.append(args)

        def get_results(self):
            return {}

    run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": [1]}, iterations=1, quiet=True,
                observers=[lambda args: Args(args)])
    assert got and got[0]["lang"] == "C"
    with pytest.raises(NotImplementedError, match="RegisterObserver on a OpenCL kernel"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(n), [c, a, b, n], {"block_size_x": [32]},
                          observers=[RegisterObserver()], quiet=True)


def test_revisits_are_listed_up_to_a_limit_with_a_warning(convolution_cache):
    class Spinner(OptAlg):
        def __call__(self, func, searchspace):
            for _ in range(2**15 + 5):
                func(searchspace.list[0])

    with pytest.warns(UserWarning, match=r"asked 32772 times for configurations it had evaluated; the first 32768"):
        results, _ = ktune.tune_cache(convolution_cache, strategy=OptAlgWrapper(Spinner()), quiet=True)
    assert len(results) == 1 + 2**15


CONSTANT_WEIGHTS_CU = """
__constant__ float weights[4];
extern "C" __global__ void weigh(float *x, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) x[i] *= weights[i % 4];
}
"""


def test_cmem_args_fill_a_cuda_kernels_constant_memory():
    """Kernel Tuner's cmem_args: CUDA's __constant__ variables filled before each configuration runs (checked on a
    GPU; elsewhere the arguments are taken and the backend says it is not available here). Other backends have no
    constant memory, as in Kernel Tuner."""
    x, n = numpy.full(256, 2.0, dtype=numpy.float32), numpy.int32(256)
    weights = numpy.array([0.5, 1.0, 1.5, 2.0], dtype=numpy.float32)
    try:
        out = ktune.run_kernel("weigh", CONSTANT_WEIGHTS_CU, int(n), [x, n], {"block_size_x": 64}, lang="CUDA",
                               cmem_args={"weights": weights})
    except ktune.JobError as e:
        assert "not available here" in str(e) or "no CUDA" in str(e), e
    else:
        assert numpy.array_equal(out[0], 2.0 * numpy.tile(weights, 64))
    with pytest.raises(TypeError, match="cmem_args: 'weights' must map a variable name to a numpy array"):
        ktune.tune_kernel("weigh", CONSTANT_WEIGHTS_CU, int(n), [x, n], {"block_size_x": [64]}, lang="CUDA",
                          cmem_args={"weights": [0.5, 1.0]})
    a, b, c, size = data()
    with pytest.raises(NotImplementedError, match="cmem_args: constant memory is CUDA's"):
        ktune.tune_kernel("vector_add", VECTOR_ADD_CL, int(size), [c, a, b, size], {"block_size_x": [32]},
                          cmem_args={"weights": weights})
