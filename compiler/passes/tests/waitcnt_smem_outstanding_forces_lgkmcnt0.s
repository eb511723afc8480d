// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_SmemOutstandingForcesLgkmcnt0).
// SMEM returns out of order (3, "when any s_load is outstanding, only
// lgkmcnt(0) is safe"): a ds_read followed by an s_load; lgkmcnt(1) before
// the ds_read's use would be wrong if the s_load came back first: lgkmcnt(0).
k:
  ds_read_b32 v1, v91
  s_load_dword s4, s[2:3], 0x0
  v_add_u32 v80, v1, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: ds_read_b32 v1, v91
// GFX942-NEXT: s_load_dword s4, s[2:3], 0x0
// GFX942-NEXT: s_waitcnt lgkmcnt(0)
// GFX942-NEXT: v_add_u32 v80, v1, v81
// GFX942-NEXT: s_endpgm
