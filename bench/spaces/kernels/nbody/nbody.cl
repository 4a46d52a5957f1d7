// All-pairs gravitational acceleration of n bodies (softened): acc_i = sum_j m_j d_ij / (|d_ij|^2 + eps)^(3/2).
// bodies: x y z m per body (float4 layout); acc: ax ay az per body. Each work-item computes bodies_per_item
// bodies, strided by the work-group size. With use_local the group walks the bodies in tiles of
// block_size_x * tile_mult bodies copied into local memory; the inner loop is unrolled by inner_unroll.
#pragma OPENCL FP_CONTRACT OFF
#define DO_PRAGMA(x) _Pragma(#x)
#define UNROLL(n) DO_PRAGMA(unroll n)
#define EPS 0.01f
#define TILE (block_size_x * tile_mult)

inline float3 interact(const float3 p, const float4 b, float3 a) {
  const float3 d = b.xyz - p;
  const float r2 = d.x * d.x + d.y * d.y + d.z * d.z + EPS;
  const float inv = 1.0f / sqrt(r2);
  const float s = b.w * inv * inv * inv;
  return a + d * s;
}

__kernel void nbody(__global float* acc, __global const float* bodies, const int n) {
  const int lid = get_local_id(0);
  const int first = get_group_id(0) * block_size_x * bodies_per_item + lid;
  float3 p[bodies_per_item], a[bodies_per_item];
  for (int t = 0; t < bodies_per_item; ++t) {
    p[t] = vload4(first + t * block_size_x, bodies).xyz;
    a[t] = (float3)(0.0f);
  }
#if use_local
  __local float4 tile[TILE];
  for (int j0 = 0; j0 < n; j0 += TILE) {
    for (int i = lid; i < TILE; i += block_size_x) tile[i] = vload4(j0 + i, bodies);
    barrier(CLK_LOCAL_MEM_FENCE);
    UNROLL(inner_unroll)
    for (int j = 0; j < TILE; ++j) {
      const float4 b = tile[j];
      for (int t = 0; t < bodies_per_item; ++t) a[t] = interact(p[t], b, a[t]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#else
  UNROLL(inner_unroll)
  for (int j = 0; j < n; ++j) {
    const float4 b = vload4(j, bodies);
    for (int t = 0; t < bodies_per_item; ++t) a[t] = interact(p[t], b, a[t]);
  }
#endif
  for (int t = 0; t < bodies_per_item; ++t) vstore3(a[t], first + t * block_size_x, acc);
}
