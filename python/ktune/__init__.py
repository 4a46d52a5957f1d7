"""ktune: a Kernel Tuner drop-in. Replace ``kernel_tuner`` by ``ktune`` in a script's imports.

The tuning itself runs in ktune's C++ library (the native module ``ktune._ktune``); this package gives it Kernel
Tuner's Python interface. See docs/python.md for what is supported and what differs from Kernel Tuner.
"""
from ktune import observers, strategies, util, wrappers  # reachable as attributes, as Kernel Tuner's are after its import
from ktune._ktune import JobError, __version__
from ktune.interface import run_kernel, tune_cache, tune_kernel, tune_kernel_T1
from ktune.report import report

__all__ = ["JobError", "__version__", "create_device_targets", "observers", "report", "run_kernel", "store_results",
           "strategies", "tune_cache", "tune_kernel", "tune_kernel_T1", "util", "wrappers"]


def __getattr__(name):
    """Kernel Tuner's package-level store_results and create_device_targets (ktune.integration's)."""
    if name in ("store_results", "create_device_targets"):
        from ktune import integration
        return getattr(integration, name)
    raise AttributeError(f"module 'ktune' has no attribute {name!r}")
