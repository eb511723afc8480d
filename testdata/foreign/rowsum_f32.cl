// Row sums out[r] = sum over 64 columns k of A[r * 64 + k], one row per
// thread, 4 workgroups of 64: clang-22 unrolls the loop by 16 and its
// load-store vectorizer combines each 4 consecutive iterations' loads into
// one global_load_dwordx4, so slot j of a load performs KIR iteration
// i + j of the twin's rolled loop (verify/object/load_test.cc).
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void rowsum_f32(const global float* restrict A, global float* restrict out) {
  const uint r = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float s = 0.0f;
  for (uint k = 0; k < 64; ++k) s += A[r * 64u + k];
  out[r] = s;
}
