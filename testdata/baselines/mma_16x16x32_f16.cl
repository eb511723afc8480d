// LLVM baseline for testdata/kernels/mma_16x16x32_f16.kir, built by clang-22
// (see README.md). gfx950 only: v_mfma_f32_16x16x32_f16 is new in CDNA4
// (clang-22 accepts __builtin_amdgcn_mfma_f32_16x16x32_f16 for gfx950 only).
// C = A * B^T for one 16x16x32 tile on one wave (wave64), operands loaded
// straight from global memory as in the .kir (no LDS). A is 16 x 32 (M x K)
// row-major, B is stored 16 x 32 (N x K) row-major, C is 16 x 16 f32.
// Lane l loads A[l%16][8*(l/16) .. +7] and the same slice of B as half8 (4
// VGPRs) and receives D[4*(l/16) + r][l%16] in result element r.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mma_16x16x32_f16(const global half* restrict A, const global half* restrict B,
                      global float* restrict C) {
  const uint t = __builtin_amdgcn_workitem_id_x();
  const uint fr = t % 16, fc = t / 16 * 8;
  const half8 a = *(const global half8*)(A + fr * 32 + fc);
  const half8 b = *(const global half8*)(B + fr * 32 + fc);
  const float4 d = __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, (float4)(0.0f), 0, 0, 0);

  // Element r of lane t is D[4*(t/16) + r][t%16]: a run of 4 rows down column t%16.
  global float* c = C + (t / 16 * 4) * 16 + t % 16;
  c[0 * 16] = d.s0;
  c[1 * 16] = d.s1;
  c[2 * 16] = d.s2;
  c[3 * 16] = d.s3;
}
