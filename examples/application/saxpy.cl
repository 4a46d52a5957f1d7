// y = alpha * x + y, `tile` elements per work-item, work-groups of block_size_x work-items.
__kernel void saxpy(__global float* y, __global const float* x, const float alpha, const int n) {
  const int first = (get_group_id(0) * block_size_x + get_local_id(0)) * tile;
  for (int t = 0; t < tile; ++t) {
    const int i = first + t;
    if (i < n) y[i] = alpha * x[i] + y[i];
  }
}
