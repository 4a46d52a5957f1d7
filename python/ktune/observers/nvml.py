"""``NVMLObserver``: energy, power, temperature and clocks of an NVIDIA GPU while the timed launches run, read by
ktune's own observer from the driver (libnvidia-ml, opened at run time, no pynvml needed; ``KTUNE_NVML_LIBRARY``
names another copy of it). Kernel Tuner's ``gr_voltage`` and ``power_readings`` and its NVML tunable parameters
(clocks and power limits set per configuration) are not supported yet."""

# What the library's observer measures, in its order: energy from the driver's counter, power from it, and the means
# of temperature, graphics and memory clock read every millisecond during the timed launches (where the GPU has them).
_SUPPORTED = ("nvml_energy", "nvml_power", "temperature", "core_freq", "mem_freq")
_KERNEL_TUNERS = _SUPPORTED + ("power_readings", "gr_voltage")


class NVMLObserver:
    """Kernel Tuner's NVMLObserver(observables, device=None, ...): ``nvml_energy`` (J per launch), ``nvml_power``
    (W), ``temperature`` (C), ``core_freq`` and ``mem_freq`` (MHz) of the CUDA device being tuned. Results hold the
    observables asked for, as in Kernel Tuner."""

    native_name = "nvml"  # the library's observer that measures these
    native_measurements = _SUPPORTED

    def __init__(self, observables, device=None, save_all=False, nvidia_smi_fallback=None, use_locked_clocks=False,
                 continuous_duration=1):
        observables = list(observables)
        for o in observables:
            if o not in _KERNEL_TUNERS:
                raise ValueError(f"Observable {o} not in supported: {list(_KERNEL_TUNERS)}")
        unsupported = [o for o in observables if o not in _SUPPORTED]
        if unsupported:
            raise NotImplementedError(f"NVMLObserver: {', '.join(unsupported)} not supported by ktune yet (it measures "
                                      f"{', '.join(_SUPPORTED)})")
        self.observables = observables
        self.device = device
