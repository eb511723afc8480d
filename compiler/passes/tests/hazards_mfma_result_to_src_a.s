// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_MfmaResultToSrcA).
// An MFMA's result read as the next MFMA's srcA: 2.1, "MFMA writes -> next
// MFMA srcA/srcB | gfx942: XDL: NumPasses+3 (7 / 11)": 7 wait states, s_nop 6.
k:
  v_mfma_f32_16x16x16_f16 v[16:19], v[0:1], v[2:3], v[16:19]
  v_mfma_f32_16x16x16_f16 v[32:35], v[16:17], v[2:3], v[32:35]
  s_endpgm

// GFX942: v_mfma_f32_16x16x16_f16 v[16:19], v[0:1], v[2:3], v[16:19]
// GFX942-NEXT: s_nop 6
// GFX942-NEXT: v_mfma_f32_16x16x16_f16 v[32:35], v[16:17], v[2:3], v[32:35]
// GFX942-NEXT: s_endpgm
