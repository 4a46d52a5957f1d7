"""``NVMLObserver``: energy and power of an NVIDIA GPU while the timed launches run, read by ktune's own observer
from the driver's energy counter (libnvidia-ml, opened at run time, no pynvml needed). Kernel Tuner's other NVML
observables (clocks, temperature, voltage, power readings) and its NVML tunable parameters are not supported yet."""

_SUPPORTED = ("nvml_energy", "nvml_power")


class NVMLObserver:
    """Kernel Tuner's NVMLObserver(observables, device=None, ...): ``nvml_energy`` (J per launch) and ``nvml_power``
    (W) of the CUDA device being tuned."""

    native_name = "nvml"  # the library's observer that measures these

    def __init__(self, observables, device=None, save_all=False, nvidia_smi_fallback=None, use_locked_clocks=False,
                 continuous_duration=1):
        observables = list(observables)
        unsupported = [o for o in observables if o not in _SUPPORTED]
        if unsupported:
            raise NotImplementedError(f"NVMLObserver: {', '.join(unsupported)} not supported by ktune yet (it measures "
                                      f"{' and '.join(_SUPPORTED)} from the driver's energy counter)")
        self.observables = observables
        self.device = device
