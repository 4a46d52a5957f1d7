"""tune_kernel's live arguments in the normalised form the native job takes (``_ktune.tune_live``): the kernel's
source and language, its problem size and launch geometry, its arguments as bytes, and the check of its outputs."""
import inspect
import numbers
import os

import numpy

_LANGUAGES = {"opencl": "opencl", "c": "cpp", "c++": "cpp", "cuda": "cuda", "cupy": "cuda", "nvcuda": "cuda",
              "pycuda": "cuda"}
_DEFAULT_BLOCK_SIZE_NAMES = ["block_size_x", "block_size_y", "block_size_z"]


def _looks_like_a_file_name(text):
    return len(text) <= 250 and not any(c in text for c in "();{}\\\n") and os.path.isfile(text)


def kernel_source(kernel_source, kernel_name):
    """(code, file name) of kernel_source: the code itself, a file name, or a list whose first file is the kernel."""
    if isinstance(kernel_source, (list, tuple)):
        if not kernel_source:
            raise ValueError("kernel_source is an empty list")
        if len(kernel_source) > 1:
            raise NotImplementedError("kernel_source with auxiliary files is not supported yet by ktune's Python "
                                      "module; give one file or the code")
        kernel_source = kernel_source[0]
    if isinstance(kernel_source, os.PathLike):
        kernel_source = os.fspath(kernel_source)
    if callable(kernel_source):
        raise NotImplementedError("kernel_source as a code generator (a callable) is not supported yet by ktune's "
                                  "Python module")
    if not isinstance(kernel_source, str):
        raise TypeError(f"kernel_source must be code, a file name or a list of file names, not "
                        f"{type(kernel_source).__name__}")
    if _looks_like_a_file_name(kernel_source):
        with open(kernel_source, encoding="utf-8") as f:
            return f.read(), kernel_source
    return kernel_source, f"<kernel_source of {kernel_name}>"


def backend(lang, code):
    """ktune's backend for Kernel Tuner's lang (or the code, as Kernel Tuner guesses when lang is None)."""
    if lang is None:
        if "__global__" in code:
            return "cuda"
        if "__kernel" in code:
            return "opencl"
        return "cpp"
    name = str(lang).lower()
    if name not in _LANGUAGES:
        raise NotImplementedError(f"lang '{lang}' is not supported by ktune (OpenCL, C, C++ and CUDA are)")
    return _LANGUAGES[name]


def _expression(value, what):
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, str)):
        if callable(value):
            raise NotImplementedError(f"{what} as a callable is not supported yet by ktune's Python module; give an "
                                      "expression (a string) over the parameters")
        raise TypeError(f"{what} must be an int or an expression, not {value!r}")
    return str(value)


def problem_size(size):
    """Kernel Tuner's problem_size (int, expression, or a tuple of up to three of them) as three expressions."""
    if isinstance(size, (tuple, list, numpy.ndarray)):
        dims = [_expression(d, "a problem_size dimension") for d in list(size)]
        if not 1 <= len(dims) <= 3:
            raise ValueError(f"problem_size has {len(dims)} dimensions; 1 to 3 are supported")
    else:
        dims = [_expression(size, "problem_size")]
    return dims + ["1"] * (3 - len(dims))


def grid_div(divisors, default):
    """A grid_div_x/y/z: None -> the block size name; an int, an expression or a list of them (their product)."""
    if divisors is None:
        return [default]
    if isinstance(divisors, (list, tuple)):
        return [_expression(d, "a grid divisor") for d in divisors]
    return [_expression(divisors, "a grid divisor")]


def block_size_names(names):
    if names is None:
        return list(_DEFAULT_BLOCK_SIZE_NAMES)
    names = list(names)
    if len(names) > 3:
        raise ValueError(f"block_size_names has {len(names)} names; at most 3")
    return names + _DEFAULT_BLOCK_SIZE_NAMES[len(names):]


def _element_type(dtype, what):
    name = numpy.dtype(dtype).name
    if name == "bool":
        return "bool"
    if name not in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
                    "float64"):
        raise TypeError(f"{what}: numpy type {name} is not supported (integers, float16/32/64 and bool are)")
    return name


def arguments(args):
    """The kernel's arguments: numpy arrays (copied once, as bytes) and numpy scalars (by value)."""
    out = []
    for i, a in enumerate(args):
        name = f"arg{i + 1}"  # 1-based, as positions are everywhere in messages
        if isinstance(a, numpy.ndarray):
            data = numpy.ascontiguousarray(a)
            out.append({"name": name, "type": _element_type(data.dtype, f"argument {i + 1}"), "scalar": False,
                        "data": data.tobytes(), "count": int(data.size)})
        elif isinstance(a, numpy.generic):
            out.append({"name": name, "type": _element_type(a.dtype, f"argument {i + 1}"), "scalar": True,
                        "value": float(a)})
        else:
            raise TypeError(f"argument {i + 1} is a {type(a).__name__}; kernel arguments are numpy arrays and numpy "
                            "scalars (numpy.int32(n), numpy.float32(x)), as in Kernel Tuner")
    return out


def _call_verify(verify, answer, results, atol):
    """Kernel Tuner's verify functions take atol as a keyword, or not at all."""
    try:
        parameters = inspect.signature(verify).parameters
    except (TypeError, ValueError):
        return verify(answer, results, atol=atol)
    takes_atol = "atol" in parameters or any(p.kind == p.VAR_KEYWORD for p in parameters.values())
    return verify(answer, results, atol=atol) if takes_atol else verify(answer, results)


def output_check(args, answer, atol, verify):
    """A function of the arguments after a run (bytes, or None for scalars) returning "" when the outputs are right:
    Kernel Tuner's ``verify(answer, result, atol=atol)`` if given, else numpy.allclose of every answer that is not
    None. None when there is nothing to check."""
    if answer is None and verify is None:
        return None
    if answer is not None and len(answer) != len(args):
        raise ValueError(f"answer has {len(answer)} elements for {len(args)} arguments")
    if answer is None:
        answer = [None] * len(args)
    for i, (expected, given) in enumerate(zip(answer, args)):
        if expected is None or verify is not None:
            continue
        if not isinstance(given, numpy.ndarray):
            raise TypeError(f"answer {i + 1} is given for an argument that is not an array")
        if numpy.size(expected) != given.size:
            raise ValueError(f"answer {i + 1} has {numpy.size(expected)} elements, its argument {given.size}")

    def check(after):
        results = [numpy.frombuffer(b, dtype=args[i].dtype).reshape(args[i].shape) if b is not None else args[i]
                   for i, b in enumerate(after)]
        if verify is not None:
            return "" if _call_verify(verify, answer, results, atol) else "the verify function rejected the output"
        for i, expected in enumerate(answer):
            if expected is None:
                continue
            if not numpy.allclose(numpy.ravel(expected), numpy.ravel(results[i]), atol=atol):
                bad = numpy.flatnonzero(~numpy.isclose(numpy.ravel(expected), numpy.ravel(results[i]), atol=atol))
                return (f"argument {i + 1} differs from the answer at {bad.size} of {results[i].size} elements "
                        f"(first at index {bad[0]}: {numpy.ravel(results[i])[bad[0]]!r}, expected "
                        f"{numpy.ravel(expected)[bad[0]]!r})")
        return ""
    return check
