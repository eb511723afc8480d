// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass9_BarrierWithNothingOutstanding).
// gfx90a and later have back-off barriers: VMEM ops outstanding at s_barrier
// are not waited for (3, "gfx90a and later have back-off barriers, so LLVM
// does not add an implicit wait before s_barrier").
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  buffer_store_dword v3, v90, s[0:3], 0 offen
  s_barrier
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_store_dword v3, v90, s[0:3], 0 offen
// GFX942-NEXT: s_barrier
// GFX942-NEXT: s_endpgm
