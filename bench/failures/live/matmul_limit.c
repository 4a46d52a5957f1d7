/* examples/matmul/matmul.c with a hidden resource limit: an accumulator of more than 256 floats does not compile,
 * as a kernel whose registers or shared memory run out fails to build on a GPU. Nothing in the problem says so. */
#if tile_i * tile_j > 256
#error "accumulator exceeds the register budget"
#endif
#include "../../../examples/matmul/matmul.c"
