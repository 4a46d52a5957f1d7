"""``RegisterObserver``: Kernel Tuner's observer of the registers each thread of a compiled kernel uses
(``num_regs``). Kernel Tuner reads it from its CUDA backends only and refuses OpenCL and HIP kernels; ktune does not
read it from any backend yet, so tune_kernel refuses the observer with NotImplementedError naming the kernel's
language (raised before anything is compiled)."""
from ktune.observers.observer import BenchmarkObserver


class RegisterObserver(BenchmarkObserver):
    """Kernel Tuner's RegisterObserver(): ``num_regs`` of each configuration (not available in ktune yet)."""

    unsupported = "the number of registers per thread (num_regs) is not read from compiled kernels by ktune yet"

    def get_results(self):
        raise NotImplementedError(f"RegisterObserver: {self.unsupported}")
