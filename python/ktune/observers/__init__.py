"""Observers measure something besides time during the timed launches (Kernel Tuner's ``kernel_tuner.observers``)."""
from ktune.observers.observer import (BenchmarkObserver, ContinuousObserver, IterationObserver, OutputObserver,
                                      PrologueObserver)

__all__ = ["BenchmarkObserver", "ContinuousObserver", "IterationObserver", "OutputObserver", "PrologueObserver"]
