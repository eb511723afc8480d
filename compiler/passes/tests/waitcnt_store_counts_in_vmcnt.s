// RUN: kirc opt %s --mcpu=gfx90a --run-pass=waitcnt | FileCheck %s --check-prefix=GFX90A
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_StoreCountsInVmcnt).
// gfx9: stores count in vmcnt (3, "vmcnt | every VMEM instruction ... Loads
// and stores alike: gfx9 has no separate vscnt"). Two VMEM ops (a store and a
// load) were issued after the load of v1: vmcnt(2); then vmcnt(0) for v2.
k:
  buffer_load_dword v1, v90, s[0:3], 0 offen
  buffer_store_dword v5, v90, s[0:3], 0 offen
  buffer_load_dword v2, v90, s[0:3], 0 offen
  v_add_u32 v80, v1, v81
  v_add_u32 v80, v2, v81
  s_endpgm

// GFX90A-LABEL: k:
// GFX90A-NEXT: buffer_load_dword v1, v90, s[0:3], 0 offen
// GFX90A-NEXT: buffer_store_dword v5, v90, s[0:3], 0 offen
// GFX90A-NEXT: buffer_load_dword v2, v90, s[0:3], 0 offen
// GFX90A-NEXT: s_waitcnt vmcnt(2)
// GFX90A-NEXT: v_add_u32 v80, v1, v81
// GFX90A-NEXT: s_waitcnt vmcnt(0)
// GFX90A-NEXT: v_add_u32 v80, v2, v81
// GFX90A-NEXT: s_endpgm
