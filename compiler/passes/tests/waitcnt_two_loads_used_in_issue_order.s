// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_TwoLoadsUsedInIssueOrder).
// Two loads used in issue order: before the first use only the second load
// may still be in flight, vmcnt(1); then vmcnt(0). (3: vmcnt drains in issue
// order.) Not ported: the C++ test's stats counters (2 waits, 2 vmcnt waits,
// 0 lgkmcnt waits), which kirc opt does not print (the lines below imply them).
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  buffer_load_dword v2, v90, s[0:3], 0 offen
  v_add_u32 v80, v1, v81
  v_add_u32 v80, v2, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: s_waitcnt vmcnt(1)
// GFX942-NEXT: v_add_u32 v80, v1, v81
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: v_add_u32 v80, v2, v81
// GFX942-NEXT: s_endpgm
