// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_DsStoreOnlyNestedLoopsConverge).
// The same for LDS: a loop of ds_write only (lgkmcnt saturates at 15), and a
// nested pair of store-only loops; then a DS read used after the loops.
// .L0 is the outer loop's header, .L1 the inner one's, at the same place; the
// C++ test expects both labels kept ("#0 | #1 | ...").
k:
.L0:
.L1:
  ds_write_b32 v91, v1
  ds_write_b32 v91, v2
  buffer_store_dword v3, v90, s[0:3], 0 offen
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .L1
  ds_write_b32 v91, v4
  s_cmp_lt_u32 s11, 4
  s_cbranch_scc1 .L0
  ds_read_b32 v7, v91
  v_add_u32 v80, v7, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: .L0:
// GFX942-NEXT: .L1:
// GFX942-NEXT: ds_write_b32 v91, v1
// GFX942-NEXT: ds_write_b32 v91, v2
// GFX942-NEXT: buffer_store_dword v3, v90, s[0:3], 0 offen
// GFX942-NEXT: s_cmp_lt_u32 s10, 4
// GFX942-NEXT: s_cbranch_scc1 .L1
// GFX942-NEXT: ds_write_b32 v91, v4
// GFX942-NEXT: s_cmp_lt_u32 s11, 4
// GFX942-NEXT: s_cbranch_scc1 .L0
// GFX942-NEXT: ds_read_b32 v7, v91
// GFX942-NEXT: s_waitcnt lgkmcnt(0)
// GFX942-NEXT: v_add_u32 v80, v7, v81
// GFX942-NEXT: s_endpgm
