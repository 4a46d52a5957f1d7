"""Mistakes in tune_kernel's arguments that used to vanish (a configuration failing for no reason shown, a silent nan
or an empty result, a raw pybind11 message): each gets a Python exception or warning that names the argument."""
import math
import pathlib
import subprocess
import sys
import warnings

import numpy
import pytest

import ktune

from test_live import VECTOR_ADD_C, data, run_or_skip


def c_kernel(**kwargs):
    """tune_kernel of the C vector_add with `kwargs` replacing its arguments."""
    a, b, c, n = data(1000)
    arguments = dict(kernel_name="vector_add", kernel_source=VECTOR_ADD_C, problem_size=int(n),
                     arguments=[c, a, b, n], tune_params={"unroll": [1, 2]}, lang="C", iterations=1, quiet=True)
    arguments.update(kwargs)
    return run_or_skip(**arguments)


def test_a_kernel_source_that_looks_like_a_missing_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for missing in ["vector_add.c", "kernels/vector_add.cl", str(tmp_path / "no such folder" / "k.c")]:
        with pytest.raises(FileNotFoundError, match=r"kernel_source '.*' looks like a file name, but it does not"):
            c_kernel(kernel_source=missing)
    with pytest.raises(FileNotFoundError, match="kernel_source"):
        c_kernel(kernel_source=pathlib.Path("vector_add.c"))
    with pytest.raises(FileNotFoundError, match=r"kernel_source\[0\]"):
        c_kernel(kernel_source=["vector_add.c"])
    (tmp_path / "vector_add (copy).c").write_text(VECTOR_ADD_C)  # a file whose name has code's characters is a file
    results, _ = c_kernel(kernel_source="vector_add (copy).c")
    assert all("__error__" not in r for r in results)


def test_a_nul_byte_in_a_path_is_refused_not_cut_short(tmp_path, convolution_cache):
    (tmp_path / "vector_add.c").write_text(VECTOR_ADD_C)
    with pytest.raises(ValueError, match="kernel_source .* NUL byte"):
        c_kernel(kernel_source=str(tmp_path / "vector_add.c") + "\0.bak")
    with pytest.raises(ValueError, match="cache .* NUL byte"):
        c_kernel(cache=str(tmp_path / "c.json") + "\0/elsewhere")
    assert not list(tmp_path.glob("c.json*"))  # nothing was written to the name before the NUL
    with pytest.raises(ValueError, match="cache .* NUL byte"):
        ktune.tune_cache(convolution_cache + "\0.old", quiet=True)


def test_a_verify_function_that_raises_is_raised_not_a_failed_configuration():
    """Before: every configuration failed (VerificationFailedConfig) and nothing said why."""
    calls = []

    def verify(answer, result, atol=None):
        calls.append(1)
        return numpy.allclose(result[0], answer[0], atol=atol, equal_nan=undefined_name)  # noqa: F821

    a, b, _, _ = data(1000)
    with pytest.raises(NameError, match="undefined_name") as raised:
        c_kernel(answer=[a + b, None, None, None], verify=verify, tune_params={"unroll": [1, 2, 4]})
    assert calls == [1]  # the run stopped at the first check
    if sys.version_info >= (3, 11):  # exceptions carry notes
        assert any("tune_kernel's verify function (verify)" in note for note in raised.value.__notes__)


def test_a_callable_metric_that_raises_gives_nan_with_a_warning_naming_it():
    def broken(p):
        return p["time"] / (p["unroll"] - 2)  # ZeroDivisionError for unroll=2

    with pytest.warns(UserWarning, match=r"metric 'per_unroll' raised for 1 configuration.*unroll=2.*ZeroDivision"):
        results, _ = c_kernel(metrics={"per_unroll": broken}, tune_params={"unroll": [1, 2, 4]})
    values = {r["unroll"]: r["per_unroll"] for r in results}
    assert math.isnan(values[2]) and not math.isnan(values[1]) and not math.isnan(values[4])
    with pytest.warns(UserWarning, match=r"metric 'nothing' raised for 2 configurations.*returned None, not a number"):
        c_kernel(metrics={"nothing": lambda p: None})


def test_arguments_must_be_a_list():
    a, b, c, n = data(1000)
    with pytest.raises(TypeError, match=r"arguments must be a list .* not a numpy.ndarray \(one array argument"):
        c_kernel(arguments=c)
    with pytest.raises(TypeError, match="arguments must be a list"):
        ktune.run_kernel("vector_add", VECTOR_ADD_C, 1000, c, {"unroll": 1}, lang="C")


