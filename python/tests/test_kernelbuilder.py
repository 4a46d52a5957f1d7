"""Kernel Tuner's kernelbuilder.PythonKernel in ktune: a kernel with fixed parameters called like a function, its
arguments kept between calls as device memory would keep them (inputs copied in, outputs returned), on the C and
OpenCL backends, with its parameters from a results file's best for this device."""
import numpy
import pytest

import ktune
from ktune import integration, kernelbuilder

from test_live import VECTOR_ADD_CL, data, run_or_skip

# c += a * scale: what a call leaves in c is what the next one adds to.
ACCUMULATE_C = """
void accumulate(float *c, const float *a, int n) {
    for (int i = 0; i < n; i++) c[i] += a[i] * scale;
}
"""


def test_a_python_kernel_keeps_what_is_not_copied_in_between_calls():
    rng = numpy.random.default_rng(3)
    a = rng.random(64, dtype=numpy.float32)
    c = numpy.ones(64, dtype=numpy.float32)
    n = numpy.int32(64)
    kernel = kernelbuilder.PythonKernel("accumulate", ACCUMULATE_C, int(n), [c, a, n], {"scale": 2}, lang="C",
                                        inputs=[False, True, True], outputs=[True, False, False], verbose=False)
    assert kernel.params == {"scale": 2}
    first = kernel(numpy.zeros_like(c), a, n)  # c is not an input: the ones given at construction stay
    second = kernel(numpy.zeros_like(c), a, n)
    assert len(first) == 1 and numpy.allclose(first[0], 1 + 2 * a) and numpy.allclose(second[0], 1 + 4 * a)
    assert numpy.array_equal(c, numpy.ones(64, dtype=numpy.float32))  # the caller's arrays are not written
    every = kernelbuilder.PythonKernel("accumulate", ACCUMULATE_C, int(n), [c, a, n], {"scale": 1}, lang="C",
                                       verbose=False)
    out = every(c, a, n)  # all inputs and outputs: c and a (the scalar is not returned)
    assert len(out) == 2 and numpy.allclose(out[0], 1 + a) and numpy.array_equal(out[1], a)
    with pytest.raises(ValueError, match="inputs has 2 entries for 3 arguments"):
        kernelbuilder.PythonKernel("accumulate", ACCUMULATE_C, int(n), [c, a, n], {"scale": 1}, lang="C",
                                   inputs=[True, True])


def test_a_python_kernel_that_does_not_compile_says_so_when_made():
    a, b, c, n = data(64)
    with pytest.raises(ktune.JobError, match="vector_add"):
        kernelbuilder.PythonKernel("vector_add", "void vector_add(float *c) { syntax error }", int(n), [c, a, b, n],
                                   {"x": 1}, lang="C", verbose=False)


def test_a_python_kernel_takes_its_parameters_from_a_results_file(tmp_path):
    a, b, c, n = data(256)
    kernel_string = VECTOR_ADD_CL.replace("a[i] + b[i]", "a[i] + b[i] + block_size_x")
    tune_params = {"block_size_x": [16, 32, 64]}
    results, env = run_or_skip("vector_add", kernel_string, int(n), [c, a, b, n], tune_params, iterations=1,
                               quiet=True)
    path = tmp_path / "results.json"
    # The file's best for this device is the configuration it holds (a results file keeps the top few percent).
    best = min((r for r in results if "__error__" not in r), key=lambda r: r["time"])
    integration.store_results(str(path), "vector_add", kernel_string, tune_params, int(n), [best], env)
    kernel = kernelbuilder.PythonKernel("vector_add", kernel_string, int(n), [c, a, b, n], results_file=str(path),
                                        lang="OpenCL", verbose=False)
    assert kernel.device_name == env["device_name"]
    assert kernel.params == {"block_size_x": best["block_size_x"]}
    assert numpy.allclose(kernel(c, a, b, n)[0], a + b + best["block_size_x"])
