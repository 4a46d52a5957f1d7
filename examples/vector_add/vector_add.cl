// vector_add for OpenCL: each work-item adds `tile` elements, strided by the work-group size so that neighbouring
// work-items touch neighbouring elements.
__kernel void vector_add(__global float* c, __global const float* a, __global const float* b, const int n) {
  const int base = get_group_id(0) * block_size_x * tile + get_local_id(0);
#pragma unroll
  for (int k = 0; k < tile; ++k) {
    const int i = base + k * block_size_x;
    if (i < n) c[i] = a[i] + b[i];
  }
}
