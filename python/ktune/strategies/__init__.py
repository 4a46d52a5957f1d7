"""Strategies by module name, as Kernel Tuner scripts pass them (``strategy=kernel_tuner.strategies.minimize``):
``ktune.strategies.NAME`` stands for ktune's strategy NAME. Custom optimisers: ``ktune.strategies.wrapper``."""
from ktune import _ktune


class RegisteredStrategy:
    """ktune's strategy ``name``, given as an object."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"ktune.strategies.{self.name}"

    def tune(self, *args, **kwargs):
        raise TypeError(f"{self!r} is run by tune_kernel(strategy=...), not called")

    @property
    def _options(self):
        """Kernel Tuner's ``_options`` of the strategy module: option name -> (description, default), here ktune's
        hyperparameters of the strategy (pyATF's for pyatf_strategies: its search technique)."""
        if self.name == "pyatf_strategies":
            return {"searchtechnique": ("pyATF's search technique", "simulated_annealing")}
        return _ktune.strategy_options(self.name)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name not in _ktune.strategy_names() and name != "pyatf_strategies":  # Kernel Tuner's name for pyATF's
        raise AttributeError(f"ktune has no strategy '{name}' (its strategies: {', '.join(_ktune.strategy_names())})")
    return RegisteredStrategy(name)


# Kernel Tuner's scripts write ``kernel_tuner.strategies.wrapper.OptAlgWrapper(...)`` after a plain ``import
# kernel_tuner``: the submodule is an attribute of the package once it is imported.
from ktune.strategies import wrapper  # noqa: E402  (after __getattr__: wrapper needs nothing defined here)
