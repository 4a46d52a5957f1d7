"""Kernel Tuner's ``kernel_tuner.kernelbuilder``: a kernel with fixed parameters, called from Python like a function.

``PythonKernel`` keeps the kernel's arguments as the device would between calls: each call replaces the arguments
marked as inputs with the ones given, runs the kernel once (``ktune.run_kernel``: compiled by the backend, whose
cache makes calls after the first cheap, and run in a worker process) and returns the arguments marked as outputs.
Unlike Kernel Tuner's, it works with every backend ktune has (C, OpenCL, CUDA). With ``results_file`` (written by
``ktune.integration.store_results``) the parameters are that file's best for the device the kernel runs on and
``problem_size``.
"""
import numpy

from ktune import _ktune
from ktune.integration import TuneResults

__all__ = ["PythonKernel"]


class PythonKernel:
    """A kernel compiled with ``params`` (updated from ``results_file`` when given), called as
    ``kernel(*arguments)``. ``inputs`` and ``outputs`` (lists of bools, one per argument, all True by default) say
    which arguments a call copies in and which it returns; the others keep what the previous call left in them."""

    def __init__(self, kernel_name, kernel_string, problem_size, arguments, params=None, inputs=None, outputs=None,
                 device=0, platform=0, block_size_names=None, grid_div_x=None, grid_div_y=None, grid_div_z=None,
                 verbose=True, lang=None, results_file=None, compiler=None, compiler_options=None, defines=None):
        from ktune.interface import _kernel  # the kernel as the native job takes it
        arguments = list(arguments)
        for position, flags in (("inputs", inputs), ("outputs", outputs)):
            if flags is not None and len(flags) != len(arguments):
                raise ValueError(f"{position} has {len(flags)} entries for {len(arguments)} arguments")
        self.kernel_name = kernel_name
        self.problem_size = problem_size
        self.verbose = verbose
        self._options = dict(grid_div_x=grid_div_x, grid_div_y=grid_div_y, grid_div_z=grid_div_z, lang=lang,
                             device=device, platform=platform, compiler=compiler, compiler_options=compiler_options,
                             defines=defines, block_size_names=block_size_names)
        self._source = kernel_string
        params = dict(params or {})
        if results_file:
            kernel = _kernel(kernel_name, kernel_string, problem_size, arguments, grid_div_x, grid_div_y, grid_div_z,
                             lang, device, platform, compiler, compiler_options, defines, 1, block_size_names)
            self.device_name = _ktune.kernel_device_name(kernel_name, list(params.items()), kernel)
            params.update(TuneResults(results_file).get_best_config(self.device_name, problem_size))
        self.params = params
        self.inputs = list(inputs) if inputs else [True] * len(arguments)
        self.outputs = list(outputs) if outputs else [True] * len(arguments)
        self.gpu_args = [numpy.array(a, copy=True) if isinstance(a, numpy.ndarray) else a for a in arguments]
        # Compiled and run once now, as Kernel Tuner compiles at construction: a kernel that does not compile (or
        # does not run) says so here. The arguments keep their given contents, as freshly allocated device memory.
        self._run(self.gpu_args)

    def _run(self, args):
        import ktune
        return ktune.run_kernel(self.kernel_name, self._source, self.problem_size, list(args), self.params,
                                quiet=not self.verbose, **self._options)

    def update_gpu_args(self, args):
        """Copies the arguments marked as inputs in; returns the kernel's arguments."""
        if len(args) != len(self.gpu_args):
            raise ValueError(f"{len(args)} arguments for a kernel of {len(self.gpu_args)}")
        for i, arg in enumerate(args):
            if self.inputs[i]:
                if isinstance(arg, numpy.ndarray):
                    self.gpu_args[i] = numpy.array(arg, copy=True)
                else:
                    self.gpu_args[i] = arg
        return self.gpu_args

    def get_gpu_result(self, args):
        """The arguments marked as outputs (arrays only), as the last call left them."""
        return [numpy.array(self.gpu_args[i], copy=True) for i in range(len(self.gpu_args))
                if self.outputs[i] and isinstance(args[i], numpy.ndarray)]

    def run_kernel(self, args):
        """Copies the inputs in, runs the kernel once and returns the outputs (a list of arrays)."""
        self.update_gpu_args(args)
        after = self._run(self.gpu_args)
        self.gpu_args = [after[i] if isinstance(a, numpy.ndarray) else a for i, a in enumerate(self.gpu_args)]
        return self.get_gpu_result(args)

    def __call__(self, *args):
        return self.run_kernel(args)
