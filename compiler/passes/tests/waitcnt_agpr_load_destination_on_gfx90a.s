// RUN: kirc opt %s --mcpu=gfx90a --run-pass=waitcnt | FileCheck %s --check-prefix=GFX90A
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.AgprLoadDestinationOnGfx90a).
// gfx90a: a ds_read_b128 into a[0:3], then v_accvgpr_read of a3: AGPR
// destinations are tracked too: lgkmcnt(0).
k:
  ds_read_b128 a[0:3], v91
  v_accvgpr_read_b32 v4, a3
  s_endpgm

// GFX90A-LABEL: k:
// GFX90A-NEXT: ds_read_b128 a[0:3], v91
// GFX90A-NEXT: s_waitcnt lgkmcnt(0)
// GFX90A-NEXT: v_accvgpr_read_b32 v4, a3
// GFX90A-NEXT: s_endpgm
