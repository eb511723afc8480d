// A private array indexed by runtime values: clang keeps it in scratch
// (buffer_* through the private segment buffer on gfx908/90a, scratch_* on
// gfx942). `salt` is 0 at run time; clang cannot know it, so the indices
// (7i + salt) & 31 and 32 + ((5i + salt) & 31) are not folded. The first
// half holds src[i], the second src2[i]: dst[i] = src[i], dst2[i] = src2[i].
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void scratch_f32(const global float* restrict src, const global float* restrict src2,
                 global float* restrict dst, global float* restrict dst2, uint salt) {
  float t[64];
  const uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  const float v = src[i], w = src2[i];
  for (int k = 0; k < 32; ++k) {
    t[k] = v;
    t[32 + k] = w;
  }
  dst[i] = t[(7 * i + salt) & 31];
  dst2[i] = t[32 + ((5 * i + salt) & 31)];
}
