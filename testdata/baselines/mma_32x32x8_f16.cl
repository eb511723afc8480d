// LLVM baseline for testdata/kernels/mma_32x32x8_f16.kir, built by clang-22
// (see README.md).
// C = A * B^T for one 32x32x8 tile on one wave (wave64), through LDS, with
// v_mfma_f32_32x32x8f16. A is 32 x 8 (M x K) row-major, B is stored 32 x 8
// (N x K) row-major, C is 32 x 32 f32.
// Global loads: 2 lanes per row, 8 bytes per lane; the LDS rows are padded by
// 4 halves (row stride 24 bytes) as in the .kir. Lane l reads A[l%32][4*(l/32) .. +3]
// and the same slice of B^T from LDS; result element r holds
// D[8*(r/4) + 4*(l/32) + r%4][l%32], so each lane stores four runs of four rows
// down its column of C.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define PAD 4

kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mma_32x32x8_f16(const global half* restrict A, const global half* restrict B,
                     global float* restrict C) {
  local half As[32][8 + PAD] __attribute__((aligned(16)));
  local half Bs[32][8 + PAD] __attribute__((aligned(16)));
  const uint t = __builtin_amdgcn_workitem_id_x();

  // Stage: thread t copies A[t/2][4*(t%2) .. +3] (and B's) into LDS.
  const uint gr = t / 2, gc = t % 2 * 4;
  const half4 ga = *(const global half4*)(A + gr * 8 + gc);
  const half4 gb = *(const global half4*)(B + gr * 8 + gc);
  *(local half4*)&As[gr][gc] = ga;
  *(local half4*)&Bs[gr][gc] = gb;

  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");

  // MFMA operand fragments: row t%32, k = 4*(t/32) .. +3.
  const uint fr = t % 32, fc = t / 32 * 4;
  const half4 a = *(local half4*)&As[fr][fc];
  const half4 b = *(local half4*)&Bs[fr][fc];
  const float16 d = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, (float16)(0.0f), 0, 0, 0);

  // Element r = 4*q + e of lane t is D[8*q + 4*(t/32) + e][t%32].
  global float* c = C + (t / 32 * 4) * 32 + t % 32;
  c[(0 + 0) * 32] = d.s0;  c[(0 + 1) * 32] = d.s1;  c[(0 + 2) * 32] = d.s2;  c[(0 + 3) * 32] = d.s3;
  c[(8 + 0) * 32] = d.s4;  c[(8 + 1) * 32] = d.s5;  c[(8 + 2) * 32] = d.s6;  c[(8 + 3) * 32] = d.s7;
  c[(16 + 0) * 32] = d.s8; c[(16 + 1) * 32] = d.s9; c[(16 + 2) * 32] = d.sa; c[(16 + 3) * 32] = d.sb;
  c[(24 + 0) * 32] = d.sc; c[(24 + 1) * 32] = d.sd; c[(24 + 2) * 32] = d.se; c[(24 + 3) * 32] = d.sf;
}
