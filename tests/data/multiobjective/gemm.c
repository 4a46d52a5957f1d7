/* Mixed-precision dense matrix-matrix product C = A B (A: M x K, B: K x N, C: M x N, row major). Tunable: the
 * storage type of A and B (in_type: the kernel reads a_<in_type>/b_<in_type>, all holding the same random data
 * rounded to that type), the accumulator type (acc_type: float or double), the output type (out_type: C is rounded to it; the
 * buffer is double so that every configuration writes the same type), a register tile of tile_i x tile_j
 * accumulators per step, and OpenMP threads over row blocks. */
typedef _Float16 half;
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
/* Conversions to and from half go through float with F16C instructions: gcc 12 turns a plain half <-> double cast
 * (even (double)(float)h, which it folds) into a library call that costs more than the arithmetic. half -> float ->
 * double is exact; double -> float -> half can round twice (rarely one half ulp away from a direct rounding). */
#include <immintrin.h>
static inline float half_to_float(half h) {
  unsigned short bits;
  __builtin_memcpy(&bits, &h, sizeof bits);
  return _cvtsh_ss(bits);
}
#define TO_ACC(v) _Generic((v), half: (acc_type)half_to_float(v), default: (acc_type)(v))
#define TO_OUT(v) _Generic((out_type)0, half: (double)half_to_float((half)(float)(v)), default: (double)(out_type)(v))

void gemm(double* c, const half* a_half, const float* a_float, const double* a_double, const half* b_half,
          const float* b_float, const double* b_double, int M, int N, int K) {
  const in_type* A = CAT(a_, in_type);
  const in_type* B = CAT(b_, in_type);
  (void)a_half, (void)a_float, (void)a_double, (void)b_half, (void)b_float, (void)b_double;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int i0 = 0; i0 < M; i0 += tile_i)
    for (int j0 = 0; j0 < N; j0 += tile_j) {
      acc_type acc[tile_i][tile_j];
      for (int ii = 0; ii < tile_i; ++ii)
        for (int jj = 0; jj < tile_j; ++jj) acc[ii][jj] = 0;
      for (int k = 0; k < K; ++k) {
        const in_type* b = B + (long)k * N + j0;
        for (int ii = 0; ii < tile_i; ++ii) {
          const acc_type av = TO_ACC(A[(long)(i0 + ii) * K + k]);
          for (int jj = 0; jj < tile_j; ++jj) acc[ii][jj] += av * TO_ACC(b[jj]);
        }
      }
      for (int ii = 0; ii < tile_i; ++ii)
        for (int jj = 0; jj < tile_j; ++jj) c[(long)(i0 + ii) * N + j0 + jj] = TO_OUT(acc[ii][jj]);
    }
}
