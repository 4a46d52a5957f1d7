"""Kernel Tuner's ``kernel_tuner.file_utils``: tuning results and run metadata in the T4 format."""
import json
import os
import platform
import sys

from ktune import _ktune
from ktune.live import path_argument


def filename_ensure_json_extension(filename):
    """The name with ``.json`` appended unless it ends with it, as Kernel Tuner names its output files."""
    filename = path_argument(filename, "the file name")
    return filename if filename.endswith(".json") else filename + ".json"


def store_output_file(output_filename, results, tune_params, objective="time"):
    """Writes ``results`` (as tune_kernel returns them) as a T4 results file: each result's configuration, times,
    validity and measurements, with ``objective`` as the objective."""
    if not isinstance(tune_params, dict):
        raise TypeError("tune_params must be the dict of parameter name -> values given to tune_kernel")
    _ktune.write_t4(filename_ensure_json_extension(output_filename), [(k, list(v)) for k, v in tune_params.items()],
                    list(results), [objective] if isinstance(objective, str) else list(objective))


def get_t4_metadata():
    """T4 metadata of this run's environment: the operating system, the interpreter and ktune's version. (Kernel Tuner
    adds the output of lshw and nvidia-smi/rocm-smi where installed; ktune does not run them.)"""
    return {
        "schema_version": "1.0.0",
        "metadata": {
            "hardware": {"hardware_description": [{"machine": platform.machine(), "processor": platform.processor()}]},
            "environment": {
                "operating_system": platform.platform(),
                "requirements": [f"ktune=={_ktune.__version__}", f"python=={platform.python_version()}"],
                "executable": sys.executable,
            },
        },
    }


def store_metadata_file(metadata_filename):
    """Writes the metadata of this run's environment (get_t4_metadata) as a T4 metadata file."""
    with open(filename_ensure_json_extension(metadata_filename), "w", encoding="utf-8") as f:
        json.dump(get_t4_metadata(), f, indent="  ")
