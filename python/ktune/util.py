"""Helpers a Kernel Tuner script imports from ``kernel_tuner.util``, with Kernel Tuner's names and behaviour."""
import os
import re
import tempfile
import warnings

import numpy

from ktune.live import require_numpy


class ErrorConfig(str):
    """A failed configuration: a ``str`` whose value is Kernel Tuner's error name, as in Kernel Tuner's results."""

    def __new__(cls):
        return super().__new__(cls, cls.__name__)

    def __repr__(self):
        return self.__class__.__name__


class InvalidConfig(ErrorConfig):
    """The configuration violates a restriction or a device limit."""


class CompilationFailedConfig(ErrorConfig):
    """The kernel did not compile for this configuration."""


class RuntimeFailedConfig(ErrorConfig):
    """The kernel failed to launch or run for this configuration."""


class VerificationFailedConfig(ErrorConfig):
    """ktune's name for a wrong result (Kernel Tuner aborts the run instead)."""


class TimeoutConfig(ErrorConfig):
    """ktune's name for a configuration that ran past its time limit (Kernel Tuner has none)."""


_ERRORS = {cls.__name__: cls for cls in (ErrorConfig, InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig,
                                         VerificationFailedConfig, TimeoutConfig)}


def error_config(name):
    """The ErrorConfig instance of a Kernel Tuner error name (an unknown name is a runtime failure)."""
    return _ERRORS.get(name, RuntimeFailedConfig)()


def get_config_string(params, keys=None, units=None):
    """``name=value`` of each item of ``params`` (only those in ``keys`` when given), joined by ", "; a unit from
    the ``units`` dict follows its value."""
    items = []
    for key, value in params.items():
        if keys and key not in keys:
            continue
        unit = units.get(key, "") if isinstance(units, dict) else ""
        items.append(f"{key}={value}{unit}")
    return ", ".join(items)


def config_output_string(tune_params, result, metrics=None, units=None):
    """The line Kernel Tuner prints for one result: the parameters, the time and the metrics."""
    keys = list(tune_params.keys()) + ["time"] + (list(metrics.keys()) if metrics else [])
    if "__error__" in result:
        keys.append("__error__")
    return get_config_string(result, keys, units)


class StopCriterionReached(Exception):
    """Raised by the cost function a custom optimiser calls when the tuning budget is spent (Kernel Tuner's name)."""


# --- Kernel Tuner's file and source helpers, for scripts and tests that import them from kernel_tuner.util ---------

def delete_temp_file(filename):
    """Removes the file; one that is already gone is no error."""
    try:
        os.remove(filename)
    except FileNotFoundError:
        pass


def get_temp_filename(suffix=None):
    """A new empty file ``temp_*<suffix>`` in the current folder (as Kernel Tuner makes them); returns its path."""
    handle, path = tempfile.mkstemp(suffix=suffix or "", prefix="temp_", dir=os.getcwd())
    os.close(handle)
    return path


def read_file(filename):
    """The text of the file."""
    with open(filename, encoding="utf-8") as f:
        return f.read()


def write_file(filename, string):
    """Writes ``string`` as the file's text."""
    with open(filename, "w", encoding="utf-8") as f:
        f.write(string)


def looks_like_a_filename(kernel_source):
    """Whether a kernel_source string names a file rather than holding code, by Kernel Tuner's rule: a short single
    line with none of ``();{}\\`` and an extension that a kernel file has (``.c``, ``.cu``, ``.cl``, ``.cpp``, ``.cc``,
    ``.h``, ``.opencl``, ``.F``/``.f90``...)."""
    if not isinstance(kernel_source, str) or len(kernel_source) > 250 or "\n" in kernel_source:
        return False
    if any(c in kernel_source for c in "();{}\\"):
        return False
    return any(ext in kernel_source for ext in (".c", ".h", ".opencl", ".F", ".f"))


def get_kernel_string(kernel_source, params=None):
    """The code of ``kernel_source``: a callable is called with ``params`` (a code generator), a Path or a string that
    looks like a file name (looks_like_a_filename) is read, any other string is the code."""
    if callable(kernel_source):
        return kernel_source(params)
    if isinstance(kernel_source, os.PathLike):
        return read_file(kernel_source)
    if isinstance(kernel_source, str):
        return read_file(kernel_source) if looks_like_a_filename(kernel_source) else kernel_source
    raise TypeError(f"kernel_source must be code, a file name or a callable, not {type(kernel_source).__name__}")


# The C, C++, CUDA and OpenCL spellings of each numpy element type, as a kernel's parameter names them.
_C_TYPE_NAMES = {
    "bool": ("bool",),
    "int8": ("char", "int8_t"), "uint8": ("uchar", "unsigned char", "uint8_t"),
    "int16": ("short", "int16_t"), "uint16": ("ushort", "unsigned short", "uint16_t"),
    "int32": ("int", "int32_t"), "uint32": ("uint", "unsigned int", "unsigned", "uint32_t"),
    "int64": ("long", "int64_t"), "uint64": ("ulong", "unsigned long", "uint64_t", "size_t"),
    "float16": ("half", "__half"), "float32": ("float",), "float64": ("double",),
    "complex64": ("float2",), "complex128": ("double2",),
}


def _argument_mismatch(position, arg, parameter):
    """Why host argument ``arg`` cannot be the kernel parameter ``parameter`` (its declaration text), or None."""
    dtype = arg.dtype.name
    pointer = "*" in parameter or "[" in parameter
    if isinstance(arg, numpy.ndarray) and not pointer:
        return f"argument {position} is an array of {dtype} but the kernel's parameter '{parameter.strip()}' is not " \
               "a pointer"
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", parameter)
    text = " ".join(words)
    names = _C_TYPE_NAMES.get(dtype)
    if names is None:
        return None  # a type this check does not know: the compiler will say
    if not any(re.search(rf"(^|\s){re.escape(name)}(\s|$)", text) for name in names):
        return f"argument {position} of type {dtype} does not match the kernel's parameter '{parameter.strip()}'"
    return None


def check_argument_list(kernel_name, kernel_string, args):
    """Kernel Tuner's check of the host arguments against the kernel's parameter list: a host argument that is not a
    numpy array or scalar raises TypeError; where no declaration of ``kernel_name`` in the code takes that many
    arguments of those types, a UserWarning says why (the kernel may still run: a template or a typedef can hide a
    type from this check)."""
    for i, arg in enumerate(args):
        require_numpy(arg, i + 1)
    declarations = []
    for match in re.finditer(rf"\b{re.escape(kernel_name)}\s*\(", kernel_string):
        end = kernel_string.find(")", match.end())
        if end >= 0:
            text = kernel_string[match.end():end]
            declarations.append(text.split(",") if text.strip() and text.strip() != "void" else [])
    problems = []
    for parameters in declarations:
        if len(parameters) != len(args):
            problems.append(f"the kernel {kernel_name} takes {len(parameters)} arguments, {len(args)} are given")
            continue
        mismatches = [m for m in (_argument_mismatch(i + 1, a, p) for i, (a, p) in enumerate(zip(args, parameters)))
                      if m]
        if not mismatches:
            return
        problems.append(mismatches[0])
    for problem in problems:
        warnings.warn(problem, UserWarning, stacklevel=2)
