// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_DsReadsInOrderGiveLgkmcntN).
// LDS-only traffic is in order (3, "LDS-only (or GDS-only) traffic is in
// order, so lgkmcnt(N) works there"): three ds_reads used in order wait for
// lgkmcnt(2), lgkmcnt(1), lgkmcnt(0).
k:
  ds_read_b32 v1, v91
  ds_read_b32 v2, v91
  ds_read_b32 v3, v91
  v_add_u32 v80, v1, v81
  v_add_u32 v80, v2, v81
  v_add_u32 v80, v3, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: ds_read_b32 v1, v91
// GFX942-NEXT: ds_read_b32 v2, v91
// GFX942-NEXT: ds_read_b32 v3, v91
// GFX942-NEXT: s_waitcnt lgkmcnt(2)
// GFX942-NEXT: v_add_u32 v80, v1, v81
// GFX942-NEXT: s_waitcnt lgkmcnt(1)
// GFX942-NEXT: v_add_u32 v80, v2, v81
// GFX942-NEXT: s_waitcnt lgkmcnt(0)
// GFX942-NEXT: v_add_u32 v80, v3, v81
// GFX942-NEXT: s_endpgm
