// RUN: kirc opt %s --mcpu=gfx90a --run-pass=waitcnt | FileCheck %s --check-prefix=GFX90A
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass9_BarrierAfterOwnDsReads).
// A barrier after the wave's own ds_reads (before other waves overwrite the
// LDS they read) waits for them: lgkmcnt(0).
k:
  ds_read_b32 v1, v91
  s_barrier
  ds_write_b32 v91, v2
  s_endpgm

// GFX90A-LABEL: k:
// GFX90A-NEXT: ds_read_b32 v1, v91
// GFX90A-NEXT: s_waitcnt lgkmcnt(0)
// GFX90A-NEXT: s_barrier
// GFX90A-NEXT: ds_write_b32 v91, v2
// GFX90A-NEXT: s_endpgm
