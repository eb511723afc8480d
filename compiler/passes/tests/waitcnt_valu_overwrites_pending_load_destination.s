// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass8_ValuOverwritesPendingLoadDestination).
// A VALU write of a pending load's destination: the load would land after
// the write. Only the load of v7 may stay in flight: vmcnt(1).
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  buffer_load_dword v7, v90, s[0:3], 0 offen
  v_mov_b32 v1, 0
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v7, v90, s[0:3], 0 offen
// GFX942-NEXT: s_waitcnt vmcnt(1)
// GFX942-NEXT: v_mov_b32 v1, 0
// GFX942-NEXT: s_endpgm
