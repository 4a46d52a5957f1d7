"""Kernel Tuner's integration API (kernel_tuner.integration): keep the best configurations of tuning runs in a results
file, and make a C header with device targets from it.

Kernel Tuner 1.4 reads the files written here and these functions read its files. The file format and the rules
(top percent, replacing a device's entries for a problem size, the best and the most common configuration) are
ktune's C++ library's (include/ktune/io/kernel_tuner_results_file.hpp); this module only translates arguments.
docs/integration.md lists where ktune differs from Kernel Tuner.
"""
import json
import os

from ktune import _ktune

__all__ = ["TuneResults", "create_device_targets", "store_results"]


def _problem_size_string(problem_size):
    """Kernel Tuner's spelling of a problem size: "x"-joined dimensions ("4096x4096"); a string stays as it is."""
    if isinstance(problem_size, str):
        return problem_size
    if not isinstance(problem_size, (list, tuple)):
        problem_size = (problem_size,)
    return "x".join(str(i) for i in problem_size)


def _plain(value):
    """JSON for what json.dumps does not know: NumPy values as Python ones, anything else as its text (an error value
    of a failed configuration, which then takes no part)."""
    tolist = getattr(value, "tolist", None)  # NumPy scalars and arrays
    if callable(tolist):
        return tolist()
    return str(value)


def store_results(results_filename, kernel_name, kernel_string, tune_params, problem_size, results, env, top=3,
                  objective=None, objective_higher_is_better=None):
    """Stores the results within ``top`` percent of the best (by ``objective``, default "time") for the device
    ``env["device_name"]`` at ``problem_size`` in the results file, replacing what the file held for that device and
    problem size; the file is created when absent (with ``kernel_string``, or the text of the file it names)."""
    if "device_name" not in env:
        raise ValueError("env has no 'device_name' (pass the env that tune_kernel returns)")
    if kernel_string is None or callable(kernel_string) or isinstance(kernel_string, list):
        kernel_string = None
    else:
        kernel_string = str(kernel_string)
    _ktune.integration_store_results(str(results_filename), str(kernel_name), kernel_string,
                                     [str(name) for name in tune_params], _problem_size_string(problem_size),
                                     json.dumps(list(results), default=_plain), str(env["device_name"]), float(top),
                                     objective, objective_higher_is_better)


def create_device_targets(header_filename, results_filename, objective=None, objective_higher_is_better=None):
    """Writes a header that defines each tunable parameter per device (compile with ``-DTARGET_<device>``, the device
    name with every run of other characters than letters and digits as "_") and, for any other device, the
    configuration that does well over all devices. Nothing is defined when ``kernel_tuner`` is defined (while
    tuning)."""
    if not os.path.isfile(results_filename):
        raise ValueError("Error: results_filename does not exist")
    _ktune.integration_device_targets(str(header_filename), str(results_filename), objective,
                                      objective_higher_is_better)


def _read_results_file(results_filename):
    """(meta, data) of a results file, checked by Kernel Tuner 1.4's rules."""
    with open(results_filename, "r") as fh:
        text = fh.read()
    document = json.loads(_ktune.integration_read(text, str(results_filename)))
    return document["meta"], document["data"]


class TuneResults:
    """The tuning results stored in a results file (by store_results)."""

    def __init__(self, results_filename):
        if not os.path.isfile(results_filename):
            raise ValueError("Error: results_filename does not exist")
        self._filename = str(results_filename)
        with open(results_filename, "r") as fh:
            self._text = fh.read()
        document = json.loads(_ktune.integration_read(self._text, self._filename))
        if len(document["data"]) < 1:
            raise ValueError("results file seems to be empty or did not load correctly")
        self.meta = document["meta"]
        self.data = document["data"]
        self.objective = self.meta["objective"]
        self.objective_higher_is_better = self.meta.get("objective_higher_is_better", False)

    def get_best_config(self, gpu_name="default", problem_size=None):
        """The tunable parameters (a dict) of the best configuration for ``gpu_name`` at ``problem_size`` (a tuple,
        an int or a string); without a problem size, or one not in the file, the configuration that occurs most often
        among the device's entries (ties: the best total of the objective); for a device not in the file, the same
        over all entries."""
        size = _problem_size_string(problem_size) if problem_size else None
        return json.loads(_ktune.integration_best_config(self._text, self._filename, str(gpu_name), size))
