// Column sums over 6 rows, out[c] = sum of A[r * 128 + c], one column per
// thread, 2 workgroups of 64: clang-22 unrolls the loop fully into 6
// straight-line loads, each performing one constant iteration of the twin's
// rolled KIR loop (verify/object/load_test.cc). From a user review, where
// iterations 2 and 3 matched nothing.
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void colsum6_i32(global int* restrict out, const global int* restrict A) {
  const uint c = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  int s = 0;
  for (uint r = 0; r < 6; ++r) s += A[r * 128u + c];
  out[c] = s;
}
