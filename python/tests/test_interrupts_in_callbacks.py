"""A KeyboardInterrupt (a Ctrl-C that lands while Python code of the caller runs) or a SystemExit out of any callback
tune_kernel calls (restrictions, metrics, verify, code generators, defines, observers, custom optimisers) ends the
run and is raised by tune_kernel as itself: never recorded as the failure of the configuration in flight (so a
resumed run measures it), never turned into ktune.JobError, and never leaving the tune to go on to its end."""
import json
import os
import signal

import numpy
import pytest

import ktune
from ktune.observers import BenchmarkObserver, OutputObserver
from ktune.strategies.wrapper import OptAlg, OptAlgWrapper

from test_live import VECTOR_ADD_C, data, run_or_skip

UNROLLS = [1, 2, 4, 8]


def cached_configurations(cache):
    """{unroll: entry} of a Kernel Tuner cache file ktune wrote."""
    with open(cache) as f:
        document = json.load(f)
    return {int(entry["unroll"]): entry for entry in document["cache"].values()}


def tune(cache=None, **kwargs):
    a, b, c, n = data(1000)
    options = dict(answer=[a + b, None, None, None], lang="C", iterations=1, quiet=True, strategy="brute_force")
    options.update(kwargs)
    if cache is not None:
        options["cache"] = str(cache)
    return run_or_skip("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], {"unroll": list(UNROLLS)}, **options)


def test_a_ctrl_c_during_the_output_check_is_raised_and_the_configuration_is_measured_again(tmp_path):
    """The reported case: SIGINT while the answer is compared. Before, the configuration in flight was stored as a
    VerificationFailedConfig (results and cache) and the tune went on to the end."""
    a, b, _, _ = data(1000)
    checks = []

    def verify(answer, result, atol=None):
        checks.append(1)
        if len(checks) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, delivered while this check runs
            for _ in range(1000):
                numpy.allclose(result[0], a + b)
        return numpy.allclose(result[0], a + b, atol=atol)

    cache = tmp_path / "cache.json"
    with pytest.raises(KeyboardInterrupt):
        tune(cache, verify=verify)
    assert len(checks) == 2  # the tune stopped there
    kept = cached_configurations(cache)
    assert sorted(kept) == [1]  # the configuration in flight (unroll=2) has no result, failed or not
    # The same command again measures what is missing, the interrupted configuration included, and it is correct.
    results, env = tune(cache)
    assert sorted(r["unroll"] for r in results) == UNROLLS and all("__error__" not in r for r in results)
    assert sorted(cached_configurations(cache)) == UNROLLS


def raising_at_second(exception):
    """A callable raising `exception` on its second call (the first configuration passes)."""
    calls = []

    def call(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise exception
        return None
    return call


class Observer(BenchmarkObserver):
    """Raises from `hook` while the second configuration (unroll=2) is measured."""

    def __init__(self, hook, exception):
        self.hook, self.exception, self.unroll = hook, exception, None

    def _maybe_raise(self, hook):
        if hook == self.hook and self.unroll == 2:
            raise self.exception

    def register_configuration(self, params):
        self.unroll = params["unroll"]
        self._maybe_raise("register_configuration")

    def before_start(self):
        self._maybe_raise("before_start")

    def get_results(self):
        self._maybe_raise("get_results")
        return {}


class Outputs(OutputObserver):
    def __init__(self, exception):
        self.raiser = raising_at_second(exception)

    def process_output(self, answer, output):
        self.raiser()

    def get_results(self):
        return {}


def callback_arguments(where, exception):
    """tune_kernel's arguments with a callback at `where` that raises `exception` at the second configuration."""
    raiser = raising_at_second(exception)  # for the callbacks that are not given the configuration

    def at_unroll_2(p):
        if p["unroll"] == 2:
            raise exception
        return None
    a, b, _, _ = data(1000)
    if where == "verify":
        return dict(verify=lambda answer, result, atol=None: raiser() or numpy.allclose(result[0], a + b))
    if where == "restrictions":
        return dict(restrictions=lambda p: at_unroll_2(p) or True)
    if where == "metrics":
        return dict(metrics={"double": lambda p: at_unroll_2(p) or 2 * p["time"]})
    if where == "defines":
        return dict(defines={"unroll": lambda p: at_unroll_2(p) or p["unroll"]})
    if where == "generator":
        return dict(kernel_source=lambda p: at_unroll_2(p) or VECTOR_ADD_C)
    if where == "output_observer":
        return dict(observers=[Outputs(exception)])
    return dict(observers=[Observer(where, exception)])


WHERE = ["verify", "restrictions", "metrics", "defines", "generator", "output_observer", "register_configuration",
         "before_start", "get_results"]


@pytest.mark.parametrize("exception", [KeyboardInterrupt, SystemExit(3)], ids=["KeyboardInterrupt", "SystemExit"])
@pytest.mark.parametrize("where", WHERE)
def test_an_interrupt_or_exit_in_a_callback_is_raised_as_itself(tmp_path, where, exception):
    kwargs = callback_arguments(where, exception)
    cache = tmp_path / "cache.json"
    expected = exception if isinstance(exception, type) else type(exception)
    if where == "generator":
        a, b, c, n = data(1000)
        with pytest.raises(expected) as raised:
            run_or_skip("vector_add", kwargs["kernel_source"], int(n), [c, a, b, n], {"unroll": list(UNROLLS)},
                        answer=[a + b, None, None, None], lang="C", iterations=1, quiet=True,
                        strategy="brute_force", cache=str(cache))
    else:
        with pytest.raises(expected) as raised:
            tune(cache, **kwargs)
    if expected is SystemExit:
        assert raised.value.code == 3
    if where != "restrictions":  # the space is built before anything is measured or cached
        kept = cached_configurations(cache)
        assert sorted(kept) == [1], kept  # the first is measured; the one in flight has no (failed) result
    # The stop it requested is withdrawn: the next run in this interpreter runs to its end.
    results, env = tune()
    assert env["stop_reason"] != "interrupted" and len(results) == len(UNROLLS)


@pytest.mark.parametrize("exception", [KeyboardInterrupt, SystemExit], ids=["KeyboardInterrupt", "SystemExit"])
def test_an_interrupt_in_a_restriction_in_simulation_is_not_a_job_error(convolution_cache, exception):
    with pytest.raises(exception):
        ktune.tune_cache(convolution_cache, restrictions=raising_at_second(exception), quiet=True)


class Interrupting(OptAlg):
    def __init__(self, exception):
        super().__init__()
        self.exception = exception
        self.calls = 0

    def __call__(self, func, searchspace):
        for config in searchspace.list:
            func(config)
            self.calls += 1
            if self.calls == 3:
                raise self.exception


@pytest.mark.parametrize("exception", [KeyboardInterrupt, SystemExit], ids=["KeyboardInterrupt", "SystemExit"])
def test_an_interrupt_in_a_custom_optimiser_is_raised_as_itself(convolution_cache, exception):
    optimiser = Interrupting(exception)
    with pytest.raises(exception):
        ktune.tune_cache(convolution_cache, strategy=OptAlgWrapper(optimiser), quiet=True)
    assert optimiser.calls == 3
    results, env = ktune.tune_cache(convolution_cache, strategy_options={"max_fevals": 5}, quiet=True)
    assert env["stop_reason"] != "interrupted" and len(results) == 5


@pytest.mark.parametrize("exception", [KeyboardInterrupt, SystemExit], ids=["KeyboardInterrupt", "SystemExit"])
def test_an_interrupt_while_an_observer_registers_the_device_is_raised_as_itself(exception):
    class Refusing(BenchmarkObserver):
        def register_device(self, dev):
            raise exception

        def get_results(self):
            return {}

    with pytest.raises(exception):
        tune(observers=[Refusing()])
    results, env = tune()
    assert len(results) == len(UNROLLS)
