// One time step of a HotSpot-like thermal simulation on an nx x ny grid: a 5-point stencil on the temperature
// plus the power dissipated in each cell (borders clamp to the grid). A work-group of block_size_x x block_size_y
// work-items computes (block_size_x*tile_size_x) x (block_size_y*tile_size_y) cells; each work-item a tile of
// tile_size_x x tile_size_y cells strided by the group size. With use_local the group first copies its window
// (with a one-cell halo) of the temperature into local memory.
#pragma OPENCL FP_CONTRACT OFF
#define OUT_X (block_size_x * tile_size_x)
#define OUT_Y (block_size_y * tile_size_y)

__kernel void hotspot(__global float* temp_out, __global const float* temp, __global const float* power,
                      const int nx, const int ny, const float step_div_cap, const float rx_1, const float ry_1,
                      const float rz_1, const float amb) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = get_group_id(0) * OUT_X, y0 = get_group_id(1) * OUT_Y;
#if use_local
  __local float win[OUT_Y + 2][OUT_X + 2];
  for (int wy = ly; wy < OUT_Y + 2; wy += block_size_y) {
    const int gy = clamp(y0 + wy - 1, 0, ny - 1);
    for (int wx = lx; wx < OUT_X + 2; wx += block_size_x) {
      const int gx = clamp(x0 + wx - 1, 0, nx - 1);
      win[wy][wx] = temp[gy * nx + gx];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  for (int ty = 0; ty < tile_size_y; ++ty)
    for (int tx = 0; tx < tile_size_x; ++tx) {
      const int x = x0 + lx + tx * block_size_x, y = y0 + ly + ty * block_size_y;
#if use_local
      const int wx = x - x0 + 1, wy = y - y0 + 1;
      const float c = win[wy][wx], n = win[wy - 1][wx], s = win[wy + 1][wx], w = win[wy][wx - 1],
                  e = win[wy][wx + 1];
#else
      const int xm = max(x - 1, 0), xp = min(x + 1, nx - 1), ym = max(y - 1, 0), yp = min(y + 1, ny - 1);
      const float c = temp[y * nx + x], n = temp[ym * nx + x], s = temp[yp * nx + x], w = temp[y * nx + xm],
                  e = temp[y * nx + xp];
#endif
      const float delta = step_div_cap * (power[y * nx + x] + (s + n - 2.0f * c) * ry_1 + (e + w - 2.0f * c) * rx_1 +
                                          (amb - c) * rz_1);
      temp_out[y * nx + x] = c + delta;
    }
}
