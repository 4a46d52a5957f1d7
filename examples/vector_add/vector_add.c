/* vector_add for the cpp backend: c = a + b on the host, OpenMP threads over chunks of `chunk` elements, each
 * thread's loop unrolled by `unroll` (a multiple of the chunk, see the T1 constraints). */
#pragma omp declare simd
static inline float add(float x, float y) { return x + y; }

void vector_add(float* c, const float* a, const float* b, int n) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int start = 0; start < n; start += chunk) {
    const int end = start + chunk < n ? start + chunk : n;
    int i = start;
    for (; i + unroll <= end; i += unroll)
      for (int j = 0; j < unroll; ++j) c[i + j] = add(a[i + j], b[i + j]);
    for (; i < end; ++i) c[i] = add(a[i], b[i]);
  }
}
