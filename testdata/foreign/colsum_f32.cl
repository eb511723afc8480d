// Column sums out[c] = sum over 128 rows r of A[r * 260 + c] (row stride 260
// floats), one column per thread, 4 workgroups of 64: clang-22 unrolls the
// rolled KIR loop of the twin (verify/object/load_test.cc) by 16 on its own,
// so each of the 16 loads of the machine loop's body performs every 16th
// KIR iteration.
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void colsum_f32(const global float* restrict A, global float* restrict out) {
  const uint c = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float s = 0.0f;
  for (uint r = 0; r < 128; ++r) s += A[r * 260u + c];
  out[c] = s;
}
