// LLVM baseline for testdata/kernels/gemm_f16_256.kir, built by clang-22
// (see README.md): the promoted default configuration (`kirc compile
// --emit=kir` of the .kir on gfx942 or gfx90a) written by hand.
// C = alpha * A * B^T + beta * C; A is 256 x 64 (M x K), B is 256 x 64
// (N x K), both f16 row-major; C is 256 x 256 f32 row-major.
// Tiling: 64x64 C blocks on a 4 x 4 grid of workgroups of 64 x 2 x 2 threads
// (2 x 2 waves); wave (y, z) owns the 32x32 block at rows 32*y, columns 32*z,
// one v_mfma_f32_32x32x8f16 accumulator, four MFMAs per K tile of 32.
// The K tiles are staged through double-buffered LDS (As/Bs[2][64][32],
// 16 KiB, unpadded): each thread loads 8 halves of one row per operand per
// tile (4 threads per row), and stores them as two 4-element chunks whose
// chunk index is rotated by (row / 2) mod 8, as the promoter lays them out
// (fragment reads and tile stores without LDS bank conflicts). The next tile
// is loaded from global memory before the current one's MFMAs and stored to
// the other LDS buffer after them; one barrier per K tile.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define K 64
#define KT 32
#define LDC 256

// Logical 4-element chunk c of row r of a [64][32] tile, rotated. On gfx950
// (64 LDS banks) the promoter rotates by (row / 4) mod 8 instead (`kirc
// compile --emit=kir --mcpu=gfx950`); the rest of the kernel is the same.
#if defined(__gfx950__)
#define CHUNK(r, c) ((((c) + (r) / 4) % 8) * 4)
#else
#define CHUNK(r, c) ((((c) + (r) / 2) % 8) * 4)
#endif

static inline void barrier_lds(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

kernel __attribute__((reqd_work_group_size(64, 2, 2)))
void gemm_f16_256(const global half* restrict A, const global half* restrict B,
                  global float* restrict C, float alpha, float beta) {
  local half As[2][64][KT] __attribute__((aligned(16)));
  local half Bs[2][64][KT] __attribute__((aligned(16)));
  const uint tx = __builtin_amdgcn_workitem_id_x();
  const uint ty = __builtin_amdgcn_workitem_id_y();
  const uint tz = __builtin_amdgcn_workitem_id_z();
  const uint m0 = __builtin_amdgcn_workgroup_id_x() * 64;
  const uint n0 = __builtin_amdgcn_workgroup_id_y() * 64;

  // Tile copy: thread (tx, ty, tz) moves row cr, halves 8*(tx%4) .. +7.
  const uint cr = ty * 16 + tz * 32 + tx / 4;
  const uint cc = tx % 4 * 8;
  const global half* a_src = A + (m0 + cr) * K + cc;
  const global half* b_src = B + (n0 + cr) * K + cc;
  const uint st0 = CHUNK(cr, tx % 4 * 2), st1 = CHUNK(cr, tx % 4 * 2 + 1);

  half8 a_next = *(const global half8*)a_src;
  half8 b_next = *(const global half8*)b_src;
  *(local half4*)&As[0][cr][st0] = a_next.lo;
  *(local half4*)&As[0][cr][st1] = a_next.hi;
  *(local half4*)&Bs[0][cr][st0] = b_next.lo;
  *(local half4*)&Bs[0][cr][st1] = b_next.hi;
  barrier_lds();

  // MFMA fragments: lane tx reads row fr, k = 8*j + 4*(tx/32) .. +3.
  const uint fr = tx % 32;
  const uint ar = ty * 32 + fr, br = tz * 32 + fr;
  float16 acc = (float16)(0.0f);
  for (uint kt = 0; kt < K / KT; ++kt) {
    const uint cur = kt % 2;
    const bool more = kt + 1 < K / KT;
    if (more) {
      a_next = *(const global half8*)(a_src + (kt + 1) * KT);
      b_next = *(const global half8*)(b_src + (kt + 1) * KT);
    }
#pragma unroll
    for (uint j = 0; j < 4; ++j) {
      const half4 a = *(local half4*)&As[cur][ar][CHUNK(fr, 2 * j + tx / 32)];
      const half4 b = *(local half4*)&Bs[cur][br][CHUNK(fr, 2 * j + tx / 32)];
      acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
    }
    if (more) {
      *(local half4*)&As[cur ^ 1][cr][st0] = a_next.lo;
      *(local half4*)&As[cur ^ 1][cr][st1] = a_next.hi;
      *(local half4*)&Bs[cur ^ 1][cr][st0] = b_next.lo;
      *(local half4*)&Bs[cur ^ 1][cr][st1] = b_next.hi;
    }
    barrier_lds();
  }

  // Element r = 4*q + e of lane tx is D[8*q + 4*(tx/32) + e][tx%32]:
  // C = fma(C, beta, alpha * D), as the .kir's epilogue.
  const float16 ab = acc * alpha;
  global float* c = C + (m0 + ty * 32 + tx / 32 * 4) * LDC + n0 + tz * 32 + fr;
#define EPI(q, e, s) c[(8 * (q) + (e)) * LDC] = fma(c[(8 * (q) + (e)) * LDC], beta, ab.s)
  EPI(0, 0, s0); EPI(0, 1, s1); EPI(0, 2, s2); EPI(0, 3, s3);
  EPI(1, 0, s4); EPI(1, 1, s5); EPI(1, 2, s6); EPI(1, 3, s7);
  EPI(2, 0, s8); EPI(2, 1, s9); EPI(2, 2, sa); EPI(2, 3, sb);
  EPI(3, 0, sc); EPI(3, 1, sd); EPI(3, 2, se); EPI(3, 3, sf);
#undef EPI
}
