// Matrix transpose out = in^T for an n x n row-major float matrix.
// A work-group of block_size_x x block_size_y work-items handles a tile of block_size_x columns and
// TILE_H = block_size_y * tile_size_y rows of the input; each work-item handles tile_size_y rows, strided by the
// group height. With use_local the tile goes through local memory so that both the reads and the writes run
// along rows (padding adds one column to the local tile against bank conflicts); without it each work-item
// writes its transposed elements directly (strided writes).
#define TILE_W block_size_x
#define TILE_H (block_size_y * tile_size_y)
#define GROUP (block_size_x * block_size_y)

__kernel void transpose(__global float* out, __global const float* in, const int n) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = get_group_id(0) * TILE_W, y0 = get_group_id(1) * TILE_H;
#if use_local
  __local float tile[TILE_H][TILE_W + padding];
  for (int i = 0; i < tile_size_y; ++i) {
    const int r = ly + i * block_size_y;
    tile[r][lx] = in[(y0 + r) * n + x0 + lx];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // the output tile has TILE_W rows of TILE_H elements: walk it row by row with the whole group
  const int me = ly * block_size_x + lx;
  for (int e = me; e < TILE_W * TILE_H; e += GROUP) {
    const int orow = e / TILE_H, ocol = e % TILE_H;
    out[(x0 + orow) * n + y0 + ocol] = tile[ocol][orow];
  }
#else
  for (int i = 0; i < tile_size_y; ++i) {
    const int y = y0 + ly + i * block_size_y, x = x0 + lx;
    out[x * n + y] = in[y * n + x];
  }
#endif
}
