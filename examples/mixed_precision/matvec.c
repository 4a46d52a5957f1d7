/* Mixed-precision matrix-vector product y = A x (A: rows x cols floats, row major). The accumulator type acc_type
 * (float or double) and Kahan-compensated summation trade speed against accuracy; `unroll` independent partial sums
 * let the compiler vectorise (and change the rounding too). The output is double so that the error against the
 * double-precision reference configuration is measured, not hidden by a final rounding. */
void matvec(double* y, const float* A, const float* x, int rows, int cols) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int r = 0; r < rows; ++r) {
    const float* a = A + (long)r * cols;
    acc_type sum[unroll], carry[unroll];
    for (int u = 0; u < unroll; ++u) sum[u] = carry[u] = 0;
    int c = 0;
    for (; c + unroll <= cols; c += unroll)
      for (int u = 0; u < unroll; ++u) {
        const acc_type term = (acc_type)a[c + u] * (acc_type)x[c + u];
#if compensated
        const acc_type t = term - carry[u];
        const acc_type s = sum[u] + t;
        carry[u] = (s - sum[u]) - t;
        sum[u] = s;
#else
        sum[u] += term;
#endif
      }
    for (; c < cols; ++c) sum[0] += (acc_type)a[c] * (acc_type)x[c];
    acc_type total = 0;
    for (int u = 0; u < unroll; ++u) total += sum[u];
    y[r] = (double)total;
  }
}
