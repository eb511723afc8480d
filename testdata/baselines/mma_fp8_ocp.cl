// LLVM baseline for testdata/kernels/mma_fp8_ocp.kir, built by clang-22
// (see README.md). gfx950 only: OCP fp8 formats (gfx942's fp8 MFMAs read
// FNUZ ones, mma_fp8_fnuz.cl) and the f8f6f4 MFMA.
// 1. C (32 x 32 f32) = A * B^T over K = 64: A 32 x 64 f8e5m2 ("bf8"), B
//    stored 32 x 64 f8e4m3fn ("fp8"), four v_mfma_f32_32x32x16_bf8_fp8
//    steps; in step k lane l loads A[l%32][k + 8*(l/32) .. +7] and B's same
//    slice as one long each; result element r = 4*q + e holds
//    D[8*q + 4*(l/32) + e][l%32].
// 2. E (16 x 16 f32) = F * G^T over K = 256: F 16 x 256 f8e4m3fn, G stored
//    16 x 256 f8e5m2, two 16x16x128 steps with A format fp8 (cbsz 0) and B
//    format bf8 (blgp 1); in step k lane l loads F[l%16][k + 32*(l/16) ..
//    +31] and G's same slice as 8 ints each; result element r holds
//    D[4*(l/16) + r][l%16]. clang-22 exposes this MFMA only as
//    __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4; with zero scale
//    operands (op_sel 0, scale 0) it selects the unscaled
//    v_mfma_f32_16x16x128_f8f6f4 (checked with clang 22.1.8 -S), the
//    instruction the .kir's `mfma f32_16x16x128_fp8_bf8` is.
// All fp8 arguments are row-major bytes (uchar).
typedef int int8v __attribute__((ext_vector_type(8)));

kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mma_fp8_ocp(const global uchar* restrict A, const global uchar* restrict B,
                 global float* restrict C, const global uchar* restrict F,
                 const global uchar* restrict G, global float* restrict E) {
  const uint t = __builtin_amdgcn_workitem_id_x();

  const uint ar = t % 32, ac = t / 32 * 8;
  float16 acc = (float16)(0.0f);
  for (uint k = 0; k < 64; k += 16) {
    const long a = *(const global long*)(A + ar * 64 + k + ac);
    const long b = *(const global long*)(B + ar * 64 + k + ac);
    acc = __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8(a, b, acc, 0, 0, 0);
  }
  global float* c = C + (t / 32 * 4) * 32 + t % 32;
  c[(0 + 0) * 32] = acc.s0;  c[(0 + 1) * 32] = acc.s1;  c[(0 + 2) * 32] = acc.s2;  c[(0 + 3) * 32] = acc.s3;
  c[(8 + 0) * 32] = acc.s4;  c[(8 + 1) * 32] = acc.s5;  c[(8 + 2) * 32] = acc.s6;  c[(8 + 3) * 32] = acc.s7;
  c[(16 + 0) * 32] = acc.s8; c[(16 + 1) * 32] = acc.s9; c[(16 + 2) * 32] = acc.sa; c[(16 + 3) * 32] = acc.sb;
  c[(24 + 0) * 32] = acc.sc; c[(24 + 1) * 32] = acc.sd; c[(24 + 2) * 32] = acc.se; c[(24 + 3) * 32] = acc.sf;

  const uint fr = t % 16, fc = t / 16 * 32;
  float4 e = (float4)(0.0f);
  for (uint k = 0; k < 256; k += 128) {
    const int8v f = *(const global int8v*)(F + fr * 256 + k + fc);
    const int8v g = *(const global int8v*)(G + fr * 256 + k + fc);
    e = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(f, g, e, 0, 1, 0, 0, 0, 0);
  }
  global float* o = E + (t / 16 * 4) * 16 + t % 16;
  o[0 * 16] = e.s0;
  o[1 * 16] = e.s1;
  o[2 * 16] = e.s2;
  o[3 * 16] = e.s3;
}
