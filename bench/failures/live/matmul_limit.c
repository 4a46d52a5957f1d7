/* examples/matmul/matmul.c with a hidden resource limit: an accumulator of more than 256 floats does not compile,
 * as a kernel whose registers or shared memory run out fails to build on a GPU. Nothing in the problem says so. */
#if tile_i * tile_j > 256
#error "accumulator exceeds the register budget"
#endif
void matmul(float* C, const float* A, const float* B, int n) {
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
  for (int i0 = 0; i0 < n; i0 += tile_i)
    for (int j0 = 0; j0 < n; j0 += tile_j) {
      float acc[tile_i][tile_j];
      for (int i = 0; i < tile_i; ++i)
        for (int j = 0; j < tile_j; ++j) acc[i][j] = 0.0f;
      for (int k0 = 0; k0 < n; k0 += tile_k)
        for (int i = 0; i < tile_i; ++i)
          for (int k = k0; k < k0 + tile_k; ++k) {
            const float a = A[(i0 + i) * n + k];
            const float* b = B + k * n + j0;
            for (int j = 0; j < tile_j; ++j) acc[i][j] += a * b[j];
          }
      for (int i = 0; i < tile_i; ++i)
        for (int j = 0; j < tile_j; ++j) C[(i0 + i) * n + j0 + j] = acc[i][j];
    }
}
