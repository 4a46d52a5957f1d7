"""Kernel Tuner's kernel_tuner.accuracy in ktune: the error metrics by name, the Tunable containers, and the
AccuracyObserver tuning a kernel whose precision is a parameter (the error a measurement, a metric's input and an
objective; the answer not refused by allclose, as in Kernel Tuner)."""
import math

import numpy
import pytest

import ktune
from ktune.accuracy import (AccuracyObserver, Tunable, TunablePrecision, _to_float_dtype, error_metric_from_name)

from test_live import data, run_or_skip


def test_error_metrics_by_their_names_and_spellings():
    answer = numpy.array([1.0, 2.0, 4.0, 8.0])
    output = numpy.array([1.0, 3.0, 4.0, 6.0])  # differences 0, -1, 0, 2
    expected = {
        "MSE": 5 / 4, "Root Mean-Squared Error": math.sqrt(5 / 4), "nrmse": math.sqrt((5 / 4) / (85 / 4)),
        "mean abs error": 3 / 4, "relative": (1 / 2 + 2 / 8) / 4, "rmsre": math.sqrt((1 / 4 + 4 / 64) / 4),
        "max": 2.0, "max rel error": 0.5,
        "male": numpy.mean(numpy.abs(numpy.log10(answer + 1e-8) - numpy.log10(output + 1e-8))),
    }
    for name, value in expected.items():
        assert error_metric_from_name(name)(answer, output) == pytest.approx(value), name
    # computed in double whatever the types
    assert error_metric_from_name("mae")(answer.astype(numpy.float16), output.astype(numpy.float32)) == 0.75
    with pytest.raises(ValueError, match="invalid error metric provided: median error"):
        error_metric_from_name("median error")


def test_tunable_containers_choose_by_parameter_name_expression_or_function():
    by_name = Tunable("layout", {"row": "R", "column": "C"})
    assert by_name({"layout": "column"}) == "C"
    by_expression = Tunable("block_size_x * 2", {64: "sixty-four"})
    assert by_expression({"block_size_x": 32}) == "sixty-four"
    by_function = Tunable(lambda p: p["a"] + p["b"], ["zero", "one", "two"])
    assert by_function.select_for_configuration({"a": 1, "b": 1}) == "two"
    with pytest.raises(KeyError, match="'3' is not a valid parameter value, should be one of: 0, 1, 2"):
        by_function({"a": 1, "b": 2})
    values = numpy.array([0.1, 2.5, 1e4])
    precision = TunablePrecision("p", values, ["half", "f32", "double"])
    assert precision({"p": "half"}).dtype == numpy.float16 and precision({"p": "f32"}).dtype == numpy.float32
    assert numpy.array_equal(precision({"p": "double"}), values)
    assert set(TunablePrecision("p", values)) >= {"half", "float", "double"}
    assert _to_float_dtype("__half") == numpy.float16 and _to_float_dtype(64) == numpy.float64
    assert _to_float_dtype("int32") == numpy.int32


# c = a + b with the sum cut to `bits` binary digits after the point: fewer bits, larger error.
TRUNCATING_ADD = """
void vector_add(float *c, const float *a, const float *b, int n) {
    const float scale = (float)(1 << bits);
    for (int i = 0; i < n; i++)
        c[i] = (float)(int)((a[i] + b[i]) * scale) / scale;
}
"""


def test_accuracy_observer_measures_the_error_of_each_precision():
    a, b, c, n = data()
    observer = AccuracyObserver("max abs", key="max_error")
    results, env = run_or_skip("vector_add", TRUNCATING_ADD, int(n), [c, a, b, n], {"bits": [2, 6, 12]},
                               answer=[a + b, None, None, None], observers=[observer],
                               metrics={"digits": lambda p: -math.log10(p["max_error"])},
                               objective="max_error", objective_higher_is_better=False, iterations=1,
                               quiet=True)
    assert all("__error__" not in r for r in results), results  # not refused by allclose
    error = {r["bits"]: r["max_error"] for r in results}
    for bits in (2, 6, 12):
        assert 0 < error[bits] <= 2.0 ** -bits  # truncation: less than one unit of the last kept digit
    assert error[2] > error[6] > error[12]
    assert env["best_config"]["bits"] == 12  # the error as the objective
    assert all(r["digits"] == pytest.approx(-math.log10(r["max_error"])) for r in results)


def test_tunable_arguments_are_refused_naming_the_argument():
    a, b, c, n = data()
    with pytest.raises(NotImplementedError, match="argument 2 is a TunablePrecision"):
        ktune.tune_kernel("vector_add", TRUNCATING_ADD, int(n), [c, TunablePrecision("p", a), b, n], {"bits": [2]},
                          quiet=True)
