// Expected-distance-like cross term of two sets of 2D points with Gaussian uncertainty (as in particle
// registration): out[i] = sum_j exp(-|a_i - b_j|^2 / (sa_i^2 + sb_j^2)) / (sa_i^2 + sb_j^2).
// a, b: x y sigma per point. A work-group of block_size_x x block_size_y work-items handles
// block_size_x * tile_size_x rows; the block_size_y work-items of a column split the b points between them
// (strided, inner loop unrolled by col_unroll) and their sums are added in local memory.
#define DO_PRAGMA(x) _Pragma(#x)
#define UNROLL(n) DO_PRAGMA(unroll n)
#define ROWS (block_size_x * tile_size_x)

__kernel void expdist(__global float* out, __global const float* a, __global const float* b, const int m,
                      const int n) {
  __local float sums[block_size_y][ROWS];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int row0 = get_group_id(0) * ROWS + lx;
  float ax[tile_size_x], ay[tile_size_x], as[tile_size_x], s[tile_size_x];
  for (int t = 0; t < tile_size_x; ++t) {
    const int i = row0 + t * block_size_x;
    ax[t] = a[3 * i];
    ay[t] = a[3 * i + 1];
    const float sa = 0.05f + 0.1f * a[3 * i + 2];  // sigma in [0.05, 0.15)
    as[t] = sa * sa;
    s[t] = 0.0f;
  }
  UNROLL(col_unroll)
  for (int j = ly; j < n; j += block_size_y) {
    const float bx = b[3 * j], by = b[3 * j + 1], sb = 0.05f + 0.1f * b[3 * j + 2], bs = sb * sb;
    for (int t = 0; t < tile_size_x; ++t) {
      const float dx = ax[t] - bx, dy = ay[t] - by, v = as[t] + bs;
      s[t] += exp(-(dx * dx + dy * dy) / v) / v;
    }
  }
  for (int t = 0; t < tile_size_x; ++t) sums[ly][lx + t * block_size_x] = s[t];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (ly == 0)
    for (int t = 0; t < tile_size_x; ++t) {
      float total = 0.0f;
      for (int y = 0; y < block_size_y; ++y) total += sums[y][lx + t * block_size_x];
      out[row0 + t * block_size_x] = total;
    }
}
