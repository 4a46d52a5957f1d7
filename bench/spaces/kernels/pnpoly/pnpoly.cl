// Point-in-polygon (even-odd rule, crossing test) of n points against one polygon of VERTICES vertices.
// points: x0 y0 x1 y1 ...; vertices: the same layout. Each work-item tests points_per_item points, strided by the
// whole grid width of a group (coalesced). vertex_unroll unrolls the loop over the edges;
// between_method picks how "the edge spans the point's y" is computed;
// polygon_memory where the work-item reads the polygon from: 0 global, 1 constant, 2 local (copied by the group).
#pragma OPENCL FP_CONTRACT OFF
#define VERTICES nvertices
#define DO_PRAGMA(x) _Pragma(#x)
#define UNROLL(n) DO_PRAGMA(unroll n)
#define GROUP_PTS (block_size_x * points_per_item)

#if polygon_memory == 1
#define POLY_SPACE __constant
#else
#define POLY_SPACE __global
#endif

#if between_method == 0
#define BETWEEN(py, ay, by) (((ay) > (py)) != ((by) > (py)))
#elif between_method == 1
#define BETWEEN(py, ay, by) (((py) - (ay)) * ((py) - (by)) < 0.0f)
#elif between_method == 2
#define BETWEEN(py, ay, by) ((((py) - (ay)) > 0.0f) != (((py) - (by)) > 0.0f))
#else
#define BETWEEN(py, ay, by) (((ay) > (py)) ^ ((by) > (py)))
#endif

__kernel void pnpoly(__global int* bitmap, __global const float* points, POLY_SPACE const float* vertices,
                     const int n) {
  const int lid = get_local_id(0);
  const int first = get_group_id(0) * GROUP_PTS + lid;
#if polygon_memory == 2
  __local float poly[2 * VERTICES];
  for (int i = lid; i < 2 * VERTICES; i += block_size_x) poly[i] = vertices[i];
  barrier(CLK_LOCAL_MEM_FENCE);
#define VX(i) poly[2 * (i)]
#define VY(i) poly[2 * (i) + 1]
#else
#define VX(i) vertices[2 * (i)]
#define VY(i) vertices[2 * (i) + 1]
#endif
  float px[points_per_item], py[points_per_item];
  int inside[points_per_item];
  for (int t = 0; t < points_per_item; ++t) {
    const int p = min(first + t * block_size_x, n - 1);
    px[t] = points[2 * p];
    py[t] = points[2 * p + 1];
    inside[t] = 0;
  }
  int k = VERTICES - 1;
  UNROLL(vertex_unroll)
  for (int j = 0; j < VERTICES; k = j++) {
    const float ax = VX(j), ay = VY(j), bx = VX(k), by = VY(k);
    const float slope = (bx - ax) / (by - ay);
    for (int t = 0; t < points_per_item; ++t) {
      if (BETWEEN(py[t], ay, by) && (px[t] < slope * (py[t] - ay) + ax)) inside[t] = !inside[t];
    }
  }
  for (int t = 0; t < points_per_item; ++t) {
    const int p = first + t * block_size_x;
    if (p < n) bitmap[p] = inside[t];
  }
}
