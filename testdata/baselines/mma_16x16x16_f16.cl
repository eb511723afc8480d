// LLVM baseline for testdata/kernels/mma_16x16x16_f16.kir, built by clang-22
// (see README.md).
// C = A * B^T for one 16x16x16 tile on one wave (wave64), through LDS.
// A is M x K row-major, B is stored N x K row-major, C is M x N f32.
// Global loads are coalesced (4 lanes per row, 8 bytes per lane); the LDS rows
// are padded by 4 halves (row stride 40 bytes) as in the .kir. Lane l then
// reads A[l%16][4*(l/16) .. +3] and the same slice of B^T from LDS and
// receives D[4*(l/16) + r][l%16] in result element r.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define PAD 4

kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mma_16x16x16_f16(const global half* restrict A, const global half* restrict B,
                      global float* restrict C) {
  local half As[16][16 + PAD] __attribute__((aligned(16)));
  local half Bs[16][16 + PAD] __attribute__((aligned(16)));
  const uint t = __builtin_amdgcn_workitem_id_x();

  // Stage: thread t copies A[t/4][4*(t%4) .. +3] (and B's) into LDS.
  const uint gr = t / 4, gc = t % 4 * 4;
  const half4 ga = *(const global half4*)(A + gr * 16 + gc);
  const half4 gb = *(const global half4*)(B + gr * 16 + gc);
  *(local half4*)&As[gr][gc] = ga;
  *(local half4*)&Bs[gr][gc] = gb;

  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");

  // MFMA operand fragments: row t%16, k = 4*(t/16) .. +3.
  const uint fr = t % 16, fc = t / 16 * 4;
  const half4 a = *(local half4*)&As[fr][fc];
  const half4 b = *(local half4*)&Bs[fr][fc];
  const float4 d = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, (float4)(0.0f), 0, 0, 0);

  // Element r of lane t is D[4*(t/16) + r][t%16]: a run of 4 rows down column t%16.
  global float* c = C + (t / 16 * 4) * 16 + t % 16;
  c[0 * 16] = d.s0;
  c[1 * 16] = d.s1;
  c[2 * 16] = d.s2;
  c[3 * 16] = d.s3;
}
