// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_ScalarLoadResultWaits).
// Two s_loads: their results can only be waited for with lgkmcnt(0), which
// covers both uses.
k:
  s_load_dword s4, s[2:3], 0x0
  s_load_dword s5, s[2:3], 0x0
  s_add_u32 s6, s4, 1
  s_add_u32 s7, s5, 1
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: s_load_dword s4, s[2:3], 0x0
// GFX942-NEXT: s_load_dword s5, s[2:3], 0x0
// GFX942-NEXT: s_waitcnt lgkmcnt(0)
// GFX942-NEXT: s_add_u32 s6, s4, 1
// GFX942-NEXT: s_add_u32 s7, s5, 1
// GFX942-NEXT: s_endpgm
