// gfx950's 16-byte global LDS DMA as clang-22 compiles
// __builtin_amdgcn_global_load_lds(p, l, 16, 0, 0) (fresh-user review 21 F3):
// `s_mov_b32 m0, <LDS base>` + global_load_lds_dwordx4 v[2:3], off. Each
// wave copies 64 float4s, lane order reversed, to its half of L; after the
// barrier each thread reads the other half's mirror. Twin:
// global_lds_dma_f32.kir.
typedef float v4f __attribute__((ext_vector_type(4)));
kernel void global_lds_dma_f32(global v4f* A, global v4f* B) {
  local v4f L[128];
  uint tx = __builtin_amdgcn_workitem_id_x(), ty = __builtin_amdgcn_workitem_id_y();
  uint wg = __builtin_amdgcn_workgroup_id_x();
  __builtin_amdgcn_global_load_lds(&A[wg * 128 + ty * 64 + 63 - tx], &L[ty * 64], 16, 0, 0);
  __builtin_amdgcn_s_waitcnt(0);
  __builtin_amdgcn_s_barrier();
  B[wg * 128 + ty * 64 + tx] = L[127 - ty * 64 - tx];
}
