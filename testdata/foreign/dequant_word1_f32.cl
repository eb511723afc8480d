// clang-22's fp8/bf8 dequantize of both words of a dword for gfx950 (fresh-user
// review 21 F3): __builtin_amdgcn_cvt_pk_f32_fp8(u, false) is
// v_cvt_pk_f32_fp8_e32 (bytes 0, 1), (u, true) v_cvt_pk_f32_fp8_sdwa
// src0_sel:WORD_1 (bytes 2, 3); the same for bf8. Twin: dequant_word1_f32.kir.
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v2f __attribute__((ext_vector_type(2)));
kernel void dequant_word1_f32(global const uint* q, global v4f* y, global const uint* r, global v4f* z) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  uint u = q[i];
  v2f lo = __builtin_amdgcn_cvt_pk_f32_fp8(u, false);
  v2f hi = __builtin_amdgcn_cvt_pk_f32_fp8(u, true);
  y[i] = (v4f)(lo.x, lo.y, hi.x, hi.y);
  uint w = r[i];
  v2f blo = __builtin_amdgcn_cvt_pk_f32_bf8(w, false);
  v2f bhi = __builtin_amdgcn_cvt_pk_f32_bf8(w, true);
  z[i] = (v4f)(blo.x, blo.y, bhi.x, bhi.y);
}
