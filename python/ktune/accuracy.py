"""Kernel Tuner's ``kernel_tuner.accuracy``: error metrics of an output against its answer, the ``AccuracyObserver``
that records one per configuration (a measurement: a metric's input, an objective), and the ``Tunable`` /
``TunablePrecision`` containers of arrays selected by a parameter.

The error metrics match Kernel Tuner's (and, as names, the C++ side's accuracy measures of docs/live-tuning.md).
``tune_kernel`` and ``run_kernel`` do not take ``Tunable`` arguments yet: they raise ``NotImplementedError`` naming
the argument; a kernel that computes in the precision a parameter chooses (a define) and whose arrays stay as given
is tuned for accuracy with ``AccuracyObserver`` alone."""
import logging
import re
from collections import UserDict

import numpy as np

from ktune.observers import OutputObserver


class Tunable(UserDict):
    """Several values of one argument, the one a configuration uses chosen by ``param_key``: a parameter's name, an
    expression over the parameters, or a function of the parameter dict. ``arrays`` maps each choice to its value (a
    list or tuple maps 0, 1, ... in order)."""

    def __init__(self, param_key, arrays):
        if isinstance(arrays, (list, tuple)):
            arrays = dict(enumerate(arrays))
        super().__init__(arrays)
        self.param_key = param_key

    def select_for_configuration(self, params):
        """The value for the configuration ``params``; KeyError naming the valid choices when there is none."""
        if callable(self.param_key):
            choice = self.param_key(params)
        elif self.param_key in params:
            choice = params[self.param_key]
        else:
            choice = eval(self.param_key, {}, dict(params))  # an expression over the parameters, as Kernel Tuner
        if choice not in self.data:
            raise KeyError(f"'{choice}' is not a valid parameter value, should be one of: "
                           f"{', '.join(str(k) for k in self.data)}")
        return self.data[choice]

    def __call__(self, params):
        return self.select_for_configuration(params)


def _bfloat16():
    """numpy's bfloat16 where a package provides one (ml_dtypes, jax, tensorflow), else None with a warning."""
    try:
        return np.dtype("bfloat16")
    except TypeError:
        pass
    for load in (lambda: __import__("ml_dtypes").bfloat16, lambda: __import__("jax.numpy").numpy.bfloat16,
                 lambda: __import__("tensorflow").bfloat16.as_numpy_dtype):
        try:
            return load()
        except (ImportError, AttributeError):
            continue
    logging.warning("no bfloat16 data type for numpy: install ml_dtypes, jax or tensorflow")
    return None


_HALF = ("half", "f16", "float16", "__half", "khalf", 16)
_SINGLE = ("float", "single", "f32", "float32", "kfloat", 32)
_DOUBLE = ("double", "f64", "float64", "kdouble", 64)


def _to_float_dtype(x):
    """The numpy floating type a name (or bit count) stands for: the C, CUDA and Kernel Tuner spellings of half,
    single, double and bfloat16; anything else as numpy.dtype reads it."""
    name = x.lower() if isinstance(x, str) else x
    if name in ("bfloat16", "bf16", "kbfloat16", "__nv_bfloat16"):
        found = _bfloat16()
        if found is not None:
            return found
    if name in _HALF:
        return np.half
    if name in _SINGLE:
        return np.float32
    if name in _DOUBLE:
        return np.float64
    return np.dtype(x)


class TunablePrecision(Tunable):
    """One array in several floating-point precisions, the one a configuration uses chosen by ``param_key``.
    ``dtypes`` maps choices to numpy types (a list of type names maps each name to its type); by default half,
    float and double, and bfloat16 where numpy has it."""

    def __init__(self, param_key, array, dtypes=None):
        if not dtypes:
            dtypes = {"half": np.half, "float": np.single, "double": np.double}
            bfloat16 = _bfloat16()
            if bfloat16 is not None:
                dtypes["bfloat16"] = bfloat16
        if isinstance(dtypes, (list, tuple)):
            dtypes = {name: _to_float_dtype(name) for name in dtypes}
        if not isinstance(array, np.generic):  # a numpy scalar stays a scalar
            array = np.array(array)
        super().__init__(param_key, {choice: array.astype(dtype) for choice, dtype in dtypes.items()})


