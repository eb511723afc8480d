// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass8_DsReadIntoPendingVmemDestination).
// A ds_read into the destination of a pending buffer_load (WAW across
// counters): vmcnt(0).
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  ds_read_b32 v1, v91
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: ds_read_b32 v1, v91
// GFX942-NEXT: s_endpgm
