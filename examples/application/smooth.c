/* out[i] = (in[i-1] + 2 in[i] + in[i+1]) / 4 with clamped ends, on the host: `threads` OpenMP threads, the inner
 * loop unrolled by `unroll`. Every configuration computes each element the same way, so the outputs are identical. */
static inline float at(const float* in, int i, int n) { return in[i < 0 ? 0 : (i >= n ? n - 1 : i)]; }

void smooth(float* out, const float* in, int n) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int start = 0; start < n; start += 1024) {
    const int end = start + 1024 < n ? start + 1024 : n;
    int i = start;
    for (; i + unroll <= end; i += unroll)
      for (int j = 0; j < unroll; ++j)
        out[i + j] = (at(in, i + j - 1, n) + 2.0f * in[i + j] + at(in, i + j + 1, n)) * 0.25f;
    for (; i < end; ++i) out[i] = (at(in, i - 1, n) + 2.0f * in[i] + at(in, i + 1, n)) * 0.25f;
  }
}
