// RUN: kirc opt %s --mcpu=gfx942 --run-pass=hazards | FileCheck %s --check-prefix=GFX942
// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (ported from compiler/passes/hazards_test.cc, HazardNops.FailureClass11_ExistingNopsAndWaitcntsCount).
// Instructions already in the code count: s_nop 3 gives 4 wait states and an
// s_waitcnt 1, so MFMA -> buffer_store_dwordx4 (7 on gfx942, 2.1) still needs
// 7 - 5 = 2: one s_nop 1 right before the store.
k:
  v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
  s_nop 3
  s_waitcnt vmcnt(0)
  buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
  s_endpgm

// GFX942: v_mfma_f32_16x16x16_f16 v[12:15], v[0:1], v[2:3], v[12:15]
// GFX942-NEXT: s_nop 3
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: s_nop 1
// GFX942-NEXT: buffer_store_dwordx4 v[12:15], v4, s[0:3], s8 offen
// GFX942-NEXT: s_endpgm
