// vector_add for CUDA: each thread adds `tile` elements, strided by the block size (coalesced).
extern "C" __global__ void vector_add(float* c, const float* a, const float* b, const int n) {
  const int base = blockIdx.x * block_size_x * tile + threadIdx.x;
#pragma unroll
  for (int k = 0; k < tile; ++k) {
    const int i = base + k * block_size_x;
    if (i < n) c[i] = a[i] + b[i];
  }
}
