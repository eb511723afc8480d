// LLVM baseline for testdata/kernels/copy_f32.kir, built by clang-22 (see README.md).
// dst = src for 8192 f32 elements: 8 workgroups of 256 threads, 4 elements
// (one 16-byte load and store) per thread.
//   %v = load src[(wg.x * 256 + tid.x) * 4] : f32x4
//   store dst[(wg.x * 256 + tid.x) * 4], %v

kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void copy_f32(const global float* restrict src, global float* restrict dst) {
  const uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  ((global float4*)dst)[i] = ((const global float4*)src)[i];
}
