// dst[i] = src[i * stride + off] for i < n, i = wg.x * 64 + tid.x: by-value
// arguments narrower than a dword. Kernarg layout (clang-22): n (ulong) at 16,
// stride (ushort) at 24..25, pad (char) at 26, byte 27 padding, off (int) at
// 28: stride, pad and a padding byte share the dword at 24, which `kirc
// verify --scalar` fixes with the padding byte 0 (fresh-user review 7 F13).
// Twin: verify/object/foreign_test.cc.
kernel void subdword_f32(global const float* src, global float* dst, ulong n, ushort stride, char pad, int off) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) dst[i] = src[i * stride + off];
}
