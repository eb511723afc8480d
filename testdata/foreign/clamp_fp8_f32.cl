// A saturating fp8 quantiser as clang-22 compiles it for gfx950 (fresh-user
// review 8 F6): the clamp min(max(a, -448), 448) becomes v_med3_f32 (a NaN
// kept by v_cmp_u_f32 + v_cndmask_b32 around it), then
// __builtin_amdgcn_cvt_pk_fp8_f32 (OCP E4M3 on gfx950). Twin:
// clamp_fp8_f32.kir (`cvt %x : f8e4m3fnx2`, which saturates and keeps NaN).
kernel void clamp_fp8_f32(global const float* x, global uint* q) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  float a = x[2 * i], b = x[2 * i + 1];
  float ca = (a != a) ? a : __builtin_fminf(__builtin_fmaxf(a, -448.0f), 448.0f);
  float cb = (b != b) ? b : __builtin_fminf(__builtin_fmaxf(b, -448.0f), 448.0f);
  int r = __builtin_amdgcn_cvt_pk_fp8_f32(ca, cb, 0, false);
  ((global ushort*)q)[i] = (ushort)r;
}