def test_compiler_options_must_be_a_list_of_strings():
    with pytest.raises(TypeError, match=r"compiler_options must be a list of strings.*'-O3 -g'"):
        c_kernel(compiler_options="-O3 -g")
    with pytest.raises(TypeError, match="compiler_options"):
        c_kernel(compiler_options=["-O3", 2])


def test_out_of_range_and_wrongly_typed_values_name_their_argument(convolution_cache):
    with pytest.raises(ValueError, match=r"tune_params\['unroll'\] holds 1180591620717411303424, which does not fit"):
        c_kernel(tune_params={"unroll": [1, 2**70]})
    with pytest.raises(ValueError, match=r"tune_params\['unroll'\] has no values"):
        c_kernel(tune_params={"unroll": []})
    with pytest.raises(TypeError, match=r"tune_params\['unroll'\] must be a list of values, not str"):
        c_kernel(tune_params={"unroll": "124"})
    with pytest.raises(TypeError, match="kernel_name must be the name of the kernel function .* not None"):
        c_kernel(kernel_name=None)
    with pytest.raises(ValueError, match="seed must be an integer from 0 to 18446744073709551615, not -1"):
        c_kernel(seed=-1)
    with pytest.raises(ValueError, match=r"strategy_options\['seed'\] must be an integer from 0"):
        ktune.tune_cache(convolution_cache, strategy_options={"seed": 2**64}, quiet=True)
    with pytest.raises(TypeError, match="seed must be an integer, not 1.5"):
        ktune.tune_cache(convolution_cache, seed=1.5, quiet=True)
    with pytest.raises(ValueError, match="iterations must be an integer from 1"):
        c_kernel(iterations=2**70)
    with pytest.raises(ValueError, match="device must be an integer from 0"):
        c_kernel(device=-1)
    with pytest.raises(ValueError, match="devices: .* beyond any device"):
        c_kernel(devices=[0, 2**70])
    # A budget beyond any space is no limit, not an error.
    results, _ = ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"max_fevals": 2**70},
                                  quiet=True)
    assert results


def test_a_time_limit_spent_before_the_first_evaluation_raises_as_in_kernel_tuner(convolution_cache):
    # Kernel Tuner raises RuntimeError ("The startup time of the tuning process has exceeded the time limit") rather
    # than return no results; its test_time_budgets.py checks it with time_limit 0.
    startup = "startup time of the tuning process has exceeded the time limit of"
    with pytest.raises(RuntimeError, match=startup + " 0 s"):
        c_kernel(strategy="random_sample", strategy_options={"time_limit": 0.0})
    with pytest.raises(RuntimeError, match=startup + " 1e-06 s"):
        c_kernel(strategy="random_sample", strategy_options={"time_limit": 1e-6})
    with pytest.raises(RuntimeError, match=startup + " 0 s"):
        ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"time_limit": 0},
                         quiet=True)
    # In simulation the limit is simulated time, charged after each evaluation: the first always runs.
    results, _ = ktune.tune_cache(convolution_cache, strategy="random_sample", strategy_options={"time_limit": 1e-9},
                                  quiet=True)
    assert len(results) == 1
    with pytest.raises(ValueError, match=r"time_limit'\] must be a positive number of seconds, not -1"):
        c_kernel(strategy_options={"time_limit": -1})
    results, env = c_kernel(strategy="random_sample", strategy_options={"time_limit": 30.0})
    assert len(results) == 2 and env["stop_reason"] != "time limit"


def test_restrictions_that_exclude_everything_are_refused():
    with pytest.raises(ValueError, match="the restrictions exclude every one of the 2 configurations of tune_params"):
        c_kernel(restrictions=["unroll > 100"])
    with pytest.raises(ValueError, match="the restrictions exclude every one of the 2 configurations"):
        c_kernel(restrictions=lambda p: False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results, _ = c_kernel(restrictions=["unroll > 1"])  # a restriction that leaves some is fine
    assert [r["unroll"] for r in results] == [2]


def test_the_wrapper_submodule_is_reachable_after_import_ktune():
    """docs/python.md writes ktune.strategies.wrapper.OptAlgWrapper(...) after a plain `import ktune`, as Kernel Tuner
    users write it (a fresh interpreter: this one has imported the submodule already)."""
    code = ("import ktune\n"
            "class Mine(ktune.strategies.wrapper.OptAlg):\n"
            "    def __call__(self, func, searchspace):\n"
            "        pass\n"
            "print(type(ktune.strategies.wrapper.OptAlgWrapper(Mine())).__name__)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(__import__("os").environ, PYTHONPATH=str(pathlib.Path(ktune.__file__).parents[1])))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "OptAlgWrapper"
