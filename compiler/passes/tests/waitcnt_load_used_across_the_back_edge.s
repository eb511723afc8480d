// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_LoadUsedAcrossTheBackEdge).
// Loops: a load issued late in the body is used early in the next iteration;
// the wait must be found through the back edge (failure class 7: "loop
// back-edges and joins not merged"). Through the back edge v5's load is the
// newest VMEM op: vmcnt(0) before the use of v5 (the first iteration has
// nothing outstanding; the merge keeps the worse case). After the loop v6 is
// pending with v5's load younger: vmcnt(1). (3: "vmcnt(N) means all but the
// N most recent VMEM ops are done".)
k:
.L0:
  v_add_u32 v80, v5, v81
  buffer_load_dword v6, v90, s[0:3], 0 offen
  buffer_load_dword v5, v90, s[0:3], 0 offen
  s_cmp_lt_u32 s10, 4
  s_cbranch_scc1 .L0
  v_add_u32 v80, v6, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: .L0:
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: v_add_u32 v80, v5, v81
// GFX942-NEXT: buffer_load_dword v6, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v5, v90, s[0:3], 0 offen
// GFX942-NEXT: s_cmp_lt_u32 s10, 4
// GFX942-NEXT: s_cbranch_scc1 .L0
// GFX942-NEXT: s_waitcnt vmcnt(1)
// GFX942-NEXT: v_add_u32 v80, v6, v81
// GFX942-NEXT: s_endpgm