def _words(name):
    """An error metric's name reduced to its words: lower case, without the word "error", underscores and dashes,
    and the usual abbreviations spelled out."""
    key = re.sub(r"\berror\b", " ", name.lower())
    key = re.sub(r"[\s_-]+", " ", key).strip()
    for short, word in (("average", "mean"), ("avg", "mean"), ("square", "squared"), ("sq", "squared"),
                        ("max", "maximum"), ("rel", "relative"), ("abs", "absolute"), ("log", "logarithmic")):
        key = re.sub(rf"\b{short}\b", word, key)
    return key


def error_metric_from_name(user_key, EPS=1e-8):
    """The error metric ``user_key`` names, as a function of (answer, output) computed in double precision: MSE,
    RMSE, NRMSE (by the answer's root mean square), MAE, MRE, RMSRE, MALE and RMSLE (base-10 logarithms), maximum
    absolute and maximum relative error. ``EPS`` keeps relative and logarithmic errors finite. ValueError for an
    unknown name."""
    def relative(a, b):
        return np.abs(a - b) / np.maximum(np.abs(a), EPS)

    metrics = {
        ("mse", "mean squared"): lambda a, b: np.average(np.square(a - b)),
        ("rmse", "root mean squared"): lambda a, b: np.sqrt(np.average(np.square(a - b))),
        ("nrmse", "normalized root mean squared"):
            lambda a, b: np.sqrt(np.average(np.square(a - b)) / np.average(np.square(a))),
        ("mae", "absolute", "mean absolute"): lambda a, b: np.average(np.abs(a - b)),
        ("mre", "relative", "mean relative"): lambda a, b: np.average(relative(a, b)),
        ("rmsre", "root mean squared relative"):
            lambda a, b: np.sqrt(np.average(np.square(a - b) / np.square(np.maximum(a, EPS)))),
        ("male", "mean absolute logarithmic"):
            lambda a, b: np.average(np.abs(np.log10(a + EPS) - np.log10(b + EPS))),
        ("rmsle", "root mean squared logarithmic"):
            lambda a, b: np.sqrt(np.average(np.square(np.log10(a + EPS) - np.log10(b + EPS)))),
        ("maximum absolute", "maximum"): lambda a, b: np.amax(np.abs(a - b)),
        ("maximum relative",): lambda a, b: np.amax(relative(a, b)),
    }
    key = _words(user_key)
    for names, metric in metrics.items():
        if key in names:
            return lambda a, b, metric=metric: metric(np.asarray(a).astype(np.float64, copy=False),
                                                      np.asarray(b).astype(np.float64, copy=False))
    raise ValueError(f"invalid error metric provided: {user_key}")


class AccuracyObserver(OutputObserver):
    """The error of a configuration's outputs against the answer, recorded as the measurement ``key`` ("error"): the
    largest over the outputs that have an answer. ``metric`` is a name ``error_metric_from_name`` accepts (RMSE by
    default) or a function of (answer, output); ``atol`` is its EPS. With an OutputObserver the answer is not
    checked with allclose (as in Kernel Tuner): the error is measured, and a metric or objective decides."""

    def __init__(self, metric=None, key="error", *, atol=1e-8):
        metric = metric or "rmse"
        self.metric = error_metric_from_name(metric, atol) if isinstance(metric, str) else metric
        self.key = key
        self.result = None

    def process_output(self, answers, outputs):
        errors = [self.metric(answer, output) for answer, output in zip(answers, outputs) if answer is not None]
        self.result = max(errors) if errors else None

    def get_results(self):
        return {self.key: self.result}
