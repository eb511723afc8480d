// LLVM baseline for testdata/kernels/mma_fp8_fnuz.kir, built by clang-22
// (see README.md). gfx942 only: its fp8 MFMAs read FNUZ formats (gfx950
// reads the same opcodes as OCP formats: mma_fp8_ocp.cl).
// C = A * B^T over K = 128 in a loop of four v_mfma_f32_16x16x32_fp8_bf8 on
// one wave: A is 16 x 128 f8e4m3fnuz (the ISA's "fp8"), B is stored 16 x 128
// f8e5m2fnuz ("bf8"), both row-major bytes (uchar arguments), C is 16 x 16
// f32. In step k lane l loads A[l%16][k + 8*(l/16) .. +7] and the same slice
// of B, 8 bytes each as one long (the builtin's operand type, 2 VGPRs), and
// receives D[4*(l/16) + r][l%16] in result element r.

kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void mma_fp8_fnuz(const global uchar* restrict A, const global uchar* restrict B,
                  global float* restrict C) {
  const uint t = __builtin_amdgcn_workitem_id_x();
  const uint fr = t % 16, fc = t / 16 * 8;
  float4 acc = (float4)(0.0f);
  for (uint k = 0; k < 128; k += 32) {
    const long a = *(const global long*)(A + fr * 128 + k + fc);
    const long b = *(const global long*)(B + fr * 128 + k + fc);
    acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8(a, b, acc, 0, 0, 0);
  }

  global float* c = C + (t / 16 * 4) * 16 + t % 16;
  c[0 * 16] = acc.s0;
  c[1 * 16] = acc.s1;
  c[2 * 16] = acc.s2;
  c[3 * 16] = acc.s3;
}
