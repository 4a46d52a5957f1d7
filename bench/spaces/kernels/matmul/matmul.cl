// Tiled matrix multiply C = A * B (n x n, row major) for OpenCL. A work-group of block_size_x x block_size_y
// work-items computes a (block_size_y*tile_size_y) x (block_size_x*tile_size_x) block of C; each work-item
// tile_size_y x tile_size_x elements, strided by the group size. The k dimension goes in steps of block_k through
// local memory, loaded cooperatively by the whole group.
#define ROWS (block_size_y * tile_size_y)
#define COLS (block_size_x * tile_size_x)
#define GROUP (block_size_x * block_size_y)

__kernel void matmul(__global float* C, __global const float* A, __global const float* B, const int n) {
  __local float As[ROWS][block_k];
  __local float Bs[block_k][COLS];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int me = ty * block_size_x + tx;
  const int row0 = get_group_id(1) * ROWS, col0 = get_group_id(0) * COLS;
  float acc[tile_size_y][tile_size_x];
  for (int i = 0; i < tile_size_y; ++i)
    for (int j = 0; j < tile_size_x; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < n; k0 += block_k) {
    for (int e = me; e < ROWS * block_k; e += GROUP) As[e / block_k][e % block_k] = A[(row0 + e / block_k) * n + k0 + e % block_k];
    for (int e = me; e < block_k * COLS; e += GROUP) Bs[e / COLS][e % COLS] = B[(k0 + e / COLS) * n + col0 + e % COLS];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < block_k; ++k)
      for (int i = 0; i < tile_size_y; ++i) {
        const float a = As[ty + i * block_size_y][k];
        for (int j = 0; j < tile_size_x; ++j) acc[i][j] += a * Bs[k][tx + j * block_size_x];
      }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < tile_size_y; ++i)
    for (int j = 0; j < tile_size_x; ++j)
      C[(row0 + ty + i * block_size_y) * n + col0 + tx + j * block_size_x] = acc[i][j];
}
