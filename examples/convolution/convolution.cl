// 2D convolution for OpenCL: out (width x height) = in ((width+FW-1) x (height+FH-1)) convolved with a FW x FH
// filter. Each work-item computes tile_size_x x tile_size_y outputs, strided by the work-group size. With use_local
// the work-group first copies its input window (outputs plus the filter's border) into local memory.
#define FW filter_width
#define FH filter_height
#define OUT_X (block_size_x * tile_size_x)
#define OUT_Y (block_size_y * tile_size_y)

__kernel void convolution(__global float* out, __global const float* in, __global const float* filter,
                          const int width, const int height) {
  const int in_width = width + FW - 1;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = get_group_id(0) * OUT_X, y0 = get_group_id(1) * OUT_Y;
#if use_local
  __local float window[OUT_Y + FH - 1][OUT_X + FW - 1];
  for (int wy = ly; wy < OUT_Y + FH - 1; wy += block_size_y)
    for (int wx = lx; wx < OUT_X + FW - 1; wx += block_size_x)
      window[wy][wx] = in[(y0 + wy) * in_width + x0 + wx];
  barrier(CLK_LOCAL_MEM_FENCE);
#define IN(y, x) window[(y) - y0][(x) - x0]
#else
#define IN(y, x) in[(y) * in_width + (x)]
#endif
  for (int ty = 0; ty < tile_size_y; ++ty)
    for (int tx = 0; tx < tile_size_x; ++tx) {
      const int x = x0 + lx + tx * block_size_x, y = y0 + ly + ty * block_size_y;
      float sum = 0.0f;
      for (int fy = 0; fy < FH; ++fy)
        for (int fx = 0; fx < FW; ++fx) sum += IN(y + fy, x + fx) * filter[fy * FW + fx];
      if (x < width && y < height) out[y * width + x] = sum;
    }
}
