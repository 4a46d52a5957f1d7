/* Batched mixed-precision dot products: out[r] = sum_i x[r][i] * y[r][i] for `rows` pairs of vectors of `len`
 * elements. Tunable: the storage type of the inputs (in_type: the kernel reads the buffer x_<in_type>/y_<in_type>;
 * all three hold the same random data rounded to that type), the accumulator type (acc_type: float or double), the output type
 * (out_type: the result is rounded to it; the buffer is double so that every configuration writes the same type),
 * `unroll` independent partial sums, blocked (two-level) summation of `block` terms (0: one level), Kahan
 * compensation, and OpenMP threads over the rows. */
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

#if block > 0
#define BLOCK block
#else
#define BLOCK len
#endif

void dot(double* out, const half* x_half, const float* x_float, const double* x_double, const half* y_half,
         const float* y_float, const double* y_double, int rows, int len) {
  const in_type* xs = CAT(x_, in_type);
  const in_type* ys = CAT(y_, in_type);
  (void)x_half, (void)x_float, (void)x_double, (void)y_half, (void)y_float, (void)y_double;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int r = 0; r < rows; ++r) {
    const in_type* x = xs + (long)r * len;
    const in_type* y = ys + (long)r * len;
    acc_type total = 0, total_carry = 0;
    for (int b0 = 0; b0 < len; b0 += BLOCK) {
      const int b1 = b0 + BLOCK < len ? b0 + BLOCK : len;
      acc_type sum[unroll], carry[unroll];
      for (int u = 0; u < unroll; ++u) sum[u] = carry[u] = 0;
      int i = b0;
      for (; i + unroll <= b1; i += unroll)
        for (int u = 0; u < unroll; ++u) {
          const acc_type term = TO_ACC(x[i + u]) * TO_ACC(y[i + u]);
#if compensated
          const acc_type t = term - carry[u];
          const acc_type s = sum[u] + t;
          carry[u] = (s - sum[u]) - t;
          sum[u] = s;
#else
          sum[u] += term;
#endif
        }
      for (; i < b1; ++i) sum[0] += TO_ACC(x[i]) * TO_ACC(y[i]);
      acc_type part = 0;
      for (int u = 0; u < unroll; ++u) part += sum[u];
#if compensated
      const acc_type t = part - total_carry;
      const acc_type s = total + t;
      total_carry = (s - total) - t;
      total = s;
#else
      total += part;
#endif
    }
    (void)total_carry;
    out[r] = TO_OUT(total);
  }
}
