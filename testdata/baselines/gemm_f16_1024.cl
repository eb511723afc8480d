// LLVM baseline for testdata/kernels/gemm_f16_1024.kir, built by clang-22
// (see README.md): kirc's default GEMM configuration (tile 128x128x32,
// 2 x 2 waves, 32x32x8 MFMAs, double-buffered LDS; `kirc compile --emit=kir`
// of the .kir on gfx942 or gfx90a) written by hand, for 1024 x 1024 x 1024:
// the body is gemm_f16_tile128.cl.inc.
#define GEMM_NAME gemm_f16_1024
#define M 1024
#define N 1024
#define K 1024
#include "gemm_f16_tile128.cl.inc"
