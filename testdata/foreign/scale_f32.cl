// dst[i] = src[i * stride] * scale for i < n, i = wg.x * 64 + tid.x: the
// KIR twin declares `scale` (a scalar it proves for every value) but not n
// and stride, which `kirc verify --scalar '#2=...' '#4=...'` fixes by
// position when the code has no argument names; fixing #3 (scale) is
// refused (fresh-user review 7 F10). Twin: verify/object/foreign_test.cc.
kernel void scale_f32(global const float* src, global float* dst, uint n, float scale, uint stride) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) dst[i] = src[i * stride] * scale;
}
