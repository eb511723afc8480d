// An fp8 K loop of gfx950's v_mfma_f32_16x16x128_f8f6f4 as clang-22 compiles
// it, whose global addresses use v_bitop3_b32 (fresh-user review 21 F2,
// reconstructed: the reviewer's kernel proved only with the wall-clock
// backstop raised to 400 s). Built by testdata/BUILD (FOREIGN_TARGETS) with
//   clang -x cl -cl-std=CL2.0 -Xclang -finclude-default-header
//     -target amdgcn-amd-amdhsa -nogpulib -O3 -cl-kernel-arg-info
//     -mcpu=gfx950 -c fp8_swizzle_k_loop.cl
// C (64 x 64 f32) = A * B^T, A and B 64 x 1024 row-major f8e4m3fn bytes.
// A workgroup of 4 waves owns a 32 x 32 block of C, wave w the 16 x 16 tile
// at rows 16 * (w % 2), columns 16 * (w / 2); 8 K tiles of 128 bytes, the
// loop kept rolled (#pragma unroll 1). Per tile each thread t loads one
// 16-byte chunk of A and one of B with global_load_dwordx4: row t / 8 of the
// block, logical chunk (t % 8) ^ (row % 8), an XOR swizzle clang computes as
//   v_bitop3_b32 v2, v2, s2, v3 bitop3:0x48   ; 0x70 & ((t << 4) ^ (t << 1))
// (the byte offset of the chunk), and stores it linearly at LDS slot t % 8
// of its row, so slot s of row r holds logical chunk s ^ (r % 8). Lane l of
// wave w then reads the 32 bytes of k = 32 * (l / 16) .. +31 of row l % 16
// (the 16x16x128 layout, target.cc) as logical chunks 2g and 2g + 1,
// g = l / 16, from slots (2g) ^ (l % 8) and (2g + 1) ^ (l % 8) (clang:
// bitop3:0x78 and 0x36). With zero scales the scale builtin is the unscaled
// MFMA (mma_fp8_ocp.cl). Result element i of lane l is
// D[4 * (l / 16) + i][l % 16]. Twin: fp8_swizzle_k_loop.kir, which writes
// each xor of 3-bit chunk indices bit by bit as sums of `mod 2` fields.
typedef int int8v __attribute__((ext_vector_type(8)));
typedef int int4v __attribute__((ext_vector_type(4)));
#define K 1024
#define N 64
static inline void barrier_lds(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void fp8_swizzle_k_loop(const global uchar* restrict A, const global uchar* restrict B, global float* restrict C) {
  local int4v As[32][8], Bs[32][8];
  const uint t = __builtin_amdgcn_workitem_id_x();
  const uint m0 = __builtin_amdgcn_workgroup_id_y() * 32, n0 = __builtin_amdgcn_workgroup_id_x() * 32;
  const uint lr = t / 8, lc = t % 8;
  const uint sc = ((t << 4) ^ (t << 1)) & 0x70;  // byte of logical chunk lc ^ (lr % 8)
  const uint l = t % 64, wm = t / 64 % 2 * 16, wn = t / 128 * 16;
  const uint r = l % 16, g = l / 16;
  float4 e = (float4)(0.0f);
#pragma unroll 1
  for (uint k = 0; k < K; k += 128) {
    const int4v a0 = *(const global int4v*)(A + (m0 + lr) * K + k + sc);
    const int4v b0 = *(const global int4v*)(B + (n0 + lr) * K + k + sc);
    barrier_lds();
    As[lr][lc] = a0;
    Bs[lr][lc] = b0;
    barrier_lds();
    int8v f, h;
    f.lo = As[wm + r][(2 * g) ^ (r % 8)];
    f.hi = As[wm + r][(2 * g + 1) ^ (r % 8)];
    h.lo = Bs[wn + r][(2 * g) ^ (r % 8)];
    h.hi = Bs[wn + r][(2 * g + 1) ^ (r % 8)];
    e = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(f, h, e, 0, 0, 0, 0, 0, 0);
  }
  global float* o = C + (m0 + wm + l / 16 * 4) * N + n0 + wn + l % 16;
  o[0 * N] = e.s0;
  o[1 * N] = e.s1;
  o[2 * N] = e.s2;
  o[3 * N] = e.s3;
}
