"""Kernel Tuner's observer classes: subclass ``BenchmarkObserver`` to measure something besides time while a
configuration's timed launches run. ktune calls the hooks as Kernel Tuner's benchmark loop does: for each timed
launch ``before_start`` (the launch waits for it), ``after_start``, ``during`` (about once a millisecond while the
kernel runs) and ``after_finish``; then ``get_results`` once per configuration. Numbers it returns are measurements of
the configuration (in the results, the cache, usable by metrics and as objectives); other values (lists of readings)
appear in the result dicts only."""
from abc import ABC, abstractmethod


class BenchmarkObserver(ABC):
    """Base class of observers (Kernel Tuner's interface)."""

    def register_device(self, dev):
        """The device the kernels run on: an object with ``name``, ``platform``, ``max_threads`` and ``env``."""
        self.dev = dev

    def register_configuration(self, params):
        """The parameter values of the configuration whose launches follow."""

    def before_start(self):
        """Before each timed launch."""

    def after_start(self):
        """Right after a timed launch started."""

    def during(self):
        """While a timed launch runs."""

    def after_finish(self):
        """After each timed launch."""

    @abstractmethod
    def get_results(self):
        """The configuration's measurements as a dict, once after its timed launches."""


class IterationObserver(BenchmarkObserver):
    """An observer of each timed launch (a marker, as in Kernel Tuner)."""


class ContinuousObserver(BenchmarkObserver):
    """Kernel Tuner runs these over a separate stretch of back-to-back launches; ktune observes them over the timed
    launches like any other observer."""

    def __init__(self, name=None, observables=None, parent=None, continuous_duration=1):
        self.name = name
        self.observables = observables or []
        self.parent = parent
        self.continuous_duration = continuous_duration


class OutputObserver(BenchmarkObserver):
    """Sees the kernel's outputs of the verification run: ``process_output(answer, output)``."""

    @abstractmethod
    def process_output(self, answer, output):
        """``answer`` as given to tune_kernel, ``output`` the arguments after the run."""


class PrologueObserver(BenchmarkObserver):
    """Kernel Tuner measures these in an extra launch before the benchmark; ktune calls ``before_start`` and
    ``after_finish`` around the timed launches' first one."""
