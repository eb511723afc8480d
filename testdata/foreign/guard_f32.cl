// dst[i] = 2 * src[i] for i < 1000, on 4 workgroups of 256 threads: clang-22
// guards the body with v_cmp + s_and_saveexec_b64 + a forward
// s_cbranch_execz to s_endpgm (the shape of any `if (i < n)`). Twin: the
// guarded KIR load and store of verify/object/load_test.cc.
kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void guard_f32(const global float* restrict src, global float* restrict dst) {
  const uint i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < 1000) dst[i] = src[i] * 2.0f;
}
