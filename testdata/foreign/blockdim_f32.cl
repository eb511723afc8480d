// dst[i] = src[i] + 1 with i = wg.x * (workgroup size) + tid.x, the size read
// at run time as HIP's blockDim.x is: clang-22 loads the code-object v5
// hidden argument hidden_group_size_x from the kernarg segment. No
// reqd_work_group_size: the twin's workgroup is the launch's (its
// hidden_group_size_x). Twin: verify/object/load_test.cc.
kernel void blockdim_f32(const global float* restrict src, global float* restrict dst) {
  const uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  dst[i] = src[i] + 1.0f;
}
