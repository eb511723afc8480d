// dst[w * 256 + t] = src[w * 256 + ((t + 1) & 255)]: each workgroup of 256
// rotates its block by one. clang-22 folds the `& 255` into an SDWA byte
// select, `v_or_b32_sdwa ... src0_sel:BYTE_0` (LLVM SIPeepholeSDWA), in the
// load's address. Twin: verify/object/foreign_test.cc.
kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void byte_index_f32(const global float* restrict src, global float* restrict dst) {
  const uint t = __builtin_amdgcn_workitem_id_x();
  const uint w = __builtin_amdgcn_workgroup_id_x();
  dst[w * 256 + t] = src[w * 256 + ((t + 1) & 255)];
}
