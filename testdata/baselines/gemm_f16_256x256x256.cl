// LLVM baseline for testdata/kernels/gemm_f16_256x256x256.kir, built by clang-22
// (see README.md): kirc's default GEMM configuration (tile 128x128x32,
// 2 x 2 waves, 32x32x8 MFMAs, double-buffered LDS; `kirc compile --emit=kir`
// of the .kir on gfx942 or gfx90a) written by hand, for 256 x 256 x 256:
// the body is gemm_f16_tile128.cl.inc.
#define GEMM_NAME gemm_f16_256x256x256
#define M 256
#define N 256
#define K 256
#include "gemm_f16_tile128.cl.inc"
