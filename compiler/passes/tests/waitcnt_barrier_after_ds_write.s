// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass9_BarrierAfterDsWrite).
// Failure class 9: LDS data exchange between waves needs "ds_write...;
// s_waitcnt lgkmcnt(0); s_barrier; ds_read..." (3): lgkmcnt(0) before the
// barrier.
k:
  ds_write_b32 v91, v1
  s_barrier
  ds_read_b32 v2, v91
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: ds_write_b32 v91, v1
// GFX942-NEXT: s_waitcnt lgkmcnt(0)
// GFX942-NEXT: s_barrier
// GFX942-NEXT: ds_read_b32 v2, v91
// GFX942-NEXT: s_endpgm
