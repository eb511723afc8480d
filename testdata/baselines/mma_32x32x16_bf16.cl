// LLVM baseline for testdata/kernels/mma_32x32x16_bf16.kir, built by clang-22
// (see README.md). gfx950 only: v_mfma_f32_32x32x16_bf16 is new in CDNA4
// (clang-22 accepts __builtin_amdgcn_mfma_f32_32x32x16_bf16 for gfx950 only;
// its A and B are 8-element __bf16 vectors).
// C = A * B^T over K = 64 in a loop of four 32x32x16 steps on one wave,
// operands loaded straight from global memory as in the .kir. A is 32 x 64
// (M x K) row-major, B is stored 32 x 64 (N x K) row-major, both bf16 as
// their 16-bit patterns (ushort arguments, read as __bf16 vectors); C is 32 x
// 32 f32. In step k lane l loads A[l%32][k + 8*(l/32) .. +7] and the same
// slice of B; result element r = 4*q + e holds D[8*q + 4*(l/32) + e][l%32].
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));

kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mma_32x32x16_bf16(const global ushort* restrict A, const global ushort* restrict B,
                       global float* restrict C) {
  const uint t = __builtin_amdgcn_workitem_id_x();
  const uint fr = t % 32, fc = t / 32 * 8;
  float16 acc = (float16)(0.0f);
  for (uint k = 0; k < 64; k += 16) {
    const bf16x8 a = *(const global bf16x8*)(A + fr * 64 + k + fc);
    const bf16x8 b = *(const global bf16x8*)(B + fr * 64 + k + fc);
    acc = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, acc, 0, 0, 0);
  }

  // Element r = 4*q + e of lane t is D[8*q + 4*(t/32) + e][t%32].
  global float* c = C + (t / 32 * 4) * 32 + t % 32;
  c[(0 + 0) * 32] = acc.s0;  c[(0 + 1) * 32] = acc.s1;  c[(0 + 2) * 32] = acc.s2;  c[(0 + 3) * 32] = acc.s3;
  c[(8 + 0) * 32] = acc.s4;  c[(8 + 1) * 32] = acc.s5;  c[(8 + 2) * 32] = acc.s6;  c[(8 + 3) * 32] = acc.s7;
  c[(16 + 0) * 32] = acc.s8; c[(16 + 1) * 32] = acc.s9; c[(16 + 2) * 32] = acc.sa; c[(16 + 3) * 32] = acc.sb;
  c[(24 + 0) * 32] = acc.sc; c[(24 + 1) * 32] = acc.sd; c[(24 + 2) * 32] = acc.se; c[(24 + 3) * 32] = acc.sf;
}
