/* Mixed-precision 2D convolution: out[y][x] = sum_{fy,fx} in[y+fy][x+fx] * filter[fy][fx], an H x W output from
 * an (H+F-1) x (W+F-1) input and an F x F filter (row major). Tunable: the storage type of image and filter
 * (in_type: the kernel reads img_<in_type>/filter_<in_type>, all holding the same random data rounded to that
 * type), the accumulator type (acc_type: float or double), the output type (out_type: the result is rounded to it; the buffer is
 * double so that every configuration writes the same type), a register tile of tile_y x tile_x outputs, whether the
 * filter loops are fully unrolled (unroll_filter), and OpenMP threads over row blocks. */
typedef _Float16 half;
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
/* Conversions to and from half go through float with F16C instructions: gcc 12 turns a plain half <-> double cast
 * (even (double)(float)h, which it folds) into a library call that costs more than the arithmetic. half -> float ->
 * double is exact; double -> float -> half can round twice (rarely one half ulp away from a direct rounding). */
#include <immintrin.h>
static inline float half_to_float(half h) {
  unsigned short bits;
  __builtin_memcpy(&bits, &h, sizeof bits);
  return _cvtsh_ss(bits);
}
#define TO_ACC(v) _Generic((v), half: (acc_type)half_to_float(v), default: (acc_type)(v))
#define TO_OUT(v) _Generic((out_type)0, half: (double)half_to_float((half)(float)(v)), default: (double)(out_type)(v))
#define F filter_size

void convolution(double* out, const half* img_half, const float* img_float, const double* img_double,
                 const half* filter_half, const float* filter_float, const double* filter_double, int H, int W) {
  const in_type* img = CAT(img_, in_type);
  const in_type* filter = CAT(filter_, in_type);
  (void)img_half, (void)img_float, (void)img_double, (void)filter_half, (void)filter_float, (void)filter_double;
  const int IW = W + F - 1;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y0 = 0; y0 < H; y0 += tile_y)
    for (int x0 = 0; x0 < W; x0 += tile_x) {
      acc_type acc[tile_y][tile_x];
      for (int ty = 0; ty < tile_y; ++ty)
        for (int tx = 0; tx < tile_x; ++tx) acc[ty][tx] = 0;
#if unroll_filter
#pragma GCC unroll 16
#else
#pragma GCC unroll 1
#endif
      for (int fy = 0; fy < F; ++fy) {
#if unroll_filter
#pragma GCC unroll 16
#else
#pragma GCC unroll 1
#endif
        for (int fx = 0; fx < F; ++fx) {
          const acc_type f = TO_ACC(filter[fy * F + fx]);
          for (int ty = 0; ty < tile_y; ++ty) {
            const in_type* row = img + (long)(y0 + ty + fy) * IW + x0 + fx;
            for (int tx = 0; tx < tile_x; ++tx) acc[ty][tx] += TO_ACC(row[tx]) * f;
          }
        }
      }
      for (int ty = 0; ty < tile_y; ++ty)
        for (int tx = 0; tx < tile_x; ++tx) out[(long)(y0 + ty) * W + x0 + tx] = TO_OUT(acc[ty][tx]);
    }
}
