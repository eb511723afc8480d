// dst[i] = src[i * stride] for i < n, i = wg.x * 64 + tid.x: a size and a
// stride passed by value, which the KIR twin (fixed sizes) lacks; `kirc
// verify --scalar n=... --scalar stride=...` fixes them. Twin:
// verify/object/foreign_test.cc and compiler/tools/kirc_cli_test.sh.
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void stride_f32(const global float* restrict src, global float* restrict dst, uint n, uint stride) {
  const uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) dst[i] = src[i * stride];
}
