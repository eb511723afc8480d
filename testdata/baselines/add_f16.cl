// LLVM baseline for testdata/kernels/add_f16.kir, built by clang-22 (see README.md).
// out = half(float(x + y) * scale) on 64 x 512 f16 tensors (row stride 512):
// a 2-D grid of 2 x 16 workgroups of 64 x 4 threads, 4 elements per thread.
// As in the .kir, the sum is formed in f16, widened to f32, multiplied by the
// f32 scalar `scale` (rounded to f32), then rounded to f16 (nearest even).
//   row = wg.y * 4 + tid.y, col = (wg.x * 64 + tid.x) * 4
//   %s = add x[row, col : 4], y[row, col : 4]   (f16x4)
//   out[row, col : 4] = cvt(cvt(%s : f32x4) * scale : f16x4)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel __attribute__((reqd_work_group_size(64, 4, 1)))
void add_f16(const global half* restrict x, const global half* restrict y,
             global half* restrict out, float scale) {
  const uint row = __builtin_amdgcn_workgroup_id_y() * 4u + __builtin_amdgcn_workitem_id_y();
  const uint col = (__builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x()) * 4u;
  const uint i = row * 512u + col;  // element offset, a multiple of 4
  const half4 a = *(const global half4*)(x + i);
  const half4 b = *(const global half4*)(y + i);
  const half4 s = a + b;                                // f16 add (v_pk_add_f16)
  const float4 sf = __builtin_convertvector(s, float4);  // exact widening
  const float4 r = sf * scale;                          // f32 multiply, rounded to f32
  *(global half4*)(out + i) = __builtin_convertvector(r, half4);  // round to f16
}
