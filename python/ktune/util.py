"""Helpers a Kernel Tuner script imports from ``kernel_tuner.util``, with Kernel Tuner's names and behaviour."""


class ErrorConfig(str):
    """A failed configuration: a ``str`` whose value is Kernel Tuner's error name, as in Kernel Tuner's results."""

    def __new__(cls):
        return super().__new__(cls, cls.__name__)

    def __repr__(self):
        return self.__class__.__name__


class InvalidConfig(ErrorConfig):
    """The configuration violates a restriction or a device limit."""


class CompilationFailedConfig(ErrorConfig):
    """The kernel did not compile for this configuration."""


class RuntimeFailedConfig(ErrorConfig):
    """The kernel failed to launch or run for this configuration."""


class VerificationFailedConfig(ErrorConfig):
    """ktune's name for a wrong result (Kernel Tuner aborts the run instead)."""


class TimeoutConfig(ErrorConfig):
    """ktune's name for a configuration that ran past its time limit (Kernel Tuner has none)."""


_ERRORS = {cls.__name__: cls for cls in (ErrorConfig, InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig,
                                         VerificationFailedConfig, TimeoutConfig)}


def error_config(name):
    """The ErrorConfig instance of a Kernel Tuner error name (an unknown name is a runtime failure)."""
    return _ERRORS.get(name, RuntimeFailedConfig)()


def get_config_string(params, keys=None, units=None):
    """``name=value`` of each item of ``params`` (only those in ``keys`` when given), joined by ", "; a unit from
    the ``units`` dict follows its value."""
    items = []
    for key, value in params.items():
        if keys and key not in keys:
            continue
        unit = units.get(key, "") if isinstance(units, dict) else ""
        items.append(f"{key}={value}{unit}")
    return ", ".join(items)


def config_output_string(tune_params, result, metrics=None, units=None):
    """The line Kernel Tuner prints for one result: the parameters, the time and the metrics."""
    keys = list(tune_params.keys()) + ["time"] + (list(metrics.keys()) if metrics else [])
    if "__error__" in result:
        keys.append("__error__")
    return get_config_string(result, keys, units)


class StopCriterionReached(Exception):
    """Raised by the cost function a custom optimiser calls when the tuning budget is spent (Kernel Tuner's name)."""
