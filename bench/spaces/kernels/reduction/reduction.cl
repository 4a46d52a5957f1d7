// Sum of n floats. Each work-item loads elems_per_item elements as vectors of vector_width floats, strided by the
// work-group (coalesced), into a private sum; the work-group reduces its sums in local memory (tree, the last
// 32 steps optionally unrolled by hand) and writes one partial sum per group. The last group to finish (an atomic
// ticket) adds the partial sums and writes the total to out[0], then resets the ticket for the next launch.
#define DO_PRAGMA(x) _Pragma(#x)
#define UNROLL(n) DO_PRAGMA(unroll n)
#define CHUNK (block_size_x * elems_per_item)
#define NVEC (elems_per_item / vector_width)

#if vector_width == 1
#define VTYPE float
#define VLOAD(i, p) (p)[i]
#define HSUM(v) (v)
#else
#define VTYPE_(w) float##w
#define VTYPE_X(w) VTYPE_(w)
#define VTYPE VTYPE_X(vector_width)
#define VLOAD_(w) vload##w
#define VLOAD_X(w) VLOAD_(w)
#define VLOAD(i, p) VLOAD_X(vector_width)(i, p)
#if vector_width == 2
#define HSUM(v) ((v).s0 + (v).s1)
#elif vector_width == 4
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#else
#define HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#endif
#endif

__kernel void reduction(__global float* out, __global float* partial, __global int* ticket,
                        __global const float* in, const int n) {
  __local float sums[block_size_x];
  __local int last;
  const int lid = get_local_id(0);
  const int group = get_group_id(0);
  __global const float* base = in + (size_t)group * CHUNK;
  VTYPE acc = (VTYPE)(0.0f);
  UNROLL(loop_unroll)
  for (int i = 0; i < NVEC; ++i) acc += VLOAD(i * block_size_x + lid, base);
  sums[lid] = HSUM(acc);
  barrier(CLK_LOCAL_MEM_FENCE);
#if manual_unroll
  for (int s = block_size_x / 2; s > 32; s >>= 1) {
    if (lid < s) sums[lid] += sums[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#define STEP(s) if (block_size_x > s) { if (lid < s) sums[lid] += sums[lid + s]; barrier(CLK_LOCAL_MEM_FENCE); }
  STEP(32) STEP(16) STEP(8) STEP(4) STEP(2) STEP(1)
#else
  for (int s = block_size_x / 2; s > 0; s >>= 1) {
    if (lid < s) sums[lid] += sums[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
  if (lid == 0) {
    partial[group] = sums[0];
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    last = (atomic_inc(ticket) == (int)get_num_groups(0) - 1);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (last) {
    const int groups = get_num_groups(0);
    float s = 0.0f;
    for (int g = lid; g < groups; g += block_size_x) s += partial[g];
    sums[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int st = block_size_x / 2; st > 0; st >>= 1) {
      if (lid < st) sums[lid] += sums[lid + st];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
      out[0] = sums[0];
      *ticket = 0;
    }
  }
}
