"""ktune.wrappers.cpp, Kernel Tuner's C++ wrapper: a templated C++ function over primitive types called as a C kernel
(Kernel Tuner's examples/c/matrix_multiply.py does this with run_kernel and lang="C")."""
import numpy
import pytest

import ktune
from ktune import wrappers
from test_live import call_or_skip

MULTIPLY = """
template<typename T, int sz>
void multiply_matrix(T (&output)[sz], const T (&a)[sz], const T (&b)[sz], int s) {
    for (int i = 0; i < sz; i++) output[i] = 0;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++)
            for (int k = 0; k < s; k++) output[i * s + j] += a[i * s + k] * b[k * s + j];
}
"""


def run_kernel_or_skip(*args, **kwargs):
    return call_or_skip(ktune.run_kernel, *args, **kwargs)


def test_a_templated_function_deduces_its_array_sizes_through_the_wrapper():
    rng = numpy.random.default_rng(1)
    a, b = rng.standard_normal(9), rng.standard_normal(9)
    args = [numpy.zeros_like(a), a, b, numpy.int32(3)]
    code = wrappers.cpp("multiply_matrix", MULTIPLY, args, convert_to_array=[True, True, True, False])
    assert 'extern "C" float multiply_matrix_wrapper(double *arg0, double *arg1, double *arg2, int arg3)' in code
    assert "*reinterpret_cast<double (*)[9]>(arg0)" in code
    out = run_kernel_or_skip("multiply_matrix_wrapper", code, 1, args, {}, lang="C")
    assert numpy.allclose(out[0].reshape(3, 3), a.reshape(3, 3) @ b.reshape(3, 3))


def test_plain_pointers_shapes_and_references():
    square = numpy.zeros((2, 3), dtype=numpy.float32)
    one = numpy.zeros(1, dtype=numpy.int32)
    code = wrappers.cpp("f", "void f(float (&m)[2][3], int &n, short k) {}", [square, one, numpy.int16(4)],
                        convert_to_array=[True, True, False])
    assert "f(*reinterpret_cast<float (*)[2][3]>(arg0), *arg1, arg2);" in code
    # Without convert_to_array every argument is passed as it is: pointers and values (Kernel Tuner's own wrapper
    # fails here with a NameError).
    plain = wrappers.cpp("g", "void g(float *m, int *n, short k) {}", [square, one, numpy.int16(4)])
    assert "float g_wrapper(float *arg0, int *arg1, short arg2)" in plain and "g(arg0, arg1, arg2);" in plain
    out = run_kernel_or_skip("g_wrapper", plain, 1, [square, one, numpy.int16(4)], {}, lang="C")
    assert out[0].shape == (2, 3)


def test_wrong_requests_are_named():
    a = numpy.zeros(4, dtype=numpy.float64)
    with pytest.raises(ValueError, match="convert_to_array has 1 entries for 2 arguments"):
        wrappers.cpp("f", "void f(double *a, int n) {}", [a, numpy.int32(4)], convert_to_array=[True])
    with pytest.raises(ValueError, match="argument 1: numpy type complex64"):
        wrappers.cpp("f", "void f() {}", [numpy.zeros(2, dtype=numpy.complex64)])
    with pytest.raises(ValueError, match="argument 2 is a scalar"):
        wrappers.cpp("f", "void f(double *a, int n) {}", [a, numpy.int32(4)], convert_to_array=[True, True])
    with pytest.raises(TypeError, match="argument 2 is of type int"):
        wrappers.cpp("f", "void f(double *a, int n) {}", [a, 4])
    with pytest.raises(ValueError, match="an identifier"):
        wrappers.cpp("f()", "void f() {}", [])
