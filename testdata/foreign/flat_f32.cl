// Generic (flat) pointers clang cannot resolve: the empty asm hides where
// each pointer came from, so the accesses through them are flat_*: the
// global ones with kernarg pointers in the address, the LDS ones with the
// shared aperture (src_shared_base) in its high half.
// dst[i] = 2 * src[wg * 64 + 63 - t] + 1, through LDS.
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void flat_f32(const global float* restrict src, global float* restrict dst) {
  local float tile[64];
  const uint t = __builtin_amdgcn_workitem_id_x();
  const uint i = __builtin_amdgcn_workgroup_id_x() * 64 + t;
  const float* s = (const float*)src;
  float* l = (float*)tile;
  float* d = (float*)dst;
  __asm__ volatile("" : "+v"(s), "+v"(l), "+v"(d));
  l[t] = s[i] * 2.0f;
  __builtin_amdgcn_s_barrier();
  d[i] = l[63 - t] + 1.0f;
}
