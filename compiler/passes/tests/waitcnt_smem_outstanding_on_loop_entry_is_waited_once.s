// RUN: kirc opt %s --mcpu=gfx950 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX950
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (issue 19: the LDS DMA GEMM's prologue has no DS access, so the
// kernel's late s_loads, C's pointer and alpha, were still in flight at its
// K loop). An s_load (s4, used only after the loop) outstanding where the
// code falls into a loop header: lgkmcnt(0) once, before the header's label.
// Without it the header's entry state keeps the SMEM outstanding on every
// trip, and SMEM returning out of order ("when any s_load is outstanding,
// only lgkmcnt(0) is safe") would make the use of the first of two ds_reads
// wait lgkmcnt(0) each trip; with it, lgkmcnt(1) (DS returns in order: all
// but the newest done). The back edge itself gets no wait (nothing SMEM
// outstanding there), nor the block after the loop.
k:
  s_load_dword s4, s[2:3], 0x0
  v_mov_b32 v1, 0
.L0:
  ds_read_b32 v2, v91
  ds_read_b32 v3, v92
  v_add_u32 v80, v2, v81
  v_add_u32 v80, v3, v81
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .L0
  v_add_u32 v80, s4, v81
  s_endpgm

// GFX950-LABEL: k:
// GFX950-NEXT: s_load_dword s4, s[2:3], 0x0
// GFX950-NEXT: v_mov_b32 v1, 0
// GFX950-NEXT: s_waitcnt lgkmcnt(0)
// GFX950-NEXT: .L0:
// GFX950-NEXT: ds_read_b32 v2, v91
// GFX950-NEXT: ds_read_b32 v3, v92
// GFX950-NEXT: s_waitcnt lgkmcnt(1)
// GFX950-NEXT: v_add_u32 v80, v2, v81
// GFX950-NEXT: s_waitcnt lgkmcnt(0)
// GFX950-NEXT: v_add_u32 v80, v3, v81
// GFX950-NEXT: s_cmp_lt_u32 s10, 4
// GFX950-NEXT: s_cbranch_scc1 .L0
// GFX950-NEXT: v_add_u32 v80, s4, v81
// GFX950-NEXT: s_endpgm
