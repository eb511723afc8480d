// RUN: kirc opt %s --mcpu=gfx908 --run-pass=hazards | FileCheck %s --check-prefix=GFX908
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_Gfx908AccvgprReadAfter16x16).
// gfx908: a v_accvgpr_read of a 16x16x16 f16 MFMA's result needs 10 wait
// states (2.2, "MFMA writes a[..] -> v_accvgpr_read of it | 4x4: 4, 16x16: 10,
// 32x32: 18"). 10 = 8 + 2: s_nop 7, s_nop 1.
k:
  v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]
  v_accvgpr_read_b32 v4, a0
  s_endpgm

// GFX908: v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]
// GFX908-NEXT: s_nop 7
// GFX908-NEXT: s_nop 1
// GFX908-NEXT: v_accvgpr_read_b32 v4, a0
// GFX908-NEXT: s_endpgm
