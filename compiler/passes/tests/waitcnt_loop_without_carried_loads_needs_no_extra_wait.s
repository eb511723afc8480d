// RUN: kirc opt %s --mcpu=gfx90a --run-pass=waitcnt | FileCheck %s --check-prefix=GFX90A
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.LoopWithoutCarriedLoadsNeedsNoExtraWait).
// A loop whose load is used in the same iteration: one vmcnt(0) before the
// use, nothing extra at the loop header.
k:
.L3:
  buffer_load_dword v6, v90, s[0:3], 0 offen
  v_add_u32 v80, v6, v81
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .L3
  s_endpgm

// GFX90A-LABEL: k:
// GFX90A-NEXT: .L3:
// GFX90A-NEXT: buffer_load_dword v6, v90, s[0:3], 0 offen
// GFX90A-NEXT: s_waitcnt vmcnt(0)
// GFX90A-NEXT: v_add_u32 v80, v6, v81
// GFX90A-NEXT: s_cmp_lt_u32 s10, 4
// GFX90A-NEXT: s_cbranch_scc1 .L3
// GFX90A-NEXT: s_endpgm
