"""Kernel Tuner's ``wrappers``: make a C++ function callable as a C kernel (``lang="C"``).

``cpp(function_name, kernel_source, args, convert_to_array=None)`` returns the source with an ``extern "C"`` function
``<function_name>_wrapper`` appended, whose parameters are plain pointers and values of the arguments' types, and
which calls the (templated) C++ function with them. Where ``convert_to_array[i]`` is true, argument i (a numpy array)
is passed as a reference to a C++ array of its shape (``T (&)[n]`` or ``T (&)[n][m]``), from which a template deduces
the size; a one-element array is passed as a plain reference. The wrapper returns 0.0f (it does not time itself).
"""
import numpy

from ktune import live

# The C++ type of each numpy element type a kernel argument may have (ktune.live.arguments), as Kernel Tuner names
# the five it supports (int8 is plain char there), and the others by their usual names.
_CPP_TYPES = {
    "bool": "bool", "int8": "char", "uint8": "unsigned char", "int16": "short", "uint16": "unsigned short",
    "int32": "int", "uint32": "unsigned int", "int64": "long long", "uint64": "unsigned long long",
    "float32": "float", "float64": "double",
}


def _cpp_type(arg, position):
    live.require_numpy(arg, position)
    name = arg.dtype.name
    if name not in _CPP_TYPES:
        raise ValueError(f"argument {position}: numpy type {name} has no primitive C++ type for the C++ wrapper "
                         f"(supported: {', '.join(_CPP_TYPES)})")
    return _CPP_TYPES[name]


def cpp(function_name, kernel_source, args, convert_to_array=None):
    """The source of ``kernel_source`` (code, a file name or a Path) with an ``extern "C"`` wrapper
    ``<function_name>_wrapper`` that calls the C++ function ``function_name`` with ``args`` (see the module's
    docstring); pass the result to ``run_kernel`` or ``tune_kernel`` with ``lang="C"`` and the wrapper's name."""
    if not isinstance(function_name, str) or not function_name.isidentifier():
        raise ValueError(f"function_name must be the C++ function's name (an identifier), not {function_name!r}")
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"args must be a list of the function's arguments, not a {type(args).__name__}")
    if convert_to_array is not None and len(convert_to_array) != len(args):
        raise ValueError(f"convert_to_array has {len(convert_to_array)} entries for {len(args)} arguments; give one "
                         "True or False per argument")
    if callable(kernel_source):
        raise TypeError("kernel_source is a code generator; the C++ wrapper needs the code itself (or its file)")
    code = live.kernel_source(kernel_source, function_name, "C")["code"]
    parameters, call = [], []
    for i, arg in enumerate(args):
        position = i + 1  # 1-based in messages, as everywhere
        cpp_type = _cpp_type(arg, position)
        is_array = isinstance(arg, numpy.ndarray)
        parameters.append(f"{cpp_type}{' *' if is_array else ' '}arg{i}")
        if convert_to_array is None or not convert_to_array[i]:
            call.append(f"arg{i}")
        elif not is_array:
            raise ValueError(f"argument {position} is a scalar: only numpy arrays are passed as array references "
                             "(a scalar by reference is a one-element array)")
        elif arg.size > 1:
            extents = "".join(f"[{n}]" for n in arg.shape)
            call.append(f"*reinterpret_cast<{cpp_type} (*){extents}>(arg{i})")
        else:
            call.append(f"*arg{i}")
    return (f"{code}\n\n"
            f"extern \"C\" float {function_name}_wrapper({', '.join(parameters)}) {{\n"
            f"    {function_name}({', '.join(call)});\n"
            f"    return 0.0f;\n"
            f"}}\n")
