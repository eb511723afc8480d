// f32 -> f16 and f32 -> bf16 stores as clang-22 compiles them for gfx950
// (fresh-user review 8 F6): `(__bf16)v` is v_cvt_pk_bf16_f32 (its high half
// unused), `(half)v` v_cvt_f16_f32. FP_CONTRACT OFF keeps x * scale + y two
// roundings, as the twin's mul and add (cvt_bf16_f32.kir).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL FP_CONTRACT OFF
kernel void cvt_bf16_f32(global const float* x, global const float* y, global half* h, global __bf16* b,
                         float scale) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  float v = x[i] * scale + y[i];
  h[i] = (half)v;
  b[i] = (__bf16)v;
}
