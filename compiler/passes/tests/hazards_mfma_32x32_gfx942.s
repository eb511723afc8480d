// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_Mfma32x32Gfx942).
// gfx942: a 32x32x8 f16 MFMA (8 passes) writes v[16:31]; a
// buffer_store_dwordx4 of v[28:31] (the last quarter) needs 11 wait states
// (2.1, "gfx942: NumPasses+3 ... 8-pass (32x32x8 f16) 11"). 11 = 8 + 3:
// s_nop 7, s_nop 2.
k:
  v_mfma_f32_32x32x8_f16 v[16:31], v[0:1], v[2:3], v[16:31]
  buffer_store_dwordx4 v[28:31], v4, s[0:3], s8 offen
  s_endpgm

// GFX942: v_mfma_f32_32x32x8_f16 v[16:31], v[0:1], v[2:3], v[16:31]
// GFX942-NEXT: s_nop 7
// GFX942-NEXT: s_nop 2
// GFX942-NEXT: buffer_store_dwordx4 v[28:31], v4, s[0:3], s8 offen
// GFX942-NEXT: s_endpgm
