// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_DeficitsCombine).
// Two producers: the requirement is the largest remaining deficit, and nops
// inserted for one consumer count for the next. (gfx942)
//   #0 MFMA 16x16x16 f16 writes v[16:19]
//   #1 v_readfirstlane_b32 writes s5
//   #2 buffer_store_dwordx4 of v[16:19] with soffset s5: needs 5 after #1
//      (2.3, VALU SGPR write -> VMEM soffset, 0 elapsed) and 7 after #0 (2.1,
//      4-pass XDL -> VMEM, 1 elapsed): deficit 6, s_nop 5.
//   #3 reads v17: 7 after #0, already 1 + 6 + 1 = 8 elapsed: nothing.
k:
  v_mfma_f32_16x16x16_f16 v[16:19], v[0:1], v[2:3], v[16:19]
  v_readfirstlane_b32 s5, v40
  buffer_store_dwordx4 v[16:19], v4, s[0:3], s5 offen
  v_add_u32 v50, v17, v51
  s_endpgm

// GFX942: v_mfma_f32_16x16x16_f16 v[16:19], v[0:1], v[2:3], v[16:19]
// GFX942-NEXT: v_readfirstlane_b32 s5, v40
// GFX942-NEXT: s_nop 5
// GFX942-NEXT: buffer_store_dwordx4 v[16:19], v4, s[0:3], s5 offen
// GFX942-NEXT: v_add_u32 v50, v17, v51
// GFX942-NEXT: s_endpgm
