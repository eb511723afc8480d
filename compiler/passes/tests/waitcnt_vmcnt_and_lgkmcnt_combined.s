// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_VmcntAndLgkmcntCombined).
// An instruction reading a VMEM and a DS result waits for both counters in
// one s_waitcnt.
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  ds_read_b32 v2, v91
  v_add_u32 v3, v1, v2
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: ds_read_b32 v2, v91
// GFX942-NEXT: s_waitcnt vmcnt(0) lgkmcnt(0)
// GFX942-NEXT: v_add_u32 v3, v1, v2
// GFX942-NEXT: s_endpgm
