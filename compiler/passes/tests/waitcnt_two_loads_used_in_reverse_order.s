// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_TwoLoadsUsedInReverseOrder).
// Two loads used in reverse order: vmcnt(0) before the use of the second
// load also completes the first: no second wait.
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  buffer_load_dword v2, v90, s[0:3], 0 offen
  v_add_u32 v80, v2, v81
  v_add_u32 v80, v1, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v2, v90, s[0:3], 0 offen
// GFX942-NEXT: s_waitcnt vmcnt(0)
// GFX942-NEXT: v_add_u32 v80, v2, v81
// GFX942-NEXT: v_add_u32 v80, v1, v81
// GFX942-NEXT: s_endpgm
