"""Custom optimisers written in Python (Kernel Tuner's ``strategies.wrapper``): subclass ``OptAlg``, implement
``__call__(func, searchspace)`` and pass ``strategy=OptAlgWrapper(MyOptimizer())`` to tune_kernel or tune_cache.

``func(config)`` evaluates a configuration (a tuple of parameter values in tune_params order; with
``costfunc_kwargs={"scaling": True, "snap": True}`` a point of the continuous view, one coordinate in [0, 1] per
parameter, snapped to the nearest valid configuration) and returns its cost (the objective, negated when higher is
better; ``sys.float_info.max`` for a failed or invalid configuration); it raises ``StopCriterionReached`` when the
budget is spent (the wrapper ends the run there). ``func.budget_spent_fraction`` says how much is used.
``searchspace`` offers ``size``, ``tune_params``, ``param_names``, ``params_values``, ``list``,
``is_param_config_valid(config)``, ``get_random_sample(n)`` (from the job's seeded generator, so a seed reproduces
the run) and ``get_neighbors(config, neighbor_method="Hamming")``."""
from abc import ABC, abstractmethod


class OptAlg(ABC):
    """A custom optimiser: ``__call__(func, searchspace)`` searches until done or StopCriterionReached."""

    def __init__(self):
        self.costfunc_kwargs = {"scaling": False, "snap": False}

    @abstractmethod
    def __call__(self, func, searchspace):
        """Search; may return (best configuration, best cost), which ktune ignores (it keeps every result)."""


class OptAlgWrapper:
    """Kernel Tuner's wrapper that makes an OptAlg a strategy."""

    def __init__(self, optimizer):
        if not callable(optimizer):
            raise TypeError("OptAlgWrapper needs a callable optimizer(func, searchspace)")
        self.optimizer = optimizer

    @property
    def scaling(self):
        kwargs = getattr(self.optimizer, "costfunc_kwargs", None) or {}
        return bool(kwargs.get("scaling", False))

    @property
    def name(self):
        return type(self.optimizer).__name__

    def tune(self, *args, **kwargs):
        raise TypeError("OptAlgWrapper is run by tune_kernel(strategy=...), not called")
